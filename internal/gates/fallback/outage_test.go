package fallback_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// outageBundle is the llm stage as production wires it — the chain over
// the real dialect clients, one breaker per provider, model health — on the
// stage runner, against the fault-injecting fake LLM.
type outageBundle struct {
	fake     *fakes.LLM
	clock    *clock.Stub
	models   *health.Memory
	items    *store.Memory
	breakers *breaker.Breakers
	runner   *runner.Runner
	ids      []string
	received map[string]int
}

func setupOutage(t *testing.T, chain string, n int) *outageBundle {
	t.Helper()
	fake, err := fakes.NewLLM(fakes.LLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := fakes.StartTest(t, fake)
	clients := map[failure.Provider]llm.Completer{}
	for _, cfg := range []llm.Config{
		{Provider: failure.OpenAI, BaseURL: srv.URL + "/v1"},
		{Provider: failure.Anthropic, BaseURL: srv.URL},
		{Provider: failure.Bedrock, BaseURL: srv.URL,
			AWS: &aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test-access-key", "test-secret-key", "")}},
	} {
		c, err := llm.NewCompleter(cfg)
		if err != nil {
			t.Fatal(err)
		}
		clients[cfg.Provider] = c
	}
	entries, err := fallback.ParseChain(chain, failure.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	b := &outageBundle{fake: fake, clock: clock.NewStub(t0), models: health.NewMemory(), items: store.NewMemory(), received: map[string]int{}}
	b.breakers = &breaker.Breakers{Store: breaker.NewMemory(), Clock: b.clock, Stage: work.LLM}
	c := &fallback.Chain{Enricher: fakeEnricher{clients: clients}, Entries: entries, Breakers: b.breakers,
		Health: &health.Tracker{Store: b.models, Clock: b.clock}, Clock: b.clock}
	b.runner = runnertest.NewRunner(work.LLM, c, b.items, runnertest.NewQueues(), b.clock)
	for i := range n {
		b.add(fmt.Sprintf("llm-%d", i))
	}
	return b
}

func (b *outageBundle) add(id string) {
	b.ids = append(b.ids, id)
	b.items.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "c-" + id, Status: work.Fetched, State: work.Queued,
		Stage: work.LLM, Document: &work.Document{Text: fakes.ArticleText(id, 600)}})
}

// deliver hands every item still at the llm stage to the runner once, as
// SQS redelivers them, and returns the requests that reached the fake.
func (b *outageBundle) deliver(t *testing.T, concurrency int) int {
	t.Helper()
	ctx := context.Background()
	before := b.fake.Stats().Requests
	var ev events.SQSEvent
	for _, id := range b.ids {
		if it, _ := b.items.Get(ctx, id); it.Stage != work.LLM {
			continue
		}
		b.received[id]++
		env := work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "c-" + id}
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: "m-" + id, ReceiptHandle: fmt.Sprint(id, b.received[id]),
			Body: env.Encode(), Attributes: map[string]string{"ApproximateReceiveCount": strconv.Itoa(b.received[id])}})
	}
	b.runner.Concurrency = concurrency
	if _, err := b.runner.Handle(ctx, ev); err != nil {
		t.Fatal(err)
	}
	return b.fake.Stats().Requests - before
}

// attempts returns the llm attempts each item spent.
func (b *outageBundle) attempts(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, id := range b.ids {
		it, err := b.items.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out[id] = it.Attempts[work.LLM]
	}
	return out
}

