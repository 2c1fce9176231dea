package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"

	"github.com/triagehq/triage/internal/gates"
)

// GateRecord is one gate's record in the gates table: the registry of gates
// with waiters that the scheduler lists each run, and the release ramp of
// a gate that opened (docs/design.md "Waits and parking").
type GateRecord struct {
	// Gate is the record's key.
	Gate gates.Name `json:"gate"`
	// WaitingSince is when a stage first parked an item behind the gate;
	// TouchedAt the latest such park, to within the stages' touch interval.
	WaitingSince time.Time `json:"waiting_since"`
	TouchedAt    time.Time `json:"touched_at"`
	// CongestedAt is the latest congestion signal (RATE_LIMITED, 5xx, a
	// timeout) of an item the gate released; Congested counts them all.
	CongestedAt time.Time `json:"congested_at,omitzero"`
	Congested   int64     `json:"congested"`
	// Ramp is the release ramp; not started while the gate is closed.
	Ramp gates.Ramp `json:"ramp"`
	// LeaseOwner and LeaseUntil are the scheduler run releasing the gate's
	// waiters now: one run per gate at a time, however runs overlap.
	LeaseOwner string    `json:"lease_owner,omitempty"`
	LeaseUntil time.Time `json:"lease_until,omitzero"`
}

// GatesAPI is the part of the DynamoDB client the gates store uses.
type GatesAPI interface {
	dynamo.Updater
	dynamo.Deleter
	dynamo.Scanner
}

// Gates is the DynamoDB store of gate records (GatesTable, key "gate").
// The stages write two things: Touch, before parking an item behind a gate,
// so the gate is listed; Congested, when an item the gate released meets a
// congested upstream. The scheduler lists the records, leases a gate for a
// run (which also moves its ramp), resets a ramp when the gate closes
// again, and deletes a record whose gate has no waiters and whose last
// touch is old. Every write is one conditional (or idempotent) UpdateItem
// or DeleteItem.
//
// A record must exist whenever a waiter is parked behind its gate, or the
// scheduler would never look for the waiter: a stage touches the record
// before it parks (the park fails if the touch does), and the scheduler
// deletes only a record untouched for far longer than a stage trusts its
// own last touch (StaleTouch versus TouchEvery).
type Gates struct {
	DB GatesAPI
	// Table is the gates table name.
	Table string
}

// Defaults of the gate records' timing.
const (
	// TouchEvery is how long a stage trusts its last touch of a gate: it
	// touches again before parking once that long has passed.
	TouchEvery = 30 * time.Second
	// StaleTouch is how old a record's last touch must be before the
	// scheduler may delete it (with no waiter left): far longer than
	// TouchEvery, so no stage still trusts a touch of a deleted record.
	StaleTouch = 10 * time.Minute
	// maxGatePages bounds List's scan.
	maxGatePages = 100
)

type gateRecord struct {
	Gate         string  `dynamodbav:"gate"`
	WaitingSince int64   `dynamodbav:"waiting_since,omitempty"`
	TouchedAt    int64   `dynamodbav:"touched_at,omitempty"`
	CongestedAt  int64   `dynamodbav:"congested_at,omitempty"`
	Congested    int64   `dynamodbav:"congested,omitempty"`
	Seen         int64   `dynamodbav:"congested_seen,omitempty"`
	Step         int     `dynamodbav:"step,omitempty"`
	Noise        float64 `dynamodbav:"noise,omitempty"`
	NoiseOver    int     `dynamodbav:"noise_over,omitempty"`
	Rate         int     `dynamodbav:"rate,omitempty"`
	SlowStart    bool    `dynamodbav:"slow_start,omitempty"`
	Released     int     `dynamodbav:"released,omitempty"`
	Cut          bool    `dynamodbav:"cut,omitempty"`
	Peak         int     `dynamodbav:"peak,omitempty"`
	OpenedAt     int64   `dynamodbav:"opened_at,omitempty"`
	AdjustedAt   int64   `dynamodbav:"adjusted_at,omitempty"`
	Total        int64   `dynamodbav:"total,omitempty"`
	LeaseOwner   string  `dynamodbav:"lease_owner,omitempty"`
	LeaseUntil   int64   `dynamodbav:"lease_until,omitempty"`
}

