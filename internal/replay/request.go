package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Source is where a replay finds its candidates.
type Source string

const (
	// SourceDLQ reads the stages' dead-letter queues. The default.
	SourceDLQ Source = "dlq"
	// SourceItems reads the Items table: items in deadletter or failed, by
	// id or by filter, with or without a DLQ message.
	SourceItems Source = "items"
)

// Sources lists every source.
func Sources() []Source { return []Source{SourceDLQ, SourceItems} }

// Stages is a set of stages (DLQs). In JSON it is a list of stage names or
// the string "all"; empty means all.
type Stages []work.Stage

// ParseStages reads "all", "" or a comma-separated list of stages.
func ParseStages(s string) (Stages, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return Stages(work.Stages()), nil
	}
	var out Stages
	for _, part := range strings.Split(s, ",") {
		st, err := work.ParseStage(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out, nil
}

// UnmarshalJSON accepts ["fetch","llm"], "all" or "llm"; [] is all.
func (s *Stages) UnmarshalJSON(b []byte) error {
	v, err := unmarshalSet(b, ParseStages, "dlqs: want a list of stages or \"all\"")
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// String is the stages' names, comma-separated.
func (s Stages) String() string {
	names := make([]string, len(s))
	for i, st := range s {
		names[i] = string(st)
	}
	return strings.Join(names, ",")
}

// orAll returns s, or every stage when s is empty, in pipeline order.
func (s Stages) orAll() Stages {
	if len(s) == 0 {
		return Stages(work.Stages())
	}
	out := slices.Clone(s)
	slices.SortFunc(out, func(a, b work.Stage) int { return a.Index() - b.Index() })
	// Each DLQ once: a run releases what it held on a DLQ when it has read it.
	return slices.Compact(out)
}

// Classes is a set of error classes. In JSON it is one class name or a list.
type Classes []work.Class

// ParseClasses reads a comma-separated list of class names (any case).
func ParseClasses(s string) (Classes, error) {
	var out Classes
	for _, part := range strings.Split(s, ",") {
		part = strings.ToUpper(strings.TrimSpace(part))
		if part == "" {
			continue
		}
		c := work.Class(part)
		if !slices.Contains(work.Classes(), c) {
			return nil, fmt.Errorf("unknown error class %q", part)
		}
		out = append(out, c)
	}
	return out, nil
}

// UnmarshalJSON accepts "RATE_LIMITED" or ["RATE_LIMITED", "NETWORK_TIMEOUT"].
func (c *Classes) UnmarshalJSON(b []byte) error {
	v, err := unmarshalSet(b, ParseClasses, "error_class: want a class or a list of classes")
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// unmarshalSet reads a set's JSON, one string or a list of strings, with
// parse (which reads the comma-separated text); an empty list is the empty
// set. want prefixes the error of JSON that is neither.
func unmarshalSet[S ~[]E, E any](b []byte, parse func(string) (S, error), want string) (S, error) {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		return parse(one)
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", want, err)
	}
	if len(list) == 0 {
		return nil, nil
	}
	return parse(strings.Join(list, ","))
}

// Filter selects dead letters. Every set field must match; a list matches
// any of its values. The zero Filter selects everything.
type Filter struct {
	// ErrorClass keeps dead letters of these classes. A raw backstop
	// message has its item's last failure class (empty if none).
	ErrorClass Classes `json:"error_class,omitempty"`
	// Stage keeps dead letters of items that failed at this stage.
	Stage work.Stage `json:"stage,omitempty"`
	// ItemIDs keeps dead letters of these items.
	ItemIDs []string `json:"item_ids,omitempty"`
	// FailedSince and FailedBefore keep dead letters whose last failure is
	// in [FailedSince, FailedBefore).
	FailedSince  time.Time `json:"failed_since,omitzero"`
	FailedBefore time.Time `json:"failed_before,omitzero"`
	// Retryable, when set, keeps dead letters whose class is (or is not)
	// retryable: true selects what may succeed once the upstream is fixed.
	Retryable *bool `json:"retryable,omitempty"`
	// Backstop keeps only the raw stage envelopes a queue's redrive
	// backstop moved (its item never dead-lettered by triage): what the
	// redrive function's schedule resumes (docs/design.md "Waits and
	// parking", "A store that cannot be reached").
	Backstop bool `json:"backstop,omitempty"`
}

// Matches reports whether dl passes the filter.
func (f Filter) Matches(dl DeadLetter) bool {
	if f.Backstop && dl.Kind != deadletter.KindBackstop {
		return false
	}
	if len(f.ErrorClass) > 0 && !slices.Contains(f.ErrorClass, dl.Class) {
		return false
	}
	if f.Stage != "" && dl.Stage != f.Stage {
		return false
	}
	if len(f.ItemIDs) > 0 && !slices.Contains(f.ItemIDs, dl.ItemID) {
		return false
	}
	if !f.FailedSince.IsZero() && (dl.FailedAt.IsZero() || dl.FailedAt.Before(f.FailedSince)) {
		return false
	}
	if !f.FailedBefore.IsZero() && (dl.FailedAt.IsZero() || !dl.FailedAt.Before(f.FailedBefore)) {
		return false
	}
	if f.Retryable != nil && dl.Retryable() != *f.Retryable {
		return false
	}
	return true
}

func (f Filter) validate() error {
	if f.Stage != "" && !f.Stage.Valid() {
		return fmt.Errorf("filter: stage %q is not fetch, llm or notify", f.Stage)
	}
	if !f.FailedSince.IsZero() && !f.FailedBefore.IsZero() && !f.FailedSince.Before(f.FailedBefore) {
		return errors.New("filter: failed_since must be before failed_before")
	}
	return nil
}

// Request is one replay: the redrive Lambda's event, and what the CLI
// builds from its flags.
type Request struct {
	// Source is SourceDLQ (default) or SourceItems.
	Source Source `json:"source,omitempty"`
	// DLQs are the dead-letter queues to read; empty or "all" is every
	// stage's. Ignored for SourceItems.
	DLQs Stages `json:"dlqs,omitempty"`
	// Filter selects the dead letters (or items).
	Filter Filter `json:"filter"`
	// Mode is from_failed_stage (default) or full_restart.
	Mode store.ReplayMode `json:"mode,omitempty"`
	// Note is the remediation note, recorded on every replayed item and
	// carried in the envelope's lineage; required.
	Note string `json:"note"`
	// By names who replays; empty is the Replayer's DefaultBy.
	By string `json:"by,omitempty"`
	// Max bounds how many items are replayed; zero is unbounded.
	Max int `json:"max,omitempty"`
	// DryRun reports what would happen and changes nothing: no write, no
	// send, no delete; every message is released.
	DryRun bool `json:"dry_run,omitempty"`
}

// Validate reports what is wrong with r, all at once.
func (r Request) Validate() error {
	var errs []error
	if r.Source != "" && !slices.Contains(Sources(), r.Source) {
		errs = append(errs, fmt.Errorf("source %q is not dlq or items", r.Source))
	}
	if _, err := store.ParseReplayMode(string(r.Mode)); err != nil {
		errs = append(errs, err)
	}
	if strings.TrimSpace(r.Note) == "" {
		errs = append(errs, errors.New("note is required: say what was fixed"))
	}
	if len(r.Note) > store.MaxNoteBytes {
		errs = append(errs, fmt.Errorf("note is longer than %d bytes", store.MaxNoteBytes))
	}
	if r.Max < 0 {
		errs = append(errs, errors.New("max must not be negative"))
	}
	for _, id := range r.Filter.ItemIDs {
		if id == "" || len(id) > work.MaxItemIDLen {
			errs = append(errs, fmt.Errorf("item id %q is empty or too long", id))
		}
	}
	if err := r.Filter.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Action is what a replay did (or, in a dry run, would do) with one
// selected dead letter or item.
type Action string

const (
	// Replayed: the item is queued at the target stage, its envelope sent
	// and its DLQ message (if any) deleted.
	Replayed Action = "replayed"
	// Resent: a replay written by an earlier run that had not been sent was
	// sent now.
	Resent Action = "resent"
	// HandedOff: a backstop message of an item failed at its stage, whose
	// dead letter was decided but never confirmed on its DLQ: the dead
	// letter the item records was sent to the stage's DLQ and confirmed,
	// and the message deleted. Nothing is replayed.
	HandedOff Action = "handed_off"
	// WouldReplay: a dry run found the dead letter replayable.
	WouldReplay Action = "would_replay"
	// Duplicate: the message is a duplicate of a dead letter already
	// replayed (or superseded); it was deleted (kept in a dry run).
	Duplicate Action = "duplicate"
	// Skipped: the dead letter cannot be replayed now (its item does not
	// exist, is held by a running stage, or is not a permanent failure); its
	// message was released.
	Skipped Action = "skipped"
	// Failed: a write, send or read failed; the message was released and a
	// later run picks up where this one stopped.
	Failed Action = "error"
)

// ReasonNoItem is the Reason of a Skipped outcome whose item does not
// exist.
const ReasonNoItem = "item does not exist"

// Outcome is one selected dead letter (or item) and what happened to it.
type Outcome struct {
	// ItemID is the item replayed (or not).
	ItemID string `json:"item_id"`
	// DLQ is the queue the message came from; empty for item replays.
	DLQ work.Stage `json:"dlq,omitempty"`
	// MessageID and DeadLetterID name the DLQ message and the dead letter
	// (empty for replays from item state without one).
	MessageID    string `json:"message_id,omitempty"`
	DeadLetterID string `json:"dead_letter_id,omitempty"`
	// Class is the failure class the item is replayed from.
	Class work.Class `json:"error_class,omitempty"`
	// FailedStage is where the item failed; Target where it resumes.
	FailedStage work.Stage `json:"failed_stage,omitempty"`
	Target      work.Stage `json:"target,omitempty"`
	// Action is what happened; Reason why, for anything but a plain replay.
	Action Action `json:"action"`
	Reason string `json:"reason,omitempty"`
	// ReplayCount is the item's replay count after the replay.
	ReplayCount int `json:"replay_count,omitempty"`
}

// Summary is a replay's result: the redrive Lambda's response.
type Summary struct {
	// Selected counts dead letters (or items) the filter selected.
	Selected int `json:"selected"`
	// Replayed counts replays made (Replayed and Resent), or that a dry run
	// would make.
	Replayed int `json:"replayed"`
	// Skipped counts selected dead letters not replayed: duplicates,
	// hand-offs completed (HandedOff) and those that cannot be replayed now.
	Skipped int `json:"skipped"`
	// Errors counts selected dead letters whose replay failed part-way.
	Errors int `json:"errors"`
	// Scanned counts every message (or item) looked at; Released those
	// released untouched once their DLQ was read (unselected, skipped,
	// failed).
	Scanned  int `json:"scanned"`
	Released int `json:"released"`
	// Incomplete lists the DLQs this run did not scan to the end — its
	// time ran out, or MaxMessages — whether it left them part-way or never
	// reached them: what is on them was not looked at, and a later run
	// does. A run that stopped at its Max lists none.
	Incomplete Stages `json:"incomplete,omitempty"`
	DryRun     bool   `json:"dry_run"`
	// Items lists the outcome of every selected dead letter, in order.
	Items []Outcome `json:"items"`
}

func (s *Summary) add(o Outcome) {
	s.Items = append(s.Items, o)
	s.Selected++
	switch o.Action {
	case Replayed, Resent, WouldReplay:
		s.Replayed++
	case Failed:
		s.Errors++
	default:
		s.Skipped++
	}
}

// Progress is a replay's or a scan's progress so far.
type Progress struct {
	// Done counts messages (or items) looked at; Total is the expected
	// number (the DLQs' approximate depth), zero if unknown.
	Done, Total int
	// Selected, Replayed, Skipped and Errors: see Summary.
	Selected, Replayed, Skipped, Errors int
}
