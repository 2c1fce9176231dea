package store

import (
	"errors"
	"fmt"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/work"
)

// ErrNotFound is returned when an item does not exist.
var ErrNotFound = errors.New("item not found")

// ErrConflict is returned when a conditional write lost: the item is not in
// the state, stage or lease the write expected. Match it with errors.Is.
var ErrConflict = errors.New("conditional write conflict")

// ErrExists is returned by Create for an item id that is already taken.
var ErrExists = errors.New("item already exists")

// ExistsError is a Create whose id is taken. Current is the item as the
// failed put found it (nil when the store could not return it), so the
// caller can compare specs without another read. It matches ErrExists.
type ExistsError struct {
	ItemID  string
	Current *Item
}

// Error names the item.
func (e *ExistsError) Error() string { return fmt.Sprintf("create %s: %v", e.ItemID, ErrExists) }

// Is matches ErrExists.
func (e *ExistsError) Is(target error) bool { return target == ErrExists }

// ClaimError is a claim that did not win. Current is the item as it was
// (nil if it does not exist), so the runner can tell a duplicate of finished
// work from a cooldown or a live lease without another read.
type ClaimError struct {
	ItemID  string
	Stage   work.Stage
	Current *Item
}

// Error describes the item's actual position.
func (e *ClaimError) Error() string {
	if e.Current == nil {
		return fmt.Sprintf("claim %s for %s: item does not exist", e.ItemID, e.Stage)
	}
	return fmt.Sprintf("claim %s for %s: item is %s at %s", e.ItemID, e.Stage, e.Current.State, e.Current.Stage)
}

// Is matches ErrConflict, and ErrNotFound when the item does not exist.
func (e *ClaimError) Is(target error) bool {
	return target == ErrConflict || (target == ErrNotFound && e.Current == nil)
}

// NewItem is what Create needs.
type NewItem struct {
	ID            string
	Kind          Kind
	SourceURL     string
	WebhookURL    string
	CorrelationID string
	// Metadata is the producer's key/value context (package intake).
	Metadata map[string]string
	// Notices are the owner's notice choices (package intake applies the
	// kind's defaults); nil stores none, read as the kind's defaults.
	Notices *Notices
	// Owner names the writer ("<message id>#<receive count>" for the first
	// stage); it goes into the write's last_write token, so an SDK retry of
	// an applied create is recognised as applied.
	Owner string
	Now   time.Time
}

// ClaimRequest asks for the item's lease for one stage.
type ClaimRequest struct {
	ItemID string
	Stage  work.Stage
	// Owner identifies the delivery: "<message id>#<receive count>", so a
	// redelivery of the same message is a different owner.
	Owner string
	// Carrier is the SQS message id of the delivery.
	Carrier string
	Now     time.Time
	// LeaseFor is how long the lease lasts; it must not exceed the queue's
	// visibility timeout, so a crashed holder's lease has expired by the time
	// its message is redelivered.
	LeaseFor time.Duration
}

// CooldownTolerance lets a claim through this much before NotBefore, so a
// message that reappears a moment early (clock skew between hosts, SQS's
// whole-second visibility) is not sent back for another round trip.
const CooldownTolerance = time.Second

// CompleteRequest records a stage's success.
type CompleteRequest struct {
	ItemID string
	Stage  work.Stage
	Owner  string
	Now    time.Time
	Output work.Output
}

// FailRequest records a failed (or waiting) attempt and what happens next.
type FailRequest struct {
	ItemID string
	Stage  work.Stage
	Owner  string
	Now    time.Time
	// PrevAttempts is the stage's attempt count as claimed; the write fails
	// with ErrConflict if it changed.
	PrevAttempts int
	// Counts spends an attempt (and a failure_count) when true.
	Counts bool
	// Next is Retryable (retry or wait) or Failed (dead-letter decided).
	Next work.State
	// NotBefore is when a Retryable item may run again.
	NotBefore time.Time
	// LastError is the structured failure record.
	LastError LastError
	// Suspect, when set, replaces the item's suspect record in the same
	// write (a failure judged the item's own); nil leaves it as it is.
	Suspect *Suspect
}

