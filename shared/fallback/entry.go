package fallback

import (
	"errors"
	"fmt"
	"strings"

	"github.com/triagehq/triage/shared/failure"
)

// Entry is one link of the chain: a model of a provider. Its String,
// "provider:model", is the key of the model's health, so the same model
// name at two providers has two records.
type Entry struct {
	// Provider is the dialect that serves the model: failure.OpenAI,
	// failure.Azure, failure.Anthropic or failure.Bedrock.
	Provider failure.Provider
	// Model is the model (OpenAI, Anthropic), deployment (Azure) or model
	// id (Bedrock).
	Model string
}

// String returns "provider:model".
func (e Entry) String() string { return string(e.Provider) + ":" + e.Model }

// ParseEntry reads "provider:model". A prefix before the first ':' that is
// not a model provider is part of the model name — Bedrock ids
// ("anthropic.claude-3-5-haiku-20241022-v1:0") and OpenAI fine-tunes
// ("ft:gpt-4o-mini:org::id") contain colons — and such an entry, like one
// without a colon, belongs to def.
func ParseEntry(s string, def failure.Provider) (Entry, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Entry{}, errors.New("empty chain entry")
	}
	if p, model, ok := strings.Cut(s, ":"); ok {
		if prov := failure.Provider(strings.ToLower(p)); prov.IsModel() {
			model = strings.TrimSpace(model)
			if model == "" {
				return Entry{}, fmt.Errorf("chain entry %q names no model", s)
			}
			return Entry{Provider: prov, Model: model}, nil
		}
	}
	if def == "" {
		def = failure.OpenAI
	}
	if !def.IsModel() {
		return Entry{}, fmt.Errorf("default provider %q is not a model provider (want openai, azure, anthropic or bedrock)", def)
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
