package policy

import (
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// BreakerEffect is what a failure tells the circuit breaker of the upstream
// that produced it (internal/gates/breaker executes it).
type BreakerEffect string

const (
	// Trips is an outage: it counts toward opening the breaker, and
	// reopens a probe.
	Trips BreakerEffect = "trips"
	// Opens is an upstream refusing every call until its quota is restored
	// (a provider's BUDGET_EXCEEDED): it opens the breaker at once.
	Opens BreakerEffect = "opens"
	// Throttles is the upstream answering "slow down" (RATE_LIMITED): it
	// neither counts nor resets, and closes a probe.
	Throttles BreakerEffect = "throttles"
	// Answered is the upstream answering about the request (a 4xx, bad
	// model output): the upstream works, so it resets the count.
	Answered BreakerEffect = "answered"
	// Silent says nothing about the upstream: our own bug, bad input, an
	// unmatched error, triage's own budget.
	Silent BreakerEffect = "silent"
)

// BreakerEffects lists every effect.
func BreakerEffects() []BreakerEffect {
	return []BreakerEffect{Trips, Opens, Throttles, Answered, Silent}
}

// Breaker returns what cl tells its upstream's breaker in stage. A limit
// triage imposes on itself (the daily budget) is Silent whatever its class:
// the upstream was not called.
func (p *Profile) Breaker(stage work.Stage, cl failure.Classification) BreakerEffect {
	if cl.SelfImposed {
		return Silent
	}
	if e := p.Policy(stage, cl.Class).Breaker; e != "" {
		return e
	}
	return Silent
}

// SkipsProvider reports whether cl puts an llm provider out for the item
// (Policy.SkipsProvider); triage's own limits never do: the whole stage
// waits for them.
func (p *Profile) SkipsProvider(cl failure.Classification) bool {
	return !cl.SelfImposed && p.Policy(work.LLM, cl.Class).SkipsProvider
}
