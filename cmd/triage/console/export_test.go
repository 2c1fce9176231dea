package console

import "context"

// Collect reads the figures the console keeps for Backend.Refresh, as its
// background refresh does.
func Collect(ctx context.Context, s *Server) { s.collect(ctx) }
