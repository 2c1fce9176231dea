package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// enricher is the stage runner's Work.
var _ runner.Work = (*enricher)(nil)

var fixedNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

const validAnswer = `{"summary_neutral":"Acme was fined.","summary_spicy":"Acme burned!","category":"markets",` +
	`"severity":"high","primary_actor":"Acme Corp","top_entities":["Acme Corp","SEC"]}`

// fakeCompleter records requests and answers with resp or err.
type fakeCompleter struct {
	mu   sync.Mutex
	reqs []llm.Request
	resp llm.Response
	err  error
}

func (f *fakeCompleter) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return f.resp, f.err
}

type testBundle struct {
	llm *fakeCompleter
	e   *enricher
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	f := &fakeCompleter{resp: llm.Response{Content: validAnswer, Stop: llm.StopEnd, StopReason: "stop", Model: "gpt-4o-mini-2024-07-18", RequestID: "req_1"}}
	return &testBundle{llm: f, e: &enricher{Clients: map[failure.Provider]completer{failure.OpenAI: f}, Entry: gpt4oMini,
		Clock: clock.NewStub(fixedNow)}}
}

// gpt4oMini is the entry the tests ask.
var gpt4oMini = fallback.Entry{Provider: failure.OpenAI, Model: "gpt-4o-mini"}

func item(kind store.Kind, text string) store.Item {
	return store.Item{
		ID: "item-1", Kind: kind, CorrelationID: "corr-1", SourceURL: "https://example.com/a",
		Document: &work.Document{Text: text},
	}
}

func TestRunEnriches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		kind        store.Kind
		answer      string
		wantOutcome string
	}{
		{name: "story", kind: store.KindStory, answer: validAnswer},
		{name: "empty kind is a story", kind: "", answer: validAnswer},
		{name: "document", kind: store.KindDocument, answer: "```json\n" + validAnswer + "\n```"},
		{name: "action", kind: store.KindAction, answer: validAnswer + "\nACTION_OUTCOME: success", wantOutcome: "success"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.llm.resp.Content = tt.answer
			out, err := b.e.Run(t.Context(), item(tt.kind, "The SEC fined Acme."), gates.Delivery{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.Document != nil || out.Delivery != nil || out.Enrichment == nil {
				t.Fatalf("Output = %+v, want only Enrichment", out)
			}
			want := work.Enrichment{
				SummaryNeutral: "Acme was fined.", SummarySpicy: "Acme burned!", Category: "markets",
				Severity: "high", PrimaryActor: "Acme Corp", TopEntities: []string{"Acme Corp", "SEC"},
				Model: "openai:gpt-4o-mini", ActionOutcome: tt.wantOutcome, EnrichedAt: fixedNow,
			}
			if !reflect.DeepEqual(*out.Enrichment, want) {
				t.Errorf("Enrichment =\n%+v\nwant\n%+v", *out.Enrichment, want)
			}

			req := b.llm.reqs[0]
			if req.Model != "gpt-4o-mini" || !req.JSONObject || req.Temperature == nil || *req.Temperature != 0.2 ||
				req.ItemID != "item-1" || req.CorrelationID != "corr-1" {
				t.Errorf("request = %+v", req)
			}
			if len(req.Messages) != 2 || req.Messages[1].Content != "The SEC fined Acme." {
				t.Errorf("messages = %+v", req.Messages)
			}
			isAction := tt.kind == store.KindAction
			if got := strings.Contains(req.Messages[0].Content, failure.ActionInstruction); got != isAction {
				t.Errorf("system prompt has ActionInstruction = %v, want %v", got, isAction)
			}
		})
	}
}

func TestRunCutsInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		max     int
		textLen int
		wantLen int
	}{
		{name: "default limit", max: 0, textLen: 100 << 10, wantLen: defaultMaxInputBytes},
		{name: "under default", max: 0, textLen: 1000, wantLen: 1000},
		{name: "custom limit", max: 100, textLen: 1000, wantLen: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.e.MaxInputBytes = tt.max
			if _, err := b.e.Run(t.Context(), item(store.KindStory, strings.Repeat("a", tt.textLen)), gates.Delivery{}); err != nil {
				t.Fatal(err)
			}
			if got := len(b.llm.reqs[0].Messages[1].Content); got != tt.wantLen {
				t.Errorf("user message = %d bytes, want %d", got, tt.wantLen)
			}
		})
	}
}

func TestRunRejectsBeforeCalling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		item      store.Item
		mutate    func(*enricher)
		wantClass work.Class
		wantIn    string
	}{
		{name: "no document", item: store.Item{ID: "i"}, wantClass: work.SchemaInvalid, wantIn: "item has no fetched text"},
		{name: "empty text", item: item(store.KindStory, ""), wantClass: work.SchemaInvalid, wantIn: "item has no fetched text"},
		{name: "blank text", item: item(store.KindStory, " \n "), wantClass: work.SchemaInvalid, wantIn: "item has no fetched text"},
		{name: "unknown kind", item: item("poem", "text"), wantClass: work.SchemaInvalid, wantIn: "kind"},
		{name: "no model", item: item(store.KindStory, "text"), mutate: func(e *enricher) { e.Entry.Model = "" },
			wantClass: work.InternalBug, wantIn: "no model"},
		{name: "no client", item: item(store.KindStory, "text"), mutate: func(e *enricher) { e.Clients = nil },
			wantClass: work.InternalBug, wantIn: "no openai client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			if tt.mutate != nil {
				tt.mutate(b.e)
			}
			_, err := b.e.Run(t.Context(), tt.item, gates.Delivery{})
			runnertest.WantClass(t, err, tt.wantClass)
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
			if len(b.llm.reqs) != 0 {
				t.Errorf("the model was called")
			}
		})
	}
}

