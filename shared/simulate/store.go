package simulate

import (
	"context"
	"math"
	"time"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
)

// Item sizes, for DynamoDB's capacity units: DynamoDB bills a write by the
// size of the whole item, so a document fetched once is paid for by every
// later write of the item.
const (
	// itemBaseBytes is an item's attributes without its outputs: ids, URLs,
	// status, state, stage, attempts, timestamps, lease and carrier.
	itemBaseBytes = 600
	// lastErrorBytes is a structured last_error with its details.
	lastErrorBytes = 500
	// enrichmentBytes is the llm stage's output; deliveryBytes notify's.
	enrichmentBytes = 700
	deliveryBytes   = 120
	// parkedBytes is a parked-wait record; logEntryBytes an error-log entry;
	// breakerBytes a breaker record.
	parkedBytes   = 300
	logEntryBytes = 450
	breakerBytes  = 400
	// gateBytes is a gate record; budgetBytes a budget day.
	gateBytes   = 250
	budgetBytes = 100
)

func wru(bytes int) float64 { return math.Ceil(float64(bytes) / 1024) }

func rru(bytes int, consistent bool) float64 {
	n := math.Ceil(float64(bytes) / 4096)
	if consistent {
		return n
	}
	return n / 2
}

// itemBytes is item i's size as stored: its progress through the pipeline
// (0 new, 1 fetched, 2 enriched, 3 notified) and whether it holds a
// last_error.
func (e *engine) itemBytes(i int32) int {
	it := &e.items[i]
	n := itemBaseBytes
	if it.progress >= 1 {
		n += e.sc.DocumentBytes
	}
	if it.progress >= 2 {
		n += enrichmentBytes
	}
	if it.progress >= 3 {
		n += deliveryBytes
	}
	if it.hasError {
		n += lastErrorBytes
	}
	return n
}

// ddbWrite counts one write of item i (an UpdateItem with the item's size,
// before or after, whichever is larger) and its latency.
func (e *engine) ddbWrite(api ddbAPI, bytes int) {
	e.meter.ddb(api, wru(bytes), 0)
	e.clock.spend(e.sc.AWSLatency.DynamoDB.D())
}

// itemStore is state.Memory behind the runner's Items and ErrorLog
// interfaces, counting every request the DynamoDB store would make for the
// same call (dynamo.go: one UpdateItem per Claim, Complete, Fail, Release and
// MarkDeadLettered, a two-item TransactWriteItems per Park, a PutItem per
// error-log entry) and adding its latency to the record's lane. It also
// observes completions for the metrics.
type itemStore struct {
	e *engine
	m *state.Memory
}

var (
	_ stage.Items    = (*itemStore)(nil)
	_ stage.ErrorLog = (*itemStore)(nil)
)

// Create makes an item from a producer's spec: one conditional PutItem.
// The simulator seeds its items itself, so the runner calls it only for a
// spec message, which the simulator never sends.
func (s *itemStore) Create(ctx context.Context, n state.NewItem) (state.Item, error) {
	s.e.ddbWrite(ddbPutItem, logEntryBytes)
	return s.m.Create(ctx, n)
}

// Claim starts a record: it is the runner's first store call for every
// record, so the record is put on its lane here.
func (s *itemStore) Claim(ctx context.Context, req state.ClaimRequest) (state.Item, error) {
	s.e.clock.startRecord()
	i := s.e.index[req.ItemID]
	s.e.ddbWrite(ddbUpdateItem, s.e.itemBytes(i))
	return s.m.Claim(ctx, req)
}

// Complete records a stage's success; notify's completes the item.
func (s *itemStore) Complete(ctx context.Context, req state.CompleteRequest) error {
	e := s.e
	i := e.index[req.ItemID]
	before := e.itemBytes(i)
	err := s.m.Complete(ctx, req)
	if err == nil {
		it := &e.items[i]
		it.progress = max(it.progress, int8(req.Stage.Index()+1))
		it.hasError = false
		it.passed[req.Stage.Index()] = e.clock.lane()
	}
	e.ddbWrite(ddbUpdateItem, max(before, e.itemBytes(i)))
	if err == nil && req.Stage == pipeline.Notify {
		e.finish(i, outcomeDone, "", "", e.clock.lane())
	}
	return err
}

// Fail records a failed attempt.
func (s *itemStore) Fail(ctx context.Context, req state.FailRequest) (int, error) {
	e := s.e
	i := e.index[req.ItemID]
	e.items[i].hasError = true
	e.ddbWrite(ddbUpdateItem, e.itemBytes(i))
	if req.Stage == pipeline.LLM && req.Counts {
		e.noteLLMAttempt(req.Now)
	}
	return s.m.Fail(ctx, req)
}

