package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/notice"
	"github.com/triagehq/triage/shared/objects"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/secret"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
)

// Environment of the notice deliverer, besides the stage's own.
const (
	// envAuditTable is the Audit table, the notices' delivery ledger.
	// Required with NOTICE_QUEUE_URL.
	envAuditTable = "AUDIT_TABLE"
	// envNoticeMaxAttempts bounds a notice's attempts (default
	// notice.DefaultMaxAttempts).
	envNoticeMaxAttempts = "NOTICE_MAX_ATTEMPTS"
	// envNoticeRetryInitial is the wait after a notice's first failed
	// attempt (default notice.DefaultInitialDelay); the local stack
	// shortens it.
	envNoticeRetryInitial = "NOTICE_RETRY_INITIAL"
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
func newRouter(ctx context.Context, log *slog.Logger, getenv func(string) string) (*router, error) {
	rt := &router{log: log}
	r, err := stage.NewRunner(ctx, log, getenv, func(_ context.Context, d stage.Deps) (stage.Work, error) {
		breakers, err := breaker.FromDeps(d, pipeline.Notify)
		if err != nil {
			return nil, err
		}
		secrets := secret.NewResolver(secret.Config{SSM: ssm.NewFromConfig(d.AWS), SecretsManager: secretsmanager.NewFromConfig(d.AWS)})
		n := NewNotifier(NotifierConfig{Secret: secrets.BytesFunc(d.Getenv("WEBHOOK_SECRET_PARAMETER")),
			BlockPrivate: d.Getenv("BLOCK_PRIVATE_NETWORKS") != "false"})
		if rt.notices, err = noticeHandler(d, n); err != nil {
			return nil, err
		}
		// The enrichment is read back before the webhook's breaker is asked.
		d.Items.Bodies.Objects = objects.FromEnv(d.Getenv, d.AWS)
		return stage.WithBodies{
			Inner:  breaker.Guard{Inner: n, Service: breaker.WebhookHost, Breakers: breakers},
			Bodies: d.Items, Parts: []state.Part{state.PartEnrichment},
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

// noticeHandler builds the notice deliverer from the environment; nil when
// NOTICE_QUEUE_URL is empty.
func noticeHandler(d stage.Deps, poster notice.Poster) (*notice.Handler, error) {
	if d.Env.NoticeQueueURL == "" {
		return nil, nil
	}
	table := strings.TrimSpace(d.Getenv(envAuditTable))
	if table == "" {
		return nil, fmt.Errorf("%s is required with NOTICE_QUEUE_URL", envAuditTable)
	}
	h := &notice.Handler{
		Items:  d.Items,
		Ledger: &audit.Trail{DB: dynamodb.NewFromConfig(d.AWS), Table: table},
		Poster: poster, SQS: sqs.NewFromConfig(d.AWS), QueueURL: d.Env.NoticeQueueURL,
		Log: d.Log, Metrics: d.Metrics,
	}
	if v := strings.TrimSpace(d.Getenv(envNoticeMaxAttempts)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q is not a positive integer", envNoticeMaxAttempts, v)
		}
		h.MaxAttempts = n
	}
	if v := strings.TrimSpace(d.Getenv(envNoticeRetryInitial)); v != "" {
		dur, err := time.ParseDuration(v)
		if err != nil || dur <= 0 {
			return nil, fmt.Errorf("%s=%q is not a positive duration", envNoticeRetryInitial, v)
		}
		h.InitialDelay = dur
	}
	return h, nil
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
		r, _ := rt.stage(ctx, rest) // never an error: see stage.Runner.Handle
		resp.BatchItemFailures = append(resp.BatchItemFailures, r.BatchItemFailures...)
	}
	if len(notices.Records) > 0 {
		r, _ := rt.notices.Handle(ctx, notices) // never an error either
		resp.BatchItemFailures = append(resp.BatchItemFailures, r.BatchItemFailures...)
		if rt.afterBatch != nil {
			rt.afterBatch(ctx, rt.log.With("stage", string(pipeline.Notify), "source", "notices"))
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
