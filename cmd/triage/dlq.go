package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func init() {
	commands["dlq"] = command{"list, show, replay, annotate and resolve dead letters (dlq list|show|replay|annotate|resolve)", runDLQ}
}

// verbCmd is one verb of a command group.
type verbCmd struct {
	summary string
	run     func(stdout io.Writer, args []string) error
}

// dispatchVerb runs the verb args[0] of group, or prints the group's usage.
func dispatchVerb(group string, subs map[string]verbCmd, stdout io.Writer, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(flagOutput, "usage: triage %s VERB [flags]\n\nverbs:\n", group)
		for _, n := range slices.Sorted(maps.Keys(subs)) {
			fmt.Fprintf(flagOutput, "  %-12s %s\n", n, subs[n].summary)
		}
		fmt.Fprintf(flagOutput, "\nRun \"triage %s VERB --help\" for a verb's flags.\n", group)
		if len(args) == 0 {
			return usageError{"a verb is required"}
		}
		return flag.ErrHelp
	}
	sub, ok := subs[args[0]]
	if !ok {
		return usageError{fmt.Sprintf("unknown verb %q (run \"triage %s --help\")", args[0], group)}
	}
	return sub.run(stdout, args[1:])
}

func runDLQ(_ io.Reader, stdout io.Writer, args []string) error {
	return dispatchVerb("dlq", map[string]verbCmd{
		"list":     {"list dead letters (filters; --by-class for counts)", runDLQList},
		"show":     {"show a dead letter's payload and its item's history", runDLQShow},
		"replay":   {"replay dead letters from the stage that failed (or a full restart)", runDLQReplay},
		"annotate": {"record an operator note on an item and its dead letters", runDLQAnnotate},
		"resolve":  {"close dead letters that will not be replayed, with a note (recorded, then deleted)", runDLQResolve},
	}, stdout, args)
}

// multiFlag collects a repeatable (or comma-separated) flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }

func (m *multiFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*m = append(*m, p)
		}
	}
	return nil
}

// filterFlags are the dead-letter filter flags.
type filterFlags struct {
	dlq, classes, stage, since, before, retryable string
	items                                         multiFlag
}

func addFilterFlags(fs *flag.FlagSet, withDLQ bool) *filterFlags {
	f := &filterFlags{}
	if withDLQ {
		fs.StringVar(&f.dlq, "dlq", "all", "DLQs to read: all, or stages (fetch,llm,notify)")
	}
	fs.StringVar(&f.classes, "class", "", "keep these error classes (comma-separated, e.g. RATE_LIMITED,NETWORK_TIMEOUT)")
	fs.StringVar(&f.stage, "stage", "", "keep dead letters of items that failed at this stage")
	fs.Var(&f.items, "item", "keep this item id (repeatable or comma-separated)")
	fs.StringVar(&f.since, "since", "", "keep failures at or after this time: an age (7d, 36h) or RFC 3339")
	fs.StringVar(&f.before, "before", "", "keep failures before this time: an age (2d) or RFC 3339")
	fs.StringVar(&f.retryable, "retryable", "", "keep only retryable (true) or only permanent (false) classes")
	return f
}

// selects reports whether flt keeps fewer than every dead letter. It reads
// the filter built, not the flags' text: a flag given a value that names
// nothing (--class " ", --item ",") selects nothing out.
func selects(flt replay.Filter) bool {
	return len(flt.ErrorClass) > 0 || flt.Stage != "" || len(flt.ItemIDs) > 0 || !flt.FailedSince.IsZero() ||
		!flt.FailedBefore.IsZero() || flt.Retryable != nil || flt.Backstop
}

// parse parses args into fs and builds the filter: the positional
// arguments, the DLQs and the filter.
func (f *filterFlags) parse(fs *flag.FlagSet, args []string) ([]string, replay.Stages, replay.Filter, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, nil, replay.Filter{}, err
	}
	dlqs, flt, err := f.build(time.Now())
	return pos, dlqs, flt, err
}

// replayFlags are the flags of the replay commands (dlq replay, items
// replay).
type replayFlags struct {
	note, by, mode *string
	max            *int
	dry            *bool
}

