package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/replay/replaytest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func queueURL(st work.Stage) string { return "https://sqs.local/q-" + string(st) }
func dlqURL(st work.Stage) string   { return "https://sqs.local/dlq-" + string(st) }

type bundle struct {
	sqs   *replaytest.SQS
	store *store.Memory
	clock *clock.Stub
	r     *replay.Replayer
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return newBundle()
}

func newBundle() *bundle {
	b := &bundle{sqs: replaytest.NewSQS(), store: store.NewMemory(), clock: clock.NewStub(t0)}
	qs := map[work.Stage]replay.Queues{}
	for _, st := range work.Stages() {
		qs[st] = replay.Queues{Queue: queueURL(st), DLQ: dlqURL(st)}
	}
	b.r = &replay.Replayer{SQS: b.sqs, Items: b.store, Index: b.store, Queues: qs, Clock: b.clock, PollWait: -1}
	return b
}

// deadLetter stores an item dead-lettered at st with class c and puts its
// payload on st's DLQ; it returns the body.
func (b *bundle) deadLetter(id string, st work.Stage, c work.Class) string {
	attempts := map[work.Stage]int{st: 1}
	b.store.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.StatusAfter(work.Fetch),
		State: work.Deadletter, Stage: st, Attempts: attempts, EnrichmentStatus: work.EnrichmentPermanentFailure,
		LastError:     &store.LastError{Component: st, ErrorClass: c, FailedAt: t0},
		LastFailureAt: t0, UpdatedAt: t0, DeadLetter: &store.DeadLetterRef{Stage: st, Class: c, At: t0}})
	p := deadletter.Build(deadletter.Input{ItemID: id, CorrelationID: "corr-" + id, Stage: st, Err: failure.New(c, "boom"),
		Failure: failure.Of(c, "test"), Attempts: attempts, FirstFailureAt: t0, LastFailureAt: t0})
	body, err := p.Marshal()
	if err != nil {
		panic(err) // a small payload always encodes
	}
	b.sqs.Put(dlqURL(st), string(body))
	return string(body)
}

// deniedItem stores an item dead-lettered at the llm stage for a denied
// key, with no dead letter on a DLQ: a replay from item state takes it.
func (b *bundle) deniedItem(id string) {
	b.store.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.StatusAfter(work.Fetch),
		State: work.Deadletter, Stage: work.LLM, Attempts: map[work.Stage]int{work.LLM: 1}, EnrichmentStatus: work.EnrichmentPermanentFailure,
		LastError: &store.LastError{Component: work.LLM, ErrorClass: work.AuthDenied, FailedAt: t0}, LastFailureAt: t0, UpdatedAt: t0})
}

// deniedKeyReplay is a replay from item state of every item that failed
// for a denied key, the key since rotated.
func deniedKeyReplay() replay.Request {
	return replay.Request{Source: replay.SourceItems, Filter: replay.Filter{ErrorClass: replay.Classes{work.AuthDenied}}, Note: "key rotated"}
}

// run runs req on the bundle's Replayer; t fails at once on an error.
func (b *bundle) run(t *testing.T, req replay.Request) replay.Summary {
	t.Helper()
	sum, err := b.r.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func (b *bundle) item(t *testing.T, id string) store.Item {
	t.Helper()
	return runnertest.Item(t, b.store, id)
}

func actions(s replay.Summary) map[string]replay.Action {
	out := map[string]replay.Action{}
	for _, o := range s.Items {
		out[o.ItemID+"@"+o.MessageID] = o.Action
	}
	return out
}

func sentEnvelopes(t *testing.T, f *replaytest.SQS, st work.Stage) []work.Envelope {
	t.Helper()
	var out []work.Envelope
	for _, body := range f.Bodies(queueURL(st)) {
		env, err := work.DecodeEnvelope(body, st)
		if err != nil {
			t.Fatalf("sent %q: %v", body, err)
		}
		out = append(out, env)
	}
	return out
}

func TestRunSelectsByFilterAndReleasesTheRest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("a1", work.LLM, work.UpstreamUnavailable)
	b.deadLetter("a2", work.LLM, work.UpstreamUnavailable)
	keepLLM := b.deadLetter("x1", work.LLM, work.AuthDenied)
	keepNotify := b.deadLetter("n1", work.Notify, work.UpstreamUnavailable)
	sum, err := b.r.Run(context.Background(), replay.Request{
		DLQs: replay.Stages{work.LLM, work.Notify}, Filter: replay.Filter{ErrorClass: replay.Classes{work.UpstreamUnavailable}, Stage: work.LLM},
		Note: "provider back up", By: "oncall",
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Selected != 2 || sum.Replayed != 2 || sum.Skipped != 0 || sum.Errors != 0 || sum.Scanned != 4 || sum.Released != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if got := b.sqs.Bodies(dlqURL(work.LLM)); !slices.Equal(got, []string{keepLLM}) || b.sqs.Hidden(dlqURL(work.LLM)) != 0 {
		t.Fatalf("llm DLQ %v (hidden %d), want the unselected one released untouched", got, b.sqs.Hidden(dlqURL(work.LLM)))
	}
	if got := b.sqs.Bodies(dlqURL(work.Notify)); !slices.Equal(got, []string{keepNotify}) || b.sqs.Hidden(dlqURL(work.Notify)) != 0 {
		t.Fatalf("notify DLQ %v", got)
	}
	envs := sentEnvelopes(t, b.sqs, work.LLM)
	if len(envs) != 2 {
		t.Fatalf("sent %+v", envs)
	}
	for _, env := range envs {
		if env.Replay == nil || env.Replay.Count != 1 || env.Replay.Note != "provider back up" || env.Replay.By != "oncall" ||
			env.Replay.Mode != "from_failed_stage" || env.Replay.FromDeadLetter == "" || env.CorrelationID != "corr-"+env.ItemID {
			t.Fatalf("envelope %+v (replay %+v)", env, env.Replay)
		}
		it := b.item(t, env.ItemID)
		if it.State != work.Queued || it.Stage != work.LLM || it.ReplayCount != 1 || it.Replays[0].Note != "provider back up" {
			t.Fatalf("item %+v", it)
		}
	}
	if it := b.item(t, "x1"); it.State != work.Deadletter || it.ReplayCount != 0 {
		t.Fatalf("unselected item changed: %+v", it)
	}
}

func TestRunDuplicatesAndMax(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := b.deadLetter("d1", work.Fetch, work.NotFound)
	b.sqs.Put(dlqURL(work.Fetch), body) // the same dead letter twice
	b.deadLetter("d2", work.Fetch, work.NotFound)
	b.deadLetter("d3", work.Fetch, work.NotFound)
	sum := b.run(t, replay.Request{Note: "article restored", Max: 2})
	// d1's copy is a duplicate; d2 is the second replay; d3 is beyond max.
	if sum.Replayed != 2 || sum.Skipped != 1 || sum.Selected != 3 || len(b.sqs.Bodies(dlqURL(work.Fetch))) != 1 {
		t.Fatalf("summary %+v, DLQ %d", sum, len(b.sqs.Bodies(dlqURL(work.Fetch))))
	}
	if sum.Items[1].Action != replay.Duplicate || sum.Items[1].ItemID != "d1" {
		t.Fatalf("outcomes %+v", sum.Items)
	}
	if it := b.item(t, "d3"); it.State != work.Deadletter {
		t.Fatalf("d3 beyond max was replayed: %s", it.State)
	}
	if it := b.item(t, "d1"); it.Replays[0].By != replay.DefaultBy {
		t.Fatalf("by %q, want the default", it.Replays[0].By)
	}
}

// TestRunStopsReceivingAtMax: once a run has replayed Max items (a listing
// has Limit dead letters) it stops receiving: a large DLQ is not read to
// its end (up to MaxMessages a queue), every message held invisible from
// other runs and the redrive schedule, for replays it will never make.
func TestRunStopsReceivingAtMax(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 25 {
		b.deadLetter(fmt.Sprintf("m%02d", i), work.LLM, work.UpstreamUnavailable)
	}
	b.deadLetter("n1", work.Notify, work.UpstreamUnavailable)
	sum := b.run(t, replay.Request{Note: "provider back", Max: 2})
	if sum.Replayed != 2 || sum.Scanned != 10 || sum.Released != 8 {
		t.Fatalf("summary %+v: want 2 replayed out of the first batch of 10, the rest never received", sum)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.LLM))); n != 23 {
		t.Fatalf("llm DLQ holds %d, want 23", n)
	}
	// A listing's limit bounds its scan the same way.
	var scanned int
	b.r.Progress = func(p replay.Progress) { scanned = p.Done }
	dls, err := b.r.List(context.Background(), replay.ListRequest{Limit: 3})
	if err != nil || len(dls) != 3 || scanned != 10 {
		t.Fatalf("list --limit 3: %d dead letters, %d scanned, %v; want 3 of the first batch of 10", len(dls), scanned, err)
	}
}

