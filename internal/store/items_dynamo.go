package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// ItemsAPI is the part of the DynamoDB client the item store uses.
type ItemsAPI interface {
	dynamo.Getter
	dynamo.Putter
	dynamo.Updater
	dynamo.Transactor
}

// Items is the DynamoDB item store. Every write after a claim is conditional
// on the caller's lease, the item's stage and state, so a write that lost a
// race fails with ErrConflict instead of overwriting.
type Items struct {
	DB ItemsAPI
	// Table is the Items table name.
	Table string
	// ParkedTable is the table of parked waits (see Park).
	ParkedTable string
	// Bodies is where documents and enrichments go (see Part): Complete
	// writes them, Hydrate reads them back.
	Bodies BodyConfig
	// ErrorLogTable receives an entry for every replay and note, in the
	// same transaction as the item's update (the item keeps only the last
	// MaxReplays and MaxNotes); empty writes none.
	ErrorLogTable string
	// IndexShards is the by-listed-state index's partitions per group, the
	// stack's ItemIndexShards (see ItemIndex); zero is DefaultIndexShards.
	// Every write that moves the item sets its key (Items.index).
	IndexShards int
}

// listKey is the item's by-listed-state key in state st.
func (s *Items) listKey(id string, st work.State) string {
	return ListKey(id, st, s.IndexShards)
}

// index is the SET clauses that put an item in state st into its group of
// the by-listed-state index: list_key, and list_at — now for a group an
// item enters at a time (failed, deadletter, done), its creation for
// flight and retrying. A write that leaves both as they were writes nothing
// to the index (KEYS_ONLY): a claim of a queued item, a stage's success on
// its way, a second failure in a row.
func (s *Items) index(b *dynamo.Builder, id string, st work.State, now time.Time) string {
	at := b.Str(formatTime(now))
	if !GroupOf(st).enteredAt() {
		at = "if_not_exists(created_at, " + at + ")"
	}
	return "list_key = " + b.Str(s.listKey(id, st)) + ", list_at = " + at
}

// record is it as the store writes it, its index key included.
func (s *Items) record(it Item) record {
	r := toRecord(it)
	r.ListKey, r.ListAt = s.listKey(it.ID, it.State), listAt(it)
	return r
}