// Parking is a wait the scheduler ends (docs/design.md "Waits and
// parking"): a plain due time (Gate empty or gates.DueName), re-enqueued at
// DueAt, or a wait behind a closed gate, re-enqueued when the gate opens,
// whenever that is — such a wait has no expiry, and its item may run as
// soon as a message arrives for it.
type Parking struct {
	// DueAt is when a plain due wait ends; for a gate wait, the expected
	// opening, for operators only (zero when unknown).
	DueAt time.Time
	// Gate is what the wait is behind; empty or gates.DueName is a plain due
	// time.
	Gate     gates.Name
	Envelope work.Envelope
	// Reason says why, for operators (a failure class, a gate's reason).
	Reason string
	// Probes and Suspect copy the item's suspect record for the scheduler,
	// which prefers as a gate's probe a waiter that is no suspect, then
	// one that served fewer probes (docs/design.md "Waits and parking").
	Probes  int
	Suspect bool
}

// OnGate reports whether p waits behind a gate rather than for a due time.
func (p Parking) OnGate() bool { return !p.Gate.IsDue() }

// ReleaseRequest gives up a lease without a failure (a closed gate such as
// an open circuit breaker): the item waits until NotBefore.
type ReleaseRequest struct {
	ItemID    string
	Stage     work.Stage
	Owner     string
	Now       time.Time
	NotBefore time.Time
	Reason    string
	// Suspect, when set, replaces the item's suspect record in the same
	// write (the provider-wide failure that makes it wait); nil leaves it.
	Suspect *Suspect
}

// DeadLetterRef records the dead letter an item's failure produced.
type DeadLetterRef struct {
	ID        string     `dynamodbav:"id" json:"id"`
	Stage     work.Stage `dynamodbav:"stage" json:"stage"`
	Class     work.Class `dynamodbav:"class" json:"class"`
	At        time.Time  `dynamodbav:"at" json:"at"`
	Escalated bool       `dynamodbav:"escalated,omitempty" json:"escalated,omitempty"`
	// Attempt and Replay are the stage's attempts and the item's replay
	// count the dead letter was built from (the inputs of its ID):
	// MarkDeadLettered confirms the hand-off only on an item that is still
	// failed with that failure.
	Attempt int `dynamodbav:"attempt" json:"attempt"`
	Replay  int `dynamodbav:"replay" json:"replay"`
}

// Kinds of error-log entry (LogEntry.Kind).
const (
	// LogFailure is a stage failure (the zero value).
	LogFailure = ""
	// LogReplay is an operator replay: the item keeps only its last
	// MaxReplays, the error log every one.
	LogReplay = "replay"
	// LogNote is an operator note: the item keeps only its last MaxNotes.
	LogNote = "note"
	// LogResolution is an operator closing a dead letter (Resolution): its
	// class is ResolvedClass, which no failure report reads.
	LogResolution = "resolution"
)

// LogEntry is one failure in the error log, or (Kind) one replay, note or
// resolution. Replays and notes carry no class, so reports by class never
// count them, and they do not expire; a resolution's class is the
// pseudo-class ResolvedClass.
type LogEntry struct {
	// Kind is LogFailure, LogReplay, LogNote or LogResolution; By names the
	// operator of a replay, note or resolution.
	Kind   string
	By     string
	ItemID string
	Stage  work.Stage
	Class  work.Class
	// Message is the redacted error text.
	Message string
	// Provider, Status and Code are the upstream's name, HTTP status and
	// error code as the classification read them (failure.Classification),
	// when it had them: an operator's rule weighed against the log
	// (`triage rules test`) and a fingerprint read them, not only the text.
	Provider      failure.Provider
	Status        int
	Code          string
	Attempt       int
	MessageID     string
	CorrelationID string
	Decision      string
	Retryable     bool
	// Default is the classification's Default (failure.Classification):
	// nothing but a status read by the upstream's role decided the class,
	// or nothing did (UNKNOWN). A failure that is UNKNOWN or Default is
	// one nothing recognised: the error log keeps it in its unrecognised
	// index too (UnrecognisedIndex), which `triage report unknown` reads.
	Default    bool
	OccurredAt time.Time
}

// Evidence is the failure as the log recorded it — its provider, stage,
// status, code and text — for what weighs a failure again after the fact
// (an operator's rule, a fingerprint): it reads as the classifier read the
// original, so far as the log kept it.
func (e LogEntry) Evidence() *failure.Evidence {
	return &failure.Evidence{Provider: e.Provider, Stage: e.Stage, Status: e.Status, Code: e.Code, Text: e.Message}
}

// Unrecognised reports whether e is a failure nothing recognised: its
// class is UNKNOWN, or only a default decided it (Default).
func (e LogEntry) Unrecognised() bool {
	return e.Kind == LogFailure && (e.Class == work.Unknown || e.Default)
}

// ErrorLogRetention is how long error-log entries live (DynamoDB TTL).
const ErrorLogRetention = 30 * 24 * time.Hour