// TestRunThatCannotReadADLQReportsWhatItDid: a run that stops on a DLQ it
// cannot read returns, with its error, the summary of what it did before —
// the messages it scanned counted with the replays they gave.
func TestRunThatCannotReadADLQReportsWhatItDid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("e1", work.Fetch, work.NotFound)
	b.deadLetter("e2", work.Fetch, work.NotFound)
	b.r.Queues[work.LLM] = replay.Queues{Queue: queueURL(work.LLM)}
	sum, err := b.r.Run(context.Background(), replay.Request{Note: "article restored", DLQs: replay.Stages{work.Fetch, work.LLM}})
	if err == nil {
		t.Fatal("a DLQ without a URL was read")
	}
	if sum.Replayed != 2 || sum.Scanned != 2 {
		t.Fatalf("summary %+v: want the 2 messages scanned and replayed before the error", sum)
	}
}

func TestRunDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := b.deadLetter("y1", work.Notify, work.UpstreamUnavailable)
	b.sqs.Put(dlqURL(work.Notify), body)
	before := b.item(t, "y1")
	sum := b.run(t, replay.Request{Note: "check", DryRun: true, Mode: store.FullRestart})
	if !sum.DryRun || sum.Replayed != 1 || sum.Skipped != 1 || sum.Items[0].Action != replay.WouldReplay ||
		sum.Items[0].Target != work.Fetch || sum.Items[1].Action != replay.Duplicate {
		t.Fatalf("summary %+v", sum)
	}
	if after := b.item(t, "y1"); after.State != before.State || after.ReplayCount != 0 || len(after.Replays) != 0 {
		t.Fatalf("a dry run changed the item: %+v", after)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.Notify))); n != 2 || b.sqs.Hidden(dlqURL(work.Notify)) != 0 {
		t.Fatalf("DLQ has %d messages (%d hidden), want both, released", n, b.sqs.Hidden(dlqURL(work.Notify)))
	}
	if sent := b.sqs.Bodies(queueURL(work.Fetch)); len(sent) != 0 {
		t.Fatalf("a dry run sent %v", sent)
	}
}

func TestRunResumesAReplayWrittenButNotSent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("s1", work.LLM, work.ResponseInvalid)
	b.sqs.FailSends(queueURL(work.LLM), true)
	sum := b.run(t, replay.Request{Note: "retry"})
	if sum.Errors != 1 || sum.Items[0].Action != replay.Failed || len(b.sqs.Bodies(dlqURL(work.LLM))) != 1 {
		t.Fatalf("with the send failing: %+v", sum)
	}
	if _, pending := b.item(t, "s1").PendingReplay(); !pending {
		t.Fatal("the replay should be written and pending")
	}
	b.sqs.FailSends(queueURL(work.LLM), false)
	b.clock.Advance(time.Minute)
	sum = b.run(t, replay.Request{Note: "retry"})
	if sum.Replayed != 1 || sum.Items[0].Action != replay.Resent || len(b.sqs.Bodies(dlqURL(work.LLM))) != 0 {
		t.Fatalf("second run: %+v", sum)
	}
	if it := b.item(t, "s1"); it.ReplayCount != 1 || len(sentEnvelopes(t, b.sqs, work.LLM)) != 1 {
		t.Fatalf("replay count %d after one replay resent", it.ReplayCount)
	}
}

// TestRunResendsAReplayFromItemStateNotSent: a replay from item state whose
// send failed leaves the item queued with nothing carrying it. The item's
// old dead letter, replayed from its DLQ next, must not be deleted as "item
// already replayed" while that replay was never sent: it sends the
// replay's envelope (a duplicate of a sent one is absorbed by the stage's
// claim), then goes.
func TestRunResendsAReplayFromItemStateNotSent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("r1", work.LLM, work.AuthDenied)
	b.sqs.FailSends(queueURL(work.LLM), true)
	sum, err := b.r.Run(context.Background(), replay.Request{Source: replay.SourceItems, Filter: replay.Filter{ItemIDs: []string{"r1"}}, Note: "key rotated"})
	if err != nil || sum.Errors != 1 {
		t.Fatalf("items replay with the send failing: %+v, %v", sum, err)
	}
	b.sqs.FailSends(queueURL(work.LLM), false)
	b.clock.Advance(time.Minute)
	sum = b.run(t, replay.Request{Note: "key rotated", DLQs: replay.Stages{work.LLM}})
	envs := sentEnvelopes(t, b.sqs, work.LLM)
	if len(envs) != 1 || envs[0].ItemID != "r1" || envs[0].Replay == nil || envs[0].Replay.Count != 1 {
		t.Fatalf("sent %+v (summary %+v): want r1's replay sent", envs, sum)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.LLM))); n != 0 {
		t.Fatalf("llm DLQ holds %d, want the dead letter gone once the replay is sent", n)
	}
	if it := b.item(t, "r1"); it.ReplayCount != 1 || it.State != work.Queued {
		t.Fatalf("item %+v: want the one replay, queued", it)
	}
}

