package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundEleven holds members of the families holdout round 11
// showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's.
func TestFamiliesOfRoundEleven(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"an SMTP reply's dash, a mailbox":      {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "550-Mailbox unavailable, recipient rejected"}, nf},
		"an SMTP reply's enhanced code, login": {failure.Evidence{Provider: "mailer", Stage: work.Notify, Text: "send failed: 535 5.7.8 Username and Password not accepted"}, ad},
		"an SMTP daily limit":                  {failure.Evidence{Provider: "mailer", Stage: work.Notify, Text: "javax.mail.SendFailedException: 554 5.4.6 Daily sending limit exceeded for this sender"}, failure.BudgetExceeded},
		"an SMTP server busy":                  {failure.Evidence{Provider: "mailer", Stage: work.Notify, Text: "451 4.3.0 Mail server temporarily rejected message"}, failure.UpstreamUnavailable},
		"botocore cannot reach the endpoint":   {failure.Evidence{Provider: "dynamodb", Text: "botocore.exceptions.ConnectTimeoutError: Connect timeout on endpoint URL: \"https://dynamodb.eu-west-1.amazonaws.com/\""}, nt},
		"botocore's closed connection":         {failure.Evidence{Provider: "s3", Text: "ConnectionClosedError: Connection was closed before we received a valid response from endpoint URL"}, nt},
		"a body cut short (http.client)":       {failure.Evidence{Stage: work.Fetch, Text: "http.client.IncompleteRead: IncompleteRead(5120 bytes read)"}, nt},
		"requests' chunked encoding":           {failure.Evidence{Stage: work.Fetch, Text: "requests.exceptions.ChunkedEncodingError: ('Connection broken: InvalidChunkLength(got length b'', 0 bytes read)'"}, nt},
		"the AI SDK's object not generated":    {failure.Evidence{Provider: "groq", Stage: work.LLM, Text: "AI_NoObjectGeneratedError: No object generated: could not parse the response."}, failure.ResponseInvalid},
		"the AI SDK's type validation":         {failure.Evidence{Provider: "groq", Stage: work.LLM, Text: "AI_TypeValidationError: Type validation failed: Value: {\"title\":null}"}, failure.ResponseInvalid},
		"a status after a call's parenthesis":  {failure.Evidence{Provider: "together", Stage: work.LLM, Text: "request failed (try 2 of 3): 404 Model not served here"}, ce},
		"a labelled errorCode in an inspect":   {failure.Evidence{Provider: "feeds", Stage: work.Fetch, Text: "#<Client::Error errorCode=502 errorMessage=\"upstream went away\">"}, failure.UpstreamUnavailable},
	})
}
