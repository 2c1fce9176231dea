package triage

import (
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// facts is everything the inline path knows when it decides: the stage whose
// rows apply, what the attempt ended with (a failure, or a closed gate: a
// *failure.WaitError behind the gate that named it), the attempt, the time
// and the jitter source.
type facts struct {
	stage   work.Stage
	err     error
	attempt int
	now     time.Time
	rand    func() float64
}

// decide is the one place the inline path asks the policy, with the same
// input the worker's runner gives it: a closed gate (an open breaker, a
// disabled model, a plain due time) is a fact of the input (policy.ClosedOf),
// and the gate a failure names (a provider's quota, the day's budget) is
// its Gate.
func decide(p *policy.Profile, f facts) policy.Decision {
	in := policy.Input{Stage: f.stage, Attempt: f.attempt, Now: f.now, Rand: f.rand}
	if c, ok := policy.ClosedOf(f.err); ok {
		in.Closed = &c
		return p.Decide(in)
	}
	in.Gate, _ = gates.Of(f.err)
	in.Failure = failure.Classify(f.err)
	return p.Decide(in)
}

// holdsInProcess reports whether the inline path may wait d for the policy's
// decision in the caller's goroutine: exactly the waits the worker would
// hold in its queue rather than park (policy.Holding.Park), rounds (calls
// and refusals by a closed gate) standing for receives. A wait behind a gate is never held here: the gate's waiters
// are the scheduler's to release in a ramp.
func holdsInProcess(dec policy.Decision, d time.Duration, rounds int) bool {
	onGate := false
	if w, ok := dec.(policy.Wait); ok {
		onGate = !w.Gate.IsDue()
	}
	return !policy.Holding{}.Park(d, rounds, dec.Counts(), onGate)
}
