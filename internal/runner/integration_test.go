package runner_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/poller"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/objects"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// live is a Runner on a moto stack: real SQS and DynamoDB, scripted work.
type live struct {
	env     *localtest.Env
	sqs     *sqs.Client
	items   *store.Items
	runner  *runner.Runner
	counter *conf.Counter
	calls   atomic.Int64
	work    func(ctx context.Context, it store.Item) (work.Output, error)
}

func setupLive(t *testing.T, st work.Stage) *live {
	t.Helper()
	env := localtest.Stack(t, nil)
	l := &live{env: env, counter: conf.NewCounter()}
	cfg := env.AWS.Copy()
	cfg.APIOptions = append(cfg.APIOptions, l.counter.Register)
	l.sqs = sqs.NewFromConfig(cfg)
	db := dynamodb.NewFromConfig(cfg)
	l.items = &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	l.work = func(context.Context, store.Item) (work.Output, error) { return okOutput(st), nil }
	next := ""
	if n, ok := st.Next(); ok {
		next = env.Stack.QueueURL(n)
	}
	l.runner = &runner.Runner{
		Stage: st,
		Work: runner.WorkFunc(func(ctx context.Context, it store.Item) (work.Output, error) {
			l.calls.Add(1)
			return l.work(ctx, it)
		}),
		Items: l.items, ErrorLog: &store.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()}, SQS: l.sqs,
		QueueURL: env.Stack.QueueURL(st), DLQURL: env.Stack.DLQURL(st), NextQueueURL: next,
		Profile: policy.Standard(), Rand: func() float64 { return 0 }, ResendDelay: time.Second,
		// As deployed: the owner's notices on (stories ask for none).
		Notices: &notice.Sender{SQS: l.sqs, QueueURL: env.Stack.NoticeQueueURL()},
	}
	return l
}

func (l *live) seed(t *testing.T, id string, st work.Stage) {
	t.Helper()
	if err := l.items.Put(context.Background(), store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id,
		Status: work.Received, State: work.Queued, Stage: st, Document: &work.Document{Text: "text of " + id}}); err != nil {
		t.Fatal(err)
	}
}

func (l *live) send(t *testing.T, body string) {
	t.Helper()
	if _, err := l.sqs.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(l.runner.QueueURL), MessageBody: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
}

func (l *live) envelope(id string) string {
	return work.Envelope{ItemID: id, Stage: l.runner.Stage, CorrelationID: "corr-" + id}.Encode()
}

func (l *live) pump(t *testing.T, wait time.Duration) ([]events.SQSMessage, events.SQSEventResponse) {
	t.Helper()
	return runnertest.Pump(context.Background(), t, l.sqs, l.runner.QueueURL, l.runner.Handle, wait)
}

func (l *live) get(t *testing.T, id string) store.Item {
	t.Helper()
	return runnertest.Item(t, l.items, id)
}

// drain receives every message on url (up to 10 per call, bounded).
func (l *live) drain(t *testing.T, url string) []string {
	t.Helper()
	return runnertest.Drain(context.Background(), t, l.sqs, url, time.Second)
}

func (l *live) deadLetters(t *testing.T) []deadletter.Payload {
	t.Helper()
	var out []deadletter.Payload
	for _, b := range l.drain(t, l.runner.DLQURL) {
		p, err := deadletter.Parse([]byte(b))
		if err != nil {
			t.Fatalf("DLQ message is not a triage payload: %v", err)
		}
		out = append(out, p)
	}
	return out
}

// visibilityLog records the visibility timeouts the runner sets.
type visibilityLog struct {
	runner.Queues
	mu   sync.Mutex
	secs []int32
}

func (v *visibilityLog) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput,
	opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	v.mu.Lock()
	for _, e := range in.Entries {
		v.secs = append(v.secs, e.VisibilityTimeout)
	}
	v.mu.Unlock()
	return v.Queues.ChangeMessageVisibilityBatch(ctx, in, opts...)
}

