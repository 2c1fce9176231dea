package health_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// countingStore counts the calls that reach the store.
type countingStore struct {
	health.Store
	gets, failures, resets atomic.Int64
	getErr                 error
}

func (c *countingStore) Get(ctx context.Context, m string) (health.Model, error) {
	c.gets.Add(1)
	if c.getErr != nil {
		return health.Model{}, c.getErr
	}
	return c.Store.Get(ctx, m)
}

func (c *countingStore) RecordFailure(ctx context.Context, r health.FailureRequest) (health.FailureResult, error) {
	c.failures.Add(1)
	return c.Store.RecordFailure(ctx, r)
}

func (c *countingStore) ResetFailures(ctx context.Context, m string, now time.Time) (bool, error) {
	c.resets.Add(1)
	return c.Store.ResetFailures(ctx, m, now)
}

type trackerBundle struct {
	store   *countingStore
	clock   *clock.Stub
	tracker *health.Tracker
	logs    *bytes.Buffer
	metrics *telemetry.Tally
}

func setupTracker(t *testing.T) *trackerBundle {
	t.Helper()
	b := &trackerBundle{store: &countingStore{Store: health.NewMemory()}, clock: clock.NewStub(t0),
		logs: &bytes.Buffer{}, metrics: &telemetry.Tally{}}
	b.tracker = &health.Tracker{Store: b.store, Clock: b.clock, CacheTTL: 5 * time.Second,
		Log: slog.New(slog.NewJSONHandler(b.logs, nil)), Metrics: b.metrics}
	return b
}

// fail records an answer of model that is not JSON, for a new item; t
// fails at once on an error.
func (b *trackerBundle) fail(t *testing.T, model string) {
	t.Helper()
	if _, err := b.tracker.RecordFailure(context.Background(), model, newItem(), invalid("bad JSON")); err != nil {
		t.Fatal(err)
	}
}

// succeed records a success of model; t fails at once on an error.
func (b *trackerBundle) succeed(t *testing.T, model string) {
	t.Helper()
	if err := b.tracker.RecordSuccess(context.Background(), model); err != nil {
		t.Fatal(err)
	}
}

func TestTrackerCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTracker(t)
	for range 10 {
		if m, err := b.tracker.Status(ctx, "gpt"); err != nil || m.Disabled || m.Name != "gpt" {
			t.Fatalf("status = %+v, %v", m, err)
		}
	}
	if n := b.store.gets.Load(); n != 1 {
		t.Fatalf("reads within the TTL = %d, want 1", n)
	}
	b.clock.Advance(5 * time.Second)
	if _, err := b.tracker.Status(ctx, "gpt"); err != nil {
		t.Fatal(err)
	}
	if n := b.store.gets.Load(); n != 2 {
		t.Fatalf("reads after the TTL = %d, want 2", n)
	}
	// Another instance disables the model: this one sees it within a TTL.
	for range 5 {
		if _, err := b.store.Store.RecordFailure(ctx, health.FailureRequest{Model: "gpt", Class: work.ClientError, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if m, _ := b.tracker.Status(ctx, "gpt"); m.Disabled {
		t.Fatal("a fresh cache entry was bypassed")
	}
	b.clock.Advance(5 * time.Second)
	if m, _ := b.tracker.Status(ctx, "gpt"); !m.Disabled {
		t.Fatal("disable not seen after the TTL")
	}
}

func TestTrackerSuccessWritesOnlyWhenCounting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTracker(t)
	if _, err := b.tracker.Status(ctx, "gpt"); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b.succeed(t, "gpt")
	}
	if n := b.store.resets.Load(); n != 0 {
		t.Fatalf("resets for a model known at zero = %d, want 0", n)
	}
	// An isolated failure is not written, so there is nothing to reset.
	b.fail(t, "gpt")
	b.succeed(t, "gpt")
	if n, w := b.store.resets.Load(), b.store.failures.Load(); n != 0 || w != 0 {
		t.Fatalf("an isolated failure and a success: %d failure writes, %d resets; want none", w, n)
	}
	// Two failures in a row, but most of this instance's calls succeeded:
	// sporadic, not written.
	for range 2 {
		b.fail(t, "gpt")
	}
	if w := b.store.failures.Load(); w != 0 {
		t.Fatalf("two failures after seven successes: %d failure writes, want none", w)
	}
	// A model whose calls here fail in a row and mostly: written, and a
	// success resets it once.
	for range 2 {
		b.fail(t, "gpt-b")
	}
	if w := b.store.failures.Load(); w != 2 {
		t.Fatalf("a new model's two failures: %d failure writes, want 2", w)
	}
	b.succeed(t, "gpt-b")
	b.succeed(t, "gpt-b")
	if n := b.store.resets.Load(); n != 1 {
		t.Fatalf("resets = %d, want 1 (the second success knows the count is zero)", n)
	}
	if m, _ := b.store.Store.Get(ctx, "gpt-b"); m.ConsecutiveFailures != 0 {
		t.Fatalf("count %d after success", m.ConsecutiveFailures)
	}
}

