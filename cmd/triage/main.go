// Command triage is the operator's tool: classify a failure, redact a payload,
// and (against a deployed or local stack) inspect and replay dead letters.
//
//	triage classify [--table] [--rules F] [FILE...]   classify failures (JSON lines on stdin, or files)
//	triage rules check|test FILE           check an operator's rules file; weigh it against the error log
//	triage redact                          sanitize stdin (text or JSON) to stdout
//	triage submit [FILE | --id …]          put items into the pipeline (NDJSON, CSV or flags)
//	triage items|dlq|report|models|breakers …  inspect, replay, resolve, report on a stack
//	triage console                         the same in a browser, on loopback, with a token
//
// Run "triage COMMAND --help" for a command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(stdin io.Reader, stdout io.Writer, args []string) error
}

var commands = map[string]command{
	"classify": {"classify failures and show what triage would decide", runClassify},
	"redact":   {"sanitize stdin (text, JSON or JSON lines) to stdout", runRedact},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and maps its error to an exit code:
// 0 on success, 2 for usage errors, 1 otherwise.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "triage: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	err := cmd.run(stdin, stdout, args[1:])
	var ee exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		printError(stderr, args[0], ee.err)
		return ee.code
	case errors.As(err, new(usageError)):
		printError(stderr, args[0], err)
		return 2
	default:
		printError(stderr, args[0], err)
		return 1
	}
}

// printError writes a command's error, each line through cell: an error
// can quote what an upstream, an item or a DLQ message wrote (an item id, a
// store's answer), and none of it may drive the operator's terminal.
func printError(w io.Writer, cmd string, err error) {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = cell(l)
	}
	fmt.Fprintf(w, "triage %s: %s\n", cmd, strings.Join(lines, "\n"))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: triage COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "triage COMMAND --help" for a command's flags.`)
}

// exitError is an error with its own exit code (triage submit's partial
// failure is 3).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }

// usageError marks a bad flag or argument: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// flagOutput receives flag errors and --help text; stdout stays clean for
// machine-readable output.
var flagOutput io.Writer = os.Stderr

// noteOutput receives what a command says beside machine-readable output
// (a --json list cut at its --limit says so here).
var noteOutput io.Writer = os.Stderr

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// newFlagSet returns a FlagSet that reports errors instead of exiting, with
// a usage line naming the command.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	out := flagOutput
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: triage %s\n\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{strings.TrimSpace(err.Error())}
	}
	return nil
}