func (v *visibilityLog) seconds() []int32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.secs)
}

// TestLiveRetryBacksOffThroughVisibility: a retry's decided backoff is the
// visibility timeout its record gets, and the message comes back from the
// queue to succeed.
func TestLiveRetryBacksOffThroughVisibility(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.LLM)
	profile := policy.Standard()
	pol := profile.Policies[work.UpstreamUnavailable]
	pol.Backoff = policy.Fixed{Interval: 3 * time.Second}
	profile.Policies[work.UpstreamUnavailable] = pol
	l.runner.Profile = profile
	l.seed(t, "r", work.LLM)
	if err := l.items.Put(context.Background(), func() store.Item { it := l.get(t, "r"); it.Attempts[work.Fetch] = 2; return it }()); err != nil {
		t.Fatal(err)
	}
	fail := true
	l.work = func(context.Context, store.Item) (work.Output, error) {
		if fail {
			return work.Output{}, httpErr(failure.OpenAI, 503, `{"error":{"message":"overloaded","type":"server_error"}}`)
		}
		return okOutput(work.LLM), nil
	}
	held := &visibilityLog{Queues: l.runner.SQS}
	l.runner.SQS = held
	l.send(t, l.envelope("r"))
	recs, resp := l.pump(t, 2*time.Second)
	if len(recs) != 1 || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("first delivery: %d records, %d kept", len(recs), len(resp.BatchItemFailures))
	}
	it := l.get(t, "r")
	if it.Attempts[work.LLM] != 1 || it.Attempts[work.Fetch] != 2 || it.FailureCount != 1 || it.State != work.Retryable {
		t.Fatalf("after the failure: state %s attempts %v failure_count %d", it.State, it.Attempts, it.FailureCount)
	}
	fail = false
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		recs, resp = l.pump(t, time.Second)
		if len(recs) > 0 {
			break
		}
	}
	if len(recs) != 1 || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("the retry did not come back within 10 s (%d records)", len(recs))
	}
	if got := held.seconds(); !slices.Equal(got, []int32{3}) {
		t.Fatalf("visibility changes %v (s), want one to the decided 3 s", got)
	}
	it = l.get(t, "r")
	if it.Stage != work.Notify || it.FailureCount != 0 || it.LastError != nil || it.EnrichmentStatus != work.EnrichmentSuccess {
		t.Fatalf("after success: stage %s failure_count %d last_error %+v enrichment %q", it.Stage, it.FailureCount, it.LastError, it.EnrichmentStatus)
	}
	if got := l.drain(t, l.runner.NextQueueURL); len(got) != 1 {
		t.Fatalf("next queue has %d messages, want 1", len(got))
	}
}

func TestLiveDeadLetters(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.LLM)
	const key = "sk-ant-api03-PLANTEDsecretKEY0123456789abcdefghijklmnop"
	l.work = func(_ context.Context, it store.Item) (work.Output, error) {
		if it.ID == "auth" {
			return work.Output{}, httpErr(failure.Anthropic, 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+key+`"}}`)
		}
		return work.Output{}, failure.New(work.ResponseInvalid, "model output is not valid JSON")
	}
	l.seed(t, "auth", work.LLM)
	l.seed(t, "badjson", work.LLM)
	l.send(t, l.envelope("auth"))
	l.send(t, l.envelope("badjson"))
	for range 6 { // rand 0 makes every backoff 0 s: redeliveries are immediate
		if recs, _ := l.pump(t, time.Second); len(recs) == 0 {
			break
		}
	}
	ps := l.deadLetters(t)
	if len(ps) != 2 {
		t.Fatalf("dead letters = %d, want 2", len(ps))
	}
	byItem := map[string]deadletter.Payload{}
	for _, p := range ps {
		byItem[p.ItemID] = p
	}
	if p := byItem["auth"]; p.ErrorClass != work.AuthDenied || p.Attempts[work.LLM] != 1 || p.SanitizedContext.UpstreamStatus != 401 {
		t.Fatalf("auth dead letter: %+v", p)
	}
	if p := byItem["badjson"]; p.ErrorClass != work.ResponseInvalid || p.Attempts[work.LLM] != 3 {
		t.Fatalf("RESPONSE_INVALID dead letter: class %s attempts %v, want the 3rd attempt", p.ErrorClass, p.Attempts)
	}
	for _, p := range ps {
		raw := fmt.Sprintf("%+v", p)
		if strings.Contains(raw, "PLANTEDsecretKEY") {
			t.Fatalf("secret in the dead letter: %s", raw)
		}
		if it := l.get(t, p.ItemID); it.EnrichmentStatus != work.EnrichmentPermanentFailure || it.State != work.Deadletter {
			t.Fatalf("%s ended %s/%s, want deadletter/permanent_failure", p.ItemID, it.State, it.EnrichmentStatus)
		}
	}
}

