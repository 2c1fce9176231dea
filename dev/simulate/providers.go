package simulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// A scenario whose llm stage names a chain (StageConfig.Chain) runs the llm
// stage as production does: the real fallback.Chain over the providers of
// the chain, one shared circuit breaker per provider (the decision table's llm breaker column)
// and model health in a shared store (health.Tracker per warm instance),
// each provider answering in its own wire format. A window with a Provider
// is a provider-wide outage of that provider alone.
//
// Each provider's answers to the fakes' faults are what its real client
// makes of the fake LLM's answer in that dialect (the fake's handler is
// called in process, through the client's HTTP transport), judged as the
// stage judges them — so a Bedrock throttle is the AWS SDK's
// ThrottlingException, an Anthropic overload its 529 overloaded_error.

// chainEntries parses the llm stage's chain; nil when it has none.
func (c *StageConfig) chainEntries() ([]fallback.Entry, error) {
	if len(c.Chain) == 0 {
		return nil, nil
	}
	return fallback.ParseChain(strings.Join(c.Chain, ","), failure.OpenAI)
}

// providerAnswers builds provider p's answers to every llm fault the
// simulator models, by replaying the fake LLM through p's real client.
func providerAnswers(p failure.Provider, c *StageConfig) (*answers, error) {
	fake, err := fakes.NewLLM(fakes.LLMOptions{RetryAfter: c.RetryAfter.D()})
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: inProcess{fake}}
	cfg := llm.Config{Provider: p, BaseURL: "https://" + llmHost, HTTPClient: hc, Timeout: time.Minute}
	switch p {
	case failure.OpenAI:
		cfg.BaseURL += "/v1"
	case failure.Azure:
		cfg.BaseURL += "/openai"
	case failure.Gemini, failure.Vertex:
		cfg.BaseURL += "/v1beta"
	case failure.Bedrock:
		cfg.AWS = &aws.Config{Region: "us-east-1", HTTPClient: hc, Credentials: aws.CredentialsProviderFunc(
			func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "sim", SecretAccessKey: "sim", Source: "simulate"}, nil
			})}
	}
	client, err := llm.NewCompleter(cfg)
	if err != nil {
		return nil, err
	}
	a := &answers{stage: work.LLM, byFault: map[fakes.Fault]error{}}
	for _, name := range Faults(work.LLM) {
		f := fakes.Fault(name)
		switch f {
		case fakes.FaultHang, fakes.FaultReset:
			continue // transport failures: below
		}
		key := "sim-" + name
		if err := fake.SetScript(key, f); err != nil {
			return nil, err
		}
		resp, err := client.Complete(context.Background(), llm.Request{Model: llmModel,
			Messages: llm.BuildMessages(store.KindStory, "A short story about a bridge.", 0), JSONObject: true, ItemID: key})
		if err == nil {
			_, err = llm.Judge(store.KindStory, resp)
		}
		if err == nil {
			return nil, fmt.Errorf("simulate: %s's answer to %s is a usable enrichment", p, name)
		}
		a.byFault[f] = err
	}
	prefix := string(p) + " " + llmOp
	a.byFault[fakes.FaultReset] = fmt.Errorf("%s: read response: %w", prefix, io.ErrUnexpectedEOF)
	a.timeout = fmt.Errorf("%s: %w", prefix, &timeoutError{"net/http: timeout awaiting response headers"})
	a.gateway = &failure.HTTPError{Provider: p, Stage: work.LLM, Op: llmOp, Status: http.StatusGatewayTimeout,
		Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte("upstream request timeout")}
	a.deadline = fmt.Errorf("%s: %w", prefix, context.DeadlineExceeded)
	return a, nil
}

// inProcess is an http.RoundTripper that serves requests with a handler.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// simEnricher is the llm stage's Enricher over the simulated providers.
type simEnricher struct {
	e  *engine
	sr *stageRT
	// pocket is the instance's budget, charged before every call as the
	// Enricher does (a flat estimate: the fakes report no usage to settle).
	pocket *budget.Pocket
}

