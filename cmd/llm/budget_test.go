package main

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
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
	db := store.NewMemory()
	db.Put(store.Item{ID: "b1", Kind: store.KindStory, CorrelationID: "c", Status: work.Fetched, State: work.Queued,
		Stage: work.LLM, Document: &work.Document{Text: "text"}})
	spend := &budget.Memory{Cap: 3_000, Cost: 3_000}
	if err := spend.Charge(context.Background(), morning); err != nil { // the day's only call
		t.Fatal(err)
	}
	clock := clock.NewStub(morning)
	model := &countingLLM{}
	e := &enricher{Clients: map[failure.Provider]completer{failure.OpenAI: model}, Entry: fallback.Entry{Provider: failure.OpenAI, Model: "m"},
		Budget: spend, Prices: budget.Prices{Default: 3_000}, Clock: clock}
	q := runnertest.NewQueues()
	r := runnertest.NewRunner(work.LLM, e, db, q, clock)
	ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", ReceiptHandle: "h1",
		Body:       work.Envelope{ItemID: "b1", Stage: work.LLM, CorrelationID: "c"}.Encode(),
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}}}
	resp, _ := r.Handle(context.Background(), ev)
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("kept %v; a parked wait acknowledges the record", resp.BatchItemFailures)
	}
	it, _ := db.Get(context.Background(), "b1")
	midnight := policy.NextUTCMidnight(morning)
	if model.calls != 0 || it.Attempts[work.LLM] != 0 || it.State != work.Retryable || !it.NotBefore.Equal(midnight) ||
		it.LastError == nil || it.LastError.ErrorClass != work.BudgetExceeded {
		t.Fatalf("model calls %d, item %+v", model.calls, it)
	}
	if p, ok := db.Parked()["b1"]; !ok || !p.DueAt.Equal(midnight) {
		t.Fatalf("parked %+v, want due at %v", db.Parked(), midnight)
	}
	if dl, _ := q.DeadLetters(runnertest.DLQURL); len(dl) != 0 {
		t.Fatalf("dead letters %+v", dl)
	}
	if d, _ := spend.Day(context.Background(), morning); d.Blocked != 1 || d.Calls != 1 {
		t.Fatalf("day %+v", d)
	}
}

// usageLLM answers a valid enrichment reporting usage (or none).
type usageLLM struct {
	usage llm.Usage
	calls int
}

func (u *usageLLM) Complete(context.Context, llm.Request) (llm.Response, error) {
	u.calls++
	return llm.Response{Content: validAnswer, Stop: llm.StopEnd, Usage: u.usage}, nil
}

// TestChargesEachCallAtItsModelsPrice charges calls to models of two
// providers: the entry's up-front estimate before the call, settled to its
// tokens at the model's price when the answer reports usage, the estimate
// when it does not or the table has no token price for the model.
func TestChargesEachCallAtItsModelsPrice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ps, err := budget.ParsePrices("openai:gpt-4o-mini=0.15/0.60, bedrock:anthropic.claude-3-5-haiku-20241022-v1:0=0.80/4.00/0.01, "+
		"anthropic:claude-flat=0/0/0.002", 3_000)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		entry fallback.Entry
		usage llm.Usage
		want  budget.Micros
	}{
		// 1000 × 0.15 + 500 × 0.60 USD per million = 450 micro-dollars.
		{"tokens at openai's price", fallback.Entry{Provider: failure.OpenAI, Model: "gpt-4o-mini"},
			llm.Usage{InputTokens: 1000, OutputTokens: 500, Reported: true}, 450},
		// 2000 × 0.80 + 300 × 4.00 = 2800, rounded up from 2.8 micro-dollars per token pair.
		{"tokens at bedrock's price", fallback.Entry{Provider: failure.Bedrock, Model: "anthropic.claude-3-5-haiku-20241022-v1:0"},
			llm.Usage{InputTokens: 2000, OutputTokens: 300, Reported: true}, 2_800},
		{"one token rounds up", fallback.Entry{Provider: failure.OpenAI, Model: "gpt-4o-mini"},
			llm.Usage{InputTokens: 1, Reported: true}, 1},
		{"no usage: the entry's estimate", fallback.Entry{Provider: failure.Bedrock, Model: "anthropic.claude-3-5-haiku-20241022-v1:0"},
			llm.Usage{}, 10_000},
		{"no token price: the entry's flat price", fallback.Entry{Provider: failure.Anthropic, Model: "claude-flat"},
			llm.Usage{InputTokens: 1000, OutputTokens: 1000, Reported: true}, 2_000},
		{"not in the table: the default estimate", fallback.Entry{Provider: failure.OpenAI, Model: "gpt-4o"},
			llm.Usage{InputTokens: 1000, OutputTokens: 1000, Reported: true}, 3_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spend := &budget.Memory{Cap: 1_000_000, Cost: 3_000}
			model := &usageLLM{usage: tt.usage}
			e := &enricher{Clients: map[failure.Provider]completer{tt.entry.Provider: model}, Budget: spend, Prices: ps,
				Clock: clock.NewStub(fixedNow)}
			enr, err := e.Enrich(ctx, item(store.KindStory, "The SEC fined Acme."), tt.entry)
			if err != nil || enr.Model != tt.entry.String() {
				t.Fatalf("Enrich = %+v, %v", enr, err)
			}
			d, _ := spend.Day(ctx, fixedNow)
			if d.Spend != tt.want || d.Calls != 1 {
				t.Errorf("day = %+v, want spend %s for one call", d, tt.want)
			}
		})
	}
}

// TestEstimateIsTheCapsGate checks that the up-front estimate, not the
// settled cost, decides whether a call may go ahead: an expensive model is
// refused where a cheap one still fits.
func TestEstimateIsTheCapsGate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ps, err := budget.ParsePrices("openai:big=10/30/0.05, openai:small=0.1/0.4/0.001", 3_000)
	if err != nil {
		t.Fatal(err)
	}
	spend := &budget.Memory{Cap: 20_000, Cost: 3_000}
	model := &usageLLM{}
	e := &enricher{Clients: map[failure.Provider]completer{failure.OpenAI: model}, Budget: spend, Prices: ps,
		Clock: clock.NewStub(fixedNow)}
	_, err = e.Enrich(ctx, item(store.KindStory, "text"), fallback.Entry{Provider: failure.OpenAI, Model: "big"})
	if !budget.IsExceeded(err) || model.calls != 0 {
		t.Fatalf("big model: %v after %d calls; want the cap to refuse its 50,000 micro-dollar estimate", err, model.calls)
	}
	if _, err := e.Enrich(ctx, item(store.KindStory, "text"), fallback.Entry{Provider: failure.OpenAI, Model: "small"}); err != nil {
		t.Fatalf("small model: %v", err)
	}
}
