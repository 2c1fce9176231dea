package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

const noticeURL = "https://sqs.us-east-1.amazonaws.com/123456789012/notices"

// withNotices wires the real Sender onto the bundle's fake SQS.
func withNotices(tb *testBundle) *testBundle {
	tb.runner.Notices = &notice.Sender{SQS: tb.sqs, QueueURL: noticeURL}
	return tb
}

func (tb *testBundle) seedKind(t *testing.T, id string, st work.Stage, kind store.Kind, n *store.Notices) {
	t.Helper()
	tb.seed(t, id, st)
	it := tb.item(t, id)
	it.Kind, it.Notices = kind, n
	tb.store.Put(it)
}

func (tb *testBundle) notices(t *testing.T) []notice.Notice {
	t.Helper()
	var out []notice.Notice
	for _, body := range tb.sqs.Sent(noticeURL) {
		n, err := notice.Decode(body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

var actionFailed = func(context.Context, store.Item) (work.Output, error) {
	return work.Output{}, failure.ActionError("{}\nACTION_OUTCOME: failed | the ticket is locked")
}

// A dead-lettered action task's owner gets one item.failed, enqueued after
// the dead letter is on the DLQ, naming the same dead letter.
func TestDeadLetteredActionNoticesItsOwner(t *testing.T) {
	t.Parallel()
	tb := withNotices(setup(t, work.LLM))
	tb.seedKind(t, "task", work.LLM, store.KindAction, nil)
	it := tb.item(t, "task")
	it.Attempts = map[work.Stage]int{work.LLM: 2}
	tb.store.Put(it)
	tb.work = actionFailed
	if f := failedIDs(tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 3))); len(f) != 0 {
		t.Fatalf("kept %v", f)
	}
	dls := tb.deadLetters(t)
	ns := tb.notices(t)
	if len(dls) != 1 || len(ns) != 1 {
		t.Fatalf("%d dead letters and %d notices, want 1 and 1", len(dls), len(ns))
	}
	n := ns[0]
	if n.Event != notice.Failed || n.ID != "task:item.failed:0" || n.Stage != work.LLM || n.Class != work.ActionFailed ||
		n.Attempt != 3 || n.MaxAttempts != 3 || n.DeadLetterID != dls[0].SanitizedContext.DeadLetterID ||
		n.Reason != "the model reported that the action failed: the ticket is locked" || n.NextRetryAt != nil {
		t.Fatalf("notice %+v", n)
	}
	if got := tb.item(t, "task").State; got != work.Deadletter {
		t.Fatalf("item %s", got)
	}
}

// Stories and documents ask for nothing by default: a dead letter or a
// retry makes no notice request at all.
func TestNoNoticeForItemsThatAskedForNone(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		kind    store.Kind
		notices *store.Notices
	}{
		"story":                 {store.KindStory, nil},
		"document":              {store.KindDocument, nil},
		"action that opted out": {store.KindAction, &store.Notices{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := withNotices(setup(t, work.Fetch))
			tb.seedKind(t, "dead", work.Fetch, tc.kind, tc.notices)
			tb.seedKind(t, "retry", work.Fetch, tc.kind, tc.notices)
			tb.work = func(_ context.Context, it store.Item) (work.Output, error) {
				if it.ID == "dead" {
					return work.Output{}, httpErr(failure.HTTP, 404, "")
				}
				return work.Output{}, httpErr(failure.HTTP, 503, "")
			}
			tb.handle(t, context.Background(), msg("dead", work.Fetch, "m1", 1), msg("retry", work.Fetch, "m2", 1))
			if len(tb.deadLetters(t)) != 1 {
				t.Fatal("no dead letter")
			}
			if sent := tb.sqs.Sent(noticeURL); len(sent) != 0 {
				t.Fatalf("%d notices for an item that asked for none", len(sent))
			}
		})
	}
}

// A notice that cannot be enqueued keeps the record; the dead letter is
// durable and is not sent again: the redelivery only enqueues the notice.
func TestUnsentFailedNoticeIsEnqueuedByTheRedelivery(t *testing.T) {
	t.Parallel()
	tb := withNotices(setup(t, work.LLM))
	tb.seedKind(t, "task", work.LLM, store.KindAction, nil)
	tb.failWith(failure.New(work.SchemaInvalid, "item has no fetched text"))
	tb.sqs.FailSends(noticeURL, true)
	if f := failedIDs(tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 1))); len(f) != 1 {
		t.Fatalf("kept %v, want the record kept", f)
	}
	if len(tb.deadLetters(t)) != 1 || tb.item(t, "task").State != work.Deadletter {
		t.Fatalf("the dead letter must stand: %d, %s", len(tb.deadLetters(t)), tb.item(t, "task").State)
	}
	if v := tb.visibility(t, "rh-m1"); v != int32(runner.DefaultResendDelay.Seconds()) {
		t.Fatalf("visibility %d", v)
	}
	tb.sqs.FailSends(noticeURL, false)
	calls := tb.calls.Load()
	if f := failedIDs(tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 2))); len(f) != 0 {
		t.Fatalf("redelivery kept %v", f)
	}
	if len(tb.deadLetters(t)) != 1 || len(tb.notices(t)) != 1 || tb.calls.Load() != calls {
		t.Fatalf("redelivery: %d dead letters, %d notices, %d upstream calls more", len(tb.deadLetters(t)), len(tb.notices(t)), tb.calls.Load()-calls)
	}
	// Another message for the item (a duplicate) is not its carrier: no
	// notice again.
	tb.handle(t, context.Background(), msg("task", work.LLM, "m2", 1))
	if len(tb.notices(t)) != 1 {
		t.Fatalf("a duplicate message enqueued the notice again")
	}
}