func addReplayFlags(fs *flag.FlagSet, noteHelp string) *replayFlags {
	return &replayFlags{
		note: fs.String("note", "", noteHelp),
		by:   fs.String("by", whoAmI(), "who replays"),
		mode: fs.String("mode", string(store.FromFailedStage), "from_failed_stage or full_restart"),
		max:  fs.Int("max", 0, "replay at most N (0: no limit)"),
		dry:  fs.Bool("dry-run", false, "report what would be replayed; change nothing"),
	}
}

// request is the replay of src's records that flt selects, checked.
func (f *replayFlags) request(src replay.Source, dlqs replay.Stages, flt replay.Filter) (replay.Request, error) {
	m, err := store.ParseReplayMode(*f.mode)
	if err != nil {
		return replay.Request{}, usageError{"--mode: " + err.Error()}
	}
	req := replay.Request{Source: src, DLQs: dlqs, Filter: flt, Mode: m, Note: *f.note, By: *f.by, Max: *f.max, DryRun: *f.dry}
	if err := req.Validate(); err != nil {
		return replay.Request{}, usageError{err.Error()}
	}
	return req, nil
}

// dryRunNote is what a summary line says of a dry run.
func dryRunNote(dry bool) string {
	if dry {
		return " (dry run: nothing changed)"
	}
	return ""
}

// parseDLQs reads a --dlq flag: all, or stages (fetch,llm,notify).
func parseDLQs(s string) (replay.Stages, error) {
	dlqs, err := replay.ParseStages(s)
	if err != nil {
		return nil, usageError{"--dlq: " + err.Error()}
	}
	return dlqs, nil
}

func (f *filterFlags) build(now time.Time) (replay.Stages, replay.Filter, error) {
	var (
		flt replay.Filter
		err error
	)
	dlqs, err := parseDLQs(f.dlq)
	if err != nil {
		return nil, flt, err
	}
	if flt.ErrorClass, err = replay.ParseClasses(f.classes); err != nil {
		return nil, flt, usageError{"--class: " + err.Error()}
	}
	if f.stage != "" {
		if flt.Stage, err = work.ParseStage(f.stage); err != nil {
			return nil, flt, usageError{"--stage: " + err.Error()}
		}
	}
	flt.ItemIDs = f.items
	if flt.FailedSince, err = parseWhen(f.since, now); err != nil {
		return nil, flt, usageError{"--since: " + err.Error()}
	}
	if flt.FailedBefore, err = parseWhen(f.before, now); err != nil {
		return nil, flt, usageError{"--before: " + err.Error()}
	}
	if f.retryable != "" {
		b, err := strconv.ParseBool(f.retryable)
		if err != nil {
			return nil, flt, usageError{fmt.Sprintf("--retryable %q is not true or false", f.retryable)}
		}
		flt.Retryable = &b
	}
	return dlqs, flt, nil
}

func runDLQList(stdout io.Writer, args []string) error {
	fs := newFlagSet("dlq list", "dlq list [filters] [--by-class] [--limit N] [--json]\n\n"+
		"Lists the dead letters in the DLQs without changing them (each message is\n"+
		"received and released at once). STATUS says what a replay would do now.")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, queues: true})
	ff := addFilterFlags(fs, true)
	byClass := fs.Bool("by-class", false, "print counts by error class instead of the dead letters")
	limit := fs.Int("limit", 0, "list at most N (0: all)")
	_, dlqs, flt, err := ff.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true, queues: true})
	if err != nil {
		return err
	}
	r := c.replayer(whoAmI())
	p := newProgressBar("scanned")
	r.Progress = func(pr replay.Progress) { p.update(pr.Done, pr.Total, fmt.Sprintf("listed %d", pr.Selected)) }
	l, err := r.ListScan(ctx, replay.ListRequest{DLQs: dlqs, Filter: flt, Limit: *limit})
	p.done()
	if err != nil {
		return c.explain(err)
	}
	dls := l.DeadLetters
	if len(l.Incomplete) > 0 && aw.jsonOut {
		// The JSON is a list; the cut goes to the terminal.
		printIncomplete(noteOutput, false, l.Incomplete, partList)
	}
	if *byClass {
		counts := replay.CountByClass(dls)
		if aw.jsonOut {
			return printJSON(stdout, counts)
		}
		if err := printTable(stdout, []string{"CLASS", "COUNT", "RETRYABLE"}, counts, func(cc replay.ClassCount) []any {
			return []any{orDash(string(cc.Class)), cc.Count, cc.Retryable}
		}); err != nil {
			return err
		}
		printIncomplete(stdout, false, l.Incomplete, partList)
		return nil
	}
	if aw.jsonOut {
		return printJSON(stdout, ops.NonNil(dls))
	}
	tw := newTable(stdout, "DLQ", "ITEM", "CLASS", "STAGE", "ATTEMPTS", "REPLAYS", "ESCALATED", "FAILED_AT", "KIND", "STATUS")
	for _, dl := range dls {
		attempts, replays, esc := "-", "-", "-"
		if p := dl.Payload; p != nil {
			attempts, replays, esc = strconv.Itoa(p.Attempts[p.Stage]), strconv.Itoa(p.Replay.Count), console.YesNo(p.Replay.Escalated)
		}
		addRow(tw, dl.DLQ, orDash(dl.ItemID), orDash(string(dl.Class)), orDash(string(dl.Stage)), attempts, replays, esc,
			console.Time(dl.FailedAt), dl.Kind, orDash(dl.Status))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d dead letters\n", len(dls))
	printIncomplete(stdout, false, l.Incomplete, partList)
	return nil
}

