package state

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

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

// ItemsQueryAPI is the part of the DynamoDB client ItemIndex uses.
type ItemsQueryAPI interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// ItemIndex lists items by state through the Items table's by-state GSI
// (hash state, range updated_at), newest first. GSI reads are eventually
// consistent: an item that changed a moment ago may be listed in its old
// state, so callers that act on an item re-check it with a conditional write.
type ItemIndex struct {
	DB ItemsQueryAPI
	// Table is the Items table name.
	Table string
	// PageSize is the Query page size; zero is 200.
	PageSize int32
}

// ByStateIndex is the Items table's GSI by state.
const ByStateIndex = "by-state"

// List calls fn for each item matching q, newest first, page by page, until
// q's limit, the last page, ErrStop from fn or another error from fn (which
// List returns). Since narrows the key condition (updated_at ≥ Since, a
// superset: an item's updated_at is never before its last failure); the other
// filters are applied to each page.
func (x *ItemIndex) List(ctx context.Context, q ItemQuery, fn func(Item) error) error {
	if q.State == "" {
		return errors.New("list items: a state is required")
	}
	b := dynamoexpr.New()
	key := b.Name("state") + " = " + b.Str(string(q.State))
	if !q.Since.IsZero() {
		key += " AND updated_at >= " + b.Str(formatTime(q.Since))
	}
	page := x.PageSize
	if page <= 0 {
		page = 200
	}
	in := &dynamodb.QueryInput{
		TableName: &x.Table, IndexName: aws.String(ByStateIndex),
		KeyConditionExpression:   &key,
		ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(page),
	}
	delivered, scanned := 0, 0
	maxScan := q.MaxScan
	if maxScan <= 0 {
		maxScan = DefaultMaxScan
	}
	for {
		if scanned >= maxScan {
			return fmt.Errorf("list %s items: %w (read %d)", q.State, ErrScanLimit, scanned)
		}
		out, err := x.DB.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("list %s items: %w", q.State, err)
		}
		scanned += len(out.Items)
		for _, av := range out.Items {
			it, err := decodeItem(av)
			if err != nil {
				return err
			}
			if !q.Matches(it) {
				continue
			}
			if err := fn(it); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
			if delivered++; delivered >= q.limit() {
				return nil
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
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
	slices.SortFunc(out, func(a, b Item) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for i, it := range out {
		if i >= q.limit() {
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
