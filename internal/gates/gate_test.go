package gates_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
)

func TestNames(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name     gates.Name
		kind     gates.Kind
		key, str string
	}{
		"breaker":   {gates.New(gates.Breaker, "api.openai.com"), gates.Breaker, "api.openai.com", "breaker:api.openai.com"},
		"host:port": {gates.New(gates.Breaker, "127.0.0.1:8080"), gates.Breaker, "127.0.0.1:8080", "breaker:127.0.0.1:8080"},
		"models":    {gates.New(gates.Models, "gpt-4o-mini,gpt-4o"), gates.Models, "gpt-4o-mini,gpt-4o", "models:gpt-4o-mini,gpt-4o"},
		"budget":    {gates.New(gates.Budget, "2026-05-01"), gates.Budget, "2026-05-01", "budget:2026-05-01"},
		"due":       {gates.New(gates.Due, "ignored"), gates.Due, "", "due"},
		"zero":      {"", gates.Due, "", "due"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.name.Kind() != tc.kind || tc.name.Key() != tc.key || tc.name.String() != tc.str {
				t.Fatalf("%q: kind %q key %q string %q", tc.name, tc.name.Kind(), tc.name.Key(), tc.name.String())
			}
			if tc.name.IsDue() != (tc.kind == gates.Due) {
				t.Fatalf("%q: IsDue %v", tc.name, tc.name.IsDue())
			}
			back, err := gates.Parse(tc.name.String())
			if err != nil || back.String() != tc.str {
				t.Fatalf("Parse(%q) = %q, %v", tc.name.String(), back, err)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"breaker", "breaker:", "nope:x", ":x", "due:x", strings.Repeat("x", gates.MaxNameLen+1)} {
		if n, err := gates.Parse(s); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", s, n)
		}
	}
}

func TestWrapAndOf(t *testing.T) {
	t.Parallel()
	wait := &failure.WaitError{Until: time.Unix(0, 0), Reason: "open"}
	g := gates.New(gates.Breaker, "h")
	err := fmt.Errorf("guard: %w", gates.Wrap(wait, g))
	if got, ok := gates.Of(err); !ok || got != g {
		t.Fatalf("Of = %q, %v", got, ok)
	}
	var w *failure.WaitError
	if !errors.As(err, &w) || !errors.Is(err, failure.ErrWaiting) || err.Error() != "guard: "+wait.Error() {
		t.Fatalf("the wrapped wait is not seen through: %v", err)
	}
	inner := gates.New(gates.Quota, "h")
	if got, _ := gates.Of(gates.Wrap(fmt.Errorf("x: %w", gates.Wrap(wait, inner)), g)); got != inner {
		t.Fatalf("Of = %q, want the innermost gate %q", got, inner)
	}
	if _, ok := gates.Of(errors.New("plain")); ok {
		t.Fatal("a plain error names a gate")
	}
	if gates.Wrap(nil, g) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
}

// TestRampSchedule is the ramp as a literal table: each row is one
// scheduler run, with the congestion signals that came in since the last
// adjustment and how many waiters the previous run released.
func TestRampSchedule(t *testing.T) {
	t.Parallel()
	type step struct {
		signals  int64
		released int
		want     int
	}
	tests := map[string]struct {
		cfg   gates.RampConfig
		steps []step
	}{
		"slow start, cut, hold, back to the peak, probe past it": {gates.RampConfig{Start: 10}, []step{
			{0, 0, 10},  // the gate opened: start low
			{0, 10, 20}, // slow start: used up, no congestion: ×2
			{0, 20, 40},
			{0, 40, 80},
			{20, 80, 56}, // congestion: ×0.7, the peak was 80, slow start over
			{5, 56, 56},  // hold a round trip: the signals are from before the cut
			{0, 56, 62},  // a quarter of the way back to the peak
			{0, 62, 67},
			{0, 67, 71},
			{0, 71, 74},
			{0, 74, 76},
			{0, 76, 77},
			{0, 77, 78},
			{0, 78, 79},
			{0, 79, 80},
			{0, 80, 81}, // at the peak: probe by a fiftieth of it, doubling
			{0, 81, 83},
			{0, 83, 87},
			{0, 5, 87},   // the backlog ran short: no growth
			{2, 87, 95},  // two signals: within the background learnt from the quiet runs
			{30, 95, 66}, // a third of the run: congestion, the new peak is 95
		}},
		"additive from the start without slow start": {gates.RampConfig{Start: 10, NoSlowStart: true, Increase: 5}, []step{
			{0, 0, 10}, {0, 10, 15}, {0, 15, 20}, {6, 20, 14}, {0, 14, 14},
			{0, 14, 19}, // Increase is the least step
			{0, 19, 24}, {0, 24, 29},
		}},
		"bounded": {gates.RampConfig{Start: 3, Max: 50}, []step{
			{0, 0, 3}, {0, 3, 6}, {0, 6, 12}, {0, 12, 24}, {0, 24, 48}, {0, 48, 50}, {0, 50, 50},
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var (
				r     gates.Ramp
				count int64
			)
			now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
			for i, s := range tc.steps {
				r.Released = s.released
				count += s.signals
				r = tc.cfg.Next(r, now, count)
				if r.Rate != s.want || !r.AdjustedAt.Equal(now) || r.Released != 0 || r.Seen != count {
					t.Fatalf("run %d: rate %d (adjusted %v, seen %d), want %d", i, r.Rate, r.AdjustedAt, r.Seen, s.want)
				}
				now = now.Add(time.Minute)
			}
		})
	}
}

