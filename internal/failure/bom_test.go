package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestBodyAfterAByteOrderMark: servers written on some stacks (.NET, a
// proxy that re-encodes) start a UTF-8 body with a byte-order mark. The
// mark is not the body's first character: a JSON error after it is read as
// JSON, and an HTML page after it is still a page, not a message.
func TestBodyAfterAByteOrderMark(t *testing.T) {
	t.Parallel()
	const bom = "\xef\xbb\xbf"
	json := `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`
	for name, body := range map[string]string{"plain": json, "after a BOM": bom + json, "after a BOM and a newline": bom + "\n" + json} {
		cl := failure.Classify(&failure.HTTPError{Provider: failure.OpenAI, Stage: work.LLM, Op: "chat.completions", Status: 400, Body: []byte(body)})
		if cl.Class != work.TokenLimit || cl.Code != "context_length_exceeded" {
			t.Errorf("%s: %s %q, want TOKEN_LIMIT context_length_exceeded", name, cl.Class, cl.Code)
		}
		facts := failure.FactsOf(&failure.HTTPError{Provider: failure.OpenAI, Stage: work.LLM, Op: "chat.completions", Status: 400, Body: []byte(body)})
		if facts.Message != "This model's maximum context length is 128000 tokens." {
			t.Errorf("%s: the provider's message read is %q", name, facts.Message)
		}
	}
	page := bom + "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1>retry after 5 seconds</body></html>"
	ev := failure.FactsOf(&failure.HTTPError{Provider: "hooks.example", Stage: work.Notify, Op: "POST webhook", Status: 502, Body: []byte(page)})
	if ev.Message != "" {
		t.Errorf("an HTML page after a BOM was read as the message %q", ev.Message)
	}
}
