package runner

import (
	"context"
	"errors"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Work is one stage's business logic. The runner has already claimed item
// for the stage; Run makes the upstream call and returns what to store. It
// must not retry on its own: the queue is the one retry owner.
//
// Errors are classified by failure.Classify, so return what the upstream
// said (*failure.HTTPError, SDK errors) or a *failure.Error of a known class;
// wrap with failure.WithDetail to add context for the dead letter. A
// *policy.Closed (or a *failure.WaitError) reports a closed gate (an open
// breaker, no usable model): the policy decides the wait, which spends no
// attempt.
//
// d is how the record came (gates.Delivery): the gate whose ramp released
// it and the probe lease it carries, for the breakers the work asks.
type Work interface {
	Run(ctx context.Context, item store.Item, d gates.Delivery) (work.Output, error)
}

// WorkFunc adapts a function that needs no delivery to Work.
type WorkFunc func(ctx context.Context, item store.Item) (work.Output, error)

// Run calls f.
func (f WorkFunc) Run(ctx context.Context, item store.Item, _ gates.Delivery) (work.Output, error) {
	return f(ctx, item)
}

// Bodies reads an item's bodies back (store.Items, store.Memory).
type Bodies interface {
	Hydrate(ctx context.Context, it store.Item, parts ...store.Part) (store.Item, error)
}

// WithBodies is a Work decorator for a stage that reads a body: it reads
// Parts back (the llm stage the document, notify the enrichment) and runs
// Inner on the loaded item. Put it outside a breaker.Guard, so that a
// failure to read a body never counts against the upstream's breaker.
//
// A body that expired is NOT_FOUND (only a replay that re-runs the stage
// which wrote it can help: a full restart for a document); a body that does
// not match its reference, or no body store, is INTERNAL_BUG; a failed read
// is returned as the SDK reported it, for failure.Classify.
type WithBodies struct {
	Inner  Work
	Bodies Bodies
	Parts  []store.Part
}

// Run loads the parts and runs Inner.
func (w WithBodies) Run(ctx context.Context, item store.Item, d gates.Delivery) (work.Output, error) {
	if w.Bodies == nil {
		return work.Output{}, failure.New(work.InternalBug, "the stage has no body store to read the item's %v", w.Parts)
	}
	it, err := w.Bodies.Hydrate(ctx, item, w.Parts...)
	switch {
	case errors.Is(err, store.ErrBodyGone):
		return work.Output{}, failure.Wrap(work.NotFound, err,
			"the item's stored input expired; replay it from the stage that wrote it (a document: --mode full_restart)")
	case errors.Is(err, store.ErrBodyCorrupt), errors.Is(err, store.ErrNoBodyStore):
		return work.Output{}, failure.Wrap(work.InternalBug, err, "the item's stored input cannot be used")
	case err != nil:
		return work.Output{}, err
	}
	return w.Inner.Run(ctx, it, d)
}
