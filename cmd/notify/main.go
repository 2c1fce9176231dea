// Command notify is the notify stage: it posts each item's enrichment to the
// item's webhook, signed and with an idempotency key. Each webhook host has a
// shared circuit breaker. It also delivers the owners' failure notices
// (package notice) from the notice queue, its second event source, with the
// same client, signing secret and egress guard.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/telemetry"
)

func main() {
	ctx := context.Background()
	cfg := conf.Must(loadConfig(os.Getenv))
	log := telemetry.NewContextLogger(os.Stdout, cfg.stage.Process.LogLevel)
	r := conf.Must(newRouter(ctx, log, cfg))
	lambda.Start(r.Handle)
}
