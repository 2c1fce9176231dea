package ops_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestViewItemRedactsTheURLs(t *testing.T) {
	t.Parallel()
	v := ops.ViewItem(state.Item{ID: "a", SourceURL: "https://news.example/a?token=tok_Secr3tToken0987654321",
		WebhookURL: "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx"})
	for _, s := range []string{"tok_Secr3tToken0987654321", "abcdefghijklmnopqrstuvwx"} {
		if strings.Contains(v.SourceURL+v.WebhookURL, s) {
			t.Errorf("the view shows %q: %s %s", s, v.SourceURL, v.WebhookURL)
		}
	}
	if v.Attempts == nil || len(v.Attempts) != len(pipeline.Stages()) || v.Replays == nil || v.Notes == nil {
		t.Errorf("attempts %v, replays %v, notes %v: want every stage and empty lists", v.Attempts, v.Replays, v.Notes)
	}
}

type failingLog struct{}

func (failingLog) ForItem(context.Context, string, int) ([]state.LogEntry, error) {
	return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
}

type log []state.LogEntry

func (l log) ForItem(context.Context, string, int) ([]state.LogEntry, error) { return l, nil }

func TestTimelineNamesItsGaps(t *testing.T) {
	t.Parallel()
	it := state.Item{ID: "a", State: state.Deadletter, Stage: pipeline.Fetch, CreatedAt: t0, UpdatedAt: t0,
		DeadLetter: &state.DeadLetterRef{ID: "dl", Stage: pipeline.Fetch, Class: failure.NotFound, At: t0}}
	tests := map[string]struct {
		src  ops.TimelineSources
		gaps []string
	}{
		"no tables": {ops.TimelineSources{LogMissing: "pass --errorlog-table", TrailMissing: "pass --audit-table"},
			[]string{"the error log: pass --errorlog-table", "the audit trail: pass --audit-table"}},
		"unreadable log": {ops.TimelineSources{Log: failingLog{}, Trail: audit.NewMemory(),
			Explain: func(err error) error { return errors.New("cannot reach the stack: " + err.Error()) }},
			[]string{"the error log: cannot reach the stack: dial tcp 127.0.0.1:1: connection refused"}},
		"both": {ops.TimelineSources{Log: log{{ItemID: "a", Stage: pipeline.Fetch, Class: failure.NotFound, Attempt: 1, OccurredAt: t0}},
			Trail: audit.NewMemory()}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl, gaps := ops.Timeline(context.Background(), it, tc.src)
			if strings.Join(gaps, "|") != strings.Join(tc.gaps, "|") {
				t.Errorf("gaps %q, want %q", gaps, tc.gaps)
			}
			if tl == nil || len(tl.Stages) != len(pipeline.Stages()) {
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
	m := state.NewMemory()
	const id = "it"
	now := t0
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	claim := func(st pipeline.Stage, owner string) {
		t.Helper()
		now = now.Add(time.Second)
		_, err := m.Claim(ctx, state.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute})
		must(err)
	}
	fail := func(st pipeline.Stage, owner string, next state.State, class failure.Class) {
		t.Helper()
		it, _ := m.Get(ctx, id)
		_, err := m.Fail(ctx, state.FailRequest{ItemID: id, Stage: st, Owner: owner, Now: now, PrevAttempts: it.Attempts[st], Counts: true,
			Next: next, NotBefore: now, LastError: state.LastError{Component: st, ErrorClass: class}})
		must(err)
		must(m.Append(ctx, state.LogEntry{ItemID: id, Stage: st, Class: class, Attempt: it.Attempts[st] + 1, OccurredAt: now,
			Decision: string(class) + " is retryable: retry in 1s"}))
	}
	check := func(step string, wantAttempts map[pipeline.Stage]int) {
		t.Helper()
		it, _ := m.Get(ctx, id)
		v := ops.ViewItem(it)
		tl := audit.BuildTimeline(it, m.Log(), nil)
		for _, s := range tl.Stages {
			if v.Attempts[s.Stage] != s.Attempts || v.Attempts[s.Stage] != wantAttempts[s.Stage] {
				t.Errorf("%s: %s attempts: view %d, timeline %d, want %d", step, s.Stage, v.Attempts[s.Stage], s.Attempts, wantAttempts[s.Stage])
			}
		}
	}
	_, err := m.Create(ctx, state.NewItem{ID: id, Kind: state.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: now})
	must(err)
	claim(pipeline.Fetch, "f")
	must(m.Complete(ctx, state.CompleteRequest{ItemID: id, Stage: pipeline.Fetch, Owner: "f", Now: now}))
	check("fetched", map[pipeline.Stage]int{pipeline.Fetch: 1})
	claim(pipeline.LLM, "l1")
	fail(pipeline.LLM, "l1", state.Retryable, failure.RateLimited)
	check("llm retrying", map[pipeline.Stage]int{pipeline.Fetch: 1, pipeline.LLM: 1})
	claim(pipeline.LLM, "l2")
	must(m.Complete(ctx, state.CompleteRequest{ItemID: id, Stage: pipeline.LLM, Owner: "l2", Now: now}))
	check("enriched", map[pipeline.Stage]int{pipeline.Fetch: 1, pipeline.LLM: 2})
	claim(pipeline.Notify, "n1")
	fail(pipeline.Notify, "n1", state.Failed, failure.NotFound)
	must(m.MarkDeadLettered(ctx, id, pipeline.Notify, state.DeadLetterRef{ID: "dl", Stage: pipeline.Notify, Class: failure.NotFound,
		At: now, Attempt: 1}, now))
	check("dead-lettered", map[pipeline.Stage]int{pipeline.Fetch: 1, pipeline.LLM: 2, pipeline.Notify: 1})
	now = now.Add(time.Minute)
	_, err = m.Replay(ctx, state.ReplayRequest{ItemID: id, Stage: pipeline.Notify, Note: "channel back", By: "ana", Now: now})
	must(err)
	claim(pipeline.Notify, "n2")
	must(m.Complete(ctx, state.CompleteRequest{ItemID: id, Stage: pipeline.Notify, Owner: "n2", Now: now}))
	check("done after the replay", map[pipeline.Stage]int{pipeline.Fetch: 1, pipeline.LLM: 2, pipeline.Notify: 1})
	it, _ := m.Get(ctx, id)
	if v := ops.ViewItem(it); v.FailureCount != 0 || !v.FirstFailureAt.IsZero() || v.LastFailureAt.IsZero() || v.AttemptsSpent[pipeline.LLM] != 1 {
		t.Fatalf("done: failure_count %d, first %v, last %v, spent %v: want none since the success, the last kept",
			v.FailureCount, v.FirstFailureAt, v.LastFailureAt, v.AttemptsSpent)
	}
}
