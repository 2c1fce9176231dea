package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// countingStore counts the reads and writes that reach the store.
type countingStore struct {
	breaker.Store
	gets, writes atomic.Int64
	getErr       error
}

func (c *countingStore) Get(ctx context.Context, s string) (breaker.Record, error) {
	c.gets.Add(1)
	if c.getErr != nil {
		return breaker.Record{}, c.getErr
	}
	return c.Store.Get(ctx, s)
}

func (c *countingStore) RecordFailure(ctx context.Context, r breaker.FailureRequest) (breaker.FailureResult, error) {
	c.writes.Add(1)
	return c.Store.RecordFailure(ctx, r)
}

func (c *countingStore) ResetFailures(ctx context.Context, s string, gen int64, now time.Time) (bool, error) {
	c.writes.Add(1)
	return c.Store.ResetFailures(ctx, s, gen, now)
}

type bundle struct {
	store    *countingStore
	clock    *clock.Stub
	breakers *breaker.Breakers
	metrics  *telemetry.Tally
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{store: &countingStore{Store: breaker.NewMemory()}, clock: clock.NewStub(t0), metrics: &telemetry.Tally{}}
	b.breakers = &breaker.Breakers{Store: b.store, Clock: b.clock, Stage: work.Fetch, Metrics: b.metrics}
	return b
}

var (
	unavailable = &failure.HTTPError{Provider: failure.HTTP, Op: "GET article", Status: 503}
	rateLimited = &failure.HTTPError{Provider: failure.HTTP, Op: "GET article", Status: 429}
	notFound    = &failure.HTTPError{Provider: failure.HTTP, Op: "GET article", Status: 404}
)

func TestOutcomeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want policy.BreakerEffect
	}{
		{"success", nil, policy.Answered},
		{"503", unavailable, policy.Trips},
		{"timeout", context.DeadlineExceeded, policy.Trips},
		{"429 is a quota, not an outage", rateLimited, policy.Throttles},
		{"404 is the service answering", notFound, policy.Answered},
		{"invalid model output is the service answering", failure.New(work.ResponseInvalid, "not JSON"), policy.Answered},
		{"a closed gate", &failure.WaitError{Until: t0, Reason: "no model"}, policy.Silent},
		{"bad input", failure.New(work.SchemaInvalid, "no text"), policy.Silent},
		{"our bug", failure.New(work.InternalBug, "nil"), policy.Silent},
		{"our own budget", &failure.Error{Class: work.BudgetExceeded, SelfImposed: true}, policy.Silent},
		{"the provider's exhausted quota", quotaExhausted, policy.Opens},
		{"unmatched", errors.New("something odd"), policy.Silent},
		{"a host's 401 is the service answering", &failure.HTTPError{Provider: failure.HTTP, Status: 401}, policy.Answered},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := breaker.OutcomeOf(tc.err, nil, work.Fetch); got != tc.want {
				t.Fatalf("OutcomeOf(%v) = %s, want %s", tc.err, got, tc.want)
			}
		})
	}
	// An llm provider's breaker trips on a revoked key as well: the
	// decision table's llm row for AUTH_DENIED.
	denied := &failure.HTTPError{Provider: failure.OpenAI, Status: 401, Body: []byte(`{"error":{"code":"invalid_api_key"}}`)}
	if got := breaker.OutcomeOf(denied, nil, work.LLM); got != policy.Trips {
		t.Errorf("llm AUTH_DENIED = %s, want trips", got)
	}
	if got := breaker.OutcomeOf(failure.Mark(unavailable), nil, work.Fetch); got != policy.Trips {
		t.Errorf("a marked 503 = %s, want trips", got)
	}
}

func TestClosedPathCostsNoReadPerCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	for range 100 {
		tk, err := b.breakers.Allow(ctx, "news.example")
		if err != nil {
			t.Fatal(err)
		}
		b.breakers.Done(ctx, tk, nil)
	}
	if g, w := b.store.gets.Load(), b.store.writes.Load(); g != 1 || w != 0 {
		t.Fatalf("100 successful calls within the TTL: %d reads, %d writes; want 1 and 0", g, w)
	}
	b.clock.Advance(breaker.DefaultCacheTTL)
	if _, err := b.breakers.Allow(ctx, "news.example"); err != nil {
		t.Fatal(err)
	}
	if g := b.store.gets.Load(); g != 2 {
		t.Fatalf("reads after the TTL = %d, want 2", g)
	}
}

func TestRateLimitsDoNotTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	call := func(err error) error {
		tk, aerr := b.breakers.Allow(ctx, "api.example")
		if aerr != nil {
			return aerr
		}
		b.breakers.Done(ctx, tk, err)
		return nil
	}
	for range 4 {
		if err := call(unavailable); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		if err := call(rateLimited); err != nil {
			t.Fatalf("rate-limited calls were refused: %v", err)
		}
	}
	if r, _ := b.store.Get(ctx, "api.example"); r.State != breaker.Closed || r.ConsecutiveFailures != 4 {
		t.Fatalf("after 4 outages and 10 rate limits: %+v; want closed, count 4 (429 neither counts nor resets)", r)
	}
	if err := call(unavailable); err != nil {
		t.Fatal(err)
	}
	err := call(nil)
	if w, ok := runnertest.WaitOf(err, b.clock.Now()); !ok || !w.Until.Equal(t0.Add(breaker.DefaultOpenFor)) {
		t.Fatalf("call after the 5th outage: %v, want a WaitError until %v", err, t0.Add(breaker.DefaultOpenFor))
	}
	if b.metrics.Get(breaker.MetricBreakerOpens) != 1 || b.metrics.Get(breaker.MetricBreakerRejects) != 1 {
		t.Fatalf("metrics = %v", b.metrics)
	}
}

func TestSuccessResetsCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	for _, err := range []error{unavailable, unavailable, unavailable, notFound, unavailable, unavailable, unavailable, unavailable} {
		tk, aerr := b.breakers.Allow(ctx, "api.example")
		if aerr != nil {
			t.Fatalf("refused after a success reset the count: %v", aerr)
		}
		b.breakers.Done(ctx, tk, err)
	}
	if r, _ := b.store.Get(ctx, "api.example"); r.State != breaker.Closed || r.ConsecutiveFailures != 4 {
		t.Fatalf("= %+v, want closed at 4", r)
	}
}

func TestProbe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name      string
		probeErr  error
		wantState breaker.State
	}{
		{"success closes", nil, breaker.Closed},
		{"a 429 closes: the service is reachable", rateLimited, breaker.Closed},
		{"an outage reopens", unavailable, breaker.Open},
		{"a neutral error releases", &failure.WaitError{Until: t0, Reason: "no model"}, breaker.Open},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			for range 5 {
				tk, _ := b.breakers.Allow(ctx, "api.example")
				b.breakers.Done(ctx, tk, unavailable)
			}
			b.clock.Advance(breaker.DefaultOpenFor)
			tk, err := b.breakers.Allow(ctx, "api.example")
			if err != nil || !tk.Probe {
				t.Fatalf("first call after the window: %+v, %v; want the probe", tk, err)
			}
			_, err = b.breakers.Allow(ctx, "api.example")
			if w, ok := runnertest.WaitOf(err, b.clock.Now()); !ok || !w.Until.Equal(b.clock.Now().Add(policy.ProbeWait)) {
				t.Fatalf("second caller during the probe: %v, want a short wait", err)
			}
			b.breakers.Done(ctx, tk, tc.probeErr)
			r, _ := b.store.Get(ctx, "api.example")
			if r.State != tc.wantState || r.ProbeOwner != "" {
				t.Fatalf("after the probe: %+v, want %s", r, tc.wantState)
			}
			switch tc.wantState {
			case breaker.Open:
				if _, ok := tc.probeErr.(*failure.WaitError); ok {
					if !r.OpenUntil.Equal(b.clock.Now()) {
						t.Fatalf("released probe: open until %v, want now", r.OpenUntil)
					}
				} else if want := b.clock.Now().Add(reopenedFor(1)); !r.OpenUntil.Equal(want) || r.Reopens != 1 {
					t.Fatalf("reopened until %v (reopens %d), want a new window: %v", r.OpenUntil, r.Reopens, want)
				}
			case breaker.Closed:
				if _, err := b.breakers.Allow(ctx, "api.example"); err != nil {
					t.Fatalf("closed breaker refused: %v", err)
				}
			}
		})
	}
}

