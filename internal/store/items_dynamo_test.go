package store_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestRetriedWritesAreRecognisedAsApplied(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	plain := &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	replayed := &store.Items{DB: localtest.ReplayingDB{Client: db}, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	ctx := context.Background()
	if _, err := plain.Create(ctx, store.NewItem{ID: "r", Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0}); err != nil {
		t.Fatal(err)
	}
	claim := func(owner string, now time.Time) {
		t.Helper()
		if _, err := plain.Claim(ctx, store.ClaimRequest{ItemID: "r", Stage: work.Fetch, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	claim("m#1", t0)
	n, err := replayed.Fail(ctx, store.FailRequest{ItemID: "r", Stage: work.Fetch, Owner: "m#1", Now: t0, Counts: true,
		Next: work.Retryable, NotBefore: t0, LastError: store.LastError{ErrorClass: work.NetworkTimeout}})
	if err != nil || n != 1 {
		t.Fatalf("retried fail: %d, %v; want 1, nil (the write was applied once)", n, err)
	}
	claim("m#2", t0.Add(time.Minute))
	if err := replayed.Release(ctx, store.ReleaseRequest{ItemID: "r", Stage: work.Fetch, Owner: "m#2", Now: t0.Add(time.Minute), NotBefore: t0.Add(2 * time.Minute)}); err != nil {
		t.Fatalf("retried release: %v", err)
	}
	claim("m#3", t0.Add(2*time.Minute))
	if err := replayed.Complete(ctx, store.CompleteRequest{ItemID: "r", Stage: work.Fetch, Owner: "m#3", Now: t0.Add(2 * time.Minute),
		Output: work.Output{Document: &work.Document{Text: "x"}}}); err != nil {
		t.Fatalf("retried complete: %v", err)
	}
	it, err := plain.Get(ctx, "r")
	if err != nil || it.Stage != work.LLM || it.Attempts[work.Fetch] != 1 {
		t.Fatalf("item %+v, %v", it, err)
	}
	// A write that really lost stays a conflict.
	if err := replayed.Complete(ctx, store.CompleteRequest{ItemID: "r", Stage: work.Fetch, Owner: "m#3", Now: t0.Add(3 * time.Minute)}); err == nil {
		t.Fatal("a complete without the lease succeeded")
	}
}

// blindDB is localtest.ReplayingDB without the item on the condition failure and
// without reads: the store cannot tell whether its own write was applied.
type blindDB struct{ localtest.ReplayingDB }

func (b blindDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := b.ReplayingDB.UpdateItem(ctx, in, opts...)
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		ccf.Item = nil
	}
	return out, err
}

func (b blindDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := b.ReplayingDB.TransactWriteItems(ctx, in, opts...)
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for i := range tce.CancellationReasons {
			tce.CancellationReasons[i].Item = nil
		}
	}
	return out, err
}

func (blindDB) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errors.New("injected: read failed")
}

// TestUnverifiableWriteIsNotAConflict: when a retried write fails its
// condition and the store cannot see the item, it must not report a lost
// race (the runner would acknowledge the record and strand the item): the
// outcome is unknown, and the error says so without matching ErrConflict.
func TestUnverifiableWriteIsNotAConflict(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	plain := &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	blind := &store.Items{DB: blindDB{localtest.ReplayingDB{Client: db}}, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	ctx := context.Background()
	// Both shapes of the success write: a plain update (a delivery) and
	// the transaction with a document's sibling item.
	for i, out := range []work.Output{{Delivery: &work.WebhookDelivery{Status: 200}}, {Document: &work.Document{Text: "x"}}} {
		id := "u" + strconv.Itoa(i)
		if _, err := plain.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0}); err != nil {
			t.Fatal(err)
		}
		if _, err := plain.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.Fetch, Owner: "m#1", Carrier: "m", Now: t0, LeaseFor: time.Minute}); err != nil {
			t.Fatal(err)
		}
		err := blind.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Fetch, Owner: "m#1", Now: t0, Output: out})
		if err == nil || errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), "outcome unknown") {
			t.Fatalf("%+v: err = %v; want an outcome-unknown error that is not ErrConflict", out, err)
		}
	}
}

