package simulate

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/policy"
)

// TestQuotaProbesOncePerWait is the exhausted-quota regression: the llm
// provider answers 429 insufficient_quota for 12 hours while 300 items
// arrive before, during and after it (scenarios/quota-12h-300.json). While
// the quota's gate is closed one probe per wait period reaches the provider
// — the breaker's window, doubling with each failed probe up to the
// profile's ProviderQuotaWait (docs/design.md "Waits and parking") — not
// one per breaker window: at most 50 calls into the exhausted quota where
// a probe every 5 minutes made 128. Nothing is lost, and the quota's return
// is found within one wait period.
func TestQuotaProbesOncePerWait(t *testing.T) {
	sc, err := Load("../../scenarios/quota-12h-300.json")
	if err != nil {
		t.Fatal(err)
	}
	var results []*Result
	for _, name := range []string{"standard", "predictions"} {
		p, err := LookupPolicy(name)
		if err != nil {
			t.Fatal(err)
		}
		prof, err := policy.Lookup(p.Profile)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), sc, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
		if len(r.Anomalies) > 0 {
			t.Errorf("%s: anomalies %v", name, r.Anomalies)
		}
		t.Logf("%s: %d calls into the exhausted quota, %d done, %d dead-lettered, max completion %s",
			name, r.QuotaCalls, r.Completed, r.DeadLettered, time.Duration(r.CompletionMax))
		if r.QuotaCalls > 50 {
			t.Errorf("%s: %d calls into the exhausted quota; want ≤ 50 (one probe per wait period of %s)", name, r.QuotaCalls, prof.ProviderQuotaWait)
		}
		if r.QuotaCalls < 5 {
			t.Errorf("%s: %d calls into the exhausted quota; want a probe at least every %s of the 12 hours", name, r.QuotaCalls, prof.ProviderQuotaWait)
		}
		if r.Completed != r.Items || r.DeadLettered != 0 || r.RecoverableFailed != 0 || r.BackstopDeadLetters != 0 {
			t.Errorf("%s: %d of %d done, %d dead-lettered, %d recoverable lost, %d moved by the backstop; want every item done",
				name, r.Completed, r.Items, r.DeadLettered, r.RecoverableFailed, r.BackstopDeadLetters)
		}
		if r.Drain == nil {
			t.Fatalf("%s: no drain measured", name)
		}
		// The quota's return is found by the first probe of the period it
		// falls in: within one wait period and a scheduler run.
		if found := time.Duration(r.Drain.FirstSuccess); found > prof.ProviderQuotaWait+2*time.Minute {
			t.Errorf("%s: the first success came %s after the quota returned; want within %s", name, found, prof.ProviderQuotaWait+2*time.Minute)
		}
	}
	// The "Long outages" section reports them under the scenario's table.
	var md bytes.Buffer
	writeOutages(&md, Report{Outages: []OutageRun{{Scenario: sc, Results: results}}, Prices: DefaultPrices})
	want := fmt.Sprintf("Calls into the exhausted quota (after the one that found it): standard %d, predictions %d.",
		results[0].QuotaCalls, results[1].QuotaCalls)
	if !strings.Contains(md.String(), want) {
		t.Errorf("the section does not report the quota's calls (%q):\n%s", want, md.String())
	}
}
