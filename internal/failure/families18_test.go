package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundEighteen holds members of the families holdout round
// 18 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's, and what the new rules must leave alone.
func TestFamiliesOfRoundEighteen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"a status labelled error=":          {failure.Evidence{Provider: "gotify", Stage: work.Notify, Text: "notify failed: Unprocessable Entity, error=422."}, si},
		"a 5xx labelled error=":             {failure.Evidence{Provider: "ntfy", Stage: work.Notify, Text: "publish: upstream said no, error=503"}, uu},
		"error= with no status is no label": {failure.Evidence{Provider: "gotify", Stage: work.Notify, Text: "notify failed, error=4221 retries left"}, failure.Unknown},
		"a receiver's flood wait":           {failure.Evidence{Provider: "telegram", Stage: work.Notify, Text: "telethon.errors.FloodWaitError: A wait of 30 seconds is required"}, rl},
		"a service temporarily unavailable": {failure.Evidence{Provider: "wecom", Stage: work.Notify, Text: "send: Service temporarily unavailable, please try later"}, uu},
	})
}
