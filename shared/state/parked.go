package state

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/shared/dynamoexpr"
	"github.com/triagehq/triage/shared/pipeline"
)

// ParkedWait is a parked record as the scheduler sees it: a wait longer than
// SQS can hold a message, written by Park together with the item.
type ParkedWait struct {
	// ItemID is the parked item (the record's key); Stage the stage its
	// envelope goes back to.
	ItemID string
	Stage  pipeline.Stage
	// DueAt is when the envelope goes back on its stage queue.
	DueAt time.Time
	// Envelope is the message body to send, verbatim as parked.
	Envelope string
	// Reason is why it waits (the failure class); ParkedAt when it was
	// parked (zero in the in-memory twin).
	Reason   string
	ParkedAt time.Time
	// ClaimedBy and ClaimedUntil are the scheduler run holding the record,
	// if any; a claim past ClaimedUntil may be taken over.
	ClaimedBy    string
	ClaimedUntil time.Time
}

// ParkedAPI is the part of the DynamoDB client the parked store uses.
type ParkedAPI interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// Parked is the DynamoDB store of parked waits (ParkedTable), read and
// retired by the scheduler. Items.Park writes the records.
//
// Re-enqueueing is claim → send → delete, each step conditional, so a
// scheduler that crashes between any two steps loses nothing: an expired
// claim is taken again and the envelope re-sent; a second send of one
// envelope is absorbed by the stage's claim of the item (the item is
// retryable with one carrier; a second message finds it working, finished or
// carried by the first and is acknowledged as a duplicate).
type Parked struct {
	DB ParkedAPI
	// Table is the parked table name.
	Table string
	// PageSize is the Query page size of Due; zero is DefaultParkedPage.
	PageSize int32
}

// DefaultParkedPage is Parked.PageSize's default.
const DefaultParkedPage = 100

// ByDueIndex is the parked table's GSI (hash shard, range due_at).
const ByDueIndex = "by-due"

// Due calls fn with each page of records due at now (due_at ≤ now), oldest
// first, until the last page, or fn returns an error (ErrStop ends it
// without one). Pages come from the by-due GSI and are eventually
// consistent: a record may be listed just after it was deleted or claimed,
// which Claim's condition catches.
func (p *Parked) Due(ctx context.Context, now time.Time, fn func([]ParkedWait) error) error {
	b := dynamoexpr.New()
	key := "shard = " + b.Str(ParkedShard) + " AND due_at <= " + b.Num(toMillis(now))
	size := p.PageSize
	if size <= 0 {
		size = DefaultParkedPage
	}
	in := &dynamodb.QueryInput{
		TableName: &p.Table, IndexName: aws.String(ByDueIndex),
		KeyConditionExpression: &key, ExpressionAttributeValues: b.Values,
		Limit: aws.Int32(size),
	}
	for {
		out, err := p.DB.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("query due parked waits: %w", err)
		}
		page := make([]ParkedWait, 0, len(out.Items))
		for _, av := range out.Items {
			var r parkedRecord
			if err := attributevalue.UnmarshalMap(av, &r); err != nil {
				return fmt.Errorf("decode parked wait: %w", err)
			}
			page = append(page, r.wait())
		}
		if len(page) > 0 {
			if err := fn(page); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Get reads one item's parked record (strongly consistent); ErrNotFound if
// there is none.
func (p *Parked) Get(ctx context.Context, itemID string) (ParkedWait, error) {
	out, err := p.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &p.Table, Key: itemKey(itemID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return ParkedWait{}, fmt.Errorf("get parked wait of %s: %w", itemID, err)
	}
	if len(out.Item) == 0 {
		return ParkedWait{}, fmt.Errorf("get parked wait of %s: %w", itemID, ErrNotFound)
	}
	var r parkedRecord
	if err := attributevalue.UnmarshalMap(out.Item, &r); err != nil {
		return ParkedWait{}, fmt.Errorf("decode parked wait of %s: %w", itemID, err)
	}
	return r.wait(), nil
}

// Claim takes w for owner until `until`:
//
//	condition  attribute_exists(item_id) AND due_at = :due AND due_at <= :now
//	           AND (attribute_not_exists(claimed_by) OR claimed_until < :now)
//	update     SET claimed_by = :owner, claimed_until = :until, claimed_at = :now
//
// due_at = :due makes a record re-parked since it was listed (Park replaces
// it, with a new due time and no claim) unclaimable through the stale copy.
// A lost condition is ErrConflict: another run holds the record, or it is
// gone or changed.
func (p *Parked) Claim(ctx context.Context, w ParkedWait, owner string, now, until time.Time) error {
	b := dynamoexpr.New()
	now = now.UTC()
	cond := "attribute_exists(item_id) AND due_at = " + b.Num(toMillis(w.DueAt)) + " AND due_at <= " + b.Num(toMillis(now)) +
		" AND (attribute_not_exists(claimed_by) OR claimed_until < " + b.Num(toMillis(now)) + ")"
	update := "SET claimed_by = " + b.Str(owner) + ", claimed_until = " + b.Num(toMillis(until)) + ", claimed_at = " + b.Num(toMillis(now))
	_, err := p.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &p.Table, Key: itemKey(w.ItemID),
		UpdateExpression: &update, ConditionExpression: &cond, ExpressionAttributeValues: b.Values,
	})
	if err != nil {
		return fmt.Errorf("claim parked wait of %s: %w", w.ItemID, mapErr(err))
	}
	return nil
}

