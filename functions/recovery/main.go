// Command recovery is the model-health recovery function: every 30 minutes
// (EventBridge) it re-enables models auto-disabled at least an hour ago, with
// their failure count set to 2.
package main

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/shared/awsconf"
	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/telemetry"
)

func main() {
	ctx := context.Background()
	log := telemetry.NewLogger(os.Stdout, os.Getenv("LOG_LEVEL")).With("function", os.Getenv("AWS_LAMBDA_FUNCTION_NAME"))
	table := strings.TrimSpace(os.Getenv("MODELS_TABLE"))
	if table == "" {
		log.Error("init failed", "error", "MODELS_TABLE is required")
		os.Exit(1)
	}
	offset, err := ClockFromEnv(os.Getenv)
	if err != nil {
		log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	if offset != 0 {
		log.Warn("clock offset set: recovery runs ahead of the wall clock (demo only)", "offset", time.Duration(offset).String())
	}
	cfg, err := awsconf.Load(ctx, nil)
	if err != nil {
		log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	h := &Handler{
		Models:  &health.Dynamo{DB: dynamodb.NewFromConfig(cfg), Table: table},
		Clock:   offset,
		Log:     log,
		Metrics: telemetry.NewEMF(os.Stdout, telemetry.Namespace(os.Getenv), clock.System{}),
	}
	lambda.Start(h.Handle)
}
