package breaker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/gates"
)

// DynamoAPI is the part of the DynamoDB client the store uses. Scan is only
// needed by List (the CLI); the stage functions need GetItem and UpdateItem.
type DynamoAPI = dynamo.API

// Dynamo is the DynamoDB breaker store (template.yaml BreakersTable, key
// "service"). Every transition is one conditional UpdateItem; the
// conditions are listed in the package documentation.
type Dynamo struct {
	DB DynamoAPI
	// Table is the BreakersTable name.
	Table string
	// ConsistentReads makes Get strongly consistent; the default
	// (eventually consistent, half the cost) is what Breakers needs, since
	// every transition is conditional anyway.
	ConsistentReads bool
}

// TimeFormat is how times people read are stored (opened_at, closed_at,
// last_failure_at, updated_at); open_until and probe_until, which
// conditions compare, are Unix milliseconds.
const TimeFormat = dynamo.TimeFormat

const (
	maxRaces     = 16
	maxScanPages = 1000
)

type record struct {
	Service             string `dynamodbav:"service"`
	State               string `dynamodbav:"state"`
	ConsecutiveFailures int    `dynamodbav:"consecutive_failures"`
	OpenedAt            string `dynamodbav:"opened_at,omitempty"`
	OpenUntil           int64  `dynamodbav:"open_until,omitempty"`
	OpenedBy            string `dynamodbav:"opened_by,omitempty"`
	ProbeOwner          string `dynamodbav:"probe_owner,omitempty"`
	ProbeUntil          int64  `dynamodbav:"probe_until,omitempty"`
	ClosedAt            string `dynamodbav:"closed_at,omitempty"`
	ClosedBy            string `dynamodbav:"closed_by,omitempty"`
	DrainingUntil       int64  `dynamodbav:"draining_until,omitempty"`
	DrainingGate        string `dynamodbav:"draining_gate,omitempty"`
	LastFailureAt       string `dynamodbav:"last_failure_at,omitempty"`
	LastErrorType       string `dynamodbav:"last_error_type,omitempty"`
	Opens               int    `dynamodbav:"opens,omitempty"`
	Reopens             int    `dynamodbav:"reopens,omitempty"`
	Generation          int64  `dynamodbav:"generation,omitempty"`
	UpdatedAt           string `dynamodbav:"updated_at,omitempty"`
}

func (r record) breaker() Record {
	st := State(r.State)
	if st == "" {
		st = Closed
	}
	return Record{
		Service: r.Service, State: st, ConsecutiveFailures: r.ConsecutiveFailures,
		OpenedAt: parseTime(r.OpenedAt), OpenUntil: fromMillis(r.OpenUntil), ProbeOwner: r.ProbeOwner,
		ProbeUntil: fromMillis(r.ProbeUntil), ClosedAt: parseTime(r.ClosedAt), ClosedBy: r.ClosedBy,
		LastFailureAt: parseTime(r.LastFailureAt), LastErrorType: work.Class(r.LastErrorType),
		Opens: r.Opens, Reopens: r.Reopens, Generation: r.Generation, UpdatedAt: parseTime(r.UpdatedAt), openedBy: r.OpenedBy,
		DrainingUntil: fromMillis(r.DrainingUntil), DrainingGate: gates.Name(r.DrainingGate),
	}
}

var (
	parseTime  = dynamo.ParseTime
	fromMillis = dynamo.FromMillis
)

// table is the BreakersTable as a table of records keyed by service.
func (s *Dynamo) table() dynamo.Table[record] {
	return dynamo.Table[record]{DB: s.DB, Name: s.Table, Key: "service", What: "breaker"}
}

// Get reads the service's breaker (eventually consistent unless
// ConsistentReads).
func (s *Dynamo) Get(ctx context.Context, service string) (Record, error) {
	r, err := s.table().Find(ctx, service, s.ConsistentReads, ErrNotFound)
	if err != nil {
		return Record{}, err
	}
	return r.breaker(), nil
}

// List scans the table (bounded to maxScanPages pages) and returns every
// breaker sorted by service.
func (s *Dynamo) List(ctx context.Context) ([]Record, error) {
	return dynamo.List(ctx, s.table(), false, maxScanPages, record.breaker,
		func(a, b Record) int { return strings.Compare(a.Service, b.Service) })
}

