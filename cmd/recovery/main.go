// Command recovery is the model-health recovery function: every 30 minutes
// (EventBridge) it re-enables models auto-disabled at least an hour ago, with
// their failure count set to 2.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/telemetry"
)

func main() {
	ctx := context.Background()
	c := conf.Must(loadConfig(os.Getenv))
	cfg, log := c.process.MustBoot(ctx)
	h := &handler{
		Models:  &health.Dynamo{DB: dynamodb.NewFromConfig(cfg), Table: c.modelsTable},
		Clock:   c.clock,
		Log:     log,
		Metrics: telemetry.NewEMF(os.Stdout, c.process.MetricsNamespace, clock.System{}),
	}
	lambda.Start(h.Handle)
}
