package runner

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/conf"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/upstream/notice"
)

// Deps is what a stage's Work may need from the process: its configuration,
// the AWS config (built once, counting requests), a logger and the metrics
// emitter the runner flushes after every batch.
type Deps struct {
	Env     Env
	AWS     aws.Config
	Log     *slog.Logger
	Metrics *telemetry.EMF
	// Items is the runner's item store. A stage that reads bodies wraps its
	// Work in WithBodies over it; a stage whose bodies may be in S3 sets
	// Items.Bodies.Objects (objects.Bucket) before it returns.
	Items *store.Items
}

// Start runs a stage function: from env (read by the function's loader) it
// builds the AWS clients and the stores once, asks build for the stage's
// Work, and hands Runner.Handle to lambda.Start. An error is logged and the
// process exits 1 before serving, which Lambda reports as an init error.
func Start(env Env, build func(ctx context.Context, d Deps) (Work, error)) {
	ctx := context.Background()
	log := telemetry.NewContextLogger(os.Stdout, env.Process.LogLevel)
	r, err := NewRunner(ctx, log, env, build)
	if err != nil {
		conf.Exit(err)
	}
	lambda.Start(r.Handle)
}

// NewRunner builds a stage's Runner from its configuration.
func NewRunner(ctx context.Context, log *slog.Logger, env Env,
	build func(ctx context.Context, d Deps) (Work, error)) (*Runner, error) {
	counter := conf.NewCounter()
	cfg, log, err := env.Process.Boot(ctx, log, env.Stage, counter)
	if err != nil {
		return nil, err
	}
	emf := telemetry.NewEMF(os.Stdout, env.Process.MetricsNamespace, clock.System{})
	db := dynamodb.NewFromConfig(cfg)
	items := &store.Items{DB: db, Table: env.ItemsTable, ParkedTable: env.ParkedTable, IndexShards: env.IndexShards, Bodies: store.BodyConfig{
		Table: env.BodiesTable, Threshold: env.BodyThreshold, Retention: env.BodyRetention,
	}}
	work, err := build(ctx, Deps{Env: env, AWS: cfg, Log: log, Metrics: emf, Items: items})
	if err != nil {
		return nil, fmt.Errorf("build %s work: %w", env.Stage, err)
	}
	if env.BodiesBucket != "" && items.Bodies.Objects == nil {
		return nil, fmt.Errorf("build %s work: BODIES_BUCKET is set but the stage attached no object store", env.Stage)
	}
	queues := sqs.NewFromConfig(cfg)
	var notices Notices
	if env.NoticeQueueURL != "" {
		notices = &notice.Sender{SQS: queues, QueueURL: env.NoticeQueueURL}
	}
	return &Runner{
		Stage:                env.Stage,
		Work:                 work,
		Items:                items,
		Gates:                &store.Gates{DB: db, Table: env.GatesTable},
		ErrorLog:             &store.ErrorLog{DB: db, Table: env.ErrorLogTable},
		SQS:                  queues,
		Notices:              notices,
		QueueURL:             env.QueueURL,
		DLQURL:               env.DLQURL,
		NextQueueURL:         env.NextQueueURL,
		Profile:              env.Profile,
		Clock:                clock.System{},
		Log:                  log,
		Metrics:              emf,
		Concurrency:          env.Concurrency,
		BackstopReceives:     env.BackstopReceives,
		StoreOutageTolerance: env.StoreOutageTolerance,
		AfterBatch: func(_ context.Context, l *slog.Logger) {
			calls := counter.Take()
			l.Info("aws calls", "aws_calls", calls, "aws_calls_total", conf.Total(calls, ""))
			if err := emf.Flush(); err != nil {
				l.Error("metrics flush failed", "error", err.Error())
			}
		},
	}, nil
}
