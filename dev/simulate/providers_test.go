package simulate

import (
	"context"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/work"
)

// TestProviderOutageScenario runs scenarios/provider-outage.json: a
// provider-wide outage of the chain's first provider (Bedrock) for 15
// minutes. Triage's chain spends no llm attempt while Bedrock's breaker is
// open, every item completes — through OpenAI during the outage, through
// Bedrock before and after — and Bedrock is called only until its breaker
// opens and by one probe per open window. Naive redrive, which has no
// chain, loses items to the outage.
func TestProviderOutageScenario(t *testing.T) {
	t.Parallel()
	sc, err := Load("../../scenarios/provider-outage.json")
	if err != nil {
		t.Fatal(err)
	}
	std, err := Run(context.Background(), sc, mustPolicy(t, "standard"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if std.Completed != sc.Items || len(std.Anomalies) != 0 {
		t.Fatalf("standard: %d of %d completed, anomalies %v", std.Completed, sc.Items, std.Anomalies)
	}
	if std.LLMAttemptsWhileOpen != 0 {
		t.Errorf("standard spent %d llm attempts while a breaker was open, want 0", std.LLMAttemptsWhileOpen)
	}
	bedrock, openai := std.Providers[failure.Bedrock], std.Providers[failure.OpenAI]
	if bedrock.Served == 0 || openai.Served == 0 || bedrock.Served+openai.Served != sc.Items {
		t.Errorf("served: bedrock %d, openai %d of %d", bedrock.Served, openai.Served, sc.Items)
	}
	// 15 minutes open in 5-minute windows: the failures that open the
	// breaker, then one failed probe per window (the last probe finds
	// Bedrock back).
	if maxFailed := int64(breaker.DefaultThreshold + 3); bedrock.Failures > maxFailed || bedrock.Failures < breaker.DefaultThreshold {
		t.Errorf("bedrock failed %d calls, want %d..%d", bedrock.Failures, breaker.DefaultThreshold, maxFailed)
	}
	if openai.Failures != 0 {
		t.Errorf("openai failed %d calls", openai.Failures)
	}
	naive, err := Run(context.Background(), sc, mustPolicy(t, "naive-redrive"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if naive.RecoverableFailed == 0 {
		t.Errorf("naive redrive lost nothing to a 15-minute outage of its only provider: %+v", naive)
	}
	var table strings.Builder
	if err := WriteTable(&table, []*Result{std, naive}, DefaultPrices); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "llm chain") || !strings.Contains(table.String(), "bedrock") {
		t.Errorf("the table lacks the providers:\n%s", table.String())
	}
}

// TestProviderAnswersClassifyLikeTheClients checks that each provider's
// simulated answers are what its real client makes of the fake's answer:
// the class of every modelled fault, per dialect.
func TestProviderAnswersClassifyLikeTheClients(t *testing.T) {
	t.Parallel()
	c := DefaultStage(work.LLM)
	want := map[fakes.Fault]map[failure.Provider]work.Class{
		fakes.FaultRateLimit:     {failure.OpenAI: work.RateLimited, failure.Anthropic: work.RateLimited, failure.Bedrock: work.RateLimited},
		fakes.FaultQuota:         {failure.OpenAI: work.BudgetExceeded, failure.Anthropic: work.BudgetExceeded, failure.Bedrock: work.RateLimited},
		fakes.FaultUnavailable:   {failure.OpenAI: work.UpstreamUnavailable, failure.Anthropic: work.UpstreamUnavailable, failure.Bedrock: work.UpstreamUnavailable},
		fakes.FaultContentFilter: {failure.OpenAI: work.ContentPolicy, failure.Anthropic: work.ContentPolicy, failure.Bedrock: work.ContentPolicy},
		fakes.FaultContextLength: {failure.OpenAI: work.TokenLimit, failure.Anthropic: work.TokenLimit, failure.Bedrock: work.TokenLimit},
		fakes.FaultInvalidJSON:   {failure.OpenAI: work.ResponseInvalid, failure.Anthropic: work.ResponseInvalid, failure.Bedrock: work.ResponseInvalid},
		fakes.FaultAuth:          {failure.OpenAI: work.AuthDenied, failure.Anthropic: work.AuthDenied, failure.Bedrock: work.AuthDenied},
		fakes.FaultReset:         {failure.OpenAI: work.NetworkTimeout, failure.Anthropic: work.NetworkTimeout, failure.Bedrock: work.NetworkTimeout},
	}
	for _, p := range []failure.Provider{failure.OpenAI, failure.Anthropic, failure.Bedrock} {
		a, err := providerAnswers(p, &c)
		if err != nil {
			t.Fatal(err)
		}
		for f, byProvider := range want {
			if got := failure.Classify(a.byFault[f]).Class; got != byProvider[p] {
				t.Errorf("%s %s: %s, want %s (%v)", p, f, got, byProvider[p], a.byFault[f])
			}
		}
		for _, name := range Faults(work.LLM) {
			if f := fakes.Fault(name); f != fakes.FaultHang && a.byFault[f] == nil {
				t.Errorf("%s has no answer to %s", p, name)
			}
		}
		if failure.Classify(a.timeout).Class != work.NetworkTimeout || failure.Classify(a.deadline).Class != work.NetworkTimeout {
			t.Errorf("%s: transport answers %v, %v", p, a.timeout, a.deadline)
		}
	}
}

func TestChainValidation(t *testing.T) {
	t.Parallel()
	for name, js := range map[string]string{
		"a chain on fetch":            `{"name":"x","items":1,"arrival":{"rate_per_second":1},"stages":{"fetch":{"chain":["openai:m"]}}}`,
		"a bad entry":                 `{"name":"x","items":1,"arrival":{"rate_per_second":1},"stages":{"llm":{"chain":["openai:"]}}}`,
		"a provider window, no chain": `{"name":"x","items":1,"arrival":{"rate_per_second":1},"windows":[{"kind":"outage","stage":"llm","provider":"bedrock","start":"1s","duration":"1s"}]}`,
		"a provider not in the chain": `{"name":"x","items":1,"arrival":{"rate_per_second":1},"stages":{"llm":{"chain":["openai:m"]}},` +
			`"windows":[{"kind":"outage","stage":"llm","provider":"bedrock","start":"1s","duration":"1s"}]}`,
	} {
		if _, err := Parse([]byte(js)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	ok := `{"name":"x","items":1,"arrival":{"rate_per_second":1},"stages":{"llm":{"chain":["bedrock:m","openai:m"]}},` +
		`"windows":[{"kind":"outage","stage":"llm","provider":"bedrock","start":"1s","duration":"10s"},` +
		`{"kind":"outage","stage":"llm","provider":"openai","start":"5s","duration":"10s"}]}`
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("two providers' overlapping outages: %v", err)
	}
}

func mustPolicy(t *testing.T, name string) Policy {
	t.Helper()
	p, err := LookupPolicy(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
