package stage

import (
	"context"

	"github.com/triagehq/triage/shared/state"
)

// Work is one stage's business logic. The runner has already claimed item
// for the stage; Run makes the upstream call and returns what to store. It
// must not retry on its own: the queue is the one retry owner.
//
// Errors are classified by failure.Classify, so return what the upstream
// said (*failure.HTTPError, SDK errors) or a *failure.Error of a known class;
// wrap with failure.WithDetail to add context for the dead letter. A
// *failure.WaitError means a gate is closed (an open breaker, no enabled
// model): the item waits until then without spending an attempt.
type Work interface {
	Run(ctx context.Context, item state.Item) (state.Output, error)
}

// WorkFunc adapts a function to Work.
type WorkFunc func(ctx context.Context, item state.Item) (state.Output, error)

// Run calls f.
func (f WorkFunc) Run(ctx context.Context, item state.Item) (state.Output, error) {
	return f(ctx, item)
}
