package main

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// TestDuplicateDeliveriesReachTheWebhookOnce delivers one item to the notify
// stage three times — twice before it finished, once after — and checks the
// receiver got exactly one delivery.
func TestDuplicateDeliveriesReachTheWebhookOnce(t *testing.T) {
	t.Parallel()
	hook, srv, env, q, db := webhookStack(t)
	ctx := context.Background()
	items := &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	r := &runner.Runner{
		Stage: work.Notify,
		Work:  signingNotifier(),
		Items: items, ErrorLog: &store.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()}, SQS: q,
		QueueURL: env.Stack.QueueURL(work.Notify), DLQURL: env.Stack.DLQURL(work.Notify), Profile: policy.Standard(),
	}
	if err := items.Put(ctx, store.Item{ID: "once", Kind: store.KindStory, CorrelationID: "c-once", Status: work.Enriched,
		State: work.Queued, Stage: work.Notify, WebhookURL: srv.URL + "/hooks/demo",
		Enrichment: &work.Enrichment{SummaryNeutral: "n", SummarySpicy: "s", Category: "c", Severity: "low", PrimaryActor: "a",
			TopEntities: []string{"e"}, Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	body := work.Envelope{ItemID: "once", Stage: work.Notify, CorrelationID: "c-once"}.Encode()
	send := func() {
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(r.QueueURL), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	send()
	send()
	handled := 0
	for end := time.Now().Add(10 * time.Second); handled < 2 && time.Now().Before(end); {
		recs, _ := runnertest.Pump(ctx, t, q, r.QueueURL, r.Handle, time.Second)
		handled += len(recs)
	}
	send()
	for end := time.Now().Add(5 * time.Second); handled < 3 && time.Now().Before(end); {
		recs, _ := runnertest.Pump(ctx, t, q, r.QueueURL, r.Handle, time.Second)
		handled += len(recs)
	}
	if handled != 3 {
		t.Fatalf("handled %d deliveries, want 3", handled)
	}
	if n := hook.DeliveryCount(idempotencyKey("once")); n != 1 {
		t.Fatalf("webhook received %d deliveries for one item, want exactly 1", n)
	}
	if it, err := items.Get(ctx, "once"); err != nil || it.State != work.Done || it.Delivery == nil {
		t.Fatalf("item %+v, %v", it, err)
	}
}

// TestDeadLetteredActionNoticeReachesItsOwnerOnce dead-letters an action
// task through the llm stage's runner on moto, duplicates its notice on the
// notice queue (an SDK retry of the enqueue), makes the receiver refuse the
// first attempt, and delivers the queue: the owner's webhook receives
// exactly one item.failed, signed, and the ledger says delivered after two
// attempts.
func TestDeadLetteredActionNoticeReachesItsOwnerOnce(t *testing.T) {
	t.Parallel()
	hook, srv, env, q, db := webhookStack(t)
	ctx := context.Background()
	items := &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable()}
	noticeURL := env.Stack.NoticeQueueURL()
	llm := &runner.Runner{
		Stage: work.LLM,
		Work: runner.WorkFunc(func(context.Context, store.Item) (work.Output, error) {
			return work.Output{}, failure.New(work.ContentPolicy, "model refused the request")
		}),
		Items: items, ErrorLog: &store.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()}, SQS: q,
		QueueURL: env.Stack.QueueURL(work.LLM), DLQURL: env.Stack.DLQURL(work.LLM), NextQueueURL: env.Stack.QueueURL(work.Notify),
		Profile: policy.Standard(), Notices: &notice.Sender{SQS: q, QueueURL: noticeURL},
	}
	if err := items.Put(ctx, store.Item{ID: "task", Kind: store.KindAction, CorrelationID: "c-task", Status: work.Fetched,
		State: work.Queued, Stage: work.LLM, WebhookURL: srv.URL + "/hooks/owner", Document: &work.Document{Text: "close ticket 7"}}); err != nil {
		t.Fatal(err)
	}
	body := work.Envelope{ItemID: "task", Stage: work.LLM, CorrelationID: "c-task"}.Encode()
	if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(llm.QueueURL), MessageBody: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := runnertest.Pump(ctx, t, q, llm.QueueURL, llm.Handle, 2*time.Second); len(recs) != 1 {
		t.Fatalf("llm handled %d records", len(recs))
	}
	// The enqueued notice, sent once more: the duplicate an SDK retry of an
	// applied SendMessage makes.
	out, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(noticeURL), WaitTimeSeconds: 1})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("notice queue: %v, %d messages", err, len(out.Messages))
	}
	if _, err := q.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(noticeURL),
		ReceiptHandle: out.Messages[0].ReceiptHandle, VisibilityTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(noticeURL), MessageBody: out.Messages[0].Body}); err != nil {
		t.Fatal(err)
	}
	n, err := notice.Decode(aws.ToString(out.Messages[0].Body))
	if err != nil {
		t.Fatal(err)
	}
	if err := hook.SetScripts(map[string][]fakes.Fault{n.ID: {fakes.FaultUnavailable}}, false); err != nil {
		t.Fatal(err)
	}
	trail := &ledger.Trail{DB: db, Table: env.Stack.AuditTable()}
	h := &notice.Handler{Items: items, Ledger: trail, SQS: q, QueueURL: noticeURL, InitialDelay: time.Second,
		Poster: signingNotifier()}
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		runnertest.Pump(ctx, t, q, noticeURL, h.Handle, time.Second)
		if depth := queueDepth(t, q, noticeURL); depth == 0 && hook.DeliveryCount(n.ID) > 0 {
			break
		}
	}
	if got := hook.DeliveryCount(n.ID); got != 1 {
		t.Fatalf("the owner's webhook got %d item.failed, want exactly 1", got)
	}
	d := hook.Deliveries()[0]
	var got notice.Notice
	if err := json.Unmarshal(d.Body, &got); err != nil || !d.SignatureValid {
		t.Fatalf("delivery %+v: %v", d, err)
	}
	if got.Class != work.ContentPolicy || got.Stage != work.LLM || got.Attempt != 1 || got.DeadLetterID == "" {
		t.Fatalf("notice %+v", got)
	}
	entries, err := trail.ForItem(ctx, "task", 0)
	if err != nil || len(entries) != 1 || entries[0].Notice == nil {
		t.Fatalf("trail %+v, %v", entries, err)
	}
	if l := entries[0].Notice; l.State != ledger.NoticeDelivered || l.Attempts != 2 || l.LastClass != work.UpstreamUnavailable {
		t.Fatalf("ledger %+v", l)
	}
}

// integrationSecret is the webhook signing secret of the tests on moto.
const integrationSecret = "whsec_integration_secret"

// webhookStack is the setup of the tests on moto: a fake webhook receiver
// checking signatures with integrationSecret, served on loopback, and a new
// stack with its SQS and DynamoDB clients.
func webhookStack(t *testing.T) (*fakes.Webhook, *fakes.Server, *localtest.Env, *sqs.Client, *dynamodb.Client) {
	t.Helper()
	hook := fakes.NewWebhook(fakes.WebhookOptions{Secret: integrationSecret})
	srv := fakes.StartTest(t, hook)
	env := localtest.Stack(t, nil)
	return hook, srv, env, sqs.NewFromConfig(env.AWS), dynamodb.NewFromConfig(env.AWS)
}

// signingNotifier is the notify stage's client signing with
// integrationSecret.
func signingNotifier() *notifier {
	return newNotifier(notifierConfig{Secret: func(context.Context) ([]byte, error) { return []byte(integrationSecret), nil }})
}

func queueDepth(t *testing.T, q *sqs.Client, url string) int {
	t.Helper()
	out, err := q.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range out.Attributes {
		k, _ := strconv.Atoi(v)
		n += k
	}
	return n
}
