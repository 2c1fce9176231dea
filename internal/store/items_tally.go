package store

import (
	"context"
	"sync"
	"time"
)

// Counter counts items by group (ItemIndex, Memory).
type Counter interface {
	Count(ctx context.Context, q CountQuery) (Counts, error)
}

// DefaultTallyGrace is Tally.Grace's default.
const DefaultTallyGrace = 5 * time.Minute

// Tally counts every group for a reader that asks again and again — the
// console's overview, `make up`'s status line — at a cost that does not
// grow with the done items. The groups an item leaves are counted afresh
// each time (their partitions hold what is in flight or failing). Done is
// the one group an item never leaves (Transitions) and a done item's entry
// never changes, so the done items listed before a watermark are a fixed
// number: the Tally counts them once, then each time only those since the
// watermark, which it moves forward to Grace before now. Every figure is
// read from the index, none is a delta kept in memory: a new Tally (a
// restarted reader) counts the same.
type Tally struct {
	Index Counter
	// Grace is how long after its list_at a done item may still appear in
	// the index for the first time: the index's propagation, a writer's
	// clock behind the reader's, a write retried until its invocation's
	// deadline. Zero is DefaultTallyGrace.
	Grace time.Duration

	mu    sync.Mutex
	until time.Time
	base  int
}

func (t *Tally) grace() time.Duration {
	if t.Grace > 0 {
		return t.Grace
	}
	return DefaultTallyGrace
}

// Counts counts every group at now.
func (t *Tally) Counts(ctx context.Context, now time.Time) (Counts, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var live []Group
	for _, g := range Groups() {
		if g != GroupDone {
			live = append(live, g)
		}
	}
	c, err := t.Index.Count(ctx, CountQuery{Groups: live})
	if err != nil {
		return nil, err
	}
	done := []Group{GroupDone}
	cut := now.Add(-t.grace())
	switch {
	case t.until.IsZero():
		old, err := t.Index.Count(ctx, CountQuery{Groups: done, Before: cut})
		if err != nil {
			return nil, err
		}
		t.base, t.until = old[GroupDone], cut
	case cut.Sub(t.until) >= t.grace():
		more, err := t.Index.Count(ctx, CountQuery{Groups: done, Since: t.until, Before: cut})
		if err != nil {
			return nil, err
		}
		t.base, t.until = t.base+more[GroupDone], cut
	}
	recent, err := t.Index.Count(ctx, CountQuery{Groups: done, Since: t.until})
	if err != nil {
		return nil, err
	}
	c[GroupDone] = t.base + recent[GroupDone]
	return c, nil
}
