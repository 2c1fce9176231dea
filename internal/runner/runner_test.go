package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

type testBundle struct {
	clock  *clock.Stub
	store  *store.Memory
	sqs    *runnertest.Queues
	runner *runner.Runner
	calls  atomic.Int64
	// work is what the stage does; tests replace it.
	work func(ctx context.Context, it store.Item) (work.Output, error)
	// delivery is the delivery the runner passed to the last run.
	delivery gates.Delivery
}

// bundleWork is the Work of a testBundle: it counts the calls, keeps the
// delivery, and runs tb.work.
type bundleWork struct{ tb *testBundle }

func (w bundleWork) Run(ctx context.Context, it store.Item, d gates.Delivery) (work.Output, error) {
	w.tb.calls.Add(1)
	w.tb.delivery = d
	return w.tb.work(ctx, it)
}

func setup(t *testing.T, st work.Stage) *testBundle {
	t.Helper()
	tb := &testBundle{
		// A fixed time: the budget tests rely on it being 10:00 UTC.
		clock: clock.NewStub(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)),
		store: store.NewMemory(),
		sqs:   runnertest.NewQueues(),
	}
	tb.work = func(context.Context, store.Item) (work.Output, error) { return okOutput(st), nil }
	tb.runner = runnertest.NewRunner(st, bundleWork{tb}, tb.store, tb.sqs, tb.clock)
	return tb
}

// honourRequests has the runner honour an upstream's Retry-After up to
// limit (the standard profile caps it at 5 minutes).
func (tb *testBundle) honourRequests(limit time.Duration) {
	p := policy.Standard()
	p.RequestedCap = limit
	tb.runner.Profile = p
}

// failWith makes every run of the stage's work fail with err.
func (tb *testBundle) failWith(err error) {
	tb.work = func(context.Context, store.Item) (work.Output, error) { return work.Output{}, err }
}

func okOutput(st work.Stage) work.Output {
	switch st {
	case work.Fetch:
		return work.Output{Document: &work.Document{Text: "article text", Bytes: 12}}
	case work.LLM:
		return work.Output{Enrichment: &work.Enrichment{SummaryNeutral: "s", Category: "c", Severity: "low", Model: "m"}}
	}
	return work.Output{Delivery: &work.WebhookDelivery{Status: 200, IdempotencyKey: "k"}}
}

// seed puts an item queued at stage st.
func (tb *testBundle) seed(t *testing.T, id string, st work.Stage) {
	t.Helper()
	tb.store.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Received,
		State: work.Queued, Stage: st, SourceURL: "https://example.com/" + id,
		Document: &work.Document{Text: "article text"}})
}

func msg(id string, st work.Stage, messageID string, receives int) events.SQSMessage {
	env := work.Envelope{ItemID: id, Stage: st, CorrelationID: "corr-" + id}
	return events.SQSMessage{
		MessageId: messageID, ReceiptHandle: "rh-" + messageID, Body: env.Encode(),
		Attributes: map[string]string{"ApproximateReceiveCount": strconv.Itoa(receives)},
	}
}

func (tb *testBundle) handle(t *testing.T, ctx context.Context, records ...events.SQSMessage) events.SQSEventResponse {
	t.Helper()
	resp, err := tb.runner.Handle(ctx, events.SQSEvent{Records: records})
	if err != nil {
		t.Fatalf("Handle returned an error: %v", err)
	}
	return resp
}

func failedIDs(resp events.SQSEventResponse) []string {
	var out []string
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

func (tb *testBundle) deadLetters(t *testing.T) []deadletter.Payload {
	t.Helper()
	ps, err := tb.sqs.DeadLetters(runnertest.DLQURL)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func (tb *testBundle) forwards() []string { return tb.sqs.Sent(runnertest.NextQueueURL) }

func (tb *testBundle) visibility(t *testing.T, receipt string) int32 {
	t.Helper()
	v, ok := tb.sqs.Visibility(receipt)
	if !ok {
		t.Fatalf("no visibility change for %s", receipt)
	}
	return v
}

func (tb *testBundle) item(t *testing.T, id string) store.Item {
	t.Helper()
	return runnertest.Item(t, tb.store, id)
}

func httpErr(provider failure.Provider, status int, body string) error {
	return &failure.HTTPError{Provider: provider, Op: "test", Status: status, Header: http.Header{}, Body: []byte(body)}
}

func TestSuccessForwardsAndAcknowledges(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.seed(t, "a", work.Fetch)
	resp := tb.handle(t, context.Background(), msg("a", work.Fetch, "m1", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures = %v, want none", failedIDs(resp))
	}
	it := tb.item(t, "a")
	if it.State != work.Queued || it.Stage != work.LLM || it.Status != work.Fetched {
		t.Fatalf("item = %s/%s/%s, want queued/llm/fetched", it.State, it.Stage, it.Status)
	}
	if it.LeaseOwner != "" || it.EnrichmentStatus != work.EnrichmentSuccess {
		t.Fatalf("lease %q enrichment %q after success", it.LeaseOwner, it.EnrichmentStatus)
	}
	if len(tb.forwards()) != 1 {
		t.Fatalf("forwards = %d, want 1", len(tb.forwards()))
	}
	env, err := work.DecodeEnvelope(tb.forwards()[0], work.LLM)
	if err != nil || env.ItemID != "a" || env.CorrelationID != "corr-a" {
		t.Fatalf("forwarded envelope = %+v, %v", env, err)
	}
}

func TestLastStageCompletesTheItem(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Notify)
	tb.seed(t, "a", work.Notify)
	resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 1))
	if len(resp.BatchItemFailures) != 0 || len(tb.forwards()) != 0 {
		t.Fatalf("failures %v forwards %d", failedIDs(resp), len(tb.forwards()))
	}
	if it := tb.item(t, "a"); it.State != work.Done || it.Status != work.Notified || it.Delivery == nil {
		t.Fatalf("item = %s/%s delivery %v, want done/notified", it.State, it.Status, it.Delivery)
	}
}

