package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// claimFault is an item store whose Claim misbehaves as a bug of ours
// would: it panics, or it reports a lost claim with the item it is given.
type claimFault struct {
	*store.Memory
	panics bool
	found  *store.Item
}

func (c *claimFault) Claim(ctx context.Context, req store.ClaimRequest) (store.Item, error) {
	if c.panics {
		panic("a store bug")
	}
	if c.found != nil {
		return store.Item{}, &store.ClaimError{ItemID: req.ItemID, Stage: req.Stage, Current: c.found}
	}
	return c.Memory.Claim(ctx, req)
}

// A fault of ours that recurs on every receive — a panic outside the work,
// a lost claim that finds the item in a state no rule names, a dead letter
// that cannot be encoded — keeps the record backing off on its receive
// count (policy.Holding.Unrecorded) as every outcome not yet durable does
// (docs/design.md "Waits and parking"): a fixed short hold spent the
// redrive backstop's receives in seconds and moved the raw envelope to the
// DLQ with no dead letter to read.
func TestRecurringFaultsBackOffOnTheReceiveCount(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("c", 300<<10) // no dead letter carrying it fits SQS
	for name, fault := range map[string]*claimFault{
		"runner panic":       {panics: true},
		"unexpected state":   {found: &store.Item{ID: "a", Stage: work.Notify, State: work.State("unheard_of")}},
		"unencodable letter": {found: &store.Item{ID: "a", Stage: work.Notify, State: work.Failed, Carrier: "m1", CorrelationID: huge}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.Notify)
			fault.Memory = tb.store
			tb.runner.Items = fault
			tb.seed(t, "a", work.Notify)
			if got := failedIDs(tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 5))); len(got) != 1 {
				t.Fatalf("failures = %v, want the record kept", got)
			}
			want := policy.Holding{}.Unrecorded(5, 0.5)
			if v := tb.visibility(t, "rh-m1"); time.Duration(v)*time.Second < want {
				t.Fatalf("visibility %d s on the fifth receive, want at least %v (the backoff on the receive count)", v, want)
			}
			if n := len(tb.deadLetters(t)); n != 0 {
				t.Fatalf("%d dead letters sent", n)
			}
		})
	}
}
