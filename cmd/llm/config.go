package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/upstream/llm"
)

// config is the llm function's whole environment, read once by loadConfig
// (the README's "Configuration" table lists every variable).
type config struct {
	stage runner.Env
	chain chainConfig
	// prices and spend are LLM_PRICES and the daily budget (BUDGET_TABLE,
	// DAILY_BUDGET_USD, COST_PER_CALL_USD, BUDGET_CHUNK_USD); spend's DB is
	// attached by build.
	prices budget.Prices
	spend  *budget.Daily
	// modelsTable, breakersTable and auditTable are MODELS_TABLE,
	// BREAKERS_TABLE and AUDIT_TABLE (optional: no audit trail).
	modelsTable, breakersTable, auditTable string
	// breakerOpenFor is BREAKER_OPEN_FOR, a test and demo override (0: the
	// breakers' DefaultOpenFor).
	breakerOpenFor time.Duration
}

// loadConfig reads and checks the llm function's environment, reporting
// every missing or invalid variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	r := conf.New(getenv)
	c := config{stage: runner.ReadEnv(r), modelsTable: r.Required("MODELS_TABLE"), breakersTable: r.Required("BREAKERS_TABLE"),
		auditTable: r.String("AUDIT_TABLE"), breakerOpenFor: r.TestOverride("BREAKER_OPEN_FOR")}
	var err error
	c.chain, err = readChainConfig(r.String)
	r.Add(err)
	if err == nil {
		c.prices, err = prices(r.String, c.chain.def)
		r.Add(err)
	}
	usd := func(name, def string) budget.Micros {
		m, err := budget.ParseUSD(cmp.Or(r.String(name), def))
		r.Check(name, err)
		return m
	}
	dailyCap, cost, chunk := usd(envDailyBudgetUSD, budget.DefaultDailyUSD), usd(envCostPerCallUSD, budget.DefaultCallUSD), usd(envBudgetChunkUSD, "0")
	if table := r.Required("BUDGET_TABLE"); table != "" {
		c.spend, err = budget.New(nil, table, dailyCap, cost)
		r.Add(err)
		if c.spend != nil {
			c.spend.Chunk = chunk
		}
	}
	c.stage.Process.Overrides = r.Overrides()
	return c, r.Err("llm")
}

// Environment of the llm function (template.yaml sets every variable).
const (
	envDailyBudgetUSD = "DAILY_BUDGET_USD"
	envCostPerCallUSD = "COST_PER_CALL_USD"
	envBudgetChunkUSD = "BUDGET_CHUNK_USD"
	// envModels is the chain: "provider:model" entries, comma-separated; a
	// bare model belongs to envProvider.
	envModels = "LLM_MODELS"
	// envProvider is the provider of bare entries and of envBaseURL and
	// envAPIKeyParameter (openai by default): one of the chain's providers,
	// or any OpenAI-compatible endpoint (groq, mistral, vllm, a name triage
	// does not know).
	envProvider = "LLM_PROVIDER"
	// envBaseURL and envAPIKeyParameter configure envProvider, unless its
	// own LLM_<PROVIDER>_BASE_URL and LLM_<PROVIDER>_API_KEY_PARAMETER do.
	envBaseURL         = "LLM_BASE_URL"
	envAPIKeyParameter = "LLM_API_KEY_PARAMETER"
	// envEscalation is the escalation entry; empty disables it.
	envEscalation = "LLM_ESCALATION_MODEL"
	// envPrices is the price table (budget.ParsePrices).
	envPrices = "LLM_PRICES"
	// envBedrockRegion is Bedrock's region; empty is the function's.
	envBedrockRegion = "LLM_BEDROCK_REGION"
	// envBedrockEndpoint overrides the Bedrock Runtime endpoint (a VPC
	// endpoint, the local fake); empty is the SDK's.
	envBedrockEndpoint = "LLM_BEDROCK_ENDPOINT"
)

// providerEnv names a provider's own base URL and key variables:
// LLM_OPENAI_BASE_URL, LLM_AZURE_API_KEY_PARAMETER, LLM_ANTHROPIC_BASE_URL….
func providerEnv(p failure.Provider, what string) string {
	return "LLM_" + strings.ToUpper(string(p)) + "_" + what
}

// Default base URLs of the HTTP providers: the dialects' own, Vertex AI's
// express-mode publisher (a project's regional one is set in
// LLM_VERTEX_BASE_URL), and the OpenAI-compatible vendors' documented
// roots.
var defaultBaseURL = map[failure.Provider]string{
	failure.OpenAI:    "https://api.openai.com/v1",
	failure.Anthropic: "https://api.anthropic.com",
	failure.Gemini:    llm.DefaultGeminiBaseURL,
	failure.Vertex:    "https://aiplatform.googleapis.com/v1/publishers/google",
	"groq":            "https://api.groq.com/openai/v1",
	"deepseek":        "https://api.deepseek.com/v1",
	"mistral":         "https://api.mistral.ai/v1",
	"together":        "https://api.together.xyz/v1",
	"fireworks":       "https://api.fireworks.ai/inference/v1",
	"openrouter":      "https://openrouter.ai/api/v1",
	"xai":             "https://api.x.ai/v1",
	"perplexity":      "https://api.perplexity.ai",
	"cerebras":        "https://api.cerebras.ai/v1",
}