// An owner who asked for retries hears of each failure that spent an
// attempt, with the time of the next one; waits that spend none send none.
func TestRetryScheduledNotices(t *testing.T) {
	t.Parallel()
	tb := withNotices(setup(t, work.LLM))
	tb.seedKind(t, "task", work.LLM, store.KindAction, &store.Notices{Failed: true, RetryScheduled: true})
	tb.work = actionFailed
	tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 1))
	ns := tb.notices(t)
	if len(ns) != 1 {
		t.Fatalf("%d notices, want 1", len(ns))
	}
	n, it := ns[0], tb.item(t, "task")
	if n.Event != notice.RetryScheduled || n.ID != "task:item.retry_scheduled:0:llm:1" || n.Attempt != 1 ||
		n.NextRetryAt == nil || !n.NextRetryAt.Equal(it.NotBefore) || n.Class != work.ActionFailed {
		t.Fatalf("notice %+v (item not_before %v)", n, it.NotBefore)
	}
	// A provider's quota: a wait, no attempt spent, no notice.
	tb.clock.Advance(3 * time.Minute)
	tb.failWith(httpErr(failure.OpenAI, 429, `{"error":{"code":"insufficient_quota","message":"quota"}}`))
	tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 2))
	if got := tb.item(t, "task"); got.State != work.Retryable || got.Attempts[work.LLM] != 1 {
		t.Fatalf("after the wait: %s, attempts %d", got.State, got.Attempts[work.LLM])
	}
	if len(tb.notices(t)) != 1 {
		t.Fatalf("%d notices after a wait, want still 1", len(tb.notices(t)))
	}
}

// A retry notice that cannot be enqueued changes nothing about the retry.
func TestUnsentRetryNoticeDoesNotChangeTheRetry(t *testing.T) {
	t.Parallel()
	tb := withNotices(setup(t, work.LLM))
	tb.seedKind(t, "task", work.LLM, store.KindAction, &store.Notices{RetryScheduled: true})
	tb.work = actionFailed
	tb.sqs.FailSends(noticeURL, true)
	if f := failedIDs(tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 1))); len(f) != 1 {
		t.Fatalf("kept %v", f)
	}
	if v := tb.visibility(t, "rh-m1"); v != 120 {
		t.Fatalf("visibility %d, want the ACTION_FAILED delay of 120 s", v)
	}
	if got := tb.item(t, "task"); got.State != work.Retryable || got.Attempts[work.LLM] != 1 {
		t.Fatalf("item %s, attempts %d", got.State, got.Attempts[work.LLM])
	}
}

// A notice that cannot be enqueued does not hold its record until the
// queue's redrive backstop moves it to the DLQ as a raw message: near the
// backstop the notice is given up and the record acknowledged.
func TestUnsentFailedNoticeGivesWayToTheBackstop(t *testing.T) {
	t.Parallel()
	tb := withNotices(setup(t, work.LLM))
	tb.runner.BackstopReceives = 10
	tb.seedKind(t, "task", work.LLM, store.KindAction, nil)
	tb.failWith(failure.New(work.SchemaInvalid, "item has no fetched text"))
	tb.sqs.FailSends(noticeURL, true)
	if f := failedIDs(tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 5))); len(f) != 1 {
		t.Fatalf("receive 5 of 10: kept %v, want the record kept", f)
	}
	if v := tb.visibility(t, "rh-m1"); v < 16 || v > 32 {
		t.Fatalf("visibility %d, want a backoff on the receive count (16..32 s)", v)
	}
	if f := failedIDs(tb.handle(t, context.Background(), msg("task", work.LLM, "m1", 8))); len(f) != 0 {
		t.Fatalf("receive 8 of 10: kept %v, want the notice given up and the record acknowledged", f)
	}
	if len(tb.deadLetters(t)) != 1 || tb.item(t, "task").State != work.Deadletter {
		t.Fatalf("the dead letter must stand: %d, %s", len(tb.deadLetters(t)), tb.item(t, "task").State)
	}
}