func TestRunFromItemState(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("p1", work.Notify, work.NotFound)
	b.deadLetter("p2", work.LLM, work.AuthDenied)
	b.store.Put(store.Item{ID: "ok", State: work.Done, Stage: work.Notify, CorrelationID: "c"})
	// The DLQ messages expired: only the items remain.
	for _, st := range work.Stages() {
		b.sqs.Purge(dlqURL(st))
	}
	sum := b.run(t, replay.Request{Source: replay.SourceItems,
		Filter: replay.Filter{ItemIDs: []string{"p1", "ok", "ghost"}}, Note: "webhook fixed"})
	want := map[string]replay.Action{"p1@": replay.Replayed, "ok@": replay.Skipped, "ghost@": replay.Skipped}
	if got := actions(sum); !mapsEqual(got, want) || sum.Replayed != 1 || sum.Skipped != 2 {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	if envs := sentEnvelopes(t, b.sqs, work.Notify); len(envs) != 1 || envs[0].ItemID != "p1" || envs[0].Replay.FromDeadLetter != "" {
		t.Fatalf("sent %+v", envs)
	}
	// By filter over the table.
	sum = b.run(t, replay.Request{Source: replay.SourceItems,
		Filter: replay.Filter{ErrorClass: replay.Classes{work.AuthDenied}}, Note: "key rotated", Mode: store.FullRestart})
	if sum.Replayed != 1 || sum.Items[0].ItemID != "p2" || sum.Items[0].Target != work.Fetch {
		t.Fatalf("by filter: %+v", sum)
	}
	if it := b.item(t, "p2"); it.Stage != work.Fetch || it.Status != work.Received {
		t.Fatalf("p2 after a full restart: %+v", it)
	}
}

// TestRunFromItemStateNamesEachItemOnce: an id given twice (--item a,b
// and a as an argument, a pasted list) is one item: the dry run and the
// replay both count it once, and the replay does not report its second
// mention as a race to run again — which would send it again.
func TestRunFromItemStateNamesEachItemOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("p1", work.LLM, work.AuthDenied)
	req := replay.Request{Source: replay.SourceItems, Filter: replay.Filter{ItemIDs: []string{"p1", "p1"}}, Note: "key rotated", DryRun: true}
	dry := b.run(t, req)
	req.DryRun = false
	sum := b.run(t, req)
	if dry.Selected != 1 || dry.Replayed != 1 || sum.Selected != 1 || sum.Replayed != 1 || sum.Skipped != 0 {
		t.Fatalf("dry run %+v\nreplay %+v\nwant one item, replayed once", dry, sum)
	}
	if n := len(sentEnvelopes(t, b.sqs, work.LLM)); n != 1 {
		t.Fatalf("%d envelopes sent, want 1", n)
	}
}

// TestRunFromItemStateByFilterReplaysEveryMatch: `items replay
// --all-permanent` replays every permanent failure the filters select, not
// the index's default page of them: 1,001 dead-lettered items are 1,001
// replays.
func TestRunFromItemStateByFilterReplaysEveryMatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const n = store.DefaultListLimit + 1
	for i := range n {
		b.deniedItem(fmt.Sprintf("q%04d", i))
	}
	sum := b.run(t, deniedKeyReplay())
	if sum.Selected != n || sum.Replayed != n || len(sentEnvelopes(t, b.sqs, work.LLM)) != n {
		t.Fatalf("selected %d, replayed %d, sent %d: want every one of the %d", sum.Selected, sum.Replayed, len(sentEnvelopes(t, b.sqs, work.LLM)), n)
	}
}

func TestBackstopMessages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	env := work.Envelope{ItemID: "k1", Stage: work.Fetch, CorrelationID: "corr-k1"}
	b.store.Put(store.Item{ID: "k1", State: work.Working, Stage: work.Fetch, CorrelationID: "corr-k1",
		LeaseOwner: "m#50", LeaseUntil: t0.Add(-time.Minute), Attempts: map[work.Stage]int{work.Fetch: 2}})
	b.sqs.Put(dlqURL(work.Fetch), env.Encode())
	b.sqs.Put(dlqURL(work.Fetch), "not json at all")
	dls, err := b.r.List(context.Background(), replay.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dls) != 2 || dls[0].Kind != deadletter.KindBackstop || dls[0].Status != "replayable" || dls[1].Kind != deadletter.KindUnreadable {
		t.Fatalf("list %+v", dls)
	}
	sum := b.run(t, replay.Request{Note: "crash loop fixed in v42"})
	if sum.Replayed != 1 || sum.Released != 1 || len(b.sqs.Bodies(dlqURL(work.Fetch))) != 1 {
		t.Fatalf("summary %+v", sum)
	}
	if it := b.item(t, "k1"); it.State != work.Queued || it.Attempts[work.Fetch] != 0 || it.LeaseOwner != "" || it.ReplayCount != 1 {
		t.Fatalf("item %+v", it)
	}
}

// TestBackstopFilterResumesOnlyBackstopMessages: the redrive function's
// schedule (Filter.Backstop) resumes the items whose raw envelope a queue's
// backstop moved — one stuck working under an expired lease, one retryable
// — deletes a backstop message whose item has moved on, and leaves
// triage's own dead letters, which are an operator's to judge, where they
// are.
func TestBackstopFilterResumesOnlyBackstopMessages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.store.Put(store.Item{ID: "s1", State: work.Working, Stage: work.LLM, CorrelationID: "corr-s1",
		LeaseOwner: "m#8", LeaseUntil: t0.Add(-time.Minute)})
	b.store.Put(store.Item{ID: "s2", State: work.Retryable, Stage: work.Fetch, CorrelationID: "corr-s2"})
	b.store.Put(store.Item{ID: "s3", State: work.Done, Stage: work.Notify, CorrelationID: "corr-s3"})
	b.sqs.Put(dlqURL(work.LLM), work.Envelope{ItemID: "s1", Stage: work.LLM, CorrelationID: "corr-s1"}.Encode())
	b.sqs.Put(dlqURL(work.Fetch), work.Envelope{ItemID: "s2", Stage: work.Fetch, CorrelationID: "corr-s2"}.Encode())
	b.sqs.Put(dlqURL(work.Notify), work.Envelope{ItemID: "s3", Stage: work.Notify, CorrelationID: "corr-s3"}.Encode())
	b.deadLetter("d1", work.LLM, work.UpstreamUnavailable)
	sum := b.run(t, replay.Request{Filter: replay.Filter{Backstop: true},
		Note: "moved by the redrive backstop", By: "backstop"})
	if sum.Replayed != 2 {
		t.Fatalf("summary %+v: want s1 and s2 resumed", sum)
	}
	for id, st := range map[string]work.Stage{"s1": work.LLM, "s2": work.Fetch} {
		if it := b.item(t, id); it.State != work.Queued || it.Stage != st || it.ReplayCount != 1 {
			t.Fatalf("%s after the backstop's replay: %s at %s, replays %d", id, it.State, it.Stage, it.ReplayCount)
		}
	}
	if it := b.item(t, "s3"); it.State != work.Done || it.ReplayCount != 0 {
		t.Fatalf("a done item was replayed: %+v", it)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.Notify))); n != 0 {
		t.Fatalf("the backstop message of a done item is still in its DLQ (%d)", n)
	}
	bodies := b.sqs.Bodies(dlqURL(work.LLM))
	if len(bodies) != 1 || !strings.Contains(bodies[0], `"d1"`) {
		t.Fatalf("LLM DLQ %v: want only triage's dead letter of d1, untouched", bodies)
	}
	if it := b.item(t, "d1"); it.State != work.Deadletter || it.ReplayCount != 0 {
		t.Fatalf("triage's dead letter was replayed: %+v", it)
	}
}

