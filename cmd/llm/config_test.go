package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/upstream/llm"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadChainConfig(t *testing.T) {
	t.Parallel()
	c, err := readChainConfig(env(map[string]string{
		envModels:                         "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0, gpt-4o-mini, anthropic:claude-3-5-haiku-latest",
		envBaseURL:                        "https://gateway.example/v1",
		envAPIKeyParameter:                "/triage/llm-api-key",
		"LLM_ANTHROPIC_API_KEY_PARAMETER": "/triage/anthropic-api-key",
		envEscalation:                     "azure:gpt-4o",
		"LLM_AZURE_BASE_URL":              "https://res.openai.azure.com/openai",
		envBedrockRegion:                  "us-west-2",
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
		"bad default provider":      {envModels: "m", envProvider: "webhook"},
		"http is no model endpoint": {envModels: "m", envProvider: "http"},
		"azure without a base url":  {envModels: "azure:dep"},
		"bad escalation":            {envModels: "m", envEscalation: "openai:"},
		"a provider without models": {envModels: "bedrock:"},
	} {
		if _, err := readChainConfig(env(vars)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Gemini and Vertex AI join the chain by name, with their own base URL
	// and key; an OpenAI-compatible vendor joins as the default provider,
	// named by its own prefix or none, a name triage does not know too.
	c, err := readChainConfig(env(map[string]string{envModels: "gemini:gemini-2.0-flash, vertex:gemini-2.5-pro, groq:llama-3.3-70b, qwen:7b",
		envProvider: "groq", "LLM_GEMINI_API_KEY_PARAMETER": "/triage/gemini-api-key",
		"LLM_VERTEX_BASE_URL": "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.entries); got != "[gemini:gemini-2.0-flash vertex:gemini-2.5-pro groq:llama-3.3-70b groq:qwen:7b]" {
		t.Errorf("entries = %s", got)
	}
	if c.baseURL[failure.Gemini] != llm.DefaultGeminiBaseURL || c.keyParam[failure.Gemini] != "/triage/gemini-api-key" ||
		!strings.HasPrefix(c.baseURL[failure.Vertex], "https://us-central1-") || c.baseURL["groq"] != "https://api.groq.com/openai/v1" {
		t.Errorf("base URLs %v, keys %v", c.baseURL, c.keyParam)
	}
	clients, err := c.clients(context.Background(), aws.Config{}, func(context.Context, string) (string, error) { return "k", nil })
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[failure.Provider]string{failure.Gemini: "*llm.GeminiClient", failure.Vertex: "*llm.GeminiClient", "groq": "*llm.Client"} {
		if got := fmt.Sprintf("%T", clients[p]); got != want || clients[p].(llm.Completer).Provider() != p {
			t.Errorf("client of %s: %s", p, got)
		}
	}
	if c, err := readChainConfig(env(map[string]string{envModels: "m", envProvider: "acme-llm", envBaseURL: "https://llm.acme.example/v1"})); err != nil ||
		c.entries[0].String() != "acme-llm:m" {
		t.Errorf("an OpenAI-compatible endpoint triage does not know: %+v, %v", c, err)
	}
	if _, err := readChainConfig(env(map[string]string{envModels: "m", envProvider: "acme-llm"})); err == nil {
		t.Error("an unknown provider without a base URL: no error")
	}

	// The default provider's legacy variables configure it.
	c, err = readChainConfig(env(map[string]string{envModels: "dep", envProvider: "azure", envBaseURL: "https://r.openai.azure.com/openai"}))
	if err != nil || c.entries[0].String() != "azure:dep" || c.baseURL[failure.Azure] != "https://r.openai.azure.com/openai" {
		t.Errorf("azure default: %+v, %v", c, err)
	}
}

func TestPricesAreKeyedLikeTheChain(t *testing.T) {
	t.Parallel()
	ps, err := prices(env(map[string]string{envPrices: "gpt-4o-mini=0.15/0.60\nBedrock:amazon.nova-lite-v1:0=0.06/0.24 # nova",
		"COST_PER_CALL_USD": "0.002"}), failure.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Default != 2_000 || ps.Models["openai:gpt-4o-mini"].Input != 150_000 || ps.Models["bedrock:amazon.nova-lite-v1:0"].Output != 240_000 {
		t.Errorf("prices = %+v", ps)
	}
	for _, bad := range []string{"gpt-4o-mini=0.15", "gpt-4o-mini=a/b", "x=1/1, openai:x=2/2", "=1/1", "openai:=1/1"} {
		if _, err := prices(env(map[string]string{envPrices: bad}), failure.OpenAI); err == nil || !strings.Contains(err.Error(), envPrices) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

// llmEnv is a complete environment of the llm function, as template.yaml
// gives it, with the defaults left unset.
func llmEnv() map[string]string {
	return map[string]string{"STAGE": "llm", "QUEUE_URL": "https://q/llm", "DLQ_URL": "https://q/llm-dlq", "NEXT_QUEUE_URL": "https://q/notify",
		"ITEMS_TABLE": "items", "ERRORLOG_TABLE": "log", "PARKED_TABLE": "parked", "GATES_TABLE": "gates", "BODIES_TABLE": "bodies",
		"BREAKERS_TABLE": "breakers", "MODELS_TABLE": "models", "BUDGET_TABLE": "b", envModels: "gpt-4o-mini"}
}

// The daily budget: its defaults, a chunk of its own, and what no budget
// can be.
func TestLoadConfigBudget(t *testing.T) {
	t.Parallel()
	load := func(kv map[string]string) (config, error) {
		full := llmEnv()
		maps.Copy(full, kv)
		for k, v := range kv {
			if v == "-" {
				delete(full, k)
			}
		}
		return loadConfig(func(k string) string { return full[k] })
	}
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.spend; d.Cap != 5_000_000 || d.Cost != 3_000 || d.Table != "b" || d.Pocket().Chunk != 60_000 {
		t.Fatalf("defaults: %+v", d)
	}
	c, err = load(map[string]string{"BUDGET_CHUNK_USD": "1.5"})
	if err != nil || c.spend.Pocket().Chunk != 1_500_000 {
		t.Fatalf("a chunk of $1.50: %+v, %v", c.spend, err)
	}
	for name, kv := range map[string]map[string]string{
		"no table":   {"BUDGET_TABLE": "-"},
		"bad cap":    {"DAILY_BUDGET_USD": "five"},
		"zero cost":  {"COST_PER_CALL_USD": "0"},
		"float junk": {"COST_PER_CALL_USD": "3e-3"},
	} {
		if _, err := load(kv); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Every missing variable is named at once.
func TestLoadConfigNamesEveryMissingVariable(t *testing.T) {
	t.Parallel()
	_, err := loadConfig(func(string) string { return "" })
	for _, name := range []string{"STAGE", "QUEUE_URL", "ITEMS_TABLE", "MODELS_TABLE", "BREAKERS_TABLE", "BUDGET_TABLE"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
}