// chainConfig is the llm function's model configuration, read from the
// environment.
type chainConfig struct {
	// def is the provider of bare entries.
	def        failure.Provider
	entries    []fallback.Entry
	escalation fallback.Entry
	// providers is every provider of entries and escalation, in chain order.
	providers []failure.Provider
	// baseURL and keyParam per HTTP provider; region and endpoint for
	// Bedrock.
	baseURL         map[failure.Provider]string
	keyParam        map[failure.Provider]string
	bedrockRegion   string
	bedrockEndpoint string
}

// readChainConfig reads the chain and each of its providers' settings.
func readChainConfig(getenv func(string) string) (chainConfig, error) {
	def := failure.Provider(strings.ToLower(strings.TrimSpace(getenv(envProvider))))
	if def == "" {
		def = failure.OpenAI
	}
	if !fallback.ModelEndpoint(def) {
		return chainConfig{}, fmt.Errorf("%s=%q is not a model endpoint (openai, azure, anthropic, bedrock, gemini, vertex, "+
			"or an OpenAI-compatible one such as groq or vllm)", envProvider, def)
	}
	entries, err := fallback.ParseChain(getenv(envModels), def)
	if err != nil {
		return chainConfig{}, fmt.Errorf("%s: %w", envModels, err)
	}
	c := chainConfig{def: def, entries: entries, baseURL: map[failure.Provider]string{}, keyParam: map[failure.Provider]string{},
		bedrockRegion: strings.TrimSpace(getenv(envBedrockRegion)), bedrockEndpoint: strings.TrimSpace(getenv(envBedrockEndpoint))}
	all := entries
	if esc := strings.TrimSpace(getenv(envEscalation)); esc != "" {
		if c.escalation, err = fallback.ParseEntry(esc, def); err != nil {
			return chainConfig{}, fmt.Errorf("%s: %w", envEscalation, err)
		}
		all = append(append([]fallback.Entry(nil), entries...), c.escalation)
	}
	c.providers = fallback.Providers(all)
	for _, p := range c.providers {
		if p.Dialect() == failure.Bedrock {
			continue
		}
		url := strings.TrimSpace(getenv(providerEnv(p, "BASE_URL")))
		key := strings.TrimSpace(getenv(providerEnv(p, "API_KEY_PARAMETER")))
		if p == def {
			if url == "" {
				url = strings.TrimSpace(getenv(envBaseURL))
			}
			if key == "" {
				key = strings.TrimSpace(getenv(envAPIKeyParameter))
			}
		}
		if url == "" {
			url = defaultBaseURL[p]
		}
		if url == "" {
			return chainConfig{}, fmt.Errorf("the chain names %s, and neither %s nor %s (with %s=%s) is set",
				p, providerEnv(p, "BASE_URL"), envBaseURL, envProvider, p)
		}
		c.baseURL[p], c.keyParam[p] = url, key
	}
	return c, nil
}

// clients builds one client per provider, of its dialect: the HTTP
// dialects (OpenAI and the OpenAI-compatible, Azure, Anthropic, Gemini and
// Vertex AI) with the key resolve returns for their parameter (none when it
// is empty: local fakes), Bedrock with awsCfg (the function's role) in its
// region.
func (c chainConfig) clients(ctx context.Context, awsCfg aws.Config, resolve func(context.Context, string) (string, error)) (map[failure.Provider]completer, error) {
	out := map[failure.Provider]completer{}
	for _, p := range c.providers {
		cfg := llm.Config{Provider: p, BaseURL: c.baseURL[p]}
		if p.Dialect() == failure.Bedrock {
			bcfg := awsCfg.Copy()
			if c.bedrockRegion != "" {
				bcfg.Region = c.bedrockRegion
			}
			cfg.AWS, cfg.BaseURL = &bcfg, c.bedrockEndpoint
		} else if ref := c.keyParam[p]; ref != "" {
			key, err := resolve(ctx, ref)
			if err != nil {
				return nil, fmt.Errorf("%s API key: %w", p, err)
			}
			cfg.APIKey = key
		}
		client, err := llm.NewCompleter(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s client: %w", p, err)
		}
		out[p] = client
	}
	return out, nil
}

// prices reads the price table, its keys in the chain's spelling.
func prices(getenv func(string) string, def failure.Provider) (budget.Prices, error) {
	v := strings.TrimSpace(getenv(envCostPerCallUSD))
	if v == "" {
		v = budget.DefaultCallUSD
	}
	perCall, err := budget.ParseUSD(v)
	if err != nil {
		return budget.Prices{}, fmt.Errorf("%s: %w", envCostPerCallUSD, err)
	}
	ps, err := budget.ParsePrices(getenv(envPrices), perCall)
	if err != nil {
		return budget.Prices{}, fmt.Errorf("%s: %w", envPrices, err)
	}
	ps, err = ps.Rekey(func(k string) (string, error) {
		e, err := fallback.ParseEntry(k, def)
		return e.String(), err
	})
	if err != nil {
		return budget.Prices{}, fmt.Errorf("%s: %w", envPrices, err)
	}
	return ps, nil
}
