package scheduler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// capture is an SQS fake that keeps every entry a scheduler sends.
type capture struct {
	mu      sync.Mutex
	entries []sqstypes.SendMessageBatchRequestEntry
}

func (c *capture) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, in.Entries...)
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		out.Successful = append(out.Successful, sqstypes.SendMessageBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

func (c *capture) take() []sqstypes.SendMessageBatchRequestEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.entries
	c.entries = nil
	return out
}

type gateBundle struct {
	items    *store.Memory
	gates    *store.MemoryGates
	breakers *breaker.Memory
	models   *health.Memory
	clock    *clock.Stub
	sqs      *capture
	sched    *scheduler.Scheduler
}

func setupGates(t *testing.T) *gateBundle {
	t.Helper()
	b := &gateBundle{items: store.NewMemory(), gates: store.NewMemoryGates(), breakers: breaker.NewMemory(), models: health.NewMemory(),
		clock: clock.NewStub(t0), sqs: &capture{}}
	br := scheduler.Breakers{Store: b.breakers}
	b.sched = &scheduler.Scheduler{
		Store: b.items.ParkedStore(), Waiters: b.items.ParkedStore(), Gates: b.gates, SQS: b.sqs, Clock: b.clock,
		Queues: map[work.Stage]string{work.LLM: "llm"},
		Checkers: map[gates.Kind]scheduler.Checker{gates.Breaker: br, gates.Quota: br, gates.Models: scheduler.Models{Store: b.models},
			gates.Budget: scheduler.Budget{}},
	}
	return b
}

// park parks n items behind g, a second apart, as the stage does: touch
// the gate, then park.
func (b *gateBundle) park(t *testing.T, g gates.Name, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		id := fmt.Sprintf("%s-%03d", g.Kind(), i)
		now := b.clock.Now().Add(time.Duration(i) * time.Millisecond)
		b.items.Put(store.Item{ID: id, State: work.Working, Stage: work.LLM, LeaseOwner: "o", CorrelationID: "c"})
		if err := b.gates.Touch(ctx, g, now); err != nil {
			t.Fatal(err)
		}
		if err := b.items.ParkWait(ctx, store.ReleaseRequest{ItemID: id, Stage: work.LLM, Owner: "o", Now: now},
			store.Parking{Gate: g, Envelope: work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "c"}}); err != nil {
			t.Fatal(err)
		}
	}
}

