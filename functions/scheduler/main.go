// Command scheduler re-enqueues parked waits — those longer than SQS can
// hold a message — when they are due: every minute (EventBridge) it claims
// each due record, sends its envelope to the stage queue and deletes it
// (shared/parked).
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/shared/awsconf"
	"github.com/triagehq/triage/shared/parked"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
	"github.com/triagehq/triage/shared/telemetry"
)

func main() {
	ctx := context.Background()
	log := telemetry.NewLogger(os.Stdout, os.Getenv("LOG_LEVEL")).With("function", os.Getenv("AWS_LAMBDA_FUNCTION_NAME"))
	cfg, err := LoadConfig(os.Getenv)
	if err != nil {
		log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	aws, err := awsconf.Load(ctx, nil)
	if err != nil {
		log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	h := &Handler{
		Scheduler: &parked.Scheduler{
			Store:  &state.Parked{DB: dynamodb.NewFromConfig(aws), Table: cfg.ParkedTable},
			SQS:    sqs.NewFromConfig(aws),
			Queues: cfg.Queues,
			Clock:  stage.SystemClock{},
			Log:    log,
		},
		Log: log,
	}
	lambda.Start(h.Handle)
}
