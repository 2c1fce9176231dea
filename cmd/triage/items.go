package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/redact"
	"github.com/triagehq/triage/shared/replay"
	"github.com/triagehq/triage/shared/state"
)

func init() {
	commands["items"] = command{"inspect and replay items (items get|list|replay)", runItems}
}

func runItems(_ io.Reader, stdout io.Writer, args []string) error {
	return dispatchVerb("items", map[string]verbCmd{
		"get":    {"show one item: status, progress, state, attempts per stage, last error, replays", runItemsGet},
		"list":   {"list items by state (and stage, class, failure time)", runItemsList},
		"replay": {"replay permanent failures by id or filter, with or without a DLQ message", runItemsReplay},
	}, stdout, args)
}

// itemView is an item as the CLI prints it.
type itemView struct {
	ID               string                 `json:"item_id"`
	Kind             state.Kind             `json:"kind"`
	Status           state.Status           `json:"status"`
	Progress         int                    `json:"progress_pct"`
	State            state.State            `json:"state"`
	Stage            pipeline.Stage         `json:"stage"`
	Attempts         map[pipeline.Stage]int `json:"attempts"`
	EnrichmentStatus state.EnrichmentStatus `json:"enrichment_status,omitempty"`
	FailureCount     int                    `json:"failure_count"`
	LastError        *state.LastError       `json:"last_error,omitempty"`
	FirstFailureAt   time.Time              `json:"first_failure_at,omitzero"`
	LastFailureAt    time.Time              `json:"last_failure_at,omitzero"`
	NotBefore        time.Time              `json:"not_before,omitzero"`
	CorrelationID    string                 `json:"correlation_id"`
	ReplayCount      int                    `json:"replay_count"`
	Replays          []state.ReplayRecord   `json:"replays"`
	Notes            []state.Note           `json:"notes"`
	DeadLetter       *state.DeadLetterRef   `json:"dead_letter,omitempty"`
	Resolution       *state.Resolution      `json:"resolution,omitempty"`
	Metadata         map[string]string      `json:"metadata,omitempty"`
	SourceURL        string                 `json:"source_url,omitempty"`
	WebhookURL       string                 `json:"webhook_url,omitempty"`
	CreatedAt        time.Time              `json:"created_at,omitzero"`
	UpdatedAt        time.Time              `json:"updated_at,omitzero"`
}

func viewItem(it state.Item) itemView {
	attempts := map[pipeline.Stage]int{}
	for _, st := range pipeline.Stages() {
		attempts[st] = it.Attempts[st]
	}
	return itemView{
		ID: it.ID, Kind: it.Kind, Status: it.Status, Progress: it.Status.Progress(), State: it.State, Stage: it.Stage,
		Attempts: attempts, EnrichmentStatus: it.EnrichmentStatus, FailureCount: it.FailureCount, LastError: it.LastError,
		FirstFailureAt: it.FirstFailureAt, LastFailureAt: it.LastFailureAt, NotBefore: it.NotBefore, CorrelationID: it.CorrelationID,
		ReplayCount: it.ReplayCount, Replays: nonNil(it.Replays), Notes: nonNil(it.Notes), DeadLetter: it.DeadLetter,
		Resolution: it.Resolution, Metadata: it.Metadata, SourceURL: redact.String(it.SourceURL), WebhookURL: redact.String(it.WebhookURL),
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

func attemptsText(a map[pipeline.Stage]int) string {
	parts := make([]string, 0, len(pipeline.Stages()))
	for _, st := range pipeline.Stages() {
		parts = append(parts, fmt.Sprintf("%s=%d", st, a[st]))
	}
	return strings.Join(parts, " ")
}

func printItem(w io.Writer, v itemView) error {
	tw := newTable(w, "FIELD", "VALUE")
	addRow(tw, "status", fmt.Sprintf("%s (%d%%)", v.Status, v.Progress))
	addRow(tw, "state", fmt.Sprintf("%s at %s", v.State, v.Stage))
	addRow(tw, "enrichment_status", orDash(string(v.EnrichmentStatus)))
	addRow(tw, "attempts", attemptsText(v.Attempts))
	addRow(tw, "failure_count", v.FailureCount)
	if le := v.LastError; le != nil {
		addRow(tw, "last_error", fmt.Sprintf("%s at %s (%s, attempt %d of %d, retryable %s)", le.ErrorClass, le.Component,
			fmtTime(le.FailedAt), le.RetryCount, le.MaxRetries, yesNo(le.Retryable)))
		addRow(tw, "last_error.error", le.Error)
		if le.RetryAt != nil {
			addRow(tw, "last_error.retry_at", fmtTime(*le.RetryAt))
		}
	}
	addRow(tw, "failures", fmt.Sprintf("first %s, last %s", fmtTime(v.FirstFailureAt), fmtTime(v.LastFailureAt)))
	if !v.NotBefore.IsZero() {
		addRow(tw, "not_before", fmtTime(v.NotBefore))
	}
	if d := v.DeadLetter; d != nil {
		addRow(tw, "dead_letter", fmt.Sprintf("%s %s at %s, %s, escalated %s", d.ID, d.Class, d.Stage, fmtTime(d.At), yesNo(d.Escalated)))
	}
	addRow(tw, "replays", v.ReplayCount)
	for i, r := range v.Replays {
		addRow(tw, fmt.Sprintf("replay %d", i+1), fmt.Sprintf("%s by %s, %s from %s (failed at %s, %s): %s",
			fmtTime(r.At), r.By, r.Mode, r.FromStage, orDash(string(r.FailedStage)), orDash(string(r.Class)), r.Note))
	}
	for i, n := range v.Notes {
		addRow(tw, fmt.Sprintf("note %d", i+1), fmt.Sprintf("%s by %s: %s", fmtTime(n.At), orDash(n.By), n.Text))
	}
	if r := v.Resolution; r != nil {
		addRow(tw, "resolved", fmt.Sprintf("%s by %s (%s dead letter on the %s DLQ): %s", fmtTime(r.At), r.By, orDash(string(r.Class)), r.Stage, r.Note))
	}
	if len(v.Metadata) > 0 {
		keys := slices.Sorted(maps.Keys(v.Metadata))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + v.Metadata[k]
		}
		addRow(tw, "metadata", strings.Join(parts, " "))
	}
	addRow(tw, "correlation_id", v.CorrelationID)
	addRow(tw, "updated_at", fmtTime(v.UpdatedAt))
	return tw.Flush()
}

func runItemsGet(stdout io.Writer, args []string) error {
	fs := newFlagSet("items get", "items get ID [--json]")
	aw := addStackFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"items get takes exactly one ID"}
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true})
	if err != nil {
		return err
	}
	it, err := c.items().Get(ctx, pos[0])
	if errors.Is(err, state.ErrNotFound) {
		return fmt.Errorf("item %q does not exist", pos[0])
	}
	if err != nil {
		return c.explain(err)
	}
	if aw.jsonOut {
		return printJSON(stdout, viewItem(it))
	}
	fmt.Fprintf(stdout, "item %s (%s)\n", cell(it.ID), cell(string(it.Kind)))
	return printItem(stdout, viewItem(it))
}