// Two llm instances share the count. One counts failures (an item whose
// answers are never valid JSON, retried); the other, whose view says zero,
// has successes in between. The count is of consecutive failures across
// instances, so the successes must reset it and the model must stay
// enabled. (Were successes on an instance with a stale view to write
// nothing, a healthy fallback model would be disabled.) A success
// trusts a view younger than the cache TTL and reads an older one: b's
// first success after its view aged past the TTL resets the count, and no
// success costs more than one read per TTL.
func TestTrackerSuccessResetsFailuresCountedElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := setupTracker(t)
	b := &health.Tracker{Store: a.store, Clock: a.clock, CacheTTL: 5 * time.Second}
	if _, err := b.Status(ctx, "gpt"); err != nil { // b's view: count 0
		t.Fatal(err)
	}
	for round := range 4 {
		for range 3 {
			a.fail(t, "gpt")
		}
		a.clock.Advance(5 * time.Second) // b's view is now as old as the TTL
		resets, gets := a.store.resets.Load(), a.store.gets.Load()
		if err := b.RecordSuccess(ctx, "gpt"); err != nil {
			t.Fatal(err)
		}
		m, err := a.store.Store.Get(ctx, "gpt")
		if err != nil {
			t.Fatal(err)
		}
		if m.Disabled || m.ConsecutiveFailures != 0 || a.store.resets.Load() != resets+1 || a.store.gets.Load() != gets+1 {
			t.Fatalf("round %d: count %d, disabled %t after a success elsewhere; want the count read once and reset by one write",
				round, m.ConsecutiveFailures, m.Disabled)
		}
	}
	// A healthy model: successes within the TTL cost nothing, the first
	// after it one read.
	gets, resets := a.store.gets.Load(), a.store.resets.Load()
	for range 3 {
		if err := b.RecordSuccess(ctx, "gpt"); err != nil {
			t.Fatal(err)
		}
	}
	a.clock.Advance(5 * time.Second)
	for range 3 {
		if err := b.RecordSuccess(ctx, "gpt"); err != nil {
			t.Fatal(err)
		}
	}
	if a.store.resets.Load() != resets || a.store.gets.Load() != gets+1 {
		t.Fatalf("6 successes of a healthy model over two TTLs: %d resets, %d reads; want 0 and 1",
			a.store.resets.Load()-resets, a.store.gets.Load()-gets)
	}
	// The bound: a failure counted elsewhere within b's fresh view is not
	// b's to reset; the failing instance's own next success resets it.
	a.fail(t, "gpt")
	if err := b.RecordSuccess(ctx, "gpt"); err != nil {
		t.Fatal(err)
	}
	if m, _ := a.store.Store.Get(ctx, "gpt"); m.ConsecutiveFailures != 1 {
		t.Fatalf("count %d, want 1: b's view is fresh", m.ConsecutiveFailures)
	}
	a.succeed(t, "gpt")
	if m, _ := a.store.Store.Get(ctx, "gpt"); m.ConsecutiveFailures != 0 {
		t.Fatalf("count %d after a success on the instance that counted the failure", m.ConsecutiveFailures)
	}
}

func TestTrackerRecordFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name        string
		classes     []work.Class
		wantCount   int
		wantWrites  int64
		wantDisable bool
	}{
		{"rate limits do not count", repeat(work.RateLimited, 10), 0, 0, false},
		{"timeouts do not count", repeat(work.NetworkTimeout, 10), 0, 0, false},
		{"server errors do not count", repeat(work.UpstreamUnavailable, 10), 0, 0, false},
		{"content policy does not count", repeat(work.ContentPolicy, 10), 0, 0, false},
		{"invalid output counts", repeat(work.ResponseInvalid, 4), 4, 4, false},
		{"five invalid outputs disable", repeat(work.ResponseInvalid, 5), 5, 5, true},
		{"client errors disable", repeat(work.ClientError, 5), 5, 5, true},
		{"transient failures in between do not break the run",
			[]work.Class{work.ResponseInvalid, work.RateLimited, work.ClientError, work.NetworkTimeout,
				work.ResponseInvalid, work.ResponseInvalid, work.UpstreamUnavailable, work.ClientError}, 5, 5, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setupTracker(t)
			disables := 0
			for _, c := range tc.classes {
				res, err := b.tracker.RecordFailure(ctx, "m", newItem(), failure.Of(c, "test"))
				if err != nil {
					t.Fatal(err)
				}
				if res.Disabled {
					disables++
				}
			}
			m, err := b.tracker.Status(ctx, "m")
			if err != nil {
				t.Fatal(err)
			}
			if m.ConsecutiveFailures != tc.wantCount || m.Disabled != tc.wantDisable || b.store.failures.Load() != tc.wantWrites {
				t.Fatalf("count %d disabled %t writes %d; want %d %t %d", m.ConsecutiveFailures, m.Disabled,
					b.store.failures.Load(), tc.wantCount, tc.wantDisable, tc.wantWrites)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.wantDisable]; disables != want || b.metrics.Get(health.MetricModelDisables) != want {
				t.Fatalf("disable events %d, metric %d; want %d", disables, b.metrics.Get(health.MetricModelDisables), want)
			}
			if tc.wantDisable != strings.Contains(b.logs.String(), `"msg":"model auto-disabled"`) {
				t.Fatalf("disable log missing or unexpected:\n%s", b.logs)
			}
		})
	}
}

func TestTrackerStoreErrorFailsOpenWithLastKnown(t *testing.T) {
	t.Parallel()
	b := setupTracker(t)
	b.store.getErr = errors.New("dynamodb unreachable")
	m, err := b.tracker.Status(context.Background(), "gpt")
	if err == nil || m.Name != "gpt" || m.Disabled {
		t.Fatalf("status = %+v, %v; want a healthy model and the error", m, err)
	}
}

