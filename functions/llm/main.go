// Command llm is the llm stage: it asks a chat-completions model for each
// item's enrichment — walking the fallback chain of healthy models, behind
// the provider's shared circuit breaker, charging the daily budget before
// every call — and forwards the item to the notify stage.
package main

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/budget"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/fallback"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/llm"
	"github.com/triagehq/triage/shared/objects"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
)

func main() {
	stage.Start(func(ctx context.Context, d stage.Deps) (stage.Work, error) {
		models, err := fallback.ParseModels(d.Getenv("LLM_MODELS"))
		if err != nil {
			return nil, err
		}
		if d.Getenv("MODELS_TABLE") == "" {
			return nil, errors.New("MODELS_TABLE is required")
		}
		secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
		key, err := secrets.Resolve(ctx, d.Getenv("LLM_API_KEY_PARAMETER"))
		if err != nil {
			return nil, err
		}
		baseURL := d.Getenv("LLM_BASE_URL")
		client, err := llm.New(llm.Config{BaseURL: baseURL, APIKey: key, Provider: failure.Provider(d.Getenv("LLM_PROVIDER"))})
		if err != nil {
			return nil, err
		}
		spend, err := budget.FromEnv(d.Getenv, dynamodb.NewFromConfig(d.AWS))
		if err != nil {
			return nil, err
		}
		breakers, err := breaker.FromDeps(d, pipeline.LLM)
		if err != nil {
			return nil, err
		}
		chain := &fallback.Chain{
			Enricher: &Enricher{LLM: client, Budget: spend}, Models: models, EscalationModel: d.Getenv("LLM_ESCALATION_MODEL"),
			Health: &health.Tracker{Store: &health.Dynamo{DB: dynamodb.NewFromConfig(d.AWS), Table: d.Getenv("MODELS_TABLE")},
				Clock: stage.SystemClock{}, Log: d.Log, Metrics: d.Metrics},
			Clock: stage.SystemClock{}, Log: d.Log, Metrics: d.Metrics,
		}
		// The document is read back before the breaker is asked (a failed
		// read says nothing about the provider); the enrichment goes to the
		// Bodies table or, above the threshold, the bucket.
		d.Items.Bodies.Objects = objects.FromEnv(d.Getenv, d.AWS)
		return stage.WithBodies{
			Inner:  breaker.Guard{Inner: chain, Service: breaker.Fixed(breaker.Host(baseURL)), Breakers: breakers},
			Bodies: d.Items, Parts: []state.Part{state.PartDocument},
		}, nil
	})
}