func TestRetryableFailureBacksOffThroughVisibility(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	tb.seed(t, "a", work.LLM)
	tb.store.Put(func() store.Item { it := tb.item(t, "a"); it.Attempts[work.Fetch] = 2; return it }())
	tb.failWith(httpErr(failure.OpenAI, 503, `{"error":{"message":"overloaded","type":"server_error"}}`))
	resp := tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
	if got := failedIDs(resp); len(got) != 1 || got[0] != "m1" {
		t.Fatalf("failures = %v, want [m1]", got)
	}
	// standard profile, attempt 1, rand 0.5: full jitter over [0, 1s] → 500ms → 1 s of visibility.
	if v := tb.visibility(t, "rh-m1"); v != 1 {
		t.Fatalf("visibility = %d s, want 1", v)
	}
	it := tb.item(t, "a")
	if it.State != work.Retryable || it.Attempts[work.LLM] != 1 || it.Attempts[work.Fetch] != 2 {
		t.Fatalf("item %s attempts %v, want retryable llm=1 fetch=2 (untouched)", it.State, it.Attempts)
	}
	if it.FailureCount != 1 || it.LastError == nil || it.LastError.ErrorClass != work.UpstreamUnavailable ||
		it.LastError.Component != work.LLM || it.LastError.RetryAt == nil || it.EnrichmentStatus != work.EnrichmentPending {
		t.Fatalf("failure fields = count %d, last_error %+v, enrichment %q", it.FailureCount, it.LastError, it.EnrichmentStatus)
	}
	if want := tb.clock.Now().Add(500 * time.Millisecond); !it.NotBefore.Equal(want) {
		t.Fatalf("not_before = %v, want %v", it.NotBefore, want)
	}
	log := tb.store.Log()
	if len(log) != 1 || log[0].Class != work.UpstreamUnavailable || log[0].Attempt != 1 {
		t.Fatalf("error log = %+v", log)
	}
}

func TestPermanentFailureDeadLettersOnTheFirstAttempt(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	tb.seed(t, "a", work.LLM)
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"
	tb.work = func(context.Context, store.Item) (work.Output, error) {
		return work.Output{}, failure.WithDetail(httpErr(failure.OpenAI, 401,
			`{"error":{"message":"Incorrect API key provided: `+key+`.","type":"invalid_request_error","code":"invalid_api_key"}}`),
			"model", "gpt-4o-mini")
	}
	resp := tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures = %v, want the record acknowledged", failedIDs(resp))
	}
	ps := tb.deadLetters(t)
	if len(ps) != 1 {
		t.Fatalf("dead letters = %d, want 1", len(ps))
	}
	p := ps[0]
	if p.ErrorClass != work.AuthDenied || p.Stage != work.LLM || p.ItemID != "a" || p.CorrelationID != "corr-a" ||
		p.Attempts[work.LLM] != 1 || p.FirstFailureAt.IsZero() || p.LastFailureAt.IsZero() ||
		p.SanitizedContext.UpstreamStatus != 401 || p.SanitizedContext.Details["model"] != "gpt-4o-mini" {
		t.Fatalf("payload = %+v", p)
	}
	raw := tb.sqs.Sent(runnertest.DLQURL)[0]
	for _, field := range []string{"error_class", "stage", "item_id", "correlation_id", "attempts", "first_failure_at",
		"last_failure_at", "last_stack", "sanitized_context", "replay"} {
		if !strings.Contains(raw, `"`+field+`":`) {
			t.Errorf("payload lacks field %q", field)
		}
	}
	if strings.Contains(raw, "AbCdEfGhIjKlMnOp") {
		t.Fatalf("API key leaked into the dead letter: %s", raw)
	}
	it := tb.item(t, "a")
	if it.State != work.Deadletter || it.EnrichmentStatus != work.EnrichmentPermanentFailure || it.DeadLetter == nil {
		t.Fatalf("item = %s %s %v, want deadletter permanent_failure", it.State, it.EnrichmentStatus, it.DeadLetter)
	}
}

