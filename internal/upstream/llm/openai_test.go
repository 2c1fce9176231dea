package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// plantedKey and plantedPrompt must never appear in an error.
const (
	plantedKey    = "sk-test-PLANTED-0123456789abcdef"
	plantedPrompt = "PLANTED-PROMPT-TEXT the quick brown fox"
)

// recorded is what the fake server saw of one request; path is as sent,
// escaped.
type recorded struct {
	method, path, query string
	header              http.Header
	body                map[string]any
}

// testBundle is a fake upstream that records the last request and answers
// as each test sets.
type testBundle struct {
	srv    *httptest.Server
	calls  atomic.Int32
	mu     sync.Mutex
	last   recorded
	handle http.HandlerFunc
}

func setup(t *testing.T, handle http.HandlerFunc) *testBundle {
	t.Helper()
	b := &testBundle{handle: handle}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.calls.Add(1)
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		b.mu.Lock()
		b.last = recorded{method: r.Method, path: r.URL.EscapedPath(), query: r.URL.RawQuery, header: r.Header.Clone(), body: body}
		b.mu.Unlock()
		b.handle(w, r)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *testBundle) client(t *testing.T, cfg llm.Config) *llm.Client {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = b.srv.URL + "/v1"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = plantedKey
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = b.srv.Client()
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return c
}

func (b *testBundle) request() recorded {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

func request() llm.Request {
	temp := 0.2
	return llm.Request{
		Model:         "gpt-4o-mini",
		Messages:      []llm.Message{{Role: llm.RoleSystem, Content: "be terse"}, {Role: llm.RoleUser, Content: plantedPrompt}},
		JSONObject:    true,
		Temperature:   &temp,
		MaxTokens:     512,
		ItemID:        "item-1",
		CorrelationID: "corr-1",
	}
}

// completion is a successful envelope with content and finish reason.
func completion(content, finish string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18",
		"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":%q}],
		"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}}`, c, finish)
}

func respond(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func TestCompleteSuccess(t *testing.T) {
	t.Parallel()
	b := setup(t, respond(200, completion(`{"a":1}`, "stop"), "x-request-id", "req_abc"))
	resp, err := b.client(t, llm.Config{}).Complete(t.Context(), request())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := llm.Response{Provider: failure.OpenAI, Content: `{"a":1}`, Stop: llm.StopEnd, StopReason: "stop",
		Model: "gpt-4o-mini-2024-07-18", RequestID: "req_abc", Usage: llm.Usage{InputTokens: 12, OutputTokens: 34, Reported: true}}
	if resp != want {
		t.Errorf("Response = %+v, want %+v", resp, want)
	}

	got := b.request()
	checks := map[string][2]string{
		"method":                {got.method, http.MethodPost},
		"path":                  {got.path, "/v1/chat/completions"},
		"Authorization":         {got.header.Get("Authorization"), "Bearer " + plantedKey},
		"api-key":               {got.header.Get("Api-Key"), ""},
		"Content-Type":          {got.header.Get("Content-Type"), "application/json"},
		llm.HeaderItemID:        {got.header.Get(llm.HeaderItemID), "item-1"},
		llm.HeaderCorrelationID: {got.header.Get(llm.HeaderCorrelationID), "corr-1"},
		"User-Agent":            {got.header.Get("User-Agent"), llm.UserAgent},
		"model":                 {fmt.Sprint(got.body["model"]), "gpt-4o-mini"},
		"response_format":       {fmt.Sprint(got.body["response_format"]), "map[type:json_object]"},
		"temperature":           {fmt.Sprint(got.body["temperature"]), "0.2"},
		"max_tokens":            {fmt.Sprint(got.body["max_tokens"]), "512"},
		"messages":              {fmt.Sprint(got.body["messages"]), "[map[content:be terse role:system] map[content:" + plantedPrompt + " role:user]]"},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", name, c[0], c[1])
		}
	}
}

