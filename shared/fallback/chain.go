// Package fallback is the llm stage's model fallback chain: a stage.Work that
// asks the first enabled model of an ordered list, records each model-specific
// failure against the model (shared/health), and makes the item wait —
// without spending an attempt — when every model is disabled.
//
// One invocation asks one model, with one exception: a CONTENT_POLICY or
// TOKEN_LIMIT failure is retried once, at once, on the configured escalation
// model (a larger-context or differently-moderated model) before the item is
// dead-lettered. Any other failure fails the item with that failure; the queue
// retries it later, by when a bad model may have been disabled and the chain
// moves on to the next.
package fallback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
	"github.com/triagehq/triage/shared/telemetry"
)

// Enricher asks one named model for an item's enrichment; the llm stage's
// *Enricher (functions/llm) implements it.
type Enricher interface {
	Enrich(ctx context.Context, item state.Item, model string) (state.Enrichment, error)
}

// Health is the model-health view the chain reads and feeds;
// *health.Tracker implements it.
type Health interface {
	Status(ctx context.Context, model string) (health.Model, error)
	RecordFailure(ctx context.Context, model string, cl failure.Classification) (health.FailureResult, error)
	RecordSuccess(ctx context.Context, model string) error
}

// Clock tells the time; decision code never calls time.Now itself.
type Clock interface {
	Now() time.Time
}

// Metrics receives counters; stage.Metrics and *telemetry.EMF satisfy it.
type Metrics interface {
	Count(name string, stage pipeline.Stage, class failure.Class, n int)
}

// Metric names the chain counts (stage "llm").
const (
	// MetricModelFallbacks counts items served by a model other than the
	// first of the chain because earlier ones were disabled.
	MetricModelFallbacks = "ModelFallbacks"
	// MetricModelEscalations counts retries on the escalation model (class:
	// the failure that escalated).
	MetricModelEscalations = "ModelEscalations"
	// MetricNoModel counts items made to wait because no model was enabled.
	MetricNoModel = "NoModelWaits"
)

// Defaults of the chain's waits.
const (
	// DefaultNoModelWait is how long an item waits when no model is enabled
	// and no recovery is expected sooner (an overdue recovery run, models an
	// operator disabled).
	DefaultNoModelWait = 5 * time.Minute
)

// Chain is the llm stage's Work: it walks Models in order, skipping disabled
// ones, and asks the first enabled model. Build it once in main; it is safe
// for concurrent use.
type Chain struct {
	// Enricher asks a model. Required.
	Enricher Enricher
	// Models is the ordered chain (the LLMModels parameter). Required.
	Models []string
	// Health reads and records model health; nil treats every model as
	// enabled and records nothing.
	Health Health
	// EscalationModel, when set, retries a CONTENT_POLICY or TOKEN_LIMIT
	// failure once, in the same invocation, before the item is
	// dead-lettered; it is skipped when it is the model that failed or is
	// disabled.
	EscalationModel string
	// Cooldown is health's recovery cooldown, for the expected end of a
	// disable: zero means health.DefaultCooldown.
	Cooldown time.Duration
	// NoModelWait: see DefaultNoModelWait; zero means the default.
	NoModelWait time.Duration
	// Clock tells the time; nil means the wall clock.
	Clock Clock
	// Log receives skips and escalations; nil discards them.
	Log *slog.Logger
	// Metrics receives the Metric counters; nil discards them.
	Metrics Metrics
}

var _ stage.Work = (*Chain)(nil)

// ParseModels splits a comma-separated model list (LLM_MODELS), trimming
// spaces and dropping empty and repeated entries; an empty result is an
// error.
func ParseModels(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, m := range strings.Split(s, ",") {
		m = strings.TrimSpace(m)
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, errors.New("the model list is empty")
	}
	return out, nil
}

