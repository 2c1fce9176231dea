package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
)

// providerHealth is one model provider's health as `models list` shows it:
// its shared circuit breaker (open while the provider is out for every
// item) and how many of its models are disabled.
type providerHealth struct {
	Provider failure.Provider `json:"provider"`
	// Breaker is the provider's breaker record ("llm:<provider>"); a
	// provider that never failed has a closed one.
	Breaker breaker.Record `json:"breaker"`
	// Models and Disabled count the provider's models with a health record.
	Models   int `json:"models"`
	Disabled int `json:"disabled"`
}

// modelsReport is `models list --json`.
type modelsReport struct {
	// Chain and Escalation are the deployed chain (with --stack), in order.
	Chain      []string `json:"chain,omitempty"`
	Escalation string   `json:"escalation,omitempty"`
	// Models are the health records (a model that never failed has none).
	Models []health.Model `json:"models"`
	// Providers is nil when the breakers table is not known (no
	// --breakers-table, $BREAKERS_TABLE or --stack).
	Providers []providerHealth `json:"providers"`
}

// providerBreakers reads the breaker of every model provider (one GetItem
// each: the breakers table also holds every article and webhook host) and
// counts each provider's models: those of the chain and those with a
// record. A provider of the chain is listed even before anything was
// recorded; another only once its models or breaker have a record. It
// returns nil, nil when the breakers table is not known.
func providerBreakers(ctx context.Context, conn *healthConn, rows []modelRow) ([]providerHealth, error) {
	if conn.breakersTable == "" && conn.stack == "" {
		return nil, nil
	}
	store, err := conn.breakersStore(ctx)
	if err != nil {
		return nil, err
	}
	byProvider := map[failure.Provider]*providerHealth{}
	var out []providerHealth
	// The chain's providers, and the default provider any model names
	// (health keys are "provider:model", whatever the provider).
	providers := fallback.ChainProviders()
	for _, m := range rows {
		if p, _, ok := strings.Cut(m.Name, ":"); ok && !slices.Contains(providers, failure.Provider(p)) {
			providers = append(providers, failure.Provider(p))
		}
	}
	for _, p := range providers {
		rec, err := store.Get(ctx, fallback.Service(p))
		switch {
		case errors.Is(err, breaker.ErrNotFound):
			rec = breaker.Record{Service: fallback.Service(p), State: breaker.Closed}
		case err != nil:
			return nil, fmt.Errorf("read %s's breaker: %w", p, err)
		}
		byProvider[p] = &providerHealth{Provider: p, Breaker: rec}
	}
	inChain := map[failure.Provider]bool{}
	for _, m := range rows {
		p, _, ok := strings.Cut(m.Name, ":")
		ph := byProvider[failure.Provider(p)]
		if !ok || ph == nil {
			continue
		}
		ph.Models++
		if m.Disabled {
			ph.Disabled++
		}
		if m.Place != "" {
			inChain[ph.Provider] = true
		}
	}
	for _, p := range providers {
		ph := byProvider[p]
		// A provider neither in the chain nor ever used has no models
		// and no breaker record: leave it out.
		if inChain[p] || ph.Models > 0 || ph.Breaker.UpdatedAt != (time.Time{}) || ph.Breaker.Opens > 0 {
			out = append(out, *ph)
		}
	}
	return out, nil
}

// providersTable prints each provider's breaker and models.
func providersTable(w io.Writer, ps []providerHealth, now time.Time) error {
	tw := newTable(w, "PROVIDER", "BREAKER", "FAILURES", "OPENS", "OPEN UNTIL", "LAST FAILURE", "LAST ERROR", "MODELS")
	for _, p := range ps {
		r := p.Breaker
		st := string(r.State)
		switch {
		case r.State == breaker.Open && !r.OpenUntil.After(now):
			st += " (probe due)"
		case r.State == breaker.Open:
			st += " (skipped by every item)"
		}
		models := fmt.Sprintf("%d", p.Models)
		if p.Disabled > 0 {
			models += fmt.Sprintf(" (%d disabled)", p.Disabled)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", p.Provider, st, r.ConsecutiveFailures, r.Opens, ago(r.OpenUntil, now),
			ago(r.LastFailureAt, now), orDash(string(r.LastErrorType)), models)
	}
	return tw.Flush()
}
