package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

func init() {
	commands["items"] = command{"inspect and replay items (items get|list|replay)", runItems}
}

func runItems(_ io.Reader, stdout io.Writer, args []string) error {
	return dispatchVerb("items", map[string]verbCmd{
		"get":    {"show one item: status, state, attempts per stage, last error, replays, its enrichment, and its timeline", runItemsGet},
		"list":   {"list items by state (and stage, class, failure time)", runItemsList},
		"replay": {"replay permanent failures by id or filter, with or without a DLQ message", runItemsReplay},
	}, stdout, args)
}

func bodyText(ref *work.BodyRef) string {
	if ref == nil {
		return "on the item"
	}
	if ref.Store == store.StoreS3 {
		return fmt.Sprintf("%d bytes in S3 (%s)", ref.Bytes, ref.Key)
	}
	return fmt.Sprintf("%d bytes in the Bodies table", ref.Bytes)
}

func attemptsText(a map[work.Stage]int) string {
	parts := make([]string, 0, len(work.Stages()))
	for _, st := range work.Stages() {
		parts = append(parts, fmt.Sprintf("%s=%d", st, a[st]))
	}
	return strings.Join(parts, " ")
}

func printItem(w io.Writer, v ops.ItemView) error {
	tw := newTable(w, "FIELD", "VALUE")
	addRow(tw, "status", fmt.Sprintf("%s (%d%%)", v.Status, v.Progress))
	addRow(tw, "state", fmt.Sprintf("%s at %s", v.State, v.Stage))
	addRow(tw, "enrichment_status", orDash(string(v.EnrichmentStatus)))
	addRow(tw, "attempts", attemptsText(v.Attempts))
	addRow(tw, "attempts_spent", attemptsText(v.AttemptsSpent)+" (failed, counted by the retry budget)")
	addRow(tw, "failure_count", failureCountText(v))
	if le := v.LastError; le != nil {
		addRow(tw, "last_error", fmt.Sprintf("%s at %s (%s, attempt %d of %d, retryable %s)", le.ErrorClass, le.Component,
			console.Time(le.FailedAt), le.RetryCount, le.MaxRetries, console.YesNo(le.Retryable)))
		addRow(tw, "last_error.error", le.Error)
		if le.RetryAt != nil {
			addRow(tw, "last_error.retry_at", console.Time(*le.RetryAt))
		}
	}
	addRow(tw, "failures", failuresText(v))
	if !v.NotBefore.IsZero() {
		addRow(tw, "not_before", console.Time(v.NotBefore))
	}
	if d := v.DeadLetter; d != nil {
		addRow(tw, "dead_letter", fmt.Sprintf("%s %s at %s, %s, escalated %s", d.ID, d.Class, d.Stage, console.Time(d.At), console.YesNo(d.Escalated)))
	}
	addRow(tw, "replays", listCount(v.ReplayCount, len(v.Replays)))
	first := v.ReplayCount - len(v.Replays)
	for i, r := range v.Replays {
		addRow(tw, fmt.Sprintf("replay %d", first+i+1), fmt.Sprintf("%s by %s, %s from %s (failed at %s, %s): %s",
			console.Time(r.At), r.By, r.Mode, r.FromStage, orDash(string(r.FailedStage)), orDash(string(r.Class)), r.Note))
	}
	if v.NoteCount > 0 {
		addRow(tw, "notes", listCount(v.NoteCount, len(v.Notes)))
	}
	first = v.NoteCount - len(v.Notes)
	for i, n := range v.Notes {
		addRow(tw, fmt.Sprintf("note %d", first+i+1), fmt.Sprintf("%s by %s: %s", console.Time(n.At), orDash(n.By), n.Text))
	}
	if d := v.Document; d != nil {
		addRow(tw, "document", fmt.Sprintf("%s, sha256 %s, %s, fetched %s", orDash(d.ContentType), shortHash(d.SHA256),
			bodyText(d.Body), console.Time(d.FetchedAt)))
	}
	if e := v.Enrichment; e != nil {
		ref := v.EnrichmentRef
		if ref == nil {
			ref = e.Body
		}
		addRow(tw, "enrichment", fmt.Sprintf("model %s, %s, enriched %s", e.Model, bodyText(ref), console.Time(e.EnrichedAt)))
		if e.Body == nil {
			addRow(tw, "enrichment.category", fmt.Sprintf("%s (severity %s, actor %s)", orDash(e.Category), orDash(e.Severity), orDash(e.PrimaryActor)))
			addRow(tw, "enrichment.summary", e.SummaryNeutral)
		}
	}
	if v.BodyError != "" {
		addRow(tw, "bodies", "not read back: "+v.BodyError)
	}
	if r := v.Resolution; r != nil {
		addRow(tw, "resolved", fmt.Sprintf("%s by %s (%s dead letter on the %s DLQ): %s", console.Time(r.At), r.By, orDash(string(r.Class)), r.Stage, r.Note))
	}
	if len(v.Metadata) > 0 {
		keys := slices.Sorted(maps.Keys(v.Metadata))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + v.Metadata[k]
		}
		addRow(tw, "metadata", strings.Join(parts, " "))
	}
	addRow(tw, "notices", noticesText(v.Notices))
	addRow(tw, "correlation_id", v.CorrelationID)
	addRow(tw, "updated_at", console.Time(v.UpdatedAt))
	if err := tw.Flush(); err != nil {
		return err
	}
	if v.Timeline != nil {
		return printTimeline(w, *v.Timeline, v.TimelineGaps)
	}
	return nil
}

