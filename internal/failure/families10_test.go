package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundTen holds members of the families holdout round 10
// showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's.
func TestFamiliesOfRoundTen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"an SDK's exception named like an AWS defect": {failure.Evidence{Provider: "slack", Stage: work.Notify, Text: "slack_sdk.errors.NotFound: 404 Not Found: channel_not_found"}, nf},
		"a status with its reason phrase, dashed":     {failure.Evidence{Provider: "ntfy", Stage: work.Notify, Text: "publish failed: 413 - Request Entity Too Large"}, si},
		"a status with its reason phrase, colon":      {failure.Evidence{Provider: "rss", Stage: work.Fetch, Text: "feed host said 502: Bad Gateway"}, failure.UpstreamUnavailable},
		"a number before other words is no status":    {failure.Evidence{Provider: "rss", Stage: work.Fetch, Text: "parsed 404 Not many entries this time"}, failure.Unknown},
		"curl's message behind PHP's prefix":          {failure.Evidence{Stage: work.Fetch, Text: "cURL error 7: Couldn't connect to server"}, nt},
		"curl's message behind a locale's prefix":     {failure.Evidence{Stage: work.Fetch, Text: "Erreur lors du téléchargement : Failed sending data to the peer"}, nt},
		"curl's handshake with no verdict":            {failure.Evidence{Stage: work.Fetch, Text: "curl: (35) SSL connect error"}, nt},
		"a JDK alert with no verdict":                 {failure.Evidence{Stage: work.Notify, Provider: "webhook", Text: "javax.net.ssl.SSLException: Received fatal alert: protocol_version"}, nt},
		"a JDK alert about a certificate":             {failure.Evidence{Stage: work.Notify, Provider: "webhook", Text: "javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_unknown"}, ad},
		"an SMTP 550 that names a daily quota":        {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "smtp: 550 5.7.1 Daily sending quota exceeded for this account"}, failure.BudgetExceeded},
		"an SMTP 550 that names no mailbox":           {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "smtp: 550 5.1.1 no such user here"}, nf},
		"Google's quota limit of 0 in ErrorInfo": {failure.Evidence{Provider: "vertex", Stage: work.LLM, Status: 429,
			Body: []byte(`{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","metadata":{"quota_limit":"OnlinePredictionRequestsPerMinutePerProjectPerRegion","quota_limit_value":"0"}}]}}`)}, failure.BudgetExceeded},
		"Google's nonzero quota limit in ErrorInfo": {failure.Evidence{Provider: "vertex", Stage: work.LLM, Status: 429,
			Body: []byte(`{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","metadata":{"quota_limit":"OnlinePredictionRequestsPerMinutePerProjectPerRegion","quota_limit_value":"60"}}]}}`)}, rl},
		"a labelled Google status in prose":     {failure.Evidence{Provider: "vertex", Stage: work.LLM, Text: "request failed, status: UNAVAILABLE, try later"}, failure.UpstreamUnavailable},
		"a receiver's frequency words":          {failure.Evidence{Provider: "dingtalk", Stage: work.Notify, Text: `{"errcode":130101,"errmsg":"send too frequently"}`}, rl},
		"a source's thing that cannot be found": {failure.Evidence{Stage: work.Fetch, Text: "The requested sitemap cannot be found on this server"}, nf},
		"a gateway's sensitive-word refusal":    {failure.Evidence{Provider: "relay", Stage: work.LLM, Status: 400, Body: []byte(`{"error":{"message":"input contains sensitive words","code":"sensitive_words"}}`)}, cp},
		"AWS's length check of the body":        {failure.Evidence{Provider: "bedrock", Stage: work.LLM, Text: "ValidationException: 1 validation error detected: Value at 'body' failed to satisfy constraint: Member must have length less than or equal to 25000000"}, tl},
		"AWS's length check of a parameter":     {failure.Evidence{Provider: "bedrock", Stage: work.LLM, Text: "ValidationException: 1 validation error detected: Value at 'modelId' failed to satisfy constraint: Member must have length less than or equal to 2048"}, ce},
		"a parser of the model's output":        {failure.Evidence{Provider: "mistral", Stage: work.LLM, Text: "failed to decode the completion: invalid character 'T' looking for beginning of value"}, failure.ResponseInvalid},
		"serde on the model's output":           {failure.Evidence{Provider: "ollama", Stage: work.LLM, Text: "Error(\"EOF while parsing an object\", line: 1, column: 812)"}, failure.ResponseInvalid},
	})
}
