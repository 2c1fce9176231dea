package policy_test

import (
	"errors"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/policy"
)

// TestDecideGateWaits holds the waits behind a closed gate to the policy's
// rows: what the gate's provider knows, else ProbeWait, NoModelWait, and
// the floor for a gate closed until a time already past; never an attempt.
func TestDecideGateWaits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	seen := now.Add(-3 * time.Second) // the provider saw it a little earlier
	br := gates.New(gates.Breaker, "api.example")
	tests := map[string]struct {
		closed policy.Closed
		want   time.Time
	}{
		"open until its probe time":    {policy.Closed{Gate: br, State: policy.GateOpen, Until: now.Add(5 * time.Minute), At: seen}, now.Add(5 * time.Minute)},
		"open until a time now past":   {policy.Closed{Gate: br, State: policy.GateOpen, Until: now.Add(-time.Second), At: seen}, now.Add(policy.GateWaitFloor)},
		"probing, the lease ends soon": {policy.Closed{Gate: br, State: policy.GateProbing, Until: seen.Add(4 * time.Second), At: seen}, seen.Add(4 * time.Second)},
		"probing, the lease ends late": {policy.Closed{Gate: br, State: policy.GateProbing, Until: seen.Add(2 * time.Minute), At: seen}, seen.Add(policy.ProbeWait)},
		"probing, no lease known":      {policy.Closed{Gate: br, State: policy.GateProbing, At: seen}, seen.Add(policy.ProbeWait)},
		"probing, seen at now":         {policy.Closed{Gate: br, State: policy.GateProbing}, now.Add(policy.ProbeWait)},
		"no model, a recovery due":     {policy.Closed{Gate: "models:a:b", State: policy.GateNoModel, Until: now.Add(20 * time.Minute), At: seen}, now.Add(20 * time.Minute)},
		"no model, none expected":      {policy.Closed{Gate: "models:a:b", State: policy.GateNoModel, At: seen}, seen.Add(policy.NoModelWait)},
		"draining":                     {policy.Closed{Gate: br, State: policy.GateDraining, Until: now.Add(7 * time.Minute), At: seen}, now.Add(7 * time.Minute)},
		"a plain due time":             {policy.Closed{State: policy.GateDue, Until: now.Add(time.Minute)}, now.Add(time.Minute)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := policy.Standard().Decide(policy.Input{Closed: &tc.closed, Now: now, Attempt: 7})
			w, ok := d.(policy.Wait)
			if !ok || !w.Until.Equal(tc.want) || d.Counts() {
				t.Fatalf("Decide = %#v, want a wait until %v spending no attempt", d, tc.want)
			}
			wantGate := tc.closed.Gate
			if wantGate == "" {
				wantGate = gates.DueName
			}
			if w.Gate != wantGate || w.Why != tc.closed.Why {
				t.Fatalf("wait behind %q for %q, want %q for %q", w.Gate, w.Why, wantGate, tc.closed.Why)
			}
		})
	}
}

// TestClosedOf reads the fact a gate's provider reported through the
// wrapping a Work adds, and reads a plain *failure.WaitError as a due time
// (behind the gate gates.Wrap names, when one does).
func TestClosedOf(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 5, 1, 12, 5, 0, 0, time.UTC)
	br := gates.New(gates.Breaker, "h")
	c := &policy.Closed{Gate: br, State: policy.GateOpen, Until: until, Why: "open"}
	wrapped := failure.WithDetail(c, "models_skipped", "a")
	if !errors.Is(wrapped, failure.ErrWaiting) {
		t.Fatal("a closed gate does not match failure.ErrWaiting")
	}
	if got, ok := policy.ClosedOf(wrapped); !ok || got != *c {
		t.Fatalf("ClosedOf = %+v, %v", got, ok)
	}
	if g, ok := gates.Of(wrapped); !ok || g != br {
		t.Fatalf("gate.Of = %q, %v", g, ok)
	}
	we := gates.Wrap(&failure.WaitError{Until: until, Reason: "cooldown"}, br)
	if got, ok := policy.ClosedOf(we); !ok || got.Gate != br || got.State != policy.GateDue || !got.Until.Equal(until) || got.Why != "cooldown" {
		t.Fatalf("ClosedOf(WaitError) = %+v, %v", got, ok)
	}
	if _, ok := policy.ClosedOf(errors.New("boom")); ok {
		t.Fatal("ClosedOf of a plain failure reported a closed gate")
	}
}
