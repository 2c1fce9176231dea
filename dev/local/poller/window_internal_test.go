package poller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/internal/clock"
)

// scriptedSQS answers ReceiveMessage from a script, one entry per call; an
// empty entry advances the clock by the call's WaitTimeSeconds, as a long
// poll that found nothing would. Past the script it blocks until ctx ends.
type scriptedSQS struct {
	mu      sync.Mutex
	script  [][]types.Message
	clock   *clock.Stub
	max     []int32 // MaxNumberOfMessages of each call
	waits   []int32 // WaitTimeSeconds of each call
	deleted []string
}

func (f *scriptedSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	f.mu.Lock()
	f.max = append(f.max, in.MaxNumberOfMessages)
	f.waits = append(f.waits, in.WaitTimeSeconds)
	if len(f.script) == 0 {
		f.mu.Unlock()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	msgs := f.script[0]
	f.script = f.script[1:]
	f.mu.Unlock()
	if len(msgs) == 0 {
		f.clock.Advance(time.Duration(in.WaitTimeSeconds) * time.Second)
	}
	return &sqs.ReceiveMessageOutput{Messages: msgs}, nil
}

func (f *scriptedSQS) DeleteMessageBatch(_ context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range in.Entries {
		f.deleted = append(f.deleted, aws.ToString(e.ReceiptHandle))
	}
	return &sqs.DeleteMessageBatchOutput{}, nil
}

// recordingInvoker records the message ids of every batch and succeeds.
type recordingInvoker struct {
	mu      sync.Mutex
	batches [][]string
	got     chan struct{}
}

func (r *recordingInvoker) Invoke(_ context.Context, _ string, payload []byte) (lambda.Result, error) {
	var ev events.SQSEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return lambda.Result{}, err
	}
	var ids []string
	for _, rec := range ev.Records {
		ids = append(ids, rec.MessageId)
	}
	r.mu.Lock()
	r.batches = append(r.batches, ids)
	r.mu.Unlock()
	r.got <- struct{}{}
	return lambda.Result{Payload: []byte(`{"batchItemFailures":[]}`)}, nil
}

func msgs(from, n int) []types.Message {
	out := make([]types.Message, n)
	for i := range out {
		id := fmt.Sprintf("m%d", from+i)
		out[i] = types.Message{MessageId: aws.String(id), ReceiptHandle: aws.String("rh-" + id), Body: aws.String("{}")}
	}
	return out
}

func ids(from, n int) []string {
	var out []string
	for _, m := range msgs(from, n) {
		out = append(out, *m.MessageId)
	}
	return out
}

func TestBatchingWindow(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		batchSize int
		window    time.Duration
		script    [][]types.Message
		want      [][]string // the invoked batches
		wantMax   []int32    // MaxNumberOfMessages per receive
		wantWaits []int32    // WaitTimeSeconds per receive
	}{
		"no window: each receive is a batch": {
			batchSize: 10, script: [][]types.Message{msgs(1, 1), msgs(2, 2)},
			want: [][]string{ids(1, 1), ids(2, 2)}, wantMax: []int32{10, 10}, wantWaits: []int32{2, 2},
		},
		"window gathers until the batch is full": {
			batchSize: 3, window: time.Minute, script: [][]types.Message{msgs(1, 1), {}, msgs(2, 1), msgs(3, 1)},
			want: [][]string{ids(1, 3)}, wantMax: []int32{3, 2, 2, 1}, wantWaits: []int32{2, 2, 2, 2},
		},
		"batches over ten take several receives": {
			batchSize: 25, window: time.Minute, script: [][]types.Message{msgs(1, 10), msgs(11, 10), msgs(21, 5)},
			want: [][]string{ids(1, 25)}, wantMax: []int32{10, 10, 5}, wantWaits: []int32{2, 2, 2},
		},
		"window ends with a short poll": {
			batchSize: 10, window: 1500 * time.Millisecond, script: [][]types.Message{msgs(1, 1), {}, {}},
			want: [][]string{ids(1, 1)}, wantMax: []int32{10, 9, 9}, wantWaits: []int32{2, 1, 0},
		},
		"window expires after long polls": {
			batchSize: 10, window: 3 * time.Second, script: [][]types.Message{msgs(1, 2), {}, msgs(3, 1), {}},
			want: [][]string{ids(1, 3)}, wantMax: []int32{10, 8, 8, 7}, wantWaits: []int32{2, 2, 1, 1},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := clock.NewStub(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			fake := &scriptedSQS{script: tc.script, clock: clk}
			inv := &recordingInvoker{got: make(chan struct{}, len(tc.want))}
			p := &Poller{
				Mapping: Mapping{Function: "F", QueueURL: "q", QueueARN: "arn:aws:sqs:us-east-1:123456789012:q",
					BatchSize: tc.batchSize, BatchingWindow: tc.window, MaxConcurrency: 1, ReportBatchItemFailures: true},
				SQS: fake, Invoker: inv, clock: clk,
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- p.Run(ctx) }()
			for range tc.want {
				select {
				case <-inv.got:
				case <-time.After(10 * time.Second):
					t.Fatal("batch not invoked")
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			inv.mu.Lock()
			defer inv.mu.Unlock()
			if !slices.EqualFunc(inv.batches, tc.want, slices.Equal) {
				t.Errorf("batches %v, want %v", inv.batches, tc.want)
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			// The receive after the last batch blocks until Run stops.
			if got := fake.max[:len(tc.wantMax)]; !slices.Equal(got, tc.wantMax) {
				t.Errorf("MaxNumberOfMessages %v, want %v", fake.max, tc.wantMax)
			}
			if got := fake.waits[:len(tc.wantWaits)]; !slices.Equal(got, tc.wantWaits) {
				t.Errorf("WaitTimeSeconds %v, want %v", fake.waits, tc.wantWaits)
			}
			if c := p.Counters(); c.Deleted != int64(len(fake.deleted)) || c.Batches != int64(len(tc.want)) {
				t.Errorf("counters %+v, deleted %v", c, fake.deleted)
			}
		})
	}
}
