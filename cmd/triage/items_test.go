package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
	"github.com/triagehq/triage/shared/state"
)

// TestItemsGetTimelineMoto writes an action task's history the way the
// functions do — the item, its error log, its executions and its notice's
// ledger — and reads it back with `triage items get`.
func TestItemsGetTimelineMoto(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	env := localtest.Stack(t, nil)
	st := env.Stack
	db := dynamodb.NewFromConfig(env.AWS)
	e := &opsEnv{url: env.Endpoint, stack: st.Name, st: st}
	t0 := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Millisecond)
	retryAt := t0.Add(2 * time.Minute)
	items := &state.Items{DB: db, Table: st.ItemsTable()}
	if err := items.Put(ctx, state.Item{ID: "task", Kind: state.KindAction, CorrelationID: "c", Status: state.Fetched,
		State: state.Deadletter, Stage: pipeline.LLM, Attempts: map[pipeline.Stage]int{pipeline.LLM: 2},
		Notices:   &state.Notices{Failed: true, RetryScheduled: true},
		CreatedAt: t0.Add(-time.Minute), UpdatedAt: retryAt,
		DeadLetter: &state.DeadLetterRef{ID: "dl-1", Stage: pipeline.LLM, Class: failure.ActionFailed, At: retryAt.Add(2 * time.Second)}}); err != nil {
		t.Fatal(err)
	}
	log := &state.ErrorLog{DB: db, Table: st.ErrorLogTable()}
	for _, le := range []state.LogEntry{
		{ItemID: "task", Stage: pipeline.LLM, Class: failure.ActionFailed, Attempt: 1, MessageID: "m1", OccurredAt: t0,
			Decision: retry.Retry{Delay: 2 * time.Minute, Attempt: 1, MaxAttempts: 2, Class: failure.ActionFailed, Backoff: "fixed"}.Reason()},
		{ItemID: "task", Stage: pipeline.LLM, Class: failure.ActionFailed, Attempt: 2, MessageID: "m1", OccurredAt: retryAt.Add(time.Second),
			Decision: retry.DeadLetter{Exhausted: true, Attempt: 2, MaxAttempts: 2, Class: failure.ActionFailed}.Reason()},
	} {
		if err := log.Append(ctx, le); err != nil {
			t.Fatal(err)
		}
	}
	trail := &audit.Trail{DB: db, Table: st.AuditTable()}
	for i, at := range []time.Time{t0.Add(-time.Second), retryAt} {
		if err := trail.Record(ctx, audit.Execution{ItemID: "task", Stage: pipeline.LLM, Attempt: i + 1, Delivery: "m1#" + string(rune('1'+i)),
			StartedAt: at, Duration: 800 * time.Millisecond, Outcome: audit.OutcomeFailed, Class: failure.ActionFailed,
			Reason: "the ticket is locked", Model: "openai:gpt-4o-mini"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := trail.ClaimNotice(ctx, audit.NoticeClaim{ItemID: "task", Key: "task:item.failed:0", Event: "item.failed", Stage: pipeline.LLM,
		Class: failure.ActionFailed, Attempt: 2, Owner: "n1#1", Carrier: "n1", Now: retryAt.Add(3 * time.Second), LeaseFor: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := trail.SettleNotice(ctx, audit.NoticeSettle{ItemID: "task", Key: "task:item.failed:0", Owner: "n1#1",
		Now: retryAt.Add(4 * time.Second), State: audit.NoticeDelivered, Status: 200}); err != nil {
		t.Fatal(err)
	}

	v := decode[itemView](t, e.cli(t, "items", "get", "task", "--json"))
	if v.Timeline == nil || len(v.TimelineGaps) != 0 || !v.Notices.Failed || !v.Notices.RetryScheduled {
		t.Fatalf("items get --json: %+v", v)
	}
	var kinds []audit.EventKind
	for _, ev := range v.Timeline.Events {
		kinds = append(kinds, ev.Kind)
	}
	want := []audit.EventKind{audit.KindCreated, audit.KindExecution, audit.KindRetry, audit.KindExecution, audit.KindFailed,
		audit.KindDeadLetter, audit.KindNotice}
	if len(kinds) != len(want) {
		t.Fatalf("timeline %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("timeline %v, want %v", kinds, want)
		}
	}
	out := e.cli(t, "items", "get", "task")
	for _, w := range []string{"notices", "item.failed, item.retry_scheduled", "timeline", "dead-lettered", "action failed: the ticket is locked",
		"item.failed delivered after 1 attempt (HTTP 200)", "ACTION_FAILED is retryable"} {
		if !strings.Contains(out, w) {
			t.Errorf("items get lacks %q:\n%s", w, out)
		}
	}
	// Without the stack, the item alone, and the timeline says what it lacks.
	code, out, errOut := runCLI("items", "get", "task", "--endpoint", e.url, "--region", "us-east-1", "--items-table", st.ItemsTable())
	if code != 0 || !strings.Contains(out, "(timeline without the error log") || !strings.Contains(out, "(timeline without the audit trail") {
		t.Fatalf("items get without the stack: %d\n%s\n%s", code, out, errOut)
	}
}
