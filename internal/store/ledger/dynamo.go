package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// API is the part of the DynamoDB client the Trail uses.
type API interface {
	dynamo.Putter
	dynamo.Updater
	dynamo.Getter
	dynamo.Querier
}

// Trail is the Audit table: hash key item_id, range key sk, TTL on
// expires_at. A function needs only the methods it calls, so its role needs
// only their actions: the llm stage PutItem (Record), the notice deliverer
// UpdateItem and GetItem (ClaimNotice, SettleNotice), the CLI Query
// (ForItem).
type Trail struct {
	DB API
	// Table is the Audit table name.
	Table string
}

// Record kinds, the kind attribute.
const (
	kindExecution = "execution"
	kindNotice    = "notice"
)

// Sort-key prefixes: executions sort by time within an item, notices by key.
const (
	execPrefix   = "exec#"
	noticePrefix = "notice#"
)

// row is a record as stored; one shape for both kinds.
type row struct {
	ItemID    string `dynamodbav:"item_id"`
	SK        string `dynamodbav:"sk"`
	Kind      string `dynamodbav:"kind"`
	At        string `dynamodbav:"at"`
	ExpiresAt int64  `dynamodbav:"expires_at"`

	CorrelationID  string `dynamodbav:"correlation_id,omitempty"`
	Stage          string `dynamodbav:"stage,omitempty"`
	Attempt        int    `dynamodbav:"attempt,omitempty"`
	Class          string `dynamodbav:"class,omitempty"`
	Delivery       string `dynamodbav:"delivery,omitempty"`
	DurationMS     int64  `dynamodbav:"duration_ms,omitempty"`
	Outcome        string `dynamodbav:"outcome,omitempty"`
	Reason         string `dynamodbav:"reason,omitempty"`
	Model          string `dynamodbav:"model,omitempty"`
	UpstreamStatus int    `dynamodbav:"upstream_status,omitempty"`

	Key        string `dynamodbav:"key,omitempty"`
	Event      string `dynamodbav:"event,omitempty"`
	State      string `dynamodbav:"state,omitempty"`
	Attempts   int    `dynamodbav:"attempts,omitempty"`
	LastAt     string `dynamodbav:"last_at,omitempty"`
	Status     int    `dynamodbav:"status,omitempty"`
	LastClass  string `dynamodbav:"last_class,omitempty"`
	LastError  string `dynamodbav:"last_error,omitempty"`
	NotBefore  int64  `dynamodbav:"not_before,omitempty"`
	Carrier    string `dynamodbav:"carrier,omitempty"`
	LeaseOwner string `dynamodbav:"lease_owner,omitempty"`
	LeaseUntil int64  `dynamodbav:"lease_until,omitempty"`
	LastWrite  string `dynamodbav:"last_write,omitempty"`
}

func executionKey(e Execution) string {
	return execPrefix + formatTime(e.StartedAt) + "#" + e.Delivery
}

func noticeKey(key string) string { return noticePrefix + key }

func executionRow(e Execution) row {
	return row{
		ItemID: e.ItemID, SK: executionKey(e), Kind: kindExecution, At: formatTime(e.StartedAt),
		ExpiresAt: e.StartedAt.Add(Retention).Unix(), CorrelationID: e.CorrelationID, Stage: string(e.Stage),
		Attempt: e.Attempt, Class: string(e.Class), Delivery: e.Delivery, DurationMS: e.Duration.Milliseconds(),
		Outcome: string(e.Outcome), Reason: work.Ellipsis(e.Reason, MaxReasonBytes), Model: e.Model, UpstreamStatus: e.UpstreamStatus,
	}
}

func (r row) entry() Entry {
	switch r.Kind {
	case kindExecution:
		return Entry{Execution: &Execution{
			ItemID: r.ItemID, CorrelationID: r.CorrelationID, Stage: work.Stage(r.Stage), Attempt: r.Attempt,
			Delivery: r.Delivery, StartedAt: parseTime(r.At), Duration: time.Duration(r.DurationMS) * time.Millisecond,
			Outcome: Outcome(r.Outcome), Class: work.Class(r.Class), Reason: r.Reason, Model: r.Model,
			UpstreamStatus: r.UpstreamStatus,
		}}
	case kindNotice:
		n := r.notice()
		return Entry{Notice: &n}
	}
	return Entry{}
}

