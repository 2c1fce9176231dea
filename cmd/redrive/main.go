// Command redrive is the operator replay function: invoked directly
// (aws lambda invoke) with a replay.Request as its event, it replays the
// selected dead letters from the stage that failed and returns the summary.
// The triage CLI runs the same library itself (triage dlq replay).
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/notice"
)

func main() {
	ctx := context.Background()
	cfg := conf.Must(loadConfig(os.Getenv))
	aws, log := cfg.Process.MustBoot(ctx)
	db := dynamodb.NewFromConfig(aws)
	sq := sqs.NewFromConfig(aws)
	h := &handler{
		Replayer: &replay.Replayer{
			SQS:       sq,
			Items:     &store.Items{DB: db, Table: cfg.ItemsTable, ErrorLogTable: cfg.ErrorLogTable, IndexShards: cfg.IndexShards},
			Index:     &store.ItemIndex{DB: db, Table: cfg.ItemsTable, Shards: cfg.IndexShards},
			Queues:    cfg.Queues,
			Clock:     clock.System{},
			Log:       log,
			DefaultBy: defaultBy,
		},
		Log: log,
	}
	if cfg.NoticeQueueURL != "" {
		h.Replayer.Notices = &notice.Sender{SQS: sq, QueueURL: cfg.NoticeQueueURL}
	}
	lambda.Start(h.Handle)
}
