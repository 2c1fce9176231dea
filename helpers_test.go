package triage_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
)

// fakeClock moves only when Do waits: each Sleep advances it by the wait
// and records it, so a test sees every wait without spending it.
type fakeClock struct {
	*clock.Stub
	mu    sync.Mutex
	slept []time.Duration
}

// t0 is far from the wall clock, so a context deadline set on the fake
// clock's time never ends in real time.
var t0 = time.Date(2031, 3, 4, 10, 0, 0, 0, time.UTC)

func newClock() *fakeClock { return &fakeClock{Stub: clock.NewStub(t0)} }

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	f.slept = append(f.slept, d)
	f.mu.Unlock()
	f.Advance(d)
	return nil
}

func (f *fakeClock) waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.slept...)
}

// within returns a context whose deadline is d after the fake clock's now.
func within(t *testing.T, c *fakeClock, d time.Duration) context.Context {
	ctx, cancel := context.WithDeadline(t.Context(), c.Now().Add(d))
	t.Cleanup(cancel)
	return ctx
}

// fakeSQS takes every message and keeps its body.
type fakeSQS struct {
	mu     sync.Mutex
	bodies []string
}

func (f *fakeSQS) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		f.bodies = append(f.bodies, aws.ToString(e.MessageBody))
		out.Successful = append(out.Successful, sqstypes.SendMessageBatchResultEntry{Id: e.Id,
			MessageId: aws.String("m-" + strconv.Itoa(len(f.bodies)))})
	}
	return out, nil
}

func (f *fakeSQS) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// half is a jitter source that draws the middle of every range.
func half() float64 { return 0.5 }

func newClient(t *testing.T, cfg triage.Config) *triage.Client {
	t.Helper()
	c, err := triage.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func item(id string) triage.Item {
	return triage.Item{ItemID: id, SourceURL: "https://news.example.com/" + id, WebhookURL: "https://hooks.example.com/t"}
}

func retryInput(stage triage.Stage, err error, attempt int) policy.Input {
	return policy.Input{Stage: stage, Failure: failure.Classify(err), Attempt: attempt, Now: t0}
}