func (r gateRecord) record() GateRecord {
	return GateRecord{
		Gate: gates.Name(r.Gate), WaitingSince: fromMillis(r.WaitingSince), TouchedAt: fromMillis(r.TouchedAt),
		CongestedAt: fromMillis(r.CongestedAt), Congested: r.Congested,
		Ramp: gates.Ramp{Rate: r.Rate, SlowStart: r.SlowStart, Released: r.Released, Cut: r.Cut, Peak: r.Peak, Seen: r.Seen, Step: r.Step, Noise: r.Noise, NoiseOver: r.NoiseOver, OpenedAt: fromMillis(r.OpenedAt),
			AdjustedAt: fromMillis(r.AdjustedAt), Total: r.Total},
		LeaseOwner: r.LeaseOwner, LeaseUntil: fromMillis(r.LeaseUntil),
	}
}

func gateKey(g gates.Name) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"gate": &types.AttributeValueMemberS{Value: string(g)}}
}

// update applies update, with b's names and values, to g's record on
// condition cond (none when empty); op says what it does in the error, a
// lost condition being ErrConflict.
func (s *Gates) update(ctx context.Context, g gates.Name, b *dynamo.Builder, update, cond, op string) error {
	if _, err := s.DB.UpdateItem(ctx, b.Update(s.Table, gateKey(g), update, cond)); err != nil {
		return fmt.Errorf("%s gate %s: %w", op, g, mapErr(err))
	}
	return nil
}

// Touch records that a stage is about to park an item behind g, creating
// the record if it is missing:
//
//	SET touched_at = :now, waiting_since = if_not_exists(waiting_since, :now)
//
// It is idempotent and needs no condition.
func (s *Gates) Touch(ctx context.Context, g gates.Name, now time.Time) error {
	b := dynamo.New()
	ms := b.Num(toMillis(now))
	update := "SET touched_at = " + ms + ", waiting_since = if_not_exists(waiting_since, " + ms + ")"
	return s.update(ctx, g, b, update, "", "touch")
}

// Congested records a congestion signal of an item g released:
//
//	SET congested_at = :now ADD congested 1  IF attribute_exists(gate)
//
// A gate without a record (its waiters all released and the record
// retired) has no ramp left to slow: ErrConflict.
func (s *Gates) Congested(ctx context.Context, g gates.Name, now time.Time) error {
	b := dynamo.New()
	update := "SET congested_at = " + b.Num(toMillis(now)) + " ADD congested " + b.Num(1)
	cond := "attribute_exists(gate)"
	return s.update(ctx, g, b, update, cond, "signal congestion to")
}

// List reads every gate record (a strongly consistent scan of a table that
// holds one record per gate with waiters), sorted by gate.
func (s *Gates) List(ctx context.Context) ([]GateRecord, error) {
	out, err := dynamo.ScanAll(ctx, s.DB, &dynamodb.ScanInput{TableName: &s.Table, ConsistentRead: aws.Bool(true)}, maxGatePages,
		func(av map[string]types.AttributeValue) (GateRecord, error) {
			var r gateRecord
			if err := attributevalue.UnmarshalMap(av, &r); err != nil {
				return GateRecord{}, fmt.Errorf("decode gate record: %w", err)
			}
			return r.record(), nil
		},
		func(a, b GateRecord) int { return compareNames(a.Gate, b.Gate) })
	if err != nil {
		return nil, fmt.Errorf("list gates: %w", err)
	}
	return out, nil
}