// Create stores a new item, queued for fetch, in one conditional PutItem:
//
//	condition  attribute_not_exists(item_id)
//	item       state queued, stage fetch, status received, the spec's fields,
//	           last_write = <owner>/create/<ms>
//
// A taken id fails with an *ExistsError (matching ErrExists) carrying the
// item as it is (ReturnValuesOnConditionCheckFailure), so re-submitting an
// item can never reset its history, and the caller compares specs without
// another read. A put the SDK retried after it had been applied finds its
// own last_write token and counts as created.
func (s *Items) Create(ctx context.Context, n NewItem) (Item, error) {
	if err := n.validate(); err != nil {
		return Item{}, err
	}
	it := newItem(n)
	av, err := attributevalue.MarshalMap(s.record(it))
	if err != nil {
		return Item{}, fmt.Errorf("create %s: encode: %w", n.ID, err)
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &s.Table,
		Item:                                av,
		ConditionExpression:                 aws.String("attribute_not_exists(item_id)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return it, nil
	}
	if !isConditionFailed(err) {
		return Item{}, fmt.Errorf("create %s: %w", n.ID, err)
	}
	cur, found, rerr := s.conflictItem(ctx, n.ID, err)
	switch {
	case rerr != nil:
		return Item{}, fmt.Errorf("create %s: outcome unknown: the id is taken and the item could not be read back: %w", n.ID, rerr)
	case !found:
		// Deleted between the put and the read: nothing to compare.
		return Item{}, &ExistsError{ItemID: n.ID}
	case n.Owner != "" && cur.LastWrite == it.LastWrite:
		return cur, nil
	}
	return Item{}, &ExistsError{ItemID: n.ID, Current: &cur}
}

// newItem is the item Create writes.
func newItem(n NewItem) Item {
	return Item{
		ID: n.ID, Kind: n.Kind, SourceURL: n.SourceURL, WebhookURL: n.WebhookURL, CorrelationID: n.CorrelationID,
		Metadata: maps.Clone(n.Metadata), Notices: copyOf(n.Notices),
		Status: work.Received, State: work.Queued, Stage: work.Fetch,
		Attempts:  map[work.Stage]int{},
		CreatedAt: n.Now, UpdatedAt: n.Now,
		LastWrite: writeToken(n.Owner, "create", n.Now),
	}
}

// Put stores it as is, replacing any item with its id: for seeding tests and
// demos only — the pipeline never writes without a condition.
func (s *Items) Put(ctx context.Context, it Item) error {
	if it.Attempts == nil {
		it.Attempts = map[work.Stage]int{}
	}
	if err := dynamo.Put(ctx, s.DB, s.Table, s.record(it)); err != nil {
		return fmt.Errorf("put %s: %w", it.ID, err)
	}
	return nil
}

// Get reads an item with a strongly consistent read.
func (s *Items) Get(ctx context.Context, id string) (Item, error) {
	out, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.Table,
		Key:            itemKey(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return Item{}, fmt.Errorf("get %s: %w", id, err)
	}
	if len(out.Item) == 0 {
		return Item{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	return decodeItem(out.Item)
}

// Claim takes the item's lease for req.Stage: the item must be at that
// stage, queued or retryable and due, or working under an expired lease (or
// one this very delivery holds). It returns the item as claimed. A claim that
// does not win returns a *ClaimError carrying the item as it was, read by the
// same request (ReturnValuesOnConditionCheckFailure), so no second read is
// needed.
func (s *Items) Claim(ctx context.Context, req ClaimRequest) (Item, error) {
	b := dynamo.New()
	states := claimStates()
	inList := make([]string, len(states))
	for i, st := range states {
		inList[i] = b.Str(string(st))
	}
	cond := "attribute_exists(item_id) AND " + b.Name("stage") + " = " + b.Str(string(req.Stage)) +
		" AND (attribute_not_exists(not_before) OR not_before <= " + b.Num(toMillis(req.Now.Add(CooldownTolerance))) + ")" +
		" AND (" + b.Name("state") + " IN (" + strings.Join(inList, ", ") + ") OR (" +
		b.Name("state") + " = " + b.Str(string(work.Working)) + " AND (lease_until < " + b.Num(toMillis(req.Now)) +
		" OR lease_owner = " + b.Str(req.Owner) + ")))"
	update := "SET " + b.Name("state") + " = " + b.Str(string(work.Working)) +
		", lease_owner = " + b.Str(req.Owner) +
		", lease_until = " + b.Num(toMillis(req.Now.Add(req.LeaseFor))) +
		", carrier = " + b.Str(req.Carrier) +
		", updated_at = " + b.Str(formatTime(req.Now)) +
		", " + s.index(b, req.ItemID, work.Working, req.Now)
	in := b.Update(s.Table, itemKey(req.ItemID), update, cond)
	in.ReturnValues = types.ReturnValueAllNew
	out, err := s.DB.UpdateItem(ctx, in)
	if err != nil {
		if !dynamo.ConditionFailed(err) {
			return Item{}, fmt.Errorf("claim %s for %s: %w", req.ItemID, req.Stage, err)
		}
		ce := &ClaimError{ItemID: req.ItemID, Stage: req.Stage}
		it, ok, cerr := s.conflictItem(ctx, req.ItemID, err)
		switch {
		case cerr != nil:
			return Item{}, fmt.Errorf("claim %s for %s: read after conflict: %w", req.ItemID, req.Stage, cerr)
		case ok:
			ce.Current = &it
		}
		return Item{}, ce
	}
	return decodeItem(out.Attributes)
}

// Complete records req.Stage's success in one conditional write: the output,
// the next stage (queued) or done, status, and the reset of every failure
// field (failure_count 0, last_error, first_failure_at and the suspect
// record removed, enrichment_status success).
//
// A document or an enrichment is not stored on the item but as a body (see
// Part): up to the threshold, a sibling item put in the same
// TransactWriteItems as the update, so that both or neither are written and
// only the lease holder's body lands; above it, an S3 object written before
// the update, named by its hash. Either way the stage's happy path stays at
// two DynamoDB write requests, and the item keeps a reference of about a
// hundred bytes.
func (s *Items) Complete(ctx context.Context, req CompleteRequest) error {
	tok := writeToken(req.Owner, "complete", req.Now)
	b := dynamo.New()
	nextState, nextStage := nextAfterSuccess(req.Stage)
	set := []string{
		b.Name("state") + " = " + b.Str(string(nextState)),
		b.Name("stage") + " = " + b.Str(string(nextStage)),
		b.Name("status") + " = " + b.Str(string(work.StatusAfter(req.Stage))),
		"enrichment_status = " + b.Str(string(work.EnrichmentSuccess)),
		"failure_count = " + b.Num(0),
		"updated_at = " + b.Str(formatTime(req.Now)),
		"last_write = " + b.Str(tok),
		s.index(b, req.ItemID, nextState, req.Now),
	}
	out := boundOutput(req.Output)
	bd, err := outputBody(out)
	if err != nil {
		return fmt.Errorf("complete %s at %s: %w", req.ItemID, req.Stage, err)
	}
	var put *types.Put
	if bd != nil {
		if put, err = s.Bodies.putBody(ctx, req.ItemID, bd, req.Now); err != nil {
			return fmt.Errorf("complete %s at %s: %w", req.ItemID, req.Stage, err)
		}
		out = withRef(out, bd.ref)
	}
	if attr, v, err := outputAttr(out); err != nil {
		return fmt.Errorf("complete %s at %s: %w", req.ItemID, req.Stage, err)
	} else if attr != "" {
		set = append(set, b.Name(attr)+" = "+b.Value(v))
	}
	// The carrier goes too: the item leaves this stage's queue, and the
	// next stage's claim names its own.
	update := "SET " + strings.Join(set, ", ") + " REMOVE last_error, first_failure_at, lease_owner, lease_until, not_before, carrier, suspect"
	cond := leaseCond(b, req.Stage, req.Owner)
	in := b.Update(s.Table, itemKey(req.ItemID), update, cond)
	if put == nil {
		_, err = s.DB.UpdateItem(ctx, in)
	} else {
		// The transaction carries an idempotency token (the SDK fills
		// ClientRequestToken and reuses it on retries); settle covers an
		// implementation that does not honour it.
		_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: put},
			{Update: dynamo.InTransaction(in)},
		}})
	}
	if err != nil {
		if _, err := s.settle(ctx, req.ItemID, tok, err); err != nil {
			return fmt.Errorf("complete %s at %s: %w", req.ItemID, req.Stage, err)
		}
	}
	return nil
}

