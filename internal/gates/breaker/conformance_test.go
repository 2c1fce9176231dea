package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/work"
)

var (
	_ breaker.Store = (*breaker.Memory)(nil)
	_ breaker.Store = (*breaker.Dynamo)(nil)
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// svc is unique per test, so cases can share one DynamoDB table.
func svc(t *testing.T) string {
	return strings.ToLower(strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())) + ".example"
}

func conformance(t *testing.T, s breaker.Store) {
	ctx := context.Background()
	fail := func(t *testing.T, service string, at time.Time) breaker.FailureResult {
		t.Helper()
		res, err := s.RecordFailure(ctx, breaker.FailureRequest{Service: service, Class: work.UpstreamUnavailable, At: at})
		if err != nil {
			t.Fatalf("record failure: %v", err)
		}
		return res
	}
	open := func(t *testing.T, service string, at time.Time) {
		t.Helper()
		for range breaker.DefaultThreshold {
			fail(t, service, at)
		}
	}
	probe := func(owner, service string, now time.Time) (breaker.Record, error) {
		return s.AcquireProbe(ctx, breaker.ProbeRequest{Service: service, Owner: owner, Now: now})
	}

	t.Run("unknown service", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		if _, err := s.Get(ctx, v); !errors.Is(err, breaker.ErrNotFound) {
			t.Fatalf("get: %v, want ErrNotFound", err)
		}
		if _, err := s.Reset(ctx, v, t0); !errors.Is(err, breaker.ErrNotFound) {
			t.Fatalf("reset: %v, want ErrNotFound", err)
		}
		if changed, err := s.ResetFailures(ctx, v, 0, t0); changed || err != nil {
			t.Fatalf("reset failures = %t, %v", changed, err)
		}
		var ce *breaker.ConflictError
		if _, err := probe("a", v, t0); !errors.As(err, &ce) || ce.Current != nil || !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("probe: %v, want a ConflictError without a record", err)
		}
	})

	t.Run("fifth failure opens in the same write", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		for i := 1; i <= 4; i++ {
			res := fail(t, v, t0)
			if res.Opened || !res.Counted || res.Record.State != breaker.Closed || res.Record.ConsecutiveFailures != i {
				t.Fatalf("failure %d: %+v", i, res)
			}
		}
		res := fail(t, v, t0.Add(time.Second))
		if !res.Opened || res.Record.State != breaker.Open || !res.Record.OpenUntil.Equal(t0.Add(time.Second+breaker.DefaultOpenFor)) ||
			res.Record.Opens != 1 || res.Record.LastErrorType != work.UpstreamUnavailable {
			t.Fatalf("failure 5: %+v", res)
		}
		res = fail(t, v, t0.Add(2*time.Second))
		if res.Opened || res.Counted || res.Record.ConsecutiveFailures != 5 {
			t.Fatalf("failure of an open breaker: %+v, want untouched", res)
		}
	})

	t.Run("eight concurrent failures open once", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			opened int
			errs   []error
		)
		start := make(chan struct{})
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res, err := s.RecordFailure(ctx, breaker.FailureRequest{Service: v, Class: work.NetworkTimeout, At: t0})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				}
				if res.Opened {
					opened++
				}
			}()
		}
		close(start)
		wg.Wait()
		r, err := s.Get(ctx, v)
		if len(errs) > 0 || err != nil {
			t.Fatalf("errors: %v %v", errs, err)
		}
		if opened != 1 || r.Opens != 1 || r.State != breaker.Open || r.ConsecutiveFailures != 5 {
			t.Fatalf("opened %d times, record %+v; want one open at count 5", opened, r)
		}
	})

	t.Run("success resets a closed count", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		fail(t, v, t0)
		fail(t, v, t0)
		if changed, err := s.ResetFailures(ctx, v, 0, t0); !changed || err != nil {
			t.Fatalf("reset = %t, %v", changed, err)
		}
		if changed, err := s.ResetFailures(ctx, v, 0, t0); changed || err != nil {
			t.Fatalf("second reset = %t, %v; want no write", changed, err)
		}
		open(t, v, t0)
		if changed, _ := s.ResetFailures(ctx, v, 0, t0); changed {
			t.Fatal("reset changed an open breaker")
		}
	})

	t.Run("exactly one probe wins", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		open(t, v, t0)
		if _, err := probe("early", v, t0.Add(breaker.DefaultOpenFor-time.Millisecond)); !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("probe before open_until: %v, want ErrConflict", err)
		}
		due := t0.Add(breaker.DefaultOpenFor)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []string
		)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				owner := fmt.Sprintf("caller-%d", i)
				r, err := probe(owner, v, due)
				if err == nil {
					mu.Lock()
					winners = append(winners, owner)
					mu.Unlock()
					if r.State != breaker.HalfOpen || r.ProbeOwner != owner {
						t.Errorf("winner's record: %+v", r)
					}
				} else if !errors.Is(err, breaker.ErrConflict) {
					t.Errorf("probe: %v", err)
				}
			}()
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("probe winners = %v, want exactly one", winners)
		}
		r, err := s.CloseProbe(ctx, v, winners[0], due.Add(time.Second))
		if err != nil || r.State != breaker.Closed || r.ConsecutiveFailures != 0 || r.ClosedBy != winners[0] {
			t.Fatalf("close = %+v, %v", r, err)
		}
		if _, err := s.CloseProbe(ctx, v, "caller-x", due.Add(time.Second)); !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("close by a loser: %v, want ErrConflict", err)
		}
	})

	t.Run("failed probe reopens for a new window", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		open(t, v, t0)
		due := t0.Add(breaker.DefaultOpenFor)
		if _, err := probe("p1", v, due); err != nil {
			t.Fatal(err)
		}
		r, err := s.ReopenProbe(ctx, v, "p1", work.NetworkTimeout, due.Add(time.Second), 0)
		if err != nil || r.State != breaker.Open || !r.OpenUntil.Equal(due.Add(time.Second+breaker.DefaultOpenFor)) || r.Opens != 2 ||
			r.ProbeOwner != "" || r.LastErrorType != work.NetworkTimeout {
			t.Fatalf("reopen = %+v, %v", r, err)
		}
		if _, err := probe("p2", v, due.Add(2*time.Second)); !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("probe inside the new window: %v, want ErrConflict", err)
		}
		// Failed probes in a row are counted (each grows the next window);
		// a probe's success clears the count.
		if r.Reopens != 1 {
			t.Fatalf("reopens after one failed probe = %d, want 1", r.Reopens)
		}
		next := r.OpenUntil
		if _, err := probe("p3", v, next); err != nil {
			t.Fatal(err)
		}
		if r, err = s.ReopenProbe(ctx, v, "p3", work.NetworkTimeout, next, 2*breaker.DefaultOpenFor); err != nil || r.Reopens != 2 ||
			!r.OpenUntil.Equal(next.Add(2*breaker.DefaultOpenFor)) {
			t.Fatalf("second reopen = %+v, %v", r, err)
		}
		if _, err := probe("p4", v, r.OpenUntil); err != nil {
			t.Fatal(err)
		}
		if r, err = s.CloseProbe(ctx, v, "p4", r.OpenUntil); err != nil || r.Reopens != 0 || r.State != breaker.Closed {
			t.Fatalf("close after two failed probes = %+v, %v; want reopens cleared", r, err)
		}
	})

	t.Run("released and expired probes can be taken over", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		open(t, v, t0)
		due := t0.Add(breaker.DefaultOpenFor)
		if _, err := probe("p1", v, due); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReleaseProbe(ctx, v, "p1", due.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := probe("p2", v, due.Add(time.Second)); err != nil {
			t.Fatalf("probe after a release: %v", err)
		}
		if _, err := probe("p3", v, due.Add(time.Second+breaker.DefaultProbeLease-time.Millisecond)); !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("probe while p2's lease is live: %v", err)
		}
		if _, err := probe("p3", v, due.Add(time.Second+breaker.DefaultProbeLease)); err != nil {
			t.Fatalf("probe after p2's lease expired: %v", err)
		}
		if _, err := s.ReopenProbe(ctx, v, "p2", work.NetworkTimeout, due.Add(3*time.Minute), 0); !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("verdict of an expired probe: %v, want ErrConflict", err)
		}
	})

	t.Run("operator reset", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		open(t, v, t0)
		if _, err := probe("p", v, t0.Add(breaker.DefaultOpenFor)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReopenProbe(ctx, v, "p", work.NetworkTimeout, t0.Add(breaker.DefaultOpenFor), 0); err != nil {
			t.Fatal(err)
		}
		r, err := s.Reset(ctx, v, t0.Add(breaker.DefaultOpenFor+time.Minute))
		if err != nil || r.State != breaker.Closed || r.ConsecutiveFailures != 0 || r.ClosedBy != breaker.ByOperator || !r.OpenUntil.IsZero() ||
			r.Reopens != 0 {
			t.Fatalf("reset = %+v, %v", r, err)
		}
	})

	t.Run("generations: an outcome counts only in the window it started in", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		failAt := func(gen int64, at time.Time) breaker.FailureResult {
			t.Helper()
			res, err := s.RecordFailure(ctx, breaker.FailureRequest{Service: v, Class: work.UpstreamUnavailable, At: at, Generation: gen})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		open(t, v, t0)
		r, _ := s.Get(ctx, v)
		if r.Generation != 1 {
			t.Fatalf("generation after the trip = %d, want 1", r.Generation)
		}
		if _, err := probe("p", v, t0.Add(breaker.DefaultOpenFor)); err != nil {
			t.Fatal(err)
		}
		closed, err := s.CloseProbe(ctx, v, "p", t0.Add(breaker.DefaultOpenFor))
		if err != nil || closed.Generation != 2 {
			t.Fatalf("close: generation %d, %v; want 2", closed.Generation, err)
		}
		// Calls that started before the trip (generation 0) fail late: the
		// new window does not count them, nor does their success reset it.
		later := t0.Add(breaker.DefaultOpenFor + time.Second)
		for range breaker.DefaultThreshold {
			if res := failAt(0, later); res.Counted || res.Opened || res.Record.State != breaker.Closed {
				t.Fatalf("a stale failure counted: %+v", res)
			}
		}
		if res := failAt(2, later); !res.Counted || res.Record.ConsecutiveFailures != 1 {
			t.Fatalf("a failure of this window: %+v", res)
		}
		if changed, _ := s.ResetFailures(ctx, v, 0, later); changed {
			t.Fatal("a stale success reset the count")
		}
		if changed, _ := s.ResetFailures(ctx, v, 2, later); !changed {
			t.Fatal("a success of this window did not reset the count")
		}
		// A failed probe and an operator's reset start windows too.
		for range breaker.DefaultThreshold {
			failAt(2, later)
		}
		if _, err := probe("q", v, later.Add(breaker.DefaultOpenFor)); err != nil {
			t.Fatal(err)
		}
		re, err := s.ReopenProbe(ctx, v, "q", work.UpstreamUnavailable, later.Add(breaker.DefaultOpenFor), 0)
		if err != nil || re.Generation != 4 {
			t.Fatalf("reopen: generation %d, %v; want 4", re.Generation, err)
		}
		if rs, err := s.Reset(ctx, v, later); err != nil || rs.Generation != 5 || rs.State != breaker.Closed {
			t.Fatalf("reset: %+v, %v", rs, err)
		}
	})

	t.Run("a provider's exhausted quota opens at once, for as long as asked", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		fail(t, v, t0) // one outage failure counted before
		res, err := s.RecordFailure(ctx, breaker.FailureRequest{Service: v, Class: work.BudgetExceeded, At: t0, Threshold: 1,
			OpenFor: 3 * time.Hour, Generation: 0})
		if err != nil || !res.Opened || !res.Record.OpenUntil.Equal(t0.Add(3*time.Hour)) {
			t.Fatalf("quota trip: %+v, %v", res, err)
		}
		if g := breaker.GateOf(res.Record); g.String() != "quota:"+v {
			t.Fatalf("gate of a quota-opened breaker = %s", g)
		}
	})

	t.Run("draining marks a closed breaker only", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		g := gates.New(gates.Breaker, v)
		if err := s.SetDraining(ctx, v, g, t0.Add(time.Minute), t0); !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("draining a service without a record: %v", err)
		}
		fail(t, v, t0)
		if err := s.SetDraining(ctx, v, g, t0.Add(2*time.Minute), t0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		r, _ := s.Get(ctx, v)
		if r.DrainingGate != g || !r.DrainingUntil.Equal(t0.Add(2*time.Minute)) || r.ConsecutiveFailures != 1 {
			t.Fatalf("after marking: %+v", r)
		}
		open(t, v, t0)
		if err := s.SetDraining(ctx, v, g, t0.Add(3*time.Minute), t0.Add(time.Minute)); !errors.Is(err, breaker.ErrConflict) {
			t.Fatalf("draining an open breaker: %v", err)
		}
	})

	t.Run("list", func(t *testing.T) {
		t.Parallel()
		v := svc(t)
		fail(t, "b-"+v, t0)
		fail(t, "a-"+v, t0)
		all, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var mine []string
		for _, r := range all {
			if strings.HasSuffix(r.Service, v) {
				mine = append(mine, r.Service)
			}
		}
		if fmt.Sprint(mine) != fmt.Sprint([]string{"a-" + v, "b-" + v}) {
			t.Fatalf("list = %v", mine)
		}
	})
}

func TestConformance(t *testing.T) {
	t.Parallel()
	localtest.Conformance(t, func(t *testing.T, newStore func(*testing.T) breaker.Store) { conformance(t, newStore(t)) },
		func() breaker.Store { return breaker.NewMemory() },
		func(t *testing.T) breaker.Store { return dynamoStore(t) })
}

// dynamoStore creates a stack in the shared moto and returns a store on its
// BreakersTable.
func dynamoStore(t *testing.T) *breaker.Dynamo {
	t.Helper()
	env := localtest.Stack(t, nil)
	return &breaker.Dynamo{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Output(t, "BreakersTableName")}
}