func TestAttemptLimitsPerClass(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err        error
		deadLetter int // the attempt that dead-letters; 0 = never
	}{
		"RESPONSE_INVALID dead-letters at its 3rd failure": {failure.New(work.ResponseInvalid, "bad json"), 3},
		"UPSTREAM_UNAVAILABLE at its 5th":                  {httpErr(failure.OpenAI, 500, ""), 5},
		"CONTENT_POLICY at the 1st":                        {httpErr(failure.OpenAI, 400, `{"error":{"code":"content_policy_violation"}}`), 1},
		"BUDGET_EXCEEDED never":                            {&failure.Error{Class: work.BudgetExceeded, Reason: "cap", SelfImposed: true}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			tb.seed(t, "a", work.LLM)
			tb.failWith(tc.err)
			for n := 1; n <= 8; n++ {
				resp := tb.handle(t, context.Background(), msg("a", work.LLM, "m1", n))
				dead := len(tb.deadLetters(t)) == 1
				if dead != (tc.deadLetter == n) {
					t.Fatalf("attempt %d: dead-lettered=%v, want dead-letter at %d", n, dead, tc.deadLetter)
				}
				if dead {
					if len(resp.BatchItemFailures) != 0 {
						t.Fatal("dead-lettered record not acknowledged")
					}
					return
				}
				if len(resp.BatchItemFailures) != 1 && len(tb.store.Parked()) == 0 {
					t.Fatalf("attempt %d: retry neither kept in the queue nor parked", n)
				}
				tb.clock.Advance(25 * time.Hour) // past any backoff or budget reset
			}
			if tc.deadLetter != 0 {
				t.Fatal("never dead-lettered")
			}
			if it := tb.item(t, "a"); it.Attempts[work.LLM] != 0 || it.FailureCount != 0 {
				t.Fatalf("non-counting class spent attempts: %v, failure_count %d", it.Attempts, it.FailureCount)
			}
		})
	}
}

func TestBudgetWaitsUntilMidnightWithoutCounting(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	tb.seed(t, "a", work.LLM)
	tb.failWith(&failure.Error{Class: work.BudgetExceeded, Reason: "daily cap", SelfImposed: true})
	tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
	// 10:00 UTC → the wait until midnight (14 h) is beyond SQS's 12 h: parked.
	parked := tb.store.Parked()
	if p, ok := parked["a"]; !ok || !p.DueAt.Equal(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("parked = %+v, want due at the next UTC midnight", parked)
	}
	it := tb.item(t, "a")
	if it.Attempts[work.LLM] != 0 || it.State != work.Retryable || it.LastError.ErrorClass != work.BudgetExceeded {
		t.Fatalf("item = %s attempts %v last_error %+v", it.State, it.Attempts, it.LastError)
	}
}

func TestSuccessAfterFailuresResetsFailureFields(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	tb.seed(t, "a", work.LLM)
	fail := true
	tb.work = func(context.Context, store.Item) (work.Output, error) {
		if fail {
			return work.Output{}, httpErr(failure.OpenAI, 429, `{"error":{"code":"rate_limit_exceeded"}}`)
		}
		return okOutput(work.LLM), nil
	}
	tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
	tb.clock.Advance(time.Minute)
	tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 2))
	if it := tb.item(t, "a"); it.FailureCount != 2 || it.EnrichmentStatus != work.EnrichmentPending {
		t.Fatalf("after two failures: count %d status %q", it.FailureCount, it.EnrichmentStatus)
	}
	fail = false
	tb.clock.Advance(time.Minute)
	tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 3))
	it := tb.item(t, "a")
	if it.FailureCount != 0 || it.LastError != nil || it.EnrichmentStatus != work.EnrichmentSuccess || !it.FirstFailureAt.IsZero() {
		t.Fatalf("after success: count %d last_error %+v status %q first %v", it.FailureCount, it.LastError, it.EnrichmentStatus, it.FirstFailureAt)
	}
	if it.Attempts[work.LLM] != 2 {
		t.Fatalf("attempt history = %v, want llm=2 kept", it.Attempts)
	}
}

func TestMalformedRecordIsDeadLetteredWhileTheBatchGoesOn(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.seed(t, "a", work.Fetch)
	tb.seed(t, "b", work.Fetch)
	bad := events.SQSMessage{MessageId: "bad", ReceiptHandle: "rh-bad", Body: `{"item_id":"x","stage":"fetch"`,
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	wrongStage := msg("b", work.LLM, "wrong", 1)
	resp := tb.handle(t, context.Background(), msg("a", work.Fetch, "m1", 1), bad, wrongStage, msg("b", work.Fetch, "m2", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures = %v, want every record acknowledged", failedIDs(resp))
	}
	ps := tb.deadLetters(t)
	if len(ps) != 2 || ps[0].ErrorClass != work.SchemaInvalid || ps[1].ErrorClass != work.SchemaInvalid {
		t.Fatalf("dead letters = %+v, want two SCHEMA_INVALID", ps)
	}
	for _, p := range ps {
		if strings.Contains(p.LastStack+p.SanitizedContext.Error, `"stage":"fetch"`) {
			t.Fatalf("raw body leaked into the dead letter: %+v", p)
		}
	}
	if a, b := tb.item(t, "a"), tb.item(t, "b"); a.Stage != work.LLM || b.Stage != work.LLM {
		t.Fatalf("good records did not go on: a at %s, b at %s", a.Stage, b.Stage)
	}
}

func TestDLQSendFailureKeepsTheRecord(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Notify)
	tb.seed(t, "a", work.Notify)
	tb.failWith(httpErr(failure.Webhook, 404, "channel_not_found"))
	tb.sqs.FailSends(runnertest.DLQURL, true)
	resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 1))
	if got := failedIDs(resp); len(got) != 1 {
		t.Fatalf("failures = %v, want the record kept", got)
	}
	if it := tb.item(t, "a"); it.State != work.Failed {
		t.Fatalf("state = %s, want failed (hand-off pending)", it.State)
	}
	// The DLQ recovers; the redelivery completes the hand-off without calling the webhook.
	tb.sqs.FailSends(runnertest.DLQURL, false)
	before := tb.calls.Load()
	resp = tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 2))
	if len(resp.BatchItemFailures) != 0 || tb.calls.Load() != before {
		t.Fatalf("redelivery: failures %v, upstream calls %d → %d", failedIDs(resp), before, tb.calls.Load())
	}
	if ps := tb.deadLetters(t); len(ps) != 1 || ps[0].ErrorClass != work.NotFound {
		t.Fatalf("dead letters = %+v", ps)
	}
	if it := tb.item(t, "a"); it.State != work.Deadletter {
		t.Fatalf("state = %s, want deadletter", it.State)
	}
}

