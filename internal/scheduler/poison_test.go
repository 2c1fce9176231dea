package scheduler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// TestProbeCandidate: the probe goes to the oldest waiter that is no
// suspect, else to the oldest of those that served the fewest probes.
func TestProbeCandidate(t *testing.T) {
	t.Parallel()
	w := func(id string, suspect bool, probes int) store.ParkedWait {
		return store.ParkedWait{ItemID: id, Suspect: suspect, Probes: probes}
	}
	tests := map[string]struct {
		ws   []store.ParkedWait
		want string
	}{
		"the oldest":                           {[]store.ParkedWait{w("a", false, 0), w("b", false, 0)}, "a"},
		"a fresh waiter before a suspect":      {[]store.ParkedWait{w("p", true, 0), w("a", false, 0), w("b", false, 0)}, "a"},
		"the suspect that probed least":        {[]store.ParkedWait{w("p", true, 2), w("q", true, 1), w("r", true, 1)}, "q"},
		"a suspect alone":                      {[]store.ParkedWait{w("p", true, 4)}, "p"},
		"a suspect that never probed, first":   {[]store.ParkedWait{w("p", true, 0), w("q", true, 1)}, "p"},
		"a fresh waiter behind many suspects":  {[]store.ParkedWait{w("p", true, 0), w("q", true, 0), w("a", false, 0)}, "a"},
		"a probe count on a fresh waiter only": {[]store.ParkedWait{w("a", false, 1), w("b", false, 0)}, "a"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := scheduler.ProbeCandidate(tc.ws); got.ItemID != tc.want {
				t.Errorf("ProbeCandidate = %s, want %s", got.ItemID, tc.want)
			}
		})
	}
}

// poisonWorld is the llm stage's runner behind one provider's breaker and
// the scheduler, over the in-memory stores and an injected clock: the
// provider answers 401 to the poisoned items' calls (a sticky AUTH_DENIED,
// which trips an llm provider's breaker), 503 to every call while it is
// down, and succeeds otherwise.
type poisonWorld struct {
	clock    *clock.Stub
	items    *store.Memory
	breakers *breaker.Memory
	queues   *runnertest.Queues
	runner   *runner.Runner
	sched    *scheduler.Scheduler
	sqs      *capture

	mu       sync.Mutex
	poisoned map[string]bool
	down     bool
	calls    map[string]int
	probes   map[string]int
	msgs     int
}

const poisonService = "llm:openai"

func newPoisonWorld(t *testing.T, poisoned ...string) *poisonWorld {
	t.Helper()
	w := &poisonWorld{clock: clock.NewStub(t0), items: store.NewMemory(), breakers: breaker.NewMemory(), queues: runnertest.NewQueues(),
		sqs: &capture{}, poisoned: map[string]bool{}, calls: map[string]int{}, probes: map[string]int{}}
	for _, id := range poisoned {
		w.poisoned[id] = true
	}
	gs := store.NewMemoryGates()
	bb := &breaker.Breakers{Store: w.breakers, Clock: w.clock, Stage: work.LLM, CacheTTL: -1}
	job := breaker.Guard{Service: breaker.Fixed(poisonService), Breakers: bb, Inner: deliveredWork(
		func(ctx context.Context, it store.Item, d gates.Delivery) (work.Output, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.calls[it.ID]++
			if d.Probe != "" {
				w.probes[it.ID]++
			}
			switch {
			case w.down:
				return work.Output{}, &failure.HTTPError{Provider: failure.OpenAI, Status: 503, Body: []byte(`{"error":{"message":"overloaded"}}`)}
			case w.poisoned[it.ID]:
				return work.Output{}, &failure.HTTPError{Provider: failure.OpenAI, Status: 401,
					Body: []byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)}
			}
			return work.Output{Enrichment: &work.Enrichment{Model: "openai:gpt-4o-mini", EnrichedAt: w.clock.Now()}}, nil
		})}
	w.runner = runnertest.NewRunner(work.LLM, job, w.items, w.queues, w.clock)
	w.runner.Gates = gs
	br := scheduler.Breakers{Store: w.breakers}
	w.sched = &scheduler.Scheduler{Store: w.items.ParkedStore(), Waiters: w.items.ParkedStore(), Gates: gs, SQS: w.sqs, Clock: w.clock,
		Queues: map[work.Stage]string{work.LLM: "llm"}, Checkers: map[gates.Kind]scheduler.Checker{gates.Breaker: br}}
	return w
}

