package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/llm"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadChainConfig(t *testing.T) {
	t.Parallel()
	c, err := readChainConfig(env(map[string]string{
		EnvModels:                         "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0, gpt-4o-mini, anthropic:claude-3-5-haiku-latest",
		EnvBaseURL:                        "https://gateway.example/v1",
		EnvAPIKeyParameter:                "/triage/llm-api-key",
		"LLM_ANTHROPIC_API_KEY_PARAMETER": "/triage/anthropic-api-key",
		EnvEscalation:                     "azure:gpt-4o",
		"LLM_AZURE_BASE_URL":              "https://res.openai.azure.com/openai",
		EnvBedrockRegion:                  "us-west-2",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.entries); got != "[bedrock:anthropic.claude-3-5-haiku-20241022-v1:0 openai:gpt-4o-mini anthropic:claude-3-5-haiku-latest]" {
		t.Errorf("entries = %s", got)
	}
	if c.escalation.String() != "azure:gpt-4o" || fmt.Sprint(c.providers) != "[bedrock openai anthropic azure]" {
		t.Errorf("escalation %s, providers %v", c.escalation, c.providers)
	}
	want := map[failure.Provider][2]string{
		failure.OpenAI:    {"https://gateway.example/v1", "/triage/llm-api-key"},
		failure.Anthropic: {"https://api.anthropic.com", "/triage/anthropic-api-key"},
		failure.Azure:     {"https://res.openai.azure.com/openai", ""},
	}
	for p, w := range want {
		if c.baseURL[p] != w[0] || c.keyParam[p] != w[1] {
			t.Errorf("%s: base %q key %q, want %q %q", p, c.baseURL[p], c.keyParam[p], w[0], w[1])
		}
	}
	if _, ok := c.baseURL[failure.Bedrock]; ok || c.bedrockRegion != "us-west-2" {
		t.Errorf("bedrock: base %v region %q", c.baseURL, c.bedrockRegion)
	}

	var resolved []string
	clients, err := c.clients(context.Background(), aws.Config{Region: "us-east-1"},
		func(_ context.Context, ref string) (string, error) {
			resolved = append(resolved, ref)
			return "key-for-" + ref, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.providers {
		if cl, ok := clients[p].(llm.Completer); !ok || cl.Provider() != p {
			t.Errorf("client of %s: %T", p, clients[p])
		}
	}
	if fmt.Sprint(resolved) != "[/triage/llm-api-key /triage/anthropic-api-key]" {
		t.Errorf("keys resolved: %v (Bedrock signs; Azure here has no key parameter)", resolved)
	}
}

func TestReadChainConfigErrors(t *testing.T) {
	t.Parallel()
	for name, vars := range map[string]map[string]string{
		"no chain":                  {},
		"bad default provider":      {EnvModels: "m", EnvProvider: "webhook"},
		"azure without a base url":  {EnvModels: "azure:dep"},
		"bad escalation":            {EnvModels: "m", EnvEscalation: "openai:"},
		"a provider without models": {EnvModels: "bedrock:"},
	} {
		if _, err := readChainConfig(env(vars)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// The default provider's legacy variables configure it.
	c, err := readChainConfig(env(map[string]string{EnvModels: "dep", EnvProvider: "azure", EnvBaseURL: "https://r.openai.azure.com/openai"}))
	if err != nil || c.entries[0].String() != "azure:dep" || c.baseURL[failure.Azure] != "https://r.openai.azure.com/openai" {
		t.Errorf("azure default: %+v, %v", c, err)
	}
}

func TestPricesAreKeyedLikeTheChain(t *testing.T) {
	t.Parallel()
	ps, err := prices(env(map[string]string{EnvPrices: "gpt-4o-mini=0.15/0.60\nBedrock:amazon.nova-lite-v1:0=0.06/0.24 # nova",
		"COST_PER_CALL_USD": "0.002"}), failure.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Default != 2_000 || ps.Models["openai:gpt-4o-mini"].Input != 150_000 || ps.Models["bedrock:amazon.nova-lite-v1:0"].Output != 240_000 {
		t.Errorf("prices = %+v", ps)
	}
	for _, bad := range []string{"gpt-4o-mini=0.15", "gpt-4o-mini=a/b", "x=1/1, openai:x=2/2", "=1/1", "openai:=1/1"} {
		if _, err := prices(env(map[string]string{EnvPrices: bad}), failure.OpenAI); err == nil || !strings.Contains(err.Error(), EnvPrices) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