// Fail records a failed or waiting attempt: the stage's attempts and the
// failure count go up by one when req.Counts, last_error and the failure
// times are set, and the item moves to req.Next. It returns the stage's
// attempt count as written, read back from the same update. The write fails
// with ErrConflict if the lease is gone or the attempts changed since the
// claim.
func (s *Items) Fail(ctx context.Context, req FailRequest) (int, error) {
	in, err := s.failUpdate(req)
	if err != nil {
		return 0, err
	}
	in.ReturnValues = types.ReturnValueUpdatedNew
	out, err := s.DB.UpdateItem(ctx, in)
	if err != nil {
		it, err := s.settle(ctx, req.ItemID, writeToken(req.Owner, "fail/"+strconv.Itoa(req.PrevAttempts), req.Now), err)
		if err != nil {
			return 0, fmt.Errorf("record failure of %s at %s: %w", req.ItemID, req.Stage, err)
		}
		return it.Attempts[req.Stage], nil
	}
	var n int
	if av, ok := out.Attributes[attemptsAttr(req.Stage)]; ok {
		if err := attributevalue.Unmarshal(av, &n); err != nil {
			return 0, fmt.Errorf("record failure of %s: decode attempts: %w", req.ItemID, err)
		}
		return n, nil
	}
	return req.PrevAttempts + b2i(req.Counts), nil
}

