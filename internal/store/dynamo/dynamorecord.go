// Package dynamo is what triage's stores share of DynamoDB.
//
//   - Actions: one interface per DynamoDB action a store calls (Getter,
//     Updater, Querier, …); a store's API embeds those it calls, the list its
//     functions' roles must allow. Put writes a whole record with one
//     unconditional PutItem.
//   - Expressions: Builder names every attribute and value of an update or a
//     condition through placeholders, so reserved words ("state", "status")
//     need no care and an expression reads like the code that assembles it.
//   - Scans: ScanAll reads every page of a Scan with a bound on the pages, so
//     a table far larger than expected is an error, not an endless loop.
//   - Small shared records (circuit breakers, model health): Table reads one
//     record by its key and runs a conditional UpdateItem that returns the
//     new record or, when the condition fails, the record the condition saw;
//     times are stored as text people read or as Unix milliseconds that
//     conditions compare. The stores keep their own record types,
//     expressions and decisions.
//   - What an instance keeps of those records on the hot path, so a call
//     costs no DynamoDB request: the last record seen per key with the time
//     it was seen (Cache), the instance's own run of failures per key since
//     its last success there (Streaks), or its latest calls per key
//     (Outcomes). docs/design.md "Shared records at scale" says how breaker
//     and health use them.
package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TimeFormat is how the stores write times people read (opened_at,
// disabled_at, updated_at, …).
const TimeFormat = time.RFC3339Nano

// Put writes rec, as attributevalue marshals it, to table with one
// unconditional PutItem, replacing any record of its key. A record that
// does not marshal is an error "encode: …"; a failed write is the SDK's
// error.
func Put(ctx context.Context, db Putter, table string, rec any) error {
	av, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: av})
	return err
}

// Table is one record table: its name, the name of its string hash key and
// what its records are called in errors ("breaker", "model health").
type Table[R any] struct {
	DB   API
	Name string
	Key  string
	What string
}

// KeyOf is the key of the record id.
func (t Table[R]) KeyOf(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{t.Key: &types.AttributeValueMemberS{Value: id}}
}

// Decode unmarshals one stored record.
func (t Table[R]) Decode(av map[string]types.AttributeValue) (R, error) {
	var r R
	if err := attributevalue.UnmarshalMap(av, &r); err != nil {
		var zero R
		return zero, fmt.Errorf("decode %s: %w", t.What, err)
	}
	return r, nil
}

// Get reads the record id; ok is false, with no error, when there is none.
func (t Table[R]) Get(ctx context.Context, id string, consistent bool) (r R, ok bool, err error) {
	out, err := t.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &t.Name, Key: t.KeyOf(id), ConsistentRead: &consistent})
	if err != nil {
		return r, false, fmt.Errorf("get %s %s: %w", t.What, id, err)
	}
	if len(out.Item) == 0 {
		return r, false, nil
	}
	r, err = t.Decode(out.Item)
	return r, err == nil, err
}

// Find reads the record id; when there is none, the error wraps notFound.
func (t Table[R]) Find(ctx context.Context, id string, consistent bool, notFound error) (R, error) {
	r, ok, err := t.Get(ctx, id, consistent)
	if err == nil && !ok {
		err = fmt.Errorf("get %s %s: %w", t.What, id, notFound)
	}
	return r, err
}

// Update is the conditional UpdateItem of the record id, returning the new
// record (ALL_NEW) and, when cond fails, the old one (ALL_OLD). An empty
// cond makes it unconditional.
func (t Table[R]) Update(id, update, cond string, b *Builder) *dynamodb.UpdateItemInput {
	in := b.Update(t.Name, t.KeyOf(id), update, cond)
	in.ReturnValues = types.ReturnValueAllNew
	return in
}

