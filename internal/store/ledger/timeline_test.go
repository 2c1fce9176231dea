package ledger_test

import (
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// The timeline's park threshold is the runner's.
func TestParkBeyondIsTheRunnersMaxVisibility(t *testing.T) {
	t.Parallel()
	if ledger.ParkBeyond != runner.MaxVisibility {
		t.Fatalf("ParkBeyond %v, runner.MaxVisibility %v", ledger.ParkBeyond, runner.MaxVisibility)
	}
}

// Decisions are read from the error log as the retry package writes them;
// this pins the two together.
func TestTimelineReadsTheRunnersDecisions(t *testing.T) {
	t.Parallel()
	at := t0
	for name, tc := range map[string]struct {
		decision policy.Decision
		kind     ledger.EventKind
		until    time.Time
	}{
		"retry": {policy.Retry{Delay: 2 * time.Minute, Attempt: 1, MaxAttempts: 3, Class: work.ActionFailed, Backoff: "fixed 2m"},
			ledger.KindRetry, at.Add(2 * time.Minute)},
		"retry asked for by the upstream": {policy.Retry{Delay: 1500 * time.Millisecond, Requested: time.Second, Attempt: 2, MaxAttempts: 5,
			Class: work.RateLimited, Backoff: "exponential"}, ledger.KindRetry, at.Add(1500 * time.Millisecond)},
		"wait":             {policy.Wait{Until: at.Add(time.Hour), Class: work.BudgetExceeded, Why: "quota"}, ledger.KindWait, at.Add(time.Hour)},
		"wait, parked":     {policy.Wait{Until: at.Add(18 * time.Hour), Class: work.BudgetExceeded, Why: "daily budget"}, ledger.KindPark, at.Add(18 * time.Hour)},
		"permanent":        {policy.DeadLetter{Attempt: 1, MaxAttempts: 1, Class: work.NotFound}, ledger.KindFailed, time.Time{}},
		"attempts run out": {policy.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: work.ActionFailed}, ledger.KindFailed, time.Time{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl := ledger.BuildTimeline(store.Item{ID: "i"}, []store.LogEntry{{ItemID: "i", Stage: work.LLM, Class: work.ActionFailed,
				Attempt: 1, Decision: tc.decision.Reason(), OccurredAt: at}}, nil)
			if len(tl.Events) != 1 {
				t.Fatalf("events %+v", tl.Events)
			}
			e := tl.Events[0]
			if e.Kind != tc.kind {
				t.Fatalf("%q read as %s, want %s", tc.decision.Reason(), e.Kind, tc.kind)
			}
			if got := e.Until; (got == nil) != tc.until.IsZero() || (got != nil && !got.Equal(tc.until)) {
				t.Fatalf("until %v, want %v", got, tc.until)
			}
		})
	}
}

