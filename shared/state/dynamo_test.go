package state_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

// replayingDB sends every UpdateItem twice and answers with the second
// result: what a client sees when the first response is lost and the SDK
// retries a request DynamoDB had already applied.
type replayingDB struct{ *dynamodb.Client }

func (r replayingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if _, err := r.Client.UpdateItem(ctx, in, opts...); err != nil {
		return nil, err
	}
	return r.Client.UpdateItem(ctx, in, opts...)
}

func TestRetriedWritesAreRecognisedAsApplied(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	plain := &state.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable()}
	replayed := &state.Items{DB: replayingDB{db}, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable()}
	ctx := context.Background()
	if _, err := plain.Create(ctx, state.NewItem{ID: "r", Kind: state.KindStory, CorrelationID: "c", Now: t0}); err != nil {
		t.Fatal(err)
	}
	claim := func(owner string, now time.Time) {
		t.Helper()
		if _, err := plain.Claim(ctx, state.ClaimRequest{ItemID: "r", Stage: pipeline.Fetch, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	claim("m#1", t0)
	n, err := replayed.Fail(ctx, state.FailRequest{ItemID: "r", Stage: pipeline.Fetch, Owner: "m#1", Now: t0, Counts: true,
		Next: state.Retryable, NotBefore: t0, LastError: state.LastError{ErrorClass: failure.NetworkTimeout}})
	if err != nil || n != 1 {
		t.Fatalf("retried fail: %d, %v; want 1, nil (the write was applied once)", n, err)
	}
	claim("m#2", t0.Add(time.Minute))
	if err := replayed.Release(ctx, state.ReleaseRequest{ItemID: "r", Stage: pipeline.Fetch, Owner: "m#2", Now: t0.Add(time.Minute), NotBefore: t0.Add(2 * time.Minute)}); err != nil {
		t.Fatalf("retried release: %v", err)
	}
	claim("m#3", t0.Add(2*time.Minute))
	if err := replayed.Complete(ctx, state.CompleteRequest{ItemID: "r", Stage: pipeline.Fetch, Owner: "m#3", Now: t0.Add(2 * time.Minute),
		Output: state.Output{Document: &state.Document{Text: "x"}}}); err != nil {
		t.Fatalf("retried complete: %v", err)
	}
	it, err := plain.Get(ctx, "r")
	if err != nil || it.Stage != pipeline.LLM || it.Attempts[pipeline.Fetch] != 1 {
		t.Fatalf("item %+v, %v", it, err)
	}
	// A write that really lost stays a conflict.
	if err := replayed.Complete(ctx, state.CompleteRequest{ItemID: "r", Stage: pipeline.Fetch, Owner: "m#3", Now: t0.Add(3 * time.Minute)}); err == nil {
		t.Fatal("a complete without the lease succeeded")
	}
}
