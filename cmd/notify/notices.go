package main

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/store/objects"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/upstream/secret"
	"github.com/triagehq/triage/internal/work"
)

// router hands each batch to the stage's runner or, for records from the
// notice queue, to the notice deliverer. An event-source mapping sends one
// queue's records per batch; a mixed batch is split all the same.
type router struct {
	stage       func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
	notices     *notice.Handler // nil when notices are off
	noticeQueue string          // the notice queue's name
	stageQueue  string          // the stage queue's name
	afterBatch  func(context.Context, *slog.Logger)
	log         *slog.Logger
}

// newRouter builds the notify stage's runner and, when NOTICE_QUEUE_URL is
// set, the notice deliverer sharing its webhook client.
func newRouter(ctx context.Context, log *slog.Logger, cfg config) (*router, error) {
	rt := &router{log: log}
	r, err := runner.NewRunner(ctx, log, cfg.stage, func(_ context.Context, d runner.Deps) (runner.Work, error) {
		breakers := breaker.ForStage(d.AWS, d.Env.Profile, d.Log, d.Metrics, work.Notify, cfg.breakersTable, cfg.breakerOpenFor)
		secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
		n := newNotifier(notifierConfig{Secret: secrets.BytesFunc(cfg.webhookSecret), BlockPrivate: cfg.blockPrivate})
		rt.notices = cfg.noticeHandler(d, n)
		// The enrichment is read back before the webhook's breaker is asked.
		d.Items.Bodies.Objects = objects.Open(d.Env.BodiesBucket, d.AWS)
		return runner.WithBodies{
			Inner:  breaker.Guard{Inner: n, Service: breaker.WebhookHost, Breakers: breakers},
			Bodies: d.Items, Parts: []store.Part{store.PartEnrichment},
		}, nil
	})
	if err != nil {
		return nil, err
	}
	rt.stage, rt.afterBatch = r.Handle, r.AfterBatch
	rt.stageQueue = queueName(r.QueueURL)
	if rt.notices != nil {
		rt.noticeQueue = queueName(rt.notices.QueueURL)
	}
	return rt, nil
}

// noticeHandler builds the notice deliverer; nil when NOTICE_QUEUE_URL is
// empty.
func (c config) noticeHandler(d runner.Deps, poster notice.Poster) *notice.Handler {
	if c.stage.NoticeQueueURL == "" {
		return nil
	}
	return &notice.Handler{
		Items:  d.Items,
		Ledger: &ledger.Trail{DB: dynamodb.NewFromConfig(d.AWS), Table: c.auditTable},
		Poster: poster, SQS: sqs.NewFromConfig(d.AWS), QueueURL: c.stage.NoticeQueueURL,
		Log: d.Log, Metrics: d.Metrics, MaxAttempts: c.noticeMaxAttempts, InitialDelay: c.noticeRetryInitial,
	}
}

// isNotice reports whether rec is for the notice deliverer: it came from
// the notice queue, or — a record of neither queue, like a sample event
// replayed by hand — its body is a notice.
func (rt *router) isNotice(rec events.SQSMessage) bool {
	switch q := arnQueueName(rec.EventSourceARN); q {
	case rt.noticeQueue:
		return true
	case rt.stageQueue:
		return false
	}
	_, err := notice.Decode(rec.Body)
	return err == nil
}

// Handle routes the batch.
func (rt *router) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	if rt.notices == nil {
		return rt.stage(ctx, ev)
	}
	var notices, rest events.SQSEvent
	for _, rec := range ev.Records {
		if rt.isNotice(rec) {
			notices.Records = append(notices.Records, rec)
		} else {
			rest.Records = append(rest.Records, rec)
		}
	}
	var resp events.SQSEventResponse
	if len(rest.Records) > 0 {
		r, _ := rt.stage(ctx, rest) // never an error: see runner.Runner.Handle
		resp.BatchItemFailures = append(resp.BatchItemFailures, r.BatchItemFailures...)
	}
	if len(notices.Records) > 0 {
		r, _ := rt.notices.Handle(ctx, notices) // never an error either
		resp.BatchItemFailures = append(resp.BatchItemFailures, r.BatchItemFailures...)
		if rt.afterBatch != nil {
			rt.afterBatch(ctx, rt.log.With("stage", string(work.Notify), "source", "notices"))
		}
	}
	return resp, nil
}

// queueName is the last path segment of a queue URL.
func queueName(queueURL string) string {
	u, err := url.Parse(queueURL)
	if err != nil {
		return ""
	}
	p := strings.TrimSuffix(u.Path, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// arnQueueName is the last segment of a queue ARN.
func arnQueueName(arn string) string {
	return arn[strings.LastIndexByte(arn, ':')+1:]
}
