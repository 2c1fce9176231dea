package redact_test

import (
	"encoding/json"
	"testing"
)

// TestProseUnderUnknownKeys judges free text under keys that say nothing
// of it (testdata/planted/prose-under-unknown-keys.json) in text, in JSON
// documents and in decoded values.
func TestProseUnderUnknownKeys(t *testing.T) {
	t.Parallel()
	eachEveryWay(t, plantedCases(t, "prose-under-unknown-keys"), true)
}

// TestSummaryBesideContent judges a summary beside the content it
// summarizes (testdata/planted/summaries.json) in text and in JSON
// documents, and, in decoded values, by its secrets alone.
func TestSummaryBesideContent(t *testing.T) {
	t.Parallel()
	for _, c := range plantedCases(t, "summaries") {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.everyWay(t, false)
			// Value's output is compact JSON: only the secrets are sought.
			if json.Valid([]byte(c.in)) {
				planted{secrets: c.secrets}.check(t, "Value", valueOf(t, c.in))
			}
		})
	}
}
