package store

import (
	"context"
	"fmt"

	"github.com/triagehq/triage/internal/store/dynamo"
)

// ErrorLogAPI is the part of the DynamoDB client the error log uses.
type ErrorLogAPI interface {
	dynamo.Putter
}

// ErrorLog appends one entry per failure to the ErrorLog table: keyed by
// item and time, with a GSI by class and time for reports, expiring after
// ErrorLogRetention through DynamoDB TTL.
type ErrorLog struct {
	DB    ErrorLogAPI
	Table string
}

// logRecord is a LogEntry as stored. Replay and note entries have no
// error_class nor class_shard (so the by-class index, which reports read,
// leaves them out) and no expires_at (they are the item's history).
// Resolutions are in the by-class index under the pseudo-class
// ResolvedClass, sharded like a failure class, and expire like failures.
type logRecord struct {
	ItemID     string `dynamodbav:"item_id"`
	OccurredAt string `dynamodbav:"occurred_at"` // TimeFormat + "#" + message id, unique per item
	At         string `dynamodbav:"at"`
	Day        string `dynamodbav:"day"`
	Kind       string `dynamodbav:"kind,omitempty"`
	By         string `dynamodbav:"by,omitempty"`
	Stage      string `dynamodbav:"stage"`
	ErrorClass string `dynamodbav:"error_class,omitempty"`
	// ClassShard is the entry's key in the by-class index (see
	// ByClassIndex); absent for replays and notes.
	ClassShard    string `dynamodbav:"class_shard,omitempty"`
	Message       string `dynamodbav:"message"`
	Provider      string `dynamodbav:"provider,omitempty"`
	Status        int    `dynamodbav:"status,omitempty"`
	Code          string `dynamodbav:"code,omitempty"`
	Attempt       int    `dynamodbav:"attempt"`
	MessageID     string `dynamodbav:"message_id,omitempty"`
	CorrelationID string `dynamodbav:"correlation_id,omitempty"`
	Decision      string `dynamodbav:"decision"`
	Retryable     bool   `dynamodbav:"retryable"`
	// Default is LogEntry.Default, absent when false.
	Default bool `dynamodbav:"default,omitempty"`
	// UnrecognisedShard is the entry's key in the unrecognised index
	// (UnrecognisedIndex), the item's ClassShard: present only on failures
	// nothing recognised (LogEntry.Unrecognised), so that the index is
	// sparse and holds them alone.
	UnrecognisedShard string `dynamodbav:"unrecognised_shard,omitempty"`
	ExpiresAt         int64  `dynamodbav:"expires_at,omitempty"`
	// ResolvedClass and DeadLetterID are set on resolutions only (Kind
	// LogResolution, error_class ResolvedClass).
	ResolvedClass string `dynamodbav:"resolved_class,omitempty"`
	DeadLetterID  string `dynamodbav:"dead_letter_id,omitempty"`
}

func toLogRecord(e LogEntry) logRecord {
	at := formatTime(e.OccurredAt)
	r := logRecord{
		ItemID: e.ItemID, OccurredAt: at + "#" + e.MessageID, At: at, Day: e.OccurredAt.UTC().Format("2006-01-02"),
		Kind: e.Kind, By: e.By,
		Stage: string(e.Stage), ErrorClass: string(e.Class), Message: e.Message, Attempt: e.Attempt,
		Provider: string(e.Provider), Status: e.Status, Code: e.Code,
		MessageID: e.MessageID, CorrelationID: e.CorrelationID, Decision: e.Decision, Retryable: e.Retryable,
	}
	if e.Kind == LogFailure || e.Kind == LogResolution {
		r.ExpiresAt = e.OccurredAt.Add(ErrorLogRetention).Unix()
		if e.Class != "" {
			r.ClassShard = string(e.Class) + "#" + ClassShard(e.ItemID)
		}
		if e.Kind == LogFailure {
			r.Default = e.Default
			if e.Class != "" && e.Unrecognised() {
				r.UnrecognisedShard = ClassShard(e.ItemID)
			}
		}
	} else {
		r.ErrorClass = ""
	}
	return r
}

// Append writes e. Entries are immutable: the same failure appended twice
// (a retried write) overwrites itself rather than duplicating.
func (l *ErrorLog) Append(ctx context.Context, e LogEntry) error {
	if err := dynamo.Put(ctx, l.DB, l.Table, toLogRecord(e)); err != nil {
		return fmt.Errorf("error log for %s: %w", e.ItemID, err)
	}
	return nil
}