// A send the queue refuses keeps the record, backing off on its receive
// count like any outcome not yet durable (docs/design.md "One record, step
// by step", 4a and 4e): a fixed short hold would spend the redrive backstop's
// receives in seconds of a send outage. A DLQ that refuses the dead letter
// would have the backstop move the item's envelope while its dead letter is
// still pending; a next queue that refuses the forward would have the
// backstop's message — its item already queued at the next stage —
// superseded, not resumed, leaving the item with no message to carry it.
func TestRefusedSendBacksOffOnTheReceiveCount(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		stage   work.Stage
		fail    error // the work's failure; nil: it succeeds
		refused string
	}{
		"the DLQ refuses the dead letter":    {stage: work.Notify, fail: httpErr(failure.Webhook, 404, "channel_not_found"), refused: runnertest.DLQURL},
		"the next queue refuses the forward": {stage: work.Fetch, refused: runnertest.NextQueueURL},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, tc.stage)
			tb.seed(t, "a", tc.stage)
			if tc.fail != nil {
				tb.failWith(tc.fail)
			}
			tb.sqs.FailSends(tc.refused, true)
			if got := failedIDs(tb.handle(t, context.Background(), msg("a", tc.stage, "m1", 5))); len(got) != 1 {
				t.Fatalf("failures = %v, want the record kept", got)
			}
			want := policy.Holding{}.Unrecorded(5, 0.5)
			if v := tb.visibility(t, "rh-m1"); time.Duration(v)*time.Second < want {
				t.Fatalf("visibility %d s on the fifth receive, want at least %v (the backoff on the receive count)", v, want)
			}
		})
	}
}

// failingConfirm is the item store whose confirmation of a DLQ hand-off
// fails while failing is set, as a write the store refused.
type failingConfirm struct {
	*store.Memory
	failing atomic.Bool
}

func (f *failingConfirm) MarkDeadLettered(ctx context.Context, id string, st work.Stage, ref store.DeadLetterRef, now time.Time) error {
	if f.failing.Load() {
		return errors.New("ProvisionedThroughputExceededException: throughput exceeded")
	}
	return f.Memory.MarkDeadLettered(ctx, id, st, ref, now)
}

// TestConfirmFailureKeepsTheRecord: when the write that confirms a DLQ
// hand-off fails after the send, the record is kept; its redelivery sends
// the same dead letter again (one dead_letter_id) without calling the
// upstream and confirms it, so the item ends deadletter, not failed.
func TestConfirmFailureKeepsTheRecord(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Notify)
	db := &failingConfirm{Memory: tb.store}
	tb.runner.Items = db
	tb.seed(t, "a", work.Notify)
	tb.failWith(httpErr(failure.Webhook, 404, "channel_not_found"))
	db.failing.Store(true)
	resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 1))
	if got := failedIDs(resp); len(got) != 1 {
		t.Fatalf("failures = %v, want the record kept: its dead letter is sent but the item still says failed", got)
	}
	if it := tb.item(t, "a"); it.State != work.Failed || len(tb.deadLetters(t)) != 1 {
		t.Fatalf("state = %s with %d dead letters, want failed with one", it.State, len(tb.deadLetters(t)))
	}
	db.failing.Store(false)
	before := tb.calls.Load()
	resp = tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 2))
	if len(resp.BatchItemFailures) != 0 || tb.calls.Load() != before {
		t.Fatalf("redelivery: failures %v, upstream calls %d → %d", failedIDs(resp), before, tb.calls.Load())
	}
	ps := tb.deadLetters(t)
	if len(ps) != 2 || ps[0].SanitizedContext.DeadLetterID != ps[1].SanitizedContext.DeadLetterID {
		t.Fatalf("dead letters = %+v, want the same one twice", ps)
	}
	if it := tb.item(t, "a"); it.State != work.Deadletter || it.DeadLetter == nil || it.DeadLetter.ID != ps[0].SanitizedContext.DeadLetterID {
		t.Fatalf("item = %s %+v, want deadletter with its dead letter", it.State, it.DeadLetter)
	}
}

func TestDuplicateOfFinishedWorkNeverCallsTheUpstream(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Notify)
	tb.seed(t, "a", work.Notify)
	tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 1))
	resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 2), msg("a", work.Notify, "dup", 1))
	if len(resp.BatchItemFailures) != 0 || tb.calls.Load() != 1 {
		t.Fatalf("failures %v, upstream calls %d, want 1", failedIDs(resp), tb.calls.Load())
	}
}