func TestUnreadableStoreFailsOpen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.store.getErr = errors.New("dynamodb unreachable")
	tk, err := b.breakers.Allow(context.Background(), "api.example")
	if err != nil || tk.Service != "api.example" {
		t.Fatalf("= %+v, %v; want the call allowed", tk, err)
	}
}

func TestHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://News.Example/a/b?c=d":   "news.example",
		"http://127.0.0.1:8080/v1":       "127.0.0.1:8080",
		"https://[::1]:9000/x":           "[::1]:9000",
		"https://hooks.slack.com/T/B/X":  "hooks.slack.com",
		"not a url":                      "",
		"":                               "",
		"mailto:someone@example.com":     "",
		" https://api.openai.com/v1 \n ": "api.openai.com",
		// One host, one breaker: a fully qualified name's root dot and
		// the scheme's own port name the host written without them.
		"https://news.example./a":    "news.example",
		"https://news.example:443/a": "news.example",
		"http://news.example:80/a":   "news.example",
		"http://news.example:443/a":  "news.example:443",
		"https://[::1]:443/x":        "::1",
	} {
		if got := breaker.Host(in); got != want {
			t.Errorf("Host(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExampleBreakers() {
	ctx := context.Background()
	clock := clock.NewStub(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))
	b := &breaker.Breakers{Store: breaker.NewMemory(), Clock: clock}
	outage := &failure.HTTPError{Provider: failure.OpenAI, Status: 503}
	for range 5 {
		t, _ := b.Allow(ctx, "api.openai.com")
		b.Done(ctx, t, outage)
	}
	_, err := b.Allow(ctx, "api.openai.com")
	fmt.Println(err)

	clock.Advance(5 * time.Minute)
	probe, _ := b.Allow(ctx, "api.openai.com")
	_, err = b.Allow(ctx, "api.openai.com")
	fmt.Println("probe:", probe.Probe, "| others:", errors.Is(err, failure.ErrWaiting))
	b.Done(ctx, probe, nil)
	r, _ := b.Get(ctx, "api.openai.com")
	fmt.Println(r.State, r.Opens)
	// Output:
	// waiting until 2026-01-02T03:05:00Z: circuit breaker open for api.openai.com
	// probe: true | others: true
	// closed 1
}

// Guard decorates a stage's Work: while the article host's breaker is open
// the item waits (the runner parks it without spending an attempt) and the
// host is not called. The failure that opens the breaker is a wait too.
func ExampleGuard() {
	ctx := context.Background()
	clock := clock.NewStub(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))
	calls := 0
	fetch := runner.WorkFunc(func(context.Context, store.Item) (work.Output, error) {
		calls++
		return work.Output{}, &failure.HTTPError{Provider: failure.HTTP, Op: "GET article", Status: 502}
	})
	job := breaker.Guard{Inner: fetch, Service: breaker.SourceHost,
		Breakers: &breaker.Breakers{Store: breaker.NewMemory(), Clock: clock}}
	it := store.Item{ID: "item-1", SourceURL: "https://news.example/a/1"}
	for range 7 {
		_, err := job.Run(ctx, it, gates.Delivery{})
		if errors.Is(err, failure.ErrWaiting) {
			fmt.Println(err)
			continue
		}
		fmt.Println(failure.Classify(err).Class)
	}
	fmt.Println("host calls:", calls)
	// Output:
	// UPSTREAM_UNAVAILABLE
	// UPSTREAM_UNAVAILABLE
	// UPSTREAM_UNAVAILABLE
	// UPSTREAM_UNAVAILABLE
	// waiting until 2026-01-02T03:05:00Z: the call failed with UPSTREAM_UNAVAILABLE as the breaker for news.example opened
	// waiting until 2026-01-02T03:05:00Z: circuit breaker open for news.example
	// waiting until 2026-01-02T03:05:00Z: circuit breaker open for news.example
	// host calls: 5
}

