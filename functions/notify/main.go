// Command notify is the notify stage: it posts each item's enrichment to the
// item's webhook, signed and with an idempotency key. Each webhook host has a
// shared circuit breaker.
package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
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
		return breaker.Guard{Inner: n, Service: breaker.WebhookHost, Breakers: breakers}, nil
	})
}