// showOutput is `dlq show --json`.
type showOutput struct {
	DeadLetters []replay.DeadLetter `json:"dead_letters"`
	Item        *ops.ItemView       `json:"item,omitempty"`
	Errors      []store.LogEntry    `json:"errors"`
}

func runDLQShow(stdout io.Writer, args []string) error {
	fs := newFlagSet("dlq show", "dlq show ID [--dlq …] [--json]\n\n"+
		"Shows the dead letters of ID (an item id, a dead_letter_id or a DLQ message id):\n"+
		"the sanitized payload, then the item — state, attempts, last error, replays,\n"+
		"notes — and its error-log history.")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, queues: true})
	dlq := fs.String("dlq", "all", "DLQs to look in: all, or stages (fetch,llm,notify)")
	history := fs.Int("history", 20, "show the item's newest N error-log entries")
	id, err := parseOneID(fs, args)
	if err != nil {
		return err
	}
	dlqs, err := parseDLQs(*dlq)
	if err != nil {
		return err
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true, errorLog: true, queues: true})
	if err != nil {
		return err
	}
	r := c.replayer(whoAmI())
	dls, err := r.List(ctx, replay.ListRequest{DLQs: dlqs, ID: id})
	if err != nil {
		return c.explain(err)
	}
	itemID := id
	if len(dls) > 0 {
		itemID = dls[0].ItemID
	}
	out := showOutput{DeadLetters: ops.NonNil(dls)}
	it, err := c.items().Get(ctx, itemID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return c.explain(err)
	default:
		v := ops.ViewItem(it)
		out.Item = &v
		if out.Errors, err = c.errorLog().ForItem(ctx, itemID, *history); err != nil {
			return c.explain(err)
		}
	}
	if len(dls) == 0 && out.Item == nil {
		return fmt.Errorf("no dead letter or item %q", id)
	}
	if aw.jsonOut {
		out.Errors = ops.NonNil(out.Errors)
		return printJSON(stdout, out)
	}
	for _, dl := range dls {
		fmt.Fprintf(stdout, "== dead letter %s on the %s DLQ (%s, %s)\n", cell(dl.MessageID), cell(string(dl.DLQ)), cell(string(dl.Kind)), cell(orDash(dl.Status)))
		// A message that is neither a payload nor an envelope (a Scheduler
		// run's spec) is shown as its body, the producer's: redacted.
		var err error
		switch {
		case dl.Payload != nil:
			err = printJSON(stdout, dl.Payload)
		case dl.Envelope != nil:
			err = printJSON(stdout, dl.Envelope)
		default:
			_, err = fmt.Fprintln(stdout, cell(string(redact.JSON([]byte(dl.Body())))))
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
	}
	if len(dls) == 0 {
		fmt.Fprintf(stdout, "== no dead letter of %s in the DLQs (expired, replayed or never sent)\n\n", cell(itemID))
	}
	if out.Item == nil {
		fmt.Fprintf(stdout, "== item %s does not exist\n", cell(itemID))
		return nil
	}
	fmt.Fprintf(stdout, "== item %s\n", cell(itemID))
	if err := printItem(stdout, *out.Item); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n== error log (newest %d)\n", *history)
	return printTable(stdout, []string{"AT", "STAGE", "CLASS", "ATTEMPT", "DECISION", "MESSAGE"}, out.Errors, func(e store.LogEntry) []any {
		return []any{console.Time(e.OccurredAt), e.Stage, e.Class, e.Attempt, e.Decision, e.Message}
	})
}

