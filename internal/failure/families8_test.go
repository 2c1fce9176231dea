package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundEight holds members of the families holdout round 8
// showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's.
func TestFamiliesOfRoundEight(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		// A status after "error -", or before "error".
		"error - 410":   {failure.Evidence{Stage: work.Notify, Text: "Server error - 503 when posting to https://hooks.example.org/x"}, failure.UpstreamUnavailable},
		"a 404 error":   {failure.Evidence{Stage: work.Fetch, Text: "GET https://example.org/feed.xml - 404 error"}, nf},
		"not a status":  {failure.Evidence{Stage: work.Fetch, Text: "parsed 404 entries without error"}, failure.Unknown},
		"curl 52":       {failure.Evidence{Stage: work.Notify, Text: "curl: (52) Empty reply from server"}, nt},
		"Mint closed":   {failure.Evidence{Provider: "anthropic", Stage: work.LLM, Text: "** (Mint.TransportError) timeout"}, nt},
		"socket closed": {failure.Evidence{Stage: work.Fetch, Text: "read tcp: socket closed"}, nt},
		// A receiver's words of a limit: a rate per minute, a quota by its period.
		"a bot's rate":          {failure.Evidence{Provider: "feishu", Stage: work.Notify, Text: "code 9499: request too fast, 100 times per minute"}, rl},
		"a daily message quota": {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"error":"daily message quota exceeded"}`)}, be},
		"a quota, no period":    {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"error":"quota exceeded"}`)}, rl},
		// A mailer is a notice's receiver whatever stage is named.
		"SES not verified, no stage": {failure.Evidence{Provider: "ses", Text: "MessageRejected: Email address is not verified. The following identities failed the check in region EU-WEST-1: ops@example.org"}, ad},
		// A context that overflows is a length.
		"context overflow": {failure.Evidence{Provider: "lmstudio", Stage: work.LLM, Status: 400, Body: []byte(`{"error":"Context overflow: the prompt has 9000 tokens, the context 8192"}`)}, tl},
		// A client's question about a block says no block.
		"asked, not blocked":  {failure.Evidence{Provider: "gemini", Stage: work.LLM, Text: "ValueError: The `response.text` quick accessor only works when the response contains a valid `Part`, but none was returned. Check the `candidate.safety_ratings` to see if the response was blocked."}, failure.ResponseInvalid},
		"asked, then blocked": {failure.Evidence{Provider: "gemini", Stage: work.LLM, Text: "ValueError: The `response.parts` quick accessor only works for a single candidate, but none were returned. Check the `response.prompt_feedback` to see if the prompt was blocked.\nblock_reason: OTHER\nreason: SAFETY"}, cp},
	})
}