func TestForwardFailureIsRepairedByTheRedelivery(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.seed(t, "a", work.Fetch)
	tb.sqs.FailSends(runnertest.NextQueueURL, true)
	resp := tb.handle(t, context.Background(), msg("a", work.Fetch, "m1", 1))
	if len(resp.BatchItemFailures) != 1 {
		t.Fatal("record acknowledged although its forward failed")
	}
	tb.sqs.FailSends(runnertest.NextQueueURL, false)
	resp = tb.handle(t, context.Background(), msg("a", work.Fetch, "m1", 2))
	if len(resp.BatchItemFailures) != 0 || len(tb.forwards()) != 1 || tb.calls.Load() != 1 {
		t.Fatalf("failures %v, forwards %d, upstream calls %d", failedIDs(resp), len(tb.forwards()), tb.calls.Load())
	}
}

func TestRecordsNotReachedBeforeTheDeadlineCountNoAttempt(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.runner.Concurrency = 1
	for i := range 4 {
		tb.seed(t, fmt.Sprint("i", i), work.Fetch)
	}
	// Each record takes 2 s of (fake) time; the invocation has 8 s, less the
	// 3 s margin: a record needs 2 s, so records start at 0 s and 2 s, and
	// the third (at 4 s, ending at 6 s > 5 s) is not started.
	tb.work = func(context.Context, store.Item) (work.Output, error) {
		tb.clock.Advance(2 * time.Second)
		return okOutput(work.Fetch), nil
	}
	ctx, cancel := context.WithDeadline(context.Background(), tb.clock.Now().Add(8*time.Second))
	defer cancel()
	var recs []events.SQSMessage
	for i := range 4 {
		recs = append(recs, msg(fmt.Sprint("i", i), work.Fetch, fmt.Sprint("m", i), 1))
	}
	resp := tb.handle(t, ctx, recs...)
	got := failedIDs(resp)
	if len(got) != 2 || got[0] != "m2" || got[1] != "m3" {
		t.Fatalf("failures = %v, want [m2 m3]", got)
	}
	for _, id := range []string{"i2", "i3"} {
		it := tb.item(t, id)
		if it.State != work.Queued || it.Attempts[work.Fetch] != 0 || it.LeaseOwner != "" {
			t.Fatalf("%s = %s attempts %v lease %q, want untouched", id, it.State, it.Attempts, it.LeaseOwner)
		}
		if v := tb.visibility(t, "rh-m"+id[1:]); v != 0 {
			t.Fatalf("%s visibility = %d, want 0", id, v)
		}
	}
}