// Delete retires w once its envelope is sent:
//
//	condition  due_at = :due AND claimed_by = :owner
//
// ErrConflict means the record was re-parked (a new wait, which stays) or
// the claim expired and another run took it (that run re-sends; the stage's
// claim absorbs the duplicate). A record already gone is not an error.
func (p *Parked) Delete(ctx context.Context, w ParkedWait, owner string) error {
	b := dynamoexpr.New()
	cond := "attribute_not_exists(item_id) OR (due_at = " + b.Num(toMillis(w.DueAt)) + " AND claimed_by = " + b.Str(owner) + ")"
	_, err := p.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &p.Table, Key: itemKey(w.ItemID), ConditionExpression: &cond, ExpressionAttributeValues: b.Values,
	})
	if err != nil {
		return fmt.Errorf("delete parked wait of %s: %w", w.ItemID, mapErr(err))
	}
	return nil
}

func (r parkedRecord) wait() ParkedWait {
	return ParkedWait{
		ItemID: r.ItemID, Stage: pipeline.Stage(r.Stage), DueAt: fromMillis(r.DueAt), Envelope: r.Envelope,
		Reason: r.Reason, ParkedAt: parseTime(r.ParkedAt), ClaimedBy: r.ClaimedBy, ClaimedUntil: fromMillis(r.ClaimedUntil),
	}
}

// MemoryParked is the in-memory twin of Parked over a Memory's parked
// waits (those Memory.Park wrote), with the same claim rules.
type MemoryParked struct{ m *Memory }

// ParkedStore returns m's parked waits as a store for the scheduler.
func (m *Memory) ParkedStore() *MemoryParked { return &MemoryParked{m: m} }

type parkedClaim struct {
	owner string
	due   time.Time
	until time.Time
}

// Due calls fn once with every wait due at now, oldest first.
func (p *MemoryParked) Due(_ context.Context, now time.Time, fn func([]ParkedWait) error) error {
	p.m.mu.Lock()
	var page []ParkedWait
	for id, pk := range p.m.parked {
		if pk.DueAt.After(now) {
			continue
		}
		w := ParkedWait{ItemID: id, Stage: pk.Envelope.Stage, DueAt: pk.DueAt, Envelope: pk.Envelope.Encode(), Reason: pk.Reason}
		if c, ok := p.m.parkedClaims[id]; ok && c.due.Equal(pk.DueAt) {
			w.ClaimedBy, w.ClaimedUntil = c.owner, c.until
		}
		page = append(page, w)
	}
	p.m.mu.Unlock()
	slices.SortFunc(page, func(a, b ParkedWait) int {
		if c := a.DueAt.Compare(b.DueAt); c != 0 {
			return c
		}
		return strings.Compare(a.ItemID, b.ItemID)
	})
	if len(page) == 0 {
		return nil
	}
	if err := fn(page); err != nil && !errors.Is(err, ErrStop) {
		return err
	}
	return nil
}

// Claim takes w under Parked.Claim's rules.
func (p *MemoryParked) Claim(_ context.Context, w ParkedWait, owner string, now, until time.Time) error {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	pk, ok := p.m.parked[w.ItemID]
	if !ok || !pk.DueAt.Equal(w.DueAt) || pk.DueAt.After(now) {
		return fmt.Errorf("claim parked wait of %s: %w", w.ItemID, ErrConflict)
	}
	if c, held := p.m.parkedClaims[w.ItemID]; held && c.due.Equal(pk.DueAt) && !c.until.Before(now) {
		return fmt.Errorf("claim parked wait of %s: %w", w.ItemID, ErrConflict)
	}
	if p.m.parkedClaims == nil {
		p.m.parkedClaims = map[string]parkedClaim{}
	}
	p.m.parkedClaims[w.ItemID] = parkedClaim{owner: owner, due: pk.DueAt, until: until}
	return nil
}

// Delete retires w under Parked.Delete's rules.
func (p *MemoryParked) Delete(_ context.Context, w ParkedWait, owner string) error {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	pk, ok := p.m.parked[w.ItemID]
	if !ok {
		return nil
	}
	c, held := p.m.parkedClaims[w.ItemID]
	if !pk.DueAt.Equal(w.DueAt) || !held || c.owner != owner || !c.due.Equal(pk.DueAt) {
		return fmt.Errorf("delete parked wait of %s: %w", w.ItemID, ErrConflict)
	}
	delete(p.m.parked, w.ItemID)
	delete(p.m.parkedClaims, w.ItemID)
	return nil
}
