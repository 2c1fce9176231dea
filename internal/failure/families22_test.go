package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundTwentyTwo holds members of the family holdout round 22
// showed (cmd/triage/testdata/corpus/README.md) — a permission the caller
// lacks, named however the service names it — in wordings other than the
// round's, and what the rule must leave alone.
func TestFamiliesOfRoundTwentyTwo(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"a service account lacking an IAM permission": {failure.Evidence{Provider: "pubsub", Stage: work.Notify, Text: "rpc: the caller does not have pubsub.topics.publish access to topic alerts"}, ad},
		"a bucket with no read access":                {failure.Evidence{Provider: "minio", Stage: work.Fetch, Text: "reader-svc has no read-only access to bucket exports"}, ad},
		"doesn't have … permission":                   {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"message":"the bot doesn't have the manage_messages permission in this guild"}`)}, ad},
		"a permission named with hyphens":             {failure.Evidence{Stage: work.Fetch, Text: "principal does not have blob-data-reader access on container feeds"}, ad},
		// what the rule leaves alone
		"punctuation ends the run":      {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"message":"payload does not have a title; access the docs for the schema"}`)}, si},
		"a lack of anything else":       {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"message":"the embed does not have a valid color value"}`)}, si},
		"a rate's 403 stays the rate's": {failure.Evidence{Provider: "github", Stage: work.Fetch, Status: 403, Body: []byte(`{"message":"API rate limit exceeded for installation; it has no remaining access until reset"}`)}, rl},
	})
}
