package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// ledgerStore is what both implementations offer.
type ledgerStore interface {
	Record(ctx context.Context, e ledger.Execution) error
	ClaimNotice(ctx context.Context, c ledger.NoticeClaim) (ledger.Notice, error)
	SettleNotice(ctx context.Context, s ledger.NoticeSettle) error
	ForItem(ctx context.Context, itemID string, limit int) ([]ledger.Entry, error)
}

var (
	_ ledgerStore = (*ledger.Memory)(nil)
	_ ledgerStore = (*ledger.Trail)(nil)
)

var t0 = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

// itemID is unique per test, so cases can share one table.
func itemID(t *testing.T) string { return strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()) }

func claim(id, key, owner string, now time.Time) ledger.NoticeClaim {
	msg, _, _ := strings.Cut(owner, "#")
	return ledger.NoticeClaim{ItemID: id, Key: key, Event: "item.failed", Stage: work.LLM, Class: work.ActionFailed,
		Attempt: 3, Owner: owner, Carrier: msg, Now: now, LeaseFor: 30 * time.Second}
}

func conformance(t *testing.T, newStore func(t *testing.T) ledgerStore) {
	ctx := context.Background()

	t.Run("executions round trip, oldest first, overwrite themselves", func(t *testing.T) {
		t.Parallel()
		s, id := newStore(t), itemID(t)
		second := ledger.Execution{ItemID: id, CorrelationID: "c", Stage: work.LLM, Attempt: 2, Delivery: "m2#1",
			StartedAt: t0.Add(2 * time.Minute), Duration: 1500 * time.Millisecond, Outcome: ledger.OutcomeSuccess,
			Model: "openai:gpt-4o-mini"}
		first := ledger.Execution{ItemID: id, CorrelationID: "c", Stage: work.LLM, Attempt: 1, Delivery: "m1#1",
			StartedAt: t0, Duration: 900 * time.Millisecond, Outcome: ledger.OutcomeFailed, Class: work.ActionFailed,
			Reason: "ticket is locked", Model: "openai:gpt-4o-mini"}
		for _, e := range []ledger.Execution{second, first, first} {
			if err := s.Record(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ForItem(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Execution == nil || got[1].Execution == nil {
			t.Fatalf("entries %+v, want two executions", got)
		}
		if g := *got[0].Execution; g != first {
			t.Errorf("first %+v\nwant  %+v", g, first)
		}
		if g := *got[1].Execution; g != second {
			t.Errorf("second %+v\nwant   %+v", g, second)
		}
		if other, _ := s.ForItem(ctx, id+"-other", 0); len(other) != 0 {
			t.Errorf("another item's trail has %d entries", len(other))
		}
	})

	t.Run("a notice is claimed once, then busy until settled", func(t *testing.T) {
		t.Parallel()
		s, id := newStore(t), itemID(t)
		n, err := s.ClaimNotice(ctx, claim(id, id+":item.failed:0", "m1#1", t0))
		if err != nil {
			t.Fatal(err)
		}
		if n.State != ledger.NoticeSending || n.Attempts != 1 || n.LeaseOwner != "m1#1" || n.Carrier != "m1" || !n.FirstAt.Equal(t0) {
			t.Fatalf("claimed %+v", n)
		}
		_, err = s.ClaimNotice(ctx, claim(id, id+":item.failed:0", "m2#1", t0.Add(time.Second)))
		var ce *ledger.ClaimError
		if !errors.As(err, &ce) || !errors.Is(err, ledger.ErrBusy) || ce.Current.State != ledger.NoticeSending || ce.Current.LeaseOwner != "m1#1" {
			t.Fatalf("second claim: %v", err)
		}
		if err := s.SettleNotice(ctx, ledger.NoticeSettle{ItemID: id, Key: id + ":item.failed:0", Owner: "m1#1", Now: t0.Add(2 * time.Second),
			State: ledger.NoticeDelivered, Status: 200}); err != nil {
			t.Fatal(err)
		}
		_, err = s.ClaimNotice(ctx, claim(id, id+":item.failed:0", "m2#2", t0.Add(time.Hour)))
		if !errors.As(err, &ce) || ce.Current.State != ledger.NoticeDelivered || ce.Current.Status != 200 || ce.Current.Attempts != 1 {
			t.Fatalf("claim after delivery: %v", err)
		}
	})

	t.Run("a pending notice is claimable when due; attempts add up across deliveries", func(t *testing.T) {
		t.Parallel()
		s, id := newStore(t), itemID(t)
		key := id + ":item.retry_scheduled:0:llm:1"
		if _, err := s.ClaimNotice(ctx, claim(id, key, "m1#1", t0)); err != nil {
			t.Fatal(err)
		}
		due := t0.Add(time.Minute)
		if err := s.SettleNotice(ctx, ledger.NoticeSettle{ItemID: id, Key: key, Owner: "m1#1", Now: t0.Add(time.Second),
			State: ledger.NoticePending, Status: 503, Class: work.UpstreamUnavailable, Error: "HTTP 503", NotBefore: due}); err != nil {
			t.Fatal(err)
		}
		_, err := s.ClaimNotice(ctx, claim(id, key, "m2#1", due.Add(-time.Millisecond)))
		var ce *ledger.ClaimError
		if !errors.As(err, &ce) || ce.Current.State != ledger.NoticePending || !ce.Current.NotBefore.Equal(due) || ce.Current.Carrier != "m1" {
			t.Fatalf("early claim: %v", err)
		}
		n, err := s.ClaimNotice(ctx, claim(id, key, "m2#1", due))
		if err != nil {
			t.Fatal(err)
		}
		if n.Attempts != 2 || n.LastClass != work.UpstreamUnavailable || n.Status != 503 || n.Carrier != "m2" || !n.NotBefore.IsZero() {
			t.Fatalf("second claim %+v", n)
		}
	})

	t.Run("an expired lease is taken over, and the old holder's settle is lost", func(t *testing.T) {
		t.Parallel()
		s, id := newStore(t), itemID(t)
		key := id + ":item.failed:1"
		if _, err := s.ClaimNotice(ctx, claim(id, key, "m1#1", t0)); err != nil {
			t.Fatal(err)
		}
		n, err := s.ClaimNotice(ctx, claim(id, key, "m1#2", t0.Add(31*time.Second)))
		if err != nil || n.Attempts != 2 || n.LeaseOwner != "m1#2" {
			t.Fatalf("takeover %+v, %v", n, err)
		}
		err = s.SettleNotice(ctx, ledger.NoticeSettle{ItemID: id, Key: key, Owner: "m1#1", Now: t0.Add(32 * time.Second), State: ledger.NoticeDelivered})
		if !errors.Is(err, ledger.ErrLeaseLost) {
			t.Fatalf("stale settle: %v", err)
		}
		if err := s.SettleNotice(ctx, ledger.NoticeSettle{ItemID: id, Key: key, Owner: "m1#2", Now: t0.Add(33 * time.Second),
			State: ledger.NoticeAbandoned, Status: 410, Class: work.NotFound, Error: "HTTP 410"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.ForItem(ctx, id, 0)
		if err != nil || len(got) != 1 || got[0].Notice == nil {
			t.Fatalf("trail %+v, %v", got, err)
		}
		if g := got[0].Notice; g.State != ledger.NoticeAbandoned || g.Attempts != 2 || g.Status != 410 || g.LeaseOwner != "" ||
			g.Event != "item.failed" || g.Stage != work.LLM || g.Class != work.ActionFailed || g.Attempt != 3 {
			t.Fatalf("notice %+v", g)
		}
	})

	t.Run("settle refuses a state that is not an outcome", func(t *testing.T) {
		t.Parallel()
		s, id := newStore(t), itemID(t)
		if err := s.SettleNotice(ctx, ledger.NoticeSettle{ItemID: id, Key: "k", Owner: "m#1", Now: t0, State: ledger.NoticeSending}); err == nil {
			t.Fatal("settled a notice to sending")
		}
	})
}

func TestConformance(t *testing.T) {
	t.Parallel()
	localtest.Conformance(t, conformance, func() ledgerStore { return ledger.NewMemory() }, func(t *testing.T) ledgerStore {
		env := localtest.Stack(t, nil)
		return &ledger.Trail{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.AuditTable()}
	})
}