// Park records a failure and the parked record that ends its wait, in one
// transaction: either both are durable or neither is. The item becomes
// retryable with no carrier: the message that carried it is acknowledged,
// and the one the scheduler sends may claim it (with a carrier left in
// place, a re-sent envelope arriving a moment before not_before would be
// taken for a duplicate and the item stranded). A plain due wait's item is
// claimable from p.DueAt; a gate wait's at once, since its gate may open
// at any time.
func (s *Items) Park(ctx context.Context, req FailRequest, p Parking) (int, error) {
	req.Next, req.NotBefore = work.Retryable, parkedNotBefore(req.Now, p)
	upd, err := s.failUpdate(req)
	if err != nil {
		return 0, err
	}
	*upd.UpdateExpression += ", carrier"
	tok := writeToken(req.Owner, "fail/"+strconv.Itoa(req.PrevAttempts), req.Now)
	it, applied, err := s.park(ctx, upd, req.ItemID, req.Stage, req.Now, p, tok)
	if err != nil {
		return 0, err
	}
	if applied {
		return it.Attempts[req.Stage], nil
	}
	return req.PrevAttempts + b2i(req.Counts), nil
}

// ParkWait gives the lease back without a failure (a wait behind a closed
// gate) and parks the item, in one transaction, like Park: no attempt is
// spent and last_error is left as it was.
func (s *Items) ParkWait(ctx context.Context, req ReleaseRequest, p Parking) error {
	req.NotBefore = parkedNotBefore(req.Now, p)
	upd, tok, err := s.releaseUpdate(req)
	if err != nil {
		return err
	}
	*upd.UpdateExpression += ", carrier"
	_, _, err = s.park(ctx, upd, req.ItemID, req.Stage, req.Now, p, tok)
	return err
}

// parkedNotBefore is a parked item's not_before: the due time of a plain
// due wait, now for a gate wait.
func parkedNotBefore(now time.Time, p Parking) time.Time {
	if p.OnGate() {
		return now
	}
	return p.DueAt
}

// park writes the item's update and the parked record in one
// TransactWriteItems. applied reports a transaction that failed its
// condition but whose item carries tok: a retry of a transaction that had
// been applied (the transaction carries an idempotency token, so DynamoDB
// answers such a retry with success; this covers an implementation that
// does not), and it is the item as written.
func (s *Items) park(ctx context.Context, upd *dynamodb.UpdateItemInput, itemID string, stage work.Stage, now time.Time,
	p Parking, tok string) (it Item, applied bool, err error) {
	parked, err := attributevalue.MarshalMap(newParkedRecord(itemID, stage, now, p))
	if err != nil {
		return Item{}, false, fmt.Errorf("park %s: encode: %w", itemID, err)
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: dynamo.InTransaction(upd)},
		{Put: &types.Put{TableName: &s.ParkedTable, Item: parked}},
	}})
	if err == nil {
		return Item{}, false, nil
	}
	it, err = s.settle(ctx, itemID, tok, err)
	if err != nil {
		return Item{}, false, fmt.Errorf("park %s at %s behind %s: %w", itemID, stage, p.Gate.String(), err)
	}
	return it, true, nil
}

