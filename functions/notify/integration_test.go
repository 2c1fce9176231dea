package main

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/stage/stagetest"
	"github.com/triagehq/triage/shared/state"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// TestDuplicateDeliveriesReachTheWebhookOnce delivers one item to the notify
// stage three times — twice before it finished, once after — and checks the
// receiver got exactly one delivery.
func TestDuplicateDeliveriesReachTheWebhookOnce(t *testing.T) {
	t.Parallel()
	const secret = "whsec_integration_secret"
	hook := fakes.NewWebhook(fakes.WebhookOptions{Secret: secret})
	srv, err := fakes.Start("", hook)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	env := localtest.Stack(t, nil)
	ctx := context.Background()
	q := sqs.NewFromConfig(env.AWS)
	db := dynamodb.NewFromConfig(env.AWS)
	items := &state.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	r := &stage.Runner{
		Stage: pipeline.Notify,
		Work:  NewNotifier(NotifierConfig{Secret: func(context.Context) ([]byte, error) { return []byte(secret), nil }}),
		Items: items, ErrorLog: &state.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()}, SQS: q,
		QueueURL: env.Stack.QueueURL(pipeline.Notify), DLQURL: env.Stack.DLQURL(pipeline.Notify), Profile: retry.Standard(),
	}
	if err := items.Put(ctx, state.Item{ID: "once", Kind: state.KindStory, CorrelationID: "c-once", Status: state.Enriched,
		State: state.Queued, Stage: pipeline.Notify, WebhookURL: srv.URL + "/hooks/demo",
		Enrichment: &state.Enrichment{SummaryNeutral: "n", SummarySpicy: "s", Category: "c", Severity: "low", PrimaryActor: "a",
			TopEntities: []string{"e"}, Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	body := pipeline.Envelope{ItemID: "once", Stage: pipeline.Notify, CorrelationID: "c-once"}.Encode()
	send := func() {
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(r.QueueURL), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	send()
	send()
	handled := 0
	for end := time.Now().Add(10 * time.Second); handled < 2 && time.Now().Before(end); {
		recs, _ := stagetest.Pump(ctx, t, q, r.QueueURL, r.Handle, time.Second)
		handled += len(recs)
	}
	send()
	for end := time.Now().Add(5 * time.Second); handled < 3 && time.Now().Before(end); {
		recs, _ := stagetest.Pump(ctx, t, q, r.QueueURL, r.Handle, time.Second)
		handled += len(recs)
	}
	if handled != 3 {
		t.Fatalf("handled %d deliveries, want 3", handled)
	}
	if n := hook.DeliveryCount(IdempotencyKey("once")); n != 1 {
		t.Fatalf("webhook received %d deliveries for one item, want exactly 1", n)
	}
	if it, err := items.Get(ctx, "once"); err != nil || it.State != state.Done || it.Delivery == nil {
		t.Fatalf("item %+v, %v", it, err)
	}
}