// TestEveryWriteSetsItsIndexKey: every write that moves an item puts it in
// the by-listed-state partition of its new group, in the same request, so
// the index lists and counts every state: listed by its creation while in
// flight or retrying (so that those moves rewrite nothing), by the time it
// failed, was dead-lettered or ended otherwise.
func TestEveryWriteSetsItsIndexKey(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	s := env.Items()
	ctx := context.Background()
	raw := func(id string) string {
		t.Helper()
		out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.Table,
			Key: map[string]types.AttributeValue{"item_id": &types.AttributeValueMemberS{Value: id}}})
		if err != nil {
			t.Fatal(err)
		}
		k, _ := out.Item["list_key"].(*types.AttributeValueMemberS)
		at, _ := out.Item["list_at"].(*types.AttributeValueMemberS)
		if k == nil || at == nil {
			return ""
		}
		return k.Value + " " + at.Value
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const id = "indexed"
	// want: the entry of the item's group, listed by its creation (t0) in
	// flight and retrying, else by when it entered the group.
	want := func(st work.State, stage work.Stage, at time.Time) {
		t.Helper()
		if k, w := raw(id), store.ListKey(id, st, 0)+" "+store.FormatTime(at); k != w {
			t.Fatalf("%s at %s: entry %q, want %q", st, stage, k, w)
		}
	}
	_, err := s.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0})
	must(err)
	want(work.Queued, work.Fetch, t0)
	_, err = s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.Fetch, Owner: "o#1", Carrier: "o", Now: t0.Add(time.Second), LeaseFor: time.Minute})
	must(err)
	want(work.Working, work.Fetch, t0)
	_, err = s.Fail(ctx, store.FailRequest{ItemID: id, Stage: work.Fetch, Owner: "o#1", Now: t0.Add(time.Second), Counts: true, Next: work.Retryable,
		NotBefore: t0, LastError: store.LastError{ErrorClass: work.NetworkTimeout}})
	must(err)
	want(work.Retryable, work.Fetch, t0)
	_, err = s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.Fetch, Owner: "o#2", Carrier: "o", Now: t0.Add(time.Minute), LeaseFor: time.Minute})
	must(err)
	_, err = s.Fail(ctx, store.FailRequest{ItemID: id, Stage: work.Fetch, Owner: "o#2", Now: t0.Add(time.Minute), PrevAttempts: 1,
		Counts: true, Next: work.Failed, LastError: store.LastError{ErrorClass: work.NotFound}})
	must(err)
	want(work.Failed, work.Fetch, t0.Add(time.Minute))
	must(s.MarkDeadLettered(ctx, id, work.Fetch, store.DeadLetterRef{ID: "dl", Stage: work.Fetch, Class: work.NotFound, At: t0, Attempt: 2}, t0.Add(90*time.Second)))
	want(work.Deadletter, work.Fetch, t0.Add(90*time.Second))
	_, err = s.Replay(ctx, store.ReplayRequest{ItemID: id, Stage: work.Fetch, Note: "fixed", By: "oncall", Now: t0.Add(2 * time.Minute)})
	must(err)
	want(work.Queued, work.Fetch, t0)
	now := t0.Add(3 * time.Minute)
	for i, st := range work.Stages() {
		owner := fmt.Sprintf("p#%d", i)
		_, err = s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute})
		must(err)
		if st == work.LLM {
			must(s.Release(ctx, store.ReleaseRequest{ItemID: id, Stage: st, Owner: owner, Now: now, NotBefore: now}))
			want(work.Retryable, st, t0)
			owner += "b"
			_, err = s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute})
			must(err)
		}
		must(s.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: st, Owner: owner, Now: now}))
		if next, ok := st.Next(); ok {
			want(work.Queued, next, t0)
		} else {
			want(work.Done, st, now)
		}
	}
}
