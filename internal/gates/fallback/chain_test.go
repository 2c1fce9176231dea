package fallback_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// models is a fake Enricher: each model answers with its error, or with an
// enrichment naming it; calls are recorded in order.
type models struct {
	mu    sync.Mutex
	errs  map[string]error
	calls []string
}

func (m *models) Enrich(_ context.Context, _ store.Item, e fallback.Entry) (work.Enrichment, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, e.Model)
	if err := m.errs[e.Model]; err != nil {
		return work.Enrichment{}, failure.WithDetail(err, "model", e.String())
	}
	return work.Enrichment{SummaryNeutral: "ok", Model: e.Model}, nil
}

// key is the health key of an OpenAI model of the tests.
func key(model string) string { return fallback.Entry{Provider: failure.OpenAI, Model: model}.String() }

// entries parses a chain of bare model names (OpenAI's).
func entries(t *testing.T, models ...string) []fallback.Entry {
	t.Helper()
	var out []fallback.Entry
	for _, m := range models {
		e, err := fallback.ParseEntry(m, failure.OpenAI)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

type bundle struct {
	models  *models
	store   *health.Memory
	clock   *clock.Stub
	tracker *health.Tracker
	metrics *telemetry.Tally
	chain   *fallback.Chain
}

func setup(t *testing.T, chain ...string) *bundle {
	t.Helper()
	b := &bundle{models: &models{errs: map[string]error{}}, store: health.NewMemory(), clock: clock.NewStub(t0), metrics: &telemetry.Tally{}}
	b.tracker = &health.Tracker{Store: b.store, Clock: b.clock}
	b.chain = &fallback.Chain{Enricher: b.models, Entries: entries(t, chain...), Health: b.tracker, Clock: b.clock, Metrics: b.metrics}
	return b
}

func (b *bundle) disable(t *testing.T, model string, at time.Time) {
	t.Helper()
	for range health.DefaultThreshold {
		if _, err := b.store.RecordFailure(context.Background(), health.FailureRequest{Model: key(model), Class: work.ResponseInvalid, At: at}); err != nil {
			t.Fatal(err)
		}
	}
	b.tracker.Forget(key(model))
}

var (
	invalidOutput = failure.New(work.ResponseInvalid, "model output is not JSON")
	contentPolicy = &failure.HTTPError{Provider: failure.OpenAI, Status: 400,
		Body: []byte(`{"error":{"code":"content_policy_violation","type":"invalid_request_error","message":"blocked"}}`)}
	tooLong = &failure.HTTPError{Provider: failure.OpenAI, Status: 400,
		Body: []byte(`{"error":{"code":"context_length_exceeded","type":"invalid_request_error","message":"too long"}}`)}
	overloaded = &failure.HTTPError{Provider: failure.OpenAI, Status: 503}
)

var item = store.Item{ID: "item-1", Kind: store.KindStory, Document: &work.Document{Text: "text"}}

func TestChainPicksFirstEnabledModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, "primary", "secondary", "tertiary")
	out, err := b.chain.Run(ctx, item, gates.Delivery{})
	if err != nil || out.Enrichment == nil || out.Enrichment.Model != "primary" {
		t.Fatalf("= %+v, %v", out, err)
	}
	b.disable(t, "primary", t0)
	out, err = b.chain.Run(ctx, item, gates.Delivery{})
	if err != nil || out.Enrichment.Model != "secondary" {
		t.Fatalf("with primary disabled: %+v, %v", out, err)
	}
	if got := b.models.calls; len(got) != 2 || got[1] != "secondary" {
		t.Fatalf("calls = %v: a disabled model was asked", got)
	}
	if b.metrics.Get(fallback.MetricModelFallbacks) != 1 {
		t.Fatalf("metrics = %v", b.metrics)
	}
}

func TestChainFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name       string
		primaryErr error
		escalation string
		escErr     error
		wantClass  work.Class // "" for success
		wantModel  string
		wantCalls  []string
		wantCount  int // primary's consecutive failures after the run
	}{
		{name: "invalid output fails the item", primaryErr: invalidOutput,
			wantClass: work.ResponseInvalid, wantCalls: []string{"primary"}, wantCount: 0}, // an isolated failure: see health.Tracker
		{name: "a transient failure does not count", primaryErr: overloaded,
			wantClass: work.UpstreamUnavailable, wantCalls: []string{"primary"}, wantCount: 0},
		{name: "content policy without escalation fails", primaryErr: contentPolicy,
			wantClass: work.ContentPolicy, wantCalls: []string{"primary"}},
		{name: "content policy escalates once", primaryErr: contentPolicy, escalation: "large",
			wantModel: "large", wantCalls: []string{"primary", "large"}},
		{name: "token limit escalates once", primaryErr: tooLong, escalation: "large",
			wantModel: "large", wantCalls: []string{"primary", "large"}},
		{name: "a failed escalation fails with its own failure", primaryErr: tooLong, escalation: "large", escErr: tooLong,
			wantClass: work.TokenLimit, wantCalls: []string{"primary", "large"}},
		{name: "invalid output does not escalate", primaryErr: invalidOutput, escalation: "large",
			wantClass: work.ResponseInvalid, wantCalls: []string{"primary"}, wantCount: 0}, // an isolated failure: see health.Tracker
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, "primary", "secondary")
			if tc.escalation != "" {
				b.chain.Escalation = fallback.Entry{Provider: failure.OpenAI, Model: tc.escalation}
			}
			b.models.errs["primary"] = tc.primaryErr
			b.models.errs["large"] = tc.escErr
			out, err := b.chain.Run(ctx, item, gates.Delivery{})
			switch {
			case tc.wantClass == "" && (err != nil || out.Enrichment.Model != tc.wantModel):
				t.Fatalf("= %+v, %v; want success by %s", out, err, tc.wantModel)
			case tc.wantClass != "" && failure.Classify(err).Class != tc.wantClass:
				t.Fatalf("error %v, want class %s", err, tc.wantClass)
			}
			if len(b.models.calls) != len(tc.wantCalls) {
				t.Fatalf("calls = %v, want %v", b.models.calls, tc.wantCalls)
			}
			for i := range tc.wantCalls {
				if b.models.calls[i] != tc.wantCalls[i] {
					t.Fatalf("calls = %v, want %v", b.models.calls, tc.wantCalls)
				}
			}
			m, _ := b.tracker.Status(ctx, key("primary"))
			if m.ConsecutiveFailures != tc.wantCount {
				t.Fatalf("primary's count = %d, want %d", m.ConsecutiveFailures, tc.wantCount)
			}
			if tc.escErr != nil && failure.Details(err)["escalated_from"] != key("primary") {
				t.Fatalf("details %v, want escalated_from", failure.Details(err))
			}
		})
	}
}

func TestChainEscalationModelDisabled(t *testing.T) {
	t.Parallel()
	b := setup(t, "primary")
	b.chain.Escalation = fallback.Entry{Provider: failure.OpenAI, Model: "large"}
	b.models.errs["primary"] = contentPolicy
	b.disable(t, "large", t0)
	_, err := b.chain.Run(context.Background(), item, gates.Delivery{})
	if failure.Classify(err).Class != work.ContentPolicy || len(b.models.calls) != 1 {
		t.Fatalf("= %v after calls %v; want the primary's failure, no escalation", err, b.models.calls)
	}
}

func TestChainNoModelWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name      string
		prepare   func(t *testing.T, b *bundle)
		wantUntil time.Time
	}{
		{"until the earliest expected recovery", func(t *testing.T, b *bundle) {
			b.disable(t, "primary", t0.Add(-10*time.Minute))
			b.disable(t, "secondary", t0.Add(-40*time.Minute))
		}, t0.Add(20 * time.Minute)},
		{"a few minutes when the recovery is overdue", func(t *testing.T, b *bundle) {
			b.disable(t, "primary", t0.Add(-2*time.Hour))
			b.disable(t, "secondary", t0.Add(-3*time.Hour))
		}, t0.Add(policy.NoModelWait)},
		{"a few minutes when an operator disabled them", func(t *testing.T, b *bundle) {
			for _, m := range []string{"primary", "secondary"} {
				if _, err := b.store.SetDisabled(ctx, key(m), true, "maintenance", t0); err != nil {
					t.Fatal(err)
				}
			}
		}, t0.Add(policy.NoModelWait)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, "primary", "secondary")
			tc.prepare(t, b)
			_, err := b.chain.Run(ctx, item, gates.Delivery{})
			if w, ok := runnertest.WaitOf(err, t0); !ok || !w.Until.Equal(tc.wantUntil) {
				t.Fatalf("= %v, want a WaitError until %v", err, tc.wantUntil)
			}
			if g, _ := gates.Of(err); g != b.chain.Gate() {
				t.Fatalf("the wait is behind %q, want the chain's gate %q", g, b.chain.Gate())
			}
			if len(b.models.calls) != 0 {
				t.Fatalf("calls = %v, want none", b.models.calls)
			}
		})
	}
}

// TestChainInRunner runs the chain as the llm stage's Work: with every model
// disabled the item waits without spending an attempt, and a CONTENT_POLICY
// failure that the escalation model cannot fix is dead-lettered once.
func TestChainInRunner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, "primary")
	b.chain.Escalation = fallback.Entry{Provider: failure.OpenAI, Model: "large"}
	db := store.NewMemory()
	q := runnertest.NewQueues()
	r := runnertest.NewRunner(work.LLM, b.chain, db, q, b.clock)
	put := func(id string) events.SQSEvent {
		db.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "c-" + id, Status: work.Fetched, State: work.Queued,
			Stage: work.LLM, Document: &work.Document{Text: "text"}})
		env := work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "c-" + id}
		return events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m-" + id, ReceiptHandle: "r-" + id, Body: env.Encode(),
			Attributes: map[string]string{"ApproximateReceiveCount": "1"}}}}
	}

	b.disable(t, "primary", t0.Add(-30*time.Minute))
	if _, err := r.Handle(ctx, put("waits")); err != nil {
		t.Fatal(err)
	}
	it, _ := db.Get(ctx, "waits")
	if it.Attempts[work.LLM] != 0 || it.State != work.Retryable || !it.NotBefore.Equal(t0.Add(30*time.Minute)) {
		t.Fatalf("item with no enabled model: attempts %d, state %s, not before %v", it.Attempts[work.LLM], it.State, it.NotBefore)
	}

	if _, err := b.store.SetDisabled(ctx, key("primary"), false, "", t0); err != nil {
		t.Fatal(err)
	}
	b.tracker.Forget(key("primary"))
	b.models.errs["primary"] = contentPolicy
	b.models.errs["large"] = contentPolicy
	if _, err := r.Handle(ctx, put("blocked")); err != nil {
		t.Fatal(err)
	}
	dead, err := q.DeadLetters(runnertest.DLQURL)
	if err != nil || len(dead) != 1 || dead[0].ErrorClass != work.ContentPolicy || dead[0].ItemID != "blocked" {
		t.Fatalf("dead letters = %+v, %v; want the blocked item as CONTENT_POLICY", dead, err)
	}
	if got := b.models.calls; len(got) != 2 || got[0] != "primary" || got[1] != "large" {
		t.Fatalf("calls = %v, want primary then large, once each", got)
	}
}

// fakeEnricher is the llm stage's Enricher in miniature, over the real
// clients, for the fake-LLM tests.
type fakeEnricher struct {
	clients map[failure.Provider]llm.Completer
}

