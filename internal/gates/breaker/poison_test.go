package breaker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// poisonSetup is a provider's breaker in the llm stage (where AUTH_DENIED
// trips it), open after five failures at t0.
func poisonSetup(t *testing.T) *bundle {
	t.Helper()
	b := setup(t)
	b.breakers.Stage = work.LLM
	b.open(t, "llm:openai")
	return b
}

// probeNow advances past the breaker's window and takes its probe.
func (b *bundle) probeNow(t *testing.T, service string) breaker.Ticket {
	t.Helper()
	r, _ := b.store.Get(context.Background(), service)
	if d := r.OpenUntil.Sub(b.clock.Now()); d > 0 {
		b.clock.Advance(d)
	}
	tk, err := b.breakers.Allow(context.Background(), service)
	if err != nil || !tk.Probe {
		t.Fatalf("allow past the window: %+v, %v; want the probe", tk, err)
	}
	return tk
}

// TestFailureThatFollowsAnItem holds Done to the blame table: a provider's
// failure is the item's own when the item failed the same way before and
// the provider answered someone else since (a probe closed the breaker),
// or at the item's fifth failed probe; then nothing counts toward the
// breaker, a probe's lease is released for another waiter, and the failure
// goes back marked for the decision table. Otherwise it is the outage's:
// the breaker reopens, each failed probe in a row doubling its window, and
// the item waits with its run of failures recorded.
func TestFailureThatFollowsAnItem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	denied := failure.New(work.AuthDenied, "HTTP 401 invalid_api_key")
	down := failure.New(work.UpstreamUnavailable, "HTTP 503")
	const svc = "llm:openai"

	t.Run("the first failed probe is the outage's", func(t *testing.T) {
		t.Parallel()
		b := poisonSetup(t)
		tk := b.probeNow(t, svc)
		tk.Suspect = &store.Suspect{Service: svc, Class: work.AuthDenied, Count: 1, First: t0, Last: t0}
		wait := b.breakers.Done(ctx, tk, denied)
		if !errors.Is(wait, failure.ErrWaiting) {
			t.Fatalf("Done = %v, want a wait behind the breaker", wait)
		}
		s := store.SuspectOf(wait)
		if s == nil || s.Count != 2 || s.Probes != 1 || s.Judged || !s.First.Equal(t0) || s.Class != work.AuthDenied {
			t.Fatalf("the wait's run = %+v, want the second AUTH_DENIED, one probe, not judged", s)
		}
		r, _ := b.store.Get(ctx, svc)
		if r.State != breaker.Open || r.Reopens != 1 || r.Opens != 2 || !r.OpenUntil.Equal(b.clock.Now().Add(reopenedFor(1))) {
			t.Fatalf("after the failed probe: %+v", r)
		}
	})

	t.Run("the third in a row after another item's probe closed the breaker is the item's", func(t *testing.T) {
		t.Parallel()
		b := poisonSetup(t)
		// Another waiter's probe succeeds: the provider answers.
		other := b.probeNow(t, svc)
		if err := b.breakers.Done(ctx, other, nil); err != nil {
			t.Fatal(err)
		}
		b.open(t, svc) // and opens again on an outage
		tk := b.probeNow(t, svc)
		// The poisoned item failed the same way twice before the close.
		tk.Suspect = &store.Suspect{Service: svc, Class: work.AuthDenied, Count: 2, Probes: 1, First: t0.Add(-time.Minute), Last: t0}
		err := b.breakers.Done(ctx, tk, denied)
		if err == nil || errors.Is(err, failure.ErrWaiting) || failure.Classify(err).Class != work.AuthDenied {
			t.Fatalf("Done = %v, want the AUTH_DENIED itself, for the decision table", err)
		}
		if _, gated := gates.Of(err); gated || failure.Details(err)["blame"] != "item" {
			t.Fatalf("Done = %v (details %v), want no gate and blame=item", err, failure.Details(err))
		}
		s := store.SuspectOf(err)
		if s == nil || !s.Judged || s.Count != 3 || s.Probes != 2 {
			t.Fatalf("run = %+v, want judged at the third failure, the second probe", s)
		}
		r, _ := b.store.Get(ctx, svc)
		if r.State != breaker.Open || !r.OpenUntil.Equal(b.clock.Now()) || r.Opens != 2 || r.Reopens != 0 {
			t.Fatalf("after the item's own failure as the probe: %+v, want open, probe-able at once, not reopened", r)
		}
		if b.metrics.Get(breaker.MetricPoisonFailures) != 1 {
			t.Fatalf("metrics %v", b.metrics)
		}
	})

	t.Run("the fifth failed probe is the item's whatever else is known", func(t *testing.T) {
		t.Parallel()
		b := poisonSetup(t)
		run := &store.Suspect{Service: svc, Class: work.AuthDenied, Count: 1, First: t0, Last: t0}
		var err error
		for probe := 1; probe <= 5; probe++ {
			tk := b.probeNow(t, svc)
			tk.Suspect = run
			err = b.breakers.Done(ctx, tk, denied)
			if run = store.SuspectOf(err); run == nil || run.Probes != probe {
				t.Fatalf("probe %d: run %+v", probe, run)
			}
			if probe < 5 && !errors.Is(err, failure.ErrWaiting) {
				t.Fatalf("probe %d: %v, want a wait (no other evidence yet)", probe, err)
			}
		}
		if errors.Is(err, failure.ErrWaiting) || !run.Judged {
			t.Fatalf("fifth failed probe: %v (run %+v), want the item's own", err, run)
		}
		r, _ := b.store.Get(ctx, svc)
		if r.Opens != 5 || r.Reopens != 4 {
			t.Fatalf("breaker %+v: want the trip and four reopens, nothing for the fifth probe", r)
		}
	})

	t.Run("a failure judged the item's own no longer counts", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.breakers.Stage = work.LLM
		judged := &store.Suspect{Service: svc, Class: work.UpstreamUnavailable, Count: 3, Judged: true, First: t0, Last: t0}
		for range 10 {
			tk, err := b.breakers.Allow(ctx, svc)
			if err != nil {
				t.Fatal(err)
			}
			tk.Suspect = judged
			if err := b.breakers.Done(ctx, tk, down); errors.Is(err, failure.ErrWaiting) || store.SuspectOf(err) == nil {
				t.Fatalf("Done = %v, want the failure, judged", err)
			}
		}
		if r, err := b.store.Get(ctx, svc); !errors.Is(err, breaker.ErrNotFound) {
			t.Fatalf("ten judged failures wrote the breaker: %+v", r)
		}
		// Another class at the same provider is judged afresh, and counts.
		for range breaker.DefaultThreshold {
			tk, _ := b.breakers.Allow(ctx, svc)
			tk.Suspect = judged
			b.breakers.Done(ctx, tk, failure.New(work.NetworkTimeout, "timeout"))
		}
		if r, _ := b.store.Get(ctx, svc); r.State != breaker.Open {
			t.Fatalf("timeouts of a judged 503 item: %+v, want them counted", r)
		}
	})

	t.Run("an operator's reset is no evidence", func(t *testing.T) {
		t.Parallel()
		b := poisonSetup(t)
		if _, err := b.store.Reset(ctx, svc, b.clock.Now()); err != nil {
			t.Fatal(err)
		}
		b.breakers.Forget(svc)
		b.open(t, svc)
		tk := b.probeNow(t, svc)
		tk.Suspect = &store.Suspect{Service: svc, Class: work.AuthDenied, Count: 2, First: t0.Add(-time.Minute), Last: t0}
		if err := b.breakers.Done(ctx, tk, denied); !errors.Is(err, failure.ErrWaiting) {
			t.Fatalf("Done = %v, want a wait: only a probe's success says the provider answers", err)
		}
	})
}