var quotaExhausted = &failure.HTTPError{Provider: failure.OpenAI, Op: "chat", Status: 429,
	Body: []byte(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)}

// open trips service's breaker with threshold failures at the bundle's clock.
func (b *bundle) open(t *testing.T, service string) {
	t.Helper()
	ctx := context.Background()
	for range breaker.DefaultThreshold {
		tk, err := b.breakers.Allow(ctx, service)
		if err != nil {
			t.Fatal(err)
		}
		b.breakers.Done(ctx, tk, unavailable)
	}
	if r, _ := b.store.Store.Get(ctx, service); r.State != breaker.Open {
		t.Fatalf("breaker %s is %s, want open", service, r.State)
	}
}

// leaseProbe trips service's breaker, lets its open window pass and takes
// its probe lease for owner, as the scheduler does before it releases a
// waiter; it returns the record as it was just before the lease (open, past
// open_until).
func (b *bundle) leaseProbe(t *testing.T, service, owner string) breaker.Record {
	t.Helper()
	ctx := context.Background()
	b.open(t, service)
	b.clock.Advance(breaker.DefaultOpenFor)
	before, err := b.store.Store.Get(ctx, service)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.store.AcquireProbe(ctx, breaker.ProbeRequest{Service: service, Owner: owner, Now: b.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	return before
}

// TestQuotaProbesOncePerWaitPeriod: an exhausted quota opens the breaker at
// 10:00 and lasts past 13:00. Each failed probe reopens the breaker until the
// quota's next probe time (policy.Profile.QuotaProbeAt): the window doubling
// from 5 minutes up to the profile's hour, never past the next hour's
// boundary — not one probe per 5-minute window. Callers before that time are
// refused without calling.
func TestQuotaProbesOncePerWaitPeriod(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tk, err := b.breakers.Allow(ctx, "api.llm.example")
	if err != nil {
		t.Fatal(err)
	}
	_ = b.breakers.Done(ctx, tk, quotaExhausted)
	var probes []string
	for b.clock.Now().Before(t0.Add(3 * time.Hour)) {
		r, err := b.store.Store.Get(ctx, "api.llm.example")
		if err != nil || r.State != breaker.Open {
			t.Fatalf("%s: breaker %+v, %v; want open", b.clock.Now().Format("15:04"), r, err)
		}
		b.clock.Set(r.OpenUntil.Add(-time.Second))
		if _, err := b.breakers.Allow(ctx, "api.llm.example"); !errors.Is(err, failure.ErrWaiting) {
			t.Fatalf("%s: a caller before the probe time: %v, want refused", b.clock.Now().Format("15:04:05"), err)
		}
		b.clock.Set(r.OpenUntil)
		tk, err := b.breakers.Allow(ctx, "api.llm.example")
		if err != nil || !tk.Probe {
			t.Fatalf("%s: %+v, %v; want the probe", b.clock.Now().Format("15:04"), tk, err)
		}
		probes = append(probes, b.clock.Now().Format("15:04"))
		wait := b.breakers.Done(ctx, tk, quotaExhausted)
		if g, ok := gates.Of(wait); !ok || g.String() != "quota:api.llm.example" {
			t.Fatalf("a failed quota probe waits behind %q, want the quota's gate", g)
		}
	}
	want := []string{"10:05", "10:10", "10:20", "10:40", "11:00", "12:00", "13:00"}
	if !slices.Equal(probes, want) {
		t.Fatalf("probes into the exhausted quota at %v, want %v", probes, want)
	}
}

// TestFailedProbeIsAWaitNotAnAttempt: a probe that fails reopens the
// breaker, and its caller gets a wait behind the breaker's gate (or the
// quota's, when the provider answered that its quota is spent): the probe
// is the system's attempt, not the item's.
func TestFailedProbeIsAWaitNotAnAttempt(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err     error
		gate    string
		openFor time.Duration
	}{
		"outage": {unavailable, "breaker:news.example", reopenedFor(1)},
		"quota":  {quotaExhausted, "quota:news.example", breaker.DefaultQuotaOpenFor},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := setup(t)
			b.open(t, "news.example")
			b.clock.Advance(breaker.DefaultOpenFor)
			tk, err := b.breakers.Allow(ctx, "news.example")
			if err != nil || !tk.Probe {
				t.Fatalf("allow after open_until: %+v, %v; want the probe", tk, err)
			}
			wait := b.breakers.Done(ctx, tk, tc.err)
			if w, ok := runnertest.WaitOf(wait, b.clock.Now()); !ok || !w.Until.Equal(b.clock.Now().Add(tc.openFor)) {
				t.Fatalf("Done after a failed probe = %v, want a wait of %v", wait, tc.openFor)
			}
			if g, ok := gates.Of(wait); !ok || g.String() != tc.gate {
				t.Fatalf("gate %q, want %s", g, tc.gate)
			}
			if r, _ := b.store.Store.Get(ctx, "news.example"); r.State != breaker.Open || r.Opens != 2 {
				t.Fatalf("after the failed probe: %+v", r)
			}
		})
	}
}

