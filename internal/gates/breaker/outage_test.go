package breaker_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// countingDB counts the breaker store's DynamoDB requests.
type countingDB struct {
	breaker.DynamoAPI
	gets, updates atomic.Int64
}

func (c *countingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.gets.Add(1)
	return c.DynamoAPI.GetItem(ctx, in, opts...)
}

func (c *countingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.updates.Add(1)
	return c.DynamoAPI.UpdateItem(ctx, in, opts...)
}

// articleHost is a counting fake upstream with an outage switch: during an
// outage every call answers 503.
type articleHost struct {
	mu     sync.Mutex
	outage bool
	calls  int
	failed map[string]int
}

func (h *articleHost) Run(_ context.Context, it store.Item, _ gates.Delivery) (work.Output, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	if h.outage {
		h.failed[it.ID]++
		return work.Output{}, &failure.HTTPError{Provider: failure.HTTP, Op: "GET article", Status: 503}
	}
	return work.Output{Document: &work.Document{Text: "text of " + it.ID, Bytes: 10}}, nil
}

func (h *articleHost) set(outage bool) (calls int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.outage = outage
	return h.calls
}

func (h *articleHost) callCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

// fleet is several Lambda instances of the fetch stage: each has its own
// Breakers (and cache) over one shared breaker store, and its own Runner
// over one shared item store.
type fleet struct {
	t        *testing.T
	items    *store.Memory
	clock    *clock.Stub
	host     *articleHost
	runners  []*runner.Runner
	metrics  *telemetry.Tally
	received map[string]int
}

func newFleet(t *testing.T, dbx breaker.Store, instances int, ids []string) *fleet {
	f := &fleet{t: t, items: store.NewMemory(), clock: clock.NewStub(t0), host: &articleHost{failed: map[string]int{}},
		metrics: &telemetry.Tally{}, received: map[string]int{}}
	for _, id := range ids {
		f.items.Put(store.Item{ID: id, Kind: store.KindStory, SourceURL: "https://news.example/" + id, CorrelationID: "c-" + id,
			Status: work.Received, State: work.Queued, Stage: work.Fetch, CreatedAt: t0})
	}
	for range instances {
		b := &breaker.Breakers{Store: dbx, Clock: f.clock, Stage: work.Fetch, Metrics: f.metrics}
		r := runnertest.NewRunner(work.Fetch, breaker.Guard{Inner: f.host, Service: breaker.SourceHost, Breakers: b},
			f.items, runnertest.NewQueues(), f.clock)
		f.runners = append(f.runners, r)
	}
	return f
}

// deliver hands each of the first n instances one batch (ids dealt
// round-robin), all at once, and returns the upstream calls made.
func (f *fleet) deliver(n int, ids []string) int {
	f.t.Helper()
	before := f.host.callCount()
	batches := make([]events.SQSEvent, n)
	for i, id := range ids {
		f.received[id]++
		env := work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "c-" + id}
		batches[i%len(batches)].Records = append(batches[i%len(batches)].Records, events.SQSMessage{
			MessageId: "m-" + id, ReceiptHandle: fmt.Sprintf("r-%s-%d", id, f.received[id]), Body: env.Encode(),
			Attributes: map[string]string{"ApproximateReceiveCount": strconv.Itoa(f.received[id])},
		})
	}
	var wg sync.WaitGroup
	for i, r := range f.runners[:n] {
		if len(batches[i].Records) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.Handle(context.Background(), batches[i]); err != nil {
				f.t.Errorf("handle: %v", err)
			}
		}()
	}
	wg.Wait()
	return f.host.callCount() - before
}

func (f *fleet) item(id string) store.Item { f.t.Helper(); return runnertest.Item(f.t, f.items, id) }

// pending lists the items not done at fetch yet.
func (f *fleet) pending(ids []string) []string {
	var out []string
	for _, id := range ids {
		if it := f.item(id); it.Stage == work.Fetch {
			out = append(out, id)
		}
	}
	return out
}

