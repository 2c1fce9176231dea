// Command recovery is the model-health recovery function: every 30 minutes
// (EventBridge) it re-enables models auto-disabled at least an hour ago, with
// their failure count set to 2.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/envconf"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/telemetry"
)

func main() {
	ctx := context.Background()
	c := envconf.Must(loadConfig(os.Getenv))
	cfg, log := c.process.MustBoot(ctx, telemetry.NewLogger(os.Stdout, c.process.LogLevel))
	h := &handler{
		Models:  &health.Dynamo{DB: dynamodb.NewFromConfig(cfg), Table: c.modelsTable},
		Clock:   c.clock,
		Log:     log,
		Metrics: telemetry.NewEMF(os.Stdout, c.process.MetricsNamespace, clock.System{}),
	}
	lambda.Start(h.Handle)
}