func (s *Items) failUpdate(req FailRequest) (*dynamodb.UpdateItemInput, error) {
	if req.Next != work.Retryable && req.Next != work.Failed {
		return nil, fmt.Errorf("record failure of %s: next state %q is not retryable or failed", req.ItemID, req.Next)
	}
	le, err := attributevalue.Marshal(boundLastError(req.LastError))
	if err != nil {
		return nil, fmt.Errorf("record failure of %s: encode last_error: %w", req.ItemID, err)
	}
	b := dynamo.New()
	es := work.EnrichmentPending
	if req.Next == work.Failed {
		es = work.EnrichmentPermanentFailure
	}
	now := b.Str(formatTime(req.Now))
	set := []string{
		b.Name("state") + " = " + b.Str(string(req.Next)),
		"last_error = " + b.Value(le),
		"last_failure_at = " + now,
		"first_failure_at = if_not_exists(first_failure_at, " + now + ")",
		"enrichment_status = " + b.Str(string(es)),
		"updated_at = " + now,
		"last_write = " + b.Str(writeToken(req.Owner, "fail/"+strconv.Itoa(req.PrevAttempts), req.Now)),
	}
	set = append(set, s.index(b, req.ItemID, req.Next, req.Now))
	remove := []string{"lease_owner", "lease_until"}
	if req.Suspect != nil {
		sv, err := attributevalue.Marshal(req.Suspect.bound())
		if err != nil {
			return nil, fmt.Errorf("record failure of %s: encode suspect: %w", req.ItemID, err)
		}
		set = append(set, "suspect = "+b.Value(sv))
	}
	if req.Next == work.Retryable && !req.NotBefore.IsZero() {
		set = append(set, "not_before = "+b.Num(toMillis(req.NotBefore)))
	} else {
		remove = append(remove, "not_before")
	}
	inc := b.Num(int64(b2i(req.Counts)))
	update := "SET " + strings.Join(set, ", ") +
		" ADD " + attemptsAttr(req.Stage) + " " + inc + ", failure_count " + inc +
		" REMOVE " + strings.Join(remove, ", ")
	cond := leaseCond(b, req.Stage, req.Owner) + " AND " + numEquals(b, attemptsAttr(req.Stage), req.PrevAttempts)
	return b.Update(s.Table, itemKey(req.ItemID), update, cond), nil
}

// Release gives the lease back without a failure: the item is retryable at
// req.NotBefore and no attempt is spent.
func (s *Items) Release(ctx context.Context, req ReleaseRequest) error {
	in, tok, err := s.releaseUpdate(req)
	if err != nil {
		return err
	}
	if _, err := s.DB.UpdateItem(ctx, in); err != nil {
		if _, err := s.settle(ctx, req.ItemID, tok, err); err != nil {
			return fmt.Errorf("release %s at %s: %w", req.ItemID, req.Stage, err)
		}
	}
	return nil
}

func (s *Items) releaseUpdate(req ReleaseRequest) (*dynamodb.UpdateItemInput, string, error) {
	tok := writeToken(req.Owner, "release", req.Now)
	b := dynamo.New()
	update := "SET " + b.Name("state") + " = " + b.Str(string(work.Retryable)) +
		", not_before = " + b.Num(toMillis(req.NotBefore)) +
		", updated_at = " + b.Str(formatTime(req.Now)) +
		", last_write = " + b.Str(tok) +
		", " + s.index(b, req.ItemID, work.Retryable, req.Now)
	if req.Suspect != nil {
		sv, err := attributevalue.Marshal(req.Suspect.bound())
		if err != nil {
			return nil, "", fmt.Errorf("release %s: encode suspect: %w", req.ItemID, err)
		}
		update += ", suspect = " + b.Value(sv)
	}
	update += " REMOVE lease_owner, lease_until"
	cond := leaseCond(b, req.Stage, req.Owner)
	return b.Update(s.Table, itemKey(req.ItemID), update, cond), tok, nil
}