func TestRunErrorDetails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		resp          llm.Response
		err           error
		wantClass     work.Class
		wantRequestID string
	}{
		{name: "client error keeps its details",
			err:       failure.WithDetail(&failure.HTTPError{Provider: failure.OpenAI, Op: "chat.completions", Status: 503}, "request_id", "req_up"),
			wantClass: work.UpstreamUnavailable, wantRequestID: "req_up"},
		{name: "parse error gets the request id",
			resp:      llm.Response{Content: "not json", RequestID: "req_parse"},
			wantClass: work.ResponseInvalid, wantRequestID: "req_parse"},
		{name: "parse error without request id",
			resp:      llm.Response{Content: "{}"},
			wantClass: work.ResponseInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.llm.resp, b.llm.err = tt.resp, tt.err
			_, err := b.e.Run(t.Context(), item(store.KindStory, "text"), gates.Delivery{})
			if c := failure.Classify(err); c.Class != tt.wantClass {
				t.Errorf("class = %s, want %s", c.Class, tt.wantClass)
			}
			d := failure.Details(err)
			if d["model"] != "openai:gpt-4o-mini" || d["request_id"] != tt.wantRequestID {
				t.Errorf("details = %v", d)
			}
		})
	}
}

func TestEnrichUsesTheGivenModel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	enr, err := b.e.Enrich(t.Context(), item(store.KindStory, "text"), fallback.Entry{Provider: failure.OpenAI, Model: "fallback-model"})
	if err != nil {
		t.Fatal(err)
	}
	if enr.Model != "openai:fallback-model" || b.llm.reqs[0].Model != "fallback-model" {
		t.Errorf("model = %q, request model = %q", enr.Model, b.llm.reqs[0].Model)
	}
}

// TestRunThroughClient runs the enricher over a real llm.Client against a
// fake chat-completions server, checking the classes end to end.
func TestRunThroughClient(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-PLANTED-enricher-key"
	completion := func(content, finish string) string {
		c, _ := json.Marshal(content)
		return fmt.Sprintf(`{"id":"chatcmpl-1","model":"m","choices":[{"message":{"role":"assistant","content":%s},"finish_reason":%q}]}`, c, finish)
	}
	tests := []struct {
		name      string
		kind      store.Kind
		status    int
		body      string
		wantClass work.Class // "" means success
	}{
		{name: "success", kind: store.KindStory, status: 200, body: completion(validAnswer, "stop")},
		{name: "action success", kind: store.KindAction, status: 200, body: completion(validAnswer+"\nACTION_OUTCOME: success", "stop")},
		{name: "429 insufficient_quota", kind: store.KindStory, status: 429,
			body:      `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}`,
			wantClass: work.BudgetExceeded},
		{name: "429 rate limited", kind: store.KindStory, status: 429,
			body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, wantClass: work.RateLimited},
		{name: "401", kind: store.KindStory, status: 401,
			body: `{"error":{"message":"Incorrect API key provided: ` + apiKey + `","code":"invalid_api_key"}}`, wantClass: work.AuthDenied},
		{name: "invalid JSON content", kind: store.KindStory, status: 200, body: completion("Sure! Here is a summary.", "stop"),
			wantClass: work.ResponseInvalid},
		{name: "schema mismatch", kind: store.KindStory, status: 200, body: completion(`{"summary":"x"}`, "stop"),
			wantClass: work.ResponseInvalid},
		{name: "empty content", kind: store.KindStory, status: 200, body: completion("", "stop"), wantClass: work.ResponseInvalid},
		{name: "content_filter", kind: store.KindStory, status: 200, body: completion("", "content_filter"), wantClass: work.ContentPolicy},
		{name: "action failed", kind: store.KindAction, status: 200,
			body:      completion(validAnswer+"\nACTION_OUTCOME: failed | target system rejected the change", "stop"),
			wantClass: work.ActionFailed},
		{name: "action marker missing", kind: store.KindAction, status: 200, body: completion(validAnswer, "stop"),
			wantClass: work.ResponseInvalid},
		{name: "503", kind: store.KindStory, status: 503, body: `{"error":{"message":"overloaded","type":"server_error"}}`,
			wantClass: work.UpstreamUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var gotItem string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				gotItem = r.Header.Get(llm.HeaderItemID)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("X-Request-Id", "req_srv")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			client, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: apiKey, HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			e := &enricher{Clients: map[failure.Provider]completer{failure.OpenAI: client}, Entry: gpt4oMini, Clock: clock.NewStub(fixedNow)}
			out, err := e.Run(t.Context(), item(tt.kind, "The SEC fined Acme."), gates.Delivery{})
			if gotItem != "item-1" {
				t.Errorf("server saw item id %q", gotItem)
			}
			if tt.wantClass == "" {
				if err != nil || out.Enrichment == nil {
					t.Fatalf("Run = %+v, %v", out, err)
				}
				return
			}
			runnertest.WantClass(t, err, tt.wantClass)
			d := failure.Details(err)
			if d["model"] != "openai:gpt-4o-mini" || d["request_id"] != "req_srv" {
				t.Errorf("details = %v", d)
			}
			if strings.Contains(err.Error(), apiKey) || strings.Contains(err.Error(), "The SEC fined Acme.") {
				t.Errorf("error leaks the key or the prompt: %q", err)
			}
		})
	}
}