func (r row) notice() Notice {
	return Notice{
		ItemID: r.ItemID, Key: r.Key, Event: r.Event, Stage: work.Stage(r.Stage), Class: work.Class(r.Class),
		Attempt: r.Attempt, State: NoticeState(r.State), Attempts: r.Attempts, FirstAt: parseTime(r.At),
		LastAt: parseTime(r.LastAt), Status: r.Status, LastClass: work.Class(r.LastClass), LastError: r.LastError,
		NotBefore: fromMillis(r.NotBefore), Carrier: r.Carrier, LeaseOwner: r.LeaseOwner,
		LeaseUntil: fromMillis(r.LeaseUntil), LastWrite: r.LastWrite,
	}
}

// Record writes one execution with one PutItem. Records are immutable: the
// same execution written twice (an SDK retry) overwrites itself.
func (t *Trail) Record(ctx context.Context, e Execution) error {
	if err := dynamo.Put(ctx, t.DB, t.Table, executionRow(e)); err != nil {
		return fmt.Errorf("audit %s: %w", e.ItemID, err)
	}
	return nil
}

// ClaimNotice takes the notice's lease for one delivery attempt, creating
// its record on the first claim, with one conditional UpdateItem:
//
//	condition  no record, or pending and due, or sending under a lease that has run out
//	update     state sending, lease, carrier, attempts + 1
//
// It returns the notice as claimed (Attempts counts this attempt). A claim
// that does not win returns a *ClaimError (ErrBusy) with the notice as it
// is, so the caller decides without another read.
func (t *Trail) ClaimNotice(ctx context.Context, c NoticeClaim) (Notice, error) {
	tok := c.Owner + "/claim/" + strconv.FormatInt(c.Now.UnixMilli(), 10)
	b := dynamo.New()
	now := b.Str(formatTime(c.Now))
	nowMS := b.Num(c.Now.UnixMilli())
	set := []string{
		b.Name("kind") + " = " + b.Str(kindNotice),
		b.Name("key") + " = " + b.Str(c.Key),
		b.Name("event") + " = " + b.Str(c.Event),
		b.Name("stage") + " = " + b.Str(string(c.Stage)),
		b.Name("class") + " = " + b.Str(string(c.Class)),
		b.Name("attempt") + " = " + b.Num(int64(c.Attempt)),
		b.Name("state") + " = " + b.Str(string(NoticeSending)),
		b.Name("carrier") + " = " + b.Str(c.Carrier),
		b.Name("lease_owner") + " = " + b.Str(c.Owner),
		b.Name("lease_until") + " = " + b.Num(c.Now.Add(c.LeaseFor).UnixMilli()),
		b.Name("last_at") + " = " + now,
		b.Name("last_write") + " = " + b.Str(tok),
		b.Name("at") + " = if_not_exists(" + b.Name("at") + ", " + now + ")",
		b.Name("expires_at") + " = if_not_exists(" + b.Name("expires_at") + ", " + b.Num(c.Now.Add(Retention).Unix()) + ")",
	}
	update := "SET " + strings.Join(set, ", ") + " ADD " + b.Name("attempts") + " " + b.Num(1) + " REMOVE " + b.Name("not_before")
	st := b.Name("state")
	cond := "attribute_not_exists(" + b.Name("sk") + ")" +
		" OR (" + st + " = " + b.Str(string(NoticePending)) + " AND " + b.Name("not_before") + " <= " + nowMS + ")" +
		" OR (" + st + " = " + b.Str(string(NoticeSending)) + " AND " + b.Name("lease_until") + " < " + nowMS + ")"
	in := b.Update(t.Table, t.key(c.ItemID, noticeKey(c.Key)), update, cond)
	in.ReturnValues = types.ReturnValueAllNew
	out, err := t.DB.UpdateItem(ctx, in)
	if err == nil {
		return decodeNotice(out.Attributes)
	}
	cur, cerr := t.afterConflict(ctx, c.ItemID, c.Key, err)
	switch {
	case cerr != nil:
		return Notice{}, fmt.Errorf("claim notice %s: %w", c.Key, cerr)
	case cur.LastWrite == tok:
		return cur, nil // this claim, applied before its response was lost
	}
	return Notice{}, &ClaimError{Current: cur}
}