// TestBackstopFilterLeavesADeadLetteredItem: a backstop message whose item
// has since been dead-lettered at that stage (another delivery of it
// dead-lettered the item while this one waited out a store outage) is a
// stale copy: the redrive function's schedule must not replay the item —
// its dead letter is an operator's to judge — and the dead letter stays
// current.
func TestBackstopFilterLeavesADeadLetteredItem(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("d1", work.LLM, work.AuthDenied)
	b.sqs.Put(dlqURL(work.LLM), work.Envelope{ItemID: "d1", Stage: work.LLM, CorrelationID: "corr-d1"}.Encode())
	sum := b.run(t, replay.Request{Filter: replay.Filter{Backstop: true},
		Note: "moved by the redrive backstop", By: "backstop"})
	if it := b.item(t, "d1"); it.State != work.Deadletter || it.ReplayCount != 0 {
		t.Fatalf("the backstop replayed a dead-lettered item: %s at %s, replays %d (summary %+v)", it.State, it.Stage, it.ReplayCount, sum)
	}
	if sum.Replayed != 0 || len(sentEnvelopes(t, b.sqs, work.LLM)) != 0 {
		t.Fatalf("summary %+v: want nothing replayed", sum)
	}
	bodies := b.sqs.Bodies(dlqURL(work.LLM))
	if len(bodies) != 1 || !strings.Contains(bodies[0], `"dead_letter_id"`) {
		t.Fatalf("LLM DLQ %v: want triage's dead letter of d1 only", bodies)
	}
}

// TestBackstopResendsAPendingReplay: a replay's own envelope that the stage
// queue's backstop moved (the store was out from the replay on, so no
// delivery could claim the item) leaves the item queued at the stage, its
// replay pending, the dead letter it came from deleted. The redrive
// schedule must send the replay again, not delete the only message that
// carries the item as a duplicate of a replay on its way.
func TestBackstopResendsAPendingReplay(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("w1", work.LLM, work.UpstreamUnavailable)
	if sum, err := b.r.Run(context.Background(), replay.Request{Note: "provider back", DLQs: replay.Stages{work.LLM}}); err != nil || sum.Replayed != 1 {
		t.Fatalf("replay: %+v, %v", sum, err)
	}
	envs := sentEnvelopes(t, b.sqs, work.LLM)
	b.sqs.Purge(queueURL(work.LLM))
	b.sqs.Put(dlqURL(work.LLM), envs[0].Encode()) // moved by the backstop
	b.clock.Advance(20 * time.Minute)
	sum := b.run(t, replay.Request{Filter: replay.Filter{Backstop: true},
		Note: "moved by the redrive backstop", By: "backstop"})
	if sent := sentEnvelopes(t, b.sqs, work.LLM); len(sent) != 1 || sent[0].ItemID != "w1" {
		t.Fatalf("sent %+v (summary %+v): want w1 sent again", sent, sum)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.LLM))); n != 0 {
		t.Fatalf("llm DLQ holds %d, want 0", n)
	}
}

