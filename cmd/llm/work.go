package main

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// defaultMaxInputBytes is the default enricher.MaxInputBytes: 48 KiB of text
// is about 12k tokens, enough to summarise an article and cheap enough that
// the daily budget is spent on many items rather than a few huge ones.
const defaultMaxInputBytes = 48 << 10

// temperature is the sampling temperature of enrichment requests: low, so
// that a retry of the same item gives a similar answer.
const temperature = 0.2

// completer is the model call the enricher makes; every llm dialect client
// (*llm.Client, *llm.AnthropicClient, *llm.BedrockClient) implements it.
type completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Response, error)
}

// spender is the daily budget the enricher charges; *budget.Daily and
// *budget.Memory implement it.
type spender interface {
	// ChargeCost charges cost before a call; a refusal is BUDGET_EXCEEDED,
	// self-imposed.
	ChargeCost(ctx context.Context, now time.Time, cost budget.Micros) error
	// Settle corrects the charge of the day of charged by delta once the
	// call's cost is known.
	Settle(ctx context.Context, charged time.Time, delta budget.Micros) error
}

// enricher asks a model for an item's enrichment and validates the answer;
// the fallback chain calls Enrich for each entry it tries, and Run asks
// Entry alone. It makes one model call per Enrich and never retries; the
// queue does.
type enricher struct {
	// Clients holds one client per provider of the chain. Required.
	Clients map[failure.Provider]completer
	// Entry is the model Run asks (tests, single-model use).
	Entry fallback.Entry
	// MaxInputBytes bounds the document text sent, cut on a rune boundary;
	// zero or less means defaultMaxInputBytes.
	MaxInputBytes int
	// Clock stamps EnrichedAt and dates budget charges; nil means the wall
	// clock.
	Clock clock.Clock
	// Budget, when set, is charged before every model call (a fallback
	// chain's escalation call included) at the entry's estimate in Prices,
	// and settled after it at the call's real cost; a refused charge is
	// returned as is — BUDGET_EXCEEDED, self-imposed — and the model is not
	// called.
	Budget spender
	// Prices prices each call (see budget.Prices); its zero value charges
	// nothing more than 1 micro-dollar, so set it with Budget.
	Prices budget.Prices
	// Log receives budget settlements that failed; nil discards them.
	Log *slog.Logger
}

// Run enriches item with e.Entry; see Enrich.
func (e *enricher) Run(ctx context.Context, item store.Item, _ gates.Delivery) (work.Output, error) {
	enr, err := e.Enrich(ctx, item, e.Entry)
	if err != nil {
		return work.Output{}, err
	}
	return work.Output{Enrichment: &enr}, nil
}

// Enrich asks entry's model for item's enrichment: one Complete call through
// the entry's provider's client, in JSON-object mode where the dialect has
// one, at temperature, its answer judged by llm.Judge (stop reason, then the
// enrichment JSON and, for an action, its ACTION_OUTCOME). The enrichment's
// Model is the entry ("bedrock:anthropic.claude-…"), and action items get
// ActionOutcome "success".
//
// An item without fetched text is SCHEMA_INVALID "item has no fetched text";
// an unknown kind SCHEMA_INVALID; a missing model or client INTERNAL_BUG.
// The model's failures are returned as the client reported them (see
// llm.Completer) or as the judgement decided, with the "model" detail and,
// when the upstream sent one, "request_id".
func (e *enricher) Enrich(ctx context.Context, item store.Item, entry fallback.Entry) (work.Enrichment, error) {
	if item.Document != nil && item.Document.Body != nil {
		return work.Enrichment{}, failure.New(work.InternalBug, "the item's document was not read back (runner.WithBodies)")
	}
	if item.Document == nil || strings.TrimSpace(item.Document.Text) == "" {
		return work.Enrichment{}, failure.New(work.SchemaInvalid, "item has no fetched text")
	}
	kind, err := store.ParseKind(string(item.Kind))
	if err != nil {
		return work.Enrichment{}, failure.Wrap(work.SchemaInvalid, err, "item kind")
	}
	if strings.TrimSpace(entry.Model) == "" {
		return work.Enrichment{}, failure.New(work.InternalBug, "llm stage has no model configured")
	}
	key := entry.String()
	client := e.Clients[entry.Provider]
	if client == nil {
		return work.Enrichment{}, failure.WithDetail(failure.New(work.InternalBug, "llm stage has no %s client configured",
			entry.Provider), "model", key)
	}
	maxInput := e.MaxInputBytes
	if maxInput <= 0 {
		maxInput = defaultMaxInputBytes
	}
	now := clock.Or(e.Clock).Now
	charged := now()
	estimate := e.Prices.Estimate(key)
	if e.Budget != nil {
		if err := e.Budget.ChargeCost(ctx, charged, estimate); err != nil {
			return work.Enrichment{}, failure.WithDetail(err, "model", key)
		}
	}
	temp := temperature
	resp, err := client.Complete(ctx, llm.Request{
		Model:         entry.Model,
		Messages:      llm.BuildMessages(kind, item.Document.Text, maxInput),
		JSONObject:    true,
		Temperature:   &temp,
		ItemID:        item.ID,
		CorrelationID: item.CorrelationID,
	})
	e.settle(ctx, charged, key, estimate, resp.Usage)
	if err != nil {
		return work.Enrichment{}, failure.WithDetail(err, "model", key)
	}
	enr, err := llm.Judge(kind, resp)
	if err != nil {
		if resp.RequestID != "" {
			err = failure.WithDetail(err, "request_id", resp.RequestID)
		}
		return work.Enrichment{}, failure.WithDetail(err, "model", key)
	}
	enr.Model = key
	enr.EnrichedAt = now().UTC()
	return enr, nil
}

// settle corrects the up-front estimate to the call's cost: tokens at the
// model's price when the answer reported usage, the estimate otherwise (no
// write then). A failed settlement is logged: the call happened either way.
func (e *enricher) settle(ctx context.Context, charged time.Time, key string, estimate budget.Micros, u llm.Usage) {
	if e.Budget == nil {
		return
	}
	delta := e.Prices.Cost(key, u.InputTokens, u.OutputTokens, u.Reported) - estimate
	if delta == 0 {
		return
	}
	if err := e.Budget.Settle(ctx, charged, delta); err != nil && e.Log != nil {
		e.Log.ErrorContext(ctx, "settling a model call's cost failed", "model", key, "delta_micros", int64(delta), "error", err.Error())
	}
}
