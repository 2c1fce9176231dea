package runnertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/local/poller"
)

// SQS is the part of the SQS client Pump uses.
type SQS interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// Pump does what Lambda's SQS event source does once, through the same
// emulation the local stack runs (poller.Poller.Once): it receives up to 10
// messages from queueURL (waiting up to wait for the first), hands them to
// h as one event, and deletes the records the handler did not report as
// failures. It returns the records delivered and the handler's response;
// no records means nothing arrived within wait.
func Pump(ctx context.Context, t testing.TB, client SQS, queueURL string,
	h func(context.Context, events.SQSEvent) (events.SQSEventResponse, error), wait time.Duration) ([]events.SQSMessage, events.SQSEventResponse) {
	t.Helper()
	var (
		recs []events.SQSMessage
		resp events.SQSEventResponse
		herr error
	)
	p := &poller.Poller{
		Mapping: poller.Mapping{Function: "pump", QueueURL: queueURL, QueueARN: QueueARN(queueURL), ReportBatchItemFailures: true},
		SQS:     client,
		Invoker: poller.Handler(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			recs = ev.Records
			resp, herr = h(ctx, ev)
			return resp, herr
		}),
	}
	rep, err := p.Once(ctx, wait)
	switch {
	case err != nil:
		t.Fatalf("receive from %s: %v", queueURL, err)
	case herr != nil:
		t.Fatalf("handler error: %v", herr)
	case rep.Err != nil:
		t.Fatalf("batch from %s: %v", queueURL, rep.Err)
	case rep.DeleteFailed > 0:
		t.Fatalf("delete from %s: %d records not deleted", queueURL, rep.DeleteFailed)
	}
	return recs, resp
}

// Drain receives the messages on queueURL without deleting them — up to
// 10 a call, waiting up to wait for the first, at most five calls, until
// one finds none — and returns their bodies.
func Drain(ctx context.Context, t testing.TB, client SQS, queueURL string, wait time.Duration) []string {
	t.Helper()
	var bodies []string
	for range 5 {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10, WaitTimeSeconds: int32(wait / time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			break
		}
		for _, m := range out.Messages {
			bodies = append(bodies, aws.ToString(m.Body))
		}
	}
	return bodies
}

// QueueARN derives arn:aws:sqs:us-east-1:<account>:<name> from a queue URL
// (.../<account>/<name>).
func QueueARN(url string) string {
	parts := strings.Split(strings.TrimRight(url, "/"), "/")
	if len(parts) < 2 {
		return ""
	}
	return "arn:aws:sqs:us-east-1:" + parts[len(parts)-2] + ":" + parts[len(parts)-1]
}