// MarkDeadLettered confirms the DLQ hand-off: failed → deadletter, on an
// item still failed at the stage with the failure the dead letter was built
// from (ref.Attempt, ref.Replay; see canMarkDeadLettered). It is idempotent
// for the same dead letter (ref.ID).
func (s *Items) MarkDeadLettered(ctx context.Context, itemID string, stage work.Stage, ref DeadLetterRef, now time.Time) error {
	if len(ref.ID) > MaxRefBytes {
		return fmt.Errorf("mark %s dead-lettered: dead letter id longer than %d bytes", itemID, MaxRefBytes)
	}
	av, err := attributevalue.Marshal(ref)
	if err != nil {
		return fmt.Errorf("mark %s dead-lettered: encode: %w", itemID, err)
	}
	tok := "deadletter/" + ref.ID
	b := dynamo.New()
	update := "SET " + b.Name("state") + " = " + b.Str(string(work.Deadletter)) +
		", dead_letter = " + b.Value(av) + ", updated_at = " + b.Str(formatTime(now)) +
		", last_write = " + b.Str(tok) + ", " + s.index(b, itemID, work.Deadletter, now)
	cond := b.Name("state") + " = " + b.Str(string(work.Failed)) + " AND " + b.Name("stage") + " = " + b.Str(string(stage)) +
		" AND " + numEquals(b, attemptsAttr(stage), ref.Attempt) + " AND " + numEquals(b, "replay_count", ref.Replay)
	_, err = s.DB.UpdateItem(ctx, b.Update(s.Table, itemKey(itemID), update, cond))
	if err != nil {
		if _, err := s.settle(ctx, itemID, tok, err); err != nil {
			return fmt.Errorf("mark %s dead-lettered at %s: %w", itemID, stage, err)
		}
	}
	return nil
}

// settle decides what a conditional write that failed means. The SDK
// retries a request whose response was lost; if DynamoDB had applied the
// first attempt, the retry fails the condition that attempt changed. The
// item's last_write token tells the two apart: the write's own token means it
// was applied, and settle returns the item; another token means a real
// conflict (ErrConflict). The item comes with the failure
// (ReturnValuesOnConditionCheckFailure) or, where an implementation does not
// return it, from one consistent read. If that read fails the outcome is
// unknown, and the error returned is deliberately not ErrConflict: the caller
// must keep its record for a redelivery rather than believe another delivery
// owns the item.
func (s *Items) settle(ctx context.Context, id, token string, err error) (Item, error) {
	if !isConditionFailed(err) {
		return Item{}, err
	}
	cur, found, rerr := s.conflictItem(ctx, id, err)
	switch {
	case rerr != nil:
		return Item{}, fmt.Errorf("outcome unknown: the condition failed and the item could not be read back (%v): %w", err, rerr)
	case found && cur.LastWrite == token:
		return cur, nil
	}
	return Item{}, mapErr(err)
}

// conflictItem returns the item as a failed condition saw it: from the
// error when DynamoDB sent it, else read.
func (s *Items) conflictItem(ctx context.Context, id string, err error) (Item, bool, error) {
	var old map[string]types.AttributeValue
	var ccf *types.ConditionalCheckFailedException
	var tce *types.TransactionCanceledException
	switch {
	case errors.As(err, &ccf):
		old = ccf.Item
	case errors.As(err, &tce):
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && *r.Code == "ConditionalCheckFailed" && r.Item != nil {
				old = r.Item
			}
		}
	}
	if old != nil {
		it, derr := decodeItem(old)
		return it, derr == nil, derr
	}
	it, gerr := s.Get(ctx, id)
	switch {
	case errors.Is(gerr, ErrNotFound):
		return Item{}, false, nil
	case gerr != nil:
		return Item{}, false, gerr
	}
	return it, true, nil
}

// ParkedShard is the by-due GSI partition of plain due waits. One
// partition is plenty: due waits are few (waits behind a closed gate are
// indexed by gate instead).
const ParkedShard = "due"

// ParkedRetention keeps a plain due wait's record this long past its due
// time before DynamoDB TTL may remove it: a safety net, the scheduler
// deletes it. A gate wait's record has no expiry: it lasts as long as its
// gate stays closed.
const ParkedRetention = 14 * 24 * time.Hour

