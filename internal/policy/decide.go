package policy

import (
	"strconv"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/work"
)

// Input is everything a decision depends on. There is no hidden state: the
// same input gives the same decision.
type Input struct {
	// Stage is the stage that failed; attempt limits are per stage.
	Stage work.Stage
	// Failure is the classified failure.
	Failure failure.Classification
	// Attempt is the 1-based attempt of this stage that just failed if it
	// counts: one more than the attempts already spent (budget waits spend
	// none). Whether it counts is the decision's (Decision.Counts). Values
	// below 1 are 1.
	Attempt int
	// Gate is the gate the failure names (gates.Of), if any: a provider's
	// quota, the day's budget.
	Gate gates.Name
	// Released is the gate whose ramp released the record, if any.
	Released gates.Name
	// Closed is the fact a gate's provider reported in place of a result
	// (ClosedOf): the gate that kept the work from running, its state and
	// the time it is known closed until. Nil when the work ran.
	Closed *Closed
	// Now is the current time.
	Now time.Time
	// Rand returns a number in [0, 1) for jitter. Nil means no randomness:
	// the largest delay in the range is used.
	Rand func() float64
}

// Decision is one of Retry, DeadLetter or Wait.
type Decision interface {
	// Reason explains the decision in one line, safe to log.
	Reason() string
	// Counts reports whether the failure spent an attempt: a retry and a
	// dead letter do, a wait does not. It is decided here, once; the runner
	// and the stores read it.
	Counts() bool
	decision()
}

// Retry means: try this stage again after Delay, spending an attempt.
type Retry struct {
	// Delay is the jittered delay, at least the (capped) requested delay.
	Delay time.Duration
	// Min and Max are the range Delay was drawn from.
	Min, Max time.Duration
	// Requested is the upstream's requested delay after the cap; zero if none.
	Requested time.Duration
	// Attempt is the attempt that just failed; MaxAttempts the stage's limit.
	Attempt, MaxAttempts int
	// Class is the failure's class.
	Class work.Class
	// Backoff describes the schedule that produced Delay.
	Backoff string
}

// DeadLetter means: stop and send the item to the stage's dead-letter queue.
type DeadLetter struct {
	// Exhausted is true when a retryable class used up its attempts, false
	// when the class is permanent.
	Exhausted bool
	// Attempt is the attempt that just failed; MaxAttempts the stage's limit.
	Attempt, MaxAttempts int
	// Class is the failure's class.
	Class work.Class
}

// Wait means: try again at Until without spending an attempt.
type Wait struct {
	// Until is when the item may run again.
	Until time.Time
	// Class is the failure's class (BUDGET_EXCEEDED) or empty for gates.
	Class work.Class
	// Why names the limit being waited out.
	Why string
	// Gate is what the item waits behind; empty is a plain due time.
	Gate gates.Name
	// Park parks the item behind Gate whatever the wait's length (a record
	// a gate released into a rate limit goes back behind that gate).
	Park bool
	// MaxAttempts is the class's attempt limit in the stage, for the
	// record (zero: unlimited, as for a class that never counts).
	MaxAttempts int
}

func (Retry) decision()      {}
func (DeadLetter) decision() {}
func (Wait) decision()       {}

// Counts is true: a retry spends the attempt that failed.
func (Retry) Counts() bool { return true }

// Counts is true: a dead letter ends the attempt that failed.
func (DeadLetter) Counts() bool { return true }

// Counts is false: a wait spends no attempt.
func (Wait) Counts() bool { return false }

// Reason explains the retry.
func (r Retry) Reason() string {
	s := string(r.Class) + " is retryable: attempt " + strconv.Itoa(r.Attempt) + " of " + strconv.Itoa(r.MaxAttempts) +
		", retry in " + r.Delay.Round(time.Millisecond).String() + " (" + r.Backoff
	if r.Requested > 0 {
		s += ", upstream asked for " + r.Requested.String()
	}
	return s + ")"
}

// Reason explains the dead letter.
func (d DeadLetter) Reason() string {
	if d.Exhausted {
		return string(d.Class) + " exhausted " + strconv.Itoa(d.Attempt) + " of " + strconv.Itoa(d.MaxAttempts) + " attempts"
	}
	return string(d.Class) + " is permanent: no retry can succeed"
}