// Enrich makes item's next llm call to entry's provider.
func (s simEnricher) Enrich(ctx context.Context, it store.Item, entry fallback.Entry) (work.Enrichment, error) {
	i, ok := s.e.index[it.ID]
	if !ok {
		return work.Enrichment{}, failure.New(work.InternalBug, "simulate: unknown item %s", it.ID)
	}
	deadline := vt(math.MaxInt64)
	if d, ok := ctx.Deadline(); ok {
		deadline = fromTime(d)
	}
	if err := s.pocket.Spend(ctx, s.e.clock.Now(), simCallCost); err != nil {
		return work.Enrichment{}, failure.WithDetail(err, "model", entry.String())
	}
	if err := s.e.up.callProvider(s.sr.idx, i, deadline, entry.Provider); err != nil {
		return work.Enrichment{}, failure.WithDetail(err, "model", entry.String())
	}
	enr := simEnrichment
	enr.Model = entry.String()
	return enr, nil
}

// buildChain returns the llm stage's Work for one warm instance: the chain
// with its own breaker and model-health caches over the shared stores, and
// the instance's budget pocket.
func (e *engine) buildChain(sr *stageRT, entries []fallback.Entry, breakers breaker.Store, profile *policy.Profile,
	pocket *budget.Pocket) runner.Work {
	c := &fallback.Chain{Enricher: simEnricher{e: e, sr: sr, pocket: pocket}, Entries: entries,
		Health: &health.Tracker{Store: e.models, Clock: &e.clock, Log: e.logger, Metrics: e.counters},
		Clock:  &e.clock, Log: e.logger, Metrics: e.counters}
	if e.pol.Breakers {
		c.Breakers = &breaker.Breakers{Store: breakers, Clock: &e.clock, Stage: sr.st, Profile: profile, Log: e.logger, Metrics: e.counters,
			NewOwner: func() string { e.owners++; return fmt.Sprintf("probe-%d", e.owners) }}
	}
	return c
}

// ProviderResult is what one provider of the llm chain saw and served.
type ProviderResult struct {
	// Calls counts the calls the provider received; Failures those that
	// failed (any error, window or mix).
	Calls    int64 `json:"calls"`
	Failures int64 `json:"failures"`
	// Served counts the items whose enrichment its models made.
	Served int `json:"served"`
}

// providerStats counts per provider calls.
type providerStats struct {
	calls, failures map[failure.Provider]int64
	// attemptsWhileOpen counts llm attempts spent (a failure that counted)
	// while a provider's breaker in the chain was open.
	attemptsWhileOpen int64
}

// chainResult fills Result.Providers and LLMAttemptsWhileOpen.
func (e *engine) chainResult(r *Result) {
	if e.chain == nil || e.mem == nil {
		return
	}
	r.Providers = map[failure.Provider]ProviderResult{}
	for _, p := range fallback.Providers(e.chain) {
		r.Providers[p] = ProviderResult{Calls: e.up.prov.calls[p], Failures: e.up.prov.failures[p]}
	}
	for i := range e.items {
		it, err := e.mem.Get(e.ctx, e.sc.ItemID(i+1))
		if err != nil || it.Enrichment == nil {
			continue
		}
		if en, err := fallback.ParseEntry(it.Enrichment.Model, ""); err == nil {
			pr := r.Providers[en.Provider]
			pr.Served++
			r.Providers[en.Provider] = pr
		}
	}
	r.LLMAttemptsWhileOpen = e.up.prov.attemptsWhileOpen
}

// noteLLMAttempt counts an llm attempt spent while any of the chain's
// providers had its breaker open.
func (e *engine) noteLLMAttempt(now time.Time) {
	if e.chain == nil || e.breakerMem == nil {
		return
	}
	for _, p := range fallback.Providers(e.chain) {
		rec, err := e.breakerMem.Get(e.base, fallback.Service(p))
		if errors.Is(err, breaker.ErrNotFound) || err != nil {
			continue
		}
		if rec.State != breaker.Closed {
			e.up.prov.attemptsWhileOpen++
			return
		}
	}
}
