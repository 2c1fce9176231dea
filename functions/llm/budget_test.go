package main

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/shared/budget"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/llm"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
	"github.com/triagehq/triage/shared/stage/stagetest"
	"github.com/triagehq/triage/shared/state"
)

// countingLLM counts calls; the budget test must see none.
type countingLLM struct{ calls int }

func (c *countingLLM) Complete(context.Context, llm.Request) (llm.Response, error) {
	c.calls++
	return llm.Response{}, nil
}

// TestSpentBudgetParksUntilMidnight runs the llm stage with the day's budget
// spent: the model is never called, the item waits parked until the next
// 00:00 UTC, no attempt is counted and nothing is dead-lettered.
func TestSpentBudgetParksUntilMidnight(t *testing.T) {
	t.Parallel()
	morning := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC) // 15 h to midnight: beyond SQS visibility
	store := state.NewMemory()
	store.Put(state.Item{ID: "b1", Kind: state.KindStory, CorrelationID: "c", Status: state.Fetched, State: state.Queued,
		Stage: pipeline.LLM, Document: &state.Document{Text: "text"}})
	spend := &budget.Memory{Cap: 3_000, Cost: 3_000}
	if err := spend.Charge(context.Background(), morning); err != nil { // the day's only call
		t.Fatal(err)
	}
	clock := stagetest.NewClock(morning)
	model := &countingLLM{}
	e := &Enricher{LLM: model, Model: "m", Budget: spend, Now: clock.Now}
	q := stagetest.NewQueues()
	r := stagetest.NewRunner(pipeline.LLM, e, store, q, clock)
	ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", ReceiptHandle: "h1",
		Body:       pipeline.Envelope{ItemID: "b1", Stage: pipeline.LLM, CorrelationID: "c"}.Encode(),
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}}}
	resp, _ := r.Handle(context.Background(), ev)
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("kept %v; a parked wait acknowledges the record", resp.BatchItemFailures)
	}
	it, _ := store.Get(context.Background(), "b1")
	midnight := retry.NextUTCMidnight(morning)
	if model.calls != 0 || it.Attempts[pipeline.LLM] != 0 || it.State != state.Retryable || !it.NotBefore.Equal(midnight) ||
		it.LastError == nil || it.LastError.ErrorClass != failure.BudgetExceeded {
		t.Fatalf("model calls %d, item %+v", model.calls, it)
	}
	if p, ok := store.Parked()["b1"]; !ok || !p.DueAt.Equal(midnight) {
		t.Fatalf("parked %+v, want due at %v", store.Parked(), midnight)
	}
	if dl, _ := q.DeadLetters(stagetest.DLQURL); len(dl) != 0 {
		t.Fatalf("dead letters %+v", dl)
	}
	if d, _ := spend.Day(context.Background(), morning); d.Blocked != 1 || d.Calls != 1 {
		t.Fatalf("day %+v", d)
	}
}
