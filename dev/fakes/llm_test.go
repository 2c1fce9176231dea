package fakes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
)

const testAPIKey = "sk-test-0123456789abcdefWXYZ"

type llmBundle struct {
	llm  *LLM
	base string
}

func setupLLM(t *testing.T, opts LLMOptions) *llmBundle {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = clock.NewStub(testTime)
	}
	l, err := NewLLM(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &llmBundle{llm: l, base: serve(t, l)}
}

const userText = "Acme Corp delayed the merger on Tuesday after weeks of speculation, Maria Lopez said."

func chatBody(model string, system string) []byte {
	msgs := []map[string]any{}
	if system != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": system})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": userText})
	b, _ := json.Marshal(map[string]any{
		"model":           model,
		"messages":        msgs,
		"response_format": map[string]string{"type": "json_object"},
		"temperature":     0.2,
	})
	return b
}

func (b *llmBundle) chat(t *testing.T, client *http.Client, itemID, model, system string) response {
	t.Helper()
	return do(t, client, b.chatRequest(t, itemID, model, system, "Bearer "+testAPIKey))
}

// scriptedChat scripts fault for the key "item-<fault>" and makes one chat
// call with that key.
func (b *llmBundle) scriptedChat(t *testing.T, fault Fault) (string, response) {
	t.Helper()
	key := "item-" + string(fault)
	if err := b.llm.SetScript(key, fault); err != nil {
		t.Fatal(err)
	}
	return key, b.chat(t, nil, key, "gpt-4o-mini", "")
}

func (b *llmBundle) chatRequest(t *testing.T, itemID, model, system, auth string) *http.Request {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if itemID != "" {
		h[ItemIDHeader] = itemID
	}
	if auth != "" {
		h["Authorization"] = auth
	}
	return newRequest(t, http.MethodPost, b.base+"/v1/chat/completions", chatBody(model, system), h)
}

type errorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

type completion struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func decodeCompletion(t *testing.T, r response) (completion, string) {
	t.Helper()
	var c completion
	if err := json.Unmarshal(r.body, &c); err != nil {
		t.Fatalf("decode completion: %v\n%s", err, r.body)
	}
	if c.Object != "chat.completion" || len(c.Choices) != 1 || c.Choices[0].Message.Role != "assistant" {
		t.Fatalf("not a chat completion: %s", r.body)
	}
	return c, c.Choices[0].Message.Content
}

// errorOf decodes r's body as an OpenAI error, failing t when it is not
// JSON.
func errorOf(t *testing.T, r response) errorBody {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("decode error body: %v\n%s", err, r.body)
	}
	return e
}

func code(e errorBody) string {
	if e.Error.Code == nil {
		return "<null>"
	}
	return *e.Error.Code
}

