package simulate_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/triagehq/triage/dev/simulate"
	"github.com/triagehq/triage/internal/policy"
)

func ExampleRun() {
	sc, err := simulate.Parse([]byte(`{
	  "name": "example", "seed": 1, "items": 5, "arrival": {"pattern": "burst"},
	  "stages": {"llm": {"scripts": {
	    "item-000002": ["always:content_policy"],
	    "item-000003": ["rate_limit", "rate_limit"],
	    "item-000004": ["always:invalid_json"]
	  }}}
	}`))
	if err != nil {
		panic(err)
	}
	// Standard: 5 fetches, 9 llm calls (item 3 waits out two 429s, item 4
	// gets RESPONSE_INVALID's 3 attempts), 3 notifies. Naive redrive calls
	// items 2 and 4 five times each, whatever the class.
	for _, name := range []string{"standard", "naive-redrive"} {
		p, _ := simulate.LookupPolicy(name)
		r, err := simulate.Run(context.Background(), sc, p, simulate.Options{Terminal: true})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d done, %d dead-lettered, %d calls, %d wasted, %d permanent-class retries\n",
			name, r.Completed, r.DeadLettered, r.Calls, r.WastedCalls, r.PermanentClassRetries)
		for _, t := range r.Terminal {
			if t.State == simulate.StateDeadLetter {
				fmt.Printf("  %s dead-lettered at %s: %s\n", t.ItemID, t.Stage, t.Class)
			}
		}
	}
	// Output:
	// standard: 3 done, 2 dead-lettered, 17 calls, 2 wasted, 0 permanent-class retries
	//   item-000002 dead-lettered at llm: CONTENT_POLICY
	//   item-000004 dead-lettered at llm: RESPONSE_INVALID
	// naive-redrive: 3 done, 2 dead-lettered, 23 calls, 8 wasted, 4 permanent-class retries
	//   item-000002 dead-lettered at llm: CONTENT_POLICY
	//   item-000004 dead-lettered at llm: RESPONSE_INVALID
}

func ExampleLookupPolicy() {
	for _, p := range simulate.Policies() {
		fmt.Println(p.Name, p.Kind)
	}
	// Output:
	// standard triage
	// predictions triage
	// daily-batch triage
	// standard-no-breakers triage
	// naive-redrive naive-redrive
	// sdk-retries sdk-retries
}

func ExampleBacktest() {
	log, err := simulate.ReadFailures(strings.NewReader(`
{"item_id":"b","stage":"llm","error_class":"CONTENT_POLICY","occurred_at":"2026-05-01T10:01:00Z","decision":"CONTENT_POLICY is retryable: attempt 1 of 3, retry in 1m0s (fixed 1m0s)"}
{"item_id":"b","stage":"llm","error_class":"CONTENT_POLICY","occurred_at":"2026-05-01T10:02:00Z","decision":"CONTENT_POLICY is retryable: attempt 2 of 3, retry in 1m0s (fixed 1m0s)"}
{"item_id":"b","stage":"llm","error_class":"CONTENT_POLICY","occurred_at":"2026-05-01T10:03:00Z","decision":"CONTENT_POLICY exhausted 3 of 3 attempts"}
{"item_id":"c","stage":"fetch","error_class":"UPSTREAM_UNAVAILABLE","occurred_at":"2026-05-01T10:00:00Z","decision":"UPSTREAM_UNAVAILABLE exhausted 1 of 1 attempts"}`))
	if err != nil {
		panic(err)
	}
	p, _ := policy.Lookup("standard")
	rep := simulate.Backtest(log, p)
	for _, e := range rep.Detail {
		fmt.Printf("%s/%s: %s (%d recorded calls, %d..%d with %s)\n", e.ItemID, e.Stage, e.Change, e.RecordedCalls,
			e.CandidateCalls, e.CandidateCallsMax, rep.Profile)
	}
	fmt.Println("retries saved:", rep.Total.RetriesSaved, "might have completed:", rep.Total.MightComplete)
	// Output:
	// b/llm: dead-lettered earlier (3 recorded calls, 1..1 with standard)
	// c/fetch: retried beyond the dead letter (1 recorded calls, 2..5 with standard)
	// retries saved: 2 might have completed: 1
}
