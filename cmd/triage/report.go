package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
)

func init() {
	commands["report"] = command{"error-log reports (report errors|top-failing|recovery|repeated|budget|resolved|unknown)", runReport}
}

func runReport(_ io.Reader, stdout io.Writer, args []string) error {
	return dispatchVerb("report", map[string]verbCmd{
		"errors":      {"error distribution by class", reportVerb("errors")},
		"top-failing": {"permanent failures with the most failures", reportVerb("top-failing")},
		"recovery":    {"recovery rate by first error class (how often retries succeed)", reportVerb("recovery")},
		"repeated":    {"items with more than --threshold errors (default 3)", reportVerb("repeated")},
		"budget":      {"budget exhaustion timeline: spend, calls, blocked per UTC day", reportVerb("budget")},
		"resolved":    {"dead letters operators closed (triage dlq resolve): who, when, why", reportVerb("resolved")},
		"unknown":     {"failures nothing recognised (UNKNOWN or a status default), grouped by fingerprint", reportVerb("unknown")},
	}, stdout, args)
}

func reportVerb(verb string) func(io.Writer, []string) error {
	return func(stdout io.Writer, args []string) error { return runReportVerb(verb, stdout, args) }
}

func runReportVerb(verb string, stdout io.Writer, args []string) error {
	source := "Reads the error log (30-day retention) through its by-class index."
	if verb == "resolved" {
		source = "Reads the resolutions in the error log (30-day retention) through its by-class index."
	}
	if verb == "unknown" {
		source = "Groups the failures nothing recognised — UNKNOWN, or a class only a default by status\n" +
			"decided — by fingerprint: the provider, stage, status and the error text with ids, numbers,\n" +
			"hex, UUIDs, timestamps, addresses, URLs' variable parts and quoted values stripped\n" +
			"(docs/design.md \"Reports\"); most failures first, with one redacted sample each. Reads the\n" +
			"error log's unrecognised index alone (30-day retention)."
	}
	if verb == "budget" {
		source = "Reads the budget table (spend, calls and blocked calls per UTC day) and the error log's\n" +
			"BUDGET_EXCEEDED entries (our cap and providers' quotas), one row per UTC day."
	}
	fs := newFlagSet("report "+verb, "report "+verb+" [--since 7d] [--until T] [--json]\n\n"+source)
	aw := addStackFlags(fs, uses{items: true, errorLog: true, budget: true})
	since := fs.String("since", "7d", "start of the window: an age (7d, 36h) or RFC 3339")
	until := fs.String("until", "", "end of the window (default now): an age or RFC 3339")
	limit := fs.Int("limit", report.DefaultTop, "top-failing: rows to show")
	threshold := fs.Int("threshold", report.DefaultRepeatThreshold, "repeated: more than this many errors")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	now := time.Now()
	var w report.Window
	if w.Since, err = parseWhen(*since, now); err != nil {
		return usageError{"--since: " + err.Error()}
	}
	if w.Until, err = parseWhen(*until, now); err != nil {
		return usageError{"--until: " + err.Error()}
	}
	if !w.Until.IsZero() && !w.Since.Before(w.Until) {
		return usageError{"--since must be before --until"}
	}
	if *limit <= 0 || *threshold < 0 {
		return usageError{"--limit must be positive and --threshold not negative"}
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: verb != "errors" && verb != "budget" && verb != "resolved" && verb != "unknown", errorLog: true, budget: verb == "budget"})
	if err != nil {
		return err
	}
	p := newProgressBar("read")
	r := &report.Reporter{Log: c.errorLog(), Progress: func(done, total int) { p.update(done, total, "") }}
	if c.itemsTable != "" {
		r.Items, r.Index = c.items(), c.index()
	}
	if c.budgetTable != "" {
		r.Days = c.budgetDays()
	}
	var rows any
	switch verb {
	case "errors":
		rows, err = r.Errors(ctx, w)
	case "top-failing":
		rows, err = r.TopFailing(ctx, w, *limit)
	case "recovery":
		rows, err = r.Recovery(ctx, w)
	case "repeated":
		rows, err = r.Repeated(ctx, w, *threshold)
	case "budget":
		rows, err = r.Budget(ctx, w, now)
	case "unknown":
		rows, err = r.Unknown(ctx, w)
	case "resolved":
		var rs []store.Resolution
		err = c.errorLog().Resolutions(ctx, w.Since, w.Until, func(res store.Resolution) error {
			rs = append(rs, res)
			return nil
		})
		rows = ops.NonNil(rs)
	}
	p.done()
	if err != nil {
		return c.explain(err)
	}
	if aw.jsonOut {
		return printJSON(stdout, rows)
	}
	switch rs := rows.(type) {
	case []report.ClassRow:
		return printTable(stdout, []string{"CLASS", "ERRORS", "ITEMS", "AVG_ATTEMPT", "FIRST_SEEN", "LAST_SEEN"}, rs, func(r report.ClassRow) []any {
			return []any{r.Class, r.Errors, r.Items, fmt.Sprintf("%.1f", r.AvgAttempt), console.Time(r.FirstSeen), console.Time(r.LastSeen)}
		})
	case []report.FailingItem:
		return printTable(stdout, []string{"ITEM", "STATE", "STAGE", "FAILURES", "ERRORS_IN_WINDOW", "CLASS", "LAST_FAILURE", "REPLAYS", "LAST_ERROR"}, rs, func(r report.FailingItem) []any {
			return []any{r.ItemID, r.State, r.Stage, r.FailureCount, r.Errors, orDash(string(r.Class)), console.Time(r.LastFailure), r.Replays, orDash(r.LastError)}
		})
	case []report.RecoveryRow:
		return printTable(stdout, []string{"FIRST_CLASS", "ITEMS", "RECOVERED", "RECOVERED_PCT"}, rs, func(r report.RecoveryRow) []any {
			return []any{r.Class, r.Items, r.Recovered, fmt.Sprintf("%.1f%%", r.Percent)}
		})
	case []report.RepeatedItem:
		tw := newTable(stdout, "ITEM", "ERRORS", "CLASSES", "LAST_CLASS", "LAST_ERROR_AT", "STATE")
		for _, r := range rs {
			cls := make([]string, len(r.Classes))
			for i, c := range r.Classes {
				cls[i] = string(c)
			}
			addRow(tw, r.ItemID, r.Errors, strings.Join(cls, ","), r.LastClass, console.Time(r.LastErrorAt), orDash(string(r.State)))
		}
		return tw.Flush()
	case []store.Resolution:
		if err := printTable(stdout, []string{"RESOLVED_AT", "BY", "ITEM", "DLQ", "CLASS", "DEAD_LETTER", "MESSAGE_ID", "NOTE"}, rs, func(r store.Resolution) []any {
			return []any{console.Time(r.At), r.By, r.ItemID, r.Stage, orDash(string(r.Class)), orDash(r.DeadLetterID), r.MessageID, r.Note}
		}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d dead letters resolved\n", len(rs))
		return nil
	case []report.UnknownRow:
		return printUnknown(stdout, rs)
	case []report.BudgetRow:
		return printTable(stdout, []string{"DAY", "SPEND_USD", "CAP_USD", "CALLS", "BLOCKED", "BUDGET_ERRORS", "ITEMS_BLOCKED"}, rs, func(r report.BudgetRow) []any {
			return []any{r.Day, r.Spend, r.Cap, r.Calls, r.Blocked, r.BudgetErrors, r.ItemsBlocked}
		})
	}
	return nil
}

// printUnknown writes the unknown report: a row per fingerprint, its
// sample on the next line, then a count.
func printUnknown(w io.Writer, rows []report.UnknownRow) error {
	tw := newTable(w, "FINGERPRINT", "COUNT", "ITEMS", "PROVIDER", "STAGE", "STATUS", "CLASSES", "FIRST_SEEN", "LAST_SEEN", "SHAPE")
	failures := 0
	for _, r := range rows {
		failures += r.Count
		cls := make([]string, len(r.Classes))
		for i, c := range r.Classes {
			cls[i] = string(c)
		}
		status := "-"
		if r.Status != 0 {
			status = fmt.Sprint(r.Status)
		}
		addRow(tw, r.ID, r.Count, r.Items, orDash(string(r.Provider)), orDash(string(r.Stage)), status, strings.Join(cls, ","),
			console.Time(r.FirstSeen), console.Time(r.LastSeen), r.Shape)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s sample: %s\n", r.ID, cell(r.Sample))
	}
	fmt.Fprintf(w, "%s of %s nothing recognised\n", plural(len(rows), "family", "families"), plural(failures, "failure", "failures"))
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
