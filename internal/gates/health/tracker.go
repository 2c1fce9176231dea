package health

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Metrics receives counters; runner.Metrics and *telemetry.EMF satisfy it.
type Metrics = telemetry.Counter

// Metric names Tracker and Recover count (stage "llm").
const (
	// MetricModelFailures counts model-specific failures recorded.
	MetricModelFailures = "ModelFailures"
	// MetricModelDisables counts automatic disables: one per disable event.
	MetricModelDisables = "ModelDisables"
	// MetricModelRecoveries counts models Recover re-enabled.
	MetricModelRecoveries = "ModelRecoveries"
)

// Tracker is the llm stage's view of model health: Store plus the rules of
// what counts, and a short in-process cache so that choosing a model does
// not cost a DynamoDB read per item. Build one per process and share it; it
// is safe for concurrent use.
type Tracker struct {
	// Store holds the records. Required.
	Store Store
	// Clock stamps writes and ages the cache; nil means the wall clock.
	Clock clock.Clock
	// Threshold disables a model; zero means DefaultThreshold.
	Threshold int
	// CacheTTL is how long a read is trusted; zero means DefaultCacheTTL,
	// negative disables the cache. Every write refreshes the entry with the
	// record the write returned.
	CacheTTL time.Duration
	// Log receives disable events and the transient failures that were not
	// counted; nil discards them.
	Log *slog.Logger
	// Metrics receives MetricModelFailures and MetricModelDisables; nil
	// discards them.
	Metrics Metrics

	cache dynamo.Cache[Model]
	// calls are this process's latest calls per model: what decides
	// whether a model-specific failure joins the shared count.
	calls dynamo.Outcomes
}

// Status returns the model's health, from the cache when it is fresh. A
// model without a record is healthy (Model{Name: model}). A store error is
// returned with the last known record (or a healthy one), so a caller may
// choose to fail open.
func (t *Tracker) Status(ctx context.Context, model string) (Model, error) {
	now := t.now()
	if m, ok := t.cached(model, now, true); ok {
		return m, nil
	}
	m, err := t.Store.Get(ctx, model)
	switch {
	case errors.Is(err, ErrNotFound):
		m = Model{Name: model}
	case err != nil:
		last, ok := t.cached(model, now, false)
		if !ok {
			last = Model{Name: model}
		}
		return last, err
	}
	t.remember(m, now)
	return m, nil
}

// RecordFailure records a failure of model, on item, classified as cl.
// Only model-specific classes count (cl.Class.ModelSpecific()); any other
// class (a rate limit, a timeout, a 5xx: the provider, not the model) is
// logged and nothing is written. An item that already failed on the model
// within this instance's last calls of it, or within the shared record's
// current streak, is a repeat of its own failure (Repeat), not evidence
// against the model; item "" counts every failure. The result's Disabled
// is true for the one failure that disabled the model, which is logged as
// a warning and counted as MetricModelDisables.
func (t *Tracker) RecordFailure(ctx context.Context, model, item string, cl failure.Classification) (FailureResult, error) {
	if !cl.Class.ModelSpecific() {
		t.logger().InfoContext(ctx, "transient failure not counted against the model", "model", model, "class", string(cl.Class),
			"reason", cl.Reason)
		m, _ := t.cached(model, t.now(), false)
		return FailureResult{Model: m}, nil
	}
	now := t.now()
	// A failure on this instance is written when a second follows it here
	// with no success between and most of the instance's last calls of the
	// model failed; then the run is written. At scale, one item's bad
	// answers and a model's sporadic ones never reach the model's key; a
	// broken model fails every call, and every instance's run reaches the
	// shared count at once.
	items, repeat := t.calls.Fail(model, item)
	if repeat {
		t.logger().InfoContext(ctx, "item failed again on the model; counted once", "model", model,
			"class", string(cl.Class), "reason", cl.Reason)
		m, _ := t.cached(model, now, false)
		return FailureResult{Model: m, Repeat: true}, nil
	}
	if len(items) == 0 {
		t.logger().InfoContext(ctx, "model-specific failure; counted once this instance's calls of the model fail in a row and mostly", "model", model,
			"class", string(cl.Class), "reason", cl.Reason)
		m, _ := t.cached(model, now, false)
		return FailureResult{Model: m}, nil
	}
	var (
		res FailureResult
		err error
	)
	for _, it := range items {
		if res, err = t.Store.RecordFailure(ctx, FailureRequest{
			Model: model, Item: it, Class: cl.Class, Reason: cl.Reason, At: now, Threshold: t.Threshold,
		}); err != nil || res.Disabled {
			break
		}
	}
	if err != nil {
		t.forget(model)
		return FailureResult{}, err
	}
	t.remember(res.Model, now)
	if res.Repeat {
		t.logger().InfoContext(ctx, "item failed again on the model; counted once", "model", model,
			"class", string(cl.Class), "reason", cl.Reason, "consecutive_failures", res.Model.ConsecutiveFailures)
		return res, nil
	}
	t.count(MetricModelFailures, cl.Class)
	if res.Disabled {
		t.count(MetricModelDisables, cl.Class)
		t.logger().WarnContext(ctx, "model auto-disabled", "model", model, "class", string(cl.Class),
			"consecutive_failures", res.Model.ConsecutiveFailures, "threshold", threshold(t.Threshold),
			"reason", res.Model.DisableReason)
	} else {
		t.logger().InfoContext(ctx, "model-specific failure counted", "model", model, "class", string(cl.Class),
			"consecutive_failures", res.Model.ConsecutiveFailures, "disabled", res.Model.Disabled)
	}
	return res, nil
}

