package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// opsStore is what both stores implement for the operator workflow.
type opsStore interface {
	itemStore
	put(t *testing.T, it store.Item)
	Replay(ctx context.Context, req store.ReplayRequest) (store.Item, error)
	Annotate(ctx context.Context, itemID string, n store.Note) error
	List(ctx context.Context, q store.ItemQuery, fn func(store.Item) error) error
	parked() parkedStore
	// history is the item's replay and note entries in the error log.
	history(t *testing.T, id string) []store.LogEntry
}

type parkedStore interface {
	Due(ctx context.Context, now time.Time, fn func([]store.ParkedWait) error) error
	Claim(ctx context.Context, w store.ParkedWait, owner string, now, until time.Time) error
	Delete(ctx context.Context, w store.ParkedWait, owner string) error
}

var (
	_ parkedStore = (*store.Parked)(nil)
	_ parkedStore = (*store.MemoryParked)(nil)
)

type memOps struct{ *store.Memory }

func (m memOps) put(_ *testing.T, it store.Item) { m.Put(it) }
func (m memOps) parked() parkedStore             { return m.ParkedStore() }
func (m memOps) history(_ *testing.T, id string) []store.LogEntry {
	var out []store.LogEntry
	for _, e := range m.Audit() {
		if e.ItemID == id {
			out = append(out, e)
		}
	}
	return out
}

type dynOps struct {
	*store.Items
	*store.ItemIndex
	p   *store.Parked
	log *store.ErrorLogReader
}