func TestCompleteRequestOptions(t *testing.T) {
	t.Parallel()
	zero := 0.0
	tests := []struct {
		name     string
		cfg      llm.Config
		req      func(*llm.Request)
		wantPath string
		check    func(t *testing.T, got recorded)
	}{
		{
			name:     "azure sends api-key and keeps the query",
			cfg:      llm.Config{Provider: failure.Azure, BaseURL: "/openai/deployments/gpt4o/?api-version=2024-06-01"},
			wantPath: "/openai/deployments/gpt4o/chat/completions",
			check: func(t *testing.T, got recorded) {
				if got.header.Get("Api-Key") != plantedKey || got.header.Get("Authorization") != "" {
					t.Errorf("api-key = %q, Authorization = %q", got.header.Get("Api-Key"), got.header.Get("Authorization"))
				}
				if got.query != "api-version=2024-06-01" {
					t.Errorf("query = %q", got.query)
				}
			},
		},
		{
			name:     "azure resource URL names the deployment per request",
			cfg:      llm.Config{Provider: failure.Azure, BaseURL: "/openai"},
			wantPath: "/openai/deployments/gpt-4o-mini/chat/completions",
			check: func(t *testing.T, got recorded) {
				if got.query != "api-version="+llm.DefaultAzureAPIVersion {
					t.Errorf("query = %q", got.query)
				}
			},
		},
		{
			name: "no json object, no temperature, no ids",
			req: func(r *llm.Request) {
				r.JSONObject, r.Temperature, r.MaxTokens, r.ItemID, r.CorrelationID = false, nil, 0, "", ""
			},
			wantPath: "/v1/chat/completions",
			check: func(t *testing.T, got recorded) {
				for _, k := range []string{"response_format", "temperature", "max_tokens"} {
					if _, ok := got.body[k]; ok {
						t.Errorf("body has %s", k)
					}
				}
				if _, ok := got.header[llm.HeaderItemID]; ok {
					t.Errorf("item id header sent when empty")
				}
			},
		},
		{
			name:     "temperature zero is sent",
			req:      func(r *llm.Request) { r.Temperature = &zero },
			wantPath: "/v1/chat/completions",
			check: func(t *testing.T, got recorded) {
				if v, ok := got.body["temperature"]; !ok || v != 0.0 {
					t.Errorf("temperature = %v, %v", v, ok)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, respond(200, completion("{}", "stop")))
			cfg := tt.cfg
			if strings.HasPrefix(cfg.BaseURL, "/") {
				cfg.BaseURL = b.srv.URL + cfg.BaseURL
			}
			req := request()
			if tt.req != nil {
				tt.req(&req)
			}
			if _, err := b.client(t, cfg).Complete(t.Context(), req); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			got := b.request()
			if got.path != tt.wantPath {
				t.Errorf("path = %q, want %q", got.path, tt.wantPath)
			}
			tt.check(t, got)
		})
	}
}

func TestCompleteFailureClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		handle    http.HandlerFunc
		wantClass work.Class
		wantHTTP  int  // >0: the error must be an *HTTPError with this status
		judged    bool // the answer arrives; Judge rejects it
	}{
		{name: "429 insufficient_quota",
			handle: respond(429, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
				"x-request-id", "req_q"),
			wantClass: work.BudgetExceeded, wantHTTP: 429},
		{name: "429 rate limit",
			handle:    respond(429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "7"),
			wantClass: work.RateLimited, wantHTTP: 429},
		{name: "401 invalid key",
			handle:    respond(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`),
			wantClass: work.AuthDenied, wantHTTP: 401},
		{name: "400 context length",
			handle:    respond(400, `{"error":{"message":"maximum context length is 128000 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`),
			wantClass: work.TokenLimit, wantHTTP: 400},
		{name: "400 content policy",
			handle:    respond(400, `{"error":{"message":"rejected","type":"invalid_request_error","code":"content_policy_violation"}}`),
			wantClass: work.ContentPolicy, wantHTTP: 400},
		{name: "404 model not found",
			handle:    respond(404, `{"error":{"message":"The model does not exist","type":"invalid_request_error","code":"model_not_found"}}`),
			wantClass: work.ClientError, wantHTTP: 404},
		{name: "500", handle: respond(500, `{"error":{"message":"The server had an error","type":"server_error"}}`),
			wantClass: work.UpstreamUnavailable, wantHTTP: 500},
		{name: "502 html", handle: respond(502, `<html><body>Bad Gateway</body></html>`, "Content-Type", "text/html"),
			wantClass: work.UpstreamUnavailable, wantHTTP: 502},
		{name: "503", handle: respond(503, `overloaded`, "Content-Type", "text/plain"),
			wantClass: work.UpstreamUnavailable, wantHTTP: 503},
		{name: "302 is not followed", handle: respond(302, ``, "Location", "http://elsewhere.invalid/"),
			wantClass: work.InternalBug, wantHTTP: 302},
		{name: "200 invalid JSON envelope", handle: respond(200, `{"choices": [`), wantClass: work.ResponseInvalid},
		{name: "200 html", handle: respond(200, `<html>oops</html>`, "Content-Type", "text/html"), wantClass: work.ResponseInvalid},
		{name: "200 no choices", handle: respond(200, `{"id":"x","choices":[]}`), wantClass: work.ResponseInvalid},
		{name: "200 error object", handle: respond(200, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`),
			wantClass: work.RateLimited, wantHTTP: 200},
		{name: "200 failed Responses API object", // its error object is the answer
			handle:    respond(200, `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The server had an error"}}}`),
			wantClass: work.UpstreamUnavailable, wantHTTP: 200},
		{name: "200 error object beside an empty choice", // a gateway's relayed upstream failure
			handle:    respond(200, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error"}],"error":{"message":"Upstream error","code":502}}`),
			wantClass: work.UpstreamUnavailable, wantHTTP: 200},
		{name: "200 error object beside a usable answer", // the answer stands
			handle:    respond(200, `{"choices":[{"message":{"role":"assistant","content":"{\"summary_neutral\":\"s\"}"},"finish_reason":"stop"}],"error":{"message":"usage report failed","code":500}}`),
			wantClass: work.ResponseInvalid, judged: true},
		{name: "200 content_filter", handle: respond(200, completion("", "content_filter")), wantClass: work.ContentPolicy, judged: true},
		{name: "200 length", handle: respond(200, completion(`{"summary_neutral":"cut`, "length")), wantClass: work.ResponseInvalid, judged: true},
		{name: "200 tool_calls", handle: respond(200, completion("", "tool_calls")), wantClass: work.ResponseInvalid, judged: true},
		{name: "200 refusal",
			handle:    respond(200, `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`),
			wantClass: work.ContentPolicy, judged: true},
		{name: "200 stream with an error event",
			handle: respond(200, "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"sum\"},\"finish_reason\":null}]}\n\n"+
				"data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\",\"code\":\"server_error\"}}\n\n",
				"Content-Type", "text/event-stream"),
			wantClass: work.UpstreamUnavailable, wantHTTP: 200},
		// OpenRouter ends an answer its upstream broke off with
		// finish_reason "error" and the error beside the text so far: the
		// error is the answer, whole or streamed.
		{name: "200 finish_reason error beside partial text",
			handle:    respond(200, `{"choices":[{"message":{"role":"assistant","content":"{\"summary_neutral\":\"par"},"finish_reason":"error"}],"error":{"message":"Provider disconnected unexpectedly","code":"server_error"}}`),
			wantClass: work.UpstreamUnavailable, wantHTTP: 200},
		{name: "200 stream ending in an error chunk with finish_reason error",
			handle: respond(200, "data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"sum\"},\"finish_reason\":null}]}\n\n"+
				"data: {\"error\":{\"code\":\"server_error\",\"message\":\"Provider disconnected unexpectedly\"},\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n",
				"Content-Type", "text/event-stream"),
			wantClass: work.UpstreamUnavailable, wantHTTP: 200},
		{name: "200 stream cut off", handle: respond(200, "data: {\"choices\":[{\"delta\":{\"content\":\"{\"},\"finish_reason\":null}]}\n\n",
			"Content-Type", "text/event-stream"),
			wantClass: work.NetworkTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.handle)
			resp, err := b.client(t, llm.Config{}).Complete(t.Context(), request())
			if tt.judged {
				if err != nil {
					t.Fatalf("Complete: %v; the answer arrived and is Judge's to reject", err)
				}
				_, err = llm.Judge(store.KindStory, resp)
			}
			if err == nil {
				t.Fatal("no error, want one")
			}
			if c := failure.Classify(err); c.Class != tt.wantClass {
				t.Errorf("class = %s (%s), want %s; err = %v", c.Class, c.Reason, tt.wantClass, err)
			}
			if n := b.calls.Load(); n != 1 {
				t.Errorf("requests = %d, want exactly 1 (no retries)", n)
			}
			var h *failure.HTTPError
			switch {
			case tt.wantHTTP > 0 && !errors.As(err, &h):
				t.Fatalf("err %v is not an *HTTPError", err)
			case tt.wantHTTP > 0:
				if h.Status != tt.wantHTTP || h.Provider != failure.OpenAI || h.Op != "chat.completions" {
					t.Errorf("HTTPError = {%s %s %d}", h.Provider, h.Op, h.Status)
				}
			case errors.As(err, &h):
				t.Errorf("err %v is an *HTTPError, want a *failure.Error", err)
			}
			if got := failure.Details(err)["upstream_status"]; got == "" && !tt.judged {
				t.Errorf("no upstream_status detail")
			}
		})
	}
}

func TestCompleteRequestIDDetail(t *testing.T) {
	t.Parallel()
	b := setup(t, respond(429, `{"error":{"code":"insufficient_quota"}}`, "x-request-id", "req_q"))
	_, err := b.client(t, llm.Config{}).Complete(t.Context(), request())
	d := failure.Details(err)
	if d["request_id"] != "req_q" || d["upstream_status"] != "429" {
		t.Errorf("details = %v", d)
	}
}

func TestCompleteRetryAfterReachesClassifier(t *testing.T) {
	t.Parallel()
	b := setup(t, respond(429, `{"error":{"code":"rate_limit_exceeded"}}`, "Retry-After", "7"))
	_, err := b.client(t, llm.Config{}).Complete(t.Context(), request())
	if c := failure.Classify(err); c.Requested.Delay != 7*time.Second {
		t.Errorf("requested = %+v, want 7s", c.Requested)
	}
}

func TestCompleteErrorBodyIsBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3*failure.MaxBodyBytes)
	b := setup(t, respond(500, big, "Content-Type", "text/plain"))
	_, err := b.client(t, llm.Config{}).Complete(t.Context(), request())
	var h *failure.HTTPError
	if !errors.As(err, &h) {
		t.Fatalf("err = %v", err)
	}
	if len(h.Body) != failure.MaxBodyBytes {
		t.Errorf("body = %d bytes, want %d", len(h.Body), failure.MaxBodyBytes)
	}
}

func TestCompleteTransportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		handle http.HandlerFunc
		cfg    llm.Config
		closed bool
	}{
		{
			name:   "timeout",
			handle: func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			cfg:    llm.Config{Timeout: 50 * time.Millisecond},
		},
		{
			name: "connection closed mid-body",
			handle: func(w http.ResponseWriter, _ *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				defer conn.Close()
				body := completion(`{"a":1}`, "stop")
				fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:len(body)/2])
				_ = buf.Flush()
			},
		},
		{name: "connection refused", closed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.handle)
			c := b.client(t, tt.cfg)
			if tt.closed {
				b.srv.Close()
			}
			_, err := c.Complete(t.Context(), request())
			if err == nil {
				t.Fatal("Complete succeeded, want error")
			}
			if cl := failure.Classify(err); cl.Class != work.NetworkTimeout {
				t.Errorf("class = %s (%s), want NETWORK_TIMEOUT; err = %v", cl.Class, cl.Reason, err)
			}
			if strings.Contains(err.Error(), "/chat/completions") {
				t.Errorf("error %q contains the request path", err)
			}
		})
	}
}

func TestCompleteTimeoutIsDeadline(t *testing.T) {
	t.Parallel()
	b := setup(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	_, err := b.client(t, llm.Config{Timeout: 20 * time.Millisecond}).Complete(context.Background(), request())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded in the chain", err)
	}
}

