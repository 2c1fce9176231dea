package fallback_test

import (
	"context"
	"fmt"
	"time"

	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/fallback"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/retry"
	"github.com/triagehq/triage/shared/state"
)

// enrichFunc adapts a function to fallback.Enricher.
type enrichFunc func(ctx context.Context, it state.Item, e fallback.Entry) (state.Enrichment, error)

func (f enrichFunc) Enrich(ctx context.Context, it state.Item, e fallback.Entry) (state.Enrichment, error) {
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
	store := health.NewMemory()
	entries, _ := fallback.ParseChain("openai:small, bedrock:large", "")
	chain := &fallback.Chain{
		Entries: entries,
		Enricher: enrichFunc(func(_ context.Context, _ state.Item, e fallback.Entry) (state.Enrichment, error) {
			if e.Model == "small" {
				return state.Enrichment{}, failure.New(failure.ResponseInvalid, "model output is not JSON")
			}
			return state.Enrichment{Model: e.String()}, nil
		}),
		Health: &health.Tracker{Store: store, Clock: clock},
		Clock:  clock,
	}
	var it state.Item
	for i := range 6 {
		it = state.Item{ID: fmt.Sprint("item-", i+1), Kind: state.KindStory}
		out, err := chain.Run(ctx, it, gate.Delivery{})
		if err != nil {
			fmt.Println(failure.Classify(err).Class)
			continue
		}
		fmt.Println("enriched by", out.Enrichment.Model)
	}
	_, _ = store.SetDisabled(ctx, "bedrock:large", true, "maintenance", clock.Now())
	chain.Health = &health.Tracker{Store: store, Clock: clock}
	_, err := chain.Run(ctx, it, gate.Delivery{})
	// The chain reports its gate closed; the policy decides the wait.
	closed, ok := retry.ClosedOf(err)
	w := retry.Standard().Decide(retry.Input{Closed: &closed, Now: clock.Now()})
	fmt.Println(ok, w.(retry.Wait).Until.Sub(clock.Now()))
	// Output:
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// RESPONSE_INVALID
	// enriched by bedrock:large
	// true 1h0m0s
}
