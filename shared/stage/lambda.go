package stage

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/shared/awsconf"
	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/notice"
	"github.com/triagehq/triage/shared/state"
	"github.com/triagehq/triage/shared/telemetry"
)

// Deps is what a stage's Work may need from the process: its configuration,
// the AWS config (built once, counting requests), a logger, the metrics
// emitter the runner flushes after every batch, and the environment.
type Deps struct {
	Env     Env
	AWS     aws.Config
	Log     *slog.Logger
	Metrics *telemetry.EMF
	Getenv  func(string) string
	// Items is the runner's item store. A stage that reads bodies wraps its
	// Work in WithBodies over it; a stage whose bodies may be in S3 sets
	// Items.Bodies.Objects (objects.FromEnv) before it returns.
	Items *state.Items
}

// Start runs a stage function: it reads Env, builds the AWS clients and the
// stores once, asks build for the stage's Work, and hands Runner.Handle to
// lambda.Start. A configuration error is logged and the process exits 1 before
// serving, which Lambda reports as an init error.
func Start(build func(ctx context.Context, d Deps) (Work, error)) {
	ctx := context.Background()
	log := telemetry.NewContextLogger(os.Stdout, os.Getenv("LOG_LEVEL"))
	r, err := NewRunner(ctx, log, os.Getenv, build)
	if err != nil {
		log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(r.Handle)
}

// NewRunner builds a stage's Runner from the environment.
func NewRunner(ctx context.Context, log *slog.Logger, getenv func(string) string,
	build func(ctx context.Context, d Deps) (Work, error)) (*Runner, error) {
	env, err := LoadEnv(getenv)
	if err != nil {
		return nil, err
	}
	counter := awsconf.NewCounter()
	cfg, err := awsconf.Load(ctx, counter)
	if err != nil {
		return nil, err
	}
	log = log.With("function", os.Getenv("AWS_LAMBDA_FUNCTION_NAME"))
	emf := telemetry.NewEMF(os.Stdout, telemetry.Namespace(getenv), clock.System{})
	db := dynamodb.NewFromConfig(cfg)
	items := &state.Items{DB: db, Table: env.ItemsTable, ParkedTable: env.ParkedTable, Bodies: state.BodyConfig{
		Table: env.BodiesTable, Threshold: env.BodyThreshold, Retention: env.BodyRetention,
	}}
	work, err := build(ctx, Deps{Env: env, AWS: cfg, Log: log, Metrics: emf, Getenv: getenv, Items: items})
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
		Stage:            env.Stage,
		Work:             work,
		Items:            items,
		Gates:            &state.Gates{DB: db, Table: env.GatesTable},
		ErrorLog:         &state.ErrorLog{DB: db, Table: env.ErrorLogTable},
		SQS:              queues,
		Notices:          notices,
		QueueURL:         env.QueueURL,
		DLQURL:           env.DLQURL,
		NextQueueURL:     env.NextQueueURL,
		Profile:          env.Profile,
		Clock:            clock.System{},
		Log:              log,
		Metrics:          emf,
		Concurrency:      env.Concurrency,
		BackstopReceives: env.BackstopReceives,
		AfterBatch: func(_ context.Context, l *slog.Logger) {
			calls := counter.Take()
			l.Info("aws calls", "aws_calls", calls, "aws_calls_total", awsconf.Total(calls, ""))
			if err := emf.Flush(); err != nil {
				l.Error("metrics flush failed", "error", err.Error())
			}
		},
	}, nil
}
