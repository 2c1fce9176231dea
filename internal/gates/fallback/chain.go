// Package fallback is the llm stage's model fallback chain across
// providers: the stage's work, which asks the first usable entry of an ordered
// list of provider:model entries, records each model-specific failure
// against that entry's model health (internal/gates/health), keeps one circuit
// breaker per provider (internal/gates/breaker), and makes the item wait — without
// spending an attempt — when no entry can be asked.
//
// # Walking the chain
//
// For each entry, in order: an entry whose provider is already out for this
// item is skipped; a disabled model is skipped; the provider's breaker is
// asked, and an open breaker puts the whole provider out (all its models)
// without a call. The first entry left is asked. Its answer decides:
//
//   - success: the item is enriched;
//   - a provider-wide failure — AUTH_DENIED, the provider's BUDGET_EXCEEDED
//     (a quota or credit, not triage's own daily budget), or an outage
//     failure that left the provider's breaker open (the call that tripped
//     it, a failed half-open probe) — puts the provider out and the walk
//     goes on to the next provider's entries in the same invocation: the
//     item spends no attempt on a provider that cannot serve anyone;
//   - CONTENT_POLICY or TOKEN_LIMIT: retried once, at once, on the
//     escalation entry (a larger-context or differently moderated model),
//     when one is configured, enabled and its provider is up;
//   - anything else fails the item with that failure; the queue retries it
//     later, by when a bad model may have been disabled or a provider's
//     breaker opened, and the walk moves on.
//
// When no entry can be asked the chain reports its gate closed (a
// *policy.Closed, no usable model) until the earliest expected recovery —
// an open breaker's probe time, an auto-disabled model's cooldown — or
// none known, and the policy decides the item's wait (policy.NoModelWait
// when none is known; no attempt spent); when every
// provider that was asked failed provider-wide and nothing is expected
// back, that failure is returned (AUTH_DENIED everywhere needs an operator).
// A disabled model of a provider that refused the item for good is nothing
// to wait for.
//
// # Gates
//
// The closed gate is named (docs/design.md "Waits and parking"), so the
// runner parks the item and the scheduler releases it when the gate
// opens. When one provider's breaker is all that stands in the way (a
// one-provider chain, the usual case), that is the breaker's own gate —
// its state as the breaker reported it, a provider quota's included —
// and the scheduler probes the breaker with one of its waiters. Otherwise
// it is the chain's gate (ModelsGate), which opens when any entry is usable
// again: its model enabled and its provider's breaker closed; while every
// such provider's breaker is open, the scheduler releases one waiter as the
// probe of the first whose probe is due. A record released by a gate (its
// delivery, Run's argument) asks the breakers as released
// (breaker.Breakers.AllowReleased), and one released as a probe presents
// its probe lease (AllowProbe).
package fallback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Enricher asks one entry's model for an item's enrichment: the model
// call the chain is given (the llm function passes its enricher).
type Enricher interface {
	Enrich(ctx context.Context, item store.Item, e Entry) (work.Enrichment, error)
}

// Health is the model-health view the chain reads and feeds, keyed by
// Entry.String(); *health.Tracker implements it.
type Health interface {
	Status(ctx context.Context, model string) (health.Model, error)
	RecordFailure(ctx context.Context, model, item string, cl failure.Classification) (health.FailureResult, error)
	RecordSuccess(ctx context.Context, model string) error
}

// Breakers are the providers' shared circuit breakers, keyed by Service;
// *breaker.Breakers implements them (in the llm stage, whose breaker
// column trips a provider's breaker on AUTH_DENIED too). Done
// reports what a failed probe, a tripping failure or a provider's
// exhausted quota leaves the breaker in (breaker.Breakers.Done): its
// state, or the quota's gate.
type Breakers interface {
	Allow(ctx context.Context, service string) (breaker.Ticket, error)
	AllowReleased(ctx context.Context, service string, released gates.Name) (breaker.Ticket, error)
	AllowProbe(ctx context.Context, service, token string) (breaker.Ticket, error)
	Done(ctx context.Context, t breaker.Ticket, callErr error) error
}

// Metrics receives counters; runner.Metrics and *telemetry.EMF satisfy it.
type Metrics = telemetry.Counter