func runDLQReplay(stdout io.Writer, args []string) error {
	fs := newFlagSet("dlq replay", "dlq replay --note TEXT [filters | --all] [--mode M] [--max N] [--dry-run] [--json]\n\n"+
		"Replays the selected dead letters: each item goes back to queued at the stage\n"+
		"that failed (or at fetch with --mode full_restart) with its attempts reset\n"+
		"and the note recorded, its envelope is sent and the dead letter deleted.\n"+
		"Unselected dead letters are released untouched. Without a filter, --all is\n"+
		"required. Exits 1 if any replay failed part-way (run it again to resume), or\n"+
		"an --item ID matched no dead letter (or was not found in a scan cut short).")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, queues: true})
	ff := addFilterFlags(fs, true)
	rf := addReplayFlags(fs, "remediation note: what was fixed (required)")
	all := fs.Bool("all", false, "replay every dead letter in the DLQs (no filter)")
	_, dlqs, flt, err := ff.parse(fs, args)
	if err != nil {
		return err
	}
	// --dlq naming every DLQ ("all", or empty: a script's unset variable)
	// filters nothing.
	if !selects(flt) && len(dlqs) == len(work.Stages()) && !*all {
		return usageError{"refusing to replay every dead letter: give a filter (--class, --stage, --item, --since, --before, --retryable, --dlq) or --all"}
	}
	req, err := rf.request(replay.SourceDLQ, dlqs, flt)
	if err != nil {
		return err
	}
	return runReplay(stdout, aw, req)
}

// runReplay runs req and prints its summary; errors in the summary exit 1.
func runReplay(stdout io.Writer, aw *stackFlags, req replay.Request) error {
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true, queues: true})
	if err != nil {
		return err
	}
	r := c.replayer(req.By)
	p := newProgressBar("scanned")
	r.Progress = p.replay
	sum, err := r.Run(ctx, req)
	p.done()
	if err != nil && len(sum.Items) == 0 {
		return c.explain(err)
	}
	// A run that stopped part-way prints what it did before the error: the
	// dead letters it replayed are gone from the DLQs.
	if err := printSummary(stdout, aw.jsonOut, &sum, &sum.Items,
		[]string{"ITEM", "DLQ", "CLASS", "FAILED_AT_STAGE", "TARGET", "ACTION", "REPLAYS", "REASON"},
		func(o replay.Outcome) []any {
			return []any{o.ItemID, orDash(string(o.DLQ)), orDash(string(o.Class)), orDash(string(o.FailedStage)), orDash(string(o.Target)),
				o.Action, o.ReplayCount, orDash(o.Reason)}
		}, "selected %d, replayed %d, skipped %d, errors %d; scanned %d, released %d%s\n",
		sum.Selected, sum.Replayed, sum.Skipped, sum.Errors, sum.Scanned, sum.Released, dryRunNote(sum.DryRun)); err != nil {
		return err
	}
	printIncomplete(stdout, aw.jsonOut, sum.Incomplete, runAgain)
	if err != nil {
		return c.explain(err)
	}
	if sum.Errors > 0 {
		return fmt.Errorf("%d replays failed part-way; run the same command again to resume them", sum.Errors)
	}
	return replayVerdict(req, sum)
}

