package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundSeven holds members of the families holdout round 7
// showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's: each case could fail the way the round's line did.
func TestFamiliesOfRoundSeven(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		// An errno name is a word: a code that holds its letters is not it.
		"ResourceNotFound is no ENOTFOUND": {failure.Evidence{Provider: "azure-blob", Stage: work.Fetch,
			Text: "ResourceNotFoundError: The specified container does not exist. ErrorCode:ContainerNotFound"}, nf},
		"ENOTFOUND still is": {failure.Evidence{Stage: work.Fetch, Text: "Error: getaddrinfo ENOTFOUND feeds.example.org"}, nt},
		// AWS's deployment defects decide nothing from a source that is not AWS.
		"GCS NotFoundException at fetch": {failure.Evidence{Provider: "gcs", Stage: work.Fetch,
			Text: "google.api_core.exceptions.NotFoundException: 404 GET https://storage.googleapis.com/b/o: No such object"}, nf},
		"the same code from DynamoDB": {failure.Evidence{Provider: "dynamodb", Text: "ResourceNotFoundException: Requested resource not found"}, ib},
		// A source's 403 whose words say the rate is a rate; other words keep the 403.
		"GitHub's 403 rate limit": {failure.Evidence{Provider: "http", Stage: work.Fetch, Status: 403,
			Body: []byte(`{"message":"API rate limit exceeded for installation ID 1234."}`)}, rl},
		"a 403 that says forbidden": {failure.Evidence{Provider: "http", Stage: work.Fetch, Status: 403,
			Body: []byte(`{"message":"Resource not accessible by integration"}`)}, ad},
		// A program that panicked on an upstream's error: the error decides.
		"panic on an AWS code":  {failure.Evidence{Text: "panic: ThrottlingException: Rate exceeded\n\ngoroutine 1 [running]:"}, rl},
		"panic on a nil map":    {failure.Evidence{Text: "panic: assignment to entry in nil map\n\ngoroutine 7 [running]:"}, ib},
		"panic with a sentence": {failure.Evidence{Text: "panic: something went wrong: AccessDenied"}, ib},
		// A gateway's generic message over the upstream's own answer.
		"OpenRouter metadata.raw": {failure.Evidence{Provider: "openrouter", Stage: work.LLM, Status: 400,
			Body: []byte(`{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}","provider_name":"Anthropic"}}}`)}, tl},
		"OpenRouter raw text": {failure.Evidence{Provider: "openrouter", Stage: work.LLM, Status: 400,
			Body: []byte(`{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"maximum context length is 8192 tokens"}}}`)}, tl},
		// A status glued to "failed" in parentheses, read by the role.
		"failed(404) at fetch":  {failure.Evidence{Stage: work.Fetch, Text: "download feed failed(404): https://example.org/rss"}, nf},
		"failed (503) at fetch": {failure.Evidence{Stage: work.Fetch, Text: "fetch failed (503) after 2 tries"}, uu},
		// Words: length per request, money overdue, NSFW, a form body, Python's JSON.
		"tokens per request": {failure.Evidence{Provider: "openai", Stage: work.LLM, Status: 400,
			Body: []byte(`{"error":{"message":"Requested 9000 tokens, max 8192 tokens per request","type":"invalid_request_error"}}`)}, tl},
		"an account overdue": {failure.Evidence{Provider: "acme-llm", Stage: work.LLM, Status: 400,
			Body: []byte(`{"error":{"message":"Your account has an overdue bill"}}`)}, be},
		"Arrearage":          {failure.Evidence{Provider: "qwen", Stage: work.LLM, Status: 400, Body: []byte(`{"code":"Arrearage","message":"Access denied."}`)}, be},
		"NSFW at the llm":    {failure.Evidence{Provider: "acme-img", Stage: work.LLM, Text: "NSFW content detected in the output"}, cp},
		"Invalid Form Body":  {failure.Evidence{Provider: "discord", Stage: work.Notify, Text: "DiscordAPIError: Invalid Form Body\nembeds[0].description: Must be 4096 or fewer in length."}, si},
		"Python's JSON, llm": {failure.Evidence{Provider: "gemini", Stage: work.LLM, Text: "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 9 (char 8)"}, failure.ResponseInvalid},
		"curl 60":            {failure.Evidence{Stage: work.Fetch, Text: "curl: (60) Peer certificate cannot be authenticated with given CA certificates"}, ad},
		"ofetch no response": {failure.Evidence{Stage: work.Fetch, Text: `[GET] "https://example.org/feed": <no response> fetch failed`}, nt},
		"SNS InvalidParameter": {failure.Evidence{Provider: "aws",
			Text: "An error occurred (InvalidParameter) when calling the Publish operation: Invalid parameter: TopicArn"}, ib},
	})
}