func TestAnnotate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("z1", work.LLM, work.ContentPolicy)
	res, err := b.r.Annotate(context.Background(), replay.AnnotateRequest{ID: "z1", Note: "legal says ok", By: "ana"})
	if err != nil || !res.Item || res.Republished != 1 {
		t.Fatalf("annotate: %+v, %v", res, err)
	}
	bodies := b.sqs.Bodies(dlqURL(work.LLM))
	if len(bodies) != 1 {
		t.Fatalf("DLQ %v", bodies)
	}
	p, err := deadletter.Parse([]byte(bodies[0]))
	if err != nil || len(p.Replay.Notes) != 1 || p.Replay.Notes[0].Text != "legal says ok" || p.Replay.Notes[0].By != "ana" {
		t.Fatalf("payload %+v, %v", p.Replay, err)
	}
	if it := b.item(t, "z1"); len(it.Notes) != 1 || it.Notes[0].DeadLetterID != p.SanitizedContext.DeadLetterID {
		t.Fatalf("item notes %+v", it.Notes)
	}
	// By dead_letter_id, a second note.
	if res, err := b.r.Annotate(context.Background(), replay.AnnotateRequest{ID: p.SanitizedContext.DeadLetterID, Note: "second"}); err != nil || res.Republished != 1 {
		t.Fatalf("annotate by id: %+v, %v", res, err)
	}
	p, _ = deadletter.Parse([]byte(b.sqs.Bodies(dlqURL(work.LLM))[0]))
	if len(p.Replay.Notes) != 2 {
		t.Fatalf("notes %+v", p.Replay.Notes)
	}
	if _, err := b.r.Annotate(context.Background(), replay.AnnotateRequest{ID: "nothing", Note: "x"}); err == nil {
		t.Fatal("annotating nothing succeeded")
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestRequestJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		dlqs    replay.Stages
		classes replay.Classes
		// noDLQs: the request names no DLQ (every one).
		noDLQs  bool
		wantErr string
	}{
		"all":              {in: `{"dlqs":"all","note":"n"}`, dlqs: replay.Stages(work.Stages())},
		"a list":           {in: `{"dlqs":["llm","fetch"],"note":"n"}`, dlqs: replay.Stages{work.LLM, work.Fetch}},
		"one class":        {in: `{"filter":{"error_class":"rate_limited"},"note":"n"}`, classes: replay.Classes{work.RateLimited}},
		"classes":          {in: `{"filter":{"error_class":["NOT_FOUND","AUTH_DENIED"]},"note":"n"}`, classes: replay.Classes{work.NotFound, work.AuthDenied}},
		"no note":          {in: `{}`, wantErr: "note is required"},
		"an empty list":    {in: `{"dlqs":[],"note":"n"}`, noDLQs: true},
		"bad stage":        {in: `{"dlqs":["llm","nope"],"note":"n"}`, wantErr: "unknown stage"},
		"dlqs not a list":  {in: `{"dlqs":3,"note":"n"}`, wantErr: "dlqs: want a list of stages"},
		"classes not list": {in: `{"filter":{"error_class":{}},"note":"n"}`, wantErr: "error_class: want a class or a list"},
		"bad class":        {in: `{"filter":{"error_class":"OOPS"},"note":"n"}`, wantErr: "unknown error class"},
		"bad mode":         {in: `{"mode":"backwards","note":"n"}`, wantErr: "unknown replay mode"},
		"bad window":       {in: `{"filter":{"failed_since":"2026-11-21T00:00:00Z","failed_before":"2026-11-20T00:00:00Z"},"note":"n"}`, wantErr: "failed_since"},
		"negative max":     {in: `{"max":-1,"note":"n"}`, wantErr: "max"},
		"bad source":       {in: `{"source":"s3","note":"n"}`, wantErr: "source"},
		"unknown field ok": {in: `{"note":"n","extra":1}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var req replay.Request
			err := json.Unmarshal([]byte(tc.in), &req)
			if err == nil {
				err = req.Validate()
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.dlqs != nil && !slices.Equal(req.DLQs, tc.dlqs) {
				t.Fatalf("dlqs %v", req.DLQs)
			}
			if tc.classes != nil && !slices.Equal(req.Filter.ErrorClass, tc.classes) {
				t.Fatalf("classes %v", req.Filter.ErrorClass)
			}
			if tc.noDLQs && len(req.DLQs) != 0 {
				t.Fatalf("dlqs %v, want none", req.DLQs)
			}
		})
	}
}

func TestCountByClass(t *testing.T) {
	t.Parallel()
	dls := []replay.DeadLetter{
		{Class: work.RateLimited, Kind: deadletter.KindTriage, Payload: &deadletter.Payload{SanitizedContext: deadletter.Context{Retryable: true}}},
		{Class: work.AuthDenied, Kind: deadletter.KindTriage, Payload: &deadletter.Payload{}},
		{Class: work.RateLimited, Kind: deadletter.KindTriage, Payload: &deadletter.Payload{SanitizedContext: deadletter.Context{Retryable: true}}},
		{Kind: deadletter.KindBackstop},
	}
	got := replay.CountByClass(dls)
	want := []replay.ClassCount{{Class: "", Count: 1, Retryable: 1}, {Class: work.AuthDenied, Count: 1}, {Class: work.RateLimited, Count: 2, Retryable: 2}}
	slices.SortFunc(want[:2], func(a, b replay.ClassCount) int { return strings.Compare(string(a.Class), string(b.Class)) })
	want = []replay.ClassCount{want[2], want[0], want[1]}
	if !slices.Equal(got, want) {
		t.Fatalf("CountByClass = %+v\nwant %+v", got, want)
	}
}

// Example_replayByClass lists a DLQ by class and replays the retryable
// dead letters from the stage that failed, with a note.
func Example_replayByClass() {
	b := newBundle()
	b.deadLetter("story-1", work.LLM, work.UpstreamUnavailable)
	b.deadLetter("story-2", work.LLM, work.UpstreamUnavailable)
	b.deadLetter("story-3", work.Notify, work.AuthDenied)
	ctx := context.Background()

	dls, _ := b.r.List(ctx, replay.ListRequest{})
	for _, c := range replay.CountByClass(dls) {
		fmt.Printf("%-22s %d (retryable %d)\n", c.Class, c.Count, c.Retryable)
	}
	yes := true
	sum, _ := b.r.Run(ctx, replay.Request{Filter: replay.Filter{Retryable: &yes}, Note: "provider recovered", By: "oncall"})
	fmt.Printf("selected %d, replayed %d, skipped %d, errors %d\n", sum.Selected, sum.Replayed, sum.Skipped, sum.Errors)
	for _, o := range sum.Items {
		fmt.Println(o.ItemID, o.Action, "→", o.Target)
	}
	// Output:
	// UPSTREAM_UNAVAILABLE   2 (retryable 2)
	// AUTH_DENIED            1 (retryable 0)
	// selected 2, replayed 2, skipped 0, errors 0
	// story-1 replayed → llm
	// story-2 replayed → llm
}

// fetchQueueARN is the fetch queue's ARN, as SQS marks a message its
// RedrivePolicy moved to the fetch DLQ.
const fetchQueueARN = "arn:aws:sqs:us-east-1:123456789012:triage-fetch"

// specBody is a producer's spec for id, as it stands on the fetch queue.
func specBody(id, source string) string {
	return fmt.Sprintf(`{"item_id":%q,"source_url":%q,"webhook_url":"https://hooks.example/t","metadata":{"team":"news"}}`, id, source)
}

// TestBackstopSubmitsASpecTheFetchQueueMoved: a submission the fetch stage
// could not get past creating its item — the store down longer than its
// tolerance — is moved by the fetch queue's backstop as the producer wrote
// it, a spec, not an envelope. The redrive's schedule must not lose it:
// an item never created is submitted again, the spec's own body to the
// fetch queue; one created and stuck at fetch is resumed as any backstop
// message; one whose id another spec holds is submitted again for the
// fetch stage to dead-letter as a conflict; one whose item finished is a
// duplicate. A spec its sender put on the DLQ itself — a Scheduler run
// its age limit dropped, no DeadLetterQueueSourceArn — is left alone.
func TestBackstopSubmitsASpecTheFetchQueueMoved(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	created := func(id string) {
		spec, _, err := intake.Decode(specBody(id, "https://news.example/"+id))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.store.Create(ctx, spec.NewItem("m#1", t0)); err != nil {
			t.Fatal(err)
		}
	}
	never := specBody("never-created", "https://news.example/never-created")
	b.sqs.PutMoved(dlqURL(work.Fetch), never, fetchQueueARN)
	created("stuck")
	b.sqs.PutMoved(dlqURL(work.Fetch), specBody("stuck", "https://news.example/stuck"), fetchQueueARN)
	created("taken")
	conflict := specBody("taken", "https://other.example/a-different-source")
	b.sqs.PutMoved(dlqURL(work.Fetch), conflict, fetchQueueARN)
	created("finished")
	fin := b.item(t, "finished")
	fin.State, fin.Stage = work.Done, work.Notify
	b.store.Put(fin)
	b.sqs.PutMoved(dlqURL(work.Fetch), specBody("finished", "https://news.example/finished"), fetchQueueARN)
	scheduled := specBody("nightly-2026-11-21T03:00:00Z", "https://reports.example/nightly")
	b.sqs.Put(dlqURL(work.Fetch), scheduled)
	b.sqs.Put(dlqURL(work.Fetch), "not json at all")

	dls, err := b.r.List(ctx, replay.ListRequest{Filter: replay.Filter{Backstop: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dls) != 4 {
		// Not the Scheduler run, nor an unreadable message: a listing
		// filtered to backstop messages is no unfiltered listing.
		t.Fatalf("the backstop's listing holds %d messages, want the 4 moved specs: %+v", len(dls), dls)
	}
	sum := b.run(t, replay.Request{Filter: replay.Filter{Backstop: true}, Note: "moved by the redrive backstop", By: "backstop"})
	if sum.Replayed != 3 || sum.Errors != 0 {
		t.Fatalf("summary %+v: want never-created and taken submitted again and stuck resumed", sum)
	}
	sent := b.sqs.Bodies(queueURL(work.Fetch))
	if !slices.Contains(sent, never) || !slices.Contains(sent, conflict) || len(sent) != 3 {
		t.Fatalf("fetch queue %q: want both specs as they were written, and stuck's replay envelope", sent)
	}
	if it := b.item(t, "stuck"); it.State != work.Queued || it.Stage != work.Fetch || it.ReplayCount != 1 {
		t.Fatalf("stuck after the backstop's replay: %s at %s, replays %d", it.State, it.Stage, it.ReplayCount)
	}
	if it := b.item(t, "finished"); it.State != work.Done || it.ReplayCount != 0 {
		t.Fatalf("a finished item was replayed: %+v", it)
	}
	if left := b.sqs.Bodies(dlqURL(work.Fetch)); len(left) != 2 || left[0] != scheduled {
		t.Fatalf("fetch DLQ %q: want only the Scheduler run and the unreadable message, untouched", left)
	}

	// An operator's run over every dead letter meets the Scheduler run: it
	// says what to do with it and leaves it where it is.
	sum, err = b.r.Run(ctx, replay.Request{Note: "all of them"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Replayed != 0 || len(sum.Items) != 1 || sum.Items[0].Action != replay.Skipped ||
		!strings.Contains(sum.Items[0].Reason, "triage submit") || sum.Items[0].ItemID != "nightly-2026-11-21T03:00:00Z" {
		t.Fatalf("summary %+v: want the Scheduler run skipped, naming its item and how to submit it", sum)
	}
	if left := b.sqs.Bodies(dlqURL(work.Fetch)); len(left) != 2 {
		t.Fatalf("fetch DLQ %q after an operator's run", left)
	}
}

// TestRunResendsAPendingReplayAfterAnnotate: annotate re-publishes a dead
// letter under a new SQS message id. A replay written from the old message
// but not sent must still find its dead letter in the new copy (the same
// dead_letter_id) and send the replay, not delete the only message that
// carries the item as a duplicate of a replay on its way.
func TestRunResendsAPendingReplayAfterAnnotate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("an1", work.LLM, work.ResponseInvalid)
	b.sqs.FailSends(queueURL(work.LLM), true)
	if sum, err := b.r.Run(context.Background(), replay.Request{Note: "retry"}); err != nil || sum.Errors != 1 {
		t.Fatalf("replay with the send failing: %+v, %v", sum, err)
	}
	b.sqs.FailSends(queueURL(work.LLM), false)
	if res, err := b.r.Annotate(context.Background(), replay.AnnotateRequest{ID: "an1", Note: "looked at it", By: "ana"}); err != nil || res.Republished != 1 {
		t.Fatalf("annotate: %+v, %v", res, err)
	}
	b.clock.Advance(time.Minute)
	sum := b.run(t, replay.Request{Note: "retry"})
	if envs := sentEnvelopes(t, b.sqs, work.LLM); len(envs) != 1 || envs[0].ItemID != "an1" || envs[0].Replay == nil || envs[0].Replay.Count != 1 {
		t.Fatalf("sent %+v (summary %+v): want an1's pending replay sent", envs, sum)
	}
	if sum.Replayed != 1 || sum.Items[0].Action != replay.Resent {
		t.Fatalf("summary %+v: want the annotated copy to resend the replay", sum)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.LLM))); n != 0 {
		t.Fatalf("llm DLQ holds %d, want the dead letter gone once the replay is sent", n)
	}
}

// slowSQS is replaytest.SQS whose every receive takes a while on the
// injected clock, and which counts, at each receive, the messages hidden on
// other DLQs.
type slowSQS struct {
	*replaytest.SQS
	clock       *clock.Stub
	perReceive  time.Duration
	hiddenOther map[string]int // DLQ received → most messages hidden on other DLQs meanwhile
}

func (f *slowSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	url := aws.ToString(in.QueueUrl)
	for _, st := range work.Stages() {
		if other := dlqURL(st); other != url && f.hiddenOther != nil {
			f.hiddenOther[url] = max(f.hiddenOther[url], f.Hidden(other))
		}
	}
	f.clock.Advance(f.perReceive)
	return f.SQS.ReceiveMessage(ctx, in, opts...)
}

// TestRunReportsDLQsNotScanned: a run whose time budget is spent on the
// fetch DLQ never reads llm's and notify's, and one cut at MaxMessages
// leaves the rest of a DLQ unread; the summary must say which DLQs were not
// scanned to the end, or a backstop message there looks handled.
func TestRunReportsDLQsNotScanned(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 3 {
		b.deadLetter(fmt.Sprintf("f%d", i), work.Fetch, work.NotFound)
	}
	b.deadLetter("l1", work.LLM, work.NotFound)
	slow := &slowSQS{SQS: b.sqs, clock: b.clock, perReceive: 2 * time.Minute}
	b.r.SQS, b.r.MaxMessages = slow, 2
	sum := b.run(t, replay.Request{Filter: replay.Filter{Backstop: true}, Note: "backstop", By: "backstop"})
	if want := (replay.Stages{work.Fetch, work.LLM, work.Notify}); !slices.Equal(sum.Incomplete, want) {
		t.Fatalf("incomplete %v, want %v (summary %+v)", sum.Incomplete, want, sum)
	}
	// With time enough, only the fetch DLQ, cut at MaxMessages, is.
	slow.perReceive = 0
	sum = b.run(t, replay.Request{Filter: replay.Filter{Backstop: true}, Note: "backstop", By: "backstop"})
	if want := (replay.Stages{work.Fetch}); !slices.Equal(sum.Incomplete, want) {
		t.Fatalf("incomplete %v, want %v (summary %+v)", sum.Incomplete, want, sum)
	}
	// Scanned to the end, none is.
	b.r.MaxMessages = 0
	sum, err := b.r.Run(context.Background(), replay.Request{Filter: replay.Filter{Backstop: true}, Note: "backstop", By: "backstop"})
	if err != nil || len(sum.Incomplete) != 0 {
		t.Fatalf("a complete scan: %+v, %v", sum, err)
	}
}

// TestRunReleasesEachDLQWhenItsScanEnds: the messages a run holds on one
// DLQ are made visible again when that DLQ's scan ends, not all together
// at the end of the run under one budget, which a long run (or a Lambda
// timeout) would leave to their full visibility timeout.
func TestRunReleasesEachDLQWhenItsScanEnds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 3 {
		b.deadLetter(fmt.Sprintf("f%d", i), work.Fetch, work.NotFound)
	}
	b.deadLetter("l1", work.LLM, work.NotFound)
	slow := &slowSQS{SQS: b.sqs, clock: b.clock, hiddenOther: map[string]int{}}
	b.r.SQS = slow
	b.run(t, replay.Request{Filter: replay.Filter{Backstop: true}, Note: "backstop", By: "backstop"})
	if n := slow.hiddenOther[dlqURL(work.LLM)]; n != 0 {
		t.Fatalf("%d fetch dead letters still held while the llm DLQ was scanned", n)
	}
	if b.sqs.Hidden(dlqURL(work.Fetch)) != 0 || b.sqs.Hidden(dlqURL(work.LLM)) != 0 {
		t.Fatal("messages left hidden after the run")
	}
}

// latentSQS is replaytest.SQS whose visibility changes each take perCall
// of their context's time, in virtual time: a call made when the calls
// before it on the same context (the same deadline) have spent that
// context's budget fails as a timed-out call would.
type latentSQS struct {
	*replaytest.SQS
	perCall time.Duration
	spent   map[time.Time]time.Duration
}

func (f *latentSQS) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if d, ok := ctx.Deadline(); ok {
		f.spent[d] += f.perCall
		if f.spent[d] > time.Until(d) {
			return nil, context.DeadlineExceeded
		}
	}
	return f.SQS.ChangeMessageVisibilityBatch(ctx, in, opts...)
}

// TestRunReleasesEveryMessageItHeld: the release at a scan's end must not
// leave messages invisible for their whole visibility timeout because the
// calls before them spent a budget they all shared: 40 release calls of a
// second each.
func TestRunReleasesEveryMessageItHeld(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 400 {
		b.deadLetter(fmt.Sprintf("f%d", i), work.Fetch, work.NotFound)
	}
	b.r.SQS = &latentSQS{SQS: b.sqs, perCall: time.Second, spent: map[time.Time]time.Duration{}}
	sum, err := b.r.Run(context.Background(), replay.Request{Filter: replay.Filter{Backstop: true}, Note: "backstop", By: "backstop"})
	if err != nil || sum.Released != 400 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	if n := b.sqs.Hidden(dlqURL(work.Fetch)); n != 0 {
		t.Fatalf("%d of 400 held messages left invisible after the run", n)
	}
}

// TestListSaysWhatItDidNotScan: a listing cut at MaxMessages (or by its
// time) counts only what it read; it must say which DLQs it did not read to
// the end, or `dlq list --by-class` reports a part as the whole.
func TestListSaysWhatItDidNotScan(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 3 {
		b.deadLetter(fmt.Sprintf("f%d", i), work.Fetch, work.NotFound)
	}
	b.r.MaxMessages = 2
	l, err := b.r.ListScan(context.Background(), replay.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.DeadLetters) != 2 || !slices.Equal(l.Incomplete, replay.Stages{work.Fetch}) {
		t.Fatalf("listed %d, incomplete %v: want 2 and the fetch DLQ", len(l.DeadLetters), l.Incomplete)
	}
	// A limit the operator asked for is no cut.
	b.r.MaxMessages = 0
	if l, err = b.r.ListScan(context.Background(), replay.ListRequest{Limit: 1}); err != nil || len(l.Incomplete) != 0 {
		t.Fatalf("listing with a limit: %+v, %v", l, err)
	}
}

// ctxSQS is replaytest.SQS whose sends fail once their context is done, as
// the SDK's do.
type ctxSQS struct{ *replaytest.SQS }

func (f ctxSQS) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f.SQS.SendMessageBatch(ctx, in, opts...)
}

// hookIndex is the store's index, which calls hook once it has listed
// after items; the hook's error ends the listing.
type hookIndex struct {
	b     *bundle
	after int
	hook  func(ctx context.Context) error
}

func (x hookIndex) List(ctx context.Context, q store.ItemQuery, fn func(store.Item) error) error {
	n := 0
	return x.b.store.List(ctx, q, func(it store.Item) error {
		if n == x.after {
			if err := x.hook(ctx); err != nil {
				return err
			}
		}
		n++
		return fn(it)
	})
}

// TestRunFromItemStateSendsWhatItWrote: a replay from item state writes
// each item's replay, then sends its envelope. A run cut short — the
// operator's Ctrl-C, the redrive function's timeout — must not leave the
// replays it wrote without their envelopes: a replay from item state has
// no DLQ message to resend it, and a second run by filter lists only
// deadletter and failed items, not these queued ones. The envelopes go as
// the run goes, and those written go even when the run is cancelled.
func TestRunFromItemStateSendsWhatItWrote(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.SQS = ctxSQS{b.sqs}
	for i := range 25 {
		b.deniedItem(fmt.Sprintf("c%02d", i))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sentAt := 0 // envelopes on the llm queue when the run was cancelled
	b.r.Index = hookIndex{b: b, after: 23, hook: func(ctx context.Context) error {
		sentAt = len(b.sqs.Bodies(queueURL(work.LLM)))
		cancel() // an operator's Ctrl-C, a Lambda's end
		return ctx.Err()
	}}
	sum, _ := b.r.Run(ctx, deniedKeyReplay())
	if sentAt < 20 {
		t.Fatalf("%d envelopes sent after 23 replays were written: want them sent as the run goes", sentAt)
	}
	sent := map[string]bool{}
	for _, env := range sentEnvelopes(t, b.sqs, work.LLM) {
		sent[env.ItemID] = true
	}
	for i := range 25 {
		id := fmt.Sprintf("c%02d", i)
		if _, pending := b.item(t, id).PendingReplay(); pending && !sent[id] {
			t.Fatalf("%s: replay written, envelope never sent (summary %+v)", id, sum)
		}
	}
}

// TestRunFromItemStateStopsBeforeItsDeadline: the redrive function's
// replay from item state ends when its Lambda does. It stops writing
// replays while there is time left to send the envelopes of those it wrote,
// and says the run is to be made again.
func TestRunFromItemStateStopsBeforeItsDeadline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.r.SQS = ctxSQS{b.sqs}
	for i := range 15 {
		b.deniedItem(fmt.Sprintf("d%02d", i))
	}
	now := time.Now()
	deadline := now.Add(time.Hour)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	c := clock.NewStub(now)
	b.r.Clock = c
	b.r.Index = hookIndex{b: b, after: 12, hook: func(context.Context) error {
		c.Set(deadline.Add(-5 * time.Second)) // within a few seconds of the deadline
		return nil
	}}
	sum, err := b.r.Run(ctx, deniedKeyReplay())
	if err == nil || !strings.Contains(err.Error(), "run the same request again") {
		t.Fatalf("a run stopped by its deadline: %v (summary %+v)", err, sum)
	}
	if sum.Replayed != 12 || len(sentEnvelopes(t, b.sqs, work.LLM)) != 12 {
		t.Fatalf("replayed %d, sent %d: want the 12 written before the deadline sent", sum.Replayed, len(sentEnvelopes(t, b.sqs, work.LLM)))
	}
}

// failAgainIndex is the store's index, but before it lists failed items
// the item "again", replayed, has failed again at its stage and waits in
// failed for its dead letter's hand-off (its envelope went as the run went,
// and its cause was not fixed).
type failAgainIndex struct{ b *bundle }

func (x failAgainIndex) List(ctx context.Context, q store.ItemQuery, fn func(store.Item) error) error {
	if it, err := x.b.store.Get(ctx, "again"); q.State == work.Failed && err == nil && it.State == work.Queued {
		it.State, it.Attempts = work.Failed, map[work.Stage]int{it.Stage: 1}
		x.b.store.Put(it)
	}
	return x.b.store.List(ctx, q, fn)
}

// TestRunFromItemStateReplaysAnItemOnce: a replay from item state by
// filter lists deadletter items, then failed ones. An item replayed in the
// first pass that has failed again by the second is not replayed a second
// time by the same run.
func TestRunFromItemStateReplaysAnItemOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deniedItem("again")
	b.r.Index = failAgainIndex{b}
	sum := b.run(t, deniedKeyReplay())
	if it := b.item(t, "again"); it.ReplayCount != 1 || sum.Replayed != 1 {
		t.Fatalf("replay count %d, summary %+v: want one replay of the item", it.ReplayCount, sum)
	}
}

// TestAnnotateSaysWhatItDidNotScan: annotate re-publishes the dead letters
// its scan finds; a scan cut short may miss some, and the result must say
// so rather than count the ones it found as all of them.
func TestAnnotateSaysWhatItDidNotScan(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter("other", work.LLM, work.ContentPolicy)
	b.deadLetter("z2", work.LLM, work.ContentPolicy)
	b.r.MaxMessages = 1
	res, err := b.r.Annotate(context.Background(), replay.AnnotateRequest{ID: "z2", Note: "legal says ok", By: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Incomplete, replay.Stages{work.LLM}) {
		t.Fatalf("result %+v: want the llm DLQ named as not scanned to the end", res)
	}
}

// TestBackstopCompletesAFailedItemsHandOff: a backstop message whose item
// is failed at that stage — its dead letter decided and written to the
// item, its hand-off to the DLQ never confirmed (a DLQ outage longer than
// the tolerance) — is no item to resume: the redrive's schedule sends the
// dead letter the item records to the stage's DLQ, confirms it on the item
// and only then deletes the backstop message. The item keeps its attempts
// and is not replayed; a send that fails keeps the message and the item.
func TestBackstopCompletesAFailedItemsHandOff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	failed := func(id string) {
		b.store.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.StatusAfter(work.Fetch),
			State: work.Failed, Stage: work.LLM, Attempts: map[work.Stage]int{work.Fetch: 1, work.LLM: 4}, ReplayCount: 1,
			EnrichmentStatus: work.EnrichmentPermanentFailure, FirstFailureAt: t0.Add(-time.Hour), LastFailureAt: t0,
			LastError: &store.LastError{Component: work.LLM, ErrorClass: work.AuthDenied, Error: "openai chat.completions: HTTP 401 invalid_api_key: key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 revoked",
				ErrorCode: "invalid_api_key", FailedAt: t0, RetryCount: 4}, UpdatedAt: t0})
		b.sqs.Put(dlqURL(work.LLM), work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "corr-" + id}.Encode())
	}
	run := func() replay.Summary {
		t.Helper()
		sum := b.run(t, replay.Request{Filter: replay.Filter{Backstop: true},
			Note: "moved by the redrive backstop", By: "backstop"})
		return sum
	}

	notices := &noticeLog{}
	b.r.Notices = notices
	failed("f1")
	dry := b.run(t, replay.Request{Filter: replay.Filter{Backstop: true}, Note: "check", DryRun: true})
	if len(dry.Items) != 1 || dry.Items[0].Action != replay.Skipped || !strings.Contains(dry.Items[0].Reason, "dry run: would send") {
		t.Fatalf("dry run %+v: want the hand-off reported as one a run would make, nothing sent", dry.Items)
	}
	if it := b.item(t, "f1"); it.State != work.Failed || len(notices.ids) != 0 {
		t.Fatalf("a dry run changed the item (%s) or sent %v", it.State, notices.ids)
	}
	b.sqs.FailSends(dlqURL(work.LLM), true)
	sum := run()
	if it := b.item(t, "f1"); it.State != work.Failed || it.ReplayCount != 1 || it.Attempts[work.LLM] != 4 {
		t.Fatalf("with the DLQ refusing sends, the item became %s at %s, replays %d, attempts %d (summary %+v)",
			it.State, it.Stage, it.ReplayCount, it.Attempts[work.LLM], sum)
	}
	if bodies := b.sqs.Bodies(dlqURL(work.LLM)); len(bodies) != 1 || strings.Contains(bodies[0], "dead_letter_id") {
		t.Fatalf("LLM DLQ %v: want the backstop message kept, no dead letter", bodies)
	}
	if sum.Errors != 1 {
		t.Fatalf("summary %+v: want the unsent hand-off counted as an error", sum)
	}

	b.sqs.FailSends(dlqURL(work.LLM), false)
	b.clock.Advance(15 * time.Minute)
	sum = run()
	it := b.item(t, "f1")
	if it.State != work.Deadletter || it.ReplayCount != 1 || it.Attempts[work.LLM] != 4 {
		t.Fatalf("after the hand-off the item is %s at %s, replays %d, attempts %d (summary %+v): want deadletter, not resumed",
			it.State, it.Stage, it.ReplayCount, it.Attempts[work.LLM], sum)
	}
	if sent := b.sqs.Bodies(queueURL(work.LLM)); len(sent) != 0 {
		t.Fatalf("sent %v to the stage queue: a judged failure is not resumed", sent)
	}
	bodies := b.sqs.Bodies(dlqURL(work.LLM))
	if len(bodies) != 1 {
		t.Fatalf("LLM DLQ %v: want the item's dead letter alone, the backstop message deleted", bodies)
	}
	kind, p, _ := deadletter.Read(bodies[0])
	if kind != deadletter.KindTriage || p == nil {
		t.Fatalf("LLM DLQ holds %q, want a triage dead letter", bodies[0])
	}
	if p.SanitizedContext.DeadLetterID != replay.CurrentDeadLetterID(it) || p.ErrorClass != work.AuthDenied || p.Attempts[work.LLM] != 4 {
		t.Fatalf("dead letter %+v: want the item's own (id %s, AUTH_DENIED, 4 attempts)", p, replay.CurrentDeadLetterID(it))
	}
	if strings.Contains(bodies[0], "sk-proj-abcdefghij") {
		t.Fatalf("the dead letter carries the key unredacted: %s", bodies[0])
	}
	if it.DeadLetter == nil || it.DeadLetter.ID != p.SanitizedContext.DeadLetterID {
		t.Fatalf("item's dead letter ref %+v: want the one sent", it.DeadLetter)
	}
	if len(notices.ids) != 1 || notices.ids[0] != "f1/"+p.SanitizedContext.DeadLetterID {
		t.Fatalf("owner notices %v: want item.failed of f1's dead letter once, after the send", notices.ids)
	}
}

// noticeLog records the item.failed notices a Replayer enqueues.
type noticeLog struct {
	ids  []string
	fail bool // refuse every notice, as a notice queue that is down
}

func (n *noticeLog) DeadLettered(_ context.Context, it store.Item, _ store.LastError, id string) error {
	if n.fail {
		return errors.New("AWS.SimpleQueueService.NonExistentQueue: the notice queue does not exist")
	}
	n.ids = append(n.ids, it.ID+"/"+id)
	return nil
}

// TestBackstopKeepsAHandOffWhoseNoticeFailed: the owner's item.failed of a
// hand-off the redrive completes is enqueued before the item is confirmed
// deadletter, so a notice queue that refuses it keeps the backstop message
// and the item failed, and the next run sends the same dead letter again
// (one dead_letter_id, which consumers drop) and the notice once.
func TestBackstopKeepsAHandOffWhoseNoticeFailed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.store.Put(store.Item{ID: "f2", Kind: store.KindAction, CorrelationID: "corr-f2", Status: work.StatusAfter(work.Fetch),
		State: work.Failed, Stage: work.LLM, Attempts: map[work.Stage]int{work.Fetch: 1, work.LLM: 2},
		LastError: &store.LastError{Component: work.LLM, ErrorClass: work.ContentPolicy, FailedAt: t0}, UpdatedAt: t0})
	b.sqs.Put(dlqURL(work.LLM), work.Envelope{ItemID: "f2", Stage: work.LLM, CorrelationID: "corr-f2"}.Encode())
	notices := &noticeLog{fail: true}
	b.r.Notices = notices
	req := replay.Request{Filter: replay.Filter{Backstop: true}, Note: "moved by the redrive backstop", By: "backstop"}
	sum := b.run(t, req)
	if it := b.item(t, "f2"); it.State != work.Failed || sum.Errors != 1 {
		t.Fatalf("with the notice refused the item is %s (summary %+v): want it failed and the run's error counted", it.State, sum)
	}
	notices.fail = false
	b.clock.Advance(15 * time.Minute)
	b.run(t, req)
	it := b.item(t, "f2")
	if it.State != work.Deadletter || len(notices.ids) != 1 {
		t.Fatalf("after the notice queue came back the item is %s, notices %v: want deadletter and item.failed once", it.State, notices.ids)
	}
	for _, body := range b.sqs.Bodies(dlqURL(work.LLM)) {
		if kind, _, _ := deadletter.Read(body); kind != deadletter.KindTriage {
			t.Fatalf("LLM DLQ still holds %q: want the backstop message deleted", body)
		}
	}
}