// TestQuotaAnswerOpensTheBreakerAtOnce: the provider's insufficient_quota
// is not an outage to count, but it refuses every call until the quota is
// restored: the first such answer opens the breaker for QuotaOpenFor (or as
// long as the answer asks), its caller waits behind the quota's gate, and
// so does every later caller, without calling.
func TestQuotaAnswerOpensTheBreakerAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.breakers.QuotaOpenFor = 2 * time.Hour
	tk, _ := b.breakers.Allow(ctx, "api.example")
	wait := b.breakers.Done(ctx, tk, quotaExhausted)
	if g, ok := gates.Of(wait); !ok || g.String() != "quota:api.example" || !errors.Is(wait, quotaExhausted) {
		t.Fatalf("Done after the quota answer = %v (gate %q)", wait, g)
	}
	_, err := b.breakers.Allow(ctx, "api.example")
	if w, ok := runnertest.WaitOf(err, b.clock.Now()); !ok || !w.Until.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("the next caller: %v, want a wait of 2 h", err)
	}
	if g, _ := gates.Of(err); g.String() != "quota:api.example" {
		t.Fatalf("the next caller waits behind %q", g)
	}
	// A rate limit is not a quota: it opens nothing.
	c := setup(t)
	tk, _ = c.breakers.Allow(ctx, "api.example")
	if wait := c.breakers.Done(ctx, tk, rateLimited); wait != nil {
		t.Fatalf("Done after a 429 rate limit = %v", wait)
	}
	if _, err := c.breakers.Allow(ctx, "api.example"); err != nil {
		t.Fatalf("a rate limit closed the gate: %v", err)
	}
}

// TestScheduledProbe: the scheduler takes the probe lease of a breaker
// whose waiters are all parked and releases one of them with the lease's
// owner; that call is the probe, another is refused while it runs.
func TestScheduledProbe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.leaseProbe(t, "news.example", "scheduler-tok")
	if _, err := b.breakers.AllowProbe(ctx, "news.example", "someone-else"); !errors.Is(err, failure.ErrWaiting) {
		t.Fatalf("a call with another token: %v, want a wait", err)
	}
	tk, err := b.breakers.AllowProbe(ctx, "news.example", "scheduler-tok")
	if err != nil || !tk.Probe {
		t.Fatalf("the released probe: %+v, %v", tk, err)
	}
	if wait := b.breakers.Done(ctx, tk, nil); wait != nil {
		t.Fatal(wait)
	}
	if r, _ := b.store.Store.Get(ctx, "news.example"); r.State != breaker.Closed || r.ClosedBy != "scheduler-tok" {
		t.Fatalf("after the probe: %+v", r)
	}
	// Through the Guard: the token comes with the record's delivery.
	c := setup(t)
	c.leaseProbe(t, "news.example", "tok")
	calls := 0
	g := breaker.Guard{Breakers: c.breakers, Service: breaker.Fixed("news.example"), Inner: runner.WorkFunc(
		func(context.Context, store.Item) (work.Output, error) { calls++; return work.Output{}, nil })}
	if _, err := g.Run(ctx, store.Item{ID: "a"}, gates.Delivery{}); !errors.Is(err, failure.ErrWaiting) || calls != 0 {
		t.Fatalf("a plain delivery while the scheduler's probe runs: %v, %d calls", err, calls)
	}
	if _, err := g.Run(ctx, store.Item{ID: "b"}, gates.Delivery{Probe: "tok"}); err != nil || calls != 1 {
		t.Fatalf("the released probe through the guard: %v, %d calls", err, calls)
	}
}

