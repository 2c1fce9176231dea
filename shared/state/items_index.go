package state

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/shared/dynamoexpr"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
)

// ItemQuery selects items in one state. Zero fields do not filter.
type ItemQuery struct {
	// State is the state to list; required.
	State State
	// Stage keeps items at this stage.
	Stage pipeline.Stage
	// Classes keeps items whose last failure (last_error, else the dead
	// letter) has one of these classes.
	Classes []failure.Class
	// Since and Before keep items whose last failure is in [Since, Before);
	// an item that never failed has no failure time and is dropped by either.
	Since, Before time.Time
	// Limit bounds how many items are delivered; zero is DefaultListLimit.
	Limit int
	// MaxScan bounds how many items are read to find them (filters apply
	// after the read); zero is DefaultMaxScan. Reaching it is ErrScanLimit.
	MaxScan int
}

// DefaultListLimit is ItemQuery.Limit's default.
const DefaultListLimit = 1000

// DefaultMaxScan is ItemQuery.MaxScan's default.
const DefaultMaxScan = 50_000

// ErrScanLimit is returned by List when it read MaxScan items without
// reaching the end of the state or the limit: the listing is partial.
var ErrScanLimit = errors.New("scan limit reached: the listing is partial; narrow the query")

// ErrStop, returned by a List callback, ends the listing early without an
// error.
var ErrStop = errors.New("stop listing")

// FailureClass is the class of the item's last failure: last_error's, else
// the dead letter's, else empty.
func (it Item) FailureClass() failure.Class {
	if it.LastError != nil && it.LastError.ErrorClass != "" {
		return it.LastError.ErrorClass
	}
	if it.DeadLetter != nil {
		return it.DeadLetter.Class
	}
	return ""
}

// Matches reports whether it satisfies q.
func (q ItemQuery) Matches(it Item) bool {
	if it.State != q.State || (q.Stage != "" && it.Stage != q.Stage) {
		return false
	}
	if len(q.Classes) > 0 && !slices.Contains(q.Classes, it.FailureClass()) {
		return false
	}
	if !q.Since.IsZero() && (it.LastFailureAt.IsZero() || it.LastFailureAt.Before(q.Since)) {
		return false
	}
	if !q.Before.IsZero() && (it.LastFailureAt.IsZero() || !it.LastFailureAt.Before(q.Before)) {
		return false
	}
	return true
}

func (q ItemQuery) limit() int {
	if q.Limit > 0 {
		return q.Limit
	}
	return DefaultListLimit
}

// ItemsQueryAPI is the part of the DynamoDB client ItemIndex uses: Query
// through the index, Scan for the states the index does not hold.
type ItemsQueryAPI interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// ItemIndex lists items by state. The states an operator replays (failed,
// deadletter: DeadLetterStates) go through the Items table's by-listed-state
// GSI, a sparse index (hash list_key "<state>#<shard>", range updated_at)
// that holds only items in those states, spread over ListShards partitions
// per state: the happy path never writes it, and at any rate no partition of
// it is hot (docs/scale.md). Other states are read with a Scan, bounded by
// MaxScan. GSI reads are eventually consistent: an item that changed a
// moment ago may be listed in its old state, so callers that act on an item
// re-check it with a conditional write.
type ItemIndex struct {
	DB ItemsQueryAPI
	// Table is the Items table name.
	Table string
	// PageSize is the Query and Scan page size; zero is 200.
	PageSize int32
}

// ListedStateIndex is the Items table's sparse GSI of failed and
// dead-lettered items.
const ListedStateIndex = "by-listed-state"

// ListShards is how many partitions of ListedStateIndex hold one state.
const ListShards = 16

// listed reports whether ListedStateIndex holds items in state s.
func listed(s State) bool { return s == Failed || s == Deadletter }

// IndexShard is the item's shard of every sharded index (by-listed-state,
// the error log's by-class-shard): two decimal digits of a hash of its id.
func IndexShard(id string) string { return shardOf(id) }

// ListKey is the item's key in ListedStateIndex in state s, "" when the
// index does not hold s.
func ListKey(id string, s State) string { return listKey(id, s) }

func shardOf(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return fmt.Sprintf("%02d", h.Sum32()%ListShards)
}

// listKey is the item's key in ListedStateIndex in state s, "" when the
// index does not hold s.
func listKey(id string, s State) string {
	if !listed(s) {
		return ""
	}
	return string(s) + "#" + shardOf(id)
}

