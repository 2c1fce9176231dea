package console

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// refreshTimeout bounds one collection of the aggregates.
const refreshTimeout = 2 * time.Minute

// aggregates are the figures the overview, the dead-letter page and the
// error log's default view share: the reads that grow with the tables
// (bounded, but many requests), taken together.
type aggregates struct {
	At time.Time
	// States are the item counts of every group.
	States []stateRow
	// Dead are the newest GroupLimit dead-lettered items; DeadNote says the
	// limit cut them short, DeadErr that they could not be read.
	Dead     []store.Item
	DeadNote string
	DeadErr  string
	// Entries are the error log of the window from WindowStart (at most
	// LogMaxRead; Partial beyond); WindowErr says it could not be read.
	Entries     []store.LogEntry
	WindowStart time.Time
	Partial     bool
	WindowErr   string
}

// collect reads the aggregates, each part at once.
func (s *Server) collect(ctx context.Context) *aggregates {
	a := &aggregates{At: s.now()}
	parallel(
		func() { a.States = s.countStates(ctx) },
		func() {
			err := s.b.Index.List(ctx, store.ItemQuery{State: work.Deadletter, Limit: GroupLimit}, func(it store.Item) error {
				a.Dead = append(a.Dead, it)
				return nil
			})
			switch {
			case errors.Is(err, store.ErrScanLimit) || len(a.Dead) >= GroupLimit:
				a.DeadNote = fmt.Sprintf("grouped the newest %d dead-lettered items only", len(a.Dead))
			case err != nil:
				a.DeadErr = s.explain(err)
			}
		},
		func() {
			if s.b.Log == nil {
				a.WindowErr = s.missing("errorlog")
				return
			}
			var err error
			if a.Entries, a.WindowStart, a.Partial, err = s.window(ctx, a.At); err != nil {
				a.WindowErr = s.explain(err)
			}
		},
	)
	if a.DeadNote != "" {
		for _, row := range a.States {
			switch {
			case row.Group != store.GroupDeadletter || row.Err != "":
			case row.Total > len(a.Dead):
				a.DeadNote = fmt.Sprintf("grouped the newest %d of the %d dead-lettered items", len(a.Dead), row.Total)
			default:
				a.DeadNote = ""
			}
		}
	}
	return a
}

// current returns the aggregates: read afresh on every call when
// Backend.Refresh is zero; otherwise the last ones read, read again in the
// background once they are older than Refresh (the first call reads them
// itself).
func (s *Server) current(ctx context.Context) *aggregates {
	if s.b.Refresh <= 0 {
		return s.collect(ctx)
	}
	s.mu.Lock()
	a := s.snap
	stale := a != nil && s.now().Sub(a.At) >= s.b.Refresh
	if stale && !s.refreshing {
		s.startRefresh()
	}
	s.mu.Unlock()
	if a != nil {
		return a
	}
	a = s.collect(ctx)
	s.mu.Lock()
	if s.snap == nil || s.snap.At.Before(a.At) {
		s.snap = a
	}
	s.mu.Unlock()
	return a
}

// startRefresh reads the aggregates again in the background; s.mu is held.
// s.background counts the reads under way.
func (s *Server) startRefresh() {
	s.refreshing = true
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.refresh()
	}()
}

// refresh reads the aggregates.
func (s *Server) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	a := s.collect(ctx)
	s.mu.Lock()
	s.snap, s.refreshing = a, false
	s.mu.Unlock()
}

// invalidate makes the next page read the aggregates again, after an
// action changed them.
func (s *Server) invalidate() {
	if s.b.Refresh <= 0 {
		return
	}
	s.mu.Lock()
	if s.snap != nil && !s.refreshing {
		s.startRefresh()
	}
	s.mu.Unlock()
}

// groupItems groups dead-lettered items by the stage that failed and class,
// and returns the newest n that stage and class (when set) select.
func groupItems(dead []store.Item, stage work.Stage, class work.Class, n int) ([]group, []ops.ItemView) {
	byKey := map[[2]string]*group{}
	var recent []ops.ItemView
	for _, it := range dead {
		st, cl := deadStage(it), it.FailureClass()
		k := [2]string{string(st), string(cl)}
		g := byKey[k]
		if g == nil {
			g = &group{Stage: st, Class: cl, Retryable: cl.Retryable(), Example: it.ID}
			byKey[k] = g
		}
		g.Count++
		if it.LastFailureAt.After(g.Newest) {
			g.Newest = it.LastFailureAt
		}
		if len(recent) < n && (stage == "" || stage == st) && (class == "" || class == cl) {
			recent = append(recent, ops.ViewItem(it))
		}
	}
	gs := make([]group, 0, len(byKey))
	for _, g := range byKey {
		gs = append(gs, *g)
	}
	slices.SortFunc(gs, func(a, b group) int {
		return cmp.Or(cmp.Compare(slices.Index(work.Stages(), a.Stage), slices.Index(work.Stages(), b.Stage)),
			cmp.Compare(b.Count, a.Count), cmp.Compare(a.Class, b.Class))
	})
	return gs, recent
}