// failureCountText is failure_count with what it counts: the failures
// since the item's last success (or its replay).
func failureCountText(v ops.ItemView) string {
	if v.FailureCount == 0 && !v.LastFailureAt.IsZero() {
		return "0 since the last success"
	}
	return strconv.Itoa(v.FailureCount)
}

// failuresText is the span of the current run of failures; an item whose
// last success came after its failures has none, and says when the last
// one was.
func failuresText(v ops.ItemView) string {
	switch {
	case v.LastFailureAt.IsZero():
		return "none"
	case v.FailureCount == 0 && v.FirstFailureAt.IsZero():
		return fmt.Sprintf("none since the last success (the last at %s; the timeline has them all)", console.Time(v.LastFailureAt))
	}
	return fmt.Sprintf("first %s, last %s", console.Time(v.FirstFailureAt), console.Time(v.LastFailureAt))
}

func noticesText(n store.Notices) string {
	var on []string
	if n.Failed {
		on = append(on, "item.failed")
	}
	if n.RetryScheduled {
		on = append(on, "item.retry_scheduled")
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ", ")
}

// printTimeline prints the stages, then the events in time order.
func printTimeline(w io.Writer, tl ledger.Timeline, gaps []string) error {
	fmt.Fprintln(w, "\ntimeline")
	return tl.Write(w, gaps)
}

// timeline reads the item's error log and audit trail where their tables
// are known (ops.Timeline).
func timeline(ctx context.Context, c *stackConn, it store.Item) (*ledger.Timeline, []string) {
	src := ops.TimelineSources{Explain: c.explain,
		LogMissing: "pass --stack or --errorlog-table", TrailMissing: "pass --stack or --audit-table"}
	if c.errorLogTable != "" {
		src.Log = c.errorLog()
	}
	if c.auditTable != "" {
		src.Trail = c.auditTrail()
	}
	return ops.Timeline(ctx, it, src)
}