// Metric names the chain counts (stage "llm").
const (
	// MetricModelFallbacks counts items served by an entry other than the
	// first of the chain because earlier ones were skipped.
	MetricModelFallbacks = "ModelFallbacks"
	// MetricModelEscalations counts retries on the escalation entry (class:
	// the failure that escalated).
	MetricModelEscalations = "ModelEscalations"
	// MetricNoModel counts items made to wait because no entry could be
	// asked.
	MetricNoModel = "NoModelWaits"
	// MetricProviderSkips counts providers put out for an item (class: the
	// provider-wide failure; none for an open breaker).
	MetricProviderSkips = "ProviderSkips"
)

// Chain is the llm stage's Work (see the package documentation). Build it
// once in main; it is safe for concurrent use.
type Chain struct {
	// Enricher asks a model. Required.
	Enricher Enricher
	// Entries is the ordered chain (the LLMModels parameter, ParseChain).
	// Required.
	Entries []Entry
	// Health reads and records model health; nil treats every model as
	// enabled and records nothing.
	Health Health
	// Breakers guards each provider; nil leaves providers unguarded.
	Breakers Breakers
	// Profile is the decision table: which failures put a provider out
	// (SkipsProvider) and which escalate (Escalates); nil means
	// policy.Standard().
	Profile *policy.Profile
	// Escalation, when its Model is set, retries a CONTENT_POLICY or
	// TOKEN_LIMIT failure once, in the same invocation, before the item is
	// dead-lettered; it is skipped when it is the entry that failed, is
	// disabled, or its provider is out.
	Escalation Entry
	// Cooldown is health's recovery cooldown, for the expected end of a
	// disable: zero means health.DefaultCooldown.
	Cooldown time.Duration
	// Clock tells the time; nil means the wall clock.
	Clock clock.Clock
	// Log receives skips and escalations; nil discards them.
	Log *slog.Logger
	// Metrics receives the Metric counters; nil discards them.
	Metrics Metrics
}

var _ breaker.Work = (*Chain)(nil)

// walk is one item's walk down the chain.
type walk struct {
	skipped  []string                    // entries skipped, "provider:model"
	out      map[failure.Provider]string // providers put out, and why
	disabled int                         // entries skipped for a disabled model (see settleDisabled)
	breaker  bool                        // a provider is out behind an open breaker
	wakeAt   time.Time                   // earliest expected recovery
	wideErr  error                       // the last provider-wide failure
	// waits are what the breakers reported of the providers out behind an
	// open breaker (their states, their gates).
	waits map[failure.Provider]error
	// gone are the providers out for a failure no wait fixes (the wide
	// failures without a wait: AUTH_DENIED); offline the entries skipped
	// for a disabled model, with their expected recovery (zero: none).
	gone    map[failure.Provider]bool
	offline []disabledEntry
}

// disabledEntry is an entry skipped for its disabled model.
type disabledEntry struct {
	provider failure.Provider
	due      time.Time
}

// settleDisabled counts the entries skipped for a disabled model, and wakes
// the walk at their expected recovery — those of providers still able to
// serve the item: a model re-enabled at a provider that refused the item
// for good (its key revoked for it, its access denied) would not serve it,
// and waiting for it would only bring the item back to the same refusal.
func (w *walk) settleDisabled() {
	for _, d := range w.offline {
		if w.gone[d.provider] {
			continue
		}
		w.disabled++
		w.wake(d.due)
	}
	w.offline = nil
}

func (w *walk) wake(t time.Time) {
	if !t.IsZero() && (w.wakeAt.IsZero() || t.Before(w.wakeAt)) {
		w.wakeAt = t
	}
}

