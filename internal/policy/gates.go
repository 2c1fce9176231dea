package policy

import (
	"errors"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
)

// The waits behind a closed gate (docs/design.md "Waits and parking"): the
// gate's provider reports what it knows (Closed), Decide turns it into a
// Wait with these.
const (
	// BreakerOpenFor is how long a circuit breaker stays open before a
	// probe (docs/design.md "Circuit breakers"): the wait of its callers,
	// and the base window a failing breaker's probes grow from (Probing).
	BreakerOpenFor = 5 * time.Minute
	// ProbeWait is how long a caller waits while another caller's probe of
	// a breaker is in flight, when the probe's lease ends later than that
	// or is not known: a probe that succeeds closes the breaker within
	// seconds.
	ProbeWait = 15 * time.Second
	// NoModelWait is how long an item waits when no entry of the model
	// chain can be asked and no recovery is expected sooner (an overdue
	// recovery run, models an operator disabled).
	NoModelWait = 5 * time.Minute
	// GateWaitFloor is the least wait behind a gate whose provider says it
	// is closed until now or earlier: it is about to open, and an item
	// sent back at once would find it closed again.
	GateWaitFloor = time.Second
)

// GateState is what a gate's provider knows about why the gate is closed.
type GateState string

const (
	// GateOpen is a breaker open until Closed.Until, when it may be probed.
	GateOpen GateState = "open"
	// GateProbing is a breaker half-open while another caller's probe is in
	// flight; Closed.Until is the probe's lease end, zero when not known.
	GateProbing GateState = "probing"
	// GateDraining is an upstream whose gate's waiters are being released:
	// a new caller queues behind them; Closed.Until is when the drain is
	// expected over.
	GateDraining GateState = "draining"
	// GateNoModel is a model chain with no usable entry; Closed.Until is
	// the earliest expected recovery, zero when none is expected.
	GateNoModel GateState = "no model"
	// GateDue is a plain due time: closed until Closed.Until, nothing else.
	GateDue GateState = "due"
)

// Closed is a fact a gate's provider (a breaker, the model chain, a Work
// with a cooldown) reports in place of a result: a gate keeps the work from
// running. It is no wait: Decide turns it into one (Profile.GateWait). It
// matches failure.ErrWaiting, so whoever only asks whether a call was kept
// from running sees it as a wait.
type Closed struct {
	// Gate is the gate; empty or gates.DueName is a plain due time.
	Gate gates.Name
	// State is what keeps the gate closed.
	State GateState
	// Until is the time the provider knows the gate stays closed until;
	// zero when it does not know (State says what that means).
	Until time.Time
	// At is when the provider observed the gate closed; the waits the
	// policy measures (ProbeWait, NoModelWait) start there. Zero is the
	// decision's Now.
	At time.Time
	// Why says which gate is closed, for logs; safe to log.
	Why string
}

// Error returns "waiting until T: why", or "waiting (STATE): why" when
// the provider knows no time.
func (c *Closed) Error() string {
	if c.Until.IsZero() {
		return "waiting (" + string(c.State) + "): " + c.Why
	}
	return "waiting until " + c.Until.UTC().Format(time.RFC3339) + ": " + c.Why
}

// GateName returns c's gate (gates.Of reads it).
func (c *Closed) GateName() gates.Name { return c.Gate }

// WaitReason returns c.Why (the audit trail records it).
func (c *Closed) WaitReason() string { return c.Why }

// Is matches failure.ErrWaiting.
func (c *Closed) Is(target error) bool { return target == failure.ErrWaiting }

// ClosedOf returns the gate fact err carries: a *Closed, or a
// *failure.WaitError — a plain due time unless a gates.Wrap names its gate
// (gates.Of); ok is false when err reports no closed gate.
func ClosedOf(err error) (Closed, bool) {
	var (
		c  *Closed
		we *failure.WaitError
		f  Closed
	)
	switch {
	case errors.As(err, &c):
		f = *c
	case errors.As(err, &we):
		f = Closed{State: GateDue, Until: we.Until, Why: we.Reason}
	default:
		return Closed{}, false
	}
	if g, ok := gates.Of(err); ok {
		f.Gate = g
	}
	return f, true
}

// Reopens returns when a wait behind the closed gate c ends, measured from
// when it was observed closed (c.At, else now): the time its provider
// knows, or, where it knows none, the policy's:
//
//   - probing: the probe's lease end, at most ProbeWait away;
//   - no model: the earliest expected recovery, else NoModelWait away;
//   - anything else: Until;
//
// and never before now + GateWaitFloor for a gate that, by then, says it
// is closed until now or earlier. The model chain asks it of its providers' breakers
// to find its earliest recovery; Decide asks it for the Wait.
func (p *Profile) Reopens(c Closed, now time.Time) time.Time {
	seen := now
	if !c.At.IsZero() {
		seen = c.At
	}
	until := c.Until
	switch c.State {
	case GateProbing:
		if !until.After(seen) || until.After(seen.Add(ProbeWait)) {
			until = seen.Add(ProbeWait)
		}
	case GateNoModel:
		if !until.After(seen) {
			until = seen.Add(NoModelWait)
		}
	}
	if !until.After(now) {
		until = now.Add(GateWaitFloor)
	}
	return until
}

// GateWait is the wait behind the closed gate c (Decide's answer for an
// Input with Closed set): until Reopens, behind c's gate, spending no
// attempt.
func (p *Profile) GateWait(c Closed, now time.Time) Wait {
	g := c.Gate
	if g == "" {
		g = gates.DueName
	}
	return Wait{Until: p.Reopens(c, now), Gate: g, Why: c.Why}
}