// TestLiveBudgetNeverCountsNorDeadLetters: a provider's exhausted quota
// waits without spending an attempt, through the message's visibility
// while the message is fresh, and parked from its ParkAfterReceives-th
// receive on: the receive count of a waiting message stays far from the
// redrive backstop however long the wait.
func TestLiveBudgetNeverCountsNorDeadLetters(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.LLM)
	profile := policy.Standard()
	profile.ProviderQuotaWait = time.Second
	l.runner.Profile = profile
	l.work = func(context.Context, store.Item) (work.Output, error) {
		return work.Output{}, httpErr(failure.OpenAI, 429, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)
	}
	l.seed(t, "b", work.LLM)
	l.send(t, l.envelope("b"))
	deliveries := 0
	for end := time.Now().Add(8 * time.Second); deliveries < runner.DefaultParkAfterReceives && time.Now().Before(end); {
		recs, resp := l.pump(t, time.Second)
		if len(recs) == 0 {
			continue
		}
		deliveries++
		kept := len(resp.BatchItemFailures) == 1
		if want := deliveries < runner.DefaultParkAfterReceives; kept != want {
			t.Fatalf("delivery %d (receive count %s): kept = %v, want %v", deliveries, recs[0].Attributes["ApproximateReceiveCount"], kept, want)
		}
	}
	if deliveries < runner.DefaultParkAfterReceives {
		t.Fatalf("only %d deliveries in 8 s", deliveries)
	}
	it := l.get(t, "b")
	if it.Attempts[work.LLM] != 0 || it.FailureCount != 0 || it.LastError.ErrorClass != work.BudgetExceeded ||
		it.State != work.Retryable || it.Carrier != "" {
		t.Fatalf("after %d budget waits: %s attempts %v failure_count %d carrier %q", deliveries, it.State, it.Attempts, it.FailureCount, it.Carrier)
	}
	parked := &store.Parked{DB: dynamodb.NewFromConfig(l.env.AWS), Table: l.items.ParkedTable}
	w, err := parked.Get(context.Background(), "b")
	if err != nil || !w.Gate.IsDue() || w.Stage != work.LLM {
		t.Fatalf("parked wait: %+v, %v", w, err)
	}
	if ps := l.deadLetters(t); len(ps) != 0 {
		t.Fatalf("budget waits dead-lettered: %+v", ps)
	}
}

func TestLiveMalformedRecordAndTheRestOfTheBatch(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.Fetch)
	l.seed(t, "g1", work.Fetch)
	l.seed(t, "g2", work.Fetch)
	l.send(t, l.envelope("g1"))
	l.send(t, `{"item_id": 42, "stage": "fetch"}`)
	l.send(t, l.envelope("g2"))
	handled := 0
	for range 5 {
		recs, resp := l.pump(t, time.Second)
		handled += len(recs)
		if len(resp.BatchItemFailures) != 0 {
			t.Fatalf("kept %v; every record has a durable outcome", resp.BatchItemFailures)
		}
		if handled == 3 {
			break
		}
	}
	ps := l.deadLetters(t)
	if len(ps) != 1 || ps[0].ErrorClass != work.SchemaInvalid {
		t.Fatalf("dead letters = %+v, want one SCHEMA_INVALID", ps)
	}
	if fwd := l.drain(t, l.runner.NextQueueURL); len(fwd) != 2 {
		t.Fatalf("forwarded %d, want the 2 good records", len(fwd))
	}
}