// replayVerdict is the error of a replay by id that named what does not
// exist — an id that matches nothing is an error, as it is for `dlq
// resolve`: from item state, an item that does not exist; from the DLQs
// (--item), an item no dead letter was selected for, or, when a scan was
// cut short, one that may be in the part not read.
func replayVerdict(req replay.Request, sum replay.Summary) error {
	var missing []string
	if req.Source == replay.SourceItems {
		for _, o := range sum.Items {
			if o.Action == replay.Skipped && o.Reason == replay.ReasonNoItem && slices.Contains(req.Filter.ItemIDs, o.ItemID) {
				missing = append(missing, o.ItemID)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("no item matches %s", strings.Join(missing, ", "))
		}
		return nil
	}
	for _, id := range req.Filter.ItemIDs {
		if !slices.ContainsFunc(sum.Items, func(o replay.Outcome) bool { return o.ItemID == id }) {
			missing = append(missing, id)
		}
	}
	return unmatched(missing, sum.Incomplete)
}

func runDLQAnnotate(stdout io.Writer, args []string) error {
	fs := newFlagSet("dlq annotate", "dlq annotate ID --note TEXT [--by NAME] [--json]\n\n"+
		"Records an operator note on the item ID names (an item id, dead_letter_id or\n"+
		"DLQ message id) and re-publishes its dead letters with the note appended to\n"+
		"replay.notes.")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, queues: true})
	note := fs.String("note", "", "the note (required)")
	by := fs.String("by", whoAmI(), "who writes it")
	dlq := fs.String("dlq", "all", "DLQs to look in: all, or stages (fetch,llm,notify)")
	id, err := parseOneID(fs, args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(*note) == "" {
		return usageError{"--note is required"}
	}
	dlqs, err := parseDLQs(*dlq)
	if err != nil {
		return err
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true, queues: true})
	if err != nil {
		return err
	}
	r := c.replayer(*by)
	res, err := r.Annotate(ctx, replay.AnnotateRequest{ID: id, DLQs: dlqs, Note: *note, By: *by})
	if err != nil {
		return c.explain(err)
	}
	if aw.jsonOut {
		return printJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "item %s: note recorded %s; %d dead letters re-published with the note", cell(res.ItemID), console.YesNo(res.Item), res.Republished)
	if res.Backstop > 0 {
		fmt.Fprintf(stdout, "; %d raw backstop messages left as they are (they carry no notes)", res.Backstop)
	}
	fmt.Fprintln(stdout)
	printIncomplete(stdout, false, res.Incomplete, "dead letters there may not carry the note")
	if len(res.Errors) > 0 {
		return errors.New(strings.Join(res.Errors, "; "))
	}
	return nil
}

func runDLQResolve(stdout io.Writer, args []string) error {
	fs := newFlagSet("dlq resolve", "dlq resolve [ID...] [filters | --all] --note TEXT [--by NAME] [--dry-run] [--json]\n\n"+
		"Closes dead letters that will not be replayed — a malformed message, an item that\n"+
		"does not exist, an item given up on. Each resolution (note, who, when) is recorded\n"+
		"on the item when the dead letter is an item's, and in the error log in every case\n"+
		"(triage report resolved); then the message is deleted from its DLQ. IDs are item\n"+
		"ids, dead_letter_ids or DLQ message ids (a malformed message has only the last).\n"+
		"Without IDs or a filter, --all is required. Exits 1 if any record failed (those\n"+
		"stay on their DLQ; run the same command again), or an ID matched no dead letter\n"+
		"(or was not found in a scan cut short: run it again).")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, queues: true})
	ff := addFilterFlags(fs, true)
	note := fs.String("note", "", "why the dead letters are closed (required)")
	by := fs.String("by", whoAmI(), "who resolves")
	dry := fs.Bool("dry-run", false, "report what would be resolved; change nothing")
	all := fs.Bool("all", false, "resolve every dead letter in the DLQs (no ids, no filter)")
	pos, dlqs, flt, err := ff.parse(fs, args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(*note) == "" {
		return usageError{"--note is required: say why the dead letters are closed"}
	}
	if len(*note) > store.MaxNoteBytes {
		return usageError{fmt.Sprintf("--note is longer than %d bytes", store.MaxNoteBytes)}
	}
	if len(pos) == 0 && !selects(flt) && !*all {
		return usageError{"name dead letters to resolve (IDs or a filter: --class, --stage, --item, --since, --before, --retryable) or give --all"}
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true, errorLog: true, queues: true})
	if err != nil {
		return err
	}
	r := c.replayer(*by)
	r.ErrorLog = &store.ErrorLog{DB: c.ddb, Table: c.errorLogTable}
	sum, err := r.Resolve(ctx, replay.ResolveRequest{IDs: pos, DLQs: dlqs, Filter: flt, All: *all, Note: *note, By: *by, DryRun: *dry})
	if err != nil && len(sum.Items) == 0 {
		return c.explain(err)
	}
	// A run that stopped part-way prints what it did before the error: the
	// dead letters it resolved are gone from the DLQs.
	if err := printSummary(stdout, aw.jsonOut, &sum, &sum.Items,
		[]string{"ITEM", "DLQ", "CLASS", "KIND", "MESSAGE_ID", "ACTION", "ON_ITEM", "REASON"},
		func(o replay.Resolved) []any {
			return []any{o.ItemID, o.DLQ, orDash(o.Class), o.Kind, o.MessageID, o.Action, console.YesNo(o.OnItem), orDash(o.Reason)}
		}, "selected %d, resolved %d, skipped %d, errors %d; scanned %d%s\n", sum.Selected, sum.Resolved, sum.Skipped, sum.Errors, sum.Scanned,
		dryRunNote(sum.DryRun)); err != nil {
		return err
	}
	printIncomplete(stdout, aw.jsonOut, sum.Incomplete, runAgain)
	if err != nil {
		return c.explain(err)
	}
	if sum.Errors > 0 {
		return fmt.Errorf("%d resolutions could not be recorded; their dead letters stay on the DLQ: run the same command again", sum.Errors)
	}
	return resolveVerdict(sum, pos)
}

