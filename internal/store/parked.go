package store

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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// ParkedWait is a parked record as the scheduler sees it, written by Park
// or ParkWait together with the item: a plain due wait, or a wait behind a
// gate.
type ParkedWait struct {
	// ItemID is the parked item (the record's key); Stage the stage its
	// envelope goes back to.
	ItemID string
	Stage  work.Stage
	// Gate is what the wait is behind; gates.DueName for a plain due wait.
	Gate gates.Name
	// DueAt is when a plain due wait's envelope goes back on its stage
	// queue; for a gate wait, the expected opening (zero when unknown).
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
	// Probes and Suspect are the item's suspect record when it parked
	// (store.Parking): the probes it served and failed, and whether it has
	// failed provider-wide at all.
	Probes  int
	Suspect bool
}

// ParkedAPI is the part of the DynamoDB client the parked store uses.
type ParkedAPI interface {
	dynamo.Querier
	dynamo.Getter
	dynamo.Updater
	dynamo.Deleter
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

// ByDueIndex is the parked table's GSI of plain due waits (hash shard,
// range due_at).
const ByDueIndex = "by-due"

// ByGateIndex is the parked table's GSI of gate waits (hash gate, range
// parked_at): a gate's waiters, oldest first.
const ByGateIndex = "by-gate"

// MaxWaitingPage is the most waiters Waiting returns at once.
const MaxWaitingPage = 1000

// Due calls fn with each page of records due at now (due_at ≤ now), oldest
// first, until the last page, or fn returns an error (ErrStop ends it
// without one). Pages come from the by-due GSI and are eventually
// consistent: a record may be listed just after it was deleted or claimed,
// which Claim's condition catches.
func (p *Parked) Due(ctx context.Context, now time.Time, fn func([]ParkedWait) error) error {
	b := dynamo.New()
	// shard is a DynamoDB reserved word: named through a placeholder, or
	// DynamoDB refuses the query (moto does not check reserved words).
	key := b.Name("shard") + " = " + b.Str(ParkedShard) + " AND due_at <= " + b.Num(toMillis(now))
	size := p.PageSize
	if size <= 0 {
		size = DefaultParkedPage
	}
	in := &dynamodb.QueryInput{
		TableName: &p.Table, IndexName: aws.String(ByDueIndex),
		KeyConditionExpression: &key, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
		Limit: aws.Int32(size),
	}
	for pages := dynamodb.NewQueryPaginator(p.DB, in); pages.HasMorePages(); {
		out, err := pages.NextPage(ctx)
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
	}
	return nil
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
	b := dynamo.New()
	now = now.UTC()
	cond := "attribute_exists(item_id) AND due_at = " + b.Num(toMillis(w.DueAt)) + " AND due_at <= " + b.Num(toMillis(now)) +
		" AND (attribute_not_exists(claimed_by) OR claimed_until < " + b.Num(toMillis(now)) + ")"
	update := "SET claimed_by = " + b.Str(owner) + ", claimed_until = " + b.Num(toMillis(until)) + ", claimed_at = " + b.Num(toMillis(now))
	_, err := p.DB.UpdateItem(ctx, b.Update(p.Table, itemKey(w.ItemID), update, cond))
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
	b := dynamo.New()
	cond := "attribute_not_exists(item_id) OR (due_at = " + b.Num(toMillis(w.DueAt)) + " AND claimed_by = " + b.Str(owner) + ")"
	_, err := p.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &p.Table, Key: itemKey(w.ItemID), ConditionExpression: &cond, ExpressionAttributeValues: b.Values,
	})
	if err != nil {
		return fmt.Errorf("delete parked wait of %s: %w", w.ItemID, mapErr(err))
	}
	return nil
}

