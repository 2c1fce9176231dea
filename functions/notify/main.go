// Command notify is the notify stage: it posts each item's enrichment to the
// item's webhook, signed and with an idempotency key. Each webhook host has a
// shared circuit breaker.
package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/objects"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
)

func main() {
	stage.Start(func(_ context.Context, d stage.Deps) (stage.Work, error) {
		breakers, err := breaker.FromDeps(d, pipeline.Notify)
		if err != nil {
			return nil, err
		}
		secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
		n := NewNotifier(NotifierConfig{Secret: secrets.BytesFunc(d.Getenv("WEBHOOK_SECRET_PARAMETER")),
			BlockPrivate: d.Getenv("BLOCK_PRIVATE_NETWORKS") != "false"})
		// The enrichment is read back before the webhook's breaker is asked.
		d.Items.Bodies.Objects = objects.FromEnv(d.Getenv, d.AWS)
		return stage.WithBodies{
			Inner:  breaker.Guard{Inner: n, Service: breaker.WebhookHost, Breakers: breakers},
			Bodies: d.Items, Parts: []state.Part{state.PartEnrichment},
		}, nil
	})
}
