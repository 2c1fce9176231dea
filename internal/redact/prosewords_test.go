package redact_test

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// The prose layer: a run of words that is not a system's is content
// wherever it stands, with nothing naming it; a system's own sentences,
// and the identifiers between content's words, stay.
func TestProseThatIsNotTheSystems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		gone     []string // fragments of content that must not survive
		keep     []string // what the operator needs
	}{
		{
			name: "a sentence anyone wrote",
			in:   "The quick brown fox jumps over the lazy dog.",
			gone: []string{"quick brown fox", "lazy dog"},
		},
		{
			name: "a model's answer in a parser's exception",
			in:   `OutputParserException: could not parse: "Sure! Here is a gentle bedtime story about a hedgehog who learns to share his apples"`,
			gone: []string{"bedtime story about a hedgehog", "learns to share his apples"},
			keep: []string{"OutputParserException: could not parse"},
		},
		{
			name: "a user's request after the work that failed",
			in:   `worker-3 gave up after 4 attempts on job 8812 while summarising 'please tidy my notes from the landlord meeting about the damp bathroom'`,
			gone: []string{"tidy my notes from the landlord", "damp bathroom"},
			keep: []string{"worker-3 gave up after 4 attempts on job 8812"},
		},
		{
			name: "a retrieved passage in a trace, ANSI colours around it",
			in:   "> Finished retriever.\n\x1b[32mThe orchard cooperative ships pears to Lisbon every Tuesday before dawn.\x1b[0m\nlatency_ms=412",
			gone: []string{"orchard cooperative ships pears to Lisbon"},
			keep: []string{"latency_ms=412", "> Finished retriever."},
		},
		{
			name: "identifiers between content's words stay",
			in:   `rerank failed for doc_8812 (chunk 3): "our grandmother's walnut cake recipe needs brown sugar, cinnamon and 200 grams of flour"`,
			gone: []string{"grandmother's walnut cake recipe", "brown sugar, cinnamon"},
			keep: []string{"rerank failed for doc_8812 (chunk 3)", "200"},
		},
		{
			name: "a Chinese request",
			in:   "ERROR chat: upstream 500 for query=帮我把这份采购合同翻译成英文并标出付款条款 trace=t-77",
			gone: []string{"采购合同翻译成英文"},
			keep: []string{"ERROR chat: upstream 500", "trace=t-77"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := redact.String(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Errorf("content survived: %q\nout: %s", g, out)
				}
			}
			for _, k := range c.keep {
				if !strings.Contains(out, k) {
					t.Errorf("lost %q\nout: %s", k, out)
				}
			}
			if again := redact.String(out); again != out {
				t.Errorf("not idempotent:\n once: %s\ntwice: %s", out, again)
			}
		})
	}
}

// A system's sentences are the operator's: failures of databases, clouds,
// networks, schedulers and payment APIs, in words the vocabulary never
// listed one by one.
func TestProseOfSystemsStays(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`pq: duplicate key value violates unique constraint "items_pkey"`,
		"dial tcp 10.0.3.7:5432: connect: connection refused",
		"The security token included in the request is expired",
		"Your card was declined. The card does not have sufficient funds to complete the purchase.",
		"Back-off restarting failed container llm in pod triage-llm-7f9c8d6b5-x2k4q",
		"The server is currently unable to handle the request due to a temporary overload or maintenance.",
		"Service Unavailable: the upstream did not respond before the deadline; will retry in 30s",
		"Request was throttled. Expected available in 12 seconds.",
		"请求过于频繁，请稍后再试",
		"Die Anfrage ist fehlgeschlagen: Zeitüberschreitung",
	} {
		if got := redact.String(s); got != s {
			t.Errorf("a system's sentence changed:\n in: %s\nout: %s", s, got)
		}
	}
}
