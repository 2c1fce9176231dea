package policy

import (
	"fmt"
	"math"
	"time"
)

// Backoff is a retry schedule. Base is the jitter-free schedule, Bounds the
// range jitter may move it in, and Delay draws one delay from that range with
// a caller-supplied random number, so schedules are pure and testable.
type Backoff interface {
	// Base returns the jitter-free delay after the attempt-th failure
	// (1-based; values below 1 are treated as 1).
	Base(attempt int) time.Duration
	// Bounds returns the smallest and largest delay Delay can return.
	Bounds(attempt int) (lo, hi time.Duration)
	// Delay returns the delay for attempt given r in [0, 1).
	Delay(attempt int, r float64) time.Duration
	// String describes the schedule, e.g. "exponential 1s×2 ≤1m0s full jitter".
	String() string
}

// JitterKind selects how Exponential spreads its delays.
type JitterKind string

const (
	// NoJitter uses the base schedule as is.
	NoJitter JitterKind = "none"
	// FullJitter draws uniformly from [0, base] (AWS Architecture Blog,
	// "Exponential Backoff And Jitter"): the best spread for a thundering herd.
	FullJitter JitterKind = "full"
	// ProportionalJitter draws uniformly from [base×(1−f), base×(1+f)].
	ProportionalJitter JitterKind = "proportional"
)

// Exponential is Initial × Multiplier^(attempt−1), capped at Max, then jittered.
type Exponential struct {
	// Initial is the base delay after the first failure.
	Initial time.Duration
	// Multiplier is the growth factor per attempt; values below 1 are treated as 1.
	Multiplier float64
	// Max caps the base delay (before proportional jitter). Zero means no cap.
	Max time.Duration
	// Jitter selects the spread; the zero value is NoJitter.
	Jitter JitterKind
	// Fraction is the ± spread for ProportionalJitter, e.g. 0.3 for ±30%.
	Fraction float64
}

// Base returns min(Max, Initial × Multiplier^(attempt−1)).
func (e Exponential) Base(attempt int) time.Duration {
	attempt = max(attempt, 1)
	m := max(e.Multiplier, 1)
	f := float64(e.Initial) * math.Pow(m, float64(attempt-1))
	if e.Max > 0 && f > float64(e.Max) {
		return e.Max
	}
	if f > float64(math.MaxInt64/2) { // no cap and a silly attempt count
		return time.Duration(math.MaxInt64 / 2)
	}
	return time.Duration(f)
}

// Bounds returns [0, base] for full jitter, base×(1±Fraction) for
// proportional jitter, and [base, base] otherwise.
func (e Exponential) Bounds(attempt int) (lo, hi time.Duration) {
	b := e.Base(attempt)
	switch e.Jitter {
	case FullJitter:
		return 0, b
	case ProportionalJitter:
		f := clampFraction(e.Fraction)
		return time.Duration(float64(b) * (1 - f)), time.Duration(float64(b) * (1 + f))
	}
	return b, b
}

// Delay draws from Bounds with r.
func (e Exponential) Delay(attempt int, r float64) time.Duration {
	lo, hi := e.Bounds(attempt)
	return lerp(lo, hi, r)
}

// String describes the schedule.
func (e Exponential) String() string {
	if e.Initial <= 0 {
		return "none: at once"
	}
	s := fmt.Sprintf("exponential %s×%g", e.Initial, max(e.Multiplier, 1))
	if e.Max > 0 {
		s += fmt.Sprintf(" ≤%s", e.Max)
	}
	switch e.Jitter {
	case FullJitter:
		s += " full jitter"
	case ProportionalJitter:
		s += fmt.Sprintf(" ±%g%% jitter", clampFraction(e.Fraction)*100)
	}
	return s
}

// Fixed waits the same delay after every failure.
type Fixed struct {
	// Interval is the wait after each failure.
	Interval time.Duration
}

// Base returns Interval.
func (f Fixed) Base(int) time.Duration { return f.Interval }

// Bounds returns [Interval, Interval].
func (f Fixed) Bounds(int) (lo, hi time.Duration) { return f.Interval, f.Interval }

// Delay returns Interval.
func (f Fixed) Delay(int, float64) time.Duration { return f.Interval }

// String describes the schedule.
func (f Fixed) String() string { return "fixed " + f.Interval.String() }

// Linear is Initial + Step×(attempt−1), capped at Max.
type Linear struct {
	// Initial is the delay after the first failure.
	Initial time.Duration
	// Step is added per further failure.
	Step time.Duration
	// Max caps the delay. Zero means no cap.
	Max time.Duration
}

// Base returns min(Max, Initial + Step×(attempt−1)).
func (l Linear) Base(attempt int) time.Duration {
	attempt = max(attempt, 1)
	d := l.Initial + l.Step*time.Duration(attempt-1)
	if l.Max > 0 && d > l.Max {
		return l.Max
	}
	return d
}

// Bounds returns [Base, Base].
func (l Linear) Bounds(attempt int) (lo, hi time.Duration) {
	b := l.Base(attempt)
	return b, b
}

// Delay returns Base.
func (l Linear) Delay(attempt int, _ float64) time.Duration { return l.Base(attempt) }

// String describes the schedule.
func (l Linear) String() string {
	s := fmt.Sprintf("linear %s+%s", l.Initial, l.Step)
	if l.Max > 0 {
		s += fmt.Sprintf(" ≤%s", l.Max)
	}
	return s
}

func clampFraction(f float64) float64 {
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	return min(f, 1)
}

// lerp maps r in [0,1) onto [lo, hi]; r outside is clamped.
func lerp(lo, hi time.Duration, r float64) time.Duration {
	if math.IsNaN(r) || r < 0 {
		r = 0
	}
	if r > 1 {
		r = 1
	}
	return lo + time.Duration(r*float64(hi-lo))
}
