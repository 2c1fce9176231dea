package main

import (
	"context"
	"strings"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/llm"
	"github.com/triagehq/triage/shared/state"
)

// DefaultMaxInputBytes is the default Enricher.MaxInputBytes: 48 KiB of text
// is about 12k tokens, enough to summarise an article and cheap enough that
// the daily budget is spent on many items rather than a few huge ones.
const DefaultMaxInputBytes = 48 << 10

// Temperature is the sampling temperature of enrichment requests: low, so
// that a retry of the same item gives a similar answer.
const Temperature = 0.2

// Completer is the chat-completions call the Enricher makes; *llm.Client
// implements it, and so will the fallback chain that wraps several clients.
type Completer interface {
	Complete(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Enricher is the llm stage's Work: it asks a model for the item's
// enrichment and validates the answer. It makes one model call per Run and
// never retries; the queue does.
type Enricher struct {
	// LLM makes the call. Required.
	LLM Completer
	// Model is the model (or Azure deployment) to ask. Required.
	Model string
	// MaxInputBytes bounds the document text sent, cut on a rune boundary;
	// zero or less means DefaultMaxInputBytes.
	MaxInputBytes int
	// Now stamps EnrichedAt and dates budget charges; nil means time.Now.
	Now func() time.Time
	// Budget, when set, is charged before every model call (a fallback
	// chain's escalation call included); a refused charge is returned as is
	// — BUDGET_EXCEEDED, self-imposed — and the model is not called.
	Budget interface {
		Charge(ctx context.Context, now time.Time) error
	}
}

// Run enriches item with e.Model; see Enrich.
func (e *Enricher) Run(ctx context.Context, item state.Item) (state.Output, error) {
	enr, err := e.Enrich(ctx, item, e.Model)
	if err != nil {
		return state.Output{}, err
	}
	return state.Output{Enrichment: &enr}, nil
}

// Enrich asks model for item's enrichment: one Complete call in JSON-object
// mode at Temperature, its answer validated by llm.ParseEnrichment. Model is
// the name asked for (the key of the model's health), and action items get
// ActionOutcome "success". It is Run with the model as a parameter, so that a
// fallback chain can walk several models.
//
// An item without fetched text is SCHEMA_INVALID "item has no fetched text";
// an unknown kind SCHEMA_INVALID; a missing model or client INTERNAL_BUG.
// The model's failures are returned as the client reported them (see
// llm.Client.Complete) or as ParseEnrichment judged the answer, with the
// "model" detail and, when the upstream sent one, "request_id".
func (e *Enricher) Enrich(ctx context.Context, item state.Item, model string) (state.Enrichment, error) {
	if item.Document != nil && item.Document.Body != nil {
		return state.Enrichment{}, failure.New(failure.InternalBug, "the item's document was not read back (stage.WithBodies)")
	}
	if item.Document == nil || strings.TrimSpace(item.Document.Text) == "" {
		return state.Enrichment{}, failure.New(failure.SchemaInvalid, "item has no fetched text")
	}
	kind, err := state.ParseKind(string(item.Kind))
	if err != nil {
		return state.Enrichment{}, failure.Wrap(failure.SchemaInvalid, err, "item kind")
	}
	if strings.TrimSpace(model) == "" {
		return state.Enrichment{}, failure.New(failure.InternalBug, "llm stage has no model configured")
	}
	if e.LLM == nil {
		return state.Enrichment{}, failure.New(failure.InternalBug, "llm stage has no client configured")
	}
	maxInput := e.MaxInputBytes
	if maxInput <= 0 {
		maxInput = DefaultMaxInputBytes
	}

	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	if e.Budget != nil {
		if err := e.Budget.Charge(ctx, now()); err != nil {
			return state.Enrichment{}, failure.WithDetail(err, "model", model)
		}
	}
	temp := Temperature
	resp, err := e.LLM.Complete(ctx, llm.Request{
		Model:         model,
		Messages:      llm.BuildMessages(kind, item.Document.Text, maxInput),
		JSONObject:    true,
		Temperature:   &temp,
		ItemID:        item.ID,
		CorrelationID: item.CorrelationID,
	})
	if err != nil {
		return state.Enrichment{}, failure.WithDetail(err, "model", model)
	}
	enr, err := llm.ParseEnrichment(kind, resp.Content)
	if err != nil {
		if resp.RequestID != "" {
			err = failure.WithDetail(err, "request_id", resp.RequestID)
		}
		return state.Enrichment{}, failure.WithDetail(err, "model", model)
	}
	enr.Model = model
	enr.EnrichedAt = now().UTC()
	return enr, nil
}
