package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// parkingBundle is one implementation of the stores a parked wait touches.
type parkingBundle struct {
	items interface {
		itemStore
		ParkWait(ctx context.Context, req store.ReleaseRequest, p store.Parking) error
	}
	parked interface {
		Waiting(ctx context.Context, g gates.Name, limit int) ([]store.ParkedWait, error)
		Count(ctx context.Context, g gates.Name) (int, error)
		Unpark(ctx context.Context, w store.ParkedWait) error
	}
	gates interface {
		Touch(ctx context.Context, g gates.Name, now time.Time) error
		Congested(ctx context.Context, g gates.Name, now time.Time) error
		List(ctx context.Context) ([]store.GateRecord, error)
		Lease(ctx context.Context, rec store.GateRecord, owner string, now, until time.Time, next gates.Ramp) error
		Reset(ctx context.Context, rec store.GateRecord, now time.Time) error
		Delete(ctx context.Context, rec store.GateRecord, now time.Time) error
	}
}

// parkingConformance holds parking, the by-gate waiters, the dead-letter
// confirmation and the gate records to one contract.
func parkingConformance(t *testing.T, newBundle func(t *testing.T) parkingBundle) {
	ctx := context.Background()
	setup := func(t *testing.T) (parkingBundle, string) {
		t.Helper()
		b := newBundle(t)
		id := itemID(t)
		if _, err := b.items.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0}); err != nil {
			t.Fatal(err)
		}
		return b, id
	}
	claim := func(t *testing.T, b parkingBundle, id, msg string, now time.Time) store.Item {
		t.Helper()
		it, err := b.items.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.Fetch, Owner: msg + "#1", Carrier: msg, Now: now, LeaseFor: time.Minute})
		if err != nil {
			t.Fatalf("claim by %s: %v", msg, err)
		}
		return it
	}
	env := func(id string) work.Envelope {
		return work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "corr-" + id}
	}
	lookup := func(t *testing.T, b parkingBundle, g gates.Name) (store.GateRecord, bool) {
		t.Helper()
		recs, err := b.gates.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Gate == g {
				return r, true
			}
		}
		return store.GateRecord{}, false
	}

	t.Run("a parked item has no carrier: the scheduler's message may end its wait", func(t *testing.T) {
		b, id := setup(t)
		claim(t, b, id, "m1", t0)
		due := t0.Add(30 * time.Hour)
		req := store.FailRequest{ItemID: id, Stage: work.Fetch, Owner: "m1#1", Now: t0, Counts: true, Next: work.Retryable,
			LastError: store.LastError{Component: work.Fetch, ErrorClass: work.RateLimited, Error: "429", FailedAt: t0, Retryable: true}}
		if _, err := b.items.Park(ctx, req, store.Parking{DueAt: due, Envelope: env(id)}); err != nil {
			t.Fatal(err)
		}
		it, _ := b.items.Get(ctx, id)
		if it.Carrier != "" || it.State != work.Retryable || !it.NotBefore.Equal(due) || it.Attempts[work.Fetch] != 1 {
			t.Fatalf("parked for a due time: %+v", it)
		}
		// The scheduler's envelope, a new message, claims the item once due.
		if got := claim(t, b, id, "m2", due); got.Carrier != "m2" {
			t.Fatalf("claim after the park: carrier %q", got.Carrier)
		}
	})

	t.Run("a gate wait is claimable at once and listed by its gate, oldest first", func(t *testing.T) {
		b, id := setup(t)
		g := gates.New(gates.Breaker, id+".example")
		claim(t, b, id, "m1", t0)
		rel := store.ReleaseRequest{ItemID: id, Stage: work.Fetch, Owner: "m1#1", Now: t0, Reason: "breaker open"}
		if err := b.items.ParkWait(ctx, rel, store.Parking{DueAt: t0.Add(5 * time.Minute), Gate: g, Envelope: env(id), Reason: "breaker open"}); err != nil {
			t.Fatal(err)
		}
		it, _ := b.items.Get(ctx, id)
		if it.Carrier != "" || it.State != work.Retryable || it.NotBefore.After(t0) || it.Attempts[work.Fetch] != 0 || it.LastError != nil {
			t.Fatalf("parked behind %s: %+v", g, it)
		}
		// A second item parks behind the same gate a second later.
		other := id + "-2"
		if _, err := b.items.Create(ctx, store.NewItem{ID: other, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0}); err != nil {
			t.Fatal(err)
		}
		claim(t, b, other, "m9", t0)
		rel2 := store.ReleaseRequest{ItemID: other, Stage: work.Fetch, Owner: "m9#1", Now: t0.Add(time.Second)}
		if err := b.items.ParkWait(ctx, rel2, store.Parking{Gate: g, Envelope: env(other)}); err != nil {
			t.Fatal(err)
		}
		ws, err := b.parked.Waiting(ctx, g, 10)
		if err != nil || len(ws) != 2 || ws[0].ItemID != id || ws[1].ItemID != other || ws[0].Gate != g || ws[0].Envelope != env(id).Encode() {
			t.Fatalf("waiters of %s: %+v, %v", g, ws, err)
		}
		if one, _ := b.parked.Waiting(ctx, g, 1); len(one) != 1 || one[0].ItemID != id {
			t.Fatalf("the oldest waiter: %+v", one)
		}
		if n, err := b.parked.Count(ctx, g); err != nil || n != 2 {
			t.Fatalf("count of %s's waiters = %d, %v; want 2", g, n, err)
		}
		if n, err := b.parked.Count(ctx, gates.New(gates.Budget, "1999-01-01")); err != nil || n != 0 {
			t.Fatalf("count of a gate without waiters = %d, %v", n, err)
		}
		// A waiter that ran and parked again since it was listed keeps its
		// new wait: the stale copy cannot retire it.
		claim(t, b, id, "m3", t0.Add(time.Minute))
		rel3 := store.ReleaseRequest{ItemID: id, Stage: work.Fetch, Owner: "m3#1", Now: t0.Add(time.Minute)}
		if err := b.items.ParkWait(ctx, rel3, store.Parking{Gate: g, Envelope: env(id)}); err != nil {
			t.Fatal(err)
		}
		if err := b.parked.Unpark(ctx, ws[0]); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("unpark of a stale listing: %v, want ErrConflict", err)
		}
		if err := b.parked.Unpark(ctx, ws[1]); err != nil {
			t.Fatal(err)
		}
		if err := b.parked.Unpark(ctx, ws[1]); err != nil {
			t.Fatalf("unpark of a wait already gone: %v", err)
		}
		if left, _ := b.parked.Waiting(ctx, g, 10); len(left) != 1 || left[0].ItemID != id || !left[0].ParkedAt.Equal(t0.Add(time.Minute)) {
			t.Fatalf("waiters left: %+v", left)
		}
	})

	t.Run("a suspect record goes with the wait and the failure, and a success clears it", func(t *testing.T) {
		b, id := setup(t)
		g := gates.New(gates.Breaker, "llm:"+id)
		run := store.Suspect{Service: "llm:" + id, Class: work.AuthDenied, Count: 2, Probes: 1, First: t0, Last: t0.Add(time.Minute)}
		claim(t, b, id, "m1", t0)
		rel := store.ReleaseRequest{ItemID: id, Stage: work.Fetch, Owner: "m1#1", Now: t0.Add(time.Minute), Suspect: &run}
		if err := b.items.ParkWait(ctx, rel, store.Parking{Gate: g, Envelope: env(id), Probes: run.Probes, Suspect: true}); err != nil {
			t.Fatal(err)
		}
		it, _ := b.items.Get(ctx, id)
		if it.Suspect == nil || it.Suspect.Service != run.Service || it.Suspect.Class != run.Class || it.Suspect.Count != 2 ||
			it.Suspect.Probes != 1 || !it.Suspect.First.Equal(t0) || !it.Suspect.Last.Equal(run.Last) || it.Suspect.Judged {
			t.Fatalf("item's suspect record after the wait: %+v", it.Suspect)
		}
		if ws, err := b.parked.Waiting(ctx, g, 10); err != nil || len(ws) != 1 || !ws[0].Suspect || ws[0].Probes != 1 {
			t.Fatalf("the waiter as the scheduler lists it: %+v, %v", ws, err)
		}
		// A wait that names no record leaves the item's as it is.
		claim(t, b, id, "m2", t0.Add(2*time.Minute))
		if err := b.items.Release(ctx, store.ReleaseRequest{ItemID: id, Stage: work.Fetch, Owner: "m2#1", Now: t0.Add(2 * time.Minute),
			NotBefore: t0.Add(3 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if it, _ := b.items.Get(ctx, id); it.Suspect == nil || it.Suspect.Count != 2 {
			t.Fatalf("after a release without a record: %+v", it.Suspect)
		}
		// A failure judged the item's own is recorded with it.
		judged := run
		judged.Count, judged.Judged = 3, true
		claim(t, b, id, "m3", t0.Add(3*time.Minute))
		req := store.FailRequest{ItemID: id, Stage: work.Fetch, Owner: "m3#1", Now: t0.Add(3 * time.Minute), Counts: true,
			Next: work.Retryable, NotBefore: t0.Add(4 * time.Minute), Suspect: &judged,
			LastError: store.LastError{Component: work.Fetch, ErrorClass: work.UpstreamUnavailable, Error: "503", Retryable: true}}
		if _, err := b.items.Fail(ctx, req); err != nil {
			t.Fatal(err)
		}
		if it, _ := b.items.Get(ctx, id); it.Suspect == nil || !it.Suspect.Judged || it.Suspect.Count != 3 {
			t.Fatalf("after the judged failure: %+v", it.Suspect)
		}
		claim(t, b, id, "m4", t0.Add(4*time.Minute))
		if err := b.items.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Fetch, Owner: "m4#1", Now: t0.Add(4 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if it, _ := b.items.Get(ctx, id); it.Suspect != nil {
			t.Fatalf("a success left the suspect record: %+v", it.Suspect)
		}
	})

	t.Run("a dead letter is confirmed only on the failure it was built from", func(t *testing.T) {
		b, id := setup(t)
		claim(t, b, id, "m1", t0)
		req := store.FailRequest{ItemID: id, Stage: work.Fetch, Owner: "m1#1", Now: t0, Counts: true, Next: work.Failed,
			LastError: store.LastError{Component: work.Fetch, ErrorClass: work.NotFound, Error: "404", FailedAt: t0}}
		if _, err := b.items.Fail(ctx, req); err != nil {
			t.Fatal(err)
		}
		// A confirmation built from another failure (attempt 2, or the same
		// attempt before a replay) is not this item's dead letter.
		for _, ref := range []store.DeadLetterRef{
			{ID: "other-attempt", Stage: work.Fetch, Class: work.NotFound, At: t0, Attempt: 2},
			{ID: "other-replay", Stage: work.Fetch, Class: work.NotFound, At: t0, Attempt: 1, Replay: 1},
		} {
			if err := b.items.MarkDeadLettered(ctx, id, work.Fetch, ref, t0); !errors.Is(err, store.ErrConflict) {
				t.Fatalf("confirm %s: %v, want ErrConflict", ref.ID, err)
			}
		}
		if it, _ := b.items.Get(ctx, id); it.State != work.Failed || it.DeadLetter != nil {
			t.Fatalf("after the refused confirmations: %s %+v", it.State, it.DeadLetter)
		}
		ref := store.DeadLetterRef{ID: "this-one", Stage: work.Fetch, Class: work.NotFound, At: t0, Attempt: 1}
		if err := b.items.MarkDeadLettered(ctx, id, work.Fetch, ref, t0); err != nil {
			t.Fatal(err)
		}
		if it, _ := b.items.Get(ctx, id); it.State != work.Deadletter || it.DeadLetter == nil || it.DeadLetter.ID != "this-one" ||
			it.DeadLetter.Attempt != 1 {
			t.Fatalf("after the confirmation: %s %+v", it.State, it.DeadLetter)
		}
	})

	t.Run("gate records: touch, congestion, one lease per run, reset, retire", func(t *testing.T) {
		b, id := setup(t)
		g := gates.New(gates.Budget, id)
		if err := b.gates.Congested(ctx, g, t0); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("congestion for a gate without a record: %v, want ErrConflict", err)
		}
		if err := b.gates.Touch(ctx, g, t0); err != nil {
			t.Fatal(err)
		}
		if err := b.gates.Touch(ctx, g, t0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		rec, ok := lookup(t, b, g)
		if !ok || !rec.WaitingSince.Equal(t0) || !rec.TouchedAt.Equal(t0.Add(time.Second)) || rec.Ramp.Started() {
			t.Fatalf("after two touches: %+v", rec)
		}
		now := t0.Add(time.Minute)
		cfg := gates.RampConfig{}
		next := cfg.Next(rec.Ramp, now, rec.Congested)
		next.Released = next.Rate // as the scheduler records what it released
		if err := b.gates.Lease(ctx, rec, "run-1", now, now.Add(50*time.Second), next); err != nil {
			t.Fatal(err)
		}
		// An overlapping run with the same listing loses; so does one that
		// comes while the lease holds.
		if err := b.gates.Lease(ctx, rec, "run-2", now.Add(time.Second), now.Add(time.Minute), next); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second lease from a stale listing: %v", err)
		}
		rec2, _ := lookup(t, b, g)
		if rec2.LeaseOwner != "run-1" || rec2.Ramp.Rate != gates.DefaultRampStart || !rec2.Ramp.OpenedAt.Equal(now) ||
			rec2.Ramp.Released != gates.DefaultRampStart || !rec2.Ramp.SlowStart {
			t.Fatalf("after the lease: %+v", rec2)
		}
		if err := b.gates.Lease(ctx, rec2, "run-2", now.Add(10*time.Second), now.Add(time.Minute), cfg.Next(rec2.Ramp, now, 0)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("lease while held: %v", err)
		}
		// A quarter of the run's releases meet congestion.
		for i := range gates.DefaultRampStart / 4 {
			if err := b.gates.Congested(ctx, g, now.Add(time.Duration(10+i)*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		later := now.Add(time.Minute)
		rec3, _ := lookup(t, b, g)
		if rec3.Congested != gates.DefaultRampStart/4 || !rec3.CongestedAt.Equal(now.Add(time.Duration(10+gates.DefaultRampStart/4-1)*time.Second)) {
			t.Fatalf("after a congestion signal: %+v", rec3)
		}
		cut := cfg.Next(rec3.Ramp, later, rec3.Congested)
		if err := b.gates.Lease(ctx, rec3, "run-3", later, later.Add(50*time.Second), cut); err != nil {
			t.Fatal(err)
		}
		rec4, _ := lookup(t, b, g)
		if rec4.Ramp != cut || rec4.Ramp.Rate >= gates.DefaultRampStart || rec4.Ramp.Peak != gates.DefaultRampStart || rec4.Ramp.Seen != gates.DefaultRampStart/4 ||
			!rec4.Ramp.Cut || rec4.Ramp.SlowStart {
			t.Fatalf("the ramp stored after the cut: %+v, want %+v", rec4.Ramp, cut)
		}
		// The gate closes again: the ramp resets once the lease is over.
		if err := b.gates.Reset(ctx, rec4, later.Add(10*time.Second)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("reset under a live lease: %v", err)
		}
		if err := b.gates.Reset(ctx, rec4, later.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		rec5, _ := lookup(t, b, g)
		if rec5.Ramp.Started() {
			t.Fatalf("after the reset: %+v", rec5.Ramp)
		}
		// Retired only once its last touch is stale, and not after a touch
		// it did not see.
		if err := b.gates.Delete(ctx, rec5, later.Add(time.Minute)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("delete of a fresh record: %v", err)
		}
		stale := rec5.TouchedAt.Add(store.StaleTouch + time.Minute)
		if err := b.gates.Touch(ctx, g, stale.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := b.gates.Delete(ctx, rec5, stale); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("delete after a touch it did not see: %v", err)
		}
		rec6, _ := lookup(t, b, g)
		if err := b.gates.Delete(ctx, rec6, rec6.TouchedAt.Add(store.StaleTouch+time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, ok := lookup(t, b, g); ok {
			t.Fatal("the record is still listed")
		}
	})
}

func TestMemoryParkingConformance(t *testing.T) {
	t.Parallel()
	parkingConformance(t, func(*testing.T) parkingBundle {
		m := store.NewMemory()
		return parkingBundle{items: m, parked: m.ParkedStore(), gates: store.NewMemoryGates()}
	})
}

func TestDynamoParkingConformance(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	b := parkingBundle{
		items:  &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable()},
		parked: &store.Parked{DB: db, Table: env.Stack.ParkedTable()},
		gates:  &store.Gates{DB: db, Table: env.Stack.GatesTable()},
	}
	parkingConformance(t, func(*testing.T) parkingBundle { return b })
}
