package soak

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/triagehq/triage/internal/work"
)

func TestTrackerOverlaps(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		calls       func(tr *Tracker)
		cross, same int
	}{
		"one stage after another": {calls: func(tr *Tracker) {
			tr.begin("a", work.Fetch)
			tr.end("a", work.Fetch)
			tr.begin("a", work.LLM)
			tr.end("a", work.LLM)
		}},
		"two items at once": {calls: func(tr *Tracker) {
			tr.begin("a", work.Fetch)
			tr.begin("b", work.Fetch)
			tr.end("a", work.Fetch)
			tr.end("b", work.Fetch)
		}},
		"one item at two stages": {cross: 1, calls: func(tr *Tracker) {
			tr.begin("a", work.Fetch)
			tr.begin("a", work.LLM)
			tr.end("a", work.LLM)
			tr.end("a", work.Fetch)
		}},
		"one item twice at one stage": {same: 1, calls: func(tr *Tracker) {
			tr.begin("a", work.Notify)
			tr.begin("a", work.Notify)
			tr.end("a", work.Notify)
			tr.end("a", work.Notify)
		}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := NewTracker()
			tt.calls(tr)
			cross, same := tr.Overlaps()
			if len(cross) != tt.cross || len(same) != tt.same {
				t.Fatalf("cross %v, same %v", cross, same)
			}
			if !tr.Idle() {
				t.Fatal("calls left in flight")
			}
		})
	}
}

func TestTrackerKeys(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		key  func(*http.Request) string
		req  *http.Request
		want string
	}{
		"article":         {articleKey, httptest.NewRequest("GET", "/articles/item-1?token=x", nil), "item-1"},
		"article control": {articleKey, httptest.NewRequest("GET", "/_fake/stats", nil), ""},
		"llm":             {llmKey, withHeader(httptest.NewRequest("POST", "/v1/chat/completions", nil), "X-Triage-Item-Id", "item-2"), "item-2"},
		"llm control":     {llmKey, withHeader(httptest.NewRequest("POST", "/_fake/mix", nil), "X-Triage-Item-Id", "item-2"), ""},
		"webhook":         {webhookKey, withHeader(httptest.NewRequest("POST", "/hooks/x", nil), "Idempotency-Key", "item-3:notify"), "item-3"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tt.key(tt.req); got != tt.want {
				t.Fatalf("key %q, want %q", got, tt.want)
			}
		})
	}
}

func withHeader(r *http.Request, k, v string) *http.Request {
	r.Header.Set(k, v)
	return r
}