func runItemsList(stdout io.Writer, args []string) error {
	fs := newFlagSet("items list", "items list [--state S] [--stage S] [--class C] [--since 7d] [--limit N] [--json]\n\n"+
		"Lists items by state through the Items table's by-state index, newest first;\n"+
		"without --state, every state.")
	aw := addStackFlags(fs)
	st := fs.String("state", "", "queued, working, retryable, failed, deadletter or done (default: all)")
	stage := fs.String("stage", "", "keep items at this stage")
	classes := fs.String("class", "", "keep items whose last failure has one of these classes")
	since := fs.String("since", "", "keep items whose last failure is at or after: an age (7d) or RFC 3339")
	limit := fs.Int("limit", 100, "list at most N per state")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	var states []state.State
	if *st == "" {
		states = state.States()
	} else {
		s := state.State(*st)
		found := false
		for _, x := range state.States() {
			found = found || x == s
		}
		if !found {
			return usageError{fmt.Sprintf("--state %q is not one of queued, working, retryable, failed, deadletter, done", *st)}
		}
		states = []state.State{s}
	}
	q := state.ItemQuery{Limit: *limit}
	var err error
	if *stage != "" {
		if q.Stage, err = pipeline.ParseStage(*stage); err != nil {
			return usageError{"--stage: " + err.Error()}
		}
	}
	cls, err := replay.ParseClasses(*classes)
	if err != nil {
		return usageError{"--class: " + err.Error()}
	}
	q.Classes = []failure.Class(cls)
	if q.Since, err = parseWhen(*since, time.Now()); err != nil {
		return usageError{"--since: " + err.Error()}
	}
	if *limit <= 0 {
		return usageError{"--limit must be positive"}
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true})
	if err != nil {
		return err
	}
	p := newProgressBar("items")
	var views []itemView
	for _, s := range states {
		q.State = s
		if err := c.index().List(ctx, q, func(it state.Item) error {
			views = append(views, viewItem(it))
			p.update(len(views), 0, "")
			return nil
		}); err != nil {
			p.done()
			return c.explain(err)
		}
	}
	p.done()
	if aw.jsonOut {
		return printJSON(stdout, nonNil(views))
	}
	tw := newTable(stdout, "ITEM", "STATE", "STAGE", "STATUS", "PROGRESS", "ATTEMPTS", "CLASS", "LAST_FAILURE", "REPLAYS", "UPDATED")
	for _, v := range views {
		class := ""
		if v.LastError != nil {
			class = string(v.LastError.ErrorClass)
		}
		addRow(tw, v.ID, v.State, v.Stage, v.Status, fmt.Sprintf("%d%%", v.Progress), attemptsText(v.Attempts), orDash(class),
			fmtTime(v.LastFailureAt), v.ReplayCount, fmtTime(v.UpdatedAt))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d items\n", len(views))
	return nil
}

func runItemsReplay(stdout io.Writer, args []string) error {
	fs := newFlagSet("items replay", "items replay ID... --note TEXT [--mode M] [--dry-run] [--json]\n"+
		"       triage items replay --all-permanent [filters] --note TEXT [--max N] ...\n\n"+
		"Replays permanent failures (items in deadletter or failed) from their item\n"+
		"state — no DLQ message needed, so this works after the dead letter expired.\n"+
		"By id, or with --all-permanent every one the filters select.")
	aw := addStackFlags(fs)
	ff := addFilterFlags(fs, false)
	note := fs.String("note", "", "remediation note (required)")
	by := fs.String("by", whoAmI(), "who replays")
	mode := fs.String("mode", string(state.FromFailedStage), "from_failed_stage or full_restart")
	maxN := fs.Int("max", 0, "replay at most N (0: no limit)")
	dry := fs.Bool("dry-run", false, "report what would be replayed; change nothing")
	allPermanent := fs.Bool("all-permanent", false, "replay every permanent failure the filters select")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	_, flt, err := ff.build(time.Now())
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
	m, err := state.ParseReplayMode(*mode)
	if err != nil {
		return usageError{"--mode: " + err.Error()}
	}
	req := replay.Request{Source: replay.SourceItems, Filter: flt, Mode: m, Note: *note, By: *by, Max: *maxN, DryRun: *dry}
	if err := req.Validate(); err != nil {
		return usageError{err.Error()}
	}
	return runReplay(stdout, aw, req)
}
