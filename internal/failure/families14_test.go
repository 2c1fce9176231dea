package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundFourteen holds members of the families holdout round
// 14 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's.
func TestFamiliesOfRoundFourteen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"money under a rate's code": {failure.Evidence{Provider: "gateway", Stage: work.LLM, Status: 429,
			Body: []byte(`{"error":{"type":"rate_limit_error","message":"Account is out of credits, please recharge"}}`)}, failure.BudgetExceeded},
		"money under a permission's code":   {failure.Evidence{Provider: "grok", Stage: work.LLM, Text: "rpc error: code = PermissionDenied desc = this team has no credits yet"}, failure.BudgetExceeded},
		"a permission's code, no money":     {failure.Evidence{Provider: "grok", Stage: work.LLM, Text: "rpc error: code = PermissionDenied desc = the API key is not allowed to use this model"}, ad},
		"a token count over the limit":      {failure.Evidence{Provider: "proxy", Stage: work.LLM, Text: "input token count of 210000 exceeds the model's window"}, tl},
		"vLLM's maximum model length":       {failure.Evidence{Provider: "vllm", Stage: work.LLM, Text: "This model's maximum model length is 8192, but the prompt has 9000"}, tl},
		"openai-node's status code words":   {failure.Evidence{Provider: "lark", Stage: work.Notify, Text: "send failed: 410 status code (no body)"}, nf},
		"requests' raise_for_status":        {failure.Evidence{Stage: work.Fetch, Text: "503 Server Error: Service Unavailable for url: https://example.org/rss"}, failure.UpstreamUnavailable},
		"a status in a provider's brackets": {failure.Evidence{Provider: "moonshot", Stage: work.LLM, Text: "请求失败（Moonshot 401）：invalid authentication"}, ad},
		"Chinese words of a rate":           {failure.Evidence{Provider: "qianfan", Stage: work.LLM, Text: "QianfanError: 请求过多，请降低频率"}, rl},
		"rate words of a ramp":              {failure.Evidence{Provider: "dashscope", Stage: work.LLM, Text: "Throttling: requests arriving too quickly for this model"}, rl},
		"a model that did not answer JSON":  {failure.Evidence{Provider: "ollama", Stage: work.LLM, Text: "ValueError: 'mistral' did not respond with valid JSON"}, failure.ResponseInvalid},
		"no text in the answer":             {failure.Evidence{Provider: "vertex", Stage: work.LLM, Text: "ValueError: Cannot get the response text. Candidate has no parts."}, failure.ResponseInvalid},
		"a receiver's unparseable payload":  {failure.Evidence{Provider: "telegram", Stage: work.Notify, Text: "Bad Request: can't parse message text: unsupported start tag"}, si},
		"protobuf text of a zero quota": {failure.Evidence{Provider: "gemini", Stage: work.LLM, Status: 429,
			Text: "429 Quota exceeded for quota metric 'requests per minute' [reason: \"RATE_LIMIT_EXCEEDED\"\nmetadata {\n  key: \"quota_limit_value\"\n  value: \"0\"\n}\n]"}, failure.BudgetExceeded},
		"Slack's blocks too long": {failure.Evidence{Provider: "slack", Stage: work.Notify, Text: `{"ok":false,"error":"msg_blocks_too_long"}`}, si},
	})
}
