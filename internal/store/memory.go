package store

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/work"
)

// Memory is an in-memory item store and error log with the same rules as
// the DynamoDB stores (rules.go), for handler tests, benchmarks and the
// policy simulator. The conformance tests run one suite against both. It is
// safe for concurrent use.
type Memory struct {
	mu     sync.Mutex
	items  map[string]Item
	parked map[string]memParked
	log    []LogEntry
	// audit holds the replay and note entries the DynamoDB store writes to
	// the error log (kept apart: reports read failures only).
	audit []LogEntry
	// bodies are the sibling items (by item and part), objects the S3
	// objects (by key); see Part. bodyThreshold and noObjects place them as
	// BodyConfig does.
	bodies        map[bodyID][]byte
	objects       map[string][]byte
	bodyThreshold int
	noObjects     bool
	// resolutions are the error log's resolutions (resolve.go).
	resolutions []Resolution
	// parkedClaims are the scheduler's claims on parked waits (parked.go).
	parkedClaims map[string]parkedClaim
	// byGate indexes gate waits by gate, in park order; dueWaits holds the
	// ids of plain due waits (parked.go).
	byGate   map[gates.Name]*gateQueue
	dueWaits map[string]struct{}
	parkSeq  uint64
}

type bodyID struct {
	item string
	part Part
}

// NewMemory returns an empty store that places bodies as a BodyConfig with
// an ObjectStore and the default threshold does.
func NewMemory() *Memory {
	return &Memory{items: map[string]Item{}, parked: map[string]memParked{}, byGate: map[gates.Name]*gateQueue{},
		dueWaits: map[string]struct{}{}, bodies: map[bodyID][]byte{}, objects: map[string][]byte{}}
}

// SetBodies places bodies as c does: c.Threshold, and StoreS3 only when
// c.Objects is set (the Memory keeps the objects itself).
func (m *Memory) SetBodies(c BodyConfig) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bodyThreshold, m.noObjects = c.threshold(), c.Objects == nil
}

func (m *Memory) bodyConfigLocked() (int, bool) {
	if m.bodyThreshold <= 0 {
		return DefaultBodyThreshold, !m.noObjects
	}
	return m.bodyThreshold, !m.noObjects
}