// A failed action that was retried, failed again for good and was replayed:
// every source lands on one timeline, in time order, with per-stage counts.
func TestTimelineOfAFailedAction(t *testing.T) {
	t.Parallel()
	retryAt := t0.Add(2 * time.Minute)
	it := store.Item{ID: "task", Kind: store.KindAction, State: work.Deadletter, Stage: work.LLM,
		Attempts:   map[work.Stage]int{work.LLM: 2},
		CreatedAt:  t0.Add(-time.Minute),
		DeadLetter: &store.DeadLetterRef{ID: "dl-1", Stage: work.LLM, Class: work.ActionFailed, At: retryAt.Add(2 * time.Second)},
		Notes:      []store.Note{{At: retryAt.Add(time.Hour), By: "oncall", Text: "owner told"}},
	}
	log := []store.LogEntry{
		{ItemID: "task", Stage: work.LLM, Class: work.ActionFailed, Attempt: 1, OccurredAt: t0,
			Decision: policy.Retry{Delay: 2 * time.Minute, Attempt: 1, MaxAttempts: 2, Class: work.ActionFailed, Backoff: "fixed 2m"}.Reason()},
		{ItemID: "task", Stage: work.LLM, Class: work.ActionFailed, Attempt: 2, OccurredAt: retryAt.Add(time.Second),
			Decision: policy.DeadLetter{Exhausted: true, Attempt: 2, MaxAttempts: 2, Class: work.ActionFailed}.Reason()},
		{ItemID: "task", Stage: work.LLM, Class: store.ResolvedClass, OccurredAt: retryAt.Add(2 * time.Hour)},
		// The log's copy of a note: the item's note is the timeline's.
		{Kind: store.LogNote, By: "oncall", ItemID: "task", Stage: work.LLM, Message: "owner told", OccurredAt: retryAt.Add(time.Hour)},
	}
	trail := []ledger.Entry{
		{Execution: &ledger.Execution{ItemID: "task", Stage: work.LLM, Attempt: 1, StartedAt: t0.Add(-time.Second), Duration: time.Second,
			Outcome: ledger.OutcomeFailed, Class: work.ActionFailed, Reason: "locked", Model: "openai:gpt-4o-mini"}},
		{Execution: &ledger.Execution{ItemID: "task", Stage: work.LLM, Attempt: 2, StartedAt: retryAt, Duration: time.Second,
			Outcome: ledger.OutcomeFailed, Class: work.ActionFailed, Reason: "locked", Model: "openai:gpt-4o-mini"}},
		{Notice: &ledger.Notice{ItemID: "task", Key: "task:item.retry_scheduled:0:llm:1", Event: "item.retry_scheduled", Stage: work.LLM,
			Attempt: 1, State: ledger.NoticeDelivered, Attempts: 1, Status: 200, FirstAt: t0.Add(time.Second)}},
		{Notice: &ledger.Notice{ItemID: "task", Key: "task:item.failed:0", Event: "item.failed", Stage: work.LLM,
			Attempt: 2, State: ledger.NoticeDelivered, Attempts: 2, Status: 200, FirstAt: retryAt.Add(3 * time.Second)}},
	}
	tl := ledger.BuildTimeline(it, log, trail)
	var kinds []ledger.EventKind
	for i, e := range tl.Events {
		kinds = append(kinds, e.Kind)
		if i > 0 && e.At.Before(tl.Events[i-1].At) {
			t.Fatalf("events out of order at %d: %+v", i, tl.Events)
		}
	}
	want := []ledger.EventKind{ledger.KindCreated, ledger.KindExecution, ledger.KindRetry, ledger.KindNotice, ledger.KindExecution,
		ledger.KindFailed, ledger.KindDeadLetter, ledger.KindNotice, ledger.KindNote}
	if len(kinds) != len(want) {
		t.Fatalf("kinds %v\nwant  %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("kinds %v\nwant  %v", kinds, want)
		}
	}
	if got := tl.Events[7].Text; got != "item.failed delivered after 2 attempts (HTTP 200)" {
		t.Errorf("notice text %q", got)
	}
	if got := tl.Events[1].Text; got != "action failed: locked (openai:gpt-4o-mini, 1s)" {
		t.Errorf("execution text %q", got)
	}
	stages := map[work.Stage]ledger.StageSummary{}
	for _, s := range tl.Stages {
		stages[s.Stage] = s
	}
	if s := stages[work.Fetch]; s.Status != "succeeded" || s.Attempts != 1 {
		t.Errorf("fetch %+v", s)
	}
	if s := stages[work.LLM]; s.Status != "dead-lettered" || s.Attempts != 2 || s.Failures != 2 || s.Executions != 2 {
		t.Errorf("llm %+v", s)
	}
	if s := stages[work.Notify]; s.Status != "not reached" {
		t.Errorf("notify %+v", s)
	}
}

// An operator's note or a model's reason cannot rewrite the terminal that
// prints the timeline.
func TestTimelineWriteIsTerminalSafe(t *testing.T) {
	t.Parallel()
	it := store.Item{ID: "i", Notes: []store.Note{{At: t0, By: "x\x1b[2J", Text: "line\ttab\nnew \u202eevil"}}}
	var b strings.Builder
	if err := ledger.BuildTimeline(it, nil, nil).Write(&b, []string{"the audit trail: \x1b[31mred"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\u202e") || !strings.Contains(out, `x\x1b[2J`) || !strings.Contains(out, `line\ttab\nnew \u202eevil`) {
		t.Fatalf("unsafe output:\n%q", out)
	}
}
