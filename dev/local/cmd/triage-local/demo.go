package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/triagehq/triage/dev/local/demo"
)

// runDemo is `triage-local demo`: the pipeline end to end on the local stack.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", "[flags]", stderr)
	items := fs.Int("items", 50, "stories to seed")
	seed := fs.Uint64("seed", 1, "seed of the fault mix")
	faults := fs.String("faults", "standard", "fault mix: standard or none (the happy path)")
	timeout := fs.Duration("timeout", 150*time.Second, "bound on the pipeline phase")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	if fs.NArg() > 0 || *items <= 0 || *timeout <= 0 {
		fmt.Fprintln(stderr, "triage-local demo: --items and --timeout must be positive and no arguments are taken")
		return exitUsage
	}
	_, err := demo.Run(ctx, demo.Options{Items: *items, Seed: *seed, Faults: *faults, Timeout: *timeout, Out: stdout,
		Interactive: isTerminal(stdout)})
	if err != nil {
		fmt.Fprintf(stderr, "triage-local demo: %v\n", err)
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return exitFunctionError
	}
	return exitOK
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