// Create stores a new item queued for fetch; an *ExistsError (ErrExists)
// carrying the item if the id is taken. See Items.Create.
func (m *Memory) Create(_ context.Context, n NewItem) (Item, error) {
	if err := n.validate(); err != nil {
		return Item{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	it := newItem(n)
	if cur, ok := m.items[n.ID]; ok {
		if n.Owner != "" && cur.LastWrite == it.LastWrite {
			return clone(cur), nil
		}
		c := clone(cur)
		return Item{}, &ExistsError{ItemID: n.ID, Current: &c}
	}
	m.items[n.ID] = it
	return clone(it), nil
}

// Put stores it as is, replacing any item with its id (test setup).
func (m *Memory) Put(it Item) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if it.Attempts == nil {
		it.Attempts = map[work.Stage]int{}
	}
	m.items[it.ID] = clone(it)
}

// Get returns a copy of the item.
func (m *Memory) Get(_ context.Context, id string) (Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[id]
	if !ok {
		return Item{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	return clone(it), nil
}

// Claim takes the lease under canClaim.
func (m *Memory) Claim(_ context.Context, req ClaimRequest) (Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.items[req.ItemID]
	if !ok {
		return Item{}, &ClaimError{ItemID: req.ItemID, Stage: req.Stage}
	}
	if !canClaim(cur, req) {
		c := clone(cur)
		return Item{}, &ClaimError{ItemID: req.ItemID, Stage: req.Stage, Current: &c}
	}
	cur.State, cur.LeaseOwner, cur.LeaseUntil, cur.UpdatedAt = work.Working, req.Owner, req.Now.Add(req.LeaseFor), req.Now
	cur.Carrier = req.Carrier
	m.items[req.ItemID] = cur
	return clone(cur), nil
}

// Complete records success under holdsLease.
func (m *Memory) Complete(_ context.Context, req CompleteRequest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.items[req.ItemID]
	if !ok || !holdsLease(cur, req.Stage, req.Owner) {
		return fmt.Errorf("complete %s at %s: %w", req.ItemID, req.Stage, ErrConflict)
	}
	cur.State, cur.Stage = nextAfterSuccess(req.Stage)
	cur.Status = work.StatusAfter(req.Stage)
	cur.EnrichmentStatus, cur.FailureCount = work.EnrichmentSuccess, 0
	cur.LastError, cur.FirstFailureAt, cur.Suspect = nil, time.Time{}, nil
	cur.LeaseOwner, cur.LeaseUntil, cur.NotBefore, cur.Carrier = "", time.Time{}, time.Time{}, ""
	cur.UpdatedAt = req.Now
	cur.LastWrite = writeToken(req.Owner, "complete", req.Now)
	out := boundOutput(req.Output)
	bd, err := outputBody(out)
	if err != nil {
		return fmt.Errorf("complete %s at %s: %w", req.ItemID, req.Stage, err)
	}
	if bd != nil {
		threshold, objects := m.bodyConfigLocked()
		bd.ref.Store = placement(len(bd.data), threshold, objects)
		if bd.ref.Store == StoreS3 {
			bd.ref.Key = ObjectKey(req.ItemID, bd.part, bd.ref.SHA256)
			m.objects[bd.ref.Key] = slices.Clone(bd.data)
		} else {
			if len(bd.data) > MaxTableBodyBytes {
				return fmt.Errorf("complete %s at %s: %d bytes is too large for a table body", req.ItemID, req.Stage, len(bd.data))
			}
			m.bodies[bodyID{req.ItemID, bd.part}] = slices.Clone(bd.data)
		}
		out = withRef(out, bd.ref)
	}
	switch {
	case out.Document != nil:
		cur.Document = copyOf(out.Document)
	case out.Enrichment != nil:
		e := *out.Enrichment
		e.TopEntities = slices.Clone(e.TopEntities)
		cur.Enrichment = &e
	case out.Delivery != nil:
		cur.Delivery = copyOf(out.Delivery)
	}
	m.items[req.ItemID] = cur
	return nil
}

// Hydrate reads an item's bodies back; see Items.Hydrate.
func (m *Memory) Hydrate(_ context.Context, it Item, parts ...Part) (Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return hydrate(clone(it), parts, func(p Part, ref work.BodyRef) ([]byte, error) {
		var (
			data []byte
			ok   bool
		)
		switch ref.Store {
		case StoreS3:
			data, ok = m.objects[ref.Key]
		case StoreTable:
			data, ok = m.bodies[bodyID{it.ID, p}]
		default:
			return nil, fmt.Errorf("%s of %s: unknown body store %q", p, it.ID, ref.Store)
		}
		if !ok {
			return nil, fmt.Errorf("the %s of %s: %w", p, it.ID, ErrBodyGone)
		}
		body, err := decoded(it.ID, p, ref, data)
		if err != nil {
			return nil, err
		}
		return body, verify(it.ID, p, ref, body)
	})
}

// DropBodies forgets every body of the item, as their expiry would (tests).
func (m *Memory) DropBodies(itemID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range []Part{PartDocument, PartEnrichment} {
		delete(m.bodies, bodyID{itemID, p})
	}
	for k := range m.objects {
		if strings.Contains(k, "/"+url.PathEscape(itemID)+"/") {
			delete(m.objects, k)
		}
	}
}

// TamperBody replaces the item's sibling-item body of part with data
// (tests of the read-back check).
func (m *Memory) TamperBody(itemID string, part Part, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bodies[bodyID{itemID, part}] = slices.Clone(data)
}

// BodyCounts returns how many bodies the store holds as sibling items and
// as objects.
func (m *Memory) BodyCounts() (table, objects int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.bodies), len(m.objects)
}

// Fail records a failure under canFail and returns the stage's attempts.
func (m *Memory) Fail(_ context.Context, req FailRequest) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fail(req)
}

func (m *Memory) fail(req FailRequest) (int, error) {
	if req.Next != work.Retryable && req.Next != work.Failed {
		return 0, fmt.Errorf("record failure of %s: next state %q is not retryable or failed", req.ItemID, req.Next)
	}
	cur, ok := m.items[req.ItemID]
	if !ok || !canFail(cur, req) {
		return 0, fmt.Errorf("record failure of %s at %s: %w", req.ItemID, req.Stage, ErrConflict)
	}
	inc := b2i(req.Counts)
	cur.Attempts = maps.Clone(cur.Attempts)
	cur.Attempts[req.Stage] += inc
	cur.FailureCount += inc
	le := boundLastError(req.LastError)
	cur.LastError = &le
	if req.Suspect != nil {
		s := req.Suspect.bound()
		cur.Suspect = &s
	}
	cur.LastFailureAt = req.Now
	if cur.FirstFailureAt.IsZero() {
		cur.FirstFailureAt = req.Now
	}
	cur.State = req.Next
	cur.EnrichmentStatus = work.EnrichmentPending
	cur.NotBefore = time.Time{}
	if req.Next == work.Failed {
		cur.EnrichmentStatus = work.EnrichmentPermanentFailure
	} else {
		cur.NotBefore = req.NotBefore
	}
	cur.LeaseOwner, cur.LeaseUntil, cur.UpdatedAt = "", time.Time{}, req.Now
	cur.LastWrite = writeToken(req.Owner, "fail/"+strconv.Itoa(req.PrevAttempts), req.Now)
	m.items[req.ItemID] = cur
	return cur.Attempts[req.Stage], nil
}

// Park records the failure and the parked wait atomically, under Items.Park's
// rules (no carrier; a gate wait's item claimable at once).
func (m *Memory) Park(_ context.Context, req FailRequest, p Parking) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	req.Next, req.NotBefore = work.Retryable, parkedNotBefore(req.Now, p)
	n, err := m.fail(req)
	if err != nil {
		return 0, err
	}
	m.clearCarrier(req.ItemID)
	m.putParked(req.ItemID, req.Now, p)
	return n, nil
}