// RecordFailure tries the counting update and, when the record is at
// threshold-1, the tripping one (and back, at most maxRaces times). A
// breaker that is not closed is left alone.
func (s *Dynamo) RecordFailure(ctx context.Context, req FailureRequest) (FailureResult, error) {
	if req.Service == "" {
		return FailureResult{}, errors.New("record breaker failure: service is required")
	}
	tok := cmp.Or(req.Token, NewOwner())
	limit := threshold(req.Threshold) - 1
	trip := false
	for range maxRaces {
		o, err := s.table().Apply(ctx, req.Service, s.failureUpdate(req, tok, limit, trip))
		if err != nil {
			return FailureResult{}, fmt.Errorf("record failure of breaker %s: %w", req.Service, err)
		}
		if o.Applied {
			return FailureResult{Record: o.Record.breaker(), Counted: true, Opened: trip}, nil
		}
		cur, exists := o.Record, o.Exists
		if exists && cur.State != "" && State(cur.State) != Closed {
			// Opened by this very write (a retried request) or by another
			// caller; either way a failure of a non-closed breaker counts
			// for nothing.
			return FailureResult{Record: cur.breaker(), Counted: cur.OpenedBy == tok, Opened: cur.OpenedBy == tok}, nil
		}
		if exists && cur.Generation != req.Generation {
			// The call started in an earlier window: the breaker tripped
			// and closed since. Its failure says nothing about this one.
			return FailureResult{Record: cur.breaker()}, nil
		}
		// An absent record is the zero record: a count of 0.
		trip = cur.ConsecutiveFailures >= limit
	}
	return FailureResult{}, fmt.Errorf("record failure of breaker %s: %d races lost: %w", req.Service, maxRaces, ErrConflict)
}

func (s *Dynamo) failureUpdate(req FailureRequest, tok string, limit int, trip bool) *dynamodb.UpdateItemInput {
	b := dynamo.New()
	now := b.Str(req.At.UTC().Format(TimeFormat))
	state := b.Name("state")
	countBelow := b.Below("consecutive_failures", limit)
	closedOrNew := "(attribute_not_exists(" + state + ") OR " + state + " = " + b.Str(string(Closed)) + ") AND " +
		generationIs(b, req.Generation)
	set := []string{
		b.Name("last_failure_at") + " = " + now,
		b.Name("last_error_type") + " = " + b.Str(string(req.Class)),
		b.Name("updated_at") + " = " + now,
	}
	one := b.Num(1)
	var update, cond string
	if !trip {
		set = append(set, state+" = "+b.Str(string(Closed)))
		update = "SET " + strings.Join(set, ", ") + " ADD " + b.Name("consecutive_failures") + " " + one
		cond = closedOrNew + " AND " + countBelow
	} else {
		set = append(set,
			state+" = "+b.Str(string(Open)),
			b.Name("opened_at")+" = "+now,
			b.Name("open_until")+" = "+b.Num(req.At.Add(orDefault(req.OpenFor, DefaultOpenFor)).UnixMilli()),
			b.Name("opened_by")+" = "+b.Str(tok),
		)
		update = "SET " + strings.Join(set, ", ") +
			" ADD " + b.Name("consecutive_failures") + " " + one + ", " + b.Name("opens") + " " + one +
			", " + b.Name("generation") + " " + one
		cond = closedOrNew + " AND NOT " + countBelow
	}
	return s.table().Update(req.Service, update, cond, b)
}

// ResetFailures sets a closed breaker's count to zero:
//
//	SET consecutive_failures = 0
//	IF state = closed AND consecutive_failures > 0 AND generation = :generation
func (s *Dynamo) ResetFailures(ctx context.Context, service string, generation int64, now time.Time) (bool, error) {
	b := dynamo.New()
	zero := b.Num(0)
	update := "SET " + b.Name("consecutive_failures") + " = " + zero + ", " + b.Name("updated_at") + " = " + b.Str(now.UTC().Format(TimeFormat))
	cond := b.Name("state") + " = " + b.Str(string(Closed)) + " AND " + b.Name("consecutive_failures") + " > " + zero +
		" AND " + generationIs(b, generation)
	ok, err := s.table().Try(ctx, service, update, cond, b)
	if err != nil {
		return false, fmt.Errorf("reset failures of breaker %s: %w", service, err)
	}
	return ok, nil
}

