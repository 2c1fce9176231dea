package simulate

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// smallMix is a few thousand items with the standard mix's kinds of fault, an
// outage and an exhausted quota: small enough for every test run.
const smallMix = `{
  "name": "small-mix", "seed": 11, "items": 3000,
  "arrival": {"pattern": "poisson", "rate_per_second": 10},
  "stages": {
    "fetch": {"mix": {"rates": {"rate_limit": 0.02, "unavailable": 0.02, "reset": 0.01, "not_found": 0.01}}},
    "llm": {"retry_after": "20s", "mix": {"rates": {
      "rate_limit": 0.05, "server_error": 0.02, "hang": 0.005, "invalid_json": 0.03,
      "always:invalid_json": 0.01, "content_policy": 0.01, "context_length": 0.01}}},
    "notify": {"mix": {"rates": {"server_error": 0.02, "rate_limit_slack": 0.02, "channel_not_found": 0.01}}}
  },
  "windows": [
    {"name": "outage", "kind": "outage", "stage": "llm", "start": "60s", "duration": "3m", "faults": {"unavailable": 0.8, "hang": 0.2}},
    {"name": "quota", "kind": "quota", "stage": "llm", "start": "6m", "duration": "1m"}
  ]
}`

// testBundle is the small scenario and a runner of its policies.
type testBundle struct {
	sc *Scenario
}

func setup(t testing.TB) *testBundle {
	t.Helper()
	sc, err := Parse([]byte(smallMix))
	if err != nil {
		t.Fatal(err)
	}
	return &testBundle{sc: sc}
}

func (b *testBundle) run(t testing.TB, policy string, opts Options) *Result {
	t.Helper()
	p, err := LookupPolicy(policy)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), b.sc, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Anomalies) > 0 {
		t.Fatalf("%s: anomalies %v", policy, r.Anomalies)
	}
	if r.Completed+r.DeadLettered+r.Unfinished != r.Items || r.Limit != "" {
		t.Fatalf("%s: %d done + %d dead + %d open != %d items (limit %q)", policy, r.Completed, r.DeadLettered, r.Unfinished, r.Items, r.Limit)
	}
	return r
}

// TestQualitativeTargets holds standard to docs/simulation.md's targets on a small
// scenario, against naive redrive: far fewer wasted calls, no retries of
// permanent classes, every recoverable item completed, every dead letter
// deserved.
func TestQualitativeTargets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	std, naive := b.run(t, "standard", Options{}), b.run(t, "naive-redrive", Options{})
	if naive.WastedCalls == 0 || naive.OutageCalls == 0 || naive.PermanentClassRetries == 0 {
		t.Fatalf("the scenario should make naive redrive waste calls: %+v", naive)
	}
	if float64(std.WastedCalls) > 0.2*float64(naive.WastedCalls) {
		t.Errorf("standard wasted %d calls, naive redrive %d: want far fewer", std.WastedCalls, naive.WastedCalls)
	}
	if std.PermanentClassRetries != 0 {
		t.Errorf("standard retried permanent classes %d times", std.PermanentClassRetries)
	}
	if std.RecoverableFailed != 0 {
		t.Errorf("standard failed %d recoverable items: %v", std.RecoverableFailed, std.RecoverableFailedBy)
	}
	if naive.RecoverableFailed == 0 {
		t.Error("naive redrive completed every recoverable item through an outage and an exhausted quota")
	}
	if std.DLQPrecision == nil || *std.DLQPrecision != 1 {
		t.Errorf("standard DLQ precision %v, want 100%%", std.DLQPrecision)
	}
	if std.Recoverable != naive.Recoverable || std.Unrecoverable == 0 {
		t.Errorf("the policies did not meet the same workload: %d vs %d recoverable", std.Recoverable, naive.Recoverable)
	}
	if std.OutageCalls >= std.Counters["llm/BreakerRejects"] || std.Counters["llm/BreakerOpens"] == 0 {
		t.Errorf("the llm breaker should have opened and refused calls during the outage: %v", std.Counters)
	}
	if std.Usage.LambdaTimeouts != 0 {
		t.Errorf("the runner let %d invocations run past their timeout", std.Usage.LambdaTimeouts)
	}
}

