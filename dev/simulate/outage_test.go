package simulate

import (
	"context"
	"testing"
	"time"
)

// TestLongOutageLosesNothing: the llm provider answers 503 for 6 hours while 300 items arrive before and during
// it (scenarios/outage-6h-300.json), then a 3-day outage with items
// arriving at the same rate throughout. Triage's shipped profiles wait behind the breaker's gate, parked
// (docs/design.md "Waits and parking"): every item done, nothing
// dead-lettered, no message near the queues' backstop, a constant number of
// DynamoDB writes per item whatever the outage's length. Naive redrive
// loses most of them, so the scenario bites.
func TestLongOutageLosesNothing(t *testing.T) {
	sc, err := Load("../../scenarios/outage-6h-300.json")
	if err != nil {
		t.Fatal(err)
	}
	long := *sc
	long.Name = "outage-3d-same-rate"
	long.Windows = append([]Window(nil), sc.Windows...)
	long.Windows[0].Duration = Duration(72 * time.Hour)
	long.Items = int((73 * time.Hour).Seconds() * sc.Arrival.RatePerSecond)
	writes := map[string]float64{}
	for _, s := range []*Scenario{sc, &long} {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"standard", "predictions", "daily-batch", "naive-redrive"} {
			p, err := LookupPolicy(name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), s, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Anomalies) > 0 {
				t.Errorf("%s/%s: anomalies %v", s.Name, name, r.Anomalies)
			}
			t.Logf("%s/%s: %d done, %d dead-lettered (%d by the backstop), %.1f writes per item, max receive count %d",
				s.Name, name, r.Completed, r.DeadLettered, r.BackstopDeadLetters, r.WritesPerItem, r.MaxReceiveCount)
			if name == "naive-redrive" {
				if r.DeadLettered < r.Items/2 {
					t.Errorf("%s/naive-redrive: only %d of %d dead-lettered; the outage no longer bites", s.Name, r.DeadLettered, r.Items)
				}
				continue
			}
			if r.Completed != r.Items || r.DeadLettered != 0 || r.RecoverableFailed != 0 || r.BackstopDeadLetters != 0 {
				t.Errorf("%s/%s: %d of %d done, %d dead-lettered, %d recoverable lost, %d moved by the backstop; want every item done",
					s.Name, name, r.Completed, r.Items, r.DeadLettered, r.RecoverableFailed, r.BackstopDeadLetters)
			}
			if backstop := TriageBackstopReceives; r.MaxReceiveCount > backstop/2 {
				t.Errorf("%s/%s: a message was received %d times; want a waiting item's receive count far below the backstop (%d)",
					s.Name, name, r.MaxReceiveCount, backstop)
			}
			if r.WritesPerItem > 12 {
				t.Errorf("%s/%s: %.1f DynamoDB writes per item, want ≤ 12", s.Name, name, r.WritesPerItem)
			}
			if name == "standard" {
				writes[s.Name] = r.WritesPerItem
			}
		}
	}
	// Park once, release once: three days cost what six hours cost.
	if a, b := writes[sc.Name], writes[long.Name]; b > a+1 {
		t.Errorf("standard: %.1f writes per item over 3 days against %.1f over 6 hours; want the same, whatever the length", b, a)
	}
}
