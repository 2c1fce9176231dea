// Command llm is the llm stage: it asks the fallback chain's models — across
// providers (OpenAI and any OpenAI-compatible endpoint, Azure OpenAI, Anthropic, Bedrock, Gemini and Vertex AI), each provider behind
// its own shared circuit breaker, each model with its shared health,
// charging the daily budget at the model's price — for each item's
// enrichment, and forwards the item to the notify stage. Every execution of
// an action task is recorded in the audit trail (package ledger).
package main

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/store/objects"
	"github.com/triagehq/triage/internal/upstream/secret"
	"github.com/triagehq/triage/internal/work"
)

func main() {
	cfg := conf.Must(loadConfig(os.Getenv))
	runner.Start(cfg.stage, cfg.build)
}

// build wires the llm stage's Work from the configuration.
func (c config) build(ctx context.Context, d runner.Deps) (runner.Work, error) {
	secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
	clients, err := c.chain.clients(ctx, d.AWS, secrets.Resolve)
	if err != nil {
		return nil, err
	}
	db := dynamodb.NewFromConfig(d.AWS)
	c.spend.DB = db
	breakers := breaker.ForStage(d.AWS, d.Env.Profile, d.Log, d.Metrics, work.LLM, c.breakersTable, c.breakerOpenFor)
	chain := &fallback.Chain{
		Enricher: &enricher{Clients: clients, Budget: c.spend, Prices: c.prices, Log: d.Log},
		Entries:  c.chain.entries, Escalation: c.chain.escalation, Breakers: breakers, Profile: d.Env.Profile,
		Health: &health.Tracker{Store: &health.Dynamo{DB: db, Table: c.modelsTable},
			Clock: clock.System{}, Log: d.Log, Metrics: d.Metrics},
		Clock: clock.System{}, Log: d.Log, Metrics: d.Metrics,
	}
	// The document is read back before the chain asks any provider's
	// breaker (a failed read says nothing about a provider); the enrichment
	// goes to the Bodies table or, above the threshold, the bucket. The
	// audit records the chain's runs: an execution is a run that reached it.
	d.Items.Bodies.Objects = objects.Open(d.Env.BodiesBucket, d.AWS)
	return runner.WithBodies{Inner: c.audited(chain, d), Bodies: d.Items, Parts: []store.Part{store.PartDocument}}, nil
}

// audited records every execution of an action task (package ledger) when
// AUDIT_TABLE is set: one PutItem per action execution, none for other
// kinds.
func (c config) audited(w runner.Work, d runner.Deps) runner.Work {
	if c.auditTable == "" {
		return w
	}
	return &ledger.Work{Inner: w, Trail: &ledger.Trail{DB: dynamodb.NewFromConfig(d.AWS), Table: c.auditTable}, Stage: work.LLM, Log: d.Log}
}