func TestLLMFaults(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{APIKey: testAPIKey})
	errorCases := map[Fault]struct {
		status  int
		typ     string
		code    string
		message string
		header  map[string]string
	}{
		FaultRateLimit: {429, "requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o-mini in organization org-xxx",
			map[string]string{"Retry-After": "2", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "2s"}},
		FaultQuota:         {429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota", map[string]string{"Retry-After": ""}},
		FaultServerError:   {500, "server_error", "<null>", "The server had an error while processing your request.", nil},
		FaultUnavailable:   {503, "server_error", "engine_overloaded", "overloaded", nil},
		FaultContentPolicy: {400, "invalid_request_error", "content_policy_violation", "safety system", nil},
		FaultContextLength: {400, "invalid_request_error", "context_length_exceeded", "maximum context length is 128000 tokens", nil},
		FaultAuth: {401, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided: sk-*********************WXYZ.", nil},
		FaultModelNotFound: {404, "invalid_request_error", "model_not_found", "The model `gpt-4o-mini` does not exist", nil},
	}
	for fault, want := range errorCases {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			key, r := b.scriptedChat(t, fault)
			if r.status != want.status {
				t.Fatalf("status = %d, want %d: %s", r.status, want.status, r.body)
			}
			e := errorOf(t, r)
			if e.Error.Type != want.typ || code(e) != want.code || !strings.Contains(e.Error.Message, want.message) {
				t.Errorf("error = %+v code %s, want type %s code %s message ~%q", e.Error, code(e), want.typ, want.code, want.message)
			}
			if strings.Contains(string(r.body), testAPIKey) {
				t.Error("the error body leaks the full API key")
			}
			for h, v := range want.header {
				if got := r.header.Get(h); got != v {
					t.Errorf("header %s = %q, want %q", h, got, v)
				}
			}
			if !strings.HasPrefix(r.header.Get("x-request-id"), "req_") {
				t.Errorf("x-request-id = %q", r.header.Get("x-request-id"))
			}
			// After the script, the key succeeds.
			if r := b.chat(t, nil, key, "gpt-4o-mini", ""); r.status != http.StatusOK {
				t.Errorf("second call = %d, want 200", r.status)
			}
		})
	}

	contentCases := map[Fault]struct {
		finish string
		check  func(t *testing.T, content string)
	}{
		FaultNone: {"stop", func(t *testing.T, content string) {
			var e Enrichment
			if err := json.Unmarshal([]byte(content), &e); err != nil {
				t.Fatalf("content is not JSON: %v: %q", err, content)
			}
			if want := EnrichmentFor(userText); e.SummaryNeutral != want.SummaryNeutral || e.PrimaryActor != "Acme" {
				t.Errorf("enrichment = %+v, want %+v", e, want)
			}
		}},
		FaultInvalidJSON: {"stop", func(t *testing.T, content string) {
			if json.Valid([]byte(content)) || content == "" {
				t.Errorf("content %q is valid JSON or empty", content)
			}
		}},
		FaultSchemaMismatch: {"stop", func(t *testing.T, content string) {
			var m map[string]any
			if err := json.Unmarshal([]byte(content), &m); err != nil {
				t.Fatalf("content is not JSON: %v", err)
			}
			if _, ok := m["summary_neutral"]; ok {
				t.Errorf("content %s has the required field summary_neutral", content)
			}
		}},
		FaultEmpty:         {"stop", func(t *testing.T, content string) { mustEqual(t, content, "") }},
		FaultContentFilter: {"content_filter", func(t *testing.T, content string) { mustEqual(t, content, "") }},
		FaultActionFailed: {"stop", func(t *testing.T, content string) {
			body, last, _ := strings.Cut(content, "\n")
			if !json.Valid([]byte(body)) {
				t.Errorf("enrichment part %q is not JSON", body)
			}
			mustEqual(t, last, "ACTION_OUTCOME: failed | target system rejected the change")
		}},
	}
	for fault, want := range contentCases {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			_, r := b.scriptedChat(t, fault)
			if r.status != http.StatusOK {
				t.Fatalf("status = %d: %s", r.status, r.body)
			}
			c, content := decodeCompletion(t, r)
			if c.Choices[0].FinishReason != want.finish {
				t.Errorf("finish_reason = %q, want %q", c.Choices[0].FinishReason, want.finish)
			}
			if c.Created != testTime.Unix() || c.Model != "gpt-4o-mini" || c.Usage.TotalTokens != c.Usage.PromptTokens+c.Usage.CompletionTokens {
				t.Errorf("completion metadata = %+v", c)
			}
			want.check(t, content)
		})
	}

	t.Run("bad_gateway", func(t *testing.T) {
		t.Parallel()
		_, r := b.scriptedChat(t, FaultBadGateway)
		if r.status != http.StatusBadGateway || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(r.body), "<title>502 Bad Gateway</title>") {
			t.Errorf("got %d %s %q", r.status, r.header.Get("Content-Type"), r.body)
		}
	})
}

