package simulate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/work"
)

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	sc, err := Parse([]byte(`{"name":"d","items":12,"arrival":{"rate_per_second":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Arrival.Pattern != ArrivalUniform || sc.ItemPrefix != "item-" || sc.DocumentBytes != 5000 ||
		sc.Horizon.D() != 14*24*time.Hour || sc.SchedulerInterval.D() != time.Minute {
		t.Fatalf("defaults not applied: %+v", sc)
	}
	tests := map[work.Stage]struct {
		concurrency      int
		timeout, visible time.Duration
		clientTimeout    time.Duration
	}{
		work.Fetch:  {20, 30 * time.Second, 180 * time.Second, 10 * time.Second},
		work.LLM:    {10, 90 * time.Second, 540 * time.Second, 60 * time.Second},
		work.Notify: {20, 30 * time.Second, 180 * time.Second, 10 * time.Second},
	}
	for st, want := range tests {
		c := sc.Stages[st]
		if c.Concurrency != want.concurrency || c.Timeout.D() != want.timeout || c.Visibility.D() != want.visible ||
			c.ClientTimeout.D() != want.clientTimeout || c.Lanes != 4 || c.BatchSize != 10 {
			t.Errorf("%s defaults = %+v, want template.yaml's", st, c)
		}
	}
	if got := sc.ItemID(7); got != "item-000007" {
		t.Errorf("ItemID(7) = %q", got)
	}
	if got := sc.MixSeed(work.Notify); got != 2 {
		t.Errorf("MixSeed(notify) = %d, want seed+2", got)
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		json string
		want string
	}{
		"no name":             {`{"items":1,"arrival":{"pattern":"burst"}}`, "name is required"},
		"no items":            {`{"name":"x","arrival":{"pattern":"burst"}}`, "items must be positive"},
		"no rate":             {`{"name":"x","items":1}`, "rate_per_second must be positive"},
		"unknown pattern":     {`{"name":"x","items":1,"arrival":{"pattern":"zipf"}}`, "want uniform, poisson or burst"},
		"unknown stage":       {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"stages":{"parse":{}}}`, `unknown stage "parse"`},
		"unmodelled fault":    {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"stages":{"fetch":{"mix":{"rates":{"huge":0.1}}}}}`, "not modelled for fetch"},
		"fault of other fake": {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"stages":{"notify":{"mix":{"rates":{"invalid_json":0.1}}}}}`, "not modelled for notify"},
		"rate over one":       {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"stages":{"llm":{"mix":{"rates":{"rate_limit":1.5}}}}}`, "want [0, 1]"},
		"transient sum":       {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"stages":{"llm":{"mix":{"rates":{"rate_limit":0.6,"reset":0.6}}}}}`, "sum to"},
		"script unknown item": {`{"name":"x","items":3,"arrival":{"pattern":"burst"},"stages":{"llm":{"scripts":{"item-000009":["reset"]}}}}`, "not an item"},
		"permanent not always": {`{"name":"x","items":3,"arrival":{"pattern":"burst"},"stages":{"llm":{"scripts":{"item-000001":["content_policy"]}}}}`,
			"spell it always:content_policy"},
		"visibility below timeout": {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"stages":{"llm":{"timeout":"90s","visibility":"30s"}}}`, "visibility at least the timeout"},
		"window kind":              {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"windows":[{"kind":"flood","stage":"llm","duration":"1m"}]}`, `kind "flood"`},
		"quota off llm":            {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"windows":[{"kind":"quota","stage":"fetch","duration":"1m"}]}`, "only the llm provider"},
		"outage fault":             {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"windows":[{"kind":"outage","stage":"llm","duration":"1m","faults":{"invalid_json":1}}]}`, "an outage answers"},
		"overlap": {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"windows":[{"name":"a","kind":"outage","stage":"llm","start":"1m","duration":"10m"},{"name":"b","kind":"quota","stage":"llm","start":"5m","duration":"1m"}]}`,
			`windows "a" and "b" overlap`},
		"unknown policy": {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"policies":["yolo"]}`, `unknown policy "yolo"`},
		"unknown field":  {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"itmes":3}`, "unknown field"},
		"bad duration":   {`{"name":"x","items":1,"arrival":{"pattern":"burst"},"horizon":"forever"}`, "duration"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestDurationJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]time.Duration{`"10m"`: 10 * time.Minute, `"1.5s"`: 1500 * time.Millisecond, `30`: 30 * time.Second, `0.25`: 250 * time.Millisecond}
	for in, want := range tests {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || d.D() != want {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", in, d.D(), err, want)
		}
	}
	b, _ := json.Marshal(Duration(90 * time.Second))
	if string(b) != `"1m30s"` {
		t.Errorf("Marshal = %s", b)
	}
}

// TestFaultsAreTheFakes checks every modelled fault is one the stage's fake
// serves, so a scenario posts unchanged to the fakes.
func TestFaultsAreTheFakes(t *testing.T) {
	t.Parallel()
	served := map[work.Stage][]fakes.Fault{
		work.Fetch: fakes.ArticleFaults(), work.LLM: fakes.LLMFaults(), work.Notify: fakes.WebhookFaults(),
	}
	for st, list := range served {
		for _, f := range Faults(st) {
			if !slices.Contains(list, fakes.Fault(f)) {
				t.Errorf("%s models %q, which its fake does not serve", st, f)
			}
		}
	}
	if FakeKey(work.Notify, "item-1") != "item-1:notify" || FakeKey(work.LLM, "item-1") != "item-1" {
		t.Error("FakeKey does not match the fakes' keys")
	}
}

func TestShippedScenariosParse(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"standard-mix", "cross-check", "provider-outage", "poison-401", "poison-403", "poison-500",
		"poison-timeout", "poison-quiet", "poison-outage"} {
		if _, err := Load("../../scenarios/" + name + ".json"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestFakePlans(t *testing.T) {
	t.Parallel()
	sc, err := Parse([]byte(`{"name":"x","seed":40,"items":3,"arrival":{"pattern":"burst"},
	  "stages":{"notify":{"scripts":{"item-000002":["server_error"]}},"llm":{"mix":{"rates":{"rate_limit":0.1}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	plans := sc.FakePlans()
	if got := plans[work.Notify].Script.Scripts["item-000002:notify"]; len(got) != 1 || plans[work.Notify].Fake != "webhook" {
		t.Errorf("notify script keyed %v, want the Idempotency-Key", plans[work.Notify].Script.Scripts)
	}
	m := plans[work.LLM].Mix
	if m == nil || m.Seed != 41 || m.Rates[fakes.FaultRateLimit] != 0.1 || plans[work.Fetch].Mix != nil {
		t.Errorf("llm mix %+v, want seed 41 (seed + 1)", m)
	}
	// The posted mix decides what the simulator decides.
	p, _ := sc.Stages[work.LLM].plan(work.LLM, sc.Seed)
	for _, key := range []string{"item-000001", "item-000002", "item-000003"} {
		for call := 1; call <= 3; call++ {
			if got, want := p.Decide(key).Fault, m.Fault(key, call); got != want {
				t.Errorf("%s call %d: simulator %s, fake %s", key, call, got, want)
			}
		}
	}
}