// add puts an item at the llm stage and delivers its first message.
func (w *poisonWorld) add(t *testing.T, id string) {
	t.Helper()
	w.items.Put(store.Item{ID: id, Kind: store.KindStory, State: work.Queued, Stage: work.LLM, Status: work.Fetched, CorrelationID: "c-" + id})
	w.deliver(t, events.SQSMessage{Body: work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "c-" + id}.Encode()})
}

// deliver hands one message to the runner, as the event source does.
func (w *poisonWorld) deliver(t *testing.T, m events.SQSMessage) {
	t.Helper()
	w.msgs++
	m.MessageId, m.ReceiptHandle = fmt.Sprintf("m%d", w.msgs), fmt.Sprintf("r%d", w.msgs)
	m.Attributes = map[string]string{"ApproximateReceiveCount": "1"}
	if _, err := w.runner.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{m}}); err != nil {
		t.Fatal(err)
	}
}

// tick runs the scheduler once and delivers what it released.
func (w *poisonWorld) tick(t *testing.T) scheduler.Result {
	t.Helper()
	res, err := w.sched.Run(context.Background(), fmt.Sprintf("run-%d", w.clock.Now().Unix()))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range w.sqs.take() {
		m := events.SQSMessage{Body: aws.ToString(e.MessageBody), MessageAttributes: map[string]events.SQSMessageAttribute{}}
		for name, a := range e.MessageAttributes {
			m.MessageAttributes[name] = events.SQSMessageAttribute{DataType: "String", StringValue: a.StringValue}
		}
		w.deliver(t, m)
	}
	return res
}

func (w *poisonWorld) item(t *testing.T, id string) store.Item {
	t.Helper()
	return runnertest.Item(t, w.items, id)
}

// openWith trips the breaker the way the soak did: transient 503s of other
// items on this process, then the poisoned item's 401, which joins their
// streak and opens it, so that the poisoned item parks behind the
// breaker's gate without spending an attempt.
func (w *poisonWorld) openWith(t *testing.T, poisoned string) {
	t.Helper()
	w.down = true
	for i := range 4 {
		w.add(t, fmt.Sprintf("transient-%d", i))
	}
	w.down = false
	w.add(t, poisoned)
	r, _ := w.breakers.Get(context.Background(), poisonService)
	it := w.item(t, poisoned)
	if r.State != breaker.Open || it.State != work.Retryable || it.Attempts[work.LLM] != 0 || it.Suspect == nil {
		t.Fatalf("setup: breaker %s, %s %s with %d attempts, suspect %+v; want it parked behind the open breaker",
			r.State, poisoned, it.State, it.Attempts[work.LLM], it.Suspect)
	}
}