func (d dynOps) history(t *testing.T, id string) []store.LogEntry {
	t.Helper()
	all, err := d.log.ForItem(context.Background(), id, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.LogEntry
	for _, e := range all {
		if e.Kind != store.LogFailure {
			out = append(out, e)
		}
	}
	return out
}

func (d dynOps) put(t *testing.T, it store.Item) {
	t.Helper()
	if err := d.Items.Put(context.Background(), it); err != nil {
		t.Fatal(err)
	}
}
func (d dynOps) parked() parkedStore { return d.p }

// deadItem is an item dead-lettered at the llm stage after 3 attempts.
func deadItem(id string) store.Item {
	return store.Item{
		ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Fetched, State: work.Deadletter,
		Stage: work.LLM, Attempts: map[work.Stage]int{work.Fetch: 1, work.LLM: 3},
		EnrichmentStatus: work.EnrichmentPermanentFailure, FailureCount: 3,
		LastError:      &store.LastError{Component: work.LLM, ErrorClass: work.ResponseInvalid, Error: "bad json", FailedAt: t0},
		FirstFailureAt: t0.Add(-time.Minute), LastFailureAt: t0,
		DeadLetter: &store.DeadLetterRef{ID: "dl-" + id, Stage: work.LLM, Class: work.ResponseInvalid, At: t0},
		CreatedAt:  t0.Add(-time.Hour), UpdatedAt: t0,
	}
}

func replayReq(id string) store.ReplayRequest {
	return store.ReplayRequest{ItemID: id, Stage: work.LLM, Note: "model fixed", By: "oncall", Class: work.ResponseInvalid,
		DeadLetterID: "dl-" + id, MessageID: "m-" + id, Now: t0.Add(time.Hour)}
}

func opsConformance(t *testing.T, newStore func(t *testing.T) opsStore) {
	ctx := context.Background()

	t.Run("replay from the failed stage", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		s.put(t, deadItem(id))
		it, err := s.Replay(ctx, replayReq(id))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(ctx, id)
		for _, it := range []store.Item{it, got} {
			if it.State != work.Queued || it.Stage != work.LLM || it.Status != work.Fetched ||
				it.Attempts[work.LLM] != 0 || it.Attempts[work.Fetch] != 1 || it.ReplayCount != 1 ||
				it.EnrichmentStatus != work.EnrichmentPending || it.DeadLetter == nil || it.DeadLetter.ID != "dl-"+id {
				t.Fatalf("after replay: %+v", it)
			}
			want := store.ReplayRecord{At: t0.Add(time.Hour), By: "oncall", Note: "model fixed", Mode: "from_failed_stage",
				FromStage: work.LLM, Class: work.ResponseInvalid, FailedStage: work.LLM, DeadLetterID: "dl-" + id, MessageID: "m-" + id}
			if len(it.Replays) != 1 || !it.Replays[0].At.Equal(want.At) {
				t.Fatalf("replays %+v", it.Replays)
			}
			it.Replays[0].At = want.At
			if it.Replays[0] != want {
				t.Fatalf("replay record %+v\nwant %+v", it.Replays[0], want)
			}
		}
		rec, pending := got.PendingReplay()
		if !pending || rec.DeadLetterID != "dl-"+id {
			t.Fatalf("PendingReplay = %+v, %v", rec, pending)
		}
		env, ok := got.ReplayEnvelope()
		if !ok || env.Stage != work.LLM || env.Replay == nil || env.Replay.Count != 1 || env.Replay.Note != "model fixed" ||
			env.Replay.FromDeadLetter != "m-"+id || env.CorrelationID != "corr-"+id {
			t.Fatalf("envelope %+v", env)
		}
		// A retry of the same write is recognised as applied; another replay
		// from the same read loses its condition.
		if again, err := s.Replay(ctx, replayReq(id)); err != nil || again.ReplayCount != 1 {
			t.Fatalf("retried replay: %d, %v", again.ReplayCount, err)
		}
		other := replayReq(id)
		other.Now = other.Now.Add(time.Second)
		_, err = s.Replay(ctx, other)
		var re *store.ReplayError
		if !errors.As(err, &re) || re.Current == nil || re.Current.State != work.Queued || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second replay: %v", err)
		}
		// A claim acts on the replay: it is no longer pending.
		if _, err := s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.LLM, Owner: "m#1", Carrier: "m", Now: t0.Add(2 * time.Hour), LeaseFor: time.Minute}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Get(ctx, id)
		if _, pending := got.PendingReplay(); pending {
			t.Fatal("a claimed item still has a pending replay")
		}
	})

	t.Run("full restart starts at fetch", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		s.put(t, deadItem(id))
		req := replayReq(id)
		req.Mode = store.FullRestart
		it, err := s.Replay(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if it.Stage != work.Fetch || it.Status != work.Received || it.Attempts[work.Fetch] != 0 || it.Attempts[work.LLM] != 0 ||
			it.Replays[0].FromStage != work.Fetch || it.Replays[0].FailedStage != work.LLM {
			t.Fatalf("after a full restart: %+v", it)
		}
	})

	t.Run("conditions", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		live := deadItem(id + "-working")
		live.State, live.LeaseOwner, live.LeaseUntil = work.Working, "x#1", t0.Add(2*time.Hour)
		expired := deadItem(id + "-expired")
		expired.State, expired.LeaseOwner, expired.LeaseUntil = work.Working, "x#1", t0
		retryable := deadItem(id + "-retryable")
		retryable.State = work.Retryable
		failed := deadItem(id + "-failed")
		failed.State = work.Failed
		for _, it := range []store.Item{deadItem(id), live, expired, retryable, failed} {
			s.put(t, it)
		}
		tests := []struct {
			name     string
			mutate   func(*store.ReplayRequest)
			conflict bool
			notFound bool
		}{
			{name: "wrong stage", mutate: func(r *store.ReplayRequest) { r.Stage = work.Notify }, conflict: true},
			{name: "stale replay count", mutate: func(r *store.ReplayRequest) { r.PrevReplayCount = 2 }, conflict: true},
			{name: "missing item", mutate: func(r *store.ReplayRequest) { r.ItemID = id + "-missing" }, conflict: true, notFound: true},
			{name: "retryable needs the backstop states", mutate: func(r *store.ReplayRequest) { r.ItemID = id + "-retryable" }, conflict: true},
			{name: "retryable from the backstop", mutate: func(r *store.ReplayRequest) {
				r.ItemID, r.From = id+"-retryable", store.BackstopStates()
			}},
			{name: "a live lease is never taken", mutate: func(r *store.ReplayRequest) {
				r.ItemID, r.From = id+"-working", store.BackstopStates()
			}, conflict: true},
			{name: "an expired lease is", mutate: func(r *store.ReplayRequest) { r.ItemID, r.From = id+"-expired", store.BackstopStates() }},
			{name: "failed before the hand-off", mutate: func(r *store.ReplayRequest) { r.ItemID = id + "-failed" }},
		}
		for _, tc := range tests {
			req := replayReq(id)
			tc.mutate(&req)
			_, err := s.Replay(ctx, req)
			if got := errors.Is(err, store.ErrConflict); got != tc.conflict {
				t.Errorf("%s: %v, conflict %v want %v", tc.name, err, got, tc.conflict)
			}
			if got := errors.Is(err, store.ErrNotFound); got != tc.notFound {
				t.Errorf("%s: %v, not found %v want %v", tc.name, err, got, tc.notFound)
			}
		}
	})

	t.Run("invalid requests are not conflicts", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		s.put(t, deadItem(id))
		for name, mutate := range map[string]func(*store.ReplayRequest){
			"no note":     func(r *store.ReplayRequest) { r.Note = " " },
			"no by":       func(r *store.ReplayRequest) { r.By = "" },
			"bad mode":    func(r *store.ReplayRequest) { r.Mode = "sideways" },
			"done source": func(r *store.ReplayRequest) { r.From = []work.State{work.Done} },
		} {
			req := replayReq(id)
			mutate(&req)
			if _, err := s.Replay(ctx, req); err == nil || errors.Is(err, store.ErrConflict) {
				t.Errorf("%s: %v, want a validation error", name, err)
			}
		}
		if it, _ := s.Get(ctx, id); it.State != work.Deadletter {
			t.Fatalf("an invalid request changed the item: %s", it.State)
		}
	})

	t.Run("annotate keeps the item's state", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		s.put(t, deadItem(id))
		if _, err := s.Replay(ctx, replayReq(id)); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"upstream fixed", "second look"} {
			if err := s.Annotate(ctx, id, store.Note{At: t0, By: "oncall", Text: text, DeadLetterID: "dl-" + id}); err != nil {
				t.Fatal(err)
			}
		}
		it, _ := s.Get(ctx, id)
		if len(it.Notes) != 2 || it.Notes[1].Text != "second look" || it.Notes[0].DeadLetterID != "dl-"+id {
			t.Fatalf("notes %+v", it.Notes)
		}
		if _, pending := it.PendingReplay(); !pending {
			t.Fatal("a note disturbed the pending replay")
		}
		if err := s.Annotate(ctx, id+"-missing", store.Note{Text: "x"}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("annotate a missing item: %v", err)
		}
		if err := s.Annotate(ctx, id, store.Note{Text: "  "}); err == nil {
			t.Fatal("an empty note was accepted")
		}
	})

	t.Run("replays and notes keep the last few on the item, all in the error log", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		s.put(t, deadItem(id))
		const replays, notes = store.MaxReplays + 3, store.MaxNotes + 4
		for i := range replays {
			req := replayReq(id)
			req.PrevReplayCount, req.Note, req.Now = i, fmt.Sprintf("fix %d", i+1), t0.Add(time.Duration(i+1)*time.Hour)
			req.MessageID, req.DeadLetterID = "", ""
			if i > 0 {
				// Back to a dead letter, as the item's next failure would leave it.
				it, _ := s.Get(ctx, id)
				dead := deadItem(id)
				dead.ReplayCount, dead.Replays, dead.Notes, dead.NoteCount = it.ReplayCount, it.Replays, it.Notes, it.NoteCount
				s.put(t, dead)
			}
			if _, err := s.Replay(ctx, req); err != nil {
				t.Fatalf("replay %d: %v", i+1, err)
			}
		}
		for i := range notes {
			if err := s.Annotate(ctx, id, store.Note{At: t0.Add(time.Duration(i) * time.Minute), By: "oncall", Text: fmt.Sprintf("note %d", i+1)}); err != nil {
				t.Fatal(err)
			}
		}
		it, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if it.ReplayCount != replays || len(it.Replays) != store.MaxReplays || it.Replays[0].Note != "fix 4" ||
			it.Replays[store.MaxReplays-1].Note != fmt.Sprintf("fix %d", replays) {
			t.Fatalf("replays: count %d, kept %d, first %q", it.ReplayCount, len(it.Replays), it.Replays[0].Note)
		}
		if it.NoteCount != notes || len(it.Notes) != store.MaxNotes || it.Notes[0].Text != "note 5" ||
			it.Notes[store.MaxNotes-1].Text != fmt.Sprintf("note %d", notes) {
			t.Fatalf("notes: count %d, kept %d, first %+v", it.NoteCount, len(it.Notes), it.Notes[0])
		}
		if env, ok := it.ReplayEnvelope(); !ok || env.Replay.Count != replays || env.Replay.Note != fmt.Sprintf("fix %d", replays) {
			t.Fatalf("the replay envelope after trimming: %+v", env.Replay)
		}
		var r, n []string
		for _, e := range s.history(t, id) {
			switch e.Kind {
			case store.LogReplay:
				r = append(r, e.Message)
			case store.LogNote:
				n = append(n, e.Message)
			}
			if e.Class != "" || e.By != "oncall" {
				t.Fatalf("audit entry %+v: no class (reports count failures only), by the operator", e)
			}
		}
		if len(r) != replays || r[0] != "fix 1" || len(n) != notes || n[0] != "note 1" {
			t.Fatalf("the error log keeps %d replays (first %v) and %d notes, want all %d and %d", len(r), r, len(n), replays, notes)
		}
	})

	t.Run("list by state with filters", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		mk := func(suffix string, st work.State, stage work.Stage, class work.Class, at time.Time) {
			it := deadItem(id + suffix)
			it.State, it.Stage, it.LastError.ErrorClass, it.LastFailureAt, it.UpdatedAt = st, stage, class, at, at
			s.put(t, it)
		}
		mk("-a", work.Deadletter, work.LLM, work.ResponseInvalid, t0)
		mk("-b", work.Deadletter, work.LLM, work.AuthDenied, t0.Add(time.Minute))
		mk("-c", work.Deadletter, work.Notify, work.ResponseInvalid, t0.Add(2*time.Minute))
		mk("-d", work.Failed, work.LLM, work.ResponseInvalid, t0.Add(3*time.Minute))
		mk("-e", work.Deadletter, work.LLM, work.ResponseInvalid, t0.Add(-48*time.Hour))
		list := func(q store.ItemQuery) []string {
			t.Helper()
			var ids []string
			err := s.List(ctx, q, func(it store.Item) error {
				if len(it.ID) > len(id) && it.ID[:len(id)] == id {
					ids = append(ids, it.ID[len(id):])
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		since := t0.Add(-time.Hour)
		tests := []struct {
			name string
			q    store.ItemQuery
			want []string
		}{
			{"state, newest first", store.ItemQuery{State: work.Deadletter, Since: since}, []string{"-c", "-b", "-a"}},
			{"stage", store.ItemQuery{State: work.Deadletter, Stage: work.LLM, Since: since}, []string{"-b", "-a"}},
			{"class", store.ItemQuery{State: work.Deadletter, Classes: []work.Class{work.ResponseInvalid}, Since: since}, []string{"-c", "-a"}},
			{"before", store.ItemQuery{State: work.Deadletter, Since: since, Before: t0.Add(time.Minute)}, []string{"-a"}},
			{"old ones without since", store.ItemQuery{State: work.Deadletter, Before: t0.Add(-time.Hour)}, []string{"-e"}},
			{"failed", store.ItemQuery{State: work.Failed, Since: since}, []string{"-d"}},
		}
		for _, tc := range tests {
			if got := list(tc.q); !equalStrings(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	})

	t.Run("parked waits: claim, delete and re-park", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		id := itemID(t)
		if _, err := s.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: t0}); err != nil {
			t.Fatal(err)
		}
		due := t0.Add(30 * time.Hour)
		park := func(owner string, now, due time.Time) {
			t.Helper()
			if _, err := s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.Fetch, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute}); err != nil {
				t.Fatal(err)
			}
			it, _ := s.Get(ctx, id)
			if _, err := s.Park(ctx, store.FailRequest{ItemID: id, Stage: work.Fetch, Owner: owner, Now: now, PrevAttempts: it.Attempts[work.Fetch],
				LastError: store.LastError{ErrorClass: work.RateLimited}},
				store.Parking{DueAt: due, Envelope: work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "c"}, Reason: "RATE_LIMITED"}); err != nil {
				t.Fatal(err)
			}
		}
		park("m1#1", t0, due)
		p := s.parked()
		due1 := func(now time.Time) []store.ParkedWait {
			t.Helper()
			var out []store.ParkedWait
			if err := p.Due(ctx, now, func(page []store.ParkedWait) error {
				for _, w := range page {
					if w.ItemID == id {
						out = append(out, w)
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if ws := due1(due.Add(-time.Second)); len(ws) != 0 {
			t.Fatalf("due before its time: %+v", ws)
		}
		ws := due1(due)
		if len(ws) != 1 || !ws[0].DueAt.Equal(due) || ws[0].Stage != work.Fetch || ws[0].Reason != "RATE_LIMITED" {
			t.Fatalf("due waits %+v", ws)
		}
		env, err := work.DecodeEnvelope(ws[0].Envelope, work.Fetch)
		if err != nil || env.ItemID != id {
			t.Fatalf("parked envelope %q: %v", ws[0].Envelope, err)
		}
		w := ws[0]
		if err := p.Claim(ctx, w, "run1", due, due.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := p.Claim(ctx, w, "run2", due.Add(time.Minute), due.Add(3*time.Minute)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("claim under a live claim: %v", err)
		}
		if err := p.Delete(ctx, w, "run2"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("delete without the claim: %v", err)
		}
		if err := p.Claim(ctx, w, "run2", due.Add(3*time.Minute), due.Add(5*time.Minute)); err != nil {
			t.Fatalf("taking over an expired claim: %v", err)
		}
		// The item runs again and parks again: the old copy can neither be
		// claimed nor delete the new wait.
		park("m2#1", due.Add(4*time.Minute), due.Add(24*time.Hour))
		if err := p.Delete(ctx, w, "run2"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("delete of a re-parked wait through the old copy: %v", err)
		}
		if err := p.Claim(ctx, w, "run3", due.Add(48*time.Hour), due.Add(49*time.Hour)); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("claim of a re-parked wait through the old copy: %v", err)
		}
		ws = due1(due.Add(24 * time.Hour))
		if len(ws) != 1 || ws[0].ClaimedBy != "" {
			t.Fatalf("re-parked wait %+v", ws)
		}
		if err := p.Claim(ctx, ws[0], "run4", due.Add(24*time.Hour), due.Add(25*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := p.Delete(ctx, ws[0], "run4"); err != nil {
			t.Fatal(err)
		}
		if err := p.Delete(ctx, ws[0], "run4"); err != nil {
			t.Fatalf("deleting a deleted wait: %v", err)
		}
		if ws := due1(due.Add(100 * time.Hour)); len(ws) != 0 {
			t.Fatalf("deleted wait still due: %+v", ws)
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMemoryOpsConformance(t *testing.T) {
	t.Parallel()
	opsConformance(t, func(*testing.T) opsStore { return memOps{store.NewMemory()} })
}

func TestDynamoOpsConformance(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	s := dynOps{
		Items:     env.Items(),
		ItemIndex: &store.ItemIndex{DB: db, Table: env.Stack.ItemsTable(), PageSize: 2},
		p:         &store.Parked{DB: db, Table: env.Stack.ParkedTable(), PageSize: 2},
		log:       &store.ErrorLogReader{DB: db, Table: env.Stack.ErrorLogTable()},
	}
	opsConformance(t, func(*testing.T) opsStore { return s })
}

func TestItemIndexScanLimit(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	// One partition per group, so that its pages, not the
	// shards, hold the five items.
	items := &store.Items{DB: db, Table: env.Stack.ItemsTable(), Bodies: env.Bodies(), IndexShards: 1}
	for i := range 5 {
		it := deadItem(fmt.Sprintf("s%d", i))
		it.UpdatedAt = t0.Add(time.Duration(i) * time.Second)
		if err := items.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
	}
	x := &store.ItemIndex{DB: db, Table: env.Stack.ItemsTable(), PageSize: 2, Shards: 1}
	none := func(store.Item) error { return nil }
	policy := []work.Class{work.ContentPolicy}
	err := x.List(context.Background(), store.ItemQuery{State: work.Deadletter, Classes: policy, MaxScan: 3}, none)
	if !errors.Is(err, store.ErrScanLimit) {
		t.Fatalf("a filter matching nothing past MaxScan: %v, want ErrScanLimit", err)
	}
	if err := x.List(context.Background(), store.ItemQuery{State: work.Deadletter, Classes: policy, MaxScan: 10}, none); err != nil {
		t.Fatalf("the whole state within MaxScan: %v", err)
	}
	// The newest 3 of 5, across the index's shards.
	var got []string
	if err := x.List(context.Background(), store.ItemQuery{State: work.Deadletter, Limit: 3, MaxScan: 10}, func(it store.Item) error {
		got = append(got, it.ID)
		return nil
	}); err != nil || !equalStrings(got, []string{"s4", "s3", "s2"}) {
		t.Fatalf("the newest 3: %v, %v", got, err)
	}
	// Every state is in the index: retryable items too.
	for i := range 2 {
		it := deadItem(fmt.Sprintf("r%d", i))
		it.State, it.UpdatedAt = work.Retryable, t0.Add(time.Duration(i)*time.Second)
		if err := items.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
	}
	got = nil
	if err := x.List(context.Background(), store.ItemQuery{State: work.Retryable}, func(it store.Item) error {
		got = append(got, it.ID)
		return nil
	}); err != nil || !equalStrings(got, []string{"r1", "r0"}) {
		t.Fatalf("retryable items: %v, %v", got, err)
	}
}