// TestRampOpening: the first run's allowance is the rate the waiters
// arrived at, per interval, between Start and Max.
func TestRampOpening(t *testing.T) {
	t.Parallel()
	cfg := gates.RampConfig{Start: 20, Max: 1000}
	for _, tc := range []struct {
		waiters int
		closed  time.Duration
		want    int
	}{
		{6000, 10 * time.Minute, 600},   // a busy upstream's 10-minute outage
		{4000, 6 * time.Hour, 20},       // a trickle over a long outage: Start
		{100, 10 * time.Second, 100},    // closed less than an interval: one interval
		{90000, 10 * time.Minute, 1000}, // never past Max
		{0, time.Hour, 20},
	} {
		if got := cfg.Opening(tc.waiters, tc.closed, time.Minute); got != tc.want {
			t.Errorf("Opening(%d, %v) = %d, want %d", tc.waiters, tc.closed, got, tc.want)
		}
	}
}

// TestRampLearnsTheBackground: an upstream that answers a steady share of
// 429s and 5xx at any rate does not pin the ramp at its minimum; the ramp
// learns that share from the runs it accepts and cuts only on congestion
// beyond it.
func TestRampLearnsTheBackground(t *testing.T) {
	t.Parallel()
	var (
		cfg   gates.RampConfig
		r     gates.Ramp
		count int64
	)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	// 5% of every run's releases meet a 429 or a 5xx, whatever the rate.
	for range 60 {
		count += int64(r.Released) / 20
		r = cfg.Next(r, now, count)
		r.Released = r.Rate
		now = now.Add(time.Minute)
	}
	if r.Rate < 200 || r.Noise < 0.02 {
		t.Fatalf("after an hour of 5%% background congestion: rate %d, noise %.3f; want the ramp to have grown past 200", r.Rate, r.Noise)
	}
	// A real overload still cuts: a third of the run met congestion.
	before := r.Rate
	r.Released = r.Rate
	if r = cfg.Next(r, now, count+int64(r.Released/3)); r.Rate >= before {
		t.Fatalf("congestion of a third of the run: rate %d, want a cut from %d", r.Rate, before)
	}
}

// TestRampDoesNotLearnTheLimitAsBackground: an upstream with no background
// congestion and a hard limit answers a few 429s once the releases pass
// it. Those runs near the peak are probing the limit: what they meet must
// not be learned as background, or each approach to the peak would tolerate
// a little more and the ramp would creep past the limit.
func TestRampDoesNotLearnTheLimitAsBackground(t *testing.T) {
	t.Parallel()
	const limit = 60
	var (
		cfg       gates.RampConfig
		r         gates.Ramp
		count     int64
		over, all int
	)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for range 180 {
		// Releases past the limit meet a 429 each, in the run after.
		count += int64(max(r.Released-limit, 0))
		r = cfg.Next(r, now, count)
		r.Released = r.Rate
		over += max(r.Released-limit, 0)
		all += r.Released
		now = now.Add(time.Minute)
	}
	if share := float64(over) / float64(all); share > 0.02 || r.Noise > 0.01 {
		t.Fatalf("three hours against a limit of %d: %.1f%% of releases past it, learned noise %.3f", limit, 100*share, r.Noise)
	}
}
