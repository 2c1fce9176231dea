package triage

import (
	"errors"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
)

// facts is everything the inline path knows when it decides: the stage whose
// rows apply, what the attempt ended with (a failure, or a closed gate: a
// *failure.WaitError behind the gate that named it), the attempt, the time
// and the jitter source.
type facts struct {
	stage   pipeline.Stage
	err     error
	attempt int
	now     time.Time
	rand    func() float64
}

// decide is the one place the inline path asks the policy. The policy's
// input takes the gate a failure names (a provider's quota, the day's
// budget); a gate that was closed before the call (an open breaker, a
// disabled model) is not yet an input of Decide, so it is the wait the gate
// named, as the worker's runner holds it. When Decide takes gate states as
// facts, this function passes them and the rest of the package is
// unchanged.
func decide(p *retry.Profile, f facts) retry.Decision {
	g, _ := gate.Of(f.err)
	var w *failure.WaitError
	if errors.As(f.err, &w) {
		return retry.Wait{Until: w.Until, Gate: g, Why: w.Reason}
	}
	return p.Decide(retry.Input{Stage: f.stage, Failure: failure.ClassOf(f.err), Attempt: f.attempt, Gate: g, Now: f.now, Rand: f.rand})
}

// holdsInProcess reports whether the inline path may wait d for the policy's
// decision in the caller's goroutine: exactly the waits the worker would
// hold in its queue rather than park (retry.Holding.Park), rounds (calls
// and refusals by a closed gate) standing for receives. A wait behind a gate is never held here: the gate's waiters
// are the scheduler's to release in a ramp.
func holdsInProcess(dec retry.Decision, d time.Duration, rounds int) bool {
	onGate := false
	if w, ok := dec.(retry.Wait); ok {
		onGate = !w.Gate.IsDue()
	}
	return !retry.Holding{}.Park(d, rounds, dec.Counts(), onGate)
}
