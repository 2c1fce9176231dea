package notice_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

const queueURL = "https://sqs.us-east-1.amazonaws.com/123456789012/notices"

func actionFailed(reason string) store.LastError {
	return store.LastError{Component: work.LLM, ErrorClass: work.ActionFailed, FailedAt: t0, CorrelationID: "corr",
		Error: "ACTION_FAILED: action reported failed: " + reason, RetryCount: 3, MaxRetries: 3, Retryable: true,
		Details: map[string]string{"model": "openai:gpt-4o-mini"}}
}

func TestReasonSaysWhatWithoutUpstreamText(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		le   store.LastError
		want string
	}{
		"action failed, the model's reason": {actionFailed("ticket 7 is locked"),
			"the model reported that the action failed: ticket 7 is locked"},
		"action failed, PII redacted": {actionFailed("mail jane.doe@example.com bounced"),
			"the model reported that the action failed: mail [REDACTED:email] bounced"},
		"webhook gone, status and code, no body": {store.LastError{ErrorClass: work.NotFound, ErrorCode: "channel_not_found",
			Error:   "webhook POST webhook: HTTP 404 channel_not_found: see https://hooks.slack.com/services/T0/B0/XXXX",
			Details: map[string]string{"upstream_status": "404", "host": "hooks.slack.com"}},
			"the source or the destination does not exist (HTTP 404, code channel_not_found)"},
		"provider 500 echoing a key": {store.LastError{ErrorClass: work.UpstreamUnavailable,
			Error: "openai: HTTP 500: bad key sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789", Details: map[string]string{"upstream_status": "500"}},
			"the upstream service was unavailable (HTTP 500)"},
		"an odd code is left out": {store.LastError{ErrorClass: work.AuthDenied, ErrorCode: "see https://x/y"},
			"the upstream service refused our credentials"},
		"unknown class": {store.LastError{ErrorClass: "NEW_CLASS"}, "failure NEW_CLASS"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := notice.Reason(tc.le); got != tc.want {
				t.Fatalf("Reason = %q\nwant     %q", got, tc.want)
			}
		})
	}
	for _, c := range work.Classes() {
		if r := notice.Reason(store.LastError{ErrorClass: c}); strings.HasPrefix(r, "failure ") {
			t.Errorf("class %s has no owner-facing description", c)
		}
	}
}

func TestKeysAreOnePerEvent(t *testing.T) {
	t.Parallel()
	if got := notice.FailedKey("task-1", 0); got != "task-1:item.failed:0" {
		t.Errorf("FailedKey = %q", got)
	}
	if got := notice.RetryScheduledKey("task-1", 2, work.LLM, 1); got != "task-1:item.retry_scheduled:2:llm:1" {
		t.Errorf("RetryScheduledKey = %q", got)
	}
	it := store.Item{ID: "task-1", Kind: store.KindAction, CorrelationID: "corr", ReplayCount: 1}
	le := actionFailed("x")
	at := t0.Add(2 * time.Minute)
	le.RetryAt, le.RetryCount = &at, 1
	if a, b := notice.ForFailed(it, le, "dl").ID, notice.ForFailed(it, le, "dl").ID; a != b || a != "task-1:item.failed:1" {
		t.Errorf("item.failed keys %q, %q", a, b)
	}
	r := notice.ForRetryScheduled(it, le)
	if r.ID != "task-1:item.retry_scheduled:1:llm:1" || r.NextRetryAt == nil || !r.NextRetryAt.Equal(at) || r.Event != notice.RetryScheduled {
		t.Errorf("item.retry_scheduled %+v", r)
	}
}

// The queue message round-trips; what is not a notice is refused.
func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	n := notice.ForFailed(store.Item{ID: "task-1", Kind: store.KindAction, CorrelationID: "corr"}, actionFailed("no"), "dl-1")
	n.SentAt = t0
	body, err := n.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "sent_at") {
		t.Errorf("the queue message carries sent_at: %s", body)
	}
	back, err := notice.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	n.SentAt = time.Time{}
	a, _ := json.Marshal(n)
	b, _ := json.Marshal(back)
	if string(a) != string(b) {
		t.Fatalf("round trip\n%s\n%s", a, b)
	}
	for name, body := range map[string]string{
		"not JSON":          "nope",
		"an envelope":       `{"item_id":"a","stage":"llm","correlation_id":"c"}`,
		"unknown event":     `{"event":"item.done","notice_id":"a:x","item_id":"a"}`,
		"key of another id": `{"event":"item.failed","notice_id":"b:item.failed:0","item_id":"a"}`,
	} {
		if _, err := notice.Decode(body); !errors.Is(err, notice.ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// An item that asked for nothing costs no request; one that asked gets one
// message per event.
func TestSenderSendsOnlyWhatTheOwnerAskedFor(t *testing.T) {
	t.Parallel()
	le := actionFailed("no")
	at := t0.Add(time.Minute)
	le.RetryAt = &at
	for name, tc := range map[string]struct {
		it           store.Item
		failed, retr int
	}{
		"story by default":         {store.Item{ID: "s", Kind: store.KindStory}, 0, 0},
		"document by default":      {store.Item{ID: "d", Kind: store.KindDocument}, 0, 0},
		"action by default":        {store.Item{ID: "a", Kind: store.KindAction}, 1, 0},
		"action that opted out":    {store.Item{ID: "a", Kind: store.KindAction, Notices: &store.Notices{}}, 0, 0},
		"action that wants both":   {store.Item{ID: "a", Kind: store.KindAction, Notices: &store.Notices{Failed: true, RetryScheduled: true}}, 1, 1},
		"story that wants retries": {store.Item{ID: "s", Kind: store.KindStory, Notices: &store.Notices{RetryScheduled: true}}, 0, 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := runnertest.NewQueues()
			s := &notice.Sender{SQS: q, QueueURL: queueURL}
			if err := s.DeadLettered(context.Background(), tc.it, le, "dl"); err != nil {
				t.Fatal(err)
			}
			if err := s.RetryScheduled(context.Background(), tc.it, le); err != nil {
				t.Fatal(err)
			}
			var failed, retr int
			for _, body := range q.Sent(queueURL) {
				n, err := notice.Decode(body)
				if err != nil {
					t.Fatal(err)
				}
				switch n.Event {
				case notice.Failed:
					failed++
				case notice.RetryScheduled:
					retr++
				}
			}
			if failed != tc.failed || retr != tc.retr {
				t.Fatalf("sent %d item.failed and %d item.retry_scheduled, want %d and %d", failed, retr, tc.failed, tc.retr)
			}
		})
	}
}

func TestSenderReportsAFailedEnqueue(t *testing.T) {
	t.Parallel()
	q := runnertest.NewQueues()
	q.FailSends(queueURL, true)
	s := &notice.Sender{SQS: q, QueueURL: queueURL}
	if err := s.DeadLettered(context.Background(), store.Item{ID: "a", Kind: store.KindAction}, actionFailed("x"), "dl"); err == nil {
		t.Fatal("a failed enqueue was not reported")
	}
}