// RecordSuccess resets the model's shared count to zero: the count is of
// consecutive failures across every instance. It reads the shared record
// only when this process's view may be stale — older than the cache TTL, or
// absent — and writes only when the count it knows of is not zero. A view
// younger than the TTL is trusted: it is a read (Status refreshes it before
// the calls that choose the model), a failure this process counted, or a
// reset it wrote. So a healthy model costs at most one read per instance
// and TTL, however many successes, and a failure counted elsewhere is reset
// by the first success after this process's view has aged past the TTL —
// never by a view however old. A disabled model is left alone: only Recover
// or an operator re-enables it.
func (t *Tracker) RecordSuccess(ctx context.Context, model string) error {
	now := t.now()
	t.calls.Succeed(model)
	m, fresh := t.cached(model, now, true)
	if !fresh {
		got, err := t.Store.Get(ctx, model)
		switch {
		case errors.Is(err, ErrNotFound):
			t.remember(Model{Name: model}, now)
			return nil
		case err != nil:
			return err
		}
		t.remember(got, now)
		m = got
	}
	if m.Disabled || m.ConsecutiveFailures == 0 {
		return nil
	}
	changed, err := t.Store.ResetFailures(ctx, model, now)
	if err != nil {
		t.forget(model)
		return err
	}
	// Reset by this write or by another instance's: zero either way.
	t.cache.Update(model, func(m *Model, at *time.Time) { m.ConsecutiveFailures, *at = 0, now })
	if changed {
		t.logger().InfoContext(ctx, "model succeeded; consecutive failures reset", "model", model)
	}
	return nil
}

// Forget drops model from the cache, so the next Status reads the store
// (after an operator override, in tests and demos).
func (t *Tracker) Forget(model string) { t.forget(model) }

func (t *Tracker) cached(model string, now time.Time, freshOnly bool) (Model, bool) {
	return t.cache.Get(model, now, t.ttl(), freshOnly)
}

func (t *Tracker) remember(m Model, now time.Time) { t.cache.Put(m.Name, m, now, t.ttl()) }

func (t *Tracker) forget(model string) { t.cache.Forget(model) }

func (t *Tracker) ttl() time.Duration {
	if t.CacheTTL == 0 {
		return DefaultCacheTTL
	}
	return t.CacheTTL
}

func (t *Tracker) now() time.Time {
	return clock.Or(t.Clock).Now()
}

func (t *Tracker) logger() *slog.Logger {
	return telemetry.Or(t.Log)
}

func (t *Tracker) count(name string, class work.Class) {
	telemetry.CounterOr(t.Metrics).Count(name, work.LLM, class, 1)
}
