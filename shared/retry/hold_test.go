package retry_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/shared/retry"
)

// TestHoldingPark is the park-or-visibility column of the decision table,
// row by row.
func TestHoldingPark(t *testing.T) {
	t.Parallel()
	def := retry.Holding{}
	backstop := retry.Holding{BackstopReceives: 10}
	tests := map[string]struct {
		h        retry.Holding
		delay    time.Duration
		receives int
		counts   bool
		onGate   bool
		want     bool
	}{
		"a short retry is held":                       {h: def, delay: time.Minute, receives: 1, counts: true},
		"a retry at ParkAfter is held":                {h: def, delay: retry.DefaultParkAfter, receives: 1, counts: true},
		"a retry past ParkAfter is parked":            {h: def, delay: retry.DefaultParkAfter + time.Second, receives: 1, counts: true, want: true},
		"past what SQS can hold is parked":            {h: retry.Holding{ParkAfter: 24 * time.Hour}, delay: 13 * time.Hour, receives: 1, counts: true, want: true},
		"a configured ParkAfter":                      {h: retry.Holding{ParkAfter: 10 * time.Second}, delay: 11 * time.Second, receives: 1, counts: true, want: true},
		"a short wait behind a gate is parked":        {h: def, delay: time.Second, receives: 1, onGate: true, want: true},
		"a wait is held on its early receives":        {h: def, delay: time.Second, receives: retry.DefaultParkAfterReceives - 1},
		"a wait received ParkAfterReceives is parked": {h: def, delay: time.Second, receives: retry.DefaultParkAfterReceives, want: true},
		"a retry ignores ParkAfterReceives":           {h: def, delay: time.Second, receives: retry.DefaultParkAfterReceives + 2, counts: true},
		"a retry before the backstop is held":         {h: backstop, delay: time.Second, receives: 8, counts: true},
		"a retry at the backstop's count−1 is parked": {h: backstop, delay: time.Second, receives: 9, counts: true, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.h.Park(tc.delay, tc.receives, tc.counts, tc.onGate); got != tc.want {
				t.Errorf("Park(%s, %d, counts %v, gate %v) = %v, want %v", tc.delay, tc.receives, tc.counts, tc.onGate, got, tc.want)
			}
		})
	}
	if got := (retry.Holding{MaxVisibility: 20 * time.Hour}).Visibility(); got != retry.MaxVisibility {
		t.Errorf("Visibility beyond SQS's limit = %s, want %s", got, retry.MaxVisibility)
	}
	if !def.Parked(retry.DefaultParkAfter+time.Second) || def.Parked(retry.DefaultParkAfter) {
		t.Error("Parked disagrees with ParkAfter")
	}
}

// TestHoldingUnrecorded: an unwritten outcome backs off on the receive
// count, within full jitter's bounds, capped at five minutes.
func TestHoldingUnrecorded(t *testing.T) {
	t.Parallel()
	var h retry.Holding
	for receives, hi := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 20: 5 * time.Minute} {
		if got := h.Unrecorded(receives, 1); got != hi {
			t.Errorf("receive %d, r=1: %s, want %s", receives, got, hi)
		}
		if got := h.Unrecorded(receives, 0); got != 0 {
			t.Errorf("receive %d, r=0: %s, want 0", receives, got)
		}
	}
}
