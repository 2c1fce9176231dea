package store

import (
	"fmt"
	"slices"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// allowedFrom lists the states that may move to `to`, for condition expressions.
func allowedFrom(to work.State) []work.State {
	var out []work.State
	for _, from := range work.States() {
		if work.CanTransition(from, to) {
			out = append(out, from)
		}
	}
	return out
}

// Kind is what an item is; it selects the llm prompt.
type Kind string

const (
	// KindStory is a news story to summarise.
	KindStory Kind = "story"
	// KindDocument is any other document to summarise.
	KindDocument Kind = "document"
	// KindAction is a task the model carries out and reports on with an
	// ACTION_OUTCOME marker.
	KindAction Kind = "action"
)

// Kinds lists every kind.
func Kinds() []Kind { return []Kind{KindStory, KindDocument, KindAction} }

// ParseKind returns the kind named s; empty is Story.
func ParseKind(s string) (Kind, error) {
	if s == "" {
		return KindStory, nil
	}
	if k := Kind(s); slices.Contains(Kinds(), k) {
		return k, nil
	}
	return "", fmt.Errorf("unknown item kind %q (want story, document or action)", s)
}

// Item is one unit of work and its whole failure history.
type Item struct {
	ID            string
	Kind          Kind
	SourceURL     string
	WebhookURL    string
	CorrelationID string
	// Metadata is the producer's key/value context from the item's spec.
	Metadata map[string]string
	// Notices are the owner's notice choices from the spec; nil (an item
	// created before notices existed) means its kind's DefaultNotices. Read
	// them with NoticeChoices.
	Notices *Notices

	Status work.Status
	State  work.State
	// Stage is the stage the item is in (queued, working, retrying or
	// dead-lettered at); for a done item, the last stage.
	Stage work.Stage

	// Attempts counts the attempts each stage has spent; stages never share.
	Attempts         map[work.Stage]int
	EnrichmentStatus work.EnrichmentStatus
	// FailureCount counts failures that spent an attempt since the last success.
	FailureCount   int
	LastError      *LastError
	FirstFailureAt time.Time
	LastFailureAt  time.Time
	// NotBefore is the earliest time the item may run again (retry or wait).
	NotBefore time.Time

	// LeaseOwner is the delivery ("<message id>#<receive count>") whose
	// invocation holds the item.
	LeaseOwner string
	LeaseUntil time.Time
	// Carrier is the SQS message id that carries the item in its stage queue,
	// set by the claim. Another message for the same stage is a duplicate.
	Carrier string

	// ReplayCount counts every replay; Replays keeps the last MaxReplays of
	// them, oldest first (the error log keeps all).
	ReplayCount int
	Replays     []ReplayRecord
	// Notes are the last MaxNotes operator annotations (triage dlq
	// annotate), oldest first; NoteCount counts them all (the error log
	// keeps all).
	Notes     []Note
	NoteCount int
	// DeadLetter is the most recent dead letter, set when the DLQ hand-off is
	// confirmed.
	DeadLetter *DeadLetterRef
	// Resolution is the operator's closing of the item's latest resolved
	// dead letter (triage dlq resolve); nil if none was resolved.
	Resolution *Resolution
	// Suspect is the item's run of provider-wide failures at one upstream
	// (see Suspect); nil when it has none since its last success.
	Suspect *Suspect

	Document   *work.Document
	Enrichment *work.Enrichment
	Delivery   *work.WebhookDelivery

	CreatedAt time.Time
	UpdatedAt time.Time
	// LastWrite identifies the most recent write ("<owner>/<op>/<ms>"), so a
	// write the SDK retried after it had already succeeded is recognised as
	// applied instead of as a lost race.
	LastWrite string
}

// AttemptsOf returns the attempts spent in stage.
func (it Item) AttemptsOf(s work.Stage) int { return it.Attempts[s] }

// LastError is the structured record of the most recent failure
// (docs/design.md "The failure record"): which component failed, how, and
// what happens next.
type LastError struct {
	Component     work.Stage        `dynamodbav:"component" json:"component"`
	ErrorClass    work.Class        `dynamodbav:"error_class" json:"error_class"`
	Error         string            `dynamodbav:"error" json:"error"`
	ErrorType     string            `dynamodbav:"error_type" json:"error_type"`
	ErrorCode     string            `dynamodbav:"error_code,omitempty" json:"error_code,omitempty"`
	FailedAt      time.Time         `dynamodbav:"failed_at" json:"failed_at"`
	CorrelationID string            `dynamodbav:"correlation_id" json:"correlation_id"`
	RetryCount    int               `dynamodbav:"retry_count" json:"retry_count"`
	Retryable     bool              `dynamodbav:"retryable" json:"retryable"`
	RetryAt       *time.Time        `dynamodbav:"retry_at,omitempty" json:"retry_at,omitempty"`
	MaxRetries    int               `dynamodbav:"max_retries" json:"max_retries"`
	Details       map[string]string `dynamodbav:"details,omitempty" json:"details,omitempty"`
}

// ReplayRecord is one operator replay of the item.
type ReplayRecord struct {
	At   time.Time `dynamodbav:"at" json:"at"`
	By   string    `dynamodbav:"by" json:"by"`
	Note string    `dynamodbav:"note" json:"note"`
	Mode string    `dynamodbav:"mode" json:"mode"`
	// FromStage is the stage the replay resumed the item at.
	FromStage work.Stage `dynamodbav:"from_stage" json:"from_stage"`
	Class     work.Class `dynamodbav:"class,omitempty" json:"class,omitempty"`
	// FailedStage is the stage the item had failed at (FromStage unless the
	// replay was a full restart).
	FailedStage work.Stage `dynamodbav:"failed_stage,omitempty" json:"failed_stage,omitempty"`
	// DeadLetterID is the dead letter the replay came from; empty for a
	// replay from item state or of a raw message the backstop moved.
	DeadLetterID string `dynamodbav:"dead_letter_id,omitempty" json:"dead_letter_id,omitempty"`
	// MessageID is the DLQ message the replay came from, if any.
	MessageID string `dynamodbav:"message_id,omitempty" json:"message_id,omitempty"`
}

// Note is one operator annotation on an item.
type Note struct {
	// At is when it was written, By who wrote it, Text what it says (at
	// most MaxNoteBytes).
	At   time.Time `dynamodbav:"at" json:"at"`
	By   string    `dynamodbav:"by,omitempty" json:"by,omitempty"`
	Text string    `dynamodbav:"text" json:"text"`
	// DeadLetterID is the dead letter the note was made on, if any.
	DeadLetterID string `dynamodbav:"dead_letter_id,omitempty" json:"dead_letter_id,omitempty"`
}