// resolveVerdict is the error of a resolve by ids that an id matched no
// dead letter of: that no dead letter matches it when every DLQ was read
// to the end, else that the scan was incomplete — the dead letter may be
// in the part not read.
func resolveVerdict(sum replay.ResolveSummary, ids []string) error {
	var missing []string
	for _, id := range ids {
		if !slices.ContainsFunc(sum.Items, func(o replay.Resolved) bool {
			return o.ItemID == id || o.DeadLetterID == id || o.MessageID == id
		}) {
			missing = append(missing, id)
		}
	}
	return unmatched(missing, sum.Incomplete)
}

// unmatched is the error of ids no dead letter matched: that none matches
// when every DLQ was read to the end, else that the scan was incomplete —
// the dead letter may be in the part not read; nil when none is missing.
func unmatched(missing []string, incomplete replay.Stages) error {
	switch {
	case len(missing) == 0:
		return nil
	case len(incomplete) > 0:
		return fmt.Errorf("no dead letter matching %s was found, but the scan was incomplete (DLQs not read to the end: %s): run the same command again",
			strings.Join(missing, ", "), incomplete)
	}
	return fmt.Errorf("no dead letter matches %s", strings.Join(missing, ", "))
}

// printIncomplete says which DLQs a run did not scan to the end (the JSON
// summary carries them as "incomplete"), and then what to do.
func printIncomplete(stdout io.Writer, asJSON bool, dlqs replay.Stages, then string) {
	if asJSON || len(dlqs) == 0 {
		return
	}
	names := make([]string, len(dlqs))
	for i, st := range dlqs {
		names[i] = string(st)
	}
	fmt.Fprintf(stdout, "DLQs not scanned to the end (out of time or at the message limit): %s; %s\n", strings.Join(names, ", "), then)
}

const (
	// runAgain is what to do about a replay's or a resolve's incomplete DLQs.
	runAgain = "run the same command again for the rest"
	// partList is what a listing's incomplete DLQs mean.
	partList = "what is listed of them is a part"
)

// newTable starts an aligned table with a header.
func newTable(w io.Writer, header ...string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	return tw
}

// printTable writes one row, row(r), for each of rows under header.
func printTable[T any](w io.Writer, header []string, rows []T, row func(T) []any) error {
	tw := newTable(w, header...)
	for _, r := range rows {
		addRow(tw, row(r)...)
	}
	return tw.Flush()
}

func addRow(tw *tabwriter.Writer, cells ...any) {
	parts := make([]string, len(cells))
	for i, c := range cells {
		s := cell(fmt.Sprint(c))
		if r := []rune(s); len(r) > 80 {
			s = string(r[:77]) + "..."
		}
		parts[i] = s
	}
	fmt.Fprintln(tw, strings.Join(parts, "\t"))
}

func printJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonCell(b.Bytes()))
	return err
}

// printSummary prints a run's summary sum: as JSON (its items, *items,
// never null), or as a table of the items with row and a closing line.
func printSummary[T any](stdout io.Writer, asJSON bool, sum any, items *[]T, header []string, row func(T) []any,
	closing string, a ...any) error {
	if asJSON {
		*items = ops.NonNil(*items)
		return printJSON(stdout, sum)
	}
	if err := printTable(stdout, header, *items, row); err != nil {
		return err
	}
	fmt.Fprintf(stdout, closing, a...)
	return nil
}

func orDash(s string) string { return cmp.Or(s, "-") }
