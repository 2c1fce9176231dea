package simulate

import (
	"context"
	"math"
	"time"

	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Sizes the baselines' items and triage's other records are billed by.
// The baselines keep the item in one table with its outputs, as a naive
// design does: a document fetched once is paid for by every later write of
// the item. Triage's state item is measured from the real encoder
// (triageSizes); its bodies are written once, elsewhere.
const (
	// itemBaseBytes is a baseline item's attributes without its outputs:
	// ids, URLs, status, stage, timestamps.
	itemBaseBytes = 600
	// lastErrorBytes is a structured last_error with its details.
	lastErrorBytes = 500
	// enrichmentBytes is the llm stage's output (as a body: its JSON);
	// deliveryBytes notify's.
	enrichmentBytes = 700
	deliveryBytes   = 120
	// bodyItemOverhead is a sibling body item's key and attributes besides
	// the body (item_id, part, sha256, written_at, expires_at).
	bodyItemOverhead = 160
	// parkedBytes is a parked-wait record; logEntryBytes an error-log entry;
	// breakerBytes a breaker record; healthBytes a model's health record;
	// budgetBytes a budget day.
	parkedBytes   = 300
	logEntryBytes = 450
	breakerBytes  = 400
	healthBytes   = 350
	budgetBytes   = 150
	// gateBytes is a gate record.
	gateBytes = 250
)

func wru(bytes int) float64 { return math.Ceil(float64(bytes) / 1024) }

func rru(bytes int, consistent bool) float64 {
	n := math.Ceil(float64(bytes) / 4096)
	if consistent {
		return n
	}
	return n / 2
}

// baselineBytes is a baseline's item i as stored: its progress through the
// pipeline (0 new, 1 fetched, 2 enriched, 3 notified), outputs included.
func (e *engine) baselineBytes(i int32) int {
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
	return n
}

// stateBytes is triage's state item i at rest: references, not bodies.
func (e *engine) stateBytes(i int32) int {
	it := &e.items[i]
	s := triageSizes()
	n := s.created
	if it.progress >= 1 {
		n += s.document
	}
	if it.progress >= 2 {
		n += s.enrich
	}
	if it.progress >= 3 {
		n += s.delivery
	}
	if it.hasError {
		n += s.failure
	}
	return n
}

// load is one request's units on one key ("<table>/<key>").
type load struct {
	key  string
	w, r float64
}

// dyn counts one DynamoDB request: the units it is billed (every key it
// touches, index partitions included), each key's share of its second, and
// its latency on the current record's lane.
func (e *engine) dyn(api ddbAPI, loads ...load) {
	var w, r float64
	at := e.clock.lane()
	for _, l := range loads {
		w += l.w
		r += l.r
		e.keys.add(l.key, l.w, l.r, at)
	}
	e.meter.ddb(api, w, r)
	e.clock.spend(e.sc.AWSLatency.DynamoDB.D())
}

// s3 counts one S3 request and its latency.
func (e *engine) s3(api s3API) {
	e.meter.s3(api)
	e.clock.spend(e.sc.AWSLatency.S3.D())
}

// itemStore is store.Memory behind the runner's Items and ErrorLog
// interfaces, counting every request the DynamoDB store would make for the
// same call (store.Items: one UpdateItem per Claim, Fail, Release and
// MarkDeadLettered; a Complete that stores a body in the Bodies table is one
// TransactWriteItems with the sibling item, one above the threshold an S3
// PutObject then an UpdateItem; a two-item TransactWriteItems per Park; a
// PutItem per error-log entry), each on the keys it touches — the item, the
// sibling, and the partitions of the by-listed-state index (every write
// that moves an item: a delete from its old partition and a put in its new
// one), the error log's by-class-shard index and the parked table's by-due
// index it writes — and adding its latency to the record's lane. It also
// observes completions for the metrics.
type itemStore struct {
	e *engine
	m *store.Memory
}

var (
	_ runner.Items    = (*itemStore)(nil)
	_ runner.ErrorLog = (*itemStore)(nil)
)

func itemKey(id string) string { return "items/" + id }

// indexLoad is a write to the by-listed-state partition of an item in st:
// one unit, its entry is KEYS_ONLY.
func (e *engine) indexLoad(id string, st work.State) load {
	return load{key: "items:by-listed-state/" + store.ListKey(id, st, e.sc.IndexShards), w: 1}
}

// moved is the index's share of a write that took the item from st to
// where it is now: when its group changed, the old entry deleted and the
// new one put; else nothing (the entry's key and list_at are as they were,
// and it projects no other attribute).
func (s *itemStore) moved(ctx context.Context, id string, st work.State) []load {
	now, err := s.m.Get(ctx, id)
	if err != nil || store.GroupOf(st) == store.GroupOf(now.State) {
		return nil
	}
	return []load{s.e.indexLoad(id, st), s.e.indexLoad(id, now.State)}
}

// where is the item's state before a write.
func (s *itemStore) where(ctx context.Context, id string) work.State {
	it, err := s.m.Get(ctx, id)
	if err != nil {
		return ""
	}
	return it.State
}

// Create makes an item from a producer's spec: one conditional PutItem.
// The simulator creates its items as they arrive (engine.arrive, billed
// there), so the runner calls it only for a spec message, which the
// simulator never sends.
func (s *itemStore) Create(ctx context.Context, n store.NewItem) (store.Item, error) {
	w := wru(triageSizes().created)
	s.e.dyn(ddbPutItem, load{key: itemKey(n.ID), w: w}, s.e.indexLoad(n.ID, work.Queued))
	return s.m.Create(ctx, n)
}

// Claim starts a record: it is the runner's first store call for every
// record, so the record is put on its lane here.
func (s *itemStore) Claim(ctx context.Context, req store.ClaimRequest) (store.Item, error) {
	s.e.clock.startRecord()
	i := s.e.index[req.ItemID]
	w := wru(s.e.stateBytes(i) + triageSizes().lease)
	st := s.where(ctx, req.ItemID)
	it, err := s.m.Claim(ctx, req)
	loads := []load{{key: itemKey(req.ItemID), w: w}}
	if err == nil {
		loads = append(loads, s.moved(ctx, req.ItemID, st)...)
	}
	s.e.dyn(ddbUpdateItem, loads...)
	return it, err
}

// Complete records a stage's success; notify's completes the item.
func (s *itemStore) Complete(ctx context.Context, req store.CompleteRequest) error {
	e := s.e
	i := e.index[req.ItemID]
	before := e.stateBytes(i) + triageSizes().lease
	fromState := s.where(ctx, req.ItemID)
	err := s.m.Complete(ctx, req)
	if err == nil {
		it := &e.items[i]
		it.progress = max(it.progress, int8(req.Stage.Index()+1))
		it.hasError = false
		it.passed[req.Stage.Index()] = e.clock.lane()
	}
	rec := load{key: itemKey(req.ItemID), w: wru(max(before, e.stateBytes(i)))}
	var index []load
	if err == nil {
		index = s.moved(ctx, req.ItemID, fromState)
	}
	part, n := stageBody(req.Stage, e.sc.DocumentBytes)
	switch {
	case part == "":
		e.dyn(ddbUpdateItem, append([]load{rec}, index...)...)
	case e.bodyPlacement(n) == store.StoreS3:
		e.s3(s3PutObject)
		e.dyn(ddbUpdateItem, append([]load{rec}, index...)...)
	default:
		e.meter.bodyW++
		rec.w *= 2
		e.dyn(ddbTransactWriteItems, append([]load{rec,
			{key: "bodies/" + req.ItemID + "/" + string(part), w: 2 * wru(n+bodyItemOverhead)}}, index...)...)
	}
	if err == nil && req.Stage == work.Notify {
		e.finish(i, outcomeDone, "", "", e.clock.lane())
	}
	return err
}

// gzipRatios is how much gzip (level 6) shrinks English prose of a size:
// measured on this repository's prose (docs/*.md, README.md, about 70 KB),
// the mean over its stretches of each size (TestGzipRatiosOfProse checks it).
var gzipRatios = []struct {
	bytes int
	ratio float64
}{{1000, 0.53}, {3000, 0.46}, {5000, 0.44}, {8000, 0.43}, {20000, 0.40}}

// storedBytes is what a body of n bytes of text takes stored: compressed
// from store.CompressFrom on, by the measured ratio (interpolated).
func storedBytes(n int) int {
	if n < store.CompressFrom {
		return n
	}
	r := gzipRatios[len(gzipRatios)-1].ratio
	for i, g := range gzipRatios {
		if n <= g.bytes {
			if i == 0 {
				r = g.ratio
				break
			}
			p := gzipRatios[i-1]
			r = p.ratio + (g.ratio-p.ratio)*float64(n-p.bytes)/float64(g.bytes-p.bytes)
			break
		}
	}
	return int(math.Ceil(float64(n) * r))
}

// stageBody is the body a stage's success writes and its modelled size:
// the document (documentBytes) at fetch, the enrichment at llm, none at
// notify.
func stageBody(st work.Stage, documentBytes int) (store.Part, int) {
	switch st {
	case work.Fetch:
		return store.PartDocument, storedBytes(documentBytes)
	case work.LLM:
		return store.PartEnrichment, enrichmentBytes
	}
	return "", 0
}

// bodyPlacement is where the DynamoDB store puts a body of n bytes.
func (e *engine) bodyPlacement(n int) string {
	return store.BodyConfig{Table: "bodies", Objects: placeholderObjects{}, Threshold: e.sc.BodyThreshold}.Placement(n)
}

// placeholderObjects stands for the bucket in a BodyConfig that only places.
type placeholderObjects struct{}

func (placeholderObjects) Put(context.Context, string, []byte, string) error { return nil }
func (placeholderObjects) Get(context.Context, string, int) ([]byte, error)  { return nil, nil }

// Fail records a failed attempt; a dead letter enters the sparse index.
func (s *itemStore) Fail(ctx context.Context, req store.FailRequest) (int, error) {
	e := s.e
	i := e.index[req.ItemID]
	e.items[i].hasError = true
	size := wru(e.stateBytes(i) + triageSizes().lease)
	st := s.where(ctx, req.ItemID)
	n, err := s.m.Fail(ctx, req)
	loads := []load{{key: itemKey(req.ItemID), w: size}}
	if err == nil {
		loads = append(loads, s.moved(ctx, req.ItemID, st)...)
	}
	e.dyn(ddbUpdateItem, loads...)
	if req.Stage == work.LLM && req.Counts {
		e.noteLLMAttempt(req.Now)
	}
	return n, err
}

// Park records a failure and its parked wait in one transaction (twice the
// WRU of both writes), and the wait's copy in the by-due index.
func (s *itemStore) Park(ctx context.Context, req store.FailRequest, p store.Parking) (int, error) {
	s.e.items[s.e.index[req.ItemID]].hasError = true
	st := s.where(ctx, req.ItemID)
	n, err := s.m.Park(ctx, req, p)
	s.parked(ctx, req.ItemID, st, p, err)
	return n, err
}

// ParkWait gives a lease back for a closed gate and parks the item, in one
// transaction (twice the WRU of both writes).
func (s *itemStore) ParkWait(ctx context.Context, req store.ReleaseRequest, p store.Parking) error {
	st := s.where(ctx, req.ItemID)
	err := s.m.ParkWait(ctx, req, p)
	s.parked(ctx, req.ItemID, st, p, err)
	return err
}

// parked charges the transaction that parked item id, which was in state st
// (err is the transaction's outcome): the item's and the parked record's
// writes, twice their WRU, the wait's copy in the by-due index and, once it
// applied, the item's move between state indexes; a timed wait that applied
// joins the due heap.
func (s *itemStore) parked(ctx context.Context, id string, st work.State, p store.Parking, err error) {
	e := s.e
	loads := []load{{key: itemKey(id), w: 2 * wru(e.stateBytes(e.index[id])+triageSizes().lease)},
		{key: "parked/" + id, w: 2 * wru(parkedBytes)}, parkedIndex(p)}
	if err == nil {
		loads = append(loads, s.moved(ctx, id, st)...)
	}
	e.dyn(ddbTransactWriteItems, loads...)
	if err == nil && !p.OnGate() {
		e.parkedDue.push(fromTime(p.DueAt))
	}
}

// parkedIndex is the index write of parking p: the by-due index's shard for
// a due wait, the by-gate index's gate partition for a gate wait.
func parkedIndex(p store.Parking) load {
	if p.OnGate() {
		return load{key: "parked:by-gate/" + p.Gate.String(), w: wru(parkedBytes)}
	}
	return load{key: "parked:by-due/" + store.ParkedShard, w: wru(parkedBytes)}
}

// Release gives a lease back for a closed gate.
func (s *itemStore) Release(ctx context.Context, req store.ReleaseRequest) error {
	i := s.e.index[req.ItemID]
	w := wru(s.e.stateBytes(i) + triageSizes().lease)
	st := s.where(ctx, req.ItemID)
	err := s.m.Release(ctx, req)
	loads := []load{{key: itemKey(req.ItemID), w: w}}
	if err == nil {
		loads = append(loads, s.moved(ctx, req.ItemID, st)...)
	}
	s.e.dyn(ddbUpdateItem, loads...)
	return err
}

// MarkDeadLettered confirms a DLQ hand-off: the item moves from the failed
// to the deadletter partition of the index.
func (s *itemStore) MarkDeadLettered(ctx context.Context, itemID string, st work.Stage, ref store.DeadLetterRef, now time.Time) error {
	size := wru(s.e.stateBytes(s.e.index[itemID]))
	from := s.where(ctx, itemID)
	err := s.m.MarkDeadLettered(ctx, itemID, st, ref, now)
	loads := []load{{key: itemKey(itemID), w: size}}
	if err == nil {
		loads = append(loads, s.moved(ctx, itemID, from)...)
	}
	s.e.dyn(ddbUpdateItem, loads...)
	return err
}

// Append writes an error-log entry and its copy in the by-class-shard
// index, and in the sparse by-unrecognised index when nothing recognised
// the failure.
func (s *itemStore) Append(ctx context.Context, le store.LogEntry) error {
	w := wru(logEntryBytes)
	loads := []load{{key: "errorlog/" + le.ItemID, w: w},
		{key: "errorlog:by-class-shard/" + string(le.Class) + "#" + store.ClassShard(le.ItemID), w: w}}
	if le.Unrecognised() {
		loads = append(loads, load{key: "errorlog:by-unrecognised/" + store.ClassShard(le.ItemID), w: w})
	}
	s.e.dyn(ddbPutItem, loads...)
	return s.m.Append(ctx, le)
}

// bodyReader is the stage's body reader (runner.WithBodies) over
// store.Memory, counting what the DynamoDB store's Hydrate requests: a
// strongly consistent GetItem of the sibling item, or an S3 GetObject above
// the threshold, by the body's modelled size.
type bodyReader struct {
	e *engine
	m *store.Memory
}

// Hydrate reads the parts back.
func (b *bodyReader) Hydrate(ctx context.Context, it store.Item, parts ...store.Part) (store.Item, error) {
	for _, p := range parts {
		n := enrichmentBytes
		if p == store.PartDocument {
			n = storedBytes(b.e.sc.DocumentBytes)
		}
		if b.e.bodyPlacement(n) == store.StoreS3 {
			b.e.s3(s3GetObject)
			continue
		}
		b.e.meter.bodyR++
		b.e.dyn(ddbGetItem, load{key: "bodies/" + it.ID + "/" + string(p), r: rru(n+bodyItemOverhead, true)})
	}
	return b.m.Hydrate(ctx, it, parts...)
}

// breakerStore is breaker.Memory behind breaker.Store, counting the
// DynamoDB request each call makes (a strongly consistent GetItem for Get,
// one conditional UpdateItem for every transition).
type breakerStore struct {
	e *engine
	m *breaker.Memory
}

var _ breaker.Store = (*breakerStore)(nil)

func (b *breakerStore) read(service string) {
	b.e.dyn(ddbGetItem, load{key: "breakers/" + service, r: rru(breakerBytes, true)})
}

func (b *breakerStore) write(service string) {
	b.e.dyn(ddbUpdateItem, load{key: "breakers/" + service, w: wru(breakerBytes)})
}

// Get reads a breaker.
func (b *breakerStore) Get(ctx context.Context, service string) (breaker.Record, error) {
	b.read(service)
	return b.m.Get(ctx, service)
}

// List reads every breaker.
func (b *breakerStore) List(ctx context.Context) ([]breaker.Record, error) {
	b.read("*")
	return b.m.List(ctx)
}

// RecordFailure counts an outage failure.
func (b *breakerStore) RecordFailure(ctx context.Context, req breaker.FailureRequest) (breaker.FailureResult, error) {
	b.write(req.Service)
	return b.m.RecordFailure(ctx, req)
}

// ResetFailures zeroes a closed breaker's count.
func (b *breakerStore) ResetFailures(ctx context.Context, service string, generation int64, now time.Time) (bool, error) {
	b.write(service)
	return b.m.ResetFailures(ctx, service, generation, now)
}

// AcquireProbe takes the probe lease.
func (b *breakerStore) AcquireProbe(ctx context.Context, req breaker.ProbeRequest) (breaker.Record, error) {
	b.write(req.Service)
	return b.m.AcquireProbe(ctx, req)
}

// CloseProbe closes after a successful probe.
func (b *breakerStore) CloseProbe(ctx context.Context, service, owner string, now time.Time) (breaker.Record, error) {
	b.write(service)
	return b.m.CloseProbe(ctx, service, owner, now)
}

// ReopenProbe reopens after a failed probe.
func (b *breakerStore) ReopenProbe(ctx context.Context, service, owner string, class work.Class, now time.Time, openFor time.Duration) (breaker.Record, error) {
	b.write(service)
	return b.m.ReopenProbe(ctx, service, owner, class, now, openFor)
}

// ReleaseProbe gives the probe lease back.
func (b *breakerStore) ReleaseProbe(ctx context.Context, service, owner string, now time.Time) (breaker.Record, error) {
	b.write(service)
	return b.m.ReleaseProbe(ctx, service, owner, now)
}

// SetDraining marks a breaker's service as draining a gate.
func (b *breakerStore) SetDraining(ctx context.Context, service string, g gates.Name, until, now time.Time) error {
	b.write(service)
	return b.m.SetDraining(ctx, service, g, until, now)
}

// Reset closes a breaker (operator).
func (b *breakerStore) Reset(ctx context.Context, service string, now time.Time) (breaker.Record, error) {
	b.write(service)
	return b.m.Reset(ctx, service, now)
}

// healthStore is health.Memory behind health.Store, counting what
// health.Dynamo requests: a strongly consistent GetItem per Get, a Scan per
// List, one conditional UpdateItem per failure counted, per reset and per
// recovery or override.
type healthStore struct {
	health.Store
	e *engine
}

var _ health.Store = healthStore{}

// Get reads a model's health.
func (h healthStore) Get(ctx context.Context, model string) (health.Model, error) {
	h.e.dyn(ddbGetItem, load{key: "models/" + model, r: rru(healthBytes, true)})
	return h.Store.Get(ctx, model)
}

// List reads every model's health (a Scan of the small table, billed as a
// Query).
func (h healthStore) List(ctx context.Context) ([]health.Model, error) {
	h.e.dyn(ddbQuery, load{key: "models/*", r: rru(healthBytes, true)})
	return h.Store.List(ctx)
}

// Recover re-enables a model.
func (h healthStore) Recover(ctx context.Context, req health.RecoverRequest) (health.Model, error) {
	h.e.dyn(ddbUpdateItem, load{key: "models/" + req.Model, w: wru(healthBytes)})
	return h.Store.Recover(ctx, req)
}

// SetDisabled is the operator override.
func (h healthStore) SetDisabled(ctx context.Context, model string, disabled bool, reason string, now time.Time) (health.Model, error) {
	h.e.dyn(ddbUpdateItem, load{key: "models/" + model, w: wru(healthBytes)})
	return h.Store.SetDisabled(ctx, model, disabled, reason, now)
}

// RecordFailure counts a model-specific failure.
func (h healthStore) RecordFailure(ctx context.Context, req health.FailureRequest) (health.FailureResult, error) {
	h.e.dyn(ddbUpdateItem, load{key: "models/" + req.Model, w: wru(healthBytes)})
	return h.Store.RecordFailure(ctx, req)
}

// ResetFailures zeroes a model's count (a conditional write, billed
// whether or not it applies).
func (h healthStore) ResetFailures(ctx context.Context, model string, now time.Time) (bool, error) {
	h.e.dyn(ddbUpdateItem, load{key: "models/" + model, w: wru(healthBytes)})
	return h.Store.ResetFailures(ctx, model, now)
}

// budgetStore is budget.MemoryStore behind budget.Store, counting what
// budget.Daily requests: one conditional UpdateItem per lease (billed
// whether or not it applies), one UpdateItem per counters write.
type budgetStore struct {
	m *budget.MemoryStore
	e *engine
}

// Lease leases from the day.
func (b budgetStore) Lease(ctx context.Context, req budget.LeaseRequest) (budget.LeaseResult, error) {
	b.e.dyn(ddbUpdateItem, load{key: "budget/" + req.Day, w: wru(budgetBytes)})
	return b.m.Lease(ctx, req)
}

// Add writes counters.
func (b budgetStore) Add(ctx context.Context, day string, r budget.Report, dailyCap budget.Micros) error {
	b.e.dyn(ddbUpdateItem, load{key: "budget/" + day, w: wru(budgetBytes)})
	return b.m.Add(ctx, day, r, dailyCap)
}
