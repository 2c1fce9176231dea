package simulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// realOutcome is what a real client makes of one call to a fake: the error
// it returns (nil for a success).
type realOutcome func(t *testing.T, key string) error

// TestAnswersClassifyLikeTheFakes serves every modelled fault from the
// fakes through a real HTTP client — the LLM stage's real llm.Client and
// llm.Judge; for fetch and notify, net/http with the stage
// client's error construction — and checks that the simulated answer
// classifies the same: class, retryability and the upstream's requested
// delay.
func TestAnswersClassifyLikeTheFakes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	const clientTimeout = 300 * time.Millisecond
	for _, st := range work.Stages() {
		c := DefaultStage(st)
		c.ClientTimeout = Duration(clientTimeout)
		a, err := newAnswers(st, &c)
		if err != nil {
			t.Fatal(err)
		}
		var real realOutcome
		var plan interface {
			SetScript(string, ...fakes.Fault) error
		}
		switch st {
		case work.Fetch:
			f := fakes.NewArticles(fakes.ArticleOptions{RetryAfter: c.RetryAfter.D()})
			srv := httptest.NewServer(f)
			t.Cleanup(srv.Close)
			plan, real = f, fetchOutcome(srv.URL, clientTimeout)
		case work.LLM:
			f, err := fakes.NewLLM(fakes.LLMOptions{RetryAfter: c.RetryAfter.D()})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(f)
			t.Cleanup(srv.Close)
			plan, real = f, llmOutcome(t, srv.URL, clientTimeout)
		case work.Notify:
			f := fakes.NewWebhook(fakes.WebhookOptions{RetryAfter: c.RetryAfter.D(), DiscordRetryAfter: c.RetryAfterDiscord.D()})
			srv := httptest.NewServer(f)
			t.Cleanup(srv.Close)
			plan, real = f, notifyOutcome(srv.URL, clientTimeout)
		}
		for _, name := range Faults(st) {
			t.Run(string(st)+"/"+name, func(t *testing.T) {
				key := fmt.Sprintf("conf-%s-%s", st, name)
				if err := plan.SetScript(FakeKey(st, key), fakes.Fault(name)); err != nil {
					t.Fatal(err)
				}
				realErr := real(t, FakeKey(st, key))
				var simErr error
				if fakes.Fault(name) == fakes.FaultHang {
					simErr = a.timeout
				} else {
					simErr = a.byFault[fakes.Fault(name)]
				}
				if (realErr == nil) != (simErr == nil) {
					t.Fatalf("real client error %v, simulated %v", realErr, simErr)
				}
				if realErr == nil {
					return
				}
				got, want := failure.Classify(simErr), failure.Classify(realErr)
				if got.Class != want.Class || got.Retryable != want.Retryable {
					t.Fatalf("simulated %s (%s), real client %s (%s)\n  simulated: %v\n  real:      %v", got.Class, got.Reason, want.Class, want.Reason, simErr, realErr)
				}
				if g, w := got.Requested.Resolve(now), want.Requested.Resolve(now); g != w {
					t.Fatalf("requested delay: simulated %s, real %s", g, w)
				}
			})
		}
	}
}

func llmOutcome(t *testing.T, base string, timeout time.Duration) realOutcome {
	client, err := llm.New(llm.Config{BaseURL: base + "/v1", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T, key string) error {
		resp, err := client.Complete(context.Background(), llm.Request{
			Model: llmModel, Messages: llm.BuildMessages(store.KindStory, "A short story about a bridge.", 0),
			JSONObject: true, ItemID: key,
		})
		if err != nil {
			return err
		}
		_, err = llm.Judge(store.KindStory, resp)
		return err
	}
}

// fetchOutcome does what the fetch stage's client does with an answer: a
// non-2xx is an HTTPError, a transport or body failure an error chain.
func fetchOutcome(base string, timeout time.Duration) realOutcome {
	client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: timeout}}
	return func(t *testing.T, key string) error {
		resp, err := client.Get(base + "/articles/" + key)
		if err != nil {
			return fmt.Errorf("GET article: %w", err)
		}
		defer resp.Body.Close()
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, failure.MaxBodyBytes))
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return &failure.HTTPError{Provider: failure.HTTP, Op: articleOp, Status: resp.StatusCode, Header: resp.Header, Body: body}
		}
		if rerr != nil {
			return fmt.Errorf("GET article: read body: %w", rerr)
		}
		return nil
	}
}

// notifyOutcome does what the notifier does: only the status matters.
func notifyOutcome(base string, timeout time.Duration) realOutcome {
	client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: timeout}}
	return func(t *testing.T, key string) error {
		req, _ := http.NewRequest(http.MethodPost, base+"/hooks/sim", strings.NewReader(`{"item_id":"x"}`))
		req.Header.Set(fakes.IdempotencyHeader, key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("POST webhook: %w", err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, failure.MaxBodyBytes))
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return &failure.HTTPError{Provider: failure.Webhook, Op: webhookOp, Status: resp.StatusCode, Header: resp.Header, Body: body}
		}
		return nil
	}
}

// TestAnswersDeadlineAndGateway checks the two answers no fault names: a
// call the invocation's deadline cuts off and a hang that outlasts the
// fakes' MaxHang.
func TestAnswersDeadlineAndGateway(t *testing.T) {
	t.Parallel()
	for _, st := range work.Stages() {
		c := DefaultStage(st)
		a, err := newAnswers(st, &c)
		if err != nil {
			t.Fatal(err)
		}
		if got := failure.Classify(a.deadline).Class; got != work.NetworkTimeout {
			t.Errorf("%s deadline: %s, want NETWORK_TIMEOUT", st, got)
		}
		if !errors.Is(a.deadline, context.DeadlineExceeded) {
			t.Errorf("%s deadline does not wrap context.DeadlineExceeded", st)
		}
		if got := failure.Classify(a.gateway).Class; got != work.UpstreamUnavailable {
			t.Errorf("%s 504: %s, want UPSTREAM_UNAVAILABLE", st, got)
		}
	}
}