// ParkWait releases the lease without a failure and parks the wait
// atomically, under Items.ParkWait's rules.
func (m *Memory) ParkWait(_ context.Context, req ReleaseRequest, p Parking) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	req.NotBefore = parkedNotBefore(req.Now, p)
	if err := m.release(req); err != nil {
		return err
	}
	m.clearCarrier(req.ItemID)
	m.putParked(req.ItemID, req.Now, p)
	return nil
}

func (m *Memory) clearCarrier(id string) {
	it := m.items[id]
	it.Carrier = ""
	m.items[id] = it
}

// Release gives the lease back under holdsLease.
func (m *Memory) Release(_ context.Context, req ReleaseRequest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.release(req)
}

func (m *Memory) release(req ReleaseRequest) error {
	cur, ok := m.items[req.ItemID]
	if !ok || !holdsLease(cur, req.Stage, req.Owner) {
		return fmt.Errorf("release %s at %s: %w", req.ItemID, req.Stage, ErrConflict)
	}
	cur.State, cur.NotBefore = work.Retryable, req.NotBefore
	if req.Suspect != nil {
		s := req.Suspect.bound()
		cur.Suspect = &s
	}
	cur.LeaseOwner, cur.LeaseUntil, cur.UpdatedAt = "", time.Time{}, req.Now
	cur.LastWrite = writeToken(req.Owner, "release", req.Now)
	m.items[req.ItemID] = cur
	return nil
}

// MarkDeadLettered moves failed → deadletter.
func (m *Memory) MarkDeadLettered(_ context.Context, itemID string, stage work.Stage, ref DeadLetterRef, now time.Time) error {
	if len(ref.ID) > MaxRefBytes {
		return fmt.Errorf("mark %s dead-lettered: dead letter id longer than %d bytes", itemID, MaxRefBytes)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.items[itemID]
	if ok && cur.State == work.Deadletter && cur.DeadLetter != nil && cur.DeadLetter.ID == ref.ID {
		return nil // the same hand-off, confirmed again
	}
	if !ok || !canMarkDeadLettered(cur, stage, ref) {
		return fmt.Errorf("mark %s dead-lettered at %s: %w", itemID, stage, ErrConflict)
	}
	cur.State, cur.DeadLetter, cur.UpdatedAt = work.Deadletter, &ref, now
	cur.LastWrite = "deadletter/" + ref.ID
	m.items[itemID] = cur
	return nil
}

// Append records an error-log entry.
func (m *Memory) Append(_ context.Context, e LogEntry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, e)
	return nil
}

// Log returns a copy of the error log in append order.
func (m *Memory) Log() []LogEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.log)
}

// Parked returns a copy of the parked waits by item id.
func (m *Memory) Parked() map[string]Parking {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Parking, len(m.parked))
	for id, pk := range m.parked {
		out[id] = pk.Parking
	}
	return out
}

// ParkedCount returns how many waits are parked, and how many of them wait
// behind a gate.
func (m *Memory) ParkedCount() (all, onGate int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.parked), len(m.parked) - len(m.dueWaits)
}

// clone deep-copies the parts of an item callers could mutate.
func clone(it Item) Item {
	it.Attempts = maps.Clone(it.Attempts)
	if it.Attempts == nil {
		it.Attempts = map[work.Stage]int{}
	}
	if it.LastError != nil {
		le := *it.LastError
		le.Details = maps.Clone(le.Details)
		it.LastError = &le
	}
	it.Metadata = maps.Clone(it.Metadata)
	it.Notices = copyOf(it.Notices)
	it.Replays = slices.Clone(it.Replays)
	it.Notes = slices.Clone(it.Notes)
	if it.Document != nil {
		d := *it.Document
		d.Body = copyOf(d.Body)
		it.Document = &d
	}
	if it.Enrichment != nil {
		e := *it.Enrichment
		e.TopEntities = slices.Clone(e.TopEntities)
		e.Body = copyOf(e.Body)
		it.Enrichment = &e
	}
	it.Delivery = copyOf(it.Delivery)
	it.DeadLetter = copyOf(it.DeadLetter)
	it.Resolution = copyOf(it.Resolution)
	it.Suspect = copyOf(it.Suspect)
	return it
}
