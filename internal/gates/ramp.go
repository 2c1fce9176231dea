package gates

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
	// whose allowance was used up without congestion.
	DefaultRampIncrease = 1
	// DefaultRampDecrease multiplies the allowance on congestion: 0.7, the
	// β of CUBIC and of the AWS SDKs' adaptive retry mode.
	DefaultRampDecrease = 0.7
	// DefaultRampMin and DefaultRampMax bound the allowance.
	DefaultRampMin = 1
	DefaultRampMax = 5000
	// probeShare sets the first growth past the rate that last met
	// congestion: a fiftieth of it.
	probeShare = 50
	// approach is the share of the way back to the peak a quiet run adds
	// after a cut: a quarter, so the ramp nears the rate that met
	// congestion over a few runs rather than meeting it again at once.
	approach = 4
	// priorNoise and priorOver are the background the ramp assumes before
	// it has learned the upstream's: 5% of releases meeting congestion,
	// weighing as much as 100 releases — an LLM provider's usual trickle of
	// 429s and 5xx at any rate.
	priorNoise = 0.05
	priorOver  = 100
	// noiseMemory is how many released waiters Ramp.Noise remembers: older
	// runs weigh less once it is reached, so the estimate follows an
	// upstream whose background changes.
	noiseMemory = 2000
	// learnBelow: only runs that released at most this share of the peak
	// teach the background (Ramp.Noise).
	learnBelow = 0.85
)

// RampConfig shapes how a gate releases its waiters once it opens: an
// allowance of waiters per scheduler run that starts low, grows while the
// upstream keeps answering and is cut when it does not — additive
// increase, multiplicative decrease, with the shape of TCP CUBIC and the
// AWS SDKs' adaptive retry mode, in steps of one run (a round trip):
//
//   - the first run after the gate opens releases Start, or the rate its
//     waiters arrived at when that is higher (Opening);
//   - slow start: while no congestion was met yet, a run whose allowance
//     was used up doubles it;
//   - congestion — more congestion signals since the last adjustment
//     (RATE_LIMITED, a 5xx or a timeout of a released waiter's call) than
//     the upstream's background explains — cuts the allowance by Decrease
//     and remembers the rate that met it (the peak); the next run holds,
//     since its signals still come from waiters released before the cut
//     (one decrease per round trip, as TCP);
//   - afterwards each used-up, quiet run adds a quarter of the way back to
//     the peak, at least Increase (concave: quickly near the rate that
//     met congestion, slowly at it); past the peak it adds a step that
//     starts at a fiftieth of the peak and doubles each quiet run (convex:
//     CUBIC's probe for more, quick when the peak was set too low).
//
// The background: LLM providers answer a trickle of 429s and 5xx at any
// rate, and a ramp that took every one for congestion would sit at its
// minimum, as a TCP window does on a lossy link. The ramp learns the share
// of released waiters that meet congestion (Noise) from the runs below the
// last peak it did not judge congested, starting from a prior of 5%, and cuts only when a
// run's signals exceed what that share explains by three standard
// deviations (of a Poisson count: the signals of one run are more
// dispersed than that, since items fail in runs, and a false cut costs a
// drain many rounds). A run whose waiters ran out before its
// allowance leaves the allowance as it is. The zero value is the defaults
// with slow start; NoSlowStart grows additively from the first run.
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
	// SlowStart is true until the first congestion of this ramp.
	SlowStart bool
	// Peak is the rate that last met congestion (0 before any).
	Peak int
	// Step is the next growth past the peak; it doubles each quiet run.
	Step int
	// Released is how many waiters the last run released.
	Released int
	// Cut is true when the last adjustment was a decrease.
	Cut bool
	// Seen is the gate's congestion count at the last adjustment.
	Seen int64
	// Noise is the upstream's background congestion share: the share of
	// released waiters that met congestion in the runs that did not, over
	// the last NoiseOver of them (at most noiseMemory; the prior counts as
	// priorOver).
	Noise     float64
	NoiseOver int
	// OpenedAt is when a run first found the gate open (zero: the ramp has
	// not started); AdjustedAt when Rate was last set.
	OpenedAt, AdjustedAt time.Time
	// Total counts the waiters released since OpenedAt.
	Total int64
}

// Opening is the first run's allowance of a gate that opens with waiters
// waiters, parked over closed: the rate they arrived at, per interval
// (the load the upstream carried before it closed), when that is more than
// Start; never more than Max. A gate whose waiters trickled in starts at
// Start.
func (c RampConfig) Opening(waiters int, closed, interval time.Duration) int {
	c = c.withDefaults()
	closed = max(closed, interval)
	perRun := int(float64(waiters) * float64(interval) / float64(closed))
	return min(max(perRun, c.Start), c.Max)
}

// Started reports whether the ramp is under way.
func (r Ramp) Started() bool { return !r.OpenedAt.IsZero() }

// Next returns the ramp for a run at now, given the gate's congestion
// count (every signal since the gate's record was created).
func (c RampConfig) Next(r Ramp, now time.Time, congested int64) Ramp {
	c = c.withDefaults()
	if !r.Started() {
		return Ramp{Rate: c.Start, SlowStart: !c.NoSlowStart, OpenedAt: now, AdjustedAt: now, Seen: congested,
			Noise: priorNoise, NoiseOver: priorOver}
	}
	signals := max(congested-r.Seen, 0)
	congestion := !r.Cut && signals > r.background()
	if !r.Cut && !congestion && r.Released > 0 && (r.Peak == 0 || float64(r.Released) <= learnBelow*float64(r.Peak)) {
		// The background is learned from the runs the test accepted (a run
		// that met congestion says nothing about it), as a running share,
		// not an average of shares: a run of 20 and one of 1,000 weigh as
		// many waiters as they released. Only runs well below the peak
		// teach it: one near or past the peak is probing the limit, and its
		// signals may be the limit's first 429s, which learned as
		// background would let the ramp creep past the limit.
		over := min(r.NoiseOver, noiseMemory-min(r.Released, noiseMemory))
		seen := r.Noise*float64(over) + float64(min(signals, int64(r.Released)))
		r.NoiseOver = over + r.Released
		r.Noise = seen / float64(r.NoiseOver)
	}
	cut := false
	switch {
	case r.Cut:
		// Hold for a round trip after a cut.
	case congestion:
		r.Peak, r.Step = r.Rate, 0
		r.Rate = int(math.Floor(float64(r.Rate) * c.Decrease))
		r.SlowStart, cut = false, true
	case r.Released >= r.Rate:
		switch {
		case r.SlowStart:
			r.Rate *= 2
		case r.Peak == 0:
			r.Rate += c.Increase
		case r.Rate < r.Peak:
			r.Rate += max(c.Increase, (r.Peak-r.Rate+approach-1)/approach)
		default:
			r.Step = max(r.Step, c.Increase, r.Peak/probeShare)
			r.Rate += r.Step
			r.Step *= 2
		}
	}
	r.Rate = min(max(r.Rate, c.Min), c.Max)
	r.Released, r.Cut, r.Seen = 0, cut, congested
	r.AdjustedAt = now
	return r
}

// background is the most congestion signals the last run's releases may
// bring without it being congestion: the background share's mean plus three
// standard deviations (a Poisson count).
func (r Ramp) background() int64 {
	mean := r.Noise * float64(r.Released)
	return int64(math.Ceil(mean + 3*math.Sqrt(mean)))
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
