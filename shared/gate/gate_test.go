package gate_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
)

func TestNames(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name     gate.Name
		kind     gate.Kind
		key, str string
	}{
		"breaker":   {gate.New(gate.Breaker, "api.openai.com"), gate.Breaker, "api.openai.com", "breaker:api.openai.com"},
		"host:port": {gate.New(gate.Breaker, "127.0.0.1:8080"), gate.Breaker, "127.0.0.1:8080", "breaker:127.0.0.1:8080"},
		"models":    {gate.New(gate.Models, "gpt-4o-mini,gpt-4o"), gate.Models, "gpt-4o-mini,gpt-4o", "models:gpt-4o-mini,gpt-4o"},
		"budget":    {gate.New(gate.Budget, "2026-05-01"), gate.Budget, "2026-05-01", "budget:2026-05-01"},
		"due":       {gate.New(gate.Due, "ignored"), gate.Due, "", "due"},
		"zero":      {"", gate.Due, "", "due"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.name.Kind() != tc.kind || tc.name.Key() != tc.key || tc.name.String() != tc.str {
				t.Fatalf("%q: kind %q key %q string %q", tc.name, tc.name.Kind(), tc.name.Key(), tc.name.String())
			}
			if tc.name.IsDue() != (tc.kind == gate.Due) {
				t.Fatalf("%q: IsDue %v", tc.name, tc.name.IsDue())
			}
			back, err := gate.Parse(tc.name.String())
			if err != nil || back.String() != tc.str {
				t.Fatalf("Parse(%q) = %q, %v", tc.name.String(), back, err)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"breaker", "breaker:", "nope:x", ":x", "due:x", strings.Repeat("x", gate.MaxNameLen+1)} {
		if n, err := gate.Parse(s); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", s, n)
		}
	}
}

func TestWrapAndOf(t *testing.T) {
	t.Parallel()
	wait := &failure.WaitError{Until: time.Unix(0, 0), Reason: "open"}
	g := gate.New(gate.Breaker, "h")
	err := fmt.Errorf("guard: %w", gate.Wrap(wait, g))
	if got, ok := gate.Of(err); !ok || got != g {
		t.Fatalf("Of = %q, %v", got, ok)
	}
	var w *failure.WaitError
	if !errors.As(err, &w) || !errors.Is(err, failure.ErrWaiting) || err.Error() != "guard: "+wait.Error() {
		t.Fatalf("the wrapped wait is not seen through: %v", err)
	}
	inner := gate.New(gate.Quota, "h")
	if got, _ := gate.Of(gate.Wrap(fmt.Errorf("x: %w", gate.Wrap(wait, inner)), g)); got != inner {
		t.Fatalf("Of = %q, want the innermost gate %q", got, inner)
	}
	if _, ok := gate.Of(errors.New("plain")); ok {
		t.Fatal("a plain error names a gate")
	}
	if gate.Wrap(nil, g) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
}

// TestRampSchedule is the ramp as a literal table: each row is one
// scheduler run, with whether a congestion signal came in since the last
// adjustment and how many waiters the previous run released.
func TestRampSchedule(t *testing.T) {
	t.Parallel()
	type step struct {
		congested bool
		released  int
		want      int
	}
	tests := map[string]struct {
		cfg   gate.RampConfig
		steps []step
	}{
		"slow start, cut, hold, back to the peak, probe past it": {gate.RampConfig{Start: 10}, []step{
			{false, 0, 10},  // the gate opened: start low
			{false, 10, 20}, // slow start: used up, no congestion: ×2
			{false, 20, 40},
			{false, 40, 80},
			{true, 80, 56},  // congestion: ×0.7, the peak was 80, slow start over
			{true, 56, 56},  // hold a round trip: the signal is from before the cut
			{false, 56, 68}, // half the way back to the peak
			{false, 68, 74},
			{false, 74, 77},
			{false, 77, 79},
			{false, 79, 80},
			{false, 80, 81}, // at the peak: probe by a fiftieth of it
			{false, 81, 82},
			{false, 5, 82}, // the backlog ran short: no growth
			{true, 82, 57}, // congestion again: the new peak is 82
		}},
		"additive from the start without slow start": {gate.RampConfig{Start: 10, NoSlowStart: true, Increase: 5}, []step{
			{false, 0, 10}, {false, 10, 15}, {false, 15, 20}, {true, 20, 14}, {false, 14, 14},
			{false, 14, 19}, // Increase is the least step
			{false, 19, 24}, {false, 24, 29},
		}},
		"bounded": {gate.RampConfig{Start: 3, Increase: 100, Min: 2, Max: 50}, []step{
			{false, 0, 3}, {true, 3, 2}, {true, 2, 2}, {true, 2, 2}, {false, 2, 2}, {false, 2, 50}, {false, 50, 50},
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var r gate.Ramp
			now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
			for i, s := range tc.steps {
				r.Released = s.released
				var congested time.Time
				if s.congested {
					congested = now.Add(-time.Second)
				}
				r = tc.cfg.Next(r, now, congested)
				if r.Rate != s.want || !r.AdjustedAt.Equal(now) || r.Released != 0 {
					t.Fatalf("run %d: rate %d (adjusted %v), want %d", i, r.Rate, r.AdjustedAt, s.want)
				}
				now = now.Add(time.Minute)
			}
		})
	}
}

func TestRampIgnoresCongestionBeforeItsLastAdjustment(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var cfg gate.RampConfig
	r := cfg.Next(gate.Ramp{}, t0, time.Time{})
	r.Released = r.Rate
	// A signal older than the last adjustment was already answered.
	if r = cfg.Next(r, t0.Add(time.Minute), t0.Add(-time.Second)); r.Rate != 2*gate.DefaultRampStart {
		t.Fatalf("rate %d after a stale signal, want growth", r.Rate)
	}
}