// Waiting returns up to limit (at most MaxWaitingPage) waiters of gate g,
// oldest first, from the by-gate index (eventually consistent: a waiter
// released a moment ago may still be listed, which Unpark's condition
// catches).
func (p *Parked) Waiting(ctx context.Context, g gates.Name, limit int) ([]ParkedWait, error) {
	limit = min(limit, MaxWaitingPage)
	if limit <= 0 || g.IsDue() {
		return nil, nil
	}
	b := dynamo.New()
	key := b.Name("gate") + " = " + b.Str(string(g))
	in := &dynamodb.QueryInput{
		TableName: &p.Table, IndexName: aws.String(ByGateIndex),
		KeyConditionExpression: &key, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
		ScanIndexForward: aws.Bool(true),
	}
	var out []ParkedWait
	for len(out) < limit {
		in.Limit = aws.Int32(int32(limit - len(out)))
		page, err := p.DB.Query(ctx, in)
		if err != nil {
			return out, fmt.Errorf("query the waiters of %s: %w", g, err)
		}
		for _, av := range page.Items {
			var r parkedRecord
			if err := attributevalue.UnmarshalMap(av, &r); err != nil {
				return out, fmt.Errorf("decode a waiter of %s: %w", g, err)
			}
			out = append(out, r.wait())
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	return out, nil
}

// maxCountPages bounds Count's query (1 MB a page: about 3,000 waiters).
const maxCountPages = 100

// Count returns how many waiters gate g has (at most what maxCountPages
// pages hold), from the by-gate index with Select COUNT: the scheduler
// reads it once, when the gate opens, to start its ramp at the rate the
// waiters arrived at.
func (p *Parked) Count(ctx context.Context, g gates.Name) (int, error) {
	if g.IsDue() {
		return 0, nil
	}
	b := dynamo.New()
	key := b.Name("gate") + " = " + b.Str(string(g))
	in := &dynamodb.QueryInput{
		TableName: &p.Table, IndexName: aws.String(ByGateIndex), Select: types.SelectCount,
		KeyConditionExpression: &key, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}
	n := 0
	pages := dynamodb.NewQueryPaginator(p.DB, in)
	for range maxCountPages {
		if !pages.HasMorePages() {
			break
		}
		page, err := pages.NextPage(ctx)
		if err != nil {
			return n, fmt.Errorf("count the waiters of %s: %w", g, err)
		}
		n += int(page.Count)
	}
	return n, nil
}

// Unpark retires a gate wait whose envelope was sent:
//
//	condition  attribute_not_exists(item_id) OR (gate = :gate AND parked_at = :parked_at)
//
// ErrConflict means the item parked again since it was listed (a new wait,
// which stays). A record already gone is not an error.
func (p *Parked) Unpark(ctx context.Context, w ParkedWait) error {
	b := dynamo.New()
	cond := "attribute_not_exists(item_id) OR (" + b.Name("gate") + " = " + b.Str(string(w.Gate)) +
		" AND parked_at = " + b.Str(formatTime(w.ParkedAt)) + ")"
	_, err := p.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &p.Table, Key: itemKey(w.ItemID), ConditionExpression: &cond,
		ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	})
	if err != nil {
		return fmt.Errorf("unpark %s from %s: %w", w.ItemID, w.Gate, mapErr(err))
	}
	return nil
}

func (r parkedRecord) wait() ParkedWait {
	g := gates.DueName
	if r.Gate != "" {
		g = gates.Name(r.Gate)
	}
	return ParkedWait{
		ItemID: r.ItemID, Stage: work.Stage(r.Stage), Gate: g, DueAt: fromMillis(r.DueAt), Envelope: r.Envelope,
		Reason: r.Reason, ParkedAt: parseTime(r.ParkedAt), ClaimedBy: r.ClaimedBy, ClaimedUntil: fromMillis(r.ClaimedUntil),
		Probes: r.Probes, Suspect: r.Suspect,
	}
}

// MemoryParked is the in-memory twin of Parked over a Memory's parked
// waits (those Memory.Park and Memory.ParkWait wrote), with the same rules.
type MemoryParked struct{ m *Memory }

// ParkedStore returns m's parked waits as a store for the scheduler.
func (m *Memory) ParkedStore() *MemoryParked { return &MemoryParked{m: m} }

type parkedClaim struct {
	owner string
	due   time.Time
	until time.Time
}

// memParked is one parked wait in Memory; seq orders gate waits (and tells
// a re-park from the wait it replaced).
type memParked struct {
	Parking
	at  time.Time
	seq uint64
}

// gateQueue is one gate's waiters in park order; an entry whose seq no
// longer matches its item's parked wait is stale and skipped (and dropped
// when stale entries are half the queue).
type gateQueue struct {
	entries []gateEntry
	stale   int
}

type gateEntry struct {
	id  string
	seq uint64
}

