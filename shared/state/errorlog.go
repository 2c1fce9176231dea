package state

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ErrorLogAPI is the part of the DynamoDB client the error log uses.
type ErrorLogAPI interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// ErrorLog appends one entry per failure to the ErrorLog table: keyed by
// item and time, with a GSI by class and time for reports, expiring after
// ErrorLogRetention through DynamoDB TTL.
type ErrorLog struct {
	DB    ErrorLogAPI
	Table string
}

// logRecord is a LogEntry as stored.
type logRecord struct {
	ItemID        string `dynamodbav:"item_id"`
	OccurredAt    string `dynamodbav:"occurred_at"` // TimeFormat + "#" + message id, unique per item
	At            string `dynamodbav:"at"`
	Day           string `dynamodbav:"day"`
	Stage         string `dynamodbav:"stage"`
	ErrorClass    string `dynamodbav:"error_class"`
	Message       string `dynamodbav:"message"`
	Attempt       int    `dynamodbav:"attempt"`
	MessageID     string `dynamodbav:"message_id,omitempty"`
	CorrelationID string `dynamodbav:"correlation_id,omitempty"`
	Decision      string `dynamodbav:"decision"`
	Retryable     bool   `dynamodbav:"retryable"`
	ExpiresAt     int64  `dynamodbav:"expires_at"`
	// By, ResolvedClass and DeadLetterID are set on resolutions only
	// (error_class ResolvedClass).
	By            string `dynamodbav:"by,omitempty"`
	ResolvedClass string `dynamodbav:"resolved_class,omitempty"`
	DeadLetterID  string `dynamodbav:"dead_letter_id,omitempty"`
}

func toLogRecord(e LogEntry) logRecord {
	at := formatTime(e.OccurredAt)
	return logRecord{
		ItemID: e.ItemID, OccurredAt: at + "#" + e.MessageID, At: at, Day: e.OccurredAt.UTC().Format("2006-01-02"),
		Stage: string(e.Stage), ErrorClass: string(e.Class), Message: e.Message, Attempt: e.Attempt,
		MessageID: e.MessageID, CorrelationID: e.CorrelationID, Decision: e.Decision, Retryable: e.Retryable,
		ExpiresAt: e.OccurredAt.Add(ErrorLogRetention).Unix(),
	}
}

// Append writes e. Entries are immutable: the same failure appended twice
// (a retried write) overwrites itself rather than duplicating.
func (l *ErrorLog) Append(ctx context.Context, e LogEntry) error {
	av, err := attributevalue.MarshalMap(toLogRecord(e))
	if err != nil {
		return fmt.Errorf("error log for %s: encode: %w", e.ItemID, err)
	}
	if _, err := l.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: &l.Table, Item: av}); err != nil {
		return fmt.Errorf("error log for %s: %w", e.ItemID, err)
	}
	return nil
}
