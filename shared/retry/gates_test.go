package retry_test

import (
	"errors"
	"testing"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/retry"
)

// TestDecideGateWaits holds the waits behind a closed gate to the policy's
// rows: what the gate's provider knows, else ProbeWait, NoModelWait, and
// the floor for a gate closed until a time already past; never an attempt.
func TestDecideGateWaits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	seen := now.Add(-3 * time.Second) // the provider saw it a little earlier
	br := gate.New(gate.Breaker, "api.example")
	tests := map[string]struct {
		closed retry.Closed
		want   time.Time
	}{
		"open until its probe time":    {retry.Closed{Gate: br, State: retry.GateOpen, Until: now.Add(5 * time.Minute), At: seen}, now.Add(5 * time.Minute)},
		"open until a time now past":   {retry.Closed{Gate: br, State: retry.GateOpen, Until: now.Add(-time.Second), At: seen}, now.Add(retry.GateWaitFloor)},
		"probing, the lease ends soon": {retry.Closed{Gate: br, State: retry.GateProbing, Until: seen.Add(4 * time.Second), At: seen}, seen.Add(4 * time.Second)},
		"probing, the lease ends late": {retry.Closed{Gate: br, State: retry.GateProbing, Until: seen.Add(2 * time.Minute), At: seen}, seen.Add(retry.ProbeWait)},
		"probing, no lease known":      {retry.Closed{Gate: br, State: retry.GateProbing, At: seen}, seen.Add(retry.ProbeWait)},
		"probing, seen at now":         {retry.Closed{Gate: br, State: retry.GateProbing}, now.Add(retry.ProbeWait)},
		"no model, a recovery due":     {retry.Closed{Gate: "models:a:b", State: retry.GateNoModel, Until: now.Add(20 * time.Minute), At: seen}, now.Add(20 * time.Minute)},
		"no model, none expected":      {retry.Closed{Gate: "models:a:b", State: retry.GateNoModel, At: seen}, seen.Add(retry.NoModelWait)},
		"draining":                     {retry.Closed{Gate: br, State: retry.GateDraining, Until: now.Add(7 * time.Minute), At: seen}, now.Add(7 * time.Minute)},
		"a plain due time":             {retry.Closed{State: retry.GateDue, Until: now.Add(time.Minute)}, now.Add(time.Minute)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := retry.Standard().Decide(retry.Input{Closed: &tc.closed, Now: now, Attempt: 7})
			w, ok := d.(retry.Wait)
			if !ok || !w.Until.Equal(tc.want) || d.Counts() {
				t.Fatalf("Decide = %#v, want a wait until %v spending no attempt", d, tc.want)
			}
			wantGate := tc.closed.Gate
			if wantGate == "" {
				wantGate = gate.DueName
			}
			if w.Gate != wantGate || w.Why != tc.closed.Why {
				t.Fatalf("wait behind %q for %q, want %q for %q", w.Gate, w.Why, wantGate, tc.closed.Why)
			}
		})
	}
}

// TestClosedOf reads the fact a gate's provider reported through the
// wrapping a Work adds, and reads a plain *failure.WaitError as a due time
// (behind the gate gate.Wrap names, when one does).
func TestClosedOf(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 5, 1, 12, 5, 0, 0, time.UTC)
	br := gate.New(gate.Breaker, "h")
	c := &retry.Closed{Gate: br, State: retry.GateOpen, Until: until, Why: "open"}
	wrapped := failure.WithDetail(c, "models_skipped", "a")
	if !errors.Is(wrapped, failure.ErrWaiting) {
		t.Fatal("a closed gate does not match failure.ErrWaiting")
	}
	if got, ok := retry.ClosedOf(wrapped); !ok || got != *c {
		t.Fatalf("ClosedOf = %+v, %v", got, ok)
	}
	if g, ok := gate.Of(wrapped); !ok || g != br {
		t.Fatalf("gate.Of = %q, %v", g, ok)
	}
	we := gate.Wrap(&failure.WaitError{Until: until, Reason: "cooldown"}, br)
	if got, ok := retry.ClosedOf(we); !ok || got.Gate != br || got.State != retry.GateDue || !got.Until.Equal(until) || got.Why != "cooldown" {
		t.Fatalf("ClosedOf(WaitError) = %+v, %v", got, ok)
	}
	if _, ok := retry.ClosedOf(errors.New("boom")); ok {
		t.Fatal("ClosedOf of a plain failure reported a closed gate")
	}
}
