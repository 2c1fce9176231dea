package gate

import (
	"math"
	"time"
)

// Defaults of RampConfig.
const (
	// DefaultRampStart is the waiters a gate releases in the first
	// scheduler run after it opens: 20 a minute, a third of a call per
	// second — low for any production LLM quota, and doubled each quiet
	// minute of slow start.
	DefaultRampStart = 20
	// DefaultRampIncrease is the least the allowance grows by after a run
	// whose allowance was used up without a congestion signal.
	DefaultRampIncrease = 1
	// DefaultRampDecrease multiplies the allowance after a congestion
	// signal: 0.7, the β of CUBIC and of the AWS SDKs' adaptive retry mode.
	DefaultRampDecrease = 0.7
	// DefaultRampMin and DefaultRampMax bound the allowance.
	DefaultRampMin = 1
	DefaultRampMax = 5000
	// probeShare is how fast the allowance grows past the rate that last
	// met congestion: a fiftieth of it per run.
	probeShare = 50
)

// RampConfig shapes how a gate releases its waiters once it opens: an
// allowance of waiters per scheduler run that starts low, grows while the
// upstream keeps answering and is cut when it does not — additive
// increase, multiplicative decrease, with the shape of TCP CUBIC and the
// AWS SDKs' adaptive retry mode, in steps of one run:
//
//   - the first run after the gate opens releases Start;
//   - slow start: while no released waiter met congestion yet, a run whose
//     allowance was used up doubles it;
//   - a congestion signal (RATE_LIMITED, 5xx, a timeout from a released
//     waiter, newer than the last adjustment) cuts the allowance by
//     Decrease and remembers the rate that met it (the peak); the next run
//     holds, since its signals still come from waiters released before the
//     cut (one decrease per round trip, as TCP);
//   - afterwards each used-up, quiet run adds half the way back to the
//     peak, at least Increase (concave: quickly near the rate that worked,
//     slowly at it), and, once at the peak, a fiftieth of it (convex: a
//     slow probe for more), so the allowance dwells near the upstream's
//     rate and overshoots it by little.
//
// A run whose waiters ran out before its allowance leaves the allowance as
// it is. The zero value is the defaults with slow start; NoSlowStart grows
// additively from the first run.
type RampConfig struct {
	Start, Increase int
	Decrease        float64
	Min, Max        int
	NoSlowStart     bool
}

// Ramp is one gate's release state, shared by every scheduler run through
// the gate's record.
type Ramp struct {
	// Rate is the waiters the next run may release.
	Rate int
	// SlowStart is true until the first congestion signal of this ramp.
	SlowStart bool
	// Peak is the rate that last met congestion (0 before any).
	Peak int
	// Released is how many waiters the last run released.
	Released int
	// Cut is true when the last adjustment was a decrease.
	Cut bool
	// OpenedAt is when a run first found the gate open (zero: the ramp has
	// not started); AdjustedAt when Rate was last set.
	OpenedAt, AdjustedAt time.Time
	// Total counts the waiters released since OpenedAt.
	Total int64
}

// Started reports whether the ramp is under way.
func (r Ramp) Started() bool { return !r.OpenedAt.IsZero() }

// Next returns the ramp for a run at now, given the time of the last
// congestion signal (zero if none).
func (c RampConfig) Next(r Ramp, now, congestedAt time.Time) Ramp {
	c = c.withDefaults()
	cut := false
	switch {
	case !r.Started():
		return Ramp{Rate: c.Start, SlowStart: !c.NoSlowStart, OpenedAt: now, AdjustedAt: now}
	case r.Cut:
		// Hold for a round trip after a cut.
	case congestedAt.After(r.AdjustedAt):
		r.Peak = r.Rate
		r.Rate = int(math.Floor(float64(r.Rate) * c.Decrease))
		r.SlowStart, cut = false, true
	case r.Released >= r.Rate:
		switch {
		case r.SlowStart:
			r.Rate *= 2
		case r.Rate < r.Peak:
			r.Rate += max(c.Increase, (r.Peak-r.Rate+1)/2)
		default:
			r.Rate += max(c.Increase, r.Peak/probeShare)
		}
	}
	r.Rate = min(max(r.Rate, c.Min), c.Max)
	r.Released, r.Cut = 0, cut
	r.AdjustedAt = now
	return r
}

func (c RampConfig) withDefaults() RampConfig {
	if c.Start <= 0 {
		c.Start = DefaultRampStart
	}
	if c.Increase <= 0 {
		c.Increase = DefaultRampIncrease
	}
	if !(c.Decrease > 0 && c.Decrease < 1) {
		c.Decrease = DefaultRampDecrease
	}
	if c.Min <= 0 {
		c.Min = DefaultRampMin
	}
	if c.Max <= 0 {
		c.Max = DefaultRampMax
	}
	c.Max = max(c.Max, c.Min)
	c.Start = min(max(c.Start, c.Min), c.Max)
	return c
}
