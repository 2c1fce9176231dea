package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundThirteen holds members of the families holdout round
// 13 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's.
func TestFamiliesOfRoundThirteen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"a receiver's access token refused":       {failure.Evidence{Provider: "dingtalk", Stage: work.Notify, Text: `{"errcode":40001,"errmsg":"invalid access_token"}`}, ad},
		"a window of tokens with a wait":          {failure.Evidence{Provider: "llama-host", Stage: work.LLM, Status: 429, Body: []byte(`{"detail":"Too many tokens in the current time frame, please wait and try again"}`)}, rl},
		"a request of too many tokens, no wait":   {failure.Evidence{Provider: "llama-host", Stage: work.LLM, Status: 429, Body: []byte(`{"detail":"This request exceeds the maximum number of tokens the model accepts"}`)}, tl},
		"an SMTP reply after response=":           {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "Message failed: response=450-4.2.1 The user you are trying to contact is receiving mail too quickly"}, failure.UpstreamUnavailable},
		"an SDK's error class of a provider code": {failure.Evidence{Provider: "slack", Stage: work.Notify, Text: "Slack::Web::Api::Errors::ChannelNotFound"}, nf},
		"a generic error class is no code":        {failure.Evidence{Provider: "slack", Stage: work.Notify, Text: "Slack::Web::Api::Errors::ApiError"}, failure.Unknown},
		"an access log's status after the quote":  {failure.Evidence{Stage: work.Fetch, Text: `DEBUG:urllib3.connectionpool:https://example.org:443 "GET /feed.xml HTTP/1.1" 502 0`}, failure.UpstreamUnavailable},
		"an exceeded limit before other words":    {failure.Evidence{Provider: "ses", Stage: work.Notify, Text: "Exceeded the monthly sending limit for this account. A review is required to raise it."}, failure.BudgetExceeded},
		"a connect prefix before an answer":       {failure.Evidence{Provider: "groq", Stage: work.LLM, Text: "Failed to connect to Groq API: 400 Bad Request {\"error\":{\"message\":\"unsupported value for response_format\"}}"}, ce},
		"a connect failure with no answer":        {failure.Evidence{Provider: "groq", Stage: work.LLM, Text: "Failed to connect to api.groq.com port 443: Connection timed out"}, nt},
		"a period on another line of a record":    {failure.Evidence{Provider: "ntfy", Stage: work.Notify, Text: "publish failed, unexpected HTTP status: 429 (\n\tvisitor_messages_limit=17280,\n\tvisitor_seen=today\n)"}, rl},
	})
}
