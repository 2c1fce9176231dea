package redact_test

import "testing"

// TestRoundNineFamilies holds members of the families redaction holdout
// round 9 showed (testdata/holdout/README.md), in wordings other than the
// round's: a webhook's secret in an access log's request line, an
// Ansible Vault's payload, a rendered prompt's paragraphs after its label.
func TestRoundNineFamilies(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "a hook's token in an Apache request line",
			in:      `203.0.113.9 - - [02/Mar/2026:08:00:01 +0000] "PUT /hooks/catch/6fe1c2d8a9b04e3f8c7d6e5f4a3b2c1d HTTP/2.0" 200 12`,
			secrets: []string{"6fe1c2d8a9b04e3f8c7d6e5f4a3b2c1d"},
			keep:    []string{"PUT /hooks/catch/", "HTTP/2.0\" 200 12"},
		},
		{
			name: "a resource id after a collection stays",
			in:   `"GET /api/orders/9b1e4c2a-7d3f-4e8a-b6c5-1f2e3d4c5b6a HTTP/1.1" 404 0`,
			keep: []string{"9b1e4c2a-7d3f-4e8a-b6c5-1f2e3d4c5b6a"},
		},
		{
			name: "an Ansible Vault's payload",
			in: "smtp_password: !vault |\n      $ANSIBLE_VAULT;1.2;AES256;prod\n      3938386364613061653231366430383139633836326665376632383736376365\n" +
				"      6233626537646538356636383162393730613433386161650a3733363735\n",
			secrets: []string{"3938386364613061653231366430383139633836326665376632383736376365", "6233626537646538356636383162393730613433386161650a3733363735"},
			keep:    []string{"$ANSIBLE_VAULT;1.2;AES256;prod"},
		},
		{
			name: "a rendered prompt's paragraphs",
			in: "Prompt after formatting:\nAnswer from the notes only.\n\nThe tenant reported damp in the north bedroom twice this winter.\n\n" +
				"Question: Was the damp reported?\n\n> Finished chain.",
			secrets: []string{"damp in the north bedroom", "Answer from the notes only"},
			keep:    []string{"Prompt after formatting:"},
		},
	})
}
