// Command llm is the llm stage: it asks the fallback chain's models — across
// providers (OpenAI, Azure OpenAI, Anthropic, Bedrock), each provider behind
// its own shared circuit breaker, each model with its shared health,
// charging the daily budget at the model's price — for each item's
// enrichment, and forwards the item to the notify stage. Every execution of
// an action task is recorded in the audit trail (package audit).
package main

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/budget"
	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/fallback"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/objects"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
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
	chain := &fallback.Chain{
		Enricher: &Enricher{Clients: clients, Budget: spend, Prices: ps, Log: d.Log},
		Entries:  cfg.entries, Escalation: cfg.escalation, Breakers: breakers, Profile: d.Env.Profile,
		Health: &health.Tracker{Store: &health.Dynamo{DB: dynamodb.NewFromConfig(d.AWS), Table: d.Getenv("MODELS_TABLE")},
			Clock: clock.System{}, Log: d.Log, Metrics: d.Metrics},
		Clock: clock.System{}, Log: d.Log, Metrics: d.Metrics,
	}
	// The document is read back before the chain asks any provider's
	// breaker (a failed read says nothing about a provider); the enrichment
	// goes to the Bodies table or, above the threshold, the bucket. The
	// audit records the chain's runs: an execution is a run that reached it.
	d.Items.Bodies.Objects = objects.FromEnv(d.Getenv, d.AWS)
	return stage.WithBodies{Inner: audited(chain, d), Bodies: d.Items, Parts: []state.Part{state.PartDocument}}, nil
}

// audited records every execution of an action task (package audit) when
// AUDIT_TABLE is set: one PutItem per action execution, none for other
// kinds.
func audited(w stage.Work, d stage.Deps) stage.Work {
	table := strings.TrimSpace(d.Getenv("AUDIT_TABLE"))
	if table == "" {
		return w
	}
	return &audit.Work{Inner: w, Trail: &audit.Trail{DB: dynamodb.NewFromConfig(d.AWS), Table: table}, Stage: pipeline.LLM, Log: d.Log}
}