func (b *gateBundle) run(t *testing.T, id string) scheduler.Result {
	t.Helper()
	res, err := b.sched.Run(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func attr(e sqstypes.SendMessageBatchRequestEntry, name string) string {
	return aws.ToString(e.MessageAttributes[name].StringValue)
}

// TestClosedGateReleasesOnlyItsProbe: while a breaker is open nothing is
// released; once its probe is due, the oldest waiter goes alone, carrying
// the probe lease the scheduler took; while that probe runs, no other.
func TestClosedGateReleasesOnlyItsProbe(t *testing.T) {
	t.Parallel()
	b := setupGates(t)
	ctx := context.Background()
	g := gates.New(gates.Breaker, "api.example")
	for range breaker.DefaultThreshold {
		if _, err := b.breakers.RecordFailure(ctx, breaker.FailureRequest{Service: "api.example", Class: work.UpstreamUnavailable, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	b.park(t, g, 20)
	if res := b.run(t, "r1"); res.Gates != 1 || res.Open != 0 || res.Probes != 0 || len(b.sqs.take()) != 0 {
		t.Fatalf("open breaker: %+v", res)
	}
	b.clock.Advance(breaker.DefaultOpenFor)
	res := b.run(t, "r2")
	sent := b.sqs.take()
	if res.Probes != 1 || len(sent) != 1 || attr(sent[0], gates.AttrGate) != string(g) || attr(sent[0], gates.AttrProbe) == "" {
		t.Fatalf("probe due: %+v, sent %+v", res, sent)
	}
	r, _ := b.breakers.Get(ctx, "api.example")
	if r.State != breaker.HalfOpen || r.ProbeOwner != attr(sent[0], gates.AttrProbe) {
		t.Fatalf("breaker %+v, want half-open under the released probe's lease", r)
	}
	if _, still := b.items.Parked()["breaker-000"]; still {
		t.Fatal("the probe's waiter is still parked")
	}
	b.clock.Advance(time.Minute)
	if res := b.run(t, "r3"); res.Probes != 0 || len(b.sqs.take()) != 0 {
		t.Fatalf("while the probe runs: %+v", res)
	}
	// The probe lease expired without a verdict (its item lost): another
	// waiter is released as the probe.
	b.clock.Advance(breaker.DefaultProbeLease)
	if res := b.run(t, "r4"); res.Probes != 1 {
		t.Fatalf("after the probe lease expired: %+v", res)
	}
}

// TestOpenGateReleasesInARamp: an open gate's waiters go oldest first, in
// a ramp that grows while no released item meets congestion and is cut
// when one does, each run's releases spread over the interval; the record
// is retired once no waiter is left and no stage touched it for a while.
// (gate's TestRampSchedule holds the ramp itself to a literal table.)
func TestOpenGateReleasesInARamp(t *testing.T) {
	t.Parallel()
	b := setupGates(t)
	ctx := context.Background()
	g := gates.New(gates.Budget, "2026-11-20") // yesterday's budget: open
	b.sched.Ramp = gates.RampConfig{Start: 10}
	b.park(t, g, 100)
	b.clock.Advance(2 * time.Hour) // 100 waiters in 2 hours: the ramp starts at its start
	var rates []int
	first := true
	for run := 0; len(b.items.Parked()) > 0 && run < 20; run++ {
		if run == 2 {
			// Half of the last run's releases met congestion.
			for range 10 {
				if err := b.gates.Congested(ctx, g, b.clock.Now().Add(-time.Second)); err != nil {
					t.Fatal(err)
				}
			}
		}
		res := b.run(t, fmt.Sprint("r", run))
		sent := b.sqs.take()
		rates = append(rates, len(sent))
		if res.Released != len(sent) || res.Open != 1 {
			t.Fatalf("run %d: %+v, %d sent", run, res, len(sent))
		}
		if first {
			first = false
			if sent[0].DelaySeconds != 0 || sent[len(sent)-1].DelaySeconds < 50 || attr(sent[0], gates.AttrGate) != string(g) ||
				attr(sent[0], gates.AttrProbe) != "" || *sent[0].MessageBody != (work.Envelope{ItemID: "budget-000", Stage: work.LLM, CorrelationID: "c"}).Encode() {
				t.Fatalf("first release: %+v", sent)
			}
		}
		b.clock.Advance(time.Minute)
	}
	if want := "[10 20 14 14 16 17 9]"; fmt.Sprint(rates) != want {
		t.Fatalf("releases per run %v, want %s (start 10, slow start ×2, congestion ×0.7, hold, a quarter of the way back to 20 twice, the rest)",
			rates, want)
	}
	if rec, _ := b.gates.Get(g); rec.Ramp.Total != 100 {
		t.Fatalf("ramp total %d", rec.Ramp.Total)
	}
	b.clock.Advance(store.StaleTouch)
	if res := b.run(t, "last"); res.Retired != 1 {
		t.Fatalf("retire: %+v", res)
	}
	if _, ok := b.gates.Get(g); ok {
		t.Fatal("the record is still there")
	}
}

// TestRampOpensAtTheWaitersRate: a gate whose waiters arrived quickly — a
// busy upstream's ten-minute outage — opens at the rate they arrived at,
// the load the upstream carried, not at the ramp's start.
func TestRampOpensAtTheWaitersRate(t *testing.T) {
	t.Parallel()
	b := setupGates(t)
	g := gates.New(gates.Budget, "2026-11-20")
	b.park(t, g, 300)
	b.clock.Advance(10 * time.Minute) // 300 waiters in 10 minutes: 30 a minute
	if res := b.run(t, "r"); res.Released != 30 || len(b.sqs.take()) != 30 {
		t.Fatalf("first run after the gate opened: %+v, want 30 released", res)
	}
}

// TestOverlappingRunsReleaseAGateOnce: two runs at the same moment (an
// EventBridge retry) do not both release a gate.
func TestOverlappingRunsReleaseAGateOnce(t *testing.T) {
	t.Parallel()
	b := setupGates(t)
	g := gates.New(gates.Budget, "2026-11-20")
	b.park(t, g, 50)
	b.clock.Advance(2 * time.Hour)
	var wg sync.WaitGroup
	results := make([]scheduler.Result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.run(t, fmt.Sprint("run-", i))
		}()
	}
	wg.Wait()
	if got := results[0].Released + results[1].Released; got != gates.DefaultRampStart || len(b.sqs.take()) != gates.DefaultRampStart {
		t.Fatalf("released %d in two overlapping runs, want one run's %d: %+v", got, gates.DefaultRampStart, results)
	}
}

// TestGateChecks: each kind of gate opens on its own condition; a gate of a
// kind no checker knows keeps its waiters.
func TestGateChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupGates(t)
	if _, err := b.models.SetDisabled(ctx, "openai:a", true, "operator", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.models.SetDisabled(ctx, "openai:b", true, "operator", t0); err != nil {
		t.Fatal(err)
	}
	check := func(k gates.Kind, key string) scheduler.Status {
		t.Helper()
		st, err := b.sched.Checkers[k].Check(ctx, gates.New(k, key), t0)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := check(gates.Models, "a,b"); st.Open {
		t.Fatal("every model of the chain is disabled, yet the gate is open")
	}
	if _, err := b.models.SetDisabled(ctx, "openai:b", false, "", t0); err != nil {
		t.Fatal(err)
	}
	if st := check(gates.Models, "a,b"); !st.Open {
		t.Fatal("a model is enabled again, yet the gate is closed")
	}
	if st := check(gates.Models, "never-failed"); !st.Open {
		t.Fatal("a model without a health record is enabled")
	}
	if st := check(gates.Budget, "2026-11-21"); st.Open {
		t.Fatal("today's budget gate is open")
	}
	if st := check(gates.Budget, "2026-11-20"); !st.Open {
		t.Fatal("yesterday's budget gate is closed")
	}
	if st := check(gates.Breaker, "unknown.example"); !st.Open {
		t.Fatal("a breaker that never failed is closed")
	}
	delete(b.sched.Checkers, gates.Models)
	b.park(t, gates.New(gates.Models, "a,b"), 3)
	if res := b.run(t, "r"); res.Errors != 1 || len(b.items.Parked()) != 3 {
		t.Fatalf("unknown kind: %+v, %d parked", res, len(b.items.Parked()))
	}
}

// TestDrainingLapsesOnceTheBacklogIsOut: the scheduler marks a breaker's
// service as draining while a run cannot release every waiter of its gate
// (newcomers queue behind the backlog), and stops once a run empties the
// gate; otherwise every arrival would park behind the mark and be released a
// run later, for as long as arrivals come.
func TestDrainingLapsesOnceTheBacklogIsOut(t *testing.T) {
	t.Parallel()
	b := setupGates(t)
	ctx := context.Background()
	g := gates.New(gates.Breaker, "api.example")
	b.sched.Ramp = gates.RampConfig{Start: 10, NoSlowStart: true}
	// A closed breaker record, then 15 waiters parked behind it.
	if _, err := b.breakers.RecordFailure(ctx, breaker.FailureRequest{Service: "api.example", Class: work.UpstreamUnavailable,
		At: t0, Threshold: 5, OpenFor: time.Minute}); err != nil {
		t.Fatal(err)
	}
	b.park(t, g, 15)
	b.clock.Advance(time.Hour) // a slow trickle: the ramp starts at 10
	draining := func() bool {
		r, err := b.breakers.Get(ctx, "api.example")
		if err != nil {
			t.Fatal(err)
		}
		return r.DrainingGate == g && r.DrainingUntil.After(b.clock.Now())
	}
	if res := b.run(t, "r1"); res.Released != 10 || !draining() {
		t.Fatalf("first run: %+v, draining %v; want 10 released of 15 and the service draining", res, draining())
	}
	b.clock.Advance(3 * time.Minute) // past the first run's mark
	if res := b.run(t, "r2"); res.Released != 5 || draining() {
		t.Fatalf("second run: %+v, draining %v; want the last 5 released and no new mark", res, draining())
	}
}
