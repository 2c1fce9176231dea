package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

func failedNotice() notice.Notice {
	return notice.ForFailed(store.Item{ID: "task-1", Kind: store.KindAction, CorrelationID: "corr-1"},
		store.LastError{Component: work.LLM, ErrorClass: work.ActionFailed, FailedAt: fixedNow.Add(-time.Minute),
			Error: "ACTION_FAILED: action reported failed: ticket locked", RetryCount: 3, MaxRetries: 3, Retryable: true}, "dl-1")
}

// A notice goes out signed like a delivery, with its own event type and
// idempotency key, and its signing time as sent_at.
func TestPostNotice(t *testing.T) {
	t.Parallel()
	b := setup(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) })
	status, err := b.n.PostNotice(context.Background(), b.item().WebhookURL, failedNotice())
	if err != nil || status != http.StatusAccepted {
		t.Fatalf("PostNotice = %d, %v", status, err)
	}
	got := b.got[0]
	h := got.header
	if h.Get(headerIdempotencyKey) != "task-1:item.failed:0" || h.Get(headerEvent) != "item.failed" ||
		h.Get(headerItemID) != "task-1" || h.Get(headerCorrelationID) != "corr-1" {
		t.Fatalf("headers %v", h)
	}
	if want := sign(signingSecret, fixedNow.Unix(), got.body); h.Get(headerSignature) != want || h.Get(headerTimestamp) != strconv.FormatInt(fixedNow.Unix(), 10) {
		t.Fatalf("signature %q, want %q", h.Get(headerSignature), want)
	}
	var n notice.Notice
	if err := json.Unmarshal(got.body, &n); err != nil {
		t.Fatal(err)
	}
	if !n.SentAt.Equal(fixedNow) || n.Event != notice.Failed || n.Class != work.ActionFailed || n.Attempt != 3 ||
		n.Reason != "the model reported that the action failed: ticket locked" || n.DeadLetterID != "dl-1" {
		t.Fatalf("body %+v", n)
	}
	if strings.Contains(string(got.body), webhookToken) || strings.Contains(string(got.body), "http") {
		t.Fatalf("the body names a URL: %s", got.body)
	}
}

// A refusal classifies like a delivery's, and never names the URL.
func TestPostNoticeRefusals(t *testing.T) {
	t.Parallel()
	for status, class := range map[int]work.Class{404: work.NotFound, 503: work.UpstreamUnavailable, 429: work.RateLimited} {
		b := setup(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
		got, err := b.n.PostNotice(context.Background(), b.item().WebhookURL, failedNotice())
		if c := failure.Classify(err); c.Class != class || got != status {
			t.Errorf("HTTP %d: %d, %v (%s), want %s", status, got, err, c.Class, class)
		}
		if strings.Contains(err.Error(), webhookToken) || strings.Contains(deadText(err), webhookToken) {
			t.Errorf("HTTP %d: the error names the URL: %v", status, err)
		}
	}
	b := setup(t, nil)
	if _, err := b.n.PostNotice(context.Background(), "ftp://x/y", failedNotice()); failure.Classify(err).Class != work.SchemaInvalid {
		t.Errorf("a bad URL: %v", err)
	}
}

func deadText(err error) string {
	var parts []string
	for k, v := range failure.Details(err) {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// The router sends the notice queue's records to the deliverer and every
// other record to the stage; a mixed batch is split and the kept records of
// both come back.
func TestRouterSplitsByQueue(t *testing.T) {
	t.Parallel()
	const noticeARN = "arn:aws:sqs:us-east-1:123456789012:triage-NoticeQueue-ABC"
	var stageGot []string
	b := setup(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	items := store.NewMemory()
	items.Put(store.Item{ID: "task-1", Kind: store.KindAction, WebhookURL: b.item().WebhookURL})
	q := runnertest.NewQueues()
	rt := &router{
		stage: func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			var r events.SQSEventResponse
			for _, rec := range ev.Records {
				stageGot = append(stageGot, rec.MessageId)
				r.BatchItemFailures = append(r.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
			}
			return r, nil
		},
		notices: &notice.Handler{Items: items, Ledger: ledger.NewMemory(), Poster: b.n, SQS: q,
			QueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/triage-NoticeQueue-ABC", Clock: clock.NewStub(fixedNow), Rand: func() float64 { return 0.5 }},
		log: testLog(),
	}
	rt.noticeQueue = queueName(rt.notices.QueueURL)
	body, _ := failedNotice().Encode()
	resp, err := rt.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "env", EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:triage-NotifyQueue-XYZ", Body: "{}"},
		{MessageId: "ntc", EventSourceARN: noticeARN, ReceiptHandle: "rh", Body: body,
			Attributes: map[string]string{"ApproximateReceiveCount": "1"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(stageGot) != 1 || stageGot[0] != "env" {
		t.Fatalf("the stage got %v", stageGot)
	}
	if b.calls.Load() != 1 || len(resp.BatchItemFailures) != 2 {
		t.Fatalf("%d posts, kept %v: the failed notice and the stage's record should both be kept", b.calls.Load(), resp.BatchItemFailures)
	}
	if v, ok := q.Visibility("rh"); !ok || v != 30 {
		t.Fatalf("notice visibility %d, %v", v, ok)
	}
}

func TestNoticeHandlerConfig(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		env     map[string]string
		wantErr string
	}{
		"off":               {map[string]string{}, ""},
		"no signing secret": {map[string]string{"WEBHOOK_SECRET_PARAMETER": ""}, "WEBHOOK_SECRET_PARAMETER is required"},
		"needs the ledger":  {map[string]string{"NOTICE_QUEUE_URL": "https://q/n"}, "AUDIT_TABLE is required"},
		"bad attempts":      {map[string]string{"NOTICE_QUEUE_URL": "https://q/n", "AUDIT_TABLE": "a", "NOTICE_MAX_ATTEMPTS": "0"}, "NOTICE_MAX_ATTEMPTS"},
		"bad initial delay": {map[string]string{"NOTICE_QUEUE_URL": "https://q/n", "AUDIT_TABLE": "a", "NOTICE_RETRY_INITIAL": "soon"}, "NOTICE_RETRY_INITIAL"},
		"configured":        {map[string]string{"NOTICE_QUEUE_URL": "https://q/n", "AUDIT_TABLE": "a", "NOTICE_MAX_ATTEMPTS": "3", "NOTICE_RETRY_INITIAL": "1s"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"STAGE": "notify", "QUEUE_URL": "https://q/s", "DLQ_URL": "https://q/d", "ITEMS_TABLE": "items",
				"ERRORLOG_TABLE": "log", "PARKED_TABLE": "p", "GATES_TABLE": "g", "BODIES_TABLE": "b", "BREAKERS_TABLE": "br",
				"WEBHOOK_SECRET_PARAMETER": "/triage/webhook"}
			maps.Copy(env, tc.env)
			cfg, err := loadConfig(func(k string) string { return env[k] })
			var h *notice.Handler
			if err == nil {
				h = cfg.noticeHandler(stageDeps(tc.env), nil)
			}
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case tc.env["NOTICE_QUEUE_URL"] == "" && h != nil:
				t.Fatal("a handler without a notice queue")
			case name == "configured" && (h.MaxAttempts != 3 || h.InitialDelay != time.Second || h.QueueURL != "https://q/n"):
				t.Fatalf("handler %+v", h)
			}
		})
	}
}

func testLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func stageDeps(env map[string]string) runner.Deps {
	return runner.Deps{Env: runner.Env{NoticeQueueURL: env["NOTICE_QUEUE_URL"], ItemsTable: "items"}, Log: testLog()}
}
