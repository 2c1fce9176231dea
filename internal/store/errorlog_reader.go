package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// ErrorLogQueryAPI is the part of the DynamoDB client ErrorLogReader uses.
type ErrorLogQueryAPI interface {
	dynamo.Querier
}

// ErrorLogReader reads the error log for reports and `triage dlq show`:
// by class and time through the by-class GSI, or one item's history from
// the table itself.
type ErrorLogReader struct {
	DB ErrorLogQueryAPI
	// Table is the ErrorLog table name.
	Table string
}

// ByClassIndex is the ErrorLog table's GSI by class (hash class_shard
// "<class>#<shard>", range occurred_at): every class spread over
// ClassShards partitions by item, so that no class is a hot partition at any
// failure rate (docs/scale.md). Replay and note entries are not in it.
const ByClassIndex = "by-class-shard"

// UnrecognisedIndex is the ErrorLog table's sparse GSI of the failures
// nothing recognised (LogEntry.Unrecognised: UNKNOWN, or a class only a
// default decided): hash unrecognised_shard (the item's ClassShard), range
// occurred_at. Only those entries carry unrecognised_shard, so a report of
// them reads them alone, never the whole log.
const UnrecognisedIndex = "by-unrecognised"

// Between calls fn for every entry that occurred in [since, until) (a zero
// until is unbounded), class by class of work.Classes(), each class read
// through its ClassShards partitions of the by-class GSI and delivered
// oldest first. fn returning ErrStop ends the read without an error.
// Entries older than ErrorLogRetention may already be gone (TTL).
func (r *ErrorLogReader) Between(ctx context.Context, since, until time.Time, fn func(LogEntry) error) error {
	for _, c := range work.Classes() {
		err := r.class(ctx, c, since, until, fn)
		if errors.Is(err, ErrStop) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ClassBetween calls fn for every entry of class c (a pseudo-class such as
// ResolvedClass too) that occurred in [since, until), oldest first, reading
// c's ClassShards partitions of the by-class index alone. fn returning
// ErrStop ends the read without an error.
func (r *ErrorLogReader) ClassBetween(ctx context.Context, c work.Class, since, until time.Time, fn func(LogEntry) error) error {
	err := r.class(ctx, c, since, until, fn)
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

func (r *ErrorLogReader) class(ctx context.Context, c work.Class, since, until time.Time, fn func(LogEntry) error) error {
	return r.query(ctx, c, since, until, func(rec logRecord) error { return fn(rec.entry()) })
}

// Unrecognised calls fn for every failure nothing recognised
// (LogEntry.Unrecognised) that occurred in [since, until) (a zero until is
// unbounded), oldest first, read through the ClassShards partitions of
// UnrecognisedIndex. fn returning ErrStop ends the read without an error.
func (r *ErrorLogReader) Unrecognised(ctx context.Context, since, until time.Time, fn func(LogEntry) error) error {
	err := r.read(ctx, UnrecognisedIndex, "unrecognised_shard", func(shard string) string { return shard }, "unrecognised failures", since, until,
		func(rec logRecord) error { return fn(rec.entry()) })
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// query reads one class in [since, until) through its ClassShards
// partitions of the by-class index — the partitions at once, so that a read
// costs one round trip per page rather than ClassShards — and calls fn oldest
// first.
func (r *ErrorLogReader) query(ctx context.Context, c work.Class, since, until time.Time, fn func(logRecord) error) error {
	return r.read(ctx, ByClassIndex, "class_shard", func(shard string) string { return string(c) + "#" + shard }, string(c), since, until, fn)
}

// read reads the ClassShards partitions of a sharded index by time —
// hash attribute attr, whose value for a shard ("07") is key(shard),
// range occurred_at — in [since, until), the partitions at once, and
// calls fn oldest first. what names the read in errors.
func (r *ErrorLogReader) read(ctx context.Context, index, attr string, key func(shard string) string, what string, since, until time.Time, fn func(logRecord) error) error {
	shards := make([][]logRecord, ClassShards)
	errs := make([]error, ClassShards)
	var wg sync.WaitGroup
	for shard := range ClassShards {
		wg.Go(func() {
			shards[shard], errs[shard] = r.shard(ctx, index, attr, key(fmt.Sprintf("%02d", shard)), what, since, until)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	recs := slices.Concat(shards...)
	slices.SortStableFunc(recs, func(a, b logRecord) int { return parseTime(a.At).Compare(parseTime(b.At)) })
	for _, rec := range recs {
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// shard reads one partition of an index in [since, until).
func (r *ErrorLogReader) shard(ctx context.Context, index, attr, value, what string, since, until time.Time) ([]logRecord, error) {
	b := dynamo.New()
	key := attr + " = " + b.Str(value)
	switch {
	case !until.IsZero():
		// occurred_at is "<time>#<message id>", which sorts after "<time>":
		// the bounds keep entries at since and drop those at until.
		key += " AND occurred_at BETWEEN " + b.Str(formatTime(since)) + " AND " + b.Str(formatTime(until))
	case !since.IsZero():
		key += " AND occurred_at >= " + b.Str(formatTime(since))
	}
	in := &dynamodb.QueryInput{
		TableName: &r.Table, IndexName: aws.String(index),
		KeyConditionExpression: &key, ExpressionAttributeValues: b.Values,
	}
	return dynamo.Query(ctx, r.DB, in, 0, "error log for "+what,
		func(av map[string]types.AttributeValue) (logRecord, bool, error) {
			var rec logRecord
			if err := attributevalue.UnmarshalMap(av, &rec); err != nil {
				return rec, false, fmt.Errorf("decode error log entry: %w", err)
			}
			return rec, until.IsZero() || parseTime(rec.At).Before(until), nil
		})
}

// ForItem returns one item's entries, oldest first, at most limit (zero is
// 100; the newest are kept).
func (r *ErrorLogReader) ForItem(ctx context.Context, itemID string, limit int) ([]LogEntry, error) {
	if limit <= 0 {
		limit = 100
	}
	b := dynamo.New()
	key := "item_id = " + b.Str(itemID)
	in := &dynamodb.QueryInput{
		TableName: &r.Table, KeyConditionExpression: &key, ExpressionAttributeValues: b.Values,
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(int32(min(limit, 1000))),
	}
	out, err := dynamo.Query(ctx, r.DB, in, limit, "error log of "+itemID,
		func(av map[string]types.AttributeValue) (LogEntry, bool, error) {
			e, err := decodeLogEntry(av)
			return e, true, err
		})
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

func decodeLogEntry(av map[string]types.AttributeValue) (LogEntry, error) {
	var r logRecord
	if err := attributevalue.UnmarshalMap(av, &r); err != nil {
		return LogEntry{}, fmt.Errorf("decode error log entry: %w", err)
	}
	return r.entry(), nil
}

func (r logRecord) entry() LogEntry {
	return LogEntry{
		Kind: r.Kind, By: r.By, ItemID: r.ItemID, Stage: work.Stage(r.Stage), Class: work.Class(r.ErrorClass), Message: r.Message,
		Provider: failure.Provider(r.Provider), Status: r.Status, Code: r.Code,
		Attempt: r.Attempt, MessageID: r.MessageID, CorrelationID: r.CorrelationID, Decision: r.Decision,
		Retryable: r.Retryable, Default: r.Default, OccurredAt: parseTime(r.At),
	}
}
