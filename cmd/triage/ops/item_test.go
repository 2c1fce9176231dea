package ops_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestViewItemRedactsTheURLs(t *testing.T) {
	t.Parallel()
	v := ops.ViewItem(store.Item{ID: "a", SourceURL: "https://news.example/a?token=tok_Secr3tToken0987654321",
		WebhookURL: "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx"})
	for _, s := range []string{"tok_Secr3tToken0987654321", "abcdefghijklmnopqrstuvwx"} {
		if strings.Contains(v.SourceURL+v.WebhookURL, s) {
			t.Errorf("the view shows %q: %s %s", s, v.SourceURL, v.WebhookURL)
		}
	}
	if v.Attempts == nil || len(v.Attempts) != len(work.Stages()) || v.Replays == nil || v.Notes == nil {
		t.Errorf("attempts %v, replays %v, notes %v: want every stage and empty lists", v.Attempts, v.Replays, v.Notes)
	}
}

// TestViewItemRedactsTheMetadata: a producer's metadata is its own free
// key/value context, and a credential or an address in it reaches
// `items get`, `dlq show` and their --json only through the view.
func TestViewItemRedactsTheMetadata(t *testing.T) {
	t.Parallel()
	v := ops.ViewItem(store.Item{ID: "a", Metadata: map[string]string{"team": "newsroom", "ticket": "INC-1042",
		"callback_token": "cbt_9f8e7d6c5b4a39281706", "customer_email": "ada.obi@example.org"}})
	for _, s := range []string{"cbt_9f8e7d6c5b4a39281706", "ada.obi@example.org"} {
		for k, val := range v.Metadata {
			if strings.Contains(val, s) {
				t.Errorf("the view's metadata %s shows %q", k, s)
			}
		}
	}
	if v.Metadata["team"] != "newsroom" || v.Metadata["ticket"] != "INC-1042" {
		t.Errorf("metadata %v: want the plain values kept", v.Metadata)
	}
}

type failingLog struct{}

func (failingLog) ForItem(context.Context, string, int) ([]store.LogEntry, error) {
	return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
}

type log []store.LogEntry

func (l log) ForItem(context.Context, string, int) ([]store.LogEntry, error) { return l, nil }

func TestTimelineNamesItsGaps(t *testing.T) {
	t.Parallel()
	it := store.Item{ID: "a", State: work.Deadletter, Stage: work.Fetch, CreatedAt: t0, UpdatedAt: t0,
		DeadLetter: &store.DeadLetterRef{ID: "dl", Stage: work.Fetch, Class: work.NotFound, At: t0}}
	tests := map[string]struct {
		src  ops.TimelineSources
		gaps []string
	}{
		"no tables": {ops.TimelineSources{LogMissing: "pass --errorlog-table", TrailMissing: "pass --audit-table"},
			[]string{"the error log: pass --errorlog-table", "the audit trail: pass --audit-table"}},
		"unreadable log": {ops.TimelineSources{Log: failingLog{}, Trail: ledger.NewMemory(),
			Explain: func(err error) error { return errors.New("cannot reach the stack: " + err.Error()) }},
			[]string{"the error log: cannot reach the stack: dial tcp 127.0.0.1:1: connection refused"}},
		"both": {ops.TimelineSources{Log: log{{ItemID: "a", Stage: work.Fetch, Class: work.NotFound, Attempt: 1, OccurredAt: t0}},
			Trail: ledger.NewMemory()}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl, gaps := ops.Timeline(context.Background(), it, tc.src)
			if strings.Join(gaps, "|") != strings.Join(tc.gaps, "|") {
				t.Errorf("gaps %q, want %q", gaps, tc.gaps)
			}
			if tl == nil || len(tl.Stages) != len(work.Stages()) {
				t.Fatalf("timeline %+v", tl)
			}
		})
	}
}

// TestAttemptsAgreeWithTheTimeline drives an item through the store as the
// stages do — fetch at once, llm after one retried failure, then a dead
// letter at notify, a replay and a success — and holds the view's attempts
// and failure figures to its timeline at every step.
func TestAttemptsAgreeWithTheTimeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := store.NewMemory()
	const id = "it"
	now := t0
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	claim := func(st work.Stage, owner string) {
		t.Helper()
		now = now.Add(time.Second)
		_, err := m.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute})
		must(err)
	}
	fail := func(st work.Stage, owner string, next work.State, class work.Class) {
		t.Helper()
		it, _ := m.Get(ctx, id)
		_, err := m.Fail(ctx, store.FailRequest{ItemID: id, Stage: st, Owner: owner, Now: now, PrevAttempts: it.Attempts[st], Counts: true,
			Next: next, NotBefore: now, LastError: store.LastError{Component: st, ErrorClass: class}})
		must(err)
		must(m.Append(ctx, store.LogEntry{ItemID: id, Stage: st, Class: class, Attempt: it.Attempts[st] + 1, OccurredAt: now,
			Decision: string(class) + " is retryable: retry in 1s"}))
	}
	check := func(step string, wantAttempts map[work.Stage]int) {
		t.Helper()
		it, _ := m.Get(ctx, id)
		v := ops.ViewItem(it)
		tl := ledger.BuildTimeline(it, m.Log(), nil)
		for _, s := range tl.Stages {
			if v.Attempts[s.Stage] != s.Attempts || v.Attempts[s.Stage] != wantAttempts[s.Stage] {
				t.Errorf("%s: %s attempts: view %d, timeline %d, want %d", step, s.Stage, v.Attempts[s.Stage], s.Attempts, wantAttempts[s.Stage])
			}
		}
	}
	_, err := m.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: now})
	must(err)
	claim(work.Fetch, "f")
	must(m.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Fetch, Owner: "f", Now: now}))
	check("fetched", map[work.Stage]int{work.Fetch: 1})
	claim(work.LLM, "l1")
	fail(work.LLM, "l1", work.Retryable, work.RateLimited)
	check("llm retrying", map[work.Stage]int{work.Fetch: 1, work.LLM: 1})
	claim(work.LLM, "l2")
	must(m.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.LLM, Owner: "l2", Now: now}))
	check("enriched", map[work.Stage]int{work.Fetch: 1, work.LLM: 2})
	claim(work.Notify, "n1")
	fail(work.Notify, "n1", work.Failed, work.NotFound)
	must(m.MarkDeadLettered(ctx, id, work.Notify, store.DeadLetterRef{ID: "dl", Stage: work.Notify, Class: work.NotFound,
		At: now, Attempt: 1}, now))
	check("dead-lettered", map[work.Stage]int{work.Fetch: 1, work.LLM: 2, work.Notify: 1})
	now = now.Add(time.Minute)
	_, err = m.Replay(ctx, store.ReplayRequest{ItemID: id, Stage: work.Notify, Note: "channel back", By: "ana", Now: now})
	must(err)
	claim(work.Notify, "n2")
	must(m.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Notify, Owner: "n2", Now: now}))
	check("done after the replay", map[work.Stage]int{work.Fetch: 1, work.LLM: 2, work.Notify: 1})
	it, _ := m.Get(ctx, id)
	if v := ops.ViewItem(it); v.FailureCount != 0 || !v.FirstFailureAt.IsZero() || v.LastFailureAt.IsZero() || v.AttemptsSpent[work.LLM] != 1 {
		t.Fatalf("done: failure_count %d, first %v, last %v, spent %v: want none since the success, the last kept",
			v.FailureCount, v.FirstFailureAt, v.LastFailureAt, v.AttemptsSpent)
	}
}
