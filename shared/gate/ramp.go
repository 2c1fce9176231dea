package gate

import (
	"math"
	"time"
)

// Defaults of RampConfig.
const (
	// DefaultRampStart is the waiters a gate releases in the first
	// scheduler run after it opens.
	DefaultRampStart = 10
	// DefaultRampIncrease is added to the allowance after a run whose
	// allowance was used up without a congestion signal.
	DefaultRampIncrease = 10
	// DefaultRampDecrease multiplies the allowance after a congestion
	// signal: 0.7, the β of CUBIC and of the AWS SDKs' adaptive retry mode.
	DefaultRampDecrease = 0.7
	// DefaultRampMin and DefaultRampMax bound the allowance.
	DefaultRampMin = 1
	DefaultRampMax = 5000
)

// RampConfig shapes how a gate releases its waiters once it opens:
// additive increase, multiplicative decrease (AIMD) over the number of
// waiters one scheduler run releases, like a TCP congestion window or the
// AWS SDKs' adaptive retry mode. It starts at Start; a run after which the
// upstream kept answering — no congestion signal (RATE_LIMITED, 5xx, a
// timeout) from a released item since the last adjustment — and whose
// allowance was used up grows it (doubling while SlowStart lasts, then by
// Increase); a congestion signal cuts it by Decrease and ends SlowStart.
// The zero value is the defaults, SlowStart off.
type RampConfig struct {
	Start, Increase int
	Decrease        float64
	Min, Max        int
	// SlowStart doubles the allowance after every uncongested, used-up run
	// until the first congestion signal (TCP's slow start), so that a long
	// backlog reaches a fast upstream's rate in a few runs.
	SlowStart bool
}

// Ramp is one gate's release state, shared by every scheduler run through
// the gate's record.
type Ramp struct {
	// Rate is the waiters the next run may release.
	Rate int
	// SlowStart is true until the first congestion signal of this ramp.
	SlowStart bool
	// Released is how many waiters the last run released.
	Released int
	// OpenedAt is when a run first found the gate open (zero: the ramp has
	// not started); AdjustedAt when Rate was last set.
	OpenedAt, AdjustedAt time.Time
	// Total counts the waiters released since OpenedAt.
	Total int64
}

// Started reports whether the ramp is under way.
func (r Ramp) Started() bool { return !r.OpenedAt.IsZero() }

// Next returns the ramp for a run at now, given the time of the last
// congestion signal (zero if none). The first run after the gate opened
// gets Start.
func (c RampConfig) Next(r Ramp, now, congestedAt time.Time) Ramp {
	c = c.withDefaults()
	switch {
	case !r.Started():
		return Ramp{Rate: c.Start, SlowStart: c.SlowStart, OpenedAt: now, AdjustedAt: now}
	case congestedAt.After(r.AdjustedAt):
		r.Rate = int(math.Floor(float64(r.Rate) * c.Decrease))
		r.SlowStart = false
	case r.Released >= r.Rate:
		if r.SlowStart {
			r.Rate *= 2
		} else {
			r.Rate += c.Increase
		}
	}
	r.Rate = min(max(r.Rate, c.Min), c.Max)
	r.Released = 0
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