// TestOutage drives three fetch instances through an outage of one article
// host: 5 failures open the breaker; during the outage each half-open
// window lets exactly one probe reach the host, whichever instance wins it;
// refused items spend no attempts; after the outage one probe closes the
// breaker and every item completes. It runs over the in-memory breaker
// store and over DynamoDB (moto).
func TestOutage(t *testing.T) {
	t.Parallel()
	var db *countingDB
	stores := map[string]func(t *testing.T) breaker.Store{
		"memory": func(*testing.T) breaker.Store { return breaker.NewMemory() },
		"dynamo": func(t *testing.T) breaker.Store {
			d := dynamoStore(t)
			db = &countingDB{DynamoAPI: d.DB}
			d.DB = db
			return d
		},
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var ids []string
			for i := range 10 {
				ids = append(ids, fmt.Sprintf("item-%02d", i))
			}
			f := newFleet(t, newStore(t), 3, ids)
			f.host.set(true)

			// One instance, one record at a time: five failures open it.
			f.runners[0].Concurrency = 1
			if calls := f.deliver(1, ids); calls != breaker.DefaultThreshold {
				t.Fatalf("calls before the breaker opened = %d, want %d", calls, breaker.DefaultThreshold)
			}
			f.runners[0].Concurrency = 0
			for i, id := range ids {
				it := f.item(id)
				want := 0
				if i < breaker.DefaultThreshold-1 {
					// The failure that opened the breaker is the outage's:
					// its item waits like the rest.
					want = 1
				}
				if it.Attempts[work.Fetch] != want {
					t.Fatalf("%s: %d attempts after the first batch, want %d", id, it.Attempts[work.Fetch], want)
				}
			}

			// Two half-open windows during the outage: one probe each (the
			// windows back off from the second failed probe on).
			for window := 1; window <= 2; window++ {
				f.clock.Advance(reopenedFor(window-1) + time.Second)
				if calls := f.deliver(len(f.runners), f.pending(ids)); calls != 1 {
					t.Fatalf("window %d: the host got %d calls, want exactly 1 probe", window, calls)
				}
			}
			if p := f.metrics.Get(breaker.MetricBreakerProbes); p != 2 {
				t.Fatalf("probes = %d, want 2", p)
			}

			// The outage ends: the next window's probe closes the breaker.
			f.host.set(false)
			f.clock.Advance(reopenedFor(2) + time.Second)
			if calls := f.deliver(len(f.runners), f.pending(ids)); calls < 1 {
				t.Fatal("no probe after the outage")
			}
			for round := 0; round < 3 && len(f.pending(ids)) > 0; round++ {
				f.clock.Advance(policy.ProbeWait + time.Second)
				f.deliver(len(f.runners), f.pending(ids))
			}
			if p := f.pending(ids); len(p) != 0 {
				t.Fatalf("items still at fetch after the outage: %v", p)
			}
			if f.metrics.Get(breaker.MetricBreakerProbes) != 3 || f.metrics.Get(breaker.MetricBreakerCloses) != 1 ||
				f.metrics.Get(breaker.MetricBreakerOpens) != 3 {
				t.Fatalf("metrics = %v; want 3 probes, 1 close, 3 opens", f.metrics)
			}

			// No attempt was spent without a call that failed, and none on a
			// failed probe: the probe is the system's attempt, not the item's.
			spent, refused, failedCalls := 0, 0, 0
			for _, id := range ids {
				it := f.item(id)
				if got, most := it.Attempts[work.Fetch], f.host.failed[id]; got > most {
					t.Errorf("%s: %d attempts for %d failed calls (delivered %d times)", id, got, most, f.received[id])
				}
				spent += it.Attempts[work.Fetch]
				failedCalls += f.host.failed[id]
				refused += f.received[id] - 1 - it.Attempts[work.Fetch]
			}
			if spent != breaker.DefaultThreshold-1 || failedCalls != breaker.DefaultThreshold+2 {
				t.Errorf("attempts spent = %d for %d failed calls, want %d for %d (the calls before the one that opened it; "+
					"that one and the 2 failed probes spend none)", spent, failedCalls, breaker.DefaultThreshold-1, breaker.DefaultThreshold+2)
			}
			deliveries := 0
			for _, n := range f.received {
				deliveries += n
			}
			t.Logf("%d deliveries, %d refused while open or probing (0 attempts spent on them), %d host calls",
				deliveries, refused, f.host.callCount())
			if name == "dynamo" {
				t.Logf("DynamoDB: %d GetItem, %d UpdateItem for %d deliveries", db.gets.Load(), db.updates.Load(), deliveries)
			}
		})
	}
}