func TestPanicBecomesInternalBugForThatRecordOnly(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.seed(t, "boom", work.Fetch)
	tb.seed(t, "fine", work.Fetch)
	tb.work = func(_ context.Context, it store.Item) (work.Output, error) {
		if it.ID == "boom" {
			var m map[string]int
			m["x"] = 1 // nil map write: a runtime panic
		}
		return okOutput(work.Fetch), nil
	}
	resp := tb.handle(t, context.Background(), msg("boom", work.Fetch, "m1", 1), msg("fine", work.Fetch, "m2", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures = %v", failedIDs(resp))
	}
	ps := tb.deadLetters(t)
	if len(ps) != 1 || ps[0].ErrorClass != work.InternalBug || !strings.Contains(ps[0].LastStack, "goroutine") {
		t.Fatalf("dead letters = %+v, want one INTERNAL_BUG with a stack", ps)
	}
	if it := tb.item(t, "fine"); it.Stage != work.LLM {
		t.Fatalf("the other record did not go on: %s", it.Stage)
	}
}

func TestGateWaitSpendsNoAttempt(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	tb.seed(t, "a", work.LLM)
	until := tb.clock.Now().Add(90 * time.Second)
	tb.failWith(&failure.WaitError{Until: until, Reason: "breaker half-open"})
	resp := tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
	if len(resp.BatchItemFailures) != 1 || tb.visibility(t, "rh-m1") != 90 {
		t.Fatalf("failures %v visibility %d, want kept for 90 s", failedIDs(resp), tb.visibility(t, "rh-m1"))
	}
	it := tb.item(t, "a")
	if it.Attempts[work.LLM] != 0 || it.State != work.Retryable || !it.NotBefore.Equal(until) || len(tb.store.Log()) != 0 {
		t.Fatalf("item %s attempts %v not_before %v log %d", it.State, it.Attempts, it.NotBefore, len(tb.store.Log()))
	}
}

func TestDuplicateDuringCooldownIsAcknowledged(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	tb.seed(t, "a", work.LLM)
	tb.failWith(httpErr(failure.OpenAI, 429, `{"error":{"code":"rate_limit_exceeded"}}`))
	tb.runner.Profile = policy.Predictions() // 60 s fixed for rate limits
	tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
	resp := tb.handle(t, context.Background(), msg("a", work.LLM, "dup", 1), msg("a", work.LLM, "m1", 2))
	got := failedIDs(resp)
	if len(got) != 1 || got[0] != "m1" || tb.calls.Load() != 1 {
		t.Fatalf("failures %v calls %d: want the duplicate acknowledged and the carrier kept", got, tb.calls.Load())
	}
	if v := tb.visibility(t, "rh-m1"); v != 60 {
		t.Fatalf("carrier visibility = %d, want the remaining 60 s", v)
	}
}

func TestWaitBeyondSQSLimitIsParked(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.runner.Profile = policy.DailyBatch()
	tb.seed(t, "a", work.Fetch)
	tb.failWith(httpErr(failure.HTTP, 429, ""))
	resp := tb.handle(t, context.Background(), msg("a", work.Fetch, "m1", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatal("a parked record must be acknowledged once the park is durable")
	}
	p, ok := tb.store.Parked()["a"]
	if !ok || !p.DueAt.Equal(tb.clock.Now().Add(24*time.Hour)) || p.Envelope.Stage != work.Fetch {
		t.Fatalf("parked = %+v, want due in 24 h at fetch", p)
	}
	if it := tb.item(t, "a"); it.Attempts[work.Fetch] != 1 {
		t.Fatalf("attempts = %v", it.Attempts)
	}
}

func TestNearTheBackstopTheRecordIsParked(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.runner.BackstopReceives = 10
	tb.seed(t, "a", work.Fetch)
	tb.failWith(httpErr(failure.HTTP, 503, ""))
	resp := tb.handle(t, context.Background(), msg("a", work.Fetch, "m1", 9))
	if len(resp.BatchItemFailures) != 0 || len(tb.store.Parked()) != 1 {
		t.Fatalf("failures %v parked %d: want parked and acknowledged", failedIDs(resp), len(tb.store.Parked()))
	}
}

func TestEventsAreValidJSONForEveryOutcome(t *testing.T) {
	t.Parallel()
	// The dead letter of every class encodes under the SQS limit.
	for _, c := range work.Classes() {
		p := deadletter.Build(deadletter.Input{ItemID: "a", Stage: work.LLM, Err: errors.New(strings.Repeat("x", 1<<20)),
			Failure: failure.Of(c, "r")})
		b, err := p.Marshal()
		if err != nil || len(b) > deadletter.MaxPayloadBytes || !json.Valid(b) {
			t.Fatalf("%s: %d bytes, err %v", c, len(b), err)
		}
	}
}

// TestLostLeaseIsAcknowledged: when another delivery takes the item over
// while this one works (its lease expired), this one's outcome write fails
// the lease condition; the record is acknowledged, whatever the outcome was,
// because the other delivery's outcome is the one that counts.
func TestLostLeaseIsAcknowledged(t *testing.T) {
	t.Parallel()
	for name, result := range map[string]error{
		"success": nil,
		"failure": httpErr(failure.OpenAI, 500, ""),
		"wait":    &failure.WaitError{Until: time.Date(2026, 11, 21, 10, 5, 0, 0, time.UTC), Reason: "breaker open"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			tb.seed(t, "a", work.LLM)
			tb.work = func(_ context.Context, it store.Item) (work.Output, error) {
				it.LeaseOwner = "someone-else#1" // the takeover
				tb.store.Put(it)
				if result != nil {
					return work.Output{}, result
				}
				return okOutput(work.LLM), nil
			}
			resp := tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
			if len(resp.BatchItemFailures) != 0 {
				t.Fatalf("kept %v; a lost lease acknowledges the record", failedIDs(resp))
			}
			if it := tb.item(t, "a"); it.LeaseOwner != "someone-else#1" || it.Attempts[work.LLM] != 0 {
				t.Fatalf("the other delivery's item was overwritten: %+v", it)
			}
		})
	}
}

// TestEscalationIsCountedOnceWhenDurable: a replayed item that fails again
// with the same non-retryable class at the same stage is dead-lettered with
// escalated: true and counted once — also when the first DLQ send failed and
// a later delivery completed the hand-off.
func TestEscalationIsCountedOnceWhenDurable(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Notify)
	metrics := &telemetry.Tally{}
	tb.runner.Metrics = metrics
	tb.store.Put(store.Item{ID: "a", Kind: store.KindStory, CorrelationID: "corr-a", Status: work.Enriched,
		State: work.Queued, Stage: work.Notify, ReplayCount: 1,
		DeadLetter: &store.DeadLetterRef{ID: "dl0", Stage: work.Notify, Class: work.NotFound}})
	tb.failWith(httpErr(failure.Webhook, 404, "channel_not_found"))
	tb.sqs.FailSends(runnertest.DLQURL, true)
	tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 1))
	if n := metrics.Get(runner.MetricEscalations); n != 0 {
		t.Fatalf("escalations = %d before the dead letter was durable", n)
	}
	tb.sqs.FailSends(runnertest.DLQURL, false)
	tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 2))
	ps := tb.deadLetters(t)
	if len(ps) != 1 || !ps[0].Replay.Escalated {
		t.Fatalf("dead letters %+v, want one escalated", ps)
	}
	if n := metrics.Get(runner.MetricEscalations); n != 1 {
		t.Fatalf("escalations = %d, want 1", n)
	}
}