// TestLLMStageSingleProviderOutage takes the only provider down: five 503s
// open its breaker — the fifth, which opens it, makes its item wait instead
// of spending an attempt — each half-open window lets one probe through, a
// failed probe spends no attempt either, the outage counts against no model,
// and the stage drains once the outage ends.
func TestLLMStageSingleProviderOutage(t *testing.T) {
	t.Parallel()
	b := setupOutage(t, "openai:gpt-4o-mini,openai:gpt-4o", 8)
	b.fake.SetOutage(true)
	if n := b.deliver(t, 1); n != breaker.DefaultThreshold {
		t.Fatalf("requests before the breaker opened = %d, want %d", n, breaker.DefaultThreshold)
	}
	for window := 1; window <= 2; window++ {
		// Failed probes back the window off (from the second on).
		b.clock.Advance(reopenedFor(window-1) + time.Second)
		if n := b.deliver(t, 4); n != 1 {
			t.Fatalf("window %d: %d requests reached the LLM, want 1 probe", window, n)
		}
	}
	all, _ := b.models.List(context.Background())
	for _, m := range all {
		if m.ConsecutiveFailures != 0 || m.Disabled {
			t.Fatalf("the outage counted against a model: %+v", m)
		}
	}
	spent := 0
	for _, n := range b.attempts(t) {
		spent += n
	}
	if spent != breaker.DefaultThreshold-1 {
		t.Fatalf("attempts spent during the outage = %d, want %d: only the failures before the breaker opened count",
			spent, breaker.DefaultThreshold-1)
	}

	b.fake.SetOutage(false)
	for round := 0; round < 4; round++ {
		b.clock.Advance(reopenedFor(2) + time.Second)
		b.deliver(t, 4)
	}
	for _, id := range b.ids {
		if it, _ := b.items.Get(context.Background(), id); it.Stage != work.Notify || it.Enrichment == nil ||
			it.Enrichment.Model != "openai:gpt-4o-mini" {
			t.Fatalf("%s after the outage: stage %s state %s enrichment %+v", id, it.Stage, it.State, it.Enrichment)
		}
	}
}

// TestProviderWideOutageMovesToTheNextProvider takes the first provider of
// a two-provider chain down (Bedrock, through the real AWS SDK client): the
// call that opens Bedrock's breaker and every item after it are served by
// the second provider in the same invocation, with no attempt spent and no
// wait; Bedrock's models are not blamed; once Bedrock is back, the next
// probe closes its breaker and the chain returns to it.
func TestProviderWideOutageMovesToTheNextProvider(t *testing.T) {
	t.Parallel()
	b := setupOutage(t, "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0, bedrock:amazon.nova-lite-v1:0, openai:gpt-4o-mini", 12)
	if err := b.fake.SetDialectOutage(fakes.DialectBedrock, true, ""); err != nil {
		t.Fatal(err)
	}
	b.deliver(t, 1)
	ctx := context.Background()
	attempts := b.attempts(t)
	failed := 0
	for _, id := range b.ids {
		it, _ := b.items.Get(ctx, id)
		switch {
		case attempts[id] == 1 && it.Stage == work.LLM:
			failed++ // a 503 before the breaker opened: a transient failure, retried
		case attempts[id] == 0 && it.Stage == work.Notify && it.Enrichment.Model == "openai:gpt-4o-mini":
		default:
			t.Fatalf("%s: attempts %d, stage %s, enrichment %+v", id, attempts[id], it.Stage, it.Enrichment)
		}
	}
	if failed != breaker.DefaultThreshold-1 {
		t.Fatalf("%d items failed on Bedrock, want %d (the failures before its breaker opened)", failed, breaker.DefaultThreshold-1)
	}
	if st := b.fake.Stats(); st.Dialects[fakes.DialectBedrock] != breaker.DefaultThreshold {
		t.Fatalf("Bedrock was called %d times during its outage, want %d", st.Dialects[fakes.DialectBedrock], breaker.DefaultThreshold)
	}
	rec, err := b.breakers.Get(ctx, fallback.Service(failure.Bedrock))
	if err != nil || rec.State != breaker.Open {
		t.Fatalf("bedrock's breaker = %+v, %v; want open", rec, err)
	}
	if rec, _ := b.breakers.Get(ctx, fallback.Service(failure.OpenAI)); rec.State != breaker.Closed {
		t.Fatalf("openai's breaker = %+v", rec)
	}

	// The failed items' retries skip Bedrock: every item completes through
	// the second provider, none spends another attempt.
	b.clock.Advance(time.Minute)
	before := b.fake.Stats().Dialects[fakes.DialectBedrock]
	b.deliver(t, 4)
	for id, n := range b.attempts(t) {
		it, _ := b.items.Get(ctx, id)
		if it.Stage != work.Notify || n > 1 {
			t.Fatalf("%s: stage %s, attempts %d", id, it.Stage, n)
		}
	}
	if n := b.fake.Stats().Dialects[fakes.DialectBedrock]; n != before {
		t.Fatalf("items called Bedrock behind its open breaker (%d calls)", n-before)
	}
	all, _ := b.models.List(ctx)
	for _, m := range all {
		if m.ConsecutiveFailures != 0 || m.Disabled {
			t.Fatalf("the provider's outage counted against a model: %+v", m)
		}
	}

	// A failed probe moves its item on to the next provider too.
	b.clock.Advance(breaker.DefaultOpenFor + time.Second)
	b.add("during")
	b.deliver(t, 1)
	if it, _ := b.items.Get(ctx, "during"); it.Stage != work.Notify || it.Attempts[work.LLM] != 0 ||
		it.Enrichment.Model != "openai:gpt-4o-mini" {
		t.Fatalf("the item that carried the failed probe: %+v", it)
	}

	// Bedrock is back: the next probe — one window after the failed one —
	// closes its breaker, and the chain returns to its first entry.
	if err := b.fake.SetDialectOutage(fakes.DialectBedrock, false, ""); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(reopenedFor(1) + time.Second)
	for _, id := range []string{"after-1", "after-2", "after-3"} {
		b.add(id)
	}
	b.deliver(t, 1)
	for _, id := range []string{"after-1", "after-2", "after-3"} {
		if it, _ := b.items.Get(ctx, id); it.Stage != work.Notify || it.Enrichment.Model != "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0" {
			t.Fatalf("%s after Bedrock recovered: %+v", id, it.Enrichment)
		}
	}
	if rec, _ := b.breakers.Get(ctx, fallback.Service(failure.Bedrock)); rec.State != breaker.Closed {
		t.Fatalf("bedrock's breaker after recovery = %+v", rec)
	}
}