func (e fakeEnricher) Enrich(ctx context.Context, it store.Item, en fallback.Entry) (work.Enrichment, error) {
	resp, err := e.clients[en.Provider].Complete(ctx, llm.Request{Model: en.Model, Messages: llm.BuildMessages(it.Kind, it.Document.Text, 0),
		JSONObject: true, ItemID: it.ID})
	if err != nil {
		return work.Enrichment{}, err
	}
	enr, err := llm.Judge(it.Kind, resp)
	enr.Model = en.String()
	return enr, err
}

// TestChainWithFakeLLM walks the chain against the fault-injecting fake LLM:
// a model that answers invalid JSON is disabled by its fifth failure (the
// five items it failed are retried by the queue), and later items are
// served by the next model.
func TestChainWithFakeLLM(t *testing.T) {
	t.Parallel()
	fake, err := fakes.NewLLM(fakes.LLMOptions{ModelFaults: map[string]fakes.Fault{"bad-model": fakes.FaultInvalidJSON}})
	if err != nil {
		t.Fatal(err)
	}
	srv := fakes.StartTest(t, fake)
	client, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t, "bad-model", "good-model")
	b.chain.Enricher = fakeEnricher{clients: map[failure.Provider]llm.Completer{failure.OpenAI: client}}
	ctx := context.Background()
	var served []string
	for i := range 8 {
		it := store.Item{ID: "i" + string(rune('0'+i)), Kind: store.KindStory, Document: &work.Document{Text: fakes.ArticleText("a", 400)}}
		out, err := b.chain.Run(ctx, it, gates.Delivery{})
		switch {
		case i < health.DefaultThreshold:
			if failure.Classify(err).Class != work.ResponseInvalid {
				t.Fatalf("item %d: %v, want RESPONSE_INVALID from bad-model", i, err)
			}
		case err != nil:
			t.Fatalf("item %d: %v, want good-model's answer", i, err)
		default:
			served = append(served, out.Enrichment.Model)
		}
	}
	m, _ := b.store.Get(ctx, key("bad-model"))
	if !m.Disabled || m.ConsecutiveFailures != 5 || len(served) != 3 || served[0] != key("good-model") {
		t.Fatalf("bad-model %+v; served by %v", m, served)
	}
}

func TestParseChain(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"gpt-4o-mini":       "[openai:gpt-4o-mini]",
		" a , b,,a ,c ":     "[openai:a openai:b openai:c]",
		"openai:a, azure:a": "[openai:a azure:a]",
		"bedrock:anthropic.claude-3-5-haiku-20241022-v1:0, openai:gpt-4o-mini": "[bedrock:anthropic.claude-3-5-haiku-20241022-v1:0 openai:gpt-4o-mini]",
		"Anthropic:claude-3-5-haiku-latest":                                    "[anthropic:claude-3-5-haiku-latest]",
		"ft:gpt-4o-mini-2024-07-18:acme::abc123":                               "[openai:ft:gpt-4o-mini-2024-07-18:acme::abc123]",
		"openai:x,openai:x":                                                    "[openai:x]",
		"gemini:gemini-2.0-flash, Vertex:gemini-2.5-pro":                       "[gemini:gemini-2.0-flash vertex:gemini-2.5-pro]",
		"mistral:7b": "[openai:mistral:7b]", // a vendor's name is a provider only as the default: Ollama tags have colons
	} {
		got, err := fallback.ParseChain(in, failure.OpenAI)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("ParseChain(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	// Any OpenAI-compatible endpoint is the default provider, by its own
	// prefix or none.
	for def, want := range map[failure.Provider]string{"groq": "[groq:llama-3.3-70b groq:qwen:7b openai:gpt-4o]", "acme-llm": "[acme-llm:llama-3.3-70b acme-llm:qwen:7b openai:gpt-4o]"} {
		got, err := fallback.ParseChain(string(def)+":llama-3.3-70b, qwen:7b, openai:gpt-4o", def)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("default %s: %v, %v; want %s", def, got, err, want)
		}
	}
	for _, bad := range []string{" , ", "openai:", "bedrock: "} {
		if _, err := fallback.ParseChain(bad, failure.OpenAI); err == nil {
			t.Errorf("ParseChain(%q) parsed", bad)
		}
	}
	for _, def := range []failure.Provider{failure.Webhook, failure.AWS, failure.HTTP, "slack"} {
		if _, err := fallback.ParseChain("x", def); err == nil {
			t.Errorf("a chain defaulting to %s parsed", def)
		}
	}
	long := strings.TrimSuffix(strings.Repeat("m,", fallback.MaxEntries+1), ",")
	if _, err := fallback.ParseChain(long, failure.OpenAI); err != nil {
		t.Errorf("a chain of repeated entries must be deduplicated, not rejected: %v", err)
	}
	var many []string
	for i := range fallback.MaxEntries + 1 {
		many = append(many, fmt.Sprintf("m%d", i))
	}
	if _, err := fallback.ParseChain(strings.Join(many, ","), failure.OpenAI); err == nil {
		t.Errorf("a chain of %d entries parsed", len(many))
	}
}

