package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses.
const (
	exitOK            = 0
	exitFunctionError = 1
	exitUsage         = 2
	exitSetup         = 3
	exitInterrupted   = 130
)

const usage = `usage: triage-local <command> [flags]

commands:
  invoke   run one function once with one event (like sam local invoke)
  demo     the pipeline end to end: seed stories, faults, retries, dead letters, summary
  up       the local stack, kept running until Ctrl-C, for triage submit and the operator CLI
  rate     the raw SendMessageBatch rate of the local AWS (the baseline of triage submit's)
  volume   10,000 items through the stack make up runs: rate, latency, requests, moto's memory (make test-volume)

run "triage-local <command> -h" for the flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C cancels and cleans up; restoring the default lets a
	// second one end the command at once (on Linux the processes it started
	// die with it).
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command, so tests can call it; every deferred cleanup
// has run when it returns.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "invoke":
		code, err := invoke(ctx, args[1:], stdout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "triage-local: %v\n", err)
		}
		if ctx.Err() != nil && code != exitOK && code != exitFunctionError {
			return exitInterrupted
		}
		return code
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "soak":
		return runSoak(ctx, args[1:], stdout, stderr)
	case "up":
		return runUp(ctx, args[1:], stdout, stderr)
	case "rate":
		return runRate(ctx, args[1:], stdout, stderr)
	case "volume":
		return runVolume(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "triage-local: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
}

// usageError marks errors that are the caller's to fix (exit status 2).
type usageError struct{ err error }

// Error returns the underlying message.
func (e *usageError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error.
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return &usageError{fmt.Errorf(format, args...)} }

func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// newFlags is the flag set of `triage-local CMD`: its errors go to stderr,
// and so does its usage, "usage: triage-local CMD SYNOPSIS" above the
// flags.
func newFlags(cmd, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("triage-local "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: triage-local "+cmd+" "+synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. When that ends the command — --help, or
// a flag fs refuses (already reported) — stop is true and code is the
// command's exit status.
func parseFlags(fs *flag.FlagSet, args []string) (code int, stop bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	return exitOK, false
}