func TestLiveDLQSendFailureLeavesTheRecordInTheQueue(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.Notify)
	realDLQ := l.runner.DLQURL
	l.runner.DLQURL = l.runner.QueueURL + "-does-not-exist"
	l.work = func(context.Context, store.Item) (work.Output, error) {
		return work.Output{}, httpErr(failure.Webhook, 404, "channel_not_found")
	}
	l.seed(t, "d", work.Notify)
	l.send(t, l.envelope("d"))
	if _, resp := l.pump(t, 2*time.Second); len(resp.BatchItemFailures) != 1 {
		t.Fatal("record acknowledged although its dead letter could not be sent")
	}
	if it := l.get(t, "d"); it.State != work.Failed {
		t.Fatalf("state %s, want failed (hand-off pending)", it.State)
	}
	l.runner.DLQURL = realDLQ
	var recs []events.SQSMessage
	for end := time.Now().Add(6 * time.Second); len(recs) == 0 && time.Now().Before(end); {
		recs, _ = l.pump(t, time.Second)
	}
	if len(recs) != 1 {
		t.Fatal("the kept record did not come back")
	}
	if ps := l.deadLetters(t); len(ps) != 1 || ps[0].ErrorClass != work.NotFound {
		t.Fatalf("dead letters after recovery: %+v", ps)
	}
	if l.calls.Load() != 1 {
		t.Fatalf("upstream calls = %d; completing the hand-off must not call it again", l.calls.Load())
	}
	if it := l.get(t, "d"); it.State != work.Deadletter {
		t.Fatalf("state %s, want deadletter", it.State)
	}
}

func TestLiveDuplicateOfFinishedWork(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.LLM)
	l.seed(t, "dup", work.LLM)
	l.send(t, l.envelope("dup"))
	l.pump(t, 2*time.Second)
	l.send(t, l.envelope("dup"))
	l.send(t, l.envelope("dup"))
	for range 3 {
		if recs, resp := l.pump(t, time.Second); len(resp.BatchItemFailures) != 0 {
			t.Fatalf("duplicates kept: %v", resp.BatchItemFailures)
		} else if len(recs) == 0 {
			break
		}
	}
	if l.calls.Load() != 1 {
		t.Fatalf("upstream calls = %d for one item delivered three times, want 1", l.calls.Load())
	}
}

func TestLiveRecordsNotReachedBeforeTheDeadline(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.Fetch)
	clock := clock.NewStub(time.Now())
	l.runner.Clock, l.runner.Concurrency = clock, 1
	l.work = func(context.Context, store.Item) (work.Output, error) {
		clock.Advance(2 * time.Second) // each record takes 2 s
		return okOutput(work.Fetch), nil
	}
	var recs []events.SQSMessage
	for i := range 4 {
		id := "dl" + strconv.Itoa(i)
		l.seed(t, id, work.Fetch)
		env := work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "c"}
		recs = append(recs, events.SQSMessage{MessageId: "m" + strconv.Itoa(i), ReceiptHandle: "not-a-real-handle", Body: env.Encode(),
			Attributes: map[string]string{"ApproximateReceiveCount": "1"}})
	}
	// 8 s to the deadline, 3 s margin, 2 s per record: two records fit.
	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(8*time.Second))
	defer cancel()
	resp, _ := l.runner.Handle(ctx, events.SQSEvent{Records: recs})
	if len(resp.BatchItemFailures) != 2 {
		t.Fatalf("kept %v, want the last two", resp.BatchItemFailures)
	}
	for _, id := range []string{"dl2", "dl3"} {
		if it := l.get(t, id); it.State != work.Queued || it.Attempts[work.Fetch] != 0 || it.LeaseOwner != "" {
			t.Fatalf("%s: %s attempts %v lease %q — records not reached must be untouched", id, it.State, it.Attempts, it.LeaseOwner)
		}
	}
}