// refusingStore refuses its next refusals probe verdicts, as a store whose
// operation failed on every attempt.
type refusingStore struct {
	breaker.Store
	refusals int
}

func (s *refusingStore) refuse() error {
	if s.refusals > 0 {
		s.refusals--
		return errors.New("ProvisionedThroughputExceededException: exceeded maximum number of attempts, 3")
	}
	return nil
}

func (s *refusingStore) ReopenProbe(ctx context.Context, svc, owner string, c work.Class, now time.Time, d time.Duration) (breaker.Record, error) {
	if err := s.refuse(); err != nil {
		return breaker.Record{}, err
	}
	return s.Store.ReopenProbe(ctx, svc, owner, c, now, d)
}

func (s *refusingStore) CloseProbe(ctx context.Context, svc, owner string, now time.Time) (breaker.Record, error) {
	if err := s.refuse(); err != nil {
		return breaker.Record{}, err
	}
	return s.Store.CloseProbe(ctx, svc, owner, now)
}

// TestProbeVerdictIsWrittenDespiteARefusedOperation: a probe's verdict that
// a store refuses is written again, as a new operation, so the breaker is
// not left half-open — every caller waiting — until the probe's lease
// lapses. (A fresh soak seed found a breaker held half-open for the lease's
// two minutes after one refused reopen.)
func TestProbeVerdictIsWrittenDespiteARefusedOperation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, probeErr := range map[string]error{"reopen": unavailable, "close": nil} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.open(t, "api.example")
			db := &refusingStore{Store: b.store, refusals: 2}
			b.breakers.Store = db
			tk := b.probeNow(t, "api.example")
			b.breakers.Done(ctx, tk, probeErr)
			r, _ := b.store.Get(ctx, "api.example")
			if r.State == breaker.HalfOpen || db.refusals != 0 {
				t.Fatalf("after two refused verdicts: %+v (refusals left %d), want the third written", r, db.refusals)
			}
		})
	}
}