// Reason explains the wait.
func (w Wait) Reason() string {
	s := "wait until " + w.Until.UTC().Format(time.RFC3339) + " without spending an attempt"
	if w.Why != "" {
		s += ": " + w.Why
	}
	return s
}

// Decide applies p to one outcome. Work kept from running by a closed gate
// (in.Closed) waits behind it, spending no attempt (GateWait). Otherwise
// Decide judges the failure: non-retryable classes dead-letter at once;
// non-counting classes (BUDGET_EXCEEDED) wait — our own cap until the next UTC
// midnight (or BudgetRecheck, when sooner), a provider's quota for ProviderQuotaWait or as long as it asked;
// counting classes retry until the attempt that just failed reaches
// MaxAttempts, after a delay of max(backoff, min(requested, RequestedCap)).
// A class that a gate's ramp caused (Policy.BackBehindGate) on a record the
// ramp released goes back behind that gate, parked, after the first
// attempt's delay, without spending an attempt: the ramp released it faster
// than the upstream takes, which is the ramp's failure, not the item's.
func (p *Profile) Decide(in Input) Decision {
	if in.Closed != nil {
		return p.GateWait(*in.Closed, in.Now)
	}
	class := in.Failure.Class
	pol := p.Policy(in.Stage, class)
	attempt := max(in.Attempt, 1)
	if !pol.Retryable {
		return DeadLetter{Attempt: attempt, MaxAttempts: max(pol.MaxAttempts, 1), Class: class}
	}
	if !pol.Counts {
		w := p.wait(in, class)
		w.MaxAttempts = pol.MaxAttempts
		return w
	}
	if pol.BackBehindGate && in.Released != "" {
		r := p.retry(in, pol, 1)
		return Wait{Until: in.Now.Add(r.Delay), Class: class, Gate: in.Released, Park: true, MaxAttempts: pol.MaxAttempts,
			Why: "released by " + string(in.Released) + " into the upstream's rate limit: back behind the gate, the ramp's attempt, not the item's"}
	}
	if pol.MaxAttempts > 0 && attempt >= pol.MaxAttempts {
		return DeadLetter{Exhausted: true, Attempt: attempt, MaxAttempts: pol.MaxAttempts, Class: class}
	}
	return p.retry(in, pol, attempt)
}

// retry draws the delay after attempt from pol's backoff, raised to the
// (capped) delay the upstream asked for.
func (p *Profile) retry(in Input, pol Policy, attempt int) Retry {
	lo, hi := pol.Backoff.Bounds(attempt)
	r := 1.0
	if in.Rand != nil {
		r = in.Rand()
	}
	delay := pol.Backoff.Delay(attempt, r)
	var req time.Duration
	if p.RequestedCap > 0 {
		req = min(in.Failure.Requested.Resolve(in.Now), p.RequestedCap)
		delay, lo, hi = max(delay, req), max(lo, req), max(hi, req)
	}
	return Retry{Delay: delay, Min: lo, Max: hi, Requested: req, Attempt: attempt,
		MaxAttempts: pol.MaxAttempts, Class: in.Failure.Class, Backoff: pol.description()}
}

// wait is the wait of a class that spends no attempt, behind the gate the
// failure names. A profile that rechecks a spent budget sooner than the day
// turns (an operator may raise the cap) waits for a plain due time instead
// of behind the day's budget gate.
func (p *Profile) wait(in Input, class work.Class) Wait {
	g := in.Gate
	if g.Kind() == gates.Budget && p.BudgetRecheck > 0 {
		g = gates.DueName
	}
	if in.Failure.SelfImposed {
		reset := NextUTCMidnight(in.Now)
		if p.BudgetRecheck > 0 && in.Now.Add(p.BudgetRecheck).Before(reset) {
			return Wait{Until: in.Now.Add(p.BudgetRecheck), Class: class, Gate: g,
				Why: "daily budget spent; checking again in " + p.BudgetRecheck.String() + " (it resets at 00:00 UTC)"}
		}
		return Wait{Until: reset, Class: class, Gate: g, Why: "daily budget resets at 00:00 UTC"}
	}
	d := max(p.ProviderQuotaWait, in.Failure.Requested.Resolve(in.Now))
	return Wait{Until: in.Now.Add(d), Class: class, Gate: g, Why: "provider quota exhausted"}
}

// NextUTCMidnight returns the first 00:00 UTC strictly after t.
func NextUTCMidnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}