// parkedRecord is a parked wait as stored. A plain due wait has shard and
// due_at (the by-due index) and expires_at; a gate wait has gate and
// parked_at (the by-gate index), due_at only as the expected opening, and
// no expiry.
type parkedRecord struct {
	ItemID    string `dynamodbav:"item_id"`
	Stage     string `dynamodbav:"stage"`
	Shard     string `dynamodbav:"shard,omitempty"`
	Gate      string `dynamodbav:"gate,omitempty"`
	DueAt     int64  `dynamodbav:"due_at,omitempty"`
	Envelope  string `dynamodbav:"envelope"`
	Reason    string `dynamodbav:"reason,omitempty"`
	ParkedAt  string `dynamodbav:"parked_at"`
	ExpiresAt int64  `dynamodbav:"expires_at,omitempty"`
	ClaimedBy string `dynamodbav:"claimed_by,omitempty"`
	ClaimedAt int64  `dynamodbav:"claimed_at,omitempty"`
	// Probes and Suspect are the item's suspect record as the scheduler
	// reads it when it picks a gate's probe (Parking).
	Probes  int  `dynamodbav:"probes,omitempty"`
	Suspect bool `dynamodbav:"suspect,omitempty"`
	// ClaimedUntil is when the scheduler's claim expires (ms); see Parked.
	ClaimedUntil int64 `dynamodbav:"claimed_until,omitempty"`
}

func newParkedRecord(itemID string, stage work.Stage, now time.Time, p Parking) parkedRecord {
	r := parkedRecord{ItemID: itemID, Stage: string(stage), DueAt: toMillis(p.DueAt), Envelope: p.Envelope.Encode(),
		Reason: p.Reason, ParkedAt: formatTime(now), Probes: p.Probes, Suspect: p.Suspect}
	if p.OnGate() {
		r.Gate = string(p.Gate)
		return r
	}
	r.Shard, r.ExpiresAt = ParkedShard, p.DueAt.Add(ParkedRetention).Unix()
	return r
}

// outputAttr returns the attribute and value a stage output is stored under.
func outputAttr(o work.Output) (string, types.AttributeValue, error) {
	var (
		attr string
		v    any
	)
	switch {
	case o.Document != nil:
		attr, v = "document", toRecord(Item{Document: o.Document}).Document
	case o.Enrichment != nil:
		attr, v = "enrichment", storeEnrichment(o.Enrichment)
	case o.Delivery != nil:
		attr, v = "delivery", o.Delivery
	default:
		return "", nil, nil
	}
	av, err := attributevalue.Marshal(v)
	if err != nil {
		return "", nil, fmt.Errorf("encode %s: %w", attr, err)
	}
	return attr, av, nil
}

func decodeItem(av map[string]types.AttributeValue) (Item, error) {
	var r record
	if err := attributevalue.UnmarshalMap(av, &r); err != nil {
		return Item{}, fmt.Errorf("decode item: %w", err)
	}
	return r.item(), nil
}

func itemKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"item_id": &types.AttributeValueMemberS{Value: id}}
}

// mapErr turns the SDK's conditional failures into ErrConflict; callers
// never import DynamoDB types.
func mapErr(err error) error {
	if isConditionFailed(err) {
		return fmt.Errorf("%w: %v", ErrConflict, err)
	}
	return err
}

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return true
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if r.Code != nil && *r.Code == "ConditionalCheckFailed" {
				return true
			}
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// numEquals is the condition "attr = n", where an absent attribute counts
// as 0.
func numEquals(e *dynamo.Builder, attr string, n int) string {
	if n == 0 {
		return "(attribute_not_exists(" + attr + ") OR " + attr + " = " + e.Num(0) + ")"
	}
	return attr + " = " + e.Num(int64(n))
}

// leaseCond is the precondition of every write after a claim.
func leaseCond(e *dynamo.Builder, stage work.Stage, owner string) string {
	return e.Name("state") + " = " + e.Str(string(work.Working)) +
		" AND " + e.Name("stage") + " = " + e.Str(string(stage)) +
		" AND lease_owner = " + e.Str(owner)
}
