package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// itemStore is what both item stores implement.
type itemStore interface {
	Create(ctx context.Context, n store.NewItem) (store.Item, error)
	Get(ctx context.Context, id string) (store.Item, error)
	Claim(ctx context.Context, req store.ClaimRequest) (store.Item, error)
	Complete(ctx context.Context, req store.CompleteRequest) error
	Fail(ctx context.Context, req store.FailRequest) (int, error)
	Park(ctx context.Context, req store.FailRequest, p store.Parking) (int, error)
	Release(ctx context.Context, req store.ReleaseRequest) error
	MarkDeadLettered(ctx context.Context, itemID string, stage work.Stage, ref store.DeadLetterRef, now time.Time) error
	Hydrate(ctx context.Context, it store.Item, parts ...store.Part) (store.Item, error)
	Replay(ctx context.Context, req store.ReplayRequest) (store.Item, error)
	Resolve(ctx context.Context, r store.Resolution) error
}

var (
	_ itemStore = (*store.Memory)(nil)
	_ itemStore = (*store.Items)(nil)
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// itemID is unique per test, so cases can share one DynamoDB table.
func itemID(t *testing.T) string {
	return strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
}

// conformance runs the itemStore contract against a fresh itemStore per case.
func conformance(t *testing.T, newStore func(t *testing.T) itemStore) {
	ctx := context.Background()
	create := func(t *testing.T, s itemStore, id string) {
		t.Helper()
		if _, err := s.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, SourceURL: "https://example.com/" + id,
			WebhookURL: "https://hooks.example.com/" + id, CorrelationID: "corr-" + id, Now: t0}); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(s itemStore, id string, st work.Stage, owner string, now time.Time) (store.Item, error) {
		return s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute})
	}
	mustClaim := func(t *testing.T, s itemStore, id string, st work.Stage, owner string, now time.Time) store.Item {
		t.Helper()
		it, err := claim(s, id, st, owner, now)
		if err != nil {
			t.Fatalf("claim %s by %s: %v", id, owner, err)
		}
		return it
	}
	// fetching returns a fresh store holding the test's item, claimed at
	// fetch by "m1#1" at t0.
	fetching := func(t *testing.T) (itemStore, string) {
		t.Helper()
		s, a := newStore(t), itemID(t)
		create(t, s, a)
		mustClaim(t, s, a, work.Fetch, "m1#1", t0)
		return s, a
	}
	failReq := func(id string, st work.Stage, owner string, prev int, counts bool, next work.State, now time.Time) store.FailRequest {
		return store.FailRequest{ItemID: id, Stage: st, Owner: owner, Now: now, PrevAttempts: prev, Counts: counts, Next: next,
			NotBefore: now.Add(10 * time.Second),
			LastError: store.LastError{Component: st, ErrorClass: work.RateLimited, Error: "429", FailedAt: now, Retryable: true}}
	}

	t.Run("create is not an upsert", func(t *testing.T) {
		s := newStore(t)
		a := itemID(t)
		create(t, s, a)
		_, err := s.Create(ctx, store.NewItem{ID: a, Kind: store.KindStory, CorrelationID: "x", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0})
		if !errors.Is(err, store.ErrExists) {
			t.Fatalf("second create: %v, want ErrExists", err)
		}
		it, err := s.Get(ctx, a)
		if err != nil || it.State != work.Queued || it.Stage != work.Fetch || it.Status != work.Received {
			t.Fatalf("item %+v, %v", it, err)
		}
		if _, err := s.Get(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("get missing: %v", err)
		}
	})

	t.Run("create returns the item that holds the id", func(t *testing.T) {
		s := newStore(t)
		a := itemID(t)
		n := store.NewItem{ID: a, Kind: store.KindAction, SourceURL: "https://example.com/task", WebhookURL: "https://hooks.example.com/h",
			CorrelationID: "c-" + a, Metadata: map[string]string{"team": "ops"}, Owner: "m1#1", Now: t0}
		got, err := s.Create(ctx, n)
		if err != nil || got.State != work.Queued || got.Metadata["team"] != "ops" {
			t.Fatalf("create: %+v, %v", got, err)
		}
		// The same delivery again (an SDK retry of an applied put): created.
		if again, err := s.Create(ctx, n); err != nil || again.ID != a {
			t.Fatalf("retried create: %+v, %v", again, err)
		}
		// Another delivery: the id is taken, and the error carries the item.
		n2 := n
		n2.Owner, n2.Metadata = "m2#1", map[string]string{"team": "newsroom"}
		_, err = s.Create(ctx, n2)
		var ee *store.ExistsError
		if !errors.As(err, &ee) || !errors.Is(err, store.ErrExists) || ee.Current == nil {
			t.Fatalf("second create: %v, want an ExistsError with the item", err)
		}
		if ee.Current.Metadata["team"] != "ops" || ee.Current.Kind != store.KindAction || ee.Current.WebhookURL != n.WebhookURL {
			t.Fatalf("existing item %+v", ee.Current)
		}
		// The state machine starts where a producer's item must: queued at fetch.
		mustClaim(t, s, a, work.Fetch, "m1#1", t0.Add(time.Second))
	})

	t.Run("claim takes the lease and reports the item on conflict", func(t *testing.T) {
		s := newStore(t)
		a := itemID(t)
		create(t, s, a)
		it := mustClaim(t, s, a, work.Fetch, "m1#1", t0)
		if it.State != work.Working || it.LeaseOwner != "m1#1" || it.Carrier != "m1#1" || !it.LeaseUntil.Equal(t0.Add(time.Minute)) {
			t.Fatalf("claimed item %+v", it)
		}
		_, err := claim(s, a, work.Fetch, "m2#1", t0.Add(time.Second))
		var ce *store.ClaimError
		if !errors.As(err, &ce) || ce.Current == nil || ce.Current.State != work.Working || ce.Current.LeaseOwner != "m1#1" {
			t.Fatalf("claim under a live lease: %v", err)
		}
		if !errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			t.Fatalf("claim error %v should be ErrConflict and not ErrNotFound", err)
		}
		mustClaim(t, s, a, work.Fetch, "m1#1", t0.Add(2*time.Second)) // the holder again
		mustClaim(t, s, a, work.Fetch, "m3#1", t0.Add(2*time.Minute)) // the lease expired
		if _, err := claim(s, a, work.LLM, "m4#1", t0.Add(5*time.Minute)); !errors.As(err, &ce) || ce.Current.Stage != work.Fetch {
			t.Fatalf("claim at the wrong stage: %v", err)
		}
		_, err = claim(s, "nope", work.Fetch, "m5#1", t0)
		if !errors.As(err, &ce) || ce.Current != nil || !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("claim of a missing item: %v", err)
		}
	})

	t.Run("complete moves on and resets failure fields", func(t *testing.T) {
		s, a := fetching(t)
		if _, err := s.Fail(ctx, failReq(a, work.Fetch, "m1#1", 0, true, work.Retryable, t0)); err != nil {
			t.Fatal(err)
		}
		mustClaim(t, s, a, work.Fetch, "m1#2", t0.Add(time.Minute))
		doc := &work.Document{Text: "hello", Bytes: 5, SHA256: "abc", FetchedAt: t0}
		if err := s.Complete(ctx, store.CompleteRequest{ItemID: a, Stage: work.Fetch, Owner: "other", Now: t0, Output: work.Output{Document: doc}}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("complete without the lease: %v", err)
		}
		if err := s.Complete(ctx, store.CompleteRequest{ItemID: a, Stage: work.Fetch, Owner: "m1#2", Now: t0.Add(time.Minute), Output: work.Output{Document: doc}}); err != nil {
			t.Fatal(err)
		}
		it, _ := s.Get(ctx, a)
		if it.State != work.Queued || it.Stage != work.LLM || it.Status != work.Fetched || it.FailureCount != 0 ||
			it.LastError != nil || !it.FirstFailureAt.IsZero() || it.EnrichmentStatus != work.EnrichmentSuccess ||
			it.LeaseOwner != "" || !it.NotBefore.IsZero() || it.Document == nil || it.Document.Text != "" ||
			it.Document.Body == nil || it.Document.Body.Store != store.StoreTable || it.Document.Bytes != 5 ||
			it.Attempts[work.Fetch] != 1 || it.LastFailureAt.IsZero() {
			t.Fatalf("after complete: %+v", it)
		}
		full, err := s.Hydrate(ctx, it, store.PartDocument)
		// SHA256 is the true hash of the text, whatever the work said.
		if err != nil || full.Document.Text != "hello" || full.Document.Body != nil ||
			full.Document.SHA256 != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
			t.Fatalf("document read back: %+v, %v", full.Document, err)
		}
	})

	t.Run("fail counts attempts per stage and guards them", func(t *testing.T) {
		s, a := fetching(t)
		if _, err := s.Fail(ctx, failReq(a, work.Fetch, "m1#1", 3, true, work.Retryable, t0)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("fail with stale attempts: %v", err)
		}
		n, err := s.Fail(ctx, failReq(a, work.Fetch, "m1#1", 0, true, work.Retryable, t0))
		if err != nil || n != 1 {
			t.Fatalf("fail: %d, %v", n, err)
		}
		if _, err := s.Fail(ctx, failReq(a, work.Fetch, "m1#1", 1, true, work.Retryable, t0)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("fail after the lease was released: %v", err)
		}
		mustClaim(t, s, a, work.Fetch, "m1#2", t0.Add(time.Minute))
		n, err = s.Fail(ctx, failReq(a, work.Fetch, "m1#2", 1, false, work.Retryable, t0.Add(time.Minute)))
		if err != nil || n != 1 {
			t.Fatalf("non-counting fail: %d, %v", n, err)
		}
		it, _ := s.Get(ctx, a)
		if it.Attempts[work.Fetch] != 1 || it.Attempts[work.LLM] != 0 || it.FailureCount != 1 ||
			it.State != work.Retryable || it.EnrichmentStatus != work.EnrichmentPending || !it.FirstFailureAt.Equal(t0) ||
			it.LastError == nil || it.LastError.ErrorClass != work.RateLimited {
			t.Fatalf("after failures: %+v", it)
		}
		if _, err := claim(s, a, work.Fetch, "m1#3", t0.Add(time.Minute)); err == nil {
			t.Fatal("claim before not_before succeeded")
		}
		mustClaim(t, s, a, work.Fetch, "m1#3", t0.Add(time.Minute+10*time.Second-store.CooldownTolerance))
	})

	t.Run("dead-letter hand-off", func(t *testing.T) {
		s, a := fetching(t)
		if _, err := s.Fail(ctx, failReq(a, work.Fetch, "m1#1", 0, true, work.Failed, t0)); err != nil {
			t.Fatal(err)
		}
		it, _ := s.Get(ctx, a)
		if it.State != work.Failed || it.EnrichmentStatus != work.EnrichmentPermanentFailure {
			t.Fatalf("after a permanent failure: %s %s", it.State, it.EnrichmentStatus)
		}
		ref := store.DeadLetterRef{ID: "dl1", Stage: work.Fetch, Class: work.NotFound, At: t0, Attempt: 1}
		if err := s.MarkDeadLettered(ctx, a, work.LLM, ref, t0); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("mark at the wrong stage: %v", err)
		}
		if err := s.MarkDeadLettered(ctx, a, work.Fetch, ref, t0); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkDeadLettered(ctx, a, work.Fetch, ref, t0.Add(time.Second)); err != nil {
			t.Fatalf("confirming the same dead letter again: %v", err)
		}
		other := ref
		other.ID = "dl2"
		if err := s.MarkDeadLettered(ctx, a, work.Fetch, other, t0); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("marking a different dead letter: %v", err)
		}
		it, _ = s.Get(ctx, a)
		if it.State != work.Deadletter || it.DeadLetter == nil || it.DeadLetter.ID != "dl1" {
			t.Fatalf("after the hand-off: %+v", it)
		}
	})

	t.Run("resolve is conditional on the state read", func(t *testing.T) {
		s, a := fetching(t)
		if _, err := s.Fail(ctx, failReq(a, work.Fetch, "m1#1", 0, true, work.Failed, t0)); err != nil {
			t.Fatal(err)
		}
		ref := store.DeadLetterRef{ID: "dl1", Stage: work.Fetch, Class: work.RateLimited, At: t0, Attempt: 1}
		if err := s.MarkDeadLettered(ctx, a, work.Fetch, ref, t0); err != nil {
			t.Fatal(err)
		}
		read, _ := s.Get(ctx, a)
		res := store.Resolution{ItemID: a, At: t0.Add(time.Minute), By: "ana", Note: "given up", Stage: work.Fetch,
			DeadLetterID: "dl1", MessageID: "msg-1", Read: &read}
		// A replay lands between the resolver's read and its write.
		if _, err := s.Replay(ctx, store.ReplayRequest{ItemID: a, Stage: work.Fetch, PrevReplayCount: read.ReplayCount,
			Note: "provider fixed", By: "bo", Now: t0.Add(30 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Resolve(ctx, res); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("resolve after a replay since the read: %v, want ErrConflict", err)
		}
		if it, _ := s.Get(ctx, a); it.Resolution != nil || it.State != work.Queued {
			t.Fatalf("the replayed item %s carries resolution %+v", it.State, it.Resolution)
		}
		now, _ := s.Get(ctx, a)
		res.Read = &now
		if err := s.Resolve(ctx, res); err != nil {
			t.Fatalf("resolve on the state read: %v", err)
		}
		if it, _ := s.Get(ctx, a); it.Resolution == nil || it.Resolution.Note != "given up" {
			t.Fatalf("resolution %+v, want the one written", it.Resolution)
		}
	})

	t.Run("park and release wait without a lease", func(t *testing.T) {
		s, a := fetching(t)
		due := t0.Add(30 * time.Hour)
		env := work.Envelope{ItemID: a, Stage: work.Fetch, CorrelationID: "corr-a"}
		if n, err := s.Park(ctx, failReq(a, work.Fetch, "m1#1", 0, true, work.Retryable, t0), store.Parking{DueAt: due, Envelope: env}); err != nil || n != 1 {
			t.Fatalf("park: %d, %v", n, err)
		}
		if _, err := s.Park(ctx, failReq(a, work.Fetch, "m1#1", 1, true, work.Retryable, t0), store.Parking{DueAt: due, Envelope: env}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("park without the lease: %v", err)
		}
		it, _ := s.Get(ctx, a)
		if it.State != work.Retryable || !it.NotBefore.Equal(due) || it.LeaseOwner != "" {
			t.Fatalf("parked item: %+v", it)
		}
		mustClaim(t, s, a, work.Fetch, "m2#1", due)
		if err := s.Release(ctx, store.ReleaseRequest{ItemID: a, Stage: work.Fetch, Owner: "m2#1", Now: due, NotBefore: due.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		it, _ = s.Get(ctx, a)
		if it.State != work.Retryable || it.Attempts[work.Fetch] != 1 || !it.NotBefore.Equal(due.Add(time.Minute)) {
			t.Fatalf("released item: %+v", it)
		}
	})

	t.Run("8 concurrent handlers never lose an update", func(t *testing.T) {
		s := newStore(t)
		a := itemID(t)
		create(t, s, a)
		const workers, rounds = 8, 5
		var (
			wg        sync.WaitGroup
			tick      atomic.Int64
			mu        sync.Mutex
			recorded  int
			lastCount = map[int]bool{}
		)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds {
					owner := fmt.Sprintf("w%d#%d", w, r)
					// One clock for all workers, as hosts share one; it
					// never reaches a lease's expiry, so every conflict is
					// a real race between live handlers.
					now := t0.Add(time.Duration(tick.Add(1)) * time.Millisecond)
					it, err := s.Claim(ctx, store.ClaimRequest{ItemID: a, Stage: work.Fetch, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute})
					if err != nil {
						continue
					}
					req := failReq(a, work.Fetch, owner, it.Attempts[work.Fetch], true, work.Retryable, now)
					req.NotBefore = now
					n, err := s.Fail(ctx, req)
					if err != nil {
						cur, _ := s.Get(ctx, a)
						t.Errorf("fail after a won claim by %s (claimed attempts %d, lease %s until %v): %v; item now %s owner %s attempts %d",
							owner, it.Attempts[work.Fetch], it.LeaseOwner, it.LeaseUntil, err, cur.State, cur.LeaseOwner, cur.Attempts[work.Fetch])
						continue
					}
					mu.Lock()
					recorded++
					if lastCount[n] {
						t.Errorf("attempt count %d returned twice: an update was lost", n)
					}
					lastCount[n] = true
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		it, _ := s.Get(ctx, a)
		if recorded == 0 || it.Attempts[work.Fetch] != recorded || it.FailureCount != recorded {
			t.Fatalf("recorded %d failures, item has attempts %d failure_count %d", recorded, it.Attempts[work.Fetch], it.FailureCount)
		}
	})
}

func TestConformance(t *testing.T) {
	t.Parallel()
	localtest.Conformance(t, conformance, func() itemStore { return store.NewMemory() }, func(t *testing.T) itemStore {
		env := localtest.Stack(t, nil)
		return &store.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()}
	})
}