// SettleNotice records the outcome of the attempt whose lease s.Owner
// holds, with one conditional UpdateItem. A lease another delivery took
// over (this one outlived it) is ErrLeaseLost: that delivery's outcome is
// the one that counts.
func (t *Trail) SettleNotice(ctx context.Context, s NoticeSettle) error {
	if !s.State.Final() && s.State != NoticePending {
		return fmt.Errorf("settle notice %s: state %q is not delivered, pending or abandoned", s.Key, s.State)
	}
	tok := s.Owner + "/" + string(s.State) + "/" + strconv.FormatInt(s.Now.UnixMilli(), 10)
	b := dynamo.New()
	set := []string{
		b.Name("state") + " = " + b.Str(string(s.State)),
		b.Name("last_at") + " = " + b.Str(formatTime(s.Now)),
		b.Name("last_write") + " = " + b.Str(tok),
	}
	remove := []string{b.Name("lease_owner"), b.Name("lease_until")}
	if s.Status != 0 {
		set = append(set, b.Name("status")+" = "+b.Num(int64(s.Status)))
	}
	if s.Class != "" {
		set = append(set, b.Name("last_class")+" = "+b.Str(string(s.Class)),
			b.Name("last_error")+" = "+b.Str(work.Ellipsis(s.Error, MaxReasonBytes)))
	}
	if s.State == NoticePending {
		set = append(set, b.Name("not_before")+" = "+b.Num(s.NotBefore.UnixMilli()))
	} else {
		remove = append(remove, b.Name("not_before"))
	}
	update := "SET " + strings.Join(set, ", ") + " REMOVE " + strings.Join(remove, ", ")
	cond := b.Name("state") + " = " + b.Str(string(NoticeSending)) + " AND " + b.Name("lease_owner") + " = " + b.Str(s.Owner)
	_, err := t.DB.UpdateItem(ctx, b.Update(t.Table, t.key(s.ItemID, noticeKey(s.Key)), update, cond))
	if err == nil {
		return nil
	}
	cur, cerr := t.afterConflict(ctx, s.ItemID, s.Key, err)
	switch {
	case cerr != nil:
		return fmt.Errorf("settle notice %s: %w", s.Key, cerr)
	case cur.LastWrite == tok:
		return nil
	}
	return fmt.Errorf("settle notice %s: %w (it is %s, held by %q)", s.Key, ErrLeaseLost, cur.State, cur.LeaseOwner)
}

// afterConflict returns the notice a failed conditional write found: from
// the failure itself, or one consistent read. err that is not a condition
// failure is returned as is; so is a read that fails (the outcome is then
// unknown, and deliberately not ErrBusy or ErrLeaseLost).
func (t *Trail) afterConflict(ctx context.Context, itemID, key string, err error) (Notice, error) {
	old, failed, gerr := dynamo.Seen(ctx, t.DB, t.Table, t.key(itemID, noticeKey(key)), err)
	switch {
	case !failed:
		return Notice{}, err
	case gerr != nil:
		return Notice{}, fmt.Errorf("outcome unknown: the condition failed and the notice could not be read back: %w", gerr)
	case len(old) == 0:
		return Notice{}, errors.New("outcome unknown: the condition failed and the notice does not exist")
	}
	return decodeNotice(old)
}

// ForItem returns an item's records, oldest first (executions by start,
// notices by first claim), at most limit (zero is 500; the oldest are
// kept).
func (t *Trail) ForItem(ctx context.Context, itemID string, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = 500
	}
	b := dynamo.New()
	cond := b.Name("item_id") + " = " + b.Str(itemID)
	in := &dynamodb.QueryInput{TableName: &t.Table, KeyConditionExpression: &cond,
		ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}
	out, err := dynamo.Query(ctx, t.DB, in, limit, "the audit trail of "+itemID,
		func(av map[string]types.AttributeValue) (Entry, bool, error) {
			var r row
			if err := attributevalue.UnmarshalMap(av, &r); err != nil {
				return Entry{}, false, fmt.Errorf("decode an audit record of %s: %w", itemID, err)
			}
			e := r.entry()
			return e, e.Execution != nil || e.Notice != nil, nil
		})
	if err != nil {
		return nil, err
	}
	sortEntries(out)
	return out, nil
}

func sortEntries(es []Entry) {
	slices.SortStableFunc(es, func(a, b Entry) int { return a.At().Compare(b.At()) })
}

func (t *Trail) key(itemID, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"item_id": &types.AttributeValueMemberS{Value: itemID},
		"sk":      &types.AttributeValueMemberS{Value: sk},
	}
}

func decodeNotice(av map[string]types.AttributeValue) (Notice, error) {
	var r row
	if err := attributevalue.UnmarshalMap(av, &r); err != nil {
		return Notice{}, fmt.Errorf("decode notice record: %w", err)
	}
	return r.notice(), nil
}

var (
	formatTime = store.FormatTime
	parseTime  = dynamo.ParseTime
	fromMillis = dynamo.FromMillis
)
