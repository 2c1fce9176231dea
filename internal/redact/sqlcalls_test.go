package redact_test

import "testing"

// modelCallCases hold prompts passed as SQL literals to a function that
// asks a model for text (docs/design.md "Redaction", 1), in other
// warehouses' and extensions' wordings than the holdout rounds'.
var modelCallCases = []planted{
	{
		name:    "Databricks ai_query",
		in:      "[AI_FUNCTION_HTTP_REQUEST_ERROR] SELECT ai_query('databricks-meta-llama-3-3-70b-instruct', 'Extract the delivery postcode and the preferred day from this note: ' || note) FROM crm.notes",
		secrets: []string{"Extract the delivery postcode and the preferred day"},
		keep:    []string{"databricks-meta-llama-3-3-70b-instruct", "FROM crm.notes", "AI_FUNCTION_HTTP_REQUEST_ERROR"},
	},
	{
		name:    "pgai's chat call with a nested format()",
		in:      "ERROR:  rate limited\nSTATEMENT:  SELECT openai_chat_complete('gpt-4o-mini', jsonb_build_array(jsonb_build_object('role', 'user', 'content', format('Write a two line product blurb for %s aimed at cyclists', name))))",
		secrets: []string{"two line product blurb"},
		keep:    []string{"'gpt-4o-mini'", "'role', 'user'", "ERROR:  rate limited"},
	},
	{
		name: "a query's literals outside a model call stay",
		in:   "SELECT id FROM orders WHERE note = 'leave it with the porter please' AND upper(status) = 'OPEN'",
		keep: []string{"'leave it with the porter please'", "'OPEN'"},
	},
}

func TestModelCallLiterals(t *testing.T) {
	stringCases(t, modelCallCases)
}
