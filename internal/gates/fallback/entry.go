package fallback

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/triagehq/triage/internal/failure"
)

// Entry is one link of the chain: a model of a provider. Its String,
// "provider:model", is the key of the model's health, so the same model
// name at two providers has two records.
type Entry struct {
	// Provider is the model endpoint that serves the model: one of
	// ChainProviders, or the chain's default provider (any
	// OpenAI-compatible endpoint, LLM_PROVIDER).
	Provider failure.Provider
	// Model is the model (OpenAI, Anthropic, Gemini), deployment (Azure) or
	// model id (Bedrock).
	Model string
}

// String returns "provider:model".
func (e Entry) String() string { return string(e.Provider) + ":" + e.Model }

// ChainProviders are the providers a chain entry may name, one per
// dialect: openai, azure, anthropic, bedrock, gemini, and vertex (Vertex AI
// in Gemini's wire format). Any other model endpoint joins the chain as its
// default provider, whose bare entries are its models.
func ChainProviders() []failure.Provider {
	return []failure.Provider{failure.OpenAI, failure.Azure, failure.Anthropic, failure.Bedrock, failure.Gemini, failure.Vertex}
}

// ModelEndpoint reports whether p can be a chain's default provider: a
// model endpoint by its name, or a name triage does not know (read in the
// OpenAI-compatible dialect, docs/design.md "Dialects"); never a webhook,
// AWS, or plain http.
func ModelEndpoint(p failure.Provider) bool {
	switch p.Role() {
	case failure.RoleModel:
		return true
	case failure.RoleUnknown:
		return p != "" && p != failure.HTTP
	}
	return false
}

// ParseEntry reads "provider:model". A prefix before the first ':' that is
// neither one of ChainProviders nor def is part of the model name — Bedrock
// ids ("anthropic.claude-3-5-haiku-20241022-v1:0"), OpenAI fine-tunes
// ("ft:gpt-4o-mini:org::id") and Ollama tags ("mistral:7b") contain colons
// — and such an entry, like one without a colon, belongs to def.
func ParseEntry(s string, def failure.Provider) (Entry, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Entry{}, errors.New("empty chain entry")
	}
	if def == "" {
		def = failure.OpenAI
	}
	if p, model, ok := strings.Cut(s, ":"); ok {
		prov := failure.Provider(strings.ToLower(strings.TrimSpace(p)))
		if slices.Contains(ChainProviders(), prov) || prov == def {
			model = strings.TrimSpace(model)
			if model == "" {
				return Entry{}, fmt.Errorf("chain entry %q names no model", s)
			}
			return Entry{Provider: prov, Model: model}, nil
		}
	}
	if !ModelEndpoint(def) {
		return Entry{}, fmt.Errorf("default provider %q is not a model endpoint (openai, azure, anthropic, bedrock, gemini, vertex, "+
			"or an OpenAI-compatible one)", def)
	}
	return Entry{Provider: def, Model: s}, nil
}

// MaxEntries bounds a chain (the template's LLMModels parameter allows 20).
const MaxEntries = 20

// ParseChain splits a comma-separated chain (LLM_MODELS) into entries with
// ParseEntry, dropping empty and repeated entries; an empty chain, a bad
// entry or more than MaxEntries is an error.
//
//	bedrock:anthropic.claude-3-5-haiku-20241022-v1:0, openai:gpt-4o-mini
func ParseChain(s string, def failure.Provider) ([]Entry, error) {
	var out []Entry
	seen := map[Entry]bool{}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		e, err := ParseEntry(part, def)
		if err != nil {
			return nil, err
		}
		if seen[e] {
			continue
		}
		seen[e] = true
		out = append(out, e)
	}
	switch {
	case len(out) == 0:
		return nil, errors.New("the model chain is empty")
	case len(out) > MaxEntries:
		return nil, fmt.Errorf("the model chain has %d entries, at most %d", len(out), MaxEntries)
	}
	return out, nil
}

// Providers returns the providers of entries, in chain order, once each.
func Providers(entries []Entry) []failure.Provider {
	var out []failure.Provider
	for _, e := range entries {
		found := false
		for _, p := range out {
			found = found || p == e.Provider
		}
		if !found {
			out = append(out, e.Provider)
		}
	}
	return out
}

// ServicePrefix prefixes a provider's breaker key.
const ServicePrefix = "llm:"

// Service is the key of provider's circuit breaker: "llm:bedrock". One
// breaker per provider, whatever its models and hosts; a ':' keeps it apart
// from the host names fetch and notify key their breakers by.
func Service(p failure.Provider) string { return ServicePrefix + string(p) }
