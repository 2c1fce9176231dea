package sqs_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/sqs"
)

// BenchmarkDepth measures one cycle of the pipeline's SQS traffic — a
// SendMessageBatch of 10, a ReceiveMessage of up to 10 and the
// DeleteMessageBatch of what it received — through the SDK against a
// queue already holding depth messages, which the cycle leaves as it found
// it. On the emulator the cost is flat in the depth; on moto's SQS
// (BENCH_MOTO=1, smaller depths: moto takes minutes to fill a deep queue)
// it grows with it.
func BenchmarkDepth(b *testing.B) {
	depths := []int{0, 1_000, 10_000, 100_000}
	servers := map[string]func(b *testing.B) string{"emulator": func(b *testing.B) string {
		srv := httptest.NewServer(sqs.New(sqs.Options{}))
		b.Cleanup(srv.Close)
		return srv.URL
	}}
	if os.Getenv("BENCH_MOTO") != "" {
		servers["moto"] = func(b *testing.B) string {
			s, err := moto.Start(context.Background(), moto.Options{SQS: moto.SQSMoto})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Stop() })
			return s.BackendURL
		}
	}
	for _, name := range []string{"emulator", "moto"} {
		start, ok := servers[name]
		if !ok {
			continue
		}
		for _, depth := range depths {
			if name == "moto" && depth > 1_000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/depth=%d", name, depth), func(b *testing.B) {
				ctx := context.Background()
				cfg, err := moto.Config(ctx, start(b))
				if err != nil {
					b.Fatal(err)
				}
				c := awssqs.NewFromConfig(cfg)
				q, err := c.CreateQueue(ctx, &awssqs.CreateQueueInput{QueueName: aws.String("depth")})
				if err != nil {
					b.Fatal(err)
				}
				send := func() {
					entries := make([]types.SendMessageBatchRequestEntry, 10)
					for i := range entries {
						entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)),
							MessageBody: aws.String(`{"item_id":"item-000001","stage":"llm","correlation_id":"corr-000001"}`)}
					}
					if _, err := c.SendMessageBatch(ctx, &awssqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries}); err != nil {
						b.Fatal(err)
					}
				}
				for range depth / 10 {
					send()
				}
				b.ResetTimer()
				start := time.Now()
				for b.Loop() {
					send()
					out, err := c.ReceiveMessage(ctx, &awssqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10,
						MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
					if err != nil {
						b.Fatal(err)
					}
					if len(out.Messages) == 0 {
						continue
					}
					del := make([]types.DeleteMessageBatchRequestEntry, len(out.Messages))
					for i, m := range out.Messages {
						del[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
					}
					if _, err := c.DeleteMessageBatch(ctx, &awssqs.DeleteMessageBatchInput{QueueUrl: q.QueueUrl, Entries: del}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N)/3, "µs/call")
			})
		}
	}
}