// TestSchedulerProbeMeetsAPoisonedWaiter is the soak's seed 9138 shape,
// with an injected clock: an item whose every call gets 401 opens the
// provider's breaker and parks behind it; the scheduler probes the breaker
// with a waiter. Before, it probed with the oldest waiter — the poisoned
// item — every window, forever: the probe failed, the breaker reopened,
// the item parked again without spending an attempt. Now a fresh waiter is
// the probe when there is one, the poisoned item's failure is judged its
// own once the provider answered someone else (or at its fifth failed
// probe, alone), and it is dead-lettered AUTH_DENIED.
func TestSchedulerProbeMeetsAPoisonedWaiter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("alone behind the gate", func(t *testing.T) {
		t.Parallel()
		w := newPoisonWorld(t, "poisoned")
		w.openWith(t, "poisoned")
		for range 24 * 60 { // a day of scheduler minutes, bounded
			if w.item(t, "poisoned").State == work.Deadletter {
				break
			}
			w.clock.Advance(time.Minute)
			w.tick(t)
		}
		it := w.item(t, "poisoned")
		if it.State != work.Deadletter || it.DeadLetter == nil || it.DeadLetter.Class != work.AuthDenied {
			t.Fatalf("the poisoned item: %s, dead letter %+v; want dead-lettered AUTH_DENIED", it.State, it.DeadLetter)
		}
		r, _ := w.breakers.Get(ctx, poisonService)
		if w.probes["poisoned"] != 5 || r.Opens != 5 {
			t.Errorf("the poisoned item was the probe %d times, the breaker opened %d times; want 5 and 5 "+
				"(the trip and four reopens, the fifth probe judged the item's own)", w.probes["poisoned"], r.Opens)
		}
		// The windows backed off: 5, 5, 10, 15, 15 minutes.
		if took := w.clock.Now().Sub(t0); took > 52*time.Minute || took < 48*time.Minute {
			t.Errorf("judged after %s, want about 50 minutes of backed-off windows", took)
		}
		if dls, _ := w.queues.DeadLetters(runnertest.DLQURL); len(dls) != 1 || dls[0].ItemID != "poisoned" {
			t.Errorf("DLQ: %+v", dls)
		}
	})

	t.Run("a fresh waiter behind it", func(t *testing.T) {
		t.Parallel()
		w := newPoisonWorld(t, "poisoned")
		w.openWith(t, "poisoned")
		// A healthy item meets the open breaker and parks behind the
		// poisoned one.
		w.clock.Advance(time.Second)
		w.add(t, "healthy")
		if it := w.item(t, "healthy"); it.State != work.Retryable || it.Suspect != nil {
			t.Fatalf("healthy: %+v", it)
		}
		for range 60 {
			if w.item(t, "poisoned").State == work.Deadletter {
				break
			}
			w.clock.Advance(time.Minute)
			w.tick(t)
		}
		if it := w.item(t, "poisoned"); it.State != work.Deadletter || it.DeadLetter.Class != work.AuthDenied {
			t.Fatalf("the poisoned item: %s %+v", it.State, it.DeadLetter)
		}
		if it := w.item(t, "healthy"); it.Stage != work.Notify {
			t.Fatalf("healthy: %s at %s", it.State, it.Stage)
		}
		r, _ := w.breakers.Get(ctx, poisonService)
		if w.probes["poisoned"] != 0 || w.probes["healthy"] != 1 || r.Opens != 1 || r.State != breaker.Closed {
			t.Errorf("probes %v, breaker %+v; want the healthy waiter as the one probe, one opening", w.probes, r)
		}
		if took := w.clock.Now().Sub(t0); took > 7*time.Minute {
			t.Errorf("the poisoned item took %s, want one window", took)
		}
	})

	t.Run("the provider down for everyone", func(t *testing.T) {
		t.Parallel()
		w := newPoisonWorld(t)
		w.down = true
		for i := range 20 {
			w.add(t, fmt.Sprintf("item-%02d", i))
		}
		for range 6 * 60 { // a 6-hour outage
			w.clock.Advance(time.Minute)
			w.tick(t)
		}
		left, onGate := w.items.ParkedCount()
		r, _ := w.breakers.Get(ctx, poisonService)
		for id, n := range w.probes {
			if n > 5 {
				t.Errorf("%s was the probe %d times", id, n)
			}
		}
		if dls, _ := w.queues.DeadLetters(runnertest.DLQURL); len(dls) != 0 {
			t.Fatalf("%d dead letters during the outage: %+v", len(dls), dls)
		}
		// Every item waits behind the breaker but the four whose failures
		// spent an attempt before it opened, held in their queue.
		if onGate < 16 || r.State == breaker.Closed {
			t.Fatalf("after 6 hours: %d of %d parked behind the gate, breaker %+v", onGate, left, r)
		}
		t.Logf("6-hour outage: %d probes, %d openings, windows now %s", len(w.probes), r.Opens, r.OpenUntil.Sub(r.OpenedAt))
		w.down = false
		for range 120 {
			w.clock.Advance(time.Minute)
			w.tick(t)
		}
		done := 0
		for i := range 20 {
			if w.item(t, fmt.Sprintf("item-%02d", i)).Stage == work.Notify {
				done++
			}
		}
		if done < 16 {
			t.Fatalf("after the outage: %d items passed the llm stage, want every parked one", done)
		}
	})
}

// deliveredWork is a Work that reads the delivery Run is given (the probe
// lease the ramp's release carries).
type deliveredWork func(ctx context.Context, it store.Item, d gates.Delivery) (work.Output, error)

func (f deliveredWork) Run(ctx context.Context, it store.Item, d gates.Delivery) (work.Output, error) {
	return f(ctx, it, d)
}
