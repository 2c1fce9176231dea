package console

import (
	"context"
	"time"
)

// SectionTimes times each of the overview's reads alone, for the local
// stack's benchmark to say where a page's time goes.
func SectionTimes(ctx context.Context, s *Server) map[string]time.Duration {
	out := map[string]time.Duration{}
	timeIt := func(name string, fn func()) {
		start := time.Now()
		fn()
		out[name] = time.Since(start)
	}
	now := s.now()
	timeIt("states (scans and index)", func() { s.countStates(ctx, "") })
	timeIt("dead-letter groups (index)", func() { _, _, _, _ = s.groups(ctx, "", "", 10) })
	timeIt("error-log window (chart, budget)", func() { _, _, _, _ = s.window(ctx, now) })
	timeIt("DLQ depth", func() { s.depth(ctx) })
	if s.b.Breakers != nil {
		timeIt("breakers", func() { _, _ = s.b.Breakers.List(ctx) })
	}
	if s.b.Models != nil {
		timeIt("models", func() { _, _ = s.b.Models.List(ctx) })
	}
	return out
}