// A failure's log line names each attribute once, even when the error's
// details carry the upstream status the classification found too (two
// "upstream_status" keys, one a number and one a string, break log queries).
func TestFailureLogKeysAreUnique(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	var buf bytes.Buffer
	tb.runner.Log = slog.New(slog.NewJSONHandler(&buf, nil))
	tb.seed(t, "item-1", work.LLM)
	tb.work = func(context.Context, store.Item) (work.Output, error) {
		err := failure.WithDetail(httpErr(failure.OpenAI, 500, `{"error":{"type":"server_error"}}`), "upstream_status", "500")
		return work.Output{}, failure.WithDetail(err, "model", "gpt-4o-mini")
	}
	tb.handle(t, context.Background(), msg("item-1", work.LLM, "m1", 1))
	found := false
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		if !strings.Contains(line, `"failure: will retry"`) {
			continue
		}
		found = true
		if seen := uniqueKeys(t, line); !seen["upstream_status"] {
			t.Errorf("no upstream_status in %s", line)
		}
	}
	if !found {
		t.Fatalf("no retry line logged:\n%s", buf.String())
	}
}

// uniqueKeys fails t when the JSON log line holds a top-level key twice,
// and returns the keys.
func uniqueKeys(t *testing.T, line string) map[string]bool {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if seen[k.(string)] {
			t.Errorf("key %q twice in %s", k, line)
		}
		seen[k.(string)] = true
	}
	return seen
}

// TestDeadLetterLogKeysAreUnique: every line the dead-letter paths log —
// a permanent failure, a malformed message, a message for a missing item,
// a hand-off completed by a later delivery — holds each key once (the
// classifier's reason is "reason", the decision's "decision").
func TestDeadLetterLogKeysAreUnique(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	var buf bytes.Buffer
	tb.runner.Log = slog.New(slog.NewJSONHandler(&buf, nil))
	tb.seed(t, "gone", work.Fetch)
	tb.seed(t, "pending", work.Fetch)
	tb.work = func(_ context.Context, it store.Item) (work.Output, error) {
		return work.Output{}, httpErr(failure.HTTP, 404, "")
	}
	tb.sqs.FailSends(runnertest.DLQURL, true)
	tb.handle(t, context.Background(), msg("pending", work.Fetch, "p1", 1)) // failed, hand-off pending
	tb.sqs.FailSends(runnertest.DLQURL, false)
	bad := events.SQSMessage{MessageId: "bad", ReceiptHandle: "rh-bad", Body: `{"item_id":"x","correlation_id":"corr-x","stage":"fetch"`,
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	tb.handle(t, context.Background(), msg("gone", work.Fetch, "g1", 1), bad, msg("missing", work.Fetch, "m1", 1),
		msg("pending", work.Fetch, "p1", 2))
	if n := len(tb.deadLetters(t)); n != 4 {
		t.Fatalf("%d dead letters, want 4:\n%s", n, buf.String())
	}
	lines := 0
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		lines++
		uniqueKeys(t, line)
	}
	if !strings.Contains(buf.String(), `"decision"`) || lines < 4 {
		t.Errorf("the dead-lettered lines say no decision:\n%s", buf.String())
	}
}

// TestMissingItemDeadLetterKeepsCorrelationID: a dead letter for an
// envelope whose item does not exist, or for a malformed envelope whose
// body still names one, carries the envelope's correlation_id, in the
// payload and in the error log.
func TestMissingItemDeadLetterKeepsCorrelationID(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	missing := events.SQSMessage{MessageId: "m1", ReceiptHandle: "rh-m1",
		Body:       `{"item_id":"missing","stage":"fetch","correlation_id":"corr-missing"}`,
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	bad := events.SQSMessage{MessageId: "bad", ReceiptHandle: "rh-bad", Body: `{"item_id":"x","correlation_id":"corr-bad","stage":"fetch"`,
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	tb.handle(t, context.Background(), missing, bad)
	ps := tb.deadLetters(t)
	if len(ps) != 2 {
		t.Fatalf("%d dead letters, want 2", len(ps))
	}
	got := map[string]string{}
	for _, p := range ps {
		got[p.ItemID] = p.CorrelationID
	}
	if got["missing"] != "corr-missing" || got["x"] != "corr-bad" {
		t.Errorf("correlation ids by item = %v", got)
	}
}

// An upstream's Retry-After beyond what a visibility timeout can hold parks
// the record until then, when the profile honours requests that long (the
// standard profile caps them at 5 minutes).
func TestRetryAfterBeyondSQSLimitIsParked(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Notify)
	tb.honourRequests(24 * time.Hour)
	tb.seed(t, "a", work.Notify)
	tb.work = func(context.Context, store.Item) (work.Output, error) {
		e := httpErr(failure.Webhook, 503, "").(*failure.HTTPError)
		e.Header.Set("Retry-After", "46800") // 13 h
		return work.Output{}, e
	}
	resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatal("a parked record must be acknowledged once the park is durable")
	}
	parked, ok := tb.store.Parked()["a"]
	if !ok || !parked.DueAt.Equal(tb.clock.Now().Add(13*time.Hour)) || parked.Envelope.Stage != work.Notify {
		t.Fatalf("parked = %+v, want due in 13 h at notify", parked)
	}
}

