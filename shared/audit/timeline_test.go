package audit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
)

// The timeline's park threshold is the runner's.
func TestParkBeyondIsTheRunnersMaxVisibility(t *testing.T) {
	t.Parallel()
	if audit.ParkBeyond != stage.MaxVisibility {
		t.Fatalf("ParkBeyond %v, stage.MaxVisibility %v", audit.ParkBeyond, stage.MaxVisibility)
	}
}

// Decisions are read from the error log as the retry package writes them;
// this pins the two together.
func TestTimelineReadsTheRunnersDecisions(t *testing.T) {
	t.Parallel()
	at := t0
	for name, tc := range map[string]struct {
		decision retry.Decision
		kind     audit.EventKind
		until    time.Time
	}{
		"retry": {retry.Retry{Delay: 2 * time.Minute, Attempt: 1, MaxAttempts: 3, Class: failure.ActionFailed, Backoff: "fixed 2m"},
			audit.KindRetry, at.Add(2 * time.Minute)},
		"retry asked for by the upstream": {retry.Retry{Delay: 1500 * time.Millisecond, Requested: time.Second, Attempt: 2, MaxAttempts: 5,
			Class: failure.RateLimited, Backoff: "exponential"}, audit.KindRetry, at.Add(1500 * time.Millisecond)},
		"wait":             {retry.Wait{Until: at.Add(time.Hour), Class: failure.BudgetExceeded, Why: "quota"}, audit.KindWait, at.Add(time.Hour)},
		"wait, parked":     {retry.Wait{Until: at.Add(18 * time.Hour), Class: failure.BudgetExceeded, Why: "daily budget"}, audit.KindPark, at.Add(18 * time.Hour)},
		"permanent":        {retry.DeadLetter{Attempt: 1, MaxAttempts: 1, Class: failure.NotFound}, audit.KindFailed, time.Time{}},
		"attempts run out": {retry.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: failure.ActionFailed}, audit.KindFailed, time.Time{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl := audit.BuildTimeline(state.Item{ID: "i"}, []state.LogEntry{{ItemID: "i", Stage: pipeline.LLM, Class: failure.ActionFailed,
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
	it := state.Item{ID: "task", Kind: state.KindAction, State: state.Deadletter, Stage: pipeline.LLM,
		Attempts:   map[pipeline.Stage]int{pipeline.LLM: 2},
		CreatedAt:  t0.Add(-time.Minute),
		DeadLetter: &state.DeadLetterRef{ID: "dl-1", Stage: pipeline.LLM, Class: failure.ActionFailed, At: retryAt.Add(2 * time.Second)},
		Notes:      []state.Note{{At: retryAt.Add(time.Hour), By: "oncall", Text: "owner told"}},
	}
	log := []state.LogEntry{
		{ItemID: "task", Stage: pipeline.LLM, Class: failure.ActionFailed, Attempt: 1, OccurredAt: t0,
			Decision: retry.Retry{Delay: 2 * time.Minute, Attempt: 1, MaxAttempts: 2, Class: failure.ActionFailed, Backoff: "fixed 2m"}.Reason()},
		{ItemID: "task", Stage: pipeline.LLM, Class: failure.ActionFailed, Attempt: 2, OccurredAt: retryAt.Add(time.Second),
			Decision: retry.DeadLetter{Exhausted: true, Attempt: 2, MaxAttempts: 2, Class: failure.ActionFailed}.Reason()},
		{ItemID: "task", Stage: pipeline.LLM, Class: state.ResolvedClass, OccurredAt: retryAt.Add(2 * time.Hour)},
		// The log's copy of a note: the item's note is the timeline's.
		{Kind: state.LogNote, By: "oncall", ItemID: "task", Stage: pipeline.LLM, Message: "owner told", OccurredAt: retryAt.Add(time.Hour)},
	}
	trail := []audit.Entry{
		{Execution: &audit.Execution{ItemID: "task", Stage: pipeline.LLM, Attempt: 1, StartedAt: t0.Add(-time.Second), Duration: time.Second,
			Outcome: audit.OutcomeFailed, Class: failure.ActionFailed, Reason: "locked", Model: "openai:gpt-4o-mini"}},
		{Execution: &audit.Execution{ItemID: "task", Stage: pipeline.LLM, Attempt: 2, StartedAt: retryAt, Duration: time.Second,
			Outcome: audit.OutcomeFailed, Class: failure.ActionFailed, Reason: "locked", Model: "openai:gpt-4o-mini"}},
		{Notice: &audit.Notice{ItemID: "task", Key: "task:item.retry_scheduled:0:llm:1", Event: "item.retry_scheduled", Stage: pipeline.LLM,
			Attempt: 1, State: audit.NoticeDelivered, Attempts: 1, Status: 200, FirstAt: t0.Add(time.Second)}},
		{Notice: &audit.Notice{ItemID: "task", Key: "task:item.failed:0", Event: "item.failed", Stage: pipeline.LLM,
			Attempt: 2, State: audit.NoticeDelivered, Attempts: 2, Status: 200, FirstAt: retryAt.Add(3 * time.Second)}},
	}
	tl := audit.BuildTimeline(it, log, trail)
	var kinds []audit.EventKind
	for i, e := range tl.Events {
		kinds = append(kinds, e.Kind)
		if i > 0 && e.At.Before(tl.Events[i-1].At) {
			t.Fatalf("events out of order at %d: %+v", i, tl.Events)
		}
	}
	want := []audit.EventKind{audit.KindCreated, audit.KindExecution, audit.KindRetry, audit.KindNotice, audit.KindExecution,
		audit.KindFailed, audit.KindDeadLetter, audit.KindNotice, audit.KindNote}
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
	stages := map[pipeline.Stage]audit.StageSummary{}
	for _, s := range tl.Stages {
		stages[s.Stage] = s
	}
	if s := stages[pipeline.Fetch]; s.Status != "succeeded" || s.Attempts != 1 {
		t.Errorf("fetch %+v", s)
	}
	if s := stages[pipeline.LLM]; s.Status != "dead-lettered" || s.Attempts != 2 || s.Failures != 2 || s.Executions != 2 {
		t.Errorf("llm %+v", s)
	}
	if s := stages[pipeline.Notify]; s.Status != "not reached" {
		t.Errorf("notify %+v", s)
	}
}

// An operator's note or a model's reason cannot rewrite the terminal that
// prints the timeline.
func TestTimelineWriteIsTerminalSafe(t *testing.T) {
	t.Parallel()
	it := state.Item{ID: "i", Notes: []state.Note{{At: t0, By: "x\x1b[2J", Text: "line\ttab\nnew \u202eevil"}}}
	var b strings.Builder
	if err := audit.BuildTimeline(it, nil, nil).Write(&b, []string{"the audit trail: \x1b[31mred"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\u202e") || !strings.Contains(out, `x\x1b[2J`) || !strings.Contains(out, `line\ttab\nnew \u202eevil`) {
		t.Fatalf("unsafe output:\n%q", out)
	}
}
