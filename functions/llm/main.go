// Command llm is the llm stage: it asks a chat-completions model for each
// item's enrichment and forwards the item to the notify stage.
package main

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/llm"
	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
)

func main() {
	stage.Start(func(ctx context.Context, d stage.Deps) (stage.Work, error) {
		models := strings.Split(d.Getenv("LLM_MODELS"), ",")
		if models[0] == "" {
			return nil, errors.New("LLM_MODELS is required")
		}
		secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
		key, err := secrets.Resolve(ctx, d.Getenv("LLM_API_KEY_PARAMETER"))
		if err != nil {
			return nil, err
		}
		client, err := llm.New(llm.Config{
			BaseURL:  d.Getenv("LLM_BASE_URL"),
			APIKey:   key,
			Provider: failure.Provider(d.Getenv("LLM_PROVIDER")),
		})
		if err != nil {
			return nil, err
		}
		return &Enricher{LLM: client, Model: strings.TrimSpace(models[0])}, nil
	})
}