// TestChainClassifiesOnce: the failure the chain returns carries the
// classification it was given where the model's answer was first seen, so
// the runner reads it rather than classifying again; health counted it by
// the same classification.
func TestChainClassifiesOnce(t *testing.T) {
	t.Parallel()
	b := setup(t, "primary")
	b.models.errs["primary"] = invalidOutput
	_, err := b.chain.Run(context.Background(), item, gates.Delivery{})
	var c *failure.Classified
	if !errors.As(err, &c) || c.Classification.Class != work.ResponseInvalid {
		t.Fatalf("Run = %v (%T), want a failure carrying RESPONSE_INVALID", err, err)
	}
	if failure.Mark(err) != err {
		t.Error("the chain's failure was marked again")
	}
}

// TestRefusedForGoodDoesNotWaitForADisabledSibling: when a provider refuses
// an item for good (AUTH_DENIED, which puts the whole provider out) and the
// chain's only other entries are that provider's disabled models, the item
// is judged by its class — dead-lettered — instead of waiting behind the
// chain's gate for a model that, re-enabled, would meet the same refusal:
// the gate would open as soon as any entry is usable and bring the item
// straight back to it, round after round (the soak's poisoned items parked
// behind the model-chain gate). A disabled model of another provider, which
// might serve it, is still waited for.
func TestRefusedForGoodDoesNotWaitForADisabledSibling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	denied := &failure.HTTPError{Provider: failure.OpenAI, Status: 401,
		Body: []byte(`{"error":{"code":"invalid_api_key","type":"invalid_request_error","message":"Incorrect API key provided"}}`)}

	// The disabled model comes first: the walk skips it before the
	// provider refuses the item at the next entry.
	b := setup(t, "primary", "secondary")
	b.disable(t, "primary", t0)
	b.models.errs["secondary"] = denied
	_, err := b.chain.Run(ctx, item, gates.Delivery{})
	if errors.Is(err, failure.ErrWaiting) || failure.Classify(err).Class != work.AuthDenied {
		t.Fatalf("Run = %v, want the AUTH_DENIED itself", err)
	}

	other := setup(t)
	other.chain.Entries = append([]fallback.Entry{{Provider: failure.Anthropic, Model: "claude"}}, entries(t, "primary")...)
	other.models.errs["primary"] = denied
	for range health.DefaultThreshold {
		if _, err := other.store.RecordFailure(ctx, health.FailureRequest{Model: "anthropic:claude", Class: work.ResponseInvalid, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := other.chain.Run(ctx, item, gates.Delivery{}); !errors.Is(err, failure.ErrWaiting) {
		t.Fatalf("Run = %v, want a wait for the other provider's disabled model", err)
	}
}
