package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/store"
)

// A producer's one message, through real SQS and DynamoDB: the fetch stage
// creates the row, a resubmission is absorbed, a changed spec is a dead
// letter naming the change, and no producer wrote DynamoDB.
func TestLiveSubmittedItemsAreCreatedByTheFetchStage(t *testing.T) {
	t.Parallel()
	l := setupLive(t, work.Fetch)
	p := &intake.Producer{SQS: l.sqs, QueueURL: l.runner.QueueURL}
	spec := func(id string) intake.Spec {
		return intake.Spec{ItemID: id, Kind: store.KindAction, SourceURL: "https://tasks.example.com/" + id,
			WebhookURL: "https://hooks.example.com/t", Metadata: map[string]string{"schedule": "daily"}}
	}
	ctx := context.Background()
	for _, r := range p.SubmitBatch(ctx, []intake.Spec{spec("a"), spec("b"), spec("a")}) {
		if !r.OK() {
			t.Fatalf("submit %s: %v", r.ItemID, r.Err)
		}
	}
	l.pump(t, 5*time.Second)
	if got := l.calls.Load(); got != 2 {
		t.Fatalf("work ran %d times, want 2 (a and b; the second a is a duplicate)", got)
	}
	for _, id := range []string{"a", "b"} {
		it := l.get(t, id)
		if it.State != work.Queued || it.Stage != work.LLM || it.Kind != store.KindAction ||
			it.Metadata["schedule"] != "daily" || it.CorrelationID != id {
			t.Fatalf("item %s: %+v", id, it)
		}
	}
	changed := spec("b")
	changed.WebhookURL = "https://hooks.example.com/other"
	if _, err := p.Submit(ctx, changed); err != nil {
		t.Fatal(err)
	}
	l.pump(t, 5*time.Second)
	dls := l.deadLetters(t)
	if len(dls) != 1 || dls[0].ErrorClass != work.SchemaInvalid || dls[0].Message == nil {
		t.Fatalf("dead letters %+v, want the conflict with its message", dls)
	}
	if it := l.get(t, "b"); it.WebhookURL != "https://hooks.example.com/t" {
		t.Fatalf("the conflict changed the item: %s", it.WebhookURL)
	}
}
