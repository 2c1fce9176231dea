package state

import (
	"context"
	"sync"
	"time"

	"github.com/triagehq/triage/shared/pipeline"
)

// Counter counts items by state and stage (ItemIndex, Memory).
type Counter interface {
	Count(ctx context.Context, q CountQuery) (Counts, error)
}

// DefaultTallyGrace is Tally.Grace's default.
const DefaultTallyGrace = 5 * time.Minute

// Tally counts every state for a reader that asks again and again — the
// console's overview, `make up`'s status line — at a cost that does not
// grow with the done items. The states an item leaves are counted afresh
// each time (their partitions hold what is in flight). Done is the one
// state an item never leaves (Transitions) and its items never change, so
// the done items last written before a watermark are a fixed number: the
// Tally counts them once, then each time only the done items written since
// the watermark, which it moves forward to Grace before now. Every figure
// is read from the index, none is a delta kept in memory: a new Tally (a
// restarted reader) counts the same.
type Tally struct {
	Index Counter
	// Grace is how long after its updated_at a done item may still appear
	// in the index for the first time: the index's propagation, a writer's
	// clock behind the reader's, a write retried until its invocation's
	// deadline. Zero is DefaultTallyGrace.
	Grace time.Duration

	mu    sync.Mutex
	until time.Time
	base  map[pipeline.Stage]int
}

func (t *Tally) grace() time.Duration {
	if t.Grace > 0 {
		return t.Grace
	}
	return DefaultTallyGrace
}

// Counts counts every state at every stage at now.
func (t *Tally) Counts(ctx context.Context, now time.Time) (Counts, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var live []State
	for _, s := range States() {
		if s != Done {
			live = append(live, s)
		}
	}
	c, err := t.Index.Count(ctx, CountQuery{States: live})
	if err != nil {
		return nil, err
	}
	done, at := []State{Done}, doneStages()
	cut := now.Add(-t.grace())
	switch {
	case t.until.IsZero():
		old, err := t.Index.Count(ctx, CountQuery{States: done, Stages: at, Before: cut})
		if err != nil {
			return nil, err
		}
		t.base, t.until = old[Done], cut
	case cut.Sub(t.until) >= t.grace():
		more, err := t.Index.Count(ctx, CountQuery{States: done, Stages: at, Since: t.until, Before: cut})
		if err != nil {
			return nil, err
		}
		base := map[pipeline.Stage]int{}
		for st, n := range t.base {
			base[st] = n
		}
		for st, n := range more[Done] {
			base[st] += n
		}
		t.base, t.until = base, cut
	}
	recent, err := t.Index.Count(ctx, CountQuery{States: done, Stages: at, Since: t.until})
	if err != nil {
		return nil, err
	}
	for _, st := range doneStages() {
		c.Add(Done, st, t.base[st]+recent.Of(Done, st))
	}
	return c, nil
}

// doneStages are the stages a done item can be at: the last one, whose
// success is the only way in (nextAfterSuccess).
func doneStages() []pipeline.Stage {
	stages := pipeline.Stages()
	return stages[len(stages)-1:]
}