// Run enriches item through the chain (see the package documentation); d
// is how the record came, for the providers' breakers. A health store or
// breaker that cannot be read fails open: the model is asked.
func (c *Chain) Run(ctx context.Context, item store.Item, d gates.Delivery) (work.Output, error) {
	if c.Enricher == nil || len(c.Entries) == 0 {
		return work.Output{}, failure.New(work.InternalBug, "llm fallback chain has no entries or no enricher configured")
	}
	ctx = telemetry.WithAttrs(ctx, "item_id", item.ID, "correlation_id", item.CorrelationID)
	now := c.now()
	w := &walk{out: map[failure.Provider]string{}, waits: map[failure.Provider]error{}, gone: map[failure.Provider]bool{}}
	for i, e := range c.Entries {
		if _, out := w.out[e.Provider]; out {
			w.skipped = append(w.skipped, e.String())
			continue
		}
		h, ok := c.status(ctx, e)
		if !ok {
			w.skipped = append(w.skipped, e.String())
			d := disabledEntry{provider: e.Provider}
			if due, auto := h.ExpectedRecovery(c.cooldown()); auto {
				d.due = due
			}
			w.offline = append(w.offline, d)
			continue
		}
		t, err := c.allow(ctx, e.Provider, d)
		if err != nil {
			c.putOut(ctx, w, e.Provider, "circuit breaker open", "")
			w.skipped, w.breaker = append(w.skipped, e.String()), true
			w.waits[e.Provider] = err
			w.wake(c.reopens(err, now))
			continue
		}
		if i > 0 {
			c.count(MetricModelFallbacks, "")
			c.logger().InfoContext(ctx, "model chain fell back", "model", e.String(), "skipped", strings.Join(w.skipped, ","))
		}
		enr, err := c.ask(ctx, item, e, t)
		if err == nil {
			return work.Output{Enrichment: &enr}, nil
		}
		if why, wait, wide := c.providerWide(ctx, e.Provider, err); wide && ctx.Err() == nil {
			c.putOut(ctx, w, e.Provider, why, failure.Classify(err).Class)
			w.skipped = append(w.skipped, e.String())
			if wait != nil {
				w.breaker = true
				w.waits[e.Provider] = wait
				w.wake(c.reopens(wait, now))
			} else {
				w.wideErr = err
				w.gone[e.Provider] = true
			}
			continue
		}
		if esc, ok := c.escalation(ctx, e, err, w); ok {
			class := failure.Classify(err).Class
			c.count(MetricModelEscalations, class)
			c.logger().WarnContext(ctx, "escalating to the escalation model", "model", e.String(), "escalation_model", esc.String(),
				"class", string(class))
			et, eerr := c.allow(ctx, esc.Provider, d)
			if eerr == nil {
				enr, eerr = c.ask(ctx, item, esc, et)
				if eerr == nil {
					return work.Output{Enrichment: &enr}, nil
				}
				return work.Output{}, failure.WithDetail(eerr, "escalated_from", e.String())
			}
			c.logger().WarnContext(ctx, "escalation provider's breaker is open; not escalating", "escalation_model", esc.String())
		}
		return work.Output{}, c.detail(err, w)
	}
	return work.Output{}, c.nothingServed(now, w)
}

// nothingServed is the outcome of a walk that asked no entry successfully:
// the chain's gate closed until the earliest recovery, or the
// provider-wide failure when nothing is expected back.
func (c *Chain) nothingServed(now time.Time, w *walk) error {
	w.settleDisabled()
	if w.wideErr != nil && w.wakeAt.IsZero() && w.disabled == 0 && !w.breaker {
		// Every provider asked failed for good (a revoked key everywhere):
		// waiting fixes nothing; the failure decides.
		return c.detail(w.wideErr, w)
	}
	if len(w.out) == 1 && len(w.waits) == 1 && w.disabled == 0 {
		// One provider's breaker is all that stands in the way: wait
		// behind it, as the breaker reported it (its gate, its state, a
		// drain's congestion).
		c.count(MetricNoModel, "")
		for _, wait := range w.waits {
			return c.detail(wait, w)
		}
	}
	var until time.Time // none known: the policy's NoModelWait
	if w.wakeAt.After(now) {
		until = w.wakeAt
	}
	c.count(MetricNoModel, "")
	var reasons []string
	for _, p := range Providers(c.Entries) {
		if why, ok := w.out[p]; ok {
			reasons = append(reasons, "provider "+string(p)+": "+why)
		}
	}
	if w.disabled > 0 {
		reasons = append(reasons, fmt.Sprintf("%d model(s) disabled", w.disabled))
	}
	var wait error = &policy.Closed{Gate: c.Gate(), State: policy.GateNoModel, Until: until, At: now,
		Why: fmt.Sprintf("no usable entry in the model chain (%s; skipped %s)", strings.Join(reasons, "; "), strings.Join(w.skipped, ", "))}
	// The chain's gate replaces the providers' waits; the item's run of
	// outage failures they carried (the breaker's evidence of a failure
	// that follows the item) goes on with it — the first provider's, in
	// chain order.
	for _, p := range Providers(c.Entries) {
		if s := store.SuspectOf(w.waits[p]); s != nil {
			return store.WithSuspect(wait, *s)
		}
	}
	return wait
}