func TestLiveConcurrentHandlersNeverLoseAnUpdate(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.LLM)
	l.work = func(context.Context, store.Item) (work.Output, error) {
		return work.Output{}, httpErr(failure.OpenAI, 500, "")
	}
	l.runner.Profile = func() *policy.Profile {
		p := policy.Standard()
		pol := p.Policies[work.UpstreamUnavailable]
		pol.MaxAttempts = 1000
		p.Policies[work.UpstreamUnavailable] = pol
		return p
	}()
	l.seed(t, "c", work.LLM)
	env := work.Envelope{ItemID: "c", Stage: work.LLM, CorrelationID: "corr-c"}.Encode()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 5 {
				rec := events.SQSMessage{MessageId: fmt.Sprintf("g%d-r%d", g, r), ReceiptHandle: "h", Body: env,
					Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
				if _, err := l.runner.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{rec}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	it := l.get(t, "c")
	if calls := int(l.calls.Load()); calls == 0 || it.Attempts[work.LLM] != calls || it.FailureCount != calls {
		t.Fatalf("upstream calls %d, attempts %d, failure_count %d: every failed call must be counted exactly once",
			calls, it.Attempts[work.LLM], it.FailureCount)
	}
	if it.State == work.Working {
		t.Fatal("an item was left working")
	}
}

// TestLiveAWSRequestsPerItem pins the cost of one stage: DynamoDB writes per
// item on the happy path and per failure (docs/design.md "One record, step
// by step": ≤ 2 and ≤ 2 more), with the owner's notices on as deployed: a
// story's requests are the same with them, an action's dead letter adds one
// SendMessage (its item.failed).
func TestLiveAWSRequestsPerItem(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.LLM)
	l.seed(t, "ok", work.LLM)
	happy := l.requests(t, "ok")
	l.work = func(context.Context, store.Item) (work.Output, error) {
		return work.Output{}, httpErr(failure.OpenAI, 500, "")
	}
	l.seed(t, "bad", work.LLM)
	failed := l.requests(t, "bad")
	l.work = func(context.Context, store.Item) (work.Output, error) {
		return work.Output{}, httpErr(failure.OpenAI, 400, `{"error":{"code":"content_policy_violation","message":"no"}}`)
	}
	l.seed(t, "dead", work.LLM)
	dead := l.requests(t, "dead")
	writes := func(c map[string]int64) int64 {
		return c["DynamoDB.UpdateItem"] + c["DynamoDB.PutItem"] + c["DynamoDB.TransactWriteItems"]
	}
	t.Logf("happy path: %s", conf.Format(happy))
	t.Logf("retryable failure: %s", conf.Format(failed))
	if w := writes(happy); w > 2 {
		t.Errorf("happy path: %d DynamoDB writes, target ≤ 2", w)
	}
	if extra := writes(failed) - writes(happy); extra > 2 {
		t.Errorf("failure: %d DynamoDB writes more than the happy path, target ≤ 2", extra)
	}
	// A dead letter: the claim, the failure, the confirmation of the
	// hand-off and the error-log entry; one DLQ send, no forward.
	t.Logf("dead letter: %s", conf.Format(dead))
	if extra := writes(dead) - writes(happy); extra > 2 {
		t.Errorf("dead letter: %d DynamoDB writes more than the happy path, target ≤ 2", extra)
	}
	if dead["SQS.SendMessage"] != 1 || dead["SQS.SendMessageBatch"] != 0 {
		t.Errorf("dead letter: %d DLQ sends and %d forwards, want 1 and 0", dead["SQS.SendMessage"], dead["SQS.SendMessageBatch"])
	}
}

