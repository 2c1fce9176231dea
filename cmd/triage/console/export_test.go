package console

import "context"

// Collect reads the figures the console keeps for Backend.Refresh, as its
// background refresh does.
func Collect(ctx context.Context, s *Server) { s.collect(ctx) }

// Settle waits until the background reads of the figures started so far
// have ended.
func Settle(s *Server) { s.background.Wait() }
