package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundNine holds members of the families holdout round 9
// showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's.
func TestFamiliesOfRoundNine(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"AWS throttling as a 403":    {failure.Evidence{Provider: "sqs", Status: 403, Text: "RequestThrottled: Request is throttled."}, rl},
		"AWS 403 without the rate":   {failure.Evidence{Provider: "sqs", Status: 403, Text: "AccessDenied: not authorized to perform sqs:SendMessage"}, ad},
		"a status in brackets":       {failure.Evidence{Provider: "acme", Stage: work.LLM, Text: "upstream failed [404]: model gpt-9 not found"}, ce},
		"RPM words":                  {failure.Evidence{Provider: "acme", Stage: work.LLM, Text: "organization max TPM: 40000 reached"}, rl},
		"aiohttp's bare exception":   {failure.Evidence{Stage: work.Fetch, Text: "aiohttp.client_exceptions.ClientConnectorError: None"}, nt},
		"Chromium's net error":       {failure.Evidence{Stage: work.Fetch, Text: "Error: net::ERR_CONNECTION_RESET at https://example.org/a"}, nt},
		"Chromium's certificate":     {failure.Evidence{Stage: work.Fetch, Text: "Error: net::ERR_CERT_DATE_INVALID at https://example.org/a"}, ad},
		"structured output not JSON": {failure.Evidence{Provider: "acme", Stage: work.LLM, Text: "could not read the model's output as JSON: unexpected token"}, failure.ResponseInvalid},
		"no finish reason":           {failure.Evidence{Provider: "acme", Stage: work.LLM, Text: "stream closed without a finish reason"}, failure.ResponseInvalid},
		"a receiver's http_code":     {failure.Evidence{Provider: "mattermost", Stage: work.Notify, Text: `{"msg":"Unable to parse incoming data.","http_code":400}`}, si},
	})
}
