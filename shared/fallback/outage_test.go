package fallback_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/fallback"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/llm"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage/stagetest"
	"github.com/triagehq/triage/shared/state"
)

// TestLLMStageOutage wires the llm stage as production does —
// breaker.Guard{Inner: fallback.Chain} — over the fake LLM and switches the
// fake's outage on: five 503s open the provider's breaker, each half-open
// window lets one probe through, items refused meanwhile spend no attempt,
// the outage counts against no model, and the stage drains once the
// outage ends.
func TestLLMStageOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake, err := fakes.NewLLM(fakes.LLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakes.Start("", fake)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	clock := stagetest.NewClock(t0)
	models := health.NewMemory()
	chain := &fallback.Chain{Enricher: fakeEnricher{client: client}, Models: []string{"gpt-4o-mini", "gpt-4o"},
		Health: &health.Tracker{Store: models, Clock: clock}, Clock: clock}
	guard := breaker.Guard{Inner: chain, Service: breaker.Fixed(breaker.Host(srv.URL + "/v1")),
		Breakers: &breaker.Breakers{Store: breaker.NewMemory(), Clock: clock, Stage: pipeline.LLM}}
	items := state.NewMemory()
	r := stagetest.NewRunner(pipeline.LLM, guard, items, stagetest.NewQueues(), clock)
	var ids []string
	received := map[string]int{}
	for i := range 8 {
		id := fmt.Sprintf("llm-%d", i)
		ids = append(ids, id)
		items.Put(state.Item{ID: id, Kind: state.KindStory, CorrelationID: "c-" + id, Status: state.Fetched, State: state.Queued,
			Stage: pipeline.LLM, Document: &state.Document{Text: fakes.ArticleText(id, 600)}})
	}
	deliver := func(concurrency int) int {
		t.Helper()
		before := fake.Stats().Requests
		var ev events.SQSEvent
		for _, id := range ids {
			if it, _ := items.Get(ctx, id); it.Stage != pipeline.LLM {
				continue
			}
			received[id]++
			env := pipeline.Envelope{ItemID: id, Stage: pipeline.LLM, CorrelationID: "c-" + id}
			ev.Records = append(ev.Records, events.SQSMessage{MessageId: "m-" + id, ReceiptHandle: fmt.Sprint(id, received[id]),
				Body: env.Encode(), Attributes: map[string]string{"ApproximateReceiveCount": strconv.Itoa(received[id])}})
		}
		r.Concurrency = concurrency
		if _, err := r.Handle(ctx, ev); err != nil {
			t.Fatal(err)
		}
		return fake.Stats().Requests - before
	}

	fake.SetOutage(true)
	if n := deliver(1); n != breaker.DefaultThreshold {
		t.Fatalf("requests before the breaker opened = %d, want %d", n, breaker.DefaultThreshold)
	}
	for window := 1; window <= 2; window++ {
		clock.Advance(breaker.DefaultOpenFor + time.Second)
		if n := deliver(4); n != 1 {
			t.Fatalf("window %d: %d requests reached the LLM, want 1 probe", window, n)
		}
	}
	all, _ := models.List(ctx)
	for _, m := range all {
		if m.ConsecutiveFailures != 0 || m.Disabled {
			t.Fatalf("the outage counted against a model: %+v", m)
		}
	}
	spent := 0
	for _, id := range ids {
		it, _ := items.Get(ctx, id)
		spent += it.Attempts[pipeline.LLM]
	}
	if spent != breaker.DefaultThreshold-1 {
		t.Fatalf("attempts spent during the outage = %d, want %d: the calls before the one that opened the breaker; "+
			"that one and the 2 failed probes spend none", spent, breaker.DefaultThreshold-1)
	}

	fake.SetOutage(false)
	clock.Advance(breaker.DefaultOpenFor + time.Second)
	deliver(4)
	for round := 0; round < 3; round++ {
		clock.Advance(breaker.DefaultHalfOpenWait + time.Second)
		deliver(4)
	}
	for _, id := range ids {
		if it, _ := items.Get(ctx, id); it.Stage != pipeline.Notify || it.Enrichment == nil || it.Enrichment.Model != "gpt-4o-mini" {
			t.Fatalf("%s after the outage: stage %s state %s enrichment %+v", id, it.Stage, it.State, it.Enrichment)
		}
	}
}