// putParked stores a parked wait, replacing the item's earlier one. The
// caller holds m.mu.
func (m *Memory) putParked(id string, now time.Time, p Parking) {
	m.dropParked(id)
	m.parkSeq++
	pk := memParked{Parking: p, at: now, seq: m.parkSeq}
	m.parked[id] = pk
	if !p.OnGate() {
		m.dueWaits[id] = struct{}{}
		return
	}
	q := m.byGate[p.Gate]
	if q == nil {
		q = &gateQueue{}
		m.byGate[p.Gate] = q
	}
	q.entries = append(q.entries, gateEntry{id: id, seq: pk.seq})
}

// dropParked removes an item's parked wait. The caller holds m.mu.
func (m *Memory) dropParked(id string) {
	pk, ok := m.parked[id]
	if !ok {
		return
	}
	delete(m.parked, id)
	delete(m.parkedClaims, id)
	if !pk.OnGate() {
		delete(m.dueWaits, id)
		return
	}
	q := m.byGate[pk.Gate]
	if q == nil {
		return
	}
	q.stale++
	if q.stale*2 >= len(q.entries) {
		live := q.entries[:0]
		for _, e := range q.entries {
			if cur, ok := m.parked[e.id]; ok && cur.seq == e.seq {
				live = append(live, e)
			}
		}
		clear(q.entries[len(live):])
		q.entries, q.stale = live, 0
	}
	if len(q.entries) == 0 {
		delete(m.byGate, pk.Gate)
	}
}

func (m *Memory) waitOf(id string, pk memParked) ParkedWait {
	g := pk.Gate
	if g == "" {
		g = gates.DueName
	}
	return ParkedWait{ItemID: id, Stage: pk.Envelope.Stage, Gate: g, DueAt: pk.DueAt, Envelope: pk.Envelope.Encode(),
		Reason: pk.Reason, ParkedAt: pk.at, Probes: pk.Probes, Suspect: pk.Suspect}
}

// Due calls fn once with every plain due wait due at now, oldest first.
func (p *MemoryParked) Due(_ context.Context, now time.Time, fn func([]ParkedWait) error) error {
	p.m.mu.Lock()
	var page []ParkedWait
	for id := range p.m.dueWaits {
		pk := p.m.parked[id]
		if pk.DueAt.After(now) {
			continue
		}
		w := p.m.waitOf(id, pk)
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
	if !ok || pk.OnGate() || !pk.DueAt.Equal(w.DueAt) || pk.DueAt.After(now) {
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
	if pk.OnGate() || !pk.DueAt.Equal(w.DueAt) || !held || c.owner != owner || !c.due.Equal(pk.DueAt) {
		return fmt.Errorf("delete parked wait of %s: %w", w.ItemID, ErrConflict)
	}
	p.m.dropParked(w.ItemID)
	return nil
}

// Waiting returns up to limit waiters of g, oldest first.
func (p *MemoryParked) Waiting(_ context.Context, g gates.Name, limit int) ([]ParkedWait, error) {
	limit = min(limit, MaxWaitingPage)
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	q := p.m.byGate[g]
	if q == nil || limit <= 0 || g.IsDue() {
		return nil, nil
	}
	var out []ParkedWait
	for _, e := range q.entries {
		if len(out) == limit {
			break
		}
		if pk, ok := p.m.parked[e.id]; ok && pk.seq == e.seq {
			out = append(out, p.m.waitOf(e.id, pk))
		}
	}
	return out, nil
}

// Count returns how many waiters g has.
func (p *MemoryParked) Count(_ context.Context, g gates.Name) (int, error) {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	q := p.m.byGate[g]
	if q == nil || g.IsDue() {
		return 0, nil
	}
	n := 0
	for _, e := range q.entries {
		if pk, ok := p.m.parked[e.id]; ok && pk.seq == e.seq {
			n++
		}
	}
	return n, nil
}

// Unpark retires a gate wait under Parked.Unpark's rules.
func (p *MemoryParked) Unpark(_ context.Context, w ParkedWait) error {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	pk, ok := p.m.parked[w.ItemID]
	if !ok {
		return nil
	}
	if pk.Gate != w.Gate || !pk.at.Equal(w.ParkedAt) {
		return fmt.Errorf("unpark %s from %s: %w", w.ItemID, w.Gate, ErrConflict)
	}
	p.m.dropParked(w.ItemID)
	return nil
}

// Gates returns the gates that have waiters, in name order (the in-memory
// twin's view of what the gates table lists).
func (p *MemoryParked) Gates() []gates.Name {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	out := make([]gates.Name, 0, len(p.m.byGate))
	for g, q := range p.m.byGate {
		if len(q.entries) > q.stale {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}
