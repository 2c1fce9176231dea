package replay_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// malformed puts the dead letter of a message that named no usable item on
// the fetch DLQ, as the runner builds it, and returns its message id.
func (b *bundle) malformed(body, itemID string) string {
	p := deadletter.Build(deadletter.Input{ItemID: itemID, Stage: work.Fetch, Err: failure.New(work.SchemaInvalid, "bad"),
		Failure: failure.Of(work.SchemaInvalid, "test"), Attempts: map[work.Stage]int{work.Fetch: 1},
		FirstFailureAt: t0, LastFailureAt: t0, Body: body})
	enc, err := p.Marshal()
	if err != nil {
		panic(err)
	}
	return b.sqs.Put(dlqURL(work.Fetch), string(enc))
}

func TestResolveClosesDeadLettersWithARecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = b.store
	b.deadLetter("gone", work.Fetch, work.NotFound)
	keep := b.deadLetter("keep", work.LLM, work.AuthDenied)
	bad := b.malformed(`{"item_id":"x","source_url":"ftp://a"}`, "x")
	// A spec that conflicts with an existing item: a message dead letter
	// that names the item; resolving it must not touch the item.
	b.store.Put(store.Item{ID: "exists", State: work.Done, Stage: work.Notify})
	conflict := b.malformed(`{"item_id":"exists","source_url":"https://a.example/2","webhook_url":"https://h.example/"}`, "exists")

	sum, err := b.r.Resolve(context.Background(), replay.ResolveRequest{
		IDs: []string{"gone", bad, conflict}, Note: "article withdrawn by the publisher", By: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Selected != 3 || sum.Resolved != 3 || sum.Errors != 0 {
		t.Fatalf("summary %+v", sum)
	}
	onItem := map[string]bool{}
	for _, o := range sum.Items {
		onItem[o.ItemID] = o.OnItem
	}
	if !onItem["gone"] || onItem["x"] || onItem["exists"] {
		t.Fatalf("recorded on items %v: want only the item's own dead letter", onItem)
	}
	it := b.item(t, "gone")
	if it.Resolution == nil || it.Resolution.By != "ana" || it.Resolution.Note != "article withdrawn by the publisher" ||
		!it.Resolution.At.Equal(t0) || it.Resolution.Class != work.NotFound || it.State != work.Deadletter {
		t.Fatalf("item after resolve: %+v (resolution %+v)", it, it.Resolution)
	}
	if b.item(t, "exists").Resolution != nil {
		t.Fatal("the conflicting spec's resolution was recorded on the existing item")
	}
	rs := b.store.Resolutions()
	if len(rs) != 3 {
		t.Fatalf("error log resolutions %+v", rs)
	}
	for _, r := range rs {
		if r.By != "ana" || r.MessageID == "" || r.Stage != work.Fetch {
			t.Fatalf("resolution %+v", r)
		}
	}
	if left := b.sqs.Bodies(dlqURL(work.Fetch)); len(left) != 0 {
		t.Fatalf("fetch DLQ still holds %d messages", len(left))
	}
	if left := b.sqs.Bodies(dlqURL(work.LLM)); len(left) != 1 || left[0] != keep || b.sqs.Hidden(dlqURL(work.LLM)) != 0 {
		t.Fatalf("the unselected dead letter was not released untouched: %v", left)
	}
}

func TestResolveByFilterDryRunAndRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = b.store
	b.deadLetter("a", work.Notify, work.NotFound)
	b.deadLetter("b", work.Notify, work.AuthDenied)
	ctx := context.Background()
	if _, err := b.r.Resolve(ctx, replay.ResolveRequest{Note: "x"}); !errors.Is(err, replay.ErrNoSelection) {
		t.Fatalf("no selection: %v", err)
	}
	if _, err := b.r.Resolve(ctx, replay.ResolveRequest{All: true}); err == nil || !strings.Contains(err.Error(), "note is required") {
		t.Fatalf("no note: %v", err)
	}
	flt := replay.Filter{ErrorClass: replay.Classes{work.NotFound}}
	dry, err := b.r.Resolve(ctx, replay.ResolveRequest{Filter: flt, Note: "x", DryRun: true})
	if err != nil || dry.Resolved != 1 || dry.Items[0].Action != "would_resolve" {
		t.Fatalf("dry run %+v, %v", dry, err)
	}
	if len(b.sqs.Bodies(dlqURL(work.Notify))) != 2 || len(b.store.Resolutions()) != 0 || b.item(t, "a").Resolution != nil {
		t.Fatal("a dry run changed something")
	}
	sum, err := b.r.Resolve(ctx, replay.ResolveRequest{Filter: flt, Note: "channel deleted", By: "bo"})
	if err != nil || sum.Resolved != 1 || sum.Items[0].ItemID != "a" {
		t.Fatalf("resolve by class: %+v, %v", sum, err)
	}
	if left := b.sqs.Bodies(dlqURL(work.Notify)); len(left) != 1 {
		t.Fatalf("notify DLQ holds %d, want b only", len(left))
	}
}