// An upstream's body can echo the request: what the runner keeps of a
// failure — last_error, the error-log entry, the log line, the dead
// letter — holds the upstream's status, codes and own message, and none of
// the body around them.
func TestFailureKeepsNoUpstreamBody(t *testing.T) {
	t.Parallel()
	const prompt = "Summarize the attached contract for Jane Roe, account 4471"
	bodies := map[string]struct {
		status int
		body   string
	}{
		"retried, HTML":       {503, `<html><body>overloaded while handling: ` + prompt + `</body></html>`},
		"retried, prose":      {500, `internal error while handling: ` + prompt},
		"dead-lettered, echo": {400, `{"error":{"message":"Invalid 'messages[0].content'","code":"bad_request"},"echo":{"messages":[{"content":"` + prompt + `"}]}}`},
	}
	for name, tc := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			var buf bytes.Buffer
			tb.runner.Log = slog.New(slog.NewJSONHandler(&buf, nil))
			tb.seed(t, "item-1", work.LLM)
			tb.failWith(httpErr(failure.OpenAI, tc.status, tc.body))
			tb.handle(t, context.Background(), msg("item-1", work.LLM, "m1", 1))
			le := tb.item(t, "item-1").LastError
			if le == nil {
				t.Fatal("no last_error")
			}
			kept := []string{buf.String(), le.Error, fmt.Sprint(le.Details)}
			for _, e := range tb.store.Log() {
				kept = append(kept, e.Message)
			}
			for _, p := range tb.deadLetters(t) {
				b, _ := p.Marshal()
				kept = append(kept, string(b))
			}
			for _, k := range kept {
				for _, frag := range []string{"Jane Roe", "attached contract", "account 4471"} {
					if strings.Contains(k, frag) {
						t.Fatalf("the upstream's body reached what the runner keeps (%q):\n%s", frag, k)
					}
				}
			}
			if !strings.Contains(le.Error, fmt.Sprintf("HTTP %d", tc.status)) {
				t.Errorf("last_error lost the upstream's status: %q", le.Error)
			}
			if tc.status == 400 && !strings.Contains(le.Error, "Invalid 'messages[0].content'") {
				t.Errorf("last_error lost the provider's own message: %q", le.Error)
			}
		})
	}
}

// TestErrorLogRecordsDefault: the error log says whether only a default
// decided the class, so that `triage report unknown` finds the failures
// nothing recognised.
func TestErrorLogRecordsDefault(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		err       error
		class     work.Class
		isDefault bool
		status    int
		code      string
	}{
		"a status alone":       {httpErr(failure.OpenAI, 418, `{"error":{"message":"I am a teapot"}}`), work.ClientError, true, 418, ""},
		"nothing recognised":   {errors.New("frobnicator wedged"), work.Unknown, true, 0, ""},
		"a code the table has": {httpErr("acme", 429, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`), work.RateLimited, false, 429, "rate_limit_exceeded"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			tb.seed(t, "a", work.LLM)
			tb.failWith(tc.err)
			tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
			log := tb.store.Log()
			if len(log) != 1 || log[0].Class != tc.class || log[0].Default != tc.isDefault {
				t.Fatalf("error log = %+v, want one %s entry with Default %v", log, tc.class, tc.isDefault)
			}
			// What an operator's rule and a fingerprint read again.
			cl := failure.Classify(tc.err)
			if log[0].Provider != cl.Provider || log[0].Status != tc.status || log[0].Code != tc.code {
				t.Errorf("recorded provider %q status %d code %q, want %q %d %q", log[0].Provider, log[0].Status, log[0].Code, cl.Provider, tc.status, tc.code)
			}
		})
	}
}

// batchSizes wraps the SQS fake and records the entries of every batch call.
type batchSizes struct {
	runner.Queues
	mu                sync.Mutex
	sends, visibility []int
}

func (b *batchSizes) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	b.mu.Lock()
	b.sends = append(b.sends, len(in.Entries))
	b.mu.Unlock()
	return b.Queues.SendMessageBatch(ctx, in, opts...)
}

func (b *batchSizes) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	b.mu.Lock()
	b.visibility = append(b.visibility, len(in.Entries))
	b.mu.Unlock()
	return b.Queues.ChangeMessageVisibilityBatch(ctx, in, opts...)
}

// TestLargeBatchSplitsIntoSQSBatches: a batch of more records than one SQS
// batch request holds (10) forwards its 12 successes and delays its 11
// retries in requests of at most 10 entries, every record in exactly one.
func TestLargeBatchSplitsIntoSQSBatches(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	sizes := &batchSizes{Queues: tb.sqs}
	tb.runner.SQS = sizes
	const n = 23
	var records []events.SQSMessage
	for i := range n {
		id := fmt.Sprintf("item-%02d", i)
		tb.seed(t, id, work.Fetch)
		records = append(records, msg(id, work.Fetch, "m"+id, 1))
	}
	tb.work = func(_ context.Context, it store.Item) (work.Output, error) {
		if (it.ID[len(it.ID)-1]-'0')%2 == 1 {
			return work.Output{}, failure.Wrap(work.UpstreamUnavailable, errors.New("503"), "odd items fail")
		}
		return okOutput(work.Fetch), nil
	}
	resp := tb.handle(t, context.Background(), records...)
	if got := failedIDs(resp); len(got) != 11 {
		t.Fatalf("failures = %v, want the 11 odd items kept for their retry", got)
	}
	if got := len(tb.sqs.Sent(runnertest.NextQueueURL)); got != 12 {
		t.Fatalf("%d forwards, want the 12 even items", got)
	}
	if fmt.Sprint(sizes.sends) != "[10 2]" || fmt.Sprint(sizes.visibility) != "[10 1]" {
		t.Fatalf("send batches %v, visibility batches %v; want [10 2] and [10 1]", sizes.sends, sizes.visibility)
	}
}