// TestLiveActionNoticeCost pins what the owner's notice adds: an action
// task's dead letter costs one SendMessage more (its item.failed on the
// notice queue), nothing else.
func TestLiveActionNoticeCost(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.LLM)
	l.work = func(context.Context, store.Item) (work.Output, error) {
		return work.Output{}, httpErr(failure.OpenAI, 400, `{"error":{"code":"content_policy_violation","message":"no"}}`)
	}
	cost := func(id string, kind store.Kind) map[string]int64 {
		l.seed(t, id, work.LLM)
		it := l.get(t, id)
		it.Kind = kind
		if err := l.items.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
		return l.requests(t, id)
	}
	story, action := cost("story", store.KindStory), cost("task", store.KindAction)
	t.Logf("a story's dead letter: %s", conf.Format(story))
	t.Logf("an action's dead letter: %s", conf.Format(action))
	if len(action) != len(story) {
		t.Errorf("the action's dead letter made other kinds of request: %v vs %v", action, story)
	}
	for k, n := range story {
		if want := n + map[bool]int64{true: 1}[k == "SQS.SendMessage"]; action[k] != want {
			t.Errorf("%s: the action's dead letter made %d, want %d", k, action[k], want)
		}
	}
	if got := l.drain(t, l.env.Stack.NoticeQueueURL()); len(got) != 1 || !strings.Contains(got[0], `"notice_id":"task:item.failed:0"`) {
		t.Errorf("notice queue holds %q, want task's item.failed only", got)
	}
}

// requests sends id's envelope, hands the runner that one record as
// Lambda's event source would, and returns the AWS requests its handling
// made.
func (l *live) requests(t *testing.T, id string) map[string]int64 {
	t.Helper()
	l.send(t, l.envelope(id))
	out, err := l.sqs.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(l.runner.QueueURL), MaxNumberOfMessages: 1, WaitTimeSeconds: 2,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("receive: %v (%d)", err, len(out.Messages))
	}
	rec := poller.Event(out.Messages[:1], runnertest.QueueARN(l.runner.QueueURL), "us-east-1")
	l.counter.Take()
	l.runner.Handle(context.Background(), rec)
	return l.counter.Take()
}