// AcquireProbe takes the probe lease:
//
//	SET state = half_open, probe_owner = :owner, probe_until = :now + lease
//	IF (state = open AND open_until <= :now) OR (state = half_open AND probe_until <= :now)
func (s *Dynamo) AcquireProbe(ctx context.Context, req ProbeRequest) (Record, error) {
	b := dynamo.New()
	state, now := b.Name("state"), b.Num(req.Now.UnixMilli())
	update := "SET " + state + " = " + b.Str(string(HalfOpen)) +
		", " + b.Name("probe_owner") + " = " + b.Str(req.Owner) +
		", " + b.Name("probe_until") + " = " + b.Num(req.Now.Add(orDefault(req.Lease, DefaultProbeLease)).UnixMilli()) +
		", " + b.Name("updated_at") + " = " + b.Str(req.Now.UTC().Format(TimeFormat))
	cond := "(" + state + " = " + b.Str(string(Open)) + " AND " + b.Name("open_until") + " <= " + now + ") OR (" +
		state + " = " + b.Str(string(HalfOpen)) + " AND " + b.Name("probe_until") + " <= " + now + ")"
	return s.transition(ctx, req.Service, "acquire probe", update, cond, b, func(cur record) bool {
		return State(cur.State) == HalfOpen && cur.ProbeOwner == req.Owner
	})
}

// CloseProbe closes the breaker after owner's probe succeeded:
//
//	SET state = closed, consecutive_failures = 0, closed_at, closed_by = :owner
//	ADD generation 1 REMOVE probe_owner, probe_until, open_until, reopens
//	IF state = half_open AND probe_owner = :owner
func (s *Dynamo) CloseProbe(ctx context.Context, service, owner string, now time.Time) (Record, error) {
	b := dynamo.New()
	return s.transition(ctx, service, "close probe", closing(b, owner, now), s.probeHeld(b, owner), b, func(cur record) bool {
		return State(cur.State) == Closed && cur.ClosedBy == owner
	})
}

// ReopenProbe opens the breaker again after owner's probe failed:
//
//	SET state = open, opened_at, open_until = :now + openFor, opened_by = :owner
//	ADD opens 1, reopens 1, generation 1 REMOVE probe_owner, probe_until
//	IF state = half_open AND probe_owner = :owner
func (s *Dynamo) ReopenProbe(ctx context.Context, service, owner string, class work.Class, now time.Time, openFor time.Duration) (Record, error) {
	b := dynamo.New()
	ts := b.Str(now.UTC().Format(TimeFormat))
	update := "SET " + b.Name("state") + " = " + b.Str(string(Open)) +
		", " + b.Name("opened_at") + " = " + ts +
		", " + b.Name("open_until") + " = " + b.Num(now.Add(orDefault(openFor, DefaultOpenFor)).UnixMilli()) +
		", " + b.Name("opened_by") + " = " + b.Str(owner) +
		", " + b.Name("last_failure_at") + " = " + ts + ", " + b.Name("last_error_type") + " = " + b.Str(string(class)) +
		", " + b.Name("updated_at") + " = " + ts +
		" ADD " + b.Name("opens") + " " + b.Num(1) + ", " + b.Name("reopens") + " " + b.Num(1) + ", " + b.Name("generation") + " " + b.Num(1) +
		" REMOVE " + b.Name("probe_owner") + ", " + b.Name("probe_until")
	return s.transition(ctx, service, "reopen probe", update, s.probeHeld(b, owner), b, func(cur record) bool {
		return State(cur.State) == Open && cur.OpenedBy == owner
	})
}

// ReleaseProbe gives owner's lease back without a verdict:
//
//	SET state = open, open_until = :now REMOVE probe_owner, probe_until
//	IF state = half_open AND probe_owner = :owner
func (s *Dynamo) ReleaseProbe(ctx context.Context, service, owner string, now time.Time) (Record, error) {
	b := dynamo.New()
	update := "SET " + b.Name("state") + " = " + b.Str(string(Open)) +
		", " + b.Name("open_until") + " = " + b.Num(now.UnixMilli()) +
		", " + b.Name("updated_at") + " = " + b.Str(now.UTC().Format(TimeFormat)) +
		" REMOVE " + b.Name("probe_owner") + ", " + b.Name("probe_until")
	return s.transition(ctx, service, "release probe", update, s.probeHeld(b, owner), b, nil)
}

