// Command notify is the notify stage: it posts each item's enrichment to the
// item's webhook, signed and with an idempotency key.
package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
)

func main() {
	stage.Start(func(_ context.Context, d stage.Deps) (stage.Work, error) {
		secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
		return NewNotifier(NotifierConfig{Secret: secrets.BytesFunc(d.Getenv("WEBHOOK_SECRET_PARAMETER"))}), nil
	})
}