// TestStaleFailureDoesNotCountInANewWindow: a call allowed before a
// trip-and-close cycle that fails after it does not count toward the next
// trip (gobreaker's generation).
func TestStaleFailureDoesNotCountInANewWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.breakers.CacheTTL = -1
	var stale []breaker.Ticket
	for range breaker.DefaultThreshold {
		tk, _ := b.breakers.Allow(ctx, "news.example")
		stale = append(stale, tk)
	}
	b.open(t, "news.example")
	b.clock.Advance(breaker.DefaultOpenFor)
	tk, _ := b.breakers.Allow(ctx, "news.example")
	b.breakers.Done(ctx, tk, nil) // the probe closes it
	for _, tk := range stale {
		b.breakers.Done(ctx, tk, unavailable)
	}
	r, _ := b.store.Store.Get(ctx, "news.example")
	if r.State != breaker.Closed || r.ConsecutiveFailures != 0 {
		t.Fatalf("after %d stale failures: %+v", len(stale), r)
	}
}

// TestDrainingQueuesNewCallers: while the scheduler drains a gate onto a
// closed breaker's service, a new call waits behind that gate (parked, in
// order) and a released one goes ahead, even after a released call met
// congestion: the ramp, not the breaker, paces the drain.
func TestDrainingQueuesNewCallers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.breakers.CacheTTL = -1
	g := gates.New(gates.Breaker, "api.example")
	for range 2 { // a record to mark (a process's first failure alone is not written)
		tk, _ := b.breakers.Allow(ctx, "api.example")
		b.breakers.Done(ctx, tk, unavailable)
	}
	if err := b.store.SetDraining(ctx, "api.example", g, t0.Add(2*time.Minute), t0); err != nil {
		t.Fatal(err)
	}
	_, err := b.breakers.Allow(ctx, "api.example")
	w, ok := runnertest.WaitOf(err, b.clock.Now())
	if got, _ := gates.Of(err); !ok || got != g || !w.Until.After(t0.Add(runner.DefaultParkAfter)) {
		t.Fatalf("a new call while draining: %v (gate %q); want a wait behind %s long enough to park", err, got, g)
	}
	released, err := b.breakers.AllowReleased(ctx, "api.example", g)
	if err != nil {
		t.Fatalf("a released call: %v", err)
	}
	b.clock.Advance(10 * time.Second)
	if wait := b.breakers.Done(ctx, released, rateLimited); wait != nil {
		t.Fatalf("a released call's 429: %v, want no wait from the breaker", wait)
	}
	if _, err := b.breakers.AllowReleased(ctx, "api.example", g); err != nil {
		t.Fatalf("a released call after another's 429: %v", err)
	}
	// The drain's marking lapses: new calls go straight through again.
	b.clock.Advance(2 * time.Minute)
	if _, err := b.breakers.Allow(ctx, "api.example"); err != nil {
		t.Fatalf("a new call after the drain: %v", err)
	}
	// A breaker that is not closed is not marked.
	c := setup(t)
	c.open(t, "down.example")
	if err := c.store.SetDraining(ctx, "down.example", g, t0.Add(time.Minute), t0); !errors.Is(err, breaker.ErrConflict) {
		t.Fatalf("draining an open breaker: %v", err)
	}
}