// Update is the UpdateItem of key in table with b's names and values (none
// sent when b has none: DynamoDB refuses an empty map), on condition cond
// (none when empty); a failed condition returns the item it saw (ALL_OLD),
// which Seen reads.
func (b *Builder) Update(table string, key map[string]types.AttributeValue, update, cond string) *dynamodb.UpdateItemInput {
	in := &dynamodb.UpdateItemInput{
		TableName: &table, Key: key, UpdateExpression: &update,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if len(b.Names) > 0 {
		in.ExpressionAttributeNames = b.Names
	}
	if len(b.Values) > 0 {
		in.ExpressionAttributeValues = b.Values
	}
	if cond != "" {
		in.ConditionExpression = &cond
	}
	return in
}

// InTransaction is in as one update of a TransactWriteItems; a failed
// condition cancels the transaction with the item it saw (ALL_OLD), whatever
// in asked of a lone UpdateItem.
func InTransaction(in *dynamodb.UpdateItemInput) *types.Update {
	return &types.Update{
		TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression,
		ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
		ExpressionAttributeValues:           in.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// Try runs the conditional update of the record id and reads nothing back:
// ok is false, with no error, when cond failed (there was nothing to do).
// Other errors are returned for the caller to wrap.
func (t Table[R]) Try(ctx context.Context, id, update, cond string, b *Builder) (ok bool, err error) {
	in := t.Update(id, update, cond, b)
	in.ReturnValues, in.ReturnValuesOnConditionCheckFailure = types.ReturnValueNone, types.ReturnValuesOnConditionCheckFailureNone
	if _, err := t.DB.UpdateItem(ctx, in); err != nil {
		if ConditionFailed(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// Outcome is what Apply found.
type Outcome[R any] struct {
	// Record is the new record when Applied, otherwise the record the
	// failed condition saw (the zero R when Exists is false).
	Record R
	// Applied is whether the condition held and the update applied.
	Applied bool
	// Exists is whether there was a record (always true when Applied).
	Exists bool
}

// Apply runs in, one conditional UpdateItem of the record id (see Update).
// A failed condition is not an error: the Outcome carries the record it
// saw (Seen). Other errors, and a failed read after the conflict
// ("read after conflict: …"), are returned for the caller to wrap.
func (t Table[R]) Apply(ctx context.Context, id string, in *dynamodb.UpdateItemInput) (Outcome[R], error) {
	out, err := t.DB.UpdateItem(ctx, in)
	if err == nil {
		r, err := t.Decode(out.Attributes)
		return Outcome[R]{Record: r, Applied: true, Exists: true}, err
	}
	old, failed, rerr := Seen(ctx, t.DB, t.Name, t.KeyOf(id), err)
	switch {
	case !failed:
		return Outcome[R]{}, err
	case rerr != nil:
		return Outcome[R]{}, fmt.Errorf("read after conflict: get %s %s: %w", t.What, id, rerr)
	case len(old) == 0:
		return Outcome[R]{}, nil
	}
	r, err := t.Decode(old)
	return Outcome[R]{Record: r, Exists: err == nil}, err
}

// Seen returns the item a failed condition saw: the one err carries
// (ReturnValuesOnConditionCheckFailure ALL_OLD) or, from an implementation
// that sends none, the one a consistent GetItem of key reads; nil when
// there is none. failed is false, and nothing is read, when err is not a
// failed condition. readErr is the GetItem's, for the caller to wrap: it
// leaves the outcome of the write for the caller to tell.
func Seen(ctx context.Context, db Getter, table string, key map[string]types.AttributeValue, err error) (
	item map[string]types.AttributeValue, failed bool, readErr error) {
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return nil, false, nil
	}
	if len(ccf.Item) > 0 {
		return ccf.Item, true, nil
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, true, err
	}
	return out.Item, true, nil
}

// List scans the whole table (at most maxPages pages, consistent or not)
// and returns every record converted by conv, sorted by cmp.
// Errors say "list <What> records".
func List[R, T any](ctx context.Context, t Table[R], consistent bool, maxPages int, conv func(R) T, cmp func(a, b T) int) ([]T, error) {
	in := &dynamodb.ScanInput{TableName: &t.Name}
	if consistent {
		in.ConsistentRead = &consistent
	}
	out, err := ScanAll(ctx, t.DB, in, maxPages, func(av map[string]types.AttributeValue) (T, error) {
		r, err := t.Decode(av)
		return conv(r), err
	}, cmp)
	if err != nil {
		return nil, fmt.Errorf("list %s records: %w", t.What, err)
	}
	return out, nil
}

// ConditionFailed reports whether err is DynamoDB's failed condition.
func ConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// NewToken returns a random owner or write token: 24 hex digits.
// Uniqueness is all it needs; it takes part in no decision.
func NewToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ParseTime reads a time stored in TimeFormat, in UTC; empty or unreadable
// text is the zero time.
func ParseTime(s string) time.Time {
	t, err := time.Parse(TimeFormat, s)
	if s == "" || err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// FromMillis reads a time stored as Unix milliseconds, in UTC; 0 is the
// zero time.
func FromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