func runItemsGet(stdout io.Writer, args []string) error {
	fs := newFlagSet("items get", "items get ID [--text] [--json]\n\n"+
		"Shows the item, its enrichment (read back from the Bodies table or bucket) and\n"+
		"its timeline: attempts per stage, failures, waits and parks (the error log),\n"+
		"action executions and the owner's notices (the audit trail), replays, notes,\n"+
		"the dead letter and the delivery (the item), in time order. --text also\n"+
		"prints the fetched document.")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, audit: true})
	text := fs.Bool("text", false, "also read back and print the fetched document's text")
	id, err := parseOneID(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true})
	if err != nil {
		return err
	}
	items := c.items()
	it, err := items.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("item %q does not exist", id)
	}
	if err != nil {
		return c.explain(err)
	}
	v := ops.ViewItem(it)
	ops.HydrateView(ctx, items, it, &v, *text)
	v.Timeline, v.TimelineGaps = timeline(ctx, c, it)
	if aw.jsonOut {
		return printJSON(stdout, v)
	}
	fmt.Fprintf(stdout, "item %s (%s)\n", cell(it.ID), cell(string(it.Kind)))
	if err := printItem(stdout, v); err != nil {
		return err
	}
	if *text && v.Document != nil && v.Document.Body == nil {
		// The document is an upstream's: each line escaped as a cell is, its
		// line breaks kept.
		lines := strings.Split(v.Document.Text, "\n")
		for i, l := range lines {
			lines[i] = cell(l)
		}
		fmt.Fprintf(stdout, "\n== document text\n%s\n", strings.Join(lines, "\n"))
	}
	return nil
}

// listCount renders a count of which the item keeps only the last shown.
func listCount(total, shown int) string {
	if total > shown {
		return fmt.Sprintf("%d (the last %d shown; all are in the error log: triage dlq show ID)", total, shown)
	}
	return strconv.Itoa(total)
}

func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return orDash(h)
}

func runItemsList(stdout io.Writer, args []string) error {
	fs := newFlagSet("items list", "items list [--state S] [--stage S] [--class C] [--since 7d] [--limit N | --all] [--json]\n\n"+
		"Lists items newest first (failed, dead-lettered and done ones by when that happened,\n"+
		"the others by their creation) through the Items table's by-listed-state index, which\n"+
		"holds every item; without --state, every state. At most --limit items; when there\n"+
		"are more it says how many (\"showing 100 of 2345\"), and --all lists every one. An\n"+
		"item that moves while the list is read is listed once, as it is now.")
	aw := addStackFlags(fs, uses{items: true})
	st := fs.String("state", "", "queued, working, retryable, failed, deadletter or done (default: all)")
	stage := fs.String("stage", "", "keep items at this stage")
	classes := fs.String("class", "", "keep items whose last failure has one of these classes")
	since := fs.String("since", "", "keep items whose last failure is at or after: an age (7d) or RFC 3339")
	limit := fs.Int("limit", 100, "list at most N items")
	all := fs.Bool("all", false, "list every matching item (no --limit)")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	q := store.ItemQuery{Limit: *limit}
	if *st == "" {
		q.States = work.States()
	} else {
		s := work.State(*st)
		if !slices.Contains(work.States(), s) {
			return usageError{fmt.Sprintf("--state %q is not one of queued, working, retryable, failed, deadletter, done", *st)}
		}
		q.State = s
	}
	var err error
	if *stage != "" {
		if q.Stage, err = work.ParseStage(*stage); err != nil {
			return usageError{"--stage: " + err.Error()}
		}
	}
	cls, err := replay.ParseClasses(*classes)
	if err != nil {
		return usageError{"--class: " + err.Error()}
	}
	q.Classes = []work.Class(cls)
	if q.Since, err = parseWhen(*since, time.Now()); err != nil {
		return usageError{"--since: " + err.Error()}
	}
	switch {
	case *all && flagSet(fs, "limit"):
		return usageError{"give --limit or --all, not both"}
	case *all:
		q.Limit, q.MaxScan = -1, -1
	case *limit <= 0:
		return usageError{"--limit must be positive"}
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true})
	if err != nil {
		return err
	}
	p := newProgressBar("items")
	var views []ops.ItemView
	err = c.index().List(ctx, q, func(it store.Item) error {
		views = append(views, ops.ViewItem(it))
		p.update(len(views), 0, "")
		return nil
	})
	p.done()
	if err != nil {
		return c.explain(err)
	}
	footer, cut := fmt.Sprintf("%d items", len(views)), false
	if !*all && len(views) >= *limit {
		total, exact, err := countItems(ctx, c.index(), q)
		if err != nil {
			return c.explain(err)
		}
		switch {
		case exact && total > len(views):
			footer, cut = fmt.Sprintf("showing %d of %d items, newest first (--limit N or --all for more)", len(views), total), true
		case !exact:
			footer, cut = fmt.Sprintf("showing %d of at least %d items, newest first (--limit N or --all for more)", len(views), total), true
		}
	}
	if aw.jsonOut {
		if cut {
			fmt.Fprintln(noteOutput, "triage items list: "+footer)
		}
		return printJSON(stdout, ops.NonNil(views))
	}
	tw := newTable(stdout, "ITEM", "STATE", "STAGE", "STATUS", "PROGRESS", "ATTEMPTS", "CLASS", "LAST_FAILURE", "REPLAYS", "UPDATED")
	for _, v := range views {
		class := ""
		if v.LastError != nil {
			class = string(v.LastError.ErrorClass)
		}
		addRow(tw, v.ID, v.State, v.Stage, v.Status, fmt.Sprintf("%d%%", v.Progress), attemptsText(v.Attempts), orDash(class),
			console.Time(v.LastFailureAt), v.ReplayCount, console.Time(v.UpdatedAt))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, footer)
	return nil
}

