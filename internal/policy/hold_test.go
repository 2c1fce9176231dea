package policy_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/internal/policy"
)

// TestHoldingPark is the park-or-visibility column of the decision table,
// row by row.
func TestHoldingPark(t *testing.T) {
	t.Parallel()
	def := policy.Holding{}
	backstop := policy.Holding{BackstopReceives: 10}
	tests := map[string]struct {
		h        policy.Holding
		delay    time.Duration
		receives int
		counts   bool
		onGate   bool
		want     bool
	}{
		"a short retry is held":                       {h: def, delay: time.Minute, receives: 1, counts: true},
		"a retry at ParkAfter is held":                {h: def, delay: policy.DefaultParkAfter, receives: 1, counts: true},
		"a retry past ParkAfter is parked":            {h: def, delay: policy.DefaultParkAfter + time.Second, receives: 1, counts: true, want: true},
		"past what SQS can hold is parked":            {h: policy.Holding{ParkAfter: 24 * time.Hour}, delay: 13 * time.Hour, receives: 1, counts: true, want: true},
		"a configured ParkAfter":                      {h: policy.Holding{ParkAfter: 10 * time.Second}, delay: 11 * time.Second, receives: 1, counts: true, want: true},
		"a short wait behind a gate is parked":        {h: def, delay: time.Second, receives: 1, onGate: true, want: true},
		"a wait is held on its early receives":        {h: def, delay: time.Second, receives: policy.DefaultParkAfterReceives - 1},
		"a wait received ParkAfterReceives is parked": {h: def, delay: time.Second, receives: policy.DefaultParkAfterReceives, want: true},
		"a retry ignores ParkAfterReceives":           {h: def, delay: time.Second, receives: policy.DefaultParkAfterReceives + 2, counts: true},
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
	if got := (policy.Holding{MaxVisibility: 20 * time.Hour}).Visibility(); got != policy.MaxVisibility {
		t.Errorf("Visibility beyond SQS's limit = %s, want %s", got, policy.MaxVisibility)
	}
	if !def.Parked(policy.DefaultParkAfter+time.Second) || def.Parked(policy.DefaultParkAfter) {
		t.Error("Parked disagrees with ParkAfter")
	}
}

// TestHoldingUnrecorded: an unwritten outcome backs off on the receive
// count, drawn from [base/2, base], capped at five minutes.
func TestHoldingUnrecorded(t *testing.T) {
	t.Parallel()
	var h policy.Holding
	for receives, hi := range map[int]time.Duration{1: 2 * time.Second, 2: 4 * time.Second, 4: 16 * time.Second, 20: 5 * time.Minute} {
		if got := h.Unrecorded(receives, 1); got != hi {
			t.Errorf("receive %d, r=1: %s, want %s", receives, got, hi)
		}
		if got := h.Unrecorded(receives, 0); got != hi/2 {
			t.Errorf("receive %d, r=0: %s, want %s", receives, got, hi/2)
		}
	}
}

// TestUnrecordedSpansTheToleratedStoreOutage: whatever the backstop the
// template allows, the holds of a record whose store stays unreachable
// put its backstop's last delivery at least StoreOutageTolerance after
// its first — with the least jitter at every draw — so a store outage that
// long never lets the backstop move the record; and the stretch is only on
// the delivery before the last, the earlier ones keep the short backoff.
func TestUnrecordedSpansTheToleratedStoreOutage(t *testing.T) {
	t.Parallel()
	for _, backstop := range []int{5, 8, 10, 50, 1000} {
		h := policy.Holding{BackstopReceives: backstop}
		for _, r := range []float64{0, 0.5, 0.999} {
			var span time.Duration
			for rc := 1; rc < backstop; rc++ {
				d := h.Unrecorded(rc, r)
				if rc < backstop-1 && d > 5*time.Minute {
					t.Errorf("backstop %d, receive %d: hold %s, longer than the backoff's cap", backstop, rc, d)
				}
				span += d
			}
			if span < policy.StoreOutageTolerance {
				t.Errorf("backstop %d, r=%g: the %d holds before the last delivery span %s, less than %s", backstop, r, backstop-1, span,
					policy.StoreOutageTolerance)
			}
			if span > policy.StoreOutageTolerance+10*time.Minute && backstop <= 10 {
				t.Errorf("backstop %d, r=%g: the holds span %s, far past the tolerance: the stretch is too long", backstop, r, span)
			}
		}
	}
	// An override (the soak's compressed time) is spanned the same way.
	short := policy.Holding{BackstopReceives: 8, StoreOutageTolerance: 90 * time.Second}
	var span time.Duration
	for rc := 1; rc < 8; rc++ {
		span += short.Unrecorded(rc, 0)
	}
	if span < 90*time.Second || span > 3*time.Minute {
		t.Errorf("a 90 s tolerance: the holds span %s", span)
	}
	// The receive count SQS reports is approximate: a count past the
	// backstop's is held as the backoff says, never longer than SQS allows.
	h := policy.Holding{BackstopReceives: 8, MaxVisibility: time.Minute}
	if got := h.Unrecorded(7, 0); got != time.Minute {
		t.Errorf("the stretch ignores MaxVisibility: %s", got)
	}
	if got := (policy.Holding{BackstopReceives: 8}).Unrecorded(9, 1); got != 5*time.Minute {
		t.Errorf("past the backstop: %s, want the backoff's 5m", got)
	}
}