// Gate is the chain's gate: an item waits behind it when no entry can be
// asked for more than one reason (several providers out, disabled
// models), and it opens when any entry is usable again (see the package
// documentation).
func (c *Chain) Gate() gates.Name { return ModelsGate(c.Entries) }

// ModelsGate is the gate of a chain ("models:" and the chain's entries);
// GateEntries reads the entries back from it.
func ModelsGate(entries []Entry) gates.Name {
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = e.String()
	}
	return gates.New(gates.Models, strings.Join(keys, ","))
}

// GateEntries returns the entries of a chain's gate; an error when g is
// not one.
func GateEntries(g gates.Name) ([]Entry, error) {
	if g.Kind() != gates.Models {
		return nil, fmt.Errorf("gate %s is not a model chain's", g)
	}
	return ParseChain(g.Key(), failure.OpenAI)
}

// reopens is when the wait behind the gate a breaker reported closed (err)
// ends, as the policy decides it (policy.Profile.Reopens); zero for an err
// that reports no closed gate.
func (c *Chain) reopens(err error, now time.Time) time.Time {
	if closed, ok := policy.ClosedOf(err); ok {
		return c.profile().Reopens(closed, now)
	}
	return time.Time{}
}

// detail adds the walk's skips to a failure.
func (c *Chain) detail(err error, w *walk) error {
	if len(w.skipped) > 0 {
		err = failure.WithDetail(err, "models_skipped", strings.Join(w.skipped, ","))
	}
	if len(w.out) > 0 {
		var ps []string
		for _, p := range Providers(c.Entries) {
			if _, ok := w.out[p]; ok {
				ps = append(ps, string(p))
			}
		}
		err = failure.WithDetail(err, "providers_skipped", strings.Join(ps, ","))
	}
	return err
}

// putOut takes provider out of this item's walk.
func (c *Chain) putOut(ctx context.Context, w *walk, p failure.Provider, why string, class work.Class) {
	w.out[p] = why
	c.count(MetricProviderSkips, class)
	c.logger().InfoContext(ctx, "provider skipped for this item", "provider", string(p), "reason", why)
}

// providerWide reports whether err says provider can serve no model now:
// the provider's breaker put it out (wait is then what the breaker
// reported: a failed probe, the failure that opened it or came after it opened, the
// provider's exhausted quota), or AUTH_DENIED or the provider's own
// BUDGET_EXCEEDED without an open breaker (wait nil). Triage's daily budget
// (self-imposed) is not the provider's: the whole stage waits for it.
func (c *Chain) providerWide(ctx context.Context, p failure.Provider, err error) (why string, wait error, wide bool) {
	if g, ok := gates.Of(err); ok && (g.Kind() == gates.Breaker || g.Kind() == gates.Quota) {
		// ask returned the breaker's verdict (Breakers.Done).
		why = "circuit breaker opened"
		if !errors.Is(err, failure.ErrWaiting) {
			// A quota's failure: the breaker, now open, reports its state.
			why += " (" + string(failure.Classify(err).Class) + ")"
			if _, werr := c.Breakers.Allow(ctx, Service(p)); errors.Is(werr, failure.ErrWaiting) {
				return why, werr, true
			}
			return why, nil, true
		}
		return why, err, true
	}
	if errors.Is(err, failure.ErrWaiting) {
		return "", nil, false
	}
	if cl := failure.Classify(err); c.profile().SkipsProvider(cl) {
		return string(cl.Class), nil, true
	}
	return "", nil, false
}

// allow asks provider p's breaker for a ticket: as the probe the scheduler
// released this record as, as a record a gate released, or as any call
// (the record's delivery d).
func (c *Chain) allow(ctx context.Context, p failure.Provider, d gates.Delivery) (breaker.Ticket, error) {
	if c.Breakers == nil {
		return breaker.Ticket{}, nil
	}
	switch {
	case d.Probe != "":
		// The lease is one provider's; AllowProbe reads which.
		return c.Breakers.AllowProbe(ctx, Service(p), d.Probe)
	case d.Gate != "":
		return c.Breakers.AllowReleased(ctx, Service(p), d.Gate)
	}
	return c.Breakers.Allow(ctx, Service(p))
}

