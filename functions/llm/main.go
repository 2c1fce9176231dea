// Command llm is the llm stage: it asks the fallback chain's models — across
// providers (OpenAI, Azure OpenAI, Anthropic, Bedrock), each provider behind
// its own shared circuit breaker, each model with its shared health,
// charging the daily budget at the model's price — for each item's
// enrichment, and forwards the item to the notify stage.
package main

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/budget"
	"github.com/triagehq/triage/shared/fallback"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
)

func main() {
	stage.Start(build)
}

// build wires the llm stage's Work from the environment (see config.go).
func build(ctx context.Context, d stage.Deps) (stage.Work, error) {
	cfg, err := readChainConfig(d.Getenv)
	if err != nil {
		return nil, err
	}
	if d.Getenv("MODELS_TABLE") == "" {
		return nil, errors.New("MODELS_TABLE is required")
	}
	secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
	clients, err := cfg.clients(ctx, d.AWS, secrets.Resolve)
	if err != nil {
		return nil, err
	}
	spend, err := budget.FromEnv(d.Getenv, dynamodb.NewFromConfig(d.AWS))
	if err != nil {
		return nil, err
	}
	ps, err := prices(d.Getenv, cfg.def)
	if err != nil {
		return nil, err
	}
	breakers, err := breaker.FromDeps(d, pipeline.LLM)
	if err != nil {
		return nil, err
	}
	breakers.Trips = fallback.ProviderTrips
	return &fallback.Chain{
		Enricher: &Enricher{Clients: clients, Budget: spend, Prices: ps, Log: d.Log},
		Entries:  cfg.entries, Escalation: cfg.escalation, Breakers: breakers,
		Health: &health.Tracker{Store: &health.Dynamo{DB: dynamodb.NewFromConfig(d.AWS), Table: d.Getenv("MODELS_TABLE")},
			Clock: stage.SystemClock{}, Log: d.Log, Metrics: d.Metrics},
		Clock: stage.SystemClock{}, Log: d.Log, Metrics: d.Metrics,
	}, nil
}
