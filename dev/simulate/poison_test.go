package simulate

import (
	"context"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/work"
)

// TestPoisonItemInAQuietHour runs scenarios/poison-quiet.json, the soak's
// seed 9138 shape in the simulator: one item answered 500 on every call,
// all the traffic of one llm instance while it retries, opens the
// provider's breaker and parks behind it. It must be dead-lettered with its
// class, the breaker must open once for it (the first probe goes to another
// waiter, whose success judges it), and nothing else may be lost. Before
// the blame table, the scheduler probed with the oldest waiter — the poison
// item — and the breaker opened twice, the others' p99 two windows long.
func TestPoisonItemInAQuietHour(t *testing.T) {
	t.Parallel()
	sc, err := Load("../../scenarios/poison-quiet.json")
	if err != nil {
		t.Fatal(err)
	}
	without, err := sc.WithoutPoison()
	if err != nil {
		t.Fatal(err)
	}
	if s := without.Stages[work.LLM].Scripts[sc.Poison[0]]; len(s) != 0 || len(sc.Stages[work.LLM].Scripts[sc.Poison[0]]) == 0 {
		t.Fatalf("WithoutPoison left the script (%v) or took it from the original", s)
	}
	std, _ := LookupPolicy("standard")
	with, err := Run(context.Background(), sc, std, Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := Run(context.Background(), without, std, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Poison) != 1 {
		t.Fatalf("poison outcomes %+v", with.Poison)
	}
	o := with.Poison[0]
	if o.State != StateDeadLetter || o.Stage != work.LLM || o.Class != work.UpstreamUnavailable {
		t.Errorf("the poison item: %+v, want dead-lettered UPSTREAM_UNAVAILABLE at llm", o)
	}
	opens, _ := breakerOpens(with)
	baseOpens, _ := breakerOpens(base)
	if opens != baseOpens+1 || o.Probes != 0 {
		t.Errorf("breaker opens %d (%d without), the poison item probed %d times; want one opening for it and no probe of it",
			opens, baseOpens, o.Probes)
	}
	if with.RecoverableFailed != 0 || len(with.Anomalies) != 0 || base.Poison[0].State != StateDone {
		t.Errorf("lost %d, anomalies %v; without its script the item is %s", with.RecoverableFailed, with.Anomalies, base.Poison[0].State)
	}
	for _, tg := range PoisonTargets([]PoisonRun{{Scenario: sc, With: with, Without: base}}) {
		if !tg.Met {
			t.Errorf("target missed: %s: %s", tg.Goal, tg.Measured)
		}
	}
}

// TestPoisonNeedsAScript: a poison item must be an item of the scenario
// with a script.
func TestPoisonNeedsAScript(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"no script":     `{"name":"x","items":3,"arrival":{"pattern":"burst"},"poison":["item-000002"]}`,
		"not an item":   `{"name":"x","items":3,"arrival":{"pattern":"burst"},"stages":{"llm":{"scripts":{"item-000009":["always:auth"]}}},"poison":["item-000009"]}`,
		"another style": `{"name":"x","items":3,"arrival":{"pattern":"burst"},"poison":["poison"]}`,
	} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), "poison") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