// TestIsolatedFailuresStayLocal: a fleet whose calls fail now and then —
// each failure followed by a success on its own process — writes nothing to
// the service's breaker; an outage still opens it at the fifth failure
// whichever processes see them.
func TestIsolatedFailuresStayLocal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	fleet := make([]*breaker.Breakers, 4)
	for i := range fleet {
		fleet[i] = &breaker.Breakers{Store: b.store, Clock: b.clock, Stage: work.LLM, Metrics: b.metrics}
	}
	call := func(p *breaker.Breakers, err error) error {
		tk, aerr := p.Allow(ctx, "api.llm.example")
		if aerr != nil {
			return aerr
		}
		p.Done(ctx, tk, err)
		return nil
	}
	for round := range 50 {
		for i, p := range fleet {
			if err := call(p, map[bool]error{true: unavailable, false: nil}[(round+i)%3 == 0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if w := b.store.writes.Load(); w != 0 {
		t.Fatalf("sporadic failures wrote the breaker %d times, want 0", w)
	}
	// An outage: every call fails, round-robin over the fleet. Each
	// process's first failure waits for its second, so the breaker opens
	// within the fleet's size plus three failures (at 10,000 calls a second,
	// a fraction of a second), never before five.
	opened := 0
	for r := range 20 {
		if err := call(fleet[r%len(fleet)], unavailable); err != nil && !errors.Is(err, failure.ErrWaiting) {
			t.Fatal(err)
		}
		if rec, _ := b.store.Get(ctx, "api.llm.example"); rec.State == breaker.Open {
			opened = r + 1
			break
		}
	}
	if opened < 5 || opened > len(fleet)+3 {
		t.Fatalf("the breaker opened at failed call %d; want between 5 and %d", opened, len(fleet)+3)
	}
}

// reopenedFor is how long the breaker stays open after the reopens-th probe
// in a row failed (0: after it tripped), under the standard profile:
// DefaultOpenFor doubling per failed probe, capped.
func reopenedFor(reopens int) time.Duration {
	return policy.Standard().Probing.Interval(breaker.DefaultOpenFor, reopens)
}

// staleStore answers Get with a record read before the last write, as an
// eventually consistent read may (the stages' breaker reads are).
type staleStore struct {
	breaker.Store
	stale breaker.Record
}

func (s *staleStore) Get(context.Context, string) (breaker.Record, error) { return s.stale, nil }

// TestScheduledProbeReadStale: the released probe's read of the breaker
// may predate the scheduler's lease (open, past open_until). Its own lost
// attempt at the lease returns the record as it is — half-open under the
// lease the call carries — and the call is the probe, not a waiter that
// parks while nobody probes until the lease lapses.
func TestScheduledProbeReadStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	before := b.leaseProbe(t, "news.example", "scheduler-tok")
	stale := &breaker.Breakers{Store: &staleStore{Store: b.store, stale: before}, Clock: b.clock, Stage: work.Fetch}
	tk, err := stale.AllowProbe(ctx, "news.example", "scheduler-tok")
	if err != nil || !tk.Probe {
		t.Fatalf("the released probe after a stale read: %+v, %v; want the probe", tk, err)
	}
	if wait := stale.Done(ctx, tk, nil); wait != nil {
		t.Fatal(wait)
	}
	if r, _ := b.store.Store.Get(ctx, "news.example"); r.State != breaker.Closed || r.ClosedBy != "scheduler-tok" {
		t.Fatalf("after the probe: %+v", r)
	}
	// Another token is still refused.
	b2 := setup(t)
	other := &breaker.Breakers{Store: &staleStore{Store: b2.store, stale: b2.leaseProbe(t, "news.example", "scheduler-tok")}, Clock: b2.clock, Stage: work.Fetch}
	if _, err := other.AllowProbe(ctx, "news.example", "someone-else"); !errors.Is(err, failure.ErrWaiting) {
		t.Fatalf("a call with another token after a stale read: %v, want a wait", err)
	}
}
