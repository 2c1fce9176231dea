package audit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
)

// store is what both implementations offer.
type store interface {
	Record(ctx context.Context, e audit.Execution) error
	ClaimNotice(ctx context.Context, c audit.NoticeClaim) (audit.Notice, error)
	SettleNotice(ctx context.Context, s audit.NoticeSettle) error
	ForItem(ctx context.Context, itemID string, limit int) ([]audit.Entry, error)
}

var (
	_ store = (*audit.Memory)(nil)
	_ store = (*audit.Trail)(nil)
)

var t0 = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

// itemID is unique per test, so cases can share one table.
func itemID(t *testing.T) string { return strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()) }

func claim(id, key, owner string, now time.Time) audit.NoticeClaim {
	msg, _, _ := strings.Cut(owner, "#")
	return audit.NoticeClaim{ItemID: id, Key: key, Event: "item.failed", Stage: pipeline.LLM, Class: failure.ActionFailed,
		Attempt: 3, Owner: owner, Carrier: msg, Now: now, LeaseFor: 30 * time.Second}
}

func conformance(t *testing.T, newStore func(t *testing.T) store) {
	ctx := context.Background()

	t.Run("executions round trip, oldest first, overwrite themselves", func(t *testing.T) {
		t.Parallel()
		s, id := newStore(t), itemID(t)
		second := audit.Execution{ItemID: id, CorrelationID: "c", Stage: pipeline.LLM, Attempt: 2, Delivery: "m2#1",
			StartedAt: t0.Add(2 * time.Minute), Duration: 1500 * time.Millisecond, Outcome: audit.OutcomeSuccess,
			Model: "openai:gpt-4o-mini"}
		first := audit.Execution{ItemID: id, CorrelationID: "c", Stage: pipeline.LLM, Attempt: 1, Delivery: "m1#1",
			StartedAt: t0, Duration: 900 * time.Millisecond, Outcome: audit.OutcomeFailed, Class: failure.ActionFailed,
			Reason: "ticket is locked", Model: "openai:gpt-4o-mini"}
		for _, e := range []audit.Execution{second, first, first} {
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
		if n.State != audit.NoticeSending || n.Attempts != 1 || n.LeaseOwner != "m1#1" || n.Carrier != "m1" || !n.FirstAt.Equal(t0) {
			t.Fatalf("claimed %+v", n)
		}
		_, err = s.ClaimNotice(ctx, claim(id, id+":item.failed:0", "m2#1", t0.Add(time.Second)))
		var ce *audit.ClaimError
		if !errors.As(err, &ce) || !errors.Is(err, audit.ErrBusy) || ce.Current.State != audit.NoticeSending || ce.Current.LeaseOwner != "m1#1" {
			t.Fatalf("second claim: %v", err)
		}
		if err := s.SettleNotice(ctx, audit.NoticeSettle{ItemID: id, Key: id + ":item.failed:0", Owner: "m1#1", Now: t0.Add(2 * time.Second),
			State: audit.NoticeDelivered, Status: 200}); err != nil {
			t.Fatal(err)
		}
		_, err = s.ClaimNotice(ctx, claim(id, id+":item.failed:0", "m2#2", t0.Add(time.Hour)))
		if !errors.As(err, &ce) || ce.Current.State != audit.NoticeDelivered || ce.Current.Status != 200 || ce.Current.Attempts != 1 {
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
		if err := s.SettleNotice(ctx, audit.NoticeSettle{ItemID: id, Key: key, Owner: "m1#1", Now: t0.Add(time.Second),
			State: audit.NoticePending, Status: 503, Class: failure.UpstreamUnavailable, Error: "HTTP 503", NotBefore: due}); err != nil {
			t.Fatal(err)
		}
		_, err := s.ClaimNotice(ctx, claim(id, key, "m2#1", due.Add(-time.Millisecond)))
		var ce *audit.ClaimError
		if !errors.As(err, &ce) || ce.Current.State != audit.NoticePending || !ce.Current.NotBefore.Equal(due) || ce.Current.Carrier != "m1" {
			t.Fatalf("early claim: %v", err)
		}
		n, err := s.ClaimNotice(ctx, claim(id, key, "m2#1", due))
		if err != nil {
			t.Fatal(err)
		}
		if n.Attempts != 2 || n.LastClass != failure.UpstreamUnavailable || n.Status != 503 || n.Carrier != "m2" || !n.NotBefore.IsZero() {
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
		err = s.SettleNotice(ctx, audit.NoticeSettle{ItemID: id, Key: key, Owner: "m1#1", Now: t0.Add(32 * time.Second), State: audit.NoticeDelivered})
		if !errors.Is(err, audit.ErrLeaseLost) {
			t.Fatalf("stale settle: %v", err)
		}
		if err := s.SettleNotice(ctx, audit.NoticeSettle{ItemID: id, Key: key, Owner: "m1#2", Now: t0.Add(33 * time.Second),
			State: audit.NoticeAbandoned, Status: 410, Class: failure.NotFound, Error: "HTTP 410"}); err != nil {
			t.Fatal(err)
		}
		got, err := s.ForItem(ctx, id, 0)
		if err != nil || len(got) != 1 || got[0].Notice == nil {
			t.Fatalf("trail %+v, %v", got, err)
		}
		if g := got[0].Notice; g.State != audit.NoticeAbandoned || g.Attempts != 2 || g.Status != 410 || g.LeaseOwner != "" ||
			g.Event != "item.failed" || g.Stage != pipeline.LLM || g.Class != failure.ActionFailed || g.Attempt != 3 {
			t.Fatalf("notice %+v", g)
		}
	})

	t.Run("settle refuses a state that is not an outcome", func(t *testing.T) {
		t.Parallel()
		s, id := newStore(t), itemID(t)
		if err := s.SettleNotice(ctx, audit.NoticeSettle{ItemID: id, Key: "k", Owner: "m#1", Now: t0, State: audit.NoticeSending}); err == nil {
			t.Fatal("settled a notice to sending")
		}
	})
}

func TestConformance(t *testing.T) {
	t.Parallel()
	localtest.Conformance(t, conformance, func() store { return audit.NewMemory() }, func(t *testing.T) store {
		env := localtest.Stack(t, nil)
		return &audit.Trail{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.AuditTable()}
	})
}
