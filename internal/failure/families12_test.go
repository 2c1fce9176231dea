package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundTwelve holds members of the families holdout round 12
// showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's.
func TestFamiliesOfRoundTwelve(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"a receiver's exceeded limit":              {failure.Evidence{Provider: "gotify", Stage: work.Notify, Text: `{"error":"client has exceeded its limit of 500 messages"}`}, rl},
		"a receiver's count per day":               {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "server said: relaying refused, at most 50 emails per day for this account"}, failure.BudgetExceeded},
		"a glued AWS denial":                       {failure.Evidence{Provider: "lambda", Text: "KMS Exception: AccessDeniedExceptionKMS Message: not allowed to use the key"}, ad},
		"a Rust panic around a transport error":    {failure.Evidence{Provider: "anthropic", Stage: work.LLM, Text: "thread 'tokio-runtime-worker' panicked at src/client.rs:88:14:\ncalled `Result::unwrap()` on an `Err` value: hyper::Error(Connect, ConnectError(\"tcp connect error\", Os { code: 111, kind: ConnectionRefused }))"}, failure.InternalBug},
		"Go's fatal runtime error":                 {failure.Evidence{Provider: "openai", Stage: work.LLM, Text: "fatal error: concurrent map writes"}, failure.InternalBug},
		"a log's empty completion":                 {failure.Evidence{Provider: "mistral", Stage: work.LLM, Text: "WARN enrich: empty_completion model=mistral-small stop_reason=max_tokens"}, failure.ResponseInvalid},
		"getaddrinfo's EAI_AGAIN":                  {failure.Evidence{Provider: "relay", Stage: work.LLM, Text: `{"code":-1,"message":"getaddrinfo EAI_AGAIN api.example-llm.cn"}`}, nt},
		"a sampling parameter refused":             {failure.Evidence{Provider: "deepseek", Stage: work.LLM, Text: "top_p must be 1 when using this reasoning model"}, ce},
		"a chat API's payload code":                {failure.Evidence{Provider: "slack", Stage: work.Notify, Text: `slack error: {'ok': False, 'error': 'msg_too_long'}`}, si},
		"a receiver's length words":                {failure.Evidence{Provider: "teams", Stage: work.Notify, Text: "card rejected: text must be less than 28 KB"}, si},
		"Ruby's response class after a status":     {failure.Evidence{Stage: work.Fetch, Text: "Mechanize::ResponseCodeError: 503 => Net::HTTPServiceUnavailable for https://example.org/feed"}, failure.UpstreamUnavailable},
		"Spring's status constant":                 {failure.Evidence{Stage: work.Fetch, Text: "org.springframework.web.client.HttpClientErrorException: 410 GONE"}, nf},
		"a status before a word that is no phrase": {failure.Evidence{Stage: work.Fetch, Text: "fetched 404 => NotTheSame as before"}, failure.Unknown},
	})
}
