package fallback_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/work"
)

// TestChainWaitsBehindItsGates: a chain whose one provider's breaker is
// open waits behind that breaker's gate; one whose providers are all out
// waits behind the chain's gate, which the scheduler's checker opens when
// an entry is usable again, and probes — through one waiter released with
// the probe lease — when a provider's breaker may be probed
// (docs/design.md "Waits and parking").
func TestChainWaitsBehindItsGates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, "anthropic:claude", "openai:gpt")
	store := breaker.NewMemory()
	b.chain.Breakers = &breaker.Breakers{Store: store, Clock: b.clock, Stage: work.LLM, Threshold: 1}
	b.models.errs["claude"] = &failure.HTTPError{Provider: failure.Anthropic, Status: 503}
	b.models.errs["gpt"] = overloaded

	// Both providers fail: each failure opens its breaker, which is the
	// outage's, not the item's: a wait behind the chain's gate.
	_, err := b.chain.Run(ctx, item, gates.Delivery{})
	g, _ := gates.Of(err)
	if !errors.Is(err, failure.ErrWaiting) || g != b.chain.Gate() {
		t.Fatalf("= %v behind %q, want a wait behind the chain's gate %q", err, g, b.chain.Gate())
	}
	if want := gates.Name("models:anthropic:claude,openai:gpt"); g != want {
		t.Fatalf("chain gate %q, want %q", g, want)
	}
	if got, err := fallback.GateEntries(g); err != nil || len(got) != 2 || got[0] != b.chain.Entries[0] {
		t.Fatalf("GateEntries(%q) = %v, %v", g, got, err)
	}
	if _, err := b.chain.Run(ctx, item, gates.Delivery{}); !errors.Is(err, failure.ErrWaiting) || len(b.models.calls) != 2 {
		t.Fatalf("second item: %v after calls %v; want a wait without a call", err, b.models.calls)
	}

	// The scheduler's view of the gate: closed, then a probe due.
	check := scheduler.Models{Store: b.store, Breakers: store, NewOwner: func() string { return "scheduler-1" }}
	if st, err := check.Check(ctx, g, b.clock.Now()); err != nil || st.Open || st.ProbeDue {
		t.Fatalf("Check while both breakers are open = %+v, %v", st, err)
	}
	b.clock.Advance(breaker.DefaultOpenFor + time.Second)
	st, err := check.Check(ctx, g, b.clock.Now())
	if err != nil || st.Open || !st.ProbeDue {
		t.Fatalf("Check once the breakers may be probed = %+v, %v", st, err)
	}
	token, err := check.Probe(ctx, g, b.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rec, _ := store.Get(ctx, fallback.Service(failure.Anthropic)); rec.State != breaker.HalfOpen || rec.ProbeOwner != token {
		t.Fatalf("anthropic's breaker after Probe = %+v", rec)
	}
	// The released probe: Anthropic is back; the waiter carries the lease.
	delete(b.models.errs, "claude")
	b.models.calls = nil
	out, err := b.chain.Run(ctx, item, gates.Delivery{Gate: g, Probe: token})
	if err != nil || out.Enrichment == nil || out.Enrichment.Model != "claude" {
		t.Fatalf("the probe = %+v, %v after calls %v", out.Enrichment, err, b.models.calls)
	}
	if st, err := check.Check(ctx, g, b.clock.Now()); err != nil || !st.Open {
		t.Fatalf("Check after the probe closed anthropic's breaker = %+v, %v", st, err)
	}

	// A failed probe of a chain's provider is no attempt either: the item
	// goes on waiting behind the chain.
	b.models.errs["claude"] = &failure.HTTPError{Provider: failure.Anthropic, Status: 503}
	if _, err := b.chain.Run(ctx, item, gates.Delivery{}); !errors.Is(err, failure.ErrWaiting) {
		t.Fatalf("after anthropic failed again: %v", err)
	}
	b.clock.Advance(breaker.DefaultOpenFor + time.Second)
	if token, err = check.Probe(ctx, g, b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	_, err = b.chain.Run(ctx, item, gates.Delivery{Gate: g, Probe: token})
	if g2, _ := gates.Of(err); !errors.Is(err, failure.ErrWaiting) || g2 != g {
		t.Fatalf("failed probe = %v behind %q, want a wait behind %q", err, g2, g)
	}
	if rec, _ := store.Get(ctx, fallback.Service(failure.Anthropic)); rec.State != breaker.Open || rec.ProbeOwner != "" {
		t.Fatalf("anthropic's breaker after the failed probe = %+v", rec)
	}

	// One provider: its breaker's own gate.
	one := setup(t, "openai:gpt")
	one.chain.Breakers = &breaker.Breakers{Store: breaker.NewMemory(), Clock: one.clock, Stage: work.LLM,
		Threshold: 1}
	one.models.errs["gpt"] = overloaded
	_, err = one.chain.Run(ctx, item, gates.Delivery{})
	if g, _ := gates.Of(err); !errors.Is(err, failure.ErrWaiting) || g != gates.New(gates.Breaker, fallback.Service(failure.OpenAI)) {
		t.Fatalf("one provider: %v behind %q, want a wait behind its breaker's gate", err, g)
	}
}