// TestEveryPolicyConserves runs every policy, daily-batch's parked waits
// included, and checks each item ends done or dead-lettered exactly once,
// matching its stored state.
func TestEveryPolicyConserves(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, p := range Policies() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			r := b.run(t, p.Name, Options{})
			if r.Unfinished != 0 {
				t.Fatalf("%d items unfinished", r.Unfinished)
			}
			if p.Name == "daily-batch" && r.Counters["llm/Parked"] == 0 {
				t.Error("daily-batch parked nothing: its 12 h cooldowns exceed SQS visibility")
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, policy := range []string{"standard", "naive-redrive", "sdk-retries"} {
		first, _ := json.Marshal(b.run(t, policy, Options{Terminal: true}))
		second, _ := json.Marshal(b.run(t, policy, Options{Terminal: true}))
		if string(first) != string(second) {
			t.Errorf("%s: two runs of one seed differ", policy)
		}
	}
	b.sc.Seed++
	if err := b.sc.Validate(); err != nil {
		t.Fatal(err)
	}
	other, _ := json.Marshal(b.run(t, "standard", Options{}))
	b.sc.Seed--
	_ = b.sc.Validate()
	same, _ := json.Marshal(b.run(t, "standard", Options{}))
	if string(other) == string(same) {
		t.Error("another seed gave the same run")
	}
}

// TestCrossCheck runs scenarios/cross-check.json under standard and checks
// every item's terminal state against hand-computed expectations: the
// scripts fail an item's n-th call, so the outcome follows from the
// standard profile's attempt limits alone.
func TestCrossCheck(t *testing.T) {
	t.Parallel()
	sc, err := Load("../../scenarios/cross-check.json")
	if err != nil {
		t.Fatal(err)
	}
	dead := func(st work.Stage, c work.Class) Terminal {
		return Terminal{State: StateDeadLetter, Stage: st, Class: c}
	}
	want := map[string]Terminal{
		"item-000004": dead(work.Fetch, work.NotFound),       // always 404: permanent at once
		"item-000005": dead(work.Fetch, work.RateLimited),    // 5 × 429: the 5th attempt exhausts 5
		"item-000007": dead(work.Fetch, work.NotFound),       // always 410
		"item-000012": dead(work.LLM, work.ResponseInvalid),  // invalid JSON forever: 3 attempts
		"item-000013": dead(work.LLM, work.ContentPolicy),    // content_policy_violation
		"item-000014": dead(work.LLM, work.TokenLimit),       // context_length_exceeded
		"item-000017": dead(work.LLM, work.AuthDenied),       // invalid_api_key
		"item-000019": dead(work.LLM, work.ContentPolicy),    // finish_reason content_filter
		"item-000021": dead(work.LLM, work.RateLimited),      // 6 × 429: dead at the 5th
		"item-000023": dead(work.Notify, work.NotFound),      // channel_not_found
		"item-000025": dead(work.Notify, work.AuthDenied),    // 401
		"item-000026": dead(work.Notify, work.SchemaInvalid), // invalid_payload
		"item-000027": dead(work.Notify, work.NotFound),      // channel_is_archived
	}
	// Everything else succeeds within its budget: 2 × 503, 4 × 500 (the 5th
	// attempt succeeds), a reset, 2 × 429, one invalid JSON then success,
	// 500/502/503 then success, invalid JSON then a reset, 2 resets, a 429
	// at each stage, webhook 500/503 and Slack/Discord rate limits.
	p, _ := LookupPolicy("standard")
	r, err := Run(context.Background(), sc, p, Options{Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Terminal) != sc.Items || len(r.Anomalies) > 0 {
		t.Fatalf("%d terminal states for %d items; anomalies %v", len(r.Terminal), sc.Items, r.Anomalies)
	}
	for _, got := range r.Terminal {
		w, ok := want[got.ItemID]
		if !ok {
			w = Terminal{State: StateDone}
		}
		w.ItemID = got.ItemID
		if got != w {
			t.Errorf("%s: got %+v, want %+v", got.ItemID, got, w)
		}
	}
	// The outcome does not depend on timing: predictions' schedules differ,
	// its attempt limits do not.
	p, _ = LookupPolicy("predictions")
	r2, err := Run(context.Background(), sc, p, Options{Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Terminal, r2.Terminal) {
		t.Error("predictions reached other terminal states than standard")
	}
}

func TestLimitsEndTheRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.sc.Horizon = Duration(2 * time.Minute)
	if err := b.sc.Validate(); err != nil {
		t.Fatal(err)
	}
	p, _ := LookupPolicy("standard")
	r, err := Run(context.Background(), b.sc, p, Options{Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Limit, "horizon") || r.Unfinished == 0 || r.RecoverableFailedBy[StateUnfinished] == 0 {
		t.Fatalf("limit %q, %d unfinished: the horizon should end the run", r.Limit, r.Unfinished)
	}
	b.sc.Horizon, b.sc.MaxEvents = 0, 500
	_ = b.sc.Validate()
	r, _ = Run(context.Background(), b.sc, p, Options{})
	if !strings.HasPrefix(r.Limit, "max_events") {
		t.Fatalf("limit %q, want max_events", r.Limit)
	}
}

func TestRunNeedsAValidatedScenario(t *testing.T) {
	t.Parallel()
	p, _ := LookupPolicy("standard")
	if _, err := Run(context.Background(), &Scenario{Name: "x", Items: 1}, p, Options{}); err == nil {
		t.Fatal("Run accepted a scenario that was never validated")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := setup(t)
	if _, err := Run(ctx, b.sc, p, Options{}); err == nil {
		t.Fatal("Run ignored a cancelled context")
	}
}

// TestRunIgnoresTheCallersDeadline: a real deadline on the caller's context
// bounds the run, but must not leak into the virtual clock's invocations.
func TestRunIgnoresTheCallersDeadline(t *testing.T) {
	t.Parallel()
	sc, err := Load("../../scenarios/cross-check.json")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := LookupPolicy("standard")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Run(ctx, sc, p, Options{Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, term := range r.Terminal {
		if term.State == StateDone {
			done++
		}
	}
	if done != 17 {
		t.Fatalf("%d items done under a caller deadline, want the 17 of the scenario", done)
	}
}

// TestWasteTargetWhenNaiveWastesNothing: a scenario in which naive redrive
// wastes no call (a quota, a budget) meets the waste target when standard
// wastes none either, and misses it when standard wastes any.
func TestWasteTargetWhenNaiveWastesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		std  int64
		met  bool
		text string
	}{
		{0, true, "0 / 0 = 0.0%"},
		{3, false, "3 / 0 = +Inf%"},
	} {
		results := []*Result{
			{Policy: Policy{Name: targetPolicy}, WastedCalls: tc.std, Completed: 1},
			{Policy: Policy{Name: baselinePolicy}, Completed: 1},
		}
		targets, err := Targets(results, DefaultPrices)
		if err != nil {
			t.Fatal(err)
		}
		if got := targets[0]; got.Met != tc.met || got.Measured != tc.text {
			t.Errorf("standard wasting %d, naive none: %q met=%v, want %q met=%v", tc.std, got.Measured, got.Met, tc.text, tc.met)
		}
	}
}