// failingLog fails every append.
type failingLog struct{}

func (failingLog) AppendResolution(context.Context, store.Resolution) error {
	return errors.New("ProvisionedThroughputExceededException")
}

func TestResolveKeepsTheMessageWhenTheRecordFails(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = failingLog{}
	b.deadLetter("a", work.LLM, work.NotFound)
	sum, err := b.r.Resolve(context.Background(), replay.ResolveRequest{IDs: []string{"a"}, Note: "x", By: "c"})
	if err != nil || sum.Errors != 1 || sum.Resolved != 0 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	if left := b.sqs.Bodies(dlqURL(work.LLM)); len(left) != 1 || b.sqs.Hidden(dlqURL(work.LLM)) != 0 {
		t.Fatalf("the dead letter was not kept and released: %v", left)
	}
}

func TestReplaySkipsMessageDeadLetters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.store.Put(store.Item{ID: "exists", State: work.Deadletter, Stage: work.Fetch, Attempts: map[work.Stage]int{work.Fetch: 1}})
	b.malformed(`{"item_id":"exists","source_url":"https://a.example/2","webhook_url":"https://h.example/"}`, "exists")
	sum, err := b.r.Run(context.Background(), replay.Request{Note: "x", By: "c"})
	if err != nil || sum.Skipped != 1 || sum.Replayed != 0 {
		t.Fatalf("replay of a message dead letter: %+v, %v", sum, err)
	}
	if len(b.sqs.Bodies(dlqURL(work.Fetch))) != 1 {
		t.Fatal("a message dead letter was deleted by a replay")
	}
}

// TestResolveLeavesAnItemThatMovedOn: a copy of a dead letter whose item has
// moved on — replayed and done, or dead-lettered again later — is stale:
// resolving it deletes it and records it in the error log, and leaves the
// item's state alone.
func TestResolveLeavesAnItemThatMovedOn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = b.store
	b.deadLetter("done1", work.LLM, work.NotFound)
	b.deadLetter("again1", work.LLM, work.NotFound)
	// done1 was replayed and finished; again1 was replayed and failed at
	// its next attempt, a new dead letter.
	b.store.Put(store.Item{ID: "done1", State: work.Done, Stage: work.Notify, ReplayCount: 1, UpdatedAt: t0})
	again := b.item(t, "again1")
	again.ReplayCount, again.Attempts = 1, map[work.Stage]int{work.LLM: 1}
	b.store.Put(again)

	sum, err := b.r.Resolve(context.Background(), replay.ResolveRequest{IDs: []string{"done1", "again1"}, Note: "given up", By: "ana"})
	if err != nil || sum.Selected != 2 || sum.Errors != 0 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	for _, o := range sum.Items {
		if o.OnItem {
			t.Fatalf("%s: a stale copy's resolution was recorded on the item (%+v)", o.ItemID, o)
		}
	}
	for _, id := range []string{"done1", "again1"} {
		if it := b.item(t, id); it.Resolution != nil {
			t.Fatalf("%s: resolution %+v written on an item that moved on", id, it.Resolution)
		}
	}
	if n := len(b.sqs.Bodies(dlqURL(work.LLM))); n != 0 {
		t.Fatalf("llm DLQ holds %d, want the stale copies deleted", n)
	}
	if n := len(b.store.Resolutions()); n != 2 {
		t.Fatalf("error log holds %d resolutions, want 2", n)
	}
}