// countItems counts the items q selects: the index's count of its groups
// when q asks for whole groups (every state a group holds; queued and
// working share one) and filters on nothing else, exact; else the matches of
// a listing bounded by store.DefaultMaxScan reads (exact unless the bound
// was reached: then at least that many).
func countItems(ctx context.Context, x *store.ItemIndex, q store.ItemQuery) (int, bool, error) {
	states := slices.Clone(q.States)
	if q.State != "" {
		states = append(states, q.State)
	}
	var groups []store.Group
	whole := q.Stage == "" && !q.Filtered()
	for _, s := range states {
		g := store.GroupOf(s)
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		for _, held := range g.States() {
			whole = whole && slices.Contains(states, held)
		}
	}
	if whole {
		c, err := x.Count(ctx, store.CountQuery{Groups: groups})
		return c.All(), true, err
	}
	q.Limit, q.MaxScan = -1, 0
	n := 0
	err := x.List(ctx, q, func(store.Item) error { n++; return nil })
	if errors.Is(err, store.ErrScanLimit) {
		return n, false, nil
	}
	return n, true, err
}

func runItemsReplay(stdout io.Writer, args []string) error {
	fs := newFlagSet("items replay", "items replay ID... --note TEXT [--mode M] [--dry-run] [--json]\n"+
		"       triage items replay --all-permanent [filters] --note TEXT [--max N] ...\n\n"+
		"Replays permanent failures (items in deadletter or failed) from their item\n"+
		"state — no DLQ message needed, so this works after the dead letter expired.\n"+
		"By id, or with --all-permanent every one the filters select. Exits 1 if an ID\n"+
		"names no item.")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, queues: true})
	ff := addFilterFlags(fs, false)
	rf := addReplayFlags(fs, "remediation note (required)")
	allPermanent := fs.Bool("all-permanent", false, "replay every permanent failure the filters select")
	pos, _, flt, err := ff.parse(fs, args)
	if err != nil {
		return err
	}
	flt.ItemIDs = append(flt.ItemIDs, pos...)
	switch {
	case len(flt.ItemIDs) == 0 && !*allPermanent:
		return usageError{"name items to replay (IDs or --item), or select them with --all-permanent and filters"}
	case len(flt.ItemIDs) > 0 && *allPermanent:
		return usageError{"give item IDs or --all-permanent, not both"}
	}
	req, err := rf.request(replay.SourceItems, nil, flt)
	if err != nil {
		return err
	}
	return runReplay(stdout, aw, req)
}