func mustEqual(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLLMErrorBodyIsOpenAIShaped(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	_, r := b.scriptedChat(t, FaultServerError)
	want := `{"error":{"message":"The server had an error while processing your request. Sorry about that!",` +
		`"type":"server_error","param":null,"code":null}}`
	if got := strings.TrimSpace(string(r.body)); got != want {
		t.Errorf("body =\n%s\nwant\n%s", got, want)
	}
}

func TestLLMAuth(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{APIKey: testAPIKey})
	tests := map[string]struct {
		auth    string
		status  int
		code    string
		message string
	}{
		"right key":   {auth: "Bearer " + testAPIKey, status: 200},
		"scheme case": {auth: "bearer " + testAPIKey, status: 200},
		"wrong key": {auth: "Bearer sk-wrong-key-000000001234", status: 401, code: "invalid_api_key",
			message: "Incorrect API key provided: sk-******************1234."},
		"no key": {status: 401, code: "<null>", message: "You didn't provide an API key."},
		"basic":  {auth: "Basic Zm9vOmJhcg==", status: 401, code: "<null>", message: "You didn't provide an API key."},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := do(t, nil, b.chatRequest(t, "auth-"+name, "gpt-4o-mini", "", tt.auth))
			if r.status != tt.status {
				t.Fatalf("status = %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.status == 200 {
				return
			}
			if e := errorOf(t, r); code(e) != tt.code || !strings.HasPrefix(e.Error.Message, tt.message) {
				t.Errorf("error = %s %q, want %s %q", code(e), e.Error.Message, tt.code, tt.message)
			}
		})
	}
}

func TestLLMActionOutcome(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	tests := map[string]struct {
		system   string
		wantLast string
	}{
		"action task": {system: "Do it. End with ACTION_OUTCOME: success or failed.", wantLast: "ACTION_OUTCOME: success"},
		"story":       {system: "Summarise the story as JSON."},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, content := decodeCompletion(t, b.chat(t, nil, "action-"+name, "gpt-4o-mini", tt.system))
			body, last, found := strings.Cut(content, "\n")
			if tt.wantLast == "" {
				if found || !json.Valid([]byte(content)) {
					t.Errorf("content = %q, want bare JSON", content)
				}
				return
			}
			if !json.Valid([]byte(body)) || last != tt.wantLast {
				t.Errorf("content = %q, want JSON then %q", content, tt.wantLast)
			}
		})
	}
}

func TestLLMModels(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{
		Models:      []string{"gpt-4o-mini", "bad-model", "backup"},
		ModelFaults: map[string]Fault{"bad-model": FaultInvalidJSON},
	})
	// A fallback chain: bad-model answers invalid JSON on every call, the
	// backup answers normally for the same item.
	for range 3 {
		_, content := decodeCompletion(t, b.chat(t, nil, "item-1", "bad-model", ""))
		if json.Valid([]byte(content)) {
			t.Fatalf("bad-model answered valid JSON %q", content)
		}
	}
	if _, content := decodeCompletion(t, b.chat(t, nil, "item-1", "backup", "")); !json.Valid([]byte(content)) {
		t.Errorf("backup answered %q", content)
	}
	if r := b.chat(t, nil, "item-1", "gpt-5-imaginary", ""); r.status != http.StatusNotFound ||
		!strings.Contains(string(r.body), "model_not_found") {
		t.Errorf("unknown model = %d %s, want 404 model_not_found", r.status, r.body)
	}

	// Fixing suspends model faults, not the model list.
	b.llm.SetFixed(true)
	if _, content := decodeCompletion(t, b.chat(t, nil, "item-1", "bad-model", "")); !json.Valid([]byte(content)) {
		t.Errorf("fixed bad-model answered %q", content)
	}
	if r := b.chat(t, nil, "item-1", "gpt-5-imaginary", ""); r.status != http.StatusNotFound {
		t.Errorf("fixed unknown model = %d, want 404", r.status)
	}
	b.llm.SetFixed(false)

	if err := b.llm.SetModelFault("backup", Always(FaultContextLength)); err != nil {
		t.Fatal(err)
	}
	if r := b.chat(t, nil, "item-1", "backup", ""); r.status != http.StatusBadRequest {
		t.Errorf("backup after SetModelFault = %d, want 400", r.status)
	}
	if err := b.llm.SetModelFault("backup", FaultNone); err != nil {
		t.Fatal(err)
	}
	if err := b.llm.SetModelFault("backup", FaultHuge); err == nil {
		t.Error("SetModelFault(huge) succeeded; huge is not an LLM fault")
	}

	s := b.llm.Stats()
	if s.Models["bad-model"] != 4 || s.Models["backup"] != 2 || s.Faults[FaultInvalidJSON] != 3 || s.Faults[FaultModelNotFound] != 2 {
		t.Errorf("stats models %v faults %v", s.Models, s.Faults)
	}
	b.llm.Reset()
	if got := b.llm.ModelFaults(); len(got) != 1 || got["bad-model"] != FaultInvalidJSON {
		t.Errorf("after Reset model faults = %v, want the options' table", got)
	}

	if _, err := NewLLM(LLMOptions{ModelFaults: map[string]Fault{"m": FaultGone}}); err == nil {
		t.Error("NewLLM accepted an article fault as a model fault")
	}
}