// List calls fn for each item matching q, newest first, until q's limit,
// ErrStop from fn or another error from fn (which List returns). It reads
// every shard of q's state (or scans the table for a state the index does
// not hold), at most q.MaxScan items in all — ErrScanLimit beyond — and then
// delivers the matches newest first. Since narrows the key condition
// (updated_at ≥ Since, a superset: an item's updated_at is never before its
// last failure); the other filters apply to each item read.
func (x *ItemIndex) List(ctx context.Context, q ItemQuery, fn func(Item) error) error {
	if q.State == "" {
		return errors.New("list items: a state is required")
	}
	page := x.PageSize
	if page <= 0 {
		page = 200
	}
	maxScan := q.MaxScan
	if maxScan <= 0 {
		maxScan = DefaultMaxScan
	}
	var (
		found   []Item
		scanned int
	)
	// pages reads one source page by page: read returns a page's items, the
	// items it read to find them, and the key to go on from. It stops at the
	// source's end, when enough returns true, or at MaxScan (ErrScanLimit).
	pages := func(read func(start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, map[string]types.AttributeValue, error),
		enough func() bool) error {
		var start map[string]types.AttributeValue
		for {
			if scanned >= maxScan {
				return fmt.Errorf("list %s items: %w (read %d)", q.State, ErrScanLimit, scanned)
			}
			items, read, last, err := read(start)
			if err != nil {
				return fmt.Errorf("list %s items: %w", q.State, err)
			}
			scanned += read
			for _, av := range items {
				it, err := decodeItem(av)
				if err != nil {
					return err
				}
				if q.Matches(it) {
					found = append(found, it)
				}
			}
			if len(last) == 0 || enough() {
				return nil
			}
			start = last
		}
	}
	if listed(q.State) {
		// Each shard is read newest first, so the newest q.limit() items
		// are among the first q.limit() matches of each shard.
		for shard := range ListShards {
			before := len(found)
			b := dynamoexpr.New()
			key := "list_key = " + b.Str(string(q.State)+"#"+fmt.Sprintf("%02d", shard))
			if !q.Since.IsZero() {
				key += " AND updated_at >= " + b.Str(formatTime(q.Since))
			}
			err := pages(func(start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, map[string]types.AttributeValue, error) {
				out, err := x.DB.Query(ctx, &dynamodb.QueryInput{
					TableName: &x.Table, IndexName: aws.String(ListedStateIndex),
					KeyConditionExpression: &key, ExpressionAttributeValues: b.Values,
					ScanIndexForward: aws.Bool(false), Limit: aws.Int32(page), ExclusiveStartKey: start,
				})
				if err != nil {
					return nil, 0, nil, err
				}
				return out.Items, len(out.Items), out.LastEvaluatedKey, nil
			}, func() bool { return len(found)-before >= q.limit() })
			if err != nil {
				return err
			}
		}
	} else {
		b := dynamoexpr.New()
		filter := b.Name("state") + " = " + b.Str(string(q.State))
		err := pages(func(start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, map[string]types.AttributeValue, error) {
			out, err := x.DB.Scan(ctx, &dynamodb.ScanInput{TableName: &x.Table, FilterExpression: &filter,
				ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values, Limit: aws.Int32(page), ExclusiveStartKey: start})
			if err != nil {
				return nil, 0, nil, err
			}
			return out.Items, int(out.ScannedCount), out.LastEvaluatedKey, nil
		}, func() bool { return false })
		if err != nil {
			return err
		}
	}
	return deliver(found, q.limit(), fn)
}

// deliver calls fn for items newest (updated_at) first, at most limit.
func deliver(items []Item, limit int, fn func(Item) error) error {
	slices.SortFunc(items, func(a, b Item) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for i, it := range items {
		if i >= limit {
			return nil
		}
		if err := fn(it); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// List calls fn for each matching item, newest (updated_at) first; see
// ItemIndex.List.
func (m *Memory) List(_ context.Context, q ItemQuery, fn func(Item) error) error {
	if q.State == "" {
		return errors.New("list items: a state is required")
	}
	m.mu.Lock()
	var out []Item
	for _, it := range m.items {
		if q.Matches(it) {
			out = append(out, clone(it))
		}
	}
	m.mu.Unlock()
	return deliver(out, q.limit(), fn)
}
