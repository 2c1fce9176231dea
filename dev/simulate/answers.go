package simulate

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// The simulated upstreams answer what the fakes (dev/fakes) answer: each
// answer is the fake's own, served in process (inProcess). The simulated
// stage clients turn each answer into the error the real client returns
// for it: the fetch stage's and the webhook's *failure.HTTPError with the
// fake's status, headers and body; the LLM stage's error is the real
// llm client's and llm.Judge's own (providerAnswers, OpenAI's dialect);
// transport failures are *url.Error chains with a timeout or a reset.
// failure.Classify then classifies them like any real failure. The
// conformance test (answers_test.go) serves each fault from the fakes
// through a real HTTP client and checks both classify the same.

// Hosts and the model of the simulated upstreams.
const (
	llmHost    = "api.llm.example"
	llmModel   = "gpt-4o-mini"
	llmOp      = "chat.completions"
	articleOp  = "GET article"
	webhookOp  = "POST webhook"
	fetchVerb  = "Get"
	notifyVerb = "Post"
)

// answers is one stage's prebuilt failures by fault. Errors are shared
// between calls: nothing downstream mutates them.
type answers struct {
	stage    work.Stage
	byFault  map[fakes.Fault]error
	timeout  error // the client's own timeout on a hang
	gateway  error // the fake's 504 when a hang outlasts HangMax
	deadline error // the invocation's work deadline cut the call
}

// timeoutError is net/http's "timeout awaiting response headers": a
// net.Error whose Timeout is true.
type timeoutError struct{ msg string }

// Error returns the message.
func (e *timeoutError) Error() string { return e.msg }

// Timeout reports true: the error is a timeout (net.Error).
func (e *timeoutError) Timeout() bool { return true }

// Temporary reports true, as net/http's does.
func (e *timeoutError) Temporary() bool { return true }

// newAnswers builds stage st's answers to every fault the simulator models.
func newAnswers(st work.Stage, c *StageConfig) (*answers, error) {
	// A hang answers at once: the fake's 504 once MaxHang is over.
	now := fakes.Shared{MaxHang: time.Nanosecond}
	switch st {
	case work.Fetch:
		fake := fakes.NewArticles(fakes.ArticleOptions{Shared: now, RetryAfter: c.RetryAfter.D()})
		a, err := httpAnswers(st, fake, fake, func(key string) *http.Request {
			return httptest.NewRequest(http.MethodGet, "/articles/"+key, nil)
		})
		if a != nil {
			a.byFault[fakes.FaultReset] = fmt.Errorf("GET article: read body: %w", io.ErrUnexpectedEOF)
		}
		return a, err
	case work.Notify:
		fake := fakes.NewWebhook(fakes.WebhookOptions{Shared: now, RetryAfter: c.RetryAfter.D(),
			DiscordRetryAfter: c.RetryAfterDiscord.D()})
		a, err := httpAnswers(st, fake, fake, func(key string) *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/hooks/sim", strings.NewReader(`{"item_id":"x"}`))
			r.Header.Set(fakes.IdempotencyHeader, key)
			return r
		})
		if a != nil {
			// The fake's reset comes after a 200 status line; the notifier
			// only reads the status, so for it a reset is a delivery.
			a.byFault[fakes.FaultReset] = nil
		}
		return a, err
	default:
		return providerAnswers(failure.OpenAI, c)
	}
}

// httpAnswers serves each of st's faults but the reset from fake in
// process and makes of every answer that is not a 2xx what the fetch
// stage's client and the notifier make of it: a *failure.HTTPError with
// the answer's status, headers and body. The hang's answer is the
// gateway; the client's timeout and the deadline are *url.Error chains.
func httpAnswers(st work.Stage, fake http.Handler, plan interface {
	SetScript(string, ...fakes.Fault) error
},
	request func(key string) *http.Request) (*answers, error) {
	p, op, verb, host := failure.HTTP, articleOp, fetchVerb, "https://news.example"
	if st == work.Notify {
		p, op, verb, host = failure.Webhook, webhookOp, notifyVerb, "https://hooks.example"
	}
	a := &answers{stage: st, byFault: map[fakes.Fault]error{},
		timeout: fmt.Errorf("%s: %w", op, &url.Error{Op: verb, URL: host,
			Err: &timeoutError{"net/http: timeout awaiting response headers"}}),
		deadline: fmt.Errorf("%s: %w", op, &url.Error{Op: verb, URL: host, Err: context.DeadlineExceeded}),
	}
	for _, name := range Faults(st) {
		f := fakes.Fault(name)
		if f == fakes.FaultReset {
			continue // a transport failure: the caller's
		}
		key := FakeKey(st, "sim-"+name)
		if err := plan.SetScript(key, f); err != nil {
			return nil, err
		}
		rec := httptest.NewRecorder()
		fake.ServeHTTP(rec, request(key))
		resp := rec.Result()
		var err error
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			err = failure.WithDetail(&failure.HTTPError{Provider: p, Stage: st, Op: op, Status: resp.StatusCode,
				Header: resp.Header, Body: rec.Body.Bytes()}, "upstream_status", strconv.Itoa(resp.StatusCode))
		}
		if f == fakes.FaultHang {
			a.gateway = err
		} else {
			a.byFault[f] = err
		}
	}
	return a, nil
}