func TestLLMBadRequests(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	tests := map[string]struct {
		body    string
		message string
	}{
		"not json":   {body: "{", message: "We could not parse the JSON body"},
		"no model":   {body: `{"messages":[{"role":"user","content":"hi"}]}`, message: "you must provide a model parameter"},
		"no message": {body: `{"model":"m","messages":[]}`, message: "too short"},
		"stream":     {body: `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, message: "stream"},
		"bad content": {body: `{"model":"m","messages":[{"role":"user","content":42}]}`,
			message: "messages[0].content"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := do(t, nil, newRequest(t, http.MethodPost, b.base+"/v1/chat/completions", []byte(tt.body), nil))
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tt.message) {
				t.Errorf("got %d %s, want 400 ~%q", r.status, r.body, tt.message)
			}
		})
	}
	// Array content is accepted.
	body := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Globex wins"}]}]}`
	r := do(t, nil, newRequest(t, http.MethodPost, b.base+"/v1/chat/completions", []byte(body), nil))
	if _, content := decodeCompletion(t, r); !strings.Contains(content, "Globex") {
		t.Errorf("array content answered %q", content)
	}
}

func TestLLMKeyFallsBackToMessageHash(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	b.chat(t, nil, "", "gpt-4o-mini", "")
	b.chat(t, nil, "", "gpt-4o-mini", "other system prompt")
	key := fmt.Sprintf("msg-%016x", HashString(userText))
	if got := b.llm.Calls(key); got != 2 {
		t.Errorf("Calls(%s) = %d, want 2 (keyed on the last user message); calls %v", key, got, b.llm.CallCounts())
	}
}

func TestLLMStatsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{APIKey: testAPIKey})
	b.chat(t, nil, "item-1", "gpt-4o-mini", "secret system prompt")
	raw := do(t, nil, newRequest(t, http.MethodGet, b.base+"/_fake/stats", nil, nil)).body
	for _, secret := range []string{testAPIKey, "Acme", "secret system prompt", "Bearer"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("stats contain %q: %s", secret, raw)
		}
	}
	s := b.llm.Stats()
	if len(s.Recent) != 1 || s.Recent[0].Messages != 2 || s.Recent[0].RequestBytes == 0 || s.Recent[0].Status != 200 ||
		!s.Recent[0].At.Equal(testTime) {
		t.Errorf("recent = %+v", s.Recent)
	}
}

// TestLLMHangHonoursClientDeadline: a hang holds the request until the
// client's 50 ms timeout, which the client sees as a timeout error.
func TestLLMHangHonoursClientDeadline(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	if err := b.llm.SetScript("slow-item", FaultHang); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req := b.chatRequest(t, "slow-item", "gpt-4o-mini", "", "").WithContext(ctx)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("hang answered %d", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want a deadline", err)
	}
	// The same with an http.Client timeout, the way our clients are built.
	if err := b.llm.SetScript("slow-item-2", FaultHang); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 50 * time.Millisecond}
	resp, err = client.Do(b.chatRequest(t, "slow-item-2", "gpt-4o-mini", "", ""))
	var netErr interface{ Timeout() bool }
	if err == nil {
		resp.Body.Close()
		t.Fatalf("hang answered %d", resp.StatusCode)
	}
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Errorf("error = %v, want a timeout", err)
	}
}