// ask calls e's model, tells the provider's breaker and the model's health
// what happened, and returns the outcome. A refusal of triage's own budget
// is neutral for the breaker (and releases a probe it held).
func (c *Chain) ask(ctx context.Context, item store.Item, e Entry, t breaker.Ticket) (enr work.Enrichment, err error) {
	done := false
	defer func() {
		if !done && c.Breakers != nil {
			_ = c.Breakers.Done(ctx, t, &failure.WaitError{Reason: "work panicked"})
		}
	}()
	enr, err = c.Enricher.Enrich(ctx, item, e)
	done = true
	// The item's run of outage failures is the breaker's evidence that a
	// failure follows the item rather than the provider.
	t.Suspect = item.Suspect
	// Classified once, here, where the failure is first seen: the
	// breaker, model health, the escalation and the runner read it.
	err = failure.Mark(err)
	if c.Breakers != nil {
		verdict := err
		if err != nil && failure.Classify(err).SelfImposed {
			verdict = &failure.WaitError{Reason: "triage's daily budget: the provider was not called"}
		}
		if closed := c.Breakers.Done(ctx, t, verdict); closed != nil {
			// The outage's or the quota's, not the model's: the item
			// waits behind the breaker, and health records nothing.
			return enr, closed
		}
	}
	if c.Health == nil {
		return enr, err
	}
	key := e.String()
	if err == nil {
		if herr := c.Health.RecordSuccess(ctx, key); herr != nil {
			c.logger().ErrorContext(ctx, "recording a model success failed", "model", key, "error", herr.Error())
		}
		return enr, nil
	}
	if errors.Is(err, failure.ErrWaiting) || ctx.Err() != nil {
		// A closed gate or our own deadline says nothing about the model.
		return enr, err
	}
	if _, herr := c.Health.RecordFailure(ctx, key, item.ID, failure.Classify(err)); herr != nil {
		c.logger().ErrorContext(ctx, "recording a model failure failed", "model", key, "error", herr.Error())
	}
	return enr, err
}

// escalation returns the entry to retry err on, if any.
func (c *Chain) escalation(ctx context.Context, failed Entry, err error, w *walk) (Entry, bool) {
	esc := c.Escalation
	if strings.TrimSpace(esc.Model) == "" || esc == failed {
		return Entry{}, false
	}
	if !c.profile().Policy(work.LLM, failure.Classify(err).Class).Escalates {
		return Entry{}, false
	}
	if _, out := w.out[esc.Provider]; out {
		return Entry{}, false
	}
	if _, ok := c.status(ctx, esc); !ok {
		c.logger().WarnContext(ctx, "escalation model is disabled; not escalating", "model", failed.String(), "escalation_model", esc.String())
		return Entry{}, false
	}
	return esc, true
}

// status reports e's model health and whether it may be asked.
func (c *Chain) status(ctx context.Context, e Entry) (health.Model, bool) {
	key := e.String()
	if c.Health == nil {
		return health.Model{Name: key}, true
	}
	h, err := c.Health.Status(ctx, key)
	if err != nil {
		c.logger().WarnContext(ctx, "model health unreadable; asking the model", "model", key, "error", err.Error())
		return h, true
	}
	return h, !h.Disabled
}

// standard is the profile of a Chain without one; never modified.
var standard = policy.Standard()

func (c *Chain) profile() *policy.Profile {
	if c.Profile == nil {
		return standard
	}
	return c.Profile
}

func (c *Chain) cooldown() time.Duration {
	if c.Cooldown > 0 {
		return c.Cooldown
	}
	return health.DefaultCooldown
}

func (c *Chain) now() time.Time {
	return clock.Or(c.Clock).Now()
}

func (c *Chain) logger() *slog.Logger {
	return telemetry.Or(c.Log)
}

func (c *Chain) count(name string, class work.Class) {
	telemetry.CounterOr(c.Metrics).Count(name, work.LLM, class, 1)
}
