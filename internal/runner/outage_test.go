package runner_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// unreachableStore is the item store behind a store outage: until the
// clock reaches until, every claim (or, with outcomes, every outcome
// write after a claim that got through) fails as a timed-out DynamoDB
// request does.
type unreachableStore struct {
	*store.Memory
	now      func() time.Time
	until    time.Time
	outcomes bool
}

func (s *unreachableStore) down() error {
	if s.now().Before(s.until) {
		return &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("i/o timeout: %w", context.DeadlineExceeded)}
	}
	return nil
}

func (s *unreachableStore) Claim(ctx context.Context, req store.ClaimRequest) (store.Item, error) {
	if err := s.down(); err != nil && !s.outcomes {
		return store.Item{}, err
	}
	return s.Memory.Claim(ctx, req)
}

func (s *unreachableStore) Complete(ctx context.Context, req store.CompleteRequest) error {
	if err := s.down(); err != nil && s.outcomes {
		return err
	}
	return s.Memory.Complete(ctx, req)
}

// TestStoreOutageNeverReachesTheBackstop: a record whose store stays
// unreachable for all but a second of policy.StoreOutageTolerance is
// delivered again and again, as SQS does, each time after the visibility
// the runner set; with the soak's backstop of 8 receives and the least
// jitter at every draw, its claim (or its outcome write) gets through on a
// delivery the backstop still allows, and the item moves on. Before, the
// holds of 7 receives spanned about a minute at most.
func TestStoreOutageNeverReachesTheBackstop(t *testing.T) {
	t.Parallel()
	const backstop = 8
	for name, outcomes := range map[string]bool{"the claim fails": false, "the outcome write fails": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.Fetch)
			tb.seed(t, "a", work.Fetch)
			start := tb.clock.Now()
			db := &unreachableStore{Memory: tb.store, now: tb.clock.Now, until: start.Add(policy.StoreOutageTolerance - time.Second),
				outcomes: outcomes}
			tb.runner.Items = db
			tb.runner.BackstopReceives = backstop
			tb.runner.Rand = func() float64 { return 0 }
			for rc := 1; ; rc++ {
				if rc > backstop {
					t.Fatalf("the record failed %d deliveries over %s of a %s store outage: the backstop moves it to the DLQ",
						backstop, tb.clock.Now().Sub(start), policy.StoreOutageTolerance)
				}
				m := msg("a", work.Fetch, "m1", rc)
				m.ReceiptHandle = fmt.Sprintf("rh-m1-%d", rc)
				// Each delivery runs in an invocation of a minute, so the
				// lease a claim takes lapses with it, as in Lambda.
				ctx, cancel := context.WithDeadline(context.Background(), tb.clock.Now().Add(time.Minute))
				resp := tb.handle(t, ctx, m)
				cancel()
				if len(resp.BatchItemFailures) == 0 {
					if tb.clock.Now().Before(db.until) {
						t.Fatalf("delivery %d acknowledged during the outage", rc)
					}
					break
				}
				vis := tb.visibility(t, m.ReceiptHandle)
				if rc < backstop-1 && time.Duration(vis)*time.Second > 5*time.Minute {
					t.Fatalf("delivery %d held %d s: the early holds stay short, so a short outage costs little", rc, vis)
				}
				tb.clock.Advance(time.Duration(vis) * time.Second)
			}
			it := tb.item(t, "a")
			if it.Stage != work.LLM || it.Attempts[work.Fetch] != 0 {
				t.Fatalf("item after the outage: stage %s attempts %v; want at llm, no attempt counted", it.Stage, it.Attempts)
			}
			if len(tb.forwards()) != 1 {
				t.Fatalf("forwards %v, want one to llm", tb.forwards())
			}
		})
	}
}

// hangingStore is a store whose claim hangs until its context ends, as a
// saturated DynamoDB endpoint does.
type hangingStore struct{ *store.Memory }

func (s hangingStore) Claim(ctx context.Context, _ store.ClaimRequest) (store.Item, error) {
	<-ctx.Done()
	return store.Item{}, ctx.Err()
}

// deadlineQueues refuses a call whose context has ended, as the SDK does.
type deadlineQueues struct{ runner.Queues }

func (q deadlineQueues) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput,
	opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return q.Queues.ChangeMessageVisibilityBatch(ctx, in, opts...)
}

// TestHangingStoreLeavesTimeForTheVisibilityChange: a claim that hangs
// until the record's writes must end still leaves the batch the time to set
// the record's decided hold — cut by the deadline, the visibility change
// would fail and the record come back after the queue's default, spending a
// receive of the backstop's for nothing (the 2,000-item soak saw it).
func TestHangingStoreLeavesTimeForTheVisibilityChange(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.seed(t, "a", work.Fetch)
	tb.runner.Items = hangingStore{tb.store}
	tb.runner.SQS = deadlineQueues{tb.sqs}
	tb.runner.BackstopReceives = 8
	ctx, cancel := context.WithTimeout(context.Background(), runner.FinishReserve+500*time.Millisecond)
	defer cancel()
	m := msg("a", work.Fetch, "m1", 7)
	if f := failedIDs(tb.handle(t, ctx, m)); len(f) != 1 {
		t.Fatalf("kept %v, want the record kept", f)
	}
	v, ok := tb.sqs.Visibility(m.ReceiptHandle)
	if !ok {
		t.Fatal("no visibility change reached SQS: the hang took the batch's time")
	}
	if time.Duration(v)*time.Second < policy.StoreOutageTolerance-5*time.Minute {
		t.Fatalf("visibility %d s: want the stretched hold before the backstop's last delivery", v)
	}
}
