package health_test

import (
	"context"
	"fmt"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/work"
)

// Five invalid outputs disable a model in the write that counts the fifth;
// rate limits never count; an hour after the last failure Recover brings it
// back with a count of 2.
func ExampleTracker() {
	ctx := context.Background()
	clock := clock.NewStub(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))
	store := health.NewMemory()
	tracker := &health.Tracker{Store: store, Clock: clock}

	for i := range 10 {
		_, _ = tracker.RecordFailure(ctx, "gpt-4o-mini", fmt.Sprint("item-", i), failure.Of(work.RateLimited, "HTTP 429"))
	}
	// The first failure of a streak is written with the second; a streak
	// counts distinct items.
	for i := range 5 {
		res, _ := tracker.RecordFailure(ctx, "gpt-4o-mini", fmt.Sprint("doc-", i), failure.Of(work.ResponseInvalid, "not JSON"))
		fmt.Println("count", res.Model.ConsecutiveFailures, "disabled now:", res.Disabled)
	}

	clock.Advance(time.Hour)
	rep, _ := health.Recover(ctx, store, health.RecoverOptions{Now: clock.Now()})
	m, _ := store.Get(ctx, "gpt-4o-mini")
	fmt.Println("recovered", rep.Recovered, "count", m.ConsecutiveFailures, "disabled", m.Disabled)
	// Output:
	// count 0 disabled now: false
	// count 2 disabled now: false
	// count 3 disabled now: false
	// count 4 disabled now: false
	// count 5 disabled now: true
	// recovered [gpt-4o-mini] count 2 disabled false
}
