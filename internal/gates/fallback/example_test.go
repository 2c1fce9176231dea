package fallback_test

import (
	"context"
	"fmt"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// enrichFunc adapts a function to fallback.Enricher.
type enrichFunc func(ctx context.Context, it store.Item, e fallback.Entry) (work.Enrichment, error)

func (f enrichFunc) Enrich(ctx context.Context, it store.Item, e fallback.Entry) (work.Enrichment, error) {
	return f(ctx, it, e)
}

// A model that keeps answering invalid output is disabled by its fifth
// failure (five items: one item failing again is the item's, not the
// model's), and the chain moves on to the next; with every model disabled
// the item waits, without spending an attempt, until the first is expected
// back.
func ExampleChain() {
	ctx := context.Background()
	clock := clock.NewStub(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))
	db := health.NewMemory()
	entries, _ := fallback.ParseChain("openai:small, bedrock:large", "")
	chain := &fallback.Chain{
		Entries: entries,
		Enricher: enrichFunc(func(_ context.Context, _ store.Item, e fallback.Entry) (work.Enrichment, error) {
			if e.Model == "small" {
				return work.Enrichment{}, failure.New(work.ResponseInvalid, "model output is not JSON")
			}
			return work.Enrichment{Model: e.String()}, nil
		}),
		Health: &health.Tracker{Store: db, Clock: clock},
		Clock:  clock,
	}
	var it store.Item
	for i := range 6 {
		it = store.Item{ID: fmt.Sprint("item-", i+1), Kind: store.KindStory}
		out, err := chain.Run(ctx, it, gates.Delivery{})
		if err != nil {
			fmt.Println(failure.Classify(err).Class)
			continue
		}
		fmt.Println("enriched by", out.Enrichment.Model)
	}
	_, _ = db.SetDisabled(ctx, "bedrock:large", true, "maintenance", clock.Now())
	chain.Health = &health.Tracker{Store: db, Clock: clock}
	_, err := chain.Run(ctx, it, gates.Delivery{})
	// The chain reports its gate closed; the policy decides the wait.
	closed, ok := policy.ClosedOf(err)
	w := policy.Standard().Decide(policy.Input{Closed: &closed, Now: clock.Now()})
	fmt.Println(ok, w.(policy.Wait).Until.Sub(clock.Now()))
	// Output:
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// enriched by bedrock:large
	// true 1h0m0s
}