func repeat(c work.Class, n int) []work.Class {
	out := make([]work.Class, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func TestRecover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := health.NewMemory()
	disable := func(model string, at time.Time) {
		t.Helper()
		for range 5 {
			if _, err := s.RecordFailure(ctx, health.FailureRequest{Model: model, Class: work.ResponseInvalid, At: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	disable("old", t0)
	disable("young", t0.Add(45*time.Minute))
	if _, err := s.SetDisabled(ctx, "pinned", true, "operator", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordFailure(ctx, health.FailureRequest{Model: "healthy", Class: work.ClientError, At: t0}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		at            time.Duration
		wantRecovered []string
		wantPending   int
	}{
		{59 * time.Minute, []string{}, 2},
		{time.Hour, []string{"old"}, 1},
		{time.Hour + 30*time.Minute, []string{}, 1},
		{2 * time.Hour, []string{"young"}, 0},
		{3 * time.Hour, []string{}, 0},
	}
	for _, tc := range tests {
		rep, err := health.Recover(ctx, s, health.RecoverOptions{Now: t0.Add(tc.at)})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(rep.Recovered, ",") != strings.Join(tc.wantRecovered, ",") || len(rep.Pending) != tc.wantPending ||
			rep.Checked != 4 || strings.Join(rep.Operator, ",") != "pinned" {
			t.Fatalf("at +%v: %+v; want recovered %v, %d pending", tc.at, rep, tc.wantRecovered, tc.wantPending)
		}
	}
	m, _ := s.Get(ctx, "old")
	if m.Disabled || m.ConsecutiveFailures != health.DefaultResetTo {
		t.Fatalf("recovered model: %+v", m)
	}
}

// TestTrackerCountsLocalStreaks: an instance's isolated failure never
// reaches the shared count — at scale, one item's bad answers and a
// provider's sporadic ones would otherwise make the model's key the
// hottest of the system — while a streak on one instance counts every
// failure of it, so one instance alone disables a broken model at the fifth
// failure, as a count of every failure would.
func TestTrackerCountsLocalStreaks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTracker(t)
	for range 100 { // 1 call in 2 fails, never twice in a row here
		b.fail(t, "gpt")
		b.succeed(t, "gpt")
	}
	if w, r := b.store.failures.Load(), b.store.resets.Load(); w != 0 || r != 0 {
		t.Fatalf("100 isolated failures: %d failure writes, %d resets; want none", w, r)
	}
	var disabledAt int
	for i := range 5 {
		res, err := b.tracker.RecordFailure(ctx, "gpt", newItem(), invalid("bad JSON"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Disabled {
			disabledAt = i + 1
		}
	}
	if disabledAt != 5 || b.store.failures.Load() != 5 {
		t.Fatalf("a broken model disabled at failure %d with %d writes; want the fifth, 5", disabledAt, b.store.failures.Load())
	}
}

// TestTrackerCountsDistinctItems: an item that fails again and again on one
// instance, or on several, is one failure of the model — a poison item
// does not take a healthy model out of rotation; five items do.
func TestTrackerCountsDistinctItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := setupTracker(t)
	b := &health.Tracker{Store: a.store, Clock: a.clock}
	for i := range 20 {
		tr := a.tracker
		if i%3 == 0 {
			tr = b
		}
		res, err := tr.RecordFailure(ctx, "gpt", "poison", invalid("bad JSON"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Disabled || res.Model.Disabled {
			t.Fatalf("poison item's failure %d disabled the model: %+v", i+1, res)
		}
	}
	if m, err := a.store.Get(ctx, "gpt"); err == nil && m.ConsecutiveFailures > 1 {
		t.Fatalf("one item's 20 failures counted %d times, want at most once", m.ConsecutiveFailures)
	}
	disabledAt := 0
	for i := range 6 {
		res, err := a.tracker.RecordFailure(ctx, "gpt", fmt.Sprint("doc-", i), invalid("bad JSON"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Disabled {
			disabledAt = i + 1
		}
	}
	if disabledAt == 0 || disabledAt > 5 {
		t.Fatalf("distinct items after the poison one: disabled at %d, want by the fifth", disabledAt)
	}
}

// TestTrackerSporadicFailuresNeverDisable: a model that answers 15% of
// its calls badly, each item its own, is not taken out of rotation by the
// pairs and triples such a rate makes; the same model broken after a
// hundred good calls is, within six calls of one instance.
func TestTrackerSporadicFailuresNeverDisable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTracker(t)
	rng := rand.New(rand.NewPCG(7, 15))
	failures, pairs := 0, 0
	last := false
	for i := range 5000 {
		if rng.Float64() < 0.15 {
			failures++
			if last {
				pairs++
			}
			last = true
			res, err := b.tracker.RecordFailure(ctx, "gpt", fmt.Sprint("w-", i), invalid("bad JSON"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Disabled || res.Model.Disabled {
				t.Fatalf("call %d: a model failing 15%% of its calls was disabled: %+v", i, res.Model)
			}
			continue
		}
		last = false
		b.succeed(t, "gpt")
	}
	if pairs == 0 {
		t.Fatal("the sequence has no two failures in a row: it tests nothing")
	}
	// A write at a streak of two on the instance would write every pair.
	if w := b.store.failures.Load(); w > int64(failures/100) {
		t.Fatalf("%d failures, %d in a row after another: %d written, want at most 1%%", failures, pairs, w)
	}
	for i := range 100 {
		_ = i
		b.succeed(t, "broken")
	}
	for i := 1; i <= 6; i++ {
		res, err := b.tracker.RecordFailure(ctx, "broken", fmt.Sprint("b-", i), invalid("bad JSON"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Disabled {
			return
		}
	}
	t.Fatal("a model failing every call after a hundred good ones was not disabled within six failures")
}