// TestResolveSendsAPendingReplayFirst: a replay written from a dead letter
// whose send failed leaves the item queued with the dead letter's message
// the only thing that can carry it. Resolving that message must send the
// replay before it deletes the message, and leave the replayed item's
// state alone.
func TestResolveSendsAPendingReplayFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = b.store
	b.deadLetter("p1", work.LLM, work.ResponseInvalid)
	b.sqs.FailSends(queueURL(work.LLM), true)
	if sum, err := b.r.Run(context.Background(), replay.Request{Note: "retry"}); err != nil || sum.Errors != 1 {
		t.Fatalf("replay with the send failing: %+v, %v", sum, err)
	}
	// The replay still cannot be sent: the dead letter stays.
	sum, err := b.r.Resolve(context.Background(), replay.ResolveRequest{IDs: []string{"p1"}, Note: "close it", By: "ana"})
	if err != nil || sum.Errors != 1 || len(b.sqs.Bodies(dlqURL(work.LLM))) != 1 || b.sqs.Hidden(dlqURL(work.LLM)) != 0 {
		t.Fatalf("resolve with the send failing: %+v, %v: want an error and the dead letter kept", sum, err)
	}
	b.sqs.FailSends(queueURL(work.LLM), false)
	sum, err = b.r.Resolve(context.Background(), replay.ResolveRequest{IDs: []string{"p1"}, Note: "close it", By: "ana"})
	if err != nil || sum.Errors != 0 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	envs := sentEnvelopes(t, b.sqs, work.LLM)
	left := len(b.sqs.Bodies(dlqURL(work.LLM)))
	if len(envs) != 1 && left == 0 {
		t.Fatalf("the pending replay's only carrier was deleted without the replay being sent (summary %+v)", sum)
	}
	if len(envs) != 1 || envs[0].ItemID != "p1" || envs[0].Replay == nil || envs[0].Replay.Count != 1 {
		t.Fatalf("sent %+v: want p1's replay", envs)
	}
	if it := b.item(t, "p1"); it.Resolution != nil || it.State != work.Queued || it.ReplayCount != 1 {
		t.Fatalf("item %+v (resolution %+v): want the replay left as it is", it, it.Resolution)
	}
}

// TestResolveLeavesAStuckItemsBackstopMessage: a raw envelope the stage
// queue's backstop moved, whose item is still queued at that stage, is the
// only message that carries the item, and the item is no permanent failure
// a replay from item state would revive. Resolving it would leave the item
// queued for good, counted in flight; it is left on the DLQ for the
// backstop schedule to resume, and reported as skipped.
func TestResolveLeavesAStuckItemsBackstopMessage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = b.store
	b.store.Put(store.Item{ID: "stuck", CorrelationID: "c", State: work.Queued, Stage: work.LLM, Status: work.StatusAfter(work.Fetch), UpdatedAt: t0})
	env := work.Envelope{ItemID: "stuck", Stage: work.LLM, CorrelationID: "c"}
	b.sqs.Put(dlqURL(work.LLM), env.Encode())
	sum, err := b.r.Resolve(context.Background(), replay.ResolveRequest{IDs: []string{"stuck"}, Note: "give up", By: "ana"})
	if err != nil || sum.Errors != 0 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	if left := b.sqs.Bodies(dlqURL(work.LLM)); len(left) != 1 || b.sqs.Hidden(dlqURL(work.LLM)) != 0 {
		t.Fatalf("the stuck item's only carrier was not kept and released (DLQ %v; summary %+v)", left, sum)
	}
	if sum.Resolved != 0 || sum.Skipped != 1 || sum.Items[0].Action != "skipped" {
		t.Fatalf("summary %+v: want the backstop message skipped", sum)
	}
	if it := b.item(t, "stuck"); it.Resolution != nil {
		t.Fatalf("resolution %+v recorded on an item still in flight", it.Resolution)
	}
}