// TestLiveHappyPathRequestsPerStage drives items through all three stages
// against moto, each stage reading the body it needs (runner.WithBodies) and
// writing its own, and pins docs/design.md's figure: at most 2 DynamoDB write
// requests per stage on the happy path, the llm stage included. A document
// above the threshold costs one S3 PutObject (fetch) and one GetObject
// (llm); a small one rides in the success transaction.
func TestLiveHappyPathRequestsPerStage(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	counter := conf.NewCounter()
	cfg := env.AWS.Copy()
	cfg.APIOptions = append(cfg.APIOptions, counter.Register)
	q := sqs.NewFromConfig(cfg)
	db := dynamodb.NewFromConfig(cfg)
	items := env.Items()
	items.DB = db
	items.Bodies.Objects = &objects.Bucket{S3: objects.NewClient(cfg), Name: env.Stack.BodiesBucket()}
	enrichment := work.Enrichment{SummaryNeutral: "Markets rallied as rates held.", SummarySpicy: "Bulls run!",
		Category: "markets", Severity: "low", PrimaryActor: "Fed", TopEntities: []string{"Fed"}, Model: "gpt-4o-mini"}
	var seen []store.Item // what each stage's work was given
	rn := func(st work.Stage, doc string) *runner.Runner {
		job := runner.Work(runner.WorkFunc(func(_ context.Context, it store.Item) (work.Output, error) {
			seen = append(seen, it)
			switch st {
			case work.Fetch:
				return work.Output{Document: &work.Document{Text: doc, Bytes: len(doc), ContentType: "text/html"}}, nil
			case work.LLM:
				e := enrichment
				return work.Output{Enrichment: &e}, nil
			}
			return work.Output{Delivery: &work.WebhookDelivery{Status: 200, IdempotencyKey: it.ID + ":notify"}}, nil
		}))
		switch st {
		case work.LLM:
			job = runner.WithBodies{Inner: job, Bodies: items, Parts: []store.Part{store.PartDocument}}
		case work.Notify:
			job = runner.WithBodies{Inner: job, Bodies: items, Parts: []store.Part{store.PartEnrichment}}
		}
		next := ""
		if n, ok := st.Next(); ok {
			next = env.Stack.QueueURL(n)
		}
		return &runner.Runner{Stage: st, Work: job, Items: items, ErrorLog: &store.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()},
			SQS: q, QueueURL: env.Stack.QueueURL(st), DLQURL: env.Stack.DLQURL(st), NextQueueURL: next,
			Profile: policy.Standard(), Rand: func() float64 { return 0 }}
	}
	ctx := context.Background()
	for _, doc := range []string{strings.Repeat("small ", 100), randomText(32_000)} {
		seen = nil
		id := fmt.Sprintf("doc-%d", len(doc))
		if _, err := items.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, SourceURL: "https://news.example/" + id,
			WebhookURL: "https://hooks.example/" + id, CorrelationID: "corr-" + id, Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(env.Stack.QueueURL(work.Fetch)),
			MessageBody: aws.String(work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "corr-" + id}.Encode())}); err != nil {
			t.Fatal(err)
		}
		for _, st := range work.Stages() {
			r := rn(st, doc)
			counter.Take()
			var recs []events.SQSMessage
			for try := 0; len(recs) == 0 && try < 5; try++ {
				recs, _ = runnertest.Pump(ctx, t, q, r.QueueURL, r.Handle, time.Second)
			}
			c := counter.Take()
			writes := c["DynamoDB.UpdateItem"] + c["DynamoDB.PutItem"] + c["DynamoDB.TransactWriteItems"]
			t.Logf("%d-byte document, %s: %d DynamoDB writes, %s", len(doc), st, writes, conf.Format(c))
			if len(recs) != 1 {
				t.Fatalf("%s: %d records", st, len(recs))
			}
			if writes > 2 {
				t.Errorf("%s with a %d-byte document: %d DynamoDB write requests, target ≤ 2", st, len(doc), writes)
			}
			large := len(doc) > store.DefaultBodyThreshold
			wantPut, wantGet := int64(0), int64(0)
			if large && st == work.Fetch {
				wantPut = 1
			}
			if large && st == work.LLM {
				wantGet = 1
			}
			if c["S3.PutObject"] != wantPut || c["S3.GetObject"] != wantGet {
				t.Errorf("%s with a %d-byte document: %d PutObject and %d GetObject, want %d and %d",
					st, len(doc), c["S3.PutObject"], c["S3.GetObject"], wantPut, wantGet)
			}
		}
		if len(seen) != 3 || seen[1].Document.Text != doc || seen[2].Enrichment.SummarySpicy != "Bulls run!" {
			t.Fatalf("the stages were not given their bodies: %d runs", len(seen))
		}
		if it, err := items.Get(ctx, id); err != nil || it.State != work.Done {
			t.Fatalf("item %s: %+v, %v", id, it, err)
		}
	}
}

// randomText is n bytes of random hex digits: text gzip cannot shrink much
// (a repeated phrase would compress under the body threshold).
func randomText(n int) string {
	b := make([]byte, n/2+1)
	for i := range b {
		b[i] = byte(i*7919 + i*i*31 + i>>3)
	}
	sum := sha256.Sum256(b)
	var s strings.Builder
	for s.Len() < n {
		sum = sha256.Sum256(sum[:])
		s.WriteString(hex.EncodeToString(sum[:]))
	}
	return s.String()[:n]
}