// TestProviderWideFailuresSkipTheProvider checks AUTH_DENIED and the
// provider's quota: the item moves to the next provider at once, spending
// no attempt; with no other provider, AUTH_DENIED decides, and the quota
// (which opens the provider's breaker) makes the item wait.
func TestProviderWideFailuresSkipTheProvider(t *testing.T) {
	t.Parallel()
	for _, fault := range []fakes.Fault{fakes.FaultAuth, fakes.FaultQuota} {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			b := setupOutage(t, "anthropic:claude-3-5-haiku-latest, anthropic:claude-3-opus-latest, openai:gpt-4o-mini", 1)
			// Both Anthropic models would fail; the second is never asked.
			if err := b.fake.SetModelFaults(map[string]fakes.Fault{"claude-3-5-haiku-latest": fault, "claude-3-opus-latest": fault}, false); err != nil {
				t.Fatal(err)
			}
			b.deliver(t, 1)
			it, _ := b.items.Get(context.Background(), b.ids[0])
			if it.Stage != work.Notify || it.Attempts[work.LLM] != 0 || it.Enrichment.Model != "openai:gpt-4o-mini" {
				t.Fatalf("item: stage %s attempts %d enrichment %+v", it.Stage, it.Attempts[work.LLM], it.Enrichment)
			}
			if st := b.fake.Stats(); st.Models["claude-3-opus-latest"] != 0 || st.Models["claude-3-5-haiku-latest"] != 1 {
				t.Fatalf("models asked: %v", st.Models)
			}

			only := setupOutage(t, "anthropic:claude-3-5-haiku-latest", 1)
			if err := only.fake.SetModelFault("claude-3-5-haiku-latest", fault); err != nil {
				t.Fatal(err)
			}
			only.deliver(t, 1)
			it, _ = only.items.Get(context.Background(), only.ids[0])
			if fault == fakes.FaultQuota {
				// The provider's exhausted quota opens its breaker at once:
				// the item waits behind the quota's gate, spending nothing.
				rec, _ := only.breakers.Get(context.Background(), fallback.Service(failure.Anthropic))
				if it.State != work.Retryable || it.Attempts[work.LLM] != 0 || rec.State != breaker.Open ||
					rec.LastErrorType != work.BudgetExceeded {
					t.Fatalf("single-provider chain, quota: item %s with %d attempts, breaker %+v; want a wait behind the open breaker",
						it.State, it.Attempts[work.LLM], rec)
				}
				return
			}
			want := failure.Classify(&failure.HTTPError{Provider: failure.Anthropic, Status: 401}).Class
			if it.LastError == nil || it.LastError.ErrorClass != want {
				t.Fatalf("single-provider chain: last error %+v, want %s", it.LastError, want)
			}
		})
	}
}

// reopenedFor is how long a provider's breaker stays open after the
// reopens-th failed probe in a row (0: after it tripped), under the
// standard profile.
func reopenedFor(reopens int) time.Duration {
	return policy.Standard().Probing.Interval(breaker.DefaultOpenFor, reopens)
}