// Reset closes the breaker whatever its state (the operator's reset):
//
//	SET state = closed, consecutive_failures = 0, closed_by = "operator"
//	ADD generation 1 REMOVE probe_owner, probe_until, open_until, reopens IF attribute_exists(service)
func (s *Dynamo) Reset(ctx context.Context, service string, now time.Time) (Record, error) {
	b := dynamo.New()
	update := closing(b, ByOperator, now)
	cond := "attribute_exists(" + b.Name("service") + ")"
	o, err := s.table().Apply(ctx, service, s.table().Update(service, update, cond, b))
	switch {
	case err != nil:
		return Record{}, fmt.Errorf("reset breaker %s: %w", service, err)
	case !o.Applied:
		return Record{}, fmt.Errorf("reset breaker %s: %w", service, ErrNotFound)
	}
	return o.Record.breaker(), nil
}

// SetDraining marks a closed breaker's service as draining g's waiters:
//
//	SET draining_until = :until, draining_gate = :gate IF state = closed
func (s *Dynamo) SetDraining(ctx context.Context, service string, g gates.Name, until, now time.Time) error {
	b := dynamo.New()
	update := "SET " + b.Name("draining_until") + " = " + b.Num(until.UnixMilli()) + ", " + b.Name("draining_gate") + " = " + b.Str(string(g)) +
		", " + b.Name("updated_at") + " = " + b.Str(now.UTC().Format(TimeFormat))
	cond := b.Name("state") + " = " + b.Str(string(Closed))
	_, err := s.transition(ctx, service, "set draining", update, cond, b, nil)
	return err
}

// closing is the update that closes the breaker clean, starting a new
// window, by the probe owner or ByOperator:
//
//	SET state = closed, consecutive_failures = 0, closed_at, closed_by = :by
//	ADD generation 1 REMOVE probe_owner, probe_until, open_until, reopens
func closing(b *dynamo.Builder, by string, now time.Time) string {
	ts := b.Str(now.UTC().Format(TimeFormat))
	return "SET " + b.Name("state") + " = " + b.Str(string(Closed)) +
		", " + b.Name("consecutive_failures") + " = " + b.Num(0) +
		", " + b.Name("closed_at") + " = " + ts + ", " + b.Name("closed_by") + " = " + b.Str(by) +
		", " + b.Name("updated_at") + " = " + ts + " ADD " + b.Name("generation") + " " + b.Num(1) +
		" REMOVE " + b.Name("probe_owner") + ", " + b.Name("probe_until") + ", " + b.Name("open_until") + ", " + b.Name("reopens")
}

// generationIs is the condition "the record is in window generation" (an
// absent attribute is generation 0).
func generationIs(b *dynamo.Builder, generation int64) string {
	if generation == 0 {
		return "(attribute_not_exists(" + b.Name("generation") + ") OR " + b.Name("generation") + " = " + b.Num(0) + ")"
	}
	return b.Name("generation") + " = " + b.Num(generation)
}

func (s *Dynamo) probeHeld(b *dynamo.Builder, owner string) string {
	return b.Name("state") + " = " + b.Str(string(HalfOpen)) + " AND " + b.Name("probe_owner") + " = " + b.Str(owner)
}

// transition runs one conditional update. A failed condition whose record
// shows that this very write applied (applied, for a retried request) is a
// success; otherwise it is a *ConflictError carrying the record.
func (s *Dynamo) transition(ctx context.Context, service, op, update, cond string, b *dynamo.Builder, applied func(record) bool) (Record, error) {
	o, err := s.table().Apply(ctx, service, s.table().Update(service, update, cond, b))
	switch {
	case err != nil:
		return Record{}, fmt.Errorf("breaker %s: %s: %w", service, op, err)
	case o.Applied, o.Exists && applied != nil && applied(o.Record):
		return o.Record.breaker(), nil
	}
	ce := &ConflictError{Service: service, Op: op}
	if o.Exists {
		r := o.Record.breaker()
		ce.Current = &r
	}
	return Record{}, ce
}

// NewOwner returns a random probe owner (and write token): 24 hex digits.
// Uniqueness is all it needs.
func NewOwner() string { return dynamo.NewToken() }
