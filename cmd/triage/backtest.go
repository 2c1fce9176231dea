package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/triagehq/triage/dev/simulate"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
)

func init() {
	commands["backtest"] = command{"replay a recorded error log through a retry profile: what would change", runBacktest}
}

// errorLogSource reads the ErrorLog table; *store.ErrorLogReader is one.
type errorLogSource interface {
	Between(ctx context.Context, since, until time.Time, fn func(store.LogEntry) error) error
}

// newErrorLogSource connects to the ErrorLog table the stack flags name;
// tests replace it with a fake.
var newErrorLogSource = func(ctx context.Context, f *stackFlags) (errorLogSource, error) {
	c, err := f.connect(ctx, needs{errorLog: true})
	if err != nil {
		return nil, err
	}
	return c.errorLog(), nil
}

// backtestClock is the clock --since durations count back from.
var backtestClock clock.Clock = clock.System{}

func runBacktest(stdin io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("backtest", "backtest [--retry-profile NAME] [--json] [--detail] [FILE...]\n"+
		"       triage backtest (--stack NAME | --errorlog-table NAME) [--endpoint URL] [--since T] [--until T] [--retry-profile NAME]\n\n"+
		"Replays recorded failures — an ErrorLog export (JSON lines or a JSON array of item_id, stage,\n"+
		"error_class, message, attempt, occurred_at, decision, retryable, and provider, status and code,\n"+
		"which `triage rules test` reads) from FILEs or stdin, or the\n"+
		"ErrorLog table itself (with --stack or --errorlog-table; with neither and no FILE, stdin is read) —\n"+
		"through a retry profile, and reports per error class what would have\n"+
		"changed: retries saved or added, items dead-lettered earlier or instead of completing, items\n"+
		"that might have completed, time to outcome. Failures are taken as keyed to the call: the\n"+
		"candidate's n-th call meets the recorded n-th failure (see simulate.Backtest).\n"+
		"Profiles: "+strings.Join(policy.Profiles(), ", ")+".")
	profileName := fs.String("retry-profile", "standard", "the candidate retry profile")
	detail := fs.Bool("detail", false, "list every item-stage (table) or include them (--json)")
	since := fs.String("since", "720h", "table: the oldest failure, an age (7d, 36h) or RFC 3339 (default: the 30-day retention)")
	until := fs.String("until", "", "table: read failures before this time, an age (7d, 36h) or RFC 3339")
	sf := addStackFlags(fs, uses{errorLog: true})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	asJSON := &sf.jsonOut
	profile, err := policy.Lookup(*profileName)
	if err != nil {
		return usageError{err.Error()}
	}
	log, err := readFailureLog(stdin, sf, *since, *until, fs.Args())
	if err != nil {
		return err
	}
	rep := simulate.Backtest(log, profile)
	if *asJSON {
		if !*detail {
			rep.Detail = nil
		}
		return printJSON(stdout, rep)
	}
	if err := simulate.WriteBacktest(stdout, rep); err != nil {
		return err
	}
	if !*detail {
		return nil
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "item\tstage\tfailures\tclass\trecorded\tcandidate\tcalls (recorded → candidate)\t")
	for _, e := range rep.Detail {
		calls := fmt.Sprintf("%d → %d", e.RecordedCalls, e.CandidateCalls)
		switch {
		case e.CandidateCallsMax < 0:
			calls += "..∞"
		case e.CandidateCallsMax > e.CandidateCalls:
			calls += fmt.Sprintf("..%d", e.CandidateCallsMax)
		}
		change := e.Change
		if e.MightComplete {
			change += " (might complete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", cell(e.ItemID), cell(string(e.Stage)), e.Failures, cell(string(e.Class)), cell(e.Recorded), cell(change), calls)
	}
	return tw.Flush()
}

// readFailureLog reads recorded failures as `triage backtest` does: the
// ErrorLog table in [since, until) when sf names it (--stack or
// --errorlog-table) and no file is given, else the exports in files, else
// an export on stdin.
func readFailureLog(stdin io.Reader, sf *stackFlags, since, until string, files []string) ([]simulate.LoggedFailure, error) {
	var log []simulate.LoggedFailure
	switch {
	case len(files) == 0 && (sf.errorLogTable != "" || sf.stack != ""):
		from, err := backtestTime(since)
		if err != nil {
			return nil, usageError{"--since: " + err.Error()}
		}
		to, err := backtestTime(until)
		if err != nil {
			return nil, usageError{"--until: " + err.Error()}
		}
		ctx := context.Background()
		src, err := newErrorLogSource(ctx, sf)
		if err != nil {
			return nil, err
		}
		err = src.Between(ctx, from, to, func(e store.LogEntry) error {
			log = append(log, simulate.FromLogEntry(e))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read the error log: %w", err)
		}
	case len(files) == 0:
		return simulate.ReadFailures(stdin)
	default:
		for _, path := range files {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			part, err := simulate.ReadFailures(f)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			log = append(log, part...)
		}
	}
	return log, nil
}

// backtestTime reads a time as every command does (parseWhen: an age back
// from backtestClock's now, a date or an RFC 3339 time); "" is the zero
// time (unbounded).
func backtestTime(s string) (time.Time, error) { return parseWhen(s, backtestClock.Now()) }
