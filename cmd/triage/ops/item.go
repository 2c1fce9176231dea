// Package ops holds the operator's queries that the triage CLI and its
// console (cmd/triage/console) share, so that both show an item, its
// timeline and the stack's health from the same code: the CLI prints them,
// the console renders them.
package ops

import (
	"context"
	"time"

	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// ItemView is an item as the CLI and the console show it: its fields, with
// the source and webhook URLs redacted (their query strings and paths may
// carry tokens) and the producer's metadata redacted (redact.Map: its values
// are whatever the producer put there).
type ItemView struct {
	ID       string      `json:"item_id"`
	Kind     store.Kind  `json:"kind"`
	Status   work.Status `json:"status"`
	Progress int         `json:"progress_pct"`
	State    work.State  `json:"state"`
	Stage    work.Stage  `json:"stage"`
	// Attempts are the attempts each stage made, the one that succeeded
	// included (ledger.AttemptsMade: what the timeline counts);
	// AttemptsSpent the failed ones the retry budget counted (the item's
	// counters).
	Attempts         map[work.Stage]int    `json:"attempts"`
	AttemptsSpent    map[work.Stage]int    `json:"attempts_spent"`
	EnrichmentStatus work.EnrichmentStatus `json:"enrichment_status,omitempty"`
	FailureCount     int                   `json:"failure_count"`
	LastError        *store.LastError      `json:"last_error,omitempty"`
	FirstFailureAt   time.Time             `json:"first_failure_at,omitzero"`
	LastFailureAt    time.Time             `json:"last_failure_at,omitzero"`
	NotBefore        time.Time             `json:"not_before,omitzero"`
	CorrelationID    string                `json:"correlation_id"`
	ReplayCount      int                   `json:"replay_count"`
	Replays          []store.ReplayRecord  `json:"replays"`
	NoteCount        int                   `json:"note_count"`
	Notes            []store.Note          `json:"notes"`
	DeadLetter       *store.DeadLetterRef  `json:"dead_letter,omitempty"`
	Resolution       *store.Resolution     `json:"resolution,omitempty"`
	Metadata         map[string]string     `json:"metadata,omitempty"`
	Notices          store.Notices         `json:"notices"`
	SourceURL        string                `json:"source_url,omitempty"`
	WebhookURL       string                `json:"webhook_url,omitempty"`
	Document         *work.Document        `json:"document,omitempty"`
	Enrichment       *work.Enrichment      `json:"enrichment,omitempty"`
	// EnrichmentRef is where the enrichment is stored; BodyError says why a
	// body could not be read back.
	EnrichmentRef *work.BodyRef `json:"enrichment_ref,omitempty"`
	BodyError     string        `json:"body_error,omitempty"`
	CreatedAt     time.Time     `json:"created_at,omitzero"`
	UpdatedAt     time.Time     `json:"updated_at,omitzero"`
	// Timeline is `items get`'s and the console's: the item's history from the item,
	// its error log and its audit trail; TimelineGaps names the sources
	// that could not be read.
	Timeline     *ledger.Timeline `json:"timeline,omitempty"`
	TimelineGaps []string         `json:"timeline_gaps,omitempty"`
}

// ViewItem is it as an operator sees it.
func ViewItem(it store.Item) ItemView {
	spent := map[work.Stage]int{}
	for _, st := range work.Stages() {
		spent[st] = it.Attempts[st]
	}
	return ItemView{
		ID: it.ID, Kind: it.Kind, Status: it.Status, Progress: it.Status.Progress(), State: it.State, Stage: it.Stage,
		Attempts: ledger.AttemptsMade(it), AttemptsSpent: spent, EnrichmentStatus: it.EnrichmentStatus, FailureCount: it.FailureCount, LastError: it.LastError,
		FirstFailureAt: it.FirstFailureAt, LastFailureAt: it.LastFailureAt, NotBefore: it.NotBefore, CorrelationID: it.CorrelationID,
		ReplayCount: it.ReplayCount, Replays: NonNil(it.Replays), NoteCount: it.NoteCount, Notes: NonNil(it.Notes), DeadLetter: it.DeadLetter,
		Resolution: it.Resolution, Metadata: redact.Map(it.Metadata), Notices: it.NoticeChoices(),
		SourceURL: redact.String(it.SourceURL), WebhookURL: redact.String(it.WebhookURL),
		Document: it.Document, Enrichment: it.Enrichment, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

// HydrateView reads v's bodies back: the enrichment always, the document's
// text when text is set. It records a failed read in BodyError and keeps
// the reference.
func HydrateView(ctx context.Context, items runner.Bodies, it store.Item, v *ItemView, text bool) {
	parts := []store.Part{store.PartEnrichment}
	if text {
		parts = append(parts, store.PartDocument)
	}
	if it.Enrichment != nil && it.Enrichment.Body != nil {
		ref := *it.Enrichment.Body
		v.EnrichmentRef = &ref
	}
	full, err := items.Hydrate(ctx, it, parts...)
	if err != nil {
		v.BodyError = redact.String(err.Error())
		return
	}
	v.Enrichment = full.Enrichment
	if text {
		v.Document = full.Document
	}
}

// NonNil returns s, or an empty slice for nil (JSON [] rather than null).
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ItemLog reads one item's error-log history (store.ErrorLogReader).
type ItemLog interface {
	ForItem(ctx context.Context, itemID string, limit int) ([]store.LogEntry, error)
}

// ItemTrail reads one item's audit trail (ledger.Trail, ledger.Memory).
type ItemTrail interface {
	ForItem(ctx context.Context, itemID string, limit int) ([]ledger.Entry, error)
}

// TimelineSources are where a timeline is read from. A nil Log or Trail is
// a source whose table is not known: a gap, worded with LogMissing or
// TrailMissing (what to pass to name it). Explain, if set, words a read
// error (an unreachable endpoint).
type TimelineSources struct {
	Log                      ItemLog
	Trail                    ItemTrail
	LogMissing, TrailMissing string
	Explain                  func(error) error
}

// TimelineLimit bounds the error-log entries and audit entries a timeline
// reads for one item.
const TimelineLimit = 500

// Timeline reads the item's error log and audit trail and builds its
// timeline (ledger.BuildTimeline); a source that cannot be read is a gap,
// named in the second result, not an error.
func Timeline(ctx context.Context, it store.Item, src TimelineSources) (*ledger.Timeline, []string) {
	explain := src.Explain
	if explain == nil {
		explain = func(err error) error { return err }
	}
	var (
		gaps  []string
		log   []store.LogEntry
		trail []ledger.Entry
		err   error
	)
	if src.Log == nil {
		gaps = append(gaps, "the error log: "+orText(src.LogMissing, "its table is not known"))
	} else if log, err = src.Log.ForItem(ctx, it.ID, TimelineLimit); err != nil {
		gaps = append(gaps, "the error log: "+redact.String(explain(err).Error()))
	}
	if src.Trail == nil {
		gaps = append(gaps, "the audit trail: "+orText(src.TrailMissing, "its table is not known"))
	} else if trail, err = src.Trail.ForItem(ctx, it.ID, TimelineLimit); err != nil {
		gaps = append(gaps, "the audit trail: "+redact.String(explain(err).Error()))
	}
	tl := ledger.BuildTimeline(it, log, trail)
	return &tl, gaps
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