// TestResolveASpecTheFetchQueueMoved: a spec the fetch queue's backstop
// moved whose id another spec holds is closed like any stale message —
// logged and deleted, the item left as it is and nothing sent on its
// behalf; one whose item is still at fetch carries that item and stays.
func TestResolveASpecTheFetchQueueMoved(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = b.store
	ctx := context.Background()
	for _, id := range []string{"taken", "stuck"} {
		spec, _, err := intake.Decode(specBody(id, "https://news.example/"+id))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.store.Create(ctx, spec.NewItem("m#1", t0)); err != nil {
			t.Fatal(err)
		}
	}
	b.sqs.PutMoved(dlqURL(work.Fetch), specBody("taken", "https://other.example/a-different-source"), fetchQueueARN)
	b.sqs.PutMoved(dlqURL(work.Fetch), specBody("stuck", "https://news.example/stuck"), fetchQueueARN)
	sum, err := b.r.Resolve(ctx, replay.ResolveRequest{IDs: []string{"taken", "stuck"}, Note: "a duplicate submission", By: "ana"})
	if err != nil || sum.Errors != 0 || sum.Resolved != 1 || sum.Skipped != 1 {
		t.Fatalf("summary %+v, %v: want the conflicting spec resolved and the stuck item's spec kept", sum, err)
	}
	for _, st := range work.Stages() {
		if sent := b.sqs.Bodies(queueURL(st)); len(sent) != 0 {
			t.Fatalf("resolve sent %q to the %s queue", sent, st)
		}
	}
	if it := b.item(t, "taken"); it.Resolution != nil || it.State != work.Queued {
		t.Fatalf("item %+v: want it left as it is", it)
	}
	if left := b.sqs.Bodies(dlqURL(work.Fetch)); len(left) != 1 || !strings.Contains(left[0], `"stuck"`) {
		t.Fatalf("fetch DLQ %q: want the stuck item's spec only", left)
	}
}

// TestResolveLeavesAFailedItemsBackstopMessage: a backstop message whose
// item is failed at that stage leads to a dead letter that never reached
// the DLQ. Resolving the message would leave the item failed with no dead
// letter anywhere; it is left for the backstop schedule to hand off.
func TestResolveLeavesAFailedItemsBackstopMessage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.ErrorLog = b.store
	b.store.Put(store.Item{ID: "f", CorrelationID: "c", State: work.Failed, Stage: work.LLM, Status: work.StatusAfter(work.Fetch),
		Attempts: map[work.Stage]int{work.LLM: 3}, LastError: &store.LastError{Component: work.LLM, ErrorClass: work.AuthDenied}, UpdatedAt: t0})
	b.sqs.Put(dlqURL(work.LLM), work.Envelope{ItemID: "f", Stage: work.LLM, CorrelationID: "c"}.Encode())
	sum, err := b.r.Resolve(context.Background(), replay.ResolveRequest{IDs: []string{"f"}, Note: "give up", By: "ana"})
	if err != nil || sum.Errors != 0 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	if left := b.sqs.Bodies(dlqURL(work.LLM)); len(left) != 1 || sum.Skipped != 1 || sum.Items[0].Action != "skipped" {
		t.Fatalf("DLQ %v, summary %+v: want the backstop message kept and skipped", left, sum)
	}
}