// Park records a failure and its parked wait in one transaction (twice the
// WRU of both writes).
func (s *itemStore) Park(ctx context.Context, req state.FailRequest, p state.Parking) (int, error) {
	e := s.e
	i := e.index[req.ItemID]
	e.items[i].hasError = true
	e.meter.ddb(ddbTransactWriteItems, 2*(wru(e.itemBytes(i))+wru(parkedBytes)), 0)
	e.clock.spend(e.sc.AWSLatency.DynamoDB.D())
	n, err := s.m.Park(ctx, req, p)
	if err == nil && !p.OnGate() {
		e.parkedDue.push(fromTime(p.DueAt))
	}
	return n, err
}

// ParkWait gives a lease back for a closed gate and parks the item, in one
// transaction (twice the WRU of both writes).
func (s *itemStore) ParkWait(ctx context.Context, req state.ReleaseRequest, p state.Parking) error {
	e := s.e
	i := e.index[req.ItemID]
	e.meter.ddb(ddbTransactWriteItems, 2*(wru(e.itemBytes(i))+wru(parkedBytes)), 0)
	e.clock.spend(e.sc.AWSLatency.DynamoDB.D())
	err := s.m.ParkWait(ctx, req, p)
	if err == nil && !p.OnGate() {
		e.parkedDue.push(fromTime(p.DueAt))
	}
	return err
}

// Release gives a lease back for a closed gate.
func (s *itemStore) Release(ctx context.Context, req state.ReleaseRequest) error {
	s.e.ddbWrite(ddbUpdateItem, s.e.itemBytes(s.e.index[req.ItemID]))
	return s.m.Release(ctx, req)
}

// MarkDeadLettered confirms a DLQ hand-off.
func (s *itemStore) MarkDeadLettered(ctx context.Context, itemID string, st pipeline.Stage, ref state.DeadLetterRef, now time.Time) error {
	s.e.ddbWrite(ddbUpdateItem, s.e.itemBytes(s.e.index[itemID]))
	return s.m.MarkDeadLettered(ctx, itemID, st, ref, now)
}

// Append writes an error-log entry.
func (s *itemStore) Append(ctx context.Context, le state.LogEntry) error {
	s.e.ddbWrite(ddbPutItem, logEntryBytes)
	return s.m.Append(ctx, le)
}

// breakerStore is breaker.Memory behind breaker.Store, counting the
// DynamoDB request each call makes (a strongly consistent GetItem for Get,
// one conditional UpdateItem for every transition).
type breakerStore struct {
	e *engine
	m *breaker.Memory
}

var _ breaker.Store = (*breakerStore)(nil)

func (b *breakerStore) read() {
	b.e.meter.ddb(ddbGetItem, 0, rru(breakerBytes, true))
	b.e.clock.spend(b.e.sc.AWSLatency.DynamoDB.D())
}

func (b *breakerStore) write() { b.e.ddbWrite(ddbUpdateItem, breakerBytes) }

// Get reads a breaker.
func (b *breakerStore) Get(ctx context.Context, service string) (breaker.Record, error) {
	b.read()
	return b.m.Get(ctx, service)
}

// List reads every breaker.
func (b *breakerStore) List(ctx context.Context) ([]breaker.Record, error) {
	b.read()
	return b.m.List(ctx)
}

// RecordFailure counts an outage failure.
func (b *breakerStore) RecordFailure(ctx context.Context, req breaker.FailureRequest) (breaker.FailureResult, error) {
	b.write()
	return b.m.RecordFailure(ctx, req)
}

// ResetFailures zeroes a closed breaker's count.
func (b *breakerStore) ResetFailures(ctx context.Context, service string, generation int64, now time.Time) (bool, error) {
	b.write()
	return b.m.ResetFailures(ctx, service, generation, now)
}

// AcquireProbe takes the probe lease.
func (b *breakerStore) AcquireProbe(ctx context.Context, req breaker.ProbeRequest) (breaker.Record, error) {
	b.write()
	return b.m.AcquireProbe(ctx, req)
}

// CloseProbe closes after a successful probe.
func (b *breakerStore) CloseProbe(ctx context.Context, service, owner string, now time.Time) (breaker.Record, error) {
	b.write()
	return b.m.CloseProbe(ctx, service, owner, now)
}

// ReopenProbe reopens after a failed probe.
func (b *breakerStore) ReopenProbe(ctx context.Context, service, owner string, class failure.Class, now time.Time, openFor time.Duration) (breaker.Record, error) {
	b.write()
	return b.m.ReopenProbe(ctx, service, owner, class, now, openFor)
}

// ReleaseProbe gives the probe lease back.
func (b *breakerStore) ReleaseProbe(ctx context.Context, service, owner string, now time.Time) (breaker.Record, error) {
	b.write()
	return b.m.ReleaseProbe(ctx, service, owner, now)
}

// SetDraining marks a breaker's service as draining a gate.
func (b *breakerStore) SetDraining(ctx context.Context, service string, g gate.Name, until, now time.Time) error {
	b.write()
	return b.m.SetDraining(ctx, service, g, until, now)
}

// Reset closes a breaker (operator).
func (b *breakerStore) Reset(ctx context.Context, service string, now time.Time) (breaker.Record, error) {
	b.write()
	return b.m.Reset(ctx, service, now)
}
