package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundFifteen holds members of the families holdout round
// 15 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's, and the number that is no status beside them.
func TestFamiliesOfRoundFifteen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"an invalid model, no status":      {failure.Evidence{Provider: "fireworks", Stage: work.LLM, Text: "Error: Invalid model 'accounts/x/models/gone-7b'"}, ce},
		"a mailer's refused login":         {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "SMTP Error: Could not authenticate. Invalid login"}, ad},
		"a log's code= before a transport": {failure.Evidence{Provider: "rocketchat", Stage: work.Notify, Text: "webhook rejected code=400 msg=\"bad payload\" err=unexpected EOF"}, si},
		"a transport failure with no code": {failure.Evidence{Provider: "rocketchat", Stage: work.Notify, Text: "webhook post: unexpected EOF"}, nt},
		"S3's message without its code":    {failure.Evidence{Provider: "aws", Text: "copy failed: The specified bucket does not exist"}, nf},
		"a port in brackets is no status":  {failure.Evidence{Stage: work.Fetch, Text: "connect timed out to feeds.example.org (port 443) after 30000ms"}, nt},
	})
}