func compareNames(a, b gates.Name) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Lease takes rec's gate for owner until `until` and stores its next ramp,
// in one conditional update:
//
//	condition  attribute_exists(gate) AND (lease_until absent OR lease_until < :now)
//	           AND adjusted_at = <rec's> (absent when rec's ramp had not started)
//	update     SET lease_owner, lease_until, rate, slow_start, released, cut, peak, congested_seen,
//	           step, noise, noise_over, opened_at, adjusted_at, total
//
// The adjusted_at condition makes the ramp move once per run even when runs
// overlap: a run that read the record before another run moved it loses.
// ErrConflict: another run holds or moved the gate, or the record is gone.
func (s *Gates) Lease(ctx context.Context, rec GateRecord, owner string, now, until time.Time, next gates.Ramp) error {
	b := dynamo.New()
	cond := "attribute_exists(gate) AND (attribute_not_exists(lease_until) OR lease_until < " + b.Num(toMillis(now)) + ") AND "
	if rec.Ramp.AdjustedAt.IsZero() {
		cond += "attribute_not_exists(adjusted_at)"
	} else {
		cond += "adjusted_at = " + b.Num(toMillis(rec.Ramp.AdjustedAt))
	}
	update := "SET " + b.Name("lease_owner") + " = " + b.Str(owner) + ", " + b.Name("lease_until") + " = " + b.Num(toMillis(until)) +
		", " + b.Name("rate") + " = " + b.Num(int64(next.Rate)) +
		", " + b.Name("slow_start") + " = " + b.Value(&types.AttributeValueMemberBOOL{Value: next.SlowStart}) +
		", " + b.Name("released") + " = " + b.Num(int64(next.Released)) + ", " + b.Name("cut") + " = " + b.Value(&types.AttributeValueMemberBOOL{Value: next.Cut}) + ", " + b.Name("peak") + " = " + b.Num(int64(next.Peak)) + ", " + b.Name("congested_seen") + " = " + b.Num(next.Seen) + ", " + b.Name("step") + " = " + b.Num(int64(next.Step)) +
		", " + b.Name("noise") + " = " + b.Value(&types.AttributeValueMemberN{Value: strconv.FormatFloat(next.Noise, 'g', 6, 64)}) +
		", " + b.Name("noise_over") + " = " + b.Num(int64(next.NoiseOver)) +
		", " + b.Name("opened_at") + " = " + b.Num(toMillis(next.OpenedAt)) +
		", " + b.Name("adjusted_at") + " = " + b.Num(toMillis(next.AdjustedAt)) + ", " + b.Name("total") + " = " + b.Num(next.Total)
	return s.update(ctx, rec.Gate, b, update, cond, "lease")
}

// Reset ends rec's ramp (its gate closed again), so the next opening starts
// low:
//
//	condition  adjusted_at = <rec's> AND (lease_until absent OR lease_until < :now)
//	update     REMOVE rate, slow_start, released, cut, peak, congested_seen, step, noise, noise_over, opened_at,
//	           adjusted_at, total
func (s *Gates) Reset(ctx context.Context, rec GateRecord, now time.Time) error {
	if !rec.Ramp.Started() {
		return nil
	}
	b := dynamo.New()
	cond := "adjusted_at = " + b.Num(toMillis(rec.Ramp.AdjustedAt)) +
		" AND (attribute_not_exists(lease_until) OR lease_until < " + b.Num(toMillis(now)) + ")"
	update := "REMOVE " + b.Name("rate") + ", " + b.Name("slow_start") + ", " + b.Name("released") + ", " + b.Name("cut") + ", " + b.Name("peak") + ", " + b.Name("congested_seen") + ", " + b.Name("step") + ", " + b.Name("noise") + ", " + b.Name("noise_over") + ", " + b.Name("opened_at") +
		", " + b.Name("adjusted_at") + ", " + b.Name("total")
	return s.update(ctx, rec.Gate, b, update, cond, "reset the ramp of")
}