// Run enriches item with the first enabled model (see the package
// documentation). With no enabled model it returns a *failure.WaitError,
// behind the chain's Gate, until the earliest expected recovery (a disabled model's last failure +
// Cooldown), or NoModelWait from now when that is past or unknown. A health
// store that cannot be read fails open: the model is asked.
func (c *Chain) Run(ctx context.Context, item state.Item) (state.Output, error) {
	if c.Enricher == nil || len(c.Models) == 0 {
		return state.Output{}, failure.New(failure.InternalBug, "llm fallback chain has no models or no enricher configured")
	}
	ctx = telemetry.WithAttrs(ctx, "item_id", item.ID, "correlation_id", item.CorrelationID)
	now := c.now()
	var (
		skipped []string
		wakeAt  time.Time
	)
	for i, model := range c.Models {
		h, ok := c.status(ctx, model)
		if !ok {
			skipped = append(skipped, model)
			if due, auto := h.ExpectedRecovery(c.cooldown()); auto && (wakeAt.IsZero() || due.Before(wakeAt)) {
				wakeAt = due
			}
			continue
		}
		if i > 0 {
			c.count(MetricModelFallbacks, "")
			c.logger().InfoContext(ctx, "model chain fell back", "model", model, "skipped", strings.Join(skipped, ","))
		}
		enr, err := c.ask(ctx, item, model)
		if err == nil {
			return state.Output{Enrichment: &enr}, nil
		}
		if esc, ok := c.escalation(ctx, model, err); ok {
			c.count(MetricModelEscalations, failure.Classify(err).Class)
			c.logger().WarnContext(ctx, "escalating to the escalation model", "model", model, "escalation_model", esc,
				"class", string(failure.Classify(err).Class))
			enr, eerr := c.ask(ctx, item, esc)
			if eerr == nil {
				return state.Output{Enrichment: &enr}, nil
			}
			return state.Output{}, failure.WithDetail(eerr, "escalated_from", model)
		}
		if len(skipped) > 0 {
			err = failure.WithDetail(err, "models_skipped", strings.Join(skipped, ","))
		}
		return state.Output{}, err
	}
	until := now.Add(c.noModelWait())
	if wakeAt.After(now) {
		until = wakeAt
	}
	c.count(MetricNoModel, "")
	return state.Output{}, gate.Wrap(&failure.WaitError{Until: until,
		Reason: fmt.Sprintf("no enabled model in the chain (%s disabled)", strings.Join(skipped, ", "))}, c.Gate())
}

// Gate is the gate an item waits behind when no model of the chain is
// enabled: it opens when any of them is enabled again (the recovery
// function's cooldown, or an operator).
func (c *Chain) Gate() gate.Name { return ModelsGate(c.Models) }

// ModelsGate is the gate of a chain of models; ChainModels reads the models
// back from it.
func ModelsGate(models []string) gate.Name { return gate.New(gate.Models, strings.Join(models, ",")) }

// ChainModels returns the models of a Models gate.
func ChainModels(g gate.Name) []string {
	if g.Kind() != gate.Models || g.Key() == "" {
		return nil
	}
	return strings.Split(g.Key(), ",")
}

// ask calls model and feeds the outcome to Health.
func (c *Chain) ask(ctx context.Context, item state.Item, model string) (state.Enrichment, error) {
	enr, err := c.Enricher.Enrich(ctx, item, model)
	if c.Health == nil {
		return enr, err
	}
	if err == nil {
		if herr := c.Health.RecordSuccess(ctx, model); herr != nil {
			c.logger().ErrorContext(ctx, "recording a model success failed", "model", model, "error", herr.Error())
		}
		return enr, nil
	}
	if errors.Is(err, failure.ErrWaiting) || ctx.Err() != nil {
		// A closed gate or our own deadline says nothing about the model.
		return enr, err
	}
	if _, herr := c.Health.RecordFailure(ctx, model, failure.Classify(err)); herr != nil {
		c.logger().ErrorContext(ctx, "recording a model failure failed", "model", model, "error", herr.Error())
	}
	return enr, err
}

// escalation returns the model to retry err on, if any.
func (c *Chain) escalation(ctx context.Context, failed string, err error) (string, bool) {
	esc := strings.TrimSpace(c.EscalationModel)
	if esc == "" || esc == failed {
		return "", false
	}
	switch failure.Classify(err).Class {
	case failure.ContentPolicy, failure.TokenLimit:
	default:
		return "", false
	}
	if _, ok := c.status(ctx, esc); !ok {
		c.logger().WarnContext(ctx, "escalation model is disabled; not escalating", "model", failed, "escalation_model", esc)
		return "", false
	}
	return esc, true
}

// status reports model's health and whether it may be asked.
func (c *Chain) status(ctx context.Context, model string) (health.Model, bool) {
	if c.Health == nil {
		return health.Model{Name: model}, true
	}
	h, err := c.Health.Status(ctx, model)
	if err != nil {
		c.logger().WarnContext(ctx, "model health unreadable; asking the model", "model", model, "error", err.Error())
		return h, true
	}
	return h, !h.Disabled
}

func (c *Chain) cooldown() time.Duration {
	if c.Cooldown > 0 {
		return c.Cooldown
	}
	return health.DefaultCooldown
}

func (c *Chain) noModelWait() time.Duration {
	if c.NoModelWait > 0 {
		return c.NoModelWait
	}
	return DefaultNoModelWait
}

func (c *Chain) now() time.Time {
	if c.Clock == nil {
		return time.Now()
	}
	return c.Clock.Now()
}

func (c *Chain) logger() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

func (c *Chain) count(name string, class failure.Class) {
	if c.Metrics != nil {
		c.Metrics.Count(name, pipeline.LLM, class, 1)
	}
}
