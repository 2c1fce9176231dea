package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// The simulated upstreams answer what the fakes (dev/fakes) answer, and
// the simulated stage clients turn each answer into the error the real
// client returns for it: the fetch stage's and the webhook's
// *failure.HTTPError with the fake's status, headers and body, the LLM
// client's *failure.HTTPError with the provider's JSON error body and
// Retry-After, llm.ParseEnrichment's *failure.Error for unusable output,
// and *url.Error chains with a timeout or a reset for transport failures.
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
	llmPrefix  = "openai chat.completions"
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

func newAnswers(st work.Stage, c *StageConfig) *answers {
	a := &answers{stage: st, byFault: map[fakes.Fault]error{}}
	text := func(status int, body string, h http.Header) error {
		if h == nil {
			h = http.Header{}
		}
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		p, op := failure.HTTP, articleOp
		if st == work.Notify {
			p, op = failure.Webhook, webhookOp
		}
		return failure.WithDetail(&failure.HTTPError{Provider: p, Stage: st, Op: op, Status: status, Header: h, Body: []byte(body)},
			"upstream_status", strconv.Itoa(status))
	}
	retryAfter := http.Header{"Retry-After": {seconds(c.RetryAfter.D())}}
	switch st {
	case work.Fetch:
		host := "https://news.example"
		a.byFault[fakes.FaultNotFound] = text(http.StatusNotFound, "article not found\n", nil)
		a.byFault[fakes.FaultGone] = text(http.StatusGone, "article removed\n", nil)
		a.byFault[fakes.FaultServerError] = text(http.StatusInternalServerError, "internal server error\n", nil)
		a.byFault[fakes.FaultUnavailable] = text(http.StatusServiceUnavailable, "service unavailable\n", retryAfter.Clone())
		a.byFault[fakes.FaultRateLimit] = text(http.StatusTooManyRequests, "too many requests\n", retryAfter.Clone())
		a.byFault[fakes.FaultReset] = fmt.Errorf("GET article: read body: %w", io.ErrUnexpectedEOF)
		a.timeout = fmt.Errorf("GET article: %w", &url.Error{Op: fetchVerb, URL: host,
			Err: &timeoutError{"net/http: timeout awaiting response headers"}})
		a.gateway = text(http.StatusGatewayTimeout, "upstream request timeout", nil)
		a.deadline = fmt.Errorf("GET article: %w", &url.Error{Op: fetchVerb, URL: host, Err: context.DeadlineExceeded})
	case work.LLM:
		a.llm(c)
	case work.Notify:
		host := "https://hooks.example"
		a.byFault[fakes.FaultServerError] = text(http.StatusInternalServerError, "internal_error", nil)
		a.byFault[fakes.FaultUnavailable] = text(http.StatusServiceUnavailable, "service_unavailable", nil)
		a.byFault[fakes.FaultRateLimitSlack] = text(http.StatusTooManyRequests, "rate_limited", retryAfter.Clone())
		after := strconv.FormatFloat(c.RetryAfterDiscord.D().Seconds(), 'f', -1, 64)
		a.byFault[fakes.FaultRateLimitDiscord] = failure.WithDetail(&failure.HTTPError{
			Provider: failure.Webhook, Stage: work.Notify, Op: webhookOp, Status: http.StatusTooManyRequests,
			Header: http.Header{"Retry-After": {seconds(c.RetryAfterDiscord.D())}, "X-Ratelimit-Limit": {"5"},
				"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset-After": {after}, "X-Ratelimit-Scope": {"user"},
				"Content-Type": {"application/json"}},
			Body: []byte(`{"message": "You are being rate limited.", "retry_after": ` + after + `, "global": false}`),
		}, "upstream_status", "429")
		a.byFault[fakes.FaultChannelNotFound] = text(http.StatusNotFound, "channel_not_found", nil)
		a.byFault[fakes.FaultArchived] = text(http.StatusGone, "channel_is_archived", nil)
		a.byFault[fakes.FaultInvalidPayload] = text(http.StatusBadRequest, "invalid_payload", nil)
		a.byFault[fakes.FaultUnauthorized] = failure.WithDetail(&failure.HTTPError{
			Provider: failure.Webhook, Stage: work.Notify, Op: webhookOp, Status: http.StatusUnauthorized,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"message": "401: Unauthorized", "code": 0}`),
		}, "upstream_status", "401")
		// The fake's reset comes after a 200 status line; the notifier only
		// reads the status, so for it a reset is a delivery.
		a.byFault[fakes.FaultReset] = nil
		a.timeout = fmt.Errorf("POST webhook: %w", &url.Error{Op: notifyVerb, URL: host,
			Err: &timeoutError{"net/http: timeout awaiting response headers"}})
		a.gateway = text(http.StatusGatewayTimeout, "upstream request timeout", nil)
		a.deadline = fmt.Errorf("POST webhook: %w", &url.Error{Op: notifyVerb, URL: host, Err: context.DeadlineExceeded})
	}
	return a
}

func (a *answers) llm(c *StageConfig) {
	endpoint := "https://" + llmHost
	headers := func(limited bool) http.Header {
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_simulated"},
			"Openai-Organization": {"org-fake"}, "Openai-Version": {"2020-10-01"}}
		if limited {
			h.Set("X-Ratelimit-Limit-Requests", "3")
			h.Set("X-Ratelimit-Remaining-Requests", "0")
			h.Set("X-Ratelimit-Reset-Requests", c.RetryAfter.D().String())
		} else {
			h.Set("X-Ratelimit-Limit-Requests", "10000")
			h.Set("X-Ratelimit-Remaining-Requests", "9999")
			h.Set("X-Ratelimit-Reset-Requests", "6ms")
		}
		h.Set("X-Ratelimit-Limit-Tokens", "200000")
		h.Set("X-Ratelimit-Remaining-Tokens", "199000")
		h.Set("X-Ratelimit-Reset-Tokens", "300ms")
		return h
	}
	apiErr := func(status int, h http.Header, message, typ, param, code string) error {
		e := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
		if param != "" {
			e["param"] = param
		}
		if code != "" {
			e["code"] = code
		}
		body, _ := json.Marshal(map[string]any{"error": e})
		err := failure.WithDetail(&failure.HTTPError{Provider: failure.OpenAI, Stage: work.LLM, Op: llmOp, Status: status, Header: h, Body: body},
			"upstream_status", strconv.Itoa(status))
		return failure.WithDetail(failure.WithDetail(err, "request_id", "req_simulated"), "model", llmModel)
	}
	parse := func(content string) error {
		_, err := llm.ParseEnrichment(store.KindStory, content)
		if err == nil {
			panic("simulate: fault content parsed as a valid enrichment")
		}
		return failure.WithDetail(failure.WithDetail(err, "request_id", "req_simulated"), "model", llmModel)
	}
	limited := headers(true)
	limited.Set("Retry-After", seconds(c.RetryAfter.D()))
	a.byFault[fakes.FaultRateLimit] = apiErr(http.StatusTooManyRequests, limited,
		fmt.Sprintf("Rate limit reached for %s in organization org-xxx on requests per min (RPM): Limit 3, Used 3, "+
			"Requested 1. Please try again in %s. Visit https://platform.openai.com/account/rate-limits to learn more.",
			llmModel, c.RetryAfter.D()), "requests", "", "rate_limit_exceeded")
	a.byFault[fakes.FaultQuota] = apiErr(http.StatusTooManyRequests, headers(false), "You exceeded your current quota, "+
		"please check your plan and billing details. For more information on this error, read the docs: "+
		"https://platform.openai.com/docs/guides/error-codes/api-errors.", "insufficient_quota", "", "insufficient_quota")
	a.byFault[fakes.FaultServerError] = apiErr(http.StatusInternalServerError, headers(false),
		"The server had an error while processing your request. Sorry about that!", "server_error", "", "")
	a.byFault[fakes.FaultUnavailable] = apiErr(http.StatusServiceUnavailable, headers(false),
		"The engine is currently overloaded, please try again later.", "server_error", "", "engine_overloaded")
	a.byFault[fakes.FaultBadGateway] = failure.WithDetail(failure.WithDetail(&failure.HTTPError{
		Provider: failure.OpenAI, Stage: work.LLM, Op: llmOp, Status: http.StatusBadGateway, Header: http.Header{"Content-Type": {"text/html"}},
		Body: []byte("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
			"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"),
	}, "upstream_status", "502"), "model", llmModel)
	a.byFault[fakes.FaultContentPolicy] = apiErr(http.StatusBadRequest, headers(false), "Your request was rejected as a "+
		"result of our safety system. Your prompt may contain text that is not allowed by our safety system.",
		"invalid_request_error", "", "content_policy_violation")
	a.byFault[fakes.FaultContextLength] = apiErr(http.StatusBadRequest, headers(false), "This model's maximum context "+
		"length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.",
		"invalid_request_error", "messages", "context_length_exceeded")
	a.byFault[fakes.FaultAuth] = apiErr(http.StatusUnauthorized, headers(false), "Incorrect API key provided: sk-...xxxx. "+
		"You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "invalid_api_key")
	a.byFault[fakes.FaultModelNotFound] = apiErr(http.StatusNotFound, headers(false), "The model `"+llmModel+
		"` does not exist or you do not have access to it.", "invalid_request_error", "", "model_not_found")
	a.byFault[fakes.FaultInvalidJSON] = parse("Sure! Here is the summary: {summary: oops")
	schema, _ := json.Marshal(map[string]any{"summary": "A summary.", "tags": []string{"news"}})
	a.byFault[fakes.FaultSchemaMismatch] = parse(string(schema))
	a.byFault[fakes.FaultEmpty] = parse("")
	a.byFault[fakes.FaultContentFilter] = failure.WithDetail(failure.New(failure.ContentPolicy,
		"completion stopped by the provider's content filter (finish_reason content_filter)"), "model", llmModel)
	a.byFault[fakes.FaultReset] = failure.WithDetail(fmt.Errorf("%s: read response: %w", llmPrefix, io.ErrUnexpectedEOF), "model", llmModel)
	a.timeout = failure.WithDetail(failure.WithDetail(fmt.Errorf("%s: %w", llmPrefix,
		&url.Error{Op: notifyVerb, URL: endpoint + "/v1/chat/completions", Err: context.DeadlineExceeded}), "host", llmHost), "model", llmModel)
	a.gateway = failure.WithDetail(&failure.HTTPError{Provider: failure.OpenAI, Stage: work.LLM, Op: llmOp, Status: http.StatusGatewayTimeout,
		Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte("upstream request timeout")}, "model", llmModel)
	a.deadline = a.timeout
}

// seconds formats d as whole seconds for Retry-After, rounding up, as the
// fakes do.
func seconds(d time.Duration) string {
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return strconv.FormatInt(s, 10)
}