// Delete retires rec once its gate has no waiter left:
//
//	condition  touched_at = <rec's> AND touched_at < :now - StaleTouch
//	           AND (lease_until absent OR lease_until < :now)
//
// ErrConflict: a stage touched it since (a new waiter), or it is too fresh,
// or a run holds it. A record already gone is not an error.
func (s *Gates) Delete(ctx context.Context, rec GateRecord, now time.Time) error {
	if !canDeleteGate(rec, now) {
		return fmt.Errorf("delete gate %s: touched %s: %w", rec.Gate, rec.TouchedAt.Format(time.RFC3339), ErrConflict)
	}
	b := dynamo.New()
	cond := "attribute_not_exists(gate) OR (touched_at = " + b.Num(toMillis(rec.TouchedAt)) +
		" AND (attribute_not_exists(lease_until) OR lease_until < " + b.Num(toMillis(now)) + "))"
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.Table, Key: gateKey(rec.Gate),
		ConditionExpression: &cond, ExpressionAttributeValues: b.Values})
	if err != nil {
		return fmt.Errorf("delete gate %s: %w", rec.Gate, mapErr(err))
	}
	return nil
}

func canDeleteGate(rec GateRecord, now time.Time) bool {
	return rec.TouchedAt.Before(now.Add(-StaleTouch)) && !leaseHeld(rec.LeaseUntil, now)
}

// leaseHeld is the negation of the stores' "lease_until absent OR
// lease_until < :now".
func leaseHeld(until, now time.Time) bool { return !until.IsZero() && !until.Before(now) }

// MemoryGates is the in-memory twin of Gates, with the same rules.
type MemoryGates struct {
	mu   sync.Mutex
	recs map[gates.Name]GateRecord
}

// NewMemoryGates returns an empty store.
func NewMemoryGates() *MemoryGates { return &MemoryGates{recs: map[gates.Name]GateRecord{}} }

// Touch applies Gates.Touch.
func (s *MemoryGates) Touch(_ context.Context, g gates.Name, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[g]
	if !ok {
		r = GateRecord{Gate: g, WaitingSince: now}
	}
	r.TouchedAt = now
	s.recs[g] = r
	return nil
}

// Congested applies Gates.Congested.
func (s *MemoryGates) Congested(_ context.Context, g gates.Name, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[g]
	if !ok {
		return fmt.Errorf("signal congestion to gate %s: %w", g, ErrConflict)
	}
	r.CongestedAt = now
	r.Congested++
	s.recs[g] = r
	return nil
}

// List returns every record, sorted by gate.
func (s *MemoryGates) List(context.Context) ([]GateRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]GateRecord, 0, len(s.recs))
	for _, r := range s.recs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b GateRecord) int { return compareNames(a.Gate, b.Gate) })
	return out, nil
}

// Lease applies Gates.Lease.
func (s *MemoryGates) Lease(_ context.Context, rec GateRecord, owner string, now, until time.Time, next gates.Ramp) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[rec.Gate]
	if !ok || leaseHeld(r.LeaseUntil, now) || !r.Ramp.AdjustedAt.Equal(rec.Ramp.AdjustedAt) {
		return fmt.Errorf("lease gate %s: %w", rec.Gate, ErrConflict)
	}
	r.LeaseOwner, r.LeaseUntil, r.Ramp = owner, until, next
	s.recs[rec.Gate] = r
	return nil
}

// Reset applies Gates.Reset.
func (s *MemoryGates) Reset(_ context.Context, rec GateRecord, now time.Time) error {
	if !rec.Ramp.Started() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[rec.Gate]
	if !ok || !r.Ramp.AdjustedAt.Equal(rec.Ramp.AdjustedAt) || leaseHeld(r.LeaseUntil, now) {
		return fmt.Errorf("reset the ramp of gate %s: %w", rec.Gate, ErrConflict)
	}
	r.Ramp = gates.Ramp{}
	s.recs[rec.Gate] = r
	return nil
}

// Delete applies Gates.Delete.
func (s *MemoryGates) Delete(_ context.Context, rec GateRecord, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[rec.Gate]
	if !ok {
		return nil
	}
	if !canDeleteGate(rec, now) || !r.TouchedAt.Equal(rec.TouchedAt) || leaseHeld(r.LeaseUntil, now) {
		return fmt.Errorf("delete gate %s: %w", rec.Gate, ErrConflict)
	}
	delete(s.recs, rec.Gate)
	return nil
}

// Get returns g's record (tests, the simulator).
func (s *MemoryGates) Get(g gates.Name) (GateRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[g]
	return r, ok
}