// scriptedFake is one fake with the request that plays its script's fault
// for key.
type scriptedFake struct {
	handler interface {
		http.Handler
		SetScript(string, ...Fault) error
		Stats() Stats
	}
	key, method, path string
	header            map[string]string
}

// request is f's scripted request to the fake served at base.
func (f scriptedFake) request(t *testing.T, base string) *http.Request {
	t.Helper()
	return newRequest(t, f.method, base+f.path, chatBody("m", ""), f.header)
}

// everyFake is the LLM, articles and webhook fakes built with shared, for
// the faults every fake plays alike.
func everyFake(t *testing.T, shared Shared) map[string]scriptedFake {
	t.Helper()
	l, err := NewLLM(LLMOptions{Shared: shared})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]scriptedFake{
		"llm":      {l, "k", http.MethodPost, "/v1/chat/completions", map[string]string{ItemIDHeader: "k"}},
		"articles": {NewArticles(ArticleOptions{Shared: shared}), "a1", http.MethodGet, "/articles/a1", nil},
		"webhook": {NewWebhook(WebhookOptions{Shared: shared}), "i:notify", http.MethodPost, "/hooks/ops",
			map[string]string{IdempotencyHeader: "i:notify"}},
	}
}

// TestHangIsBounded: with no client deadline, a hang ends after MaxHang with a
// 504, for every fake.
func TestHangIsBounded(t *testing.T) {
	t.Parallel()
	for name, tt := range everyFake(t, Shared{MaxHang: 20 * time.Millisecond}) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := serve(t, tt.handler)
			if err := tt.handler.SetScript(tt.key, FaultHang); err != nil {
				t.Fatal(err)
			}
			r := do(t, nil, tt.request(t, base))
			if r.status != http.StatusGatewayTimeout {
				t.Errorf("status = %d, want 504", r.status)
			}
		})
	}
}

func TestResetYieldsClientError(t *testing.T) {
	t.Parallel()
	for name, tt := range everyFake(t, Shared{}) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := serve(t, tt.handler)
			if err := tt.handler.SetScript(tt.key, FaultReset); err != nil {
				t.Fatal(err)
			}
			client := &http.Client{Timeout: 10 * time.Second}
			resp, err := client.Do(tt.request(t, base))
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if err == nil {
				t.Fatal("reset produced no client error")
			}
			if s := tt.handler.Stats(); s.Faults[FaultReset] != 1 || len(s.Statuses) != 0 {
				t.Errorf("stats faults %v statuses %v, want one reset and no status", s.Faults, s.Statuses)
			}
		})
	}
}

func TestEnrichmentFor(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		text     string
		actor    string
		entities []string
		neutral  string
	}{
		"empty": {text: "", actor: "unknown", entities: []string{}, neutral: "The message is empty."},
		"names": {text: "The regulator fined Globex. Chen Wei and Globex disagreed.", actor: "Globex",
			entities: []string{"Globex", "Chen", "Wei"}, neutral: "The regulator fined Globex. Chen Wei and Globex disagreed."},
		"lower": {text: "nothing capitalised here", actor: "unknown", entities: []string{},
			neutral: "nothing capitalised here."},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := EnrichmentFor(tt.text)
			if e.PrimaryActor != tt.actor || strings.Join(e.TopEntities, ",") != strings.Join(tt.entities, ",") ||
				e.TopEntities == nil || e.SummaryNeutral != tt.neutral {
				t.Errorf("EnrichmentFor(%q) = %+v", tt.text, e)
			}
			if again := EnrichmentFor(tt.text); again.Category != e.Category || again.Severity != e.Severity {
				t.Error("not deterministic")
			}
		})
	}
}