// TestCompleteNeverLeaksKeyOrPrompt makes the server echo everything it
// received — the credentials and the request body — in every failure shape.
func TestCompleteNeverLeaksKeyOrPrompt(t *testing.T) {
	t.Parallel()
	echo := func(status int, asError bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("Authorization") + " " + r.Header.Get("Api-Key")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			msg, _ := json.Marshal("Incorrect API key provided: " + key)
			if asError {
				fmt.Fprintf(w, `{"error":{"message":%s,"code":"invalid_api_key"}}`, msg)
				return
			}
			fmt.Fprintf(w, `{"choices":[{"message":{"content":%s},"finish_reason":"length"}]}`, msg)
		}
	}
	tests := []struct {
		name     string
		handle   http.HandlerFunc
		provider failure.Provider
	}{
		{name: "401 echo", handle: echo(401, true)},
		{name: "401 echo azure", handle: echo(401, true), provider: failure.Azure},
		{name: "500 echo", handle: echo(500, true)},
		{name: "200 error echo", handle: echo(200, true)},
		{name: "200 length", handle: echo(200, false)},
		{name: "200 bad envelope", handle: respond(200, `not json at all`)},
		{name: "timeout", handle: func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.handle)
			c := b.client(t, llm.Config{Provider: tt.provider, Timeout: 50 * time.Millisecond})
			resp, err := c.Complete(t.Context(), request())
			if err == nil {
				_, err = llm.Judge(store.KindStory, resp)
			}
			if err == nil {
				t.Fatal("Complete succeeded, want error")
			}
			var texts []string
			texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprint(failure.Details(err)))
			var h *failure.HTTPError
			if errors.As(err, &h) {
				texts = append(texts, string(h.Body))
			}
			for _, s := range texts {
				if strings.Contains(s, plantedKey) {
					t.Errorf("API key leaked: %q", s)
				}
				if strings.Contains(s, plantedPrompt) {
					t.Errorf("prompt leaked: %q", s)
				}
			}
		})
	}
}

func TestCompleteInvalidRequest(t *testing.T) {
	t.Parallel()
	tests := map[string]func(*llm.Request){
		"no model":    func(r *llm.Request) { r.Model = " " },
		"no messages": func(r *llm.Request) { r.Messages = nil },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, respond(200, completion("{}", "stop")))
			req := request()
			mutate(&req)
			_, err := b.client(t, llm.Config{}).Complete(t.Context(), req)
			if c := failure.Classify(err); c.Class != work.InternalBug {
				t.Errorf("class = %s, want INTERNAL_BUG", c.Class)
			}
			if n := b.calls.Load(); n != 0 {
				t.Errorf("requests = %d, want 0", n)
			}
		})
	}
}

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  llm.Config
	}{
		{name: "empty base URL", cfg: llm.Config{}},
		{name: "relative base URL", cfg: llm.Config{BaseURL: "/v1"}},
		{name: "ftp base URL", cfg: llm.Config{BaseURL: "ftp://example.com/v1"}},
		{name: "no host", cfg: llm.Config{BaseURL: "https:///v1"}},
		// A name triage does not know is an OpenAI-compatible endpoint
		// (TestNewCompleterByDialect); another dialect's or a non-model's
		// is a mistake.
		{name: "another dialect", cfg: llm.Config{BaseURL: "https://api.openai.com/v1", Provider: failure.Anthropic}},
		{name: "not a model endpoint", cfg: llm.Config{BaseURL: "https://api.openai.com/v1", Provider: failure.Webhook}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := llm.New(tt.cfg)
			if c := failure.Classify(err); err == nil || c.Class != work.InternalBug {
				t.Errorf("New err = %v (class %s), want INTERNAL_BUG", err, c.Class)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	c, err := llm.New(llm.Config{BaseURL: "https://api.openai.com/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Provider() != failure.OpenAI {
		t.Errorf("Provider = %s, want openai", c.Provider())
	}
}
