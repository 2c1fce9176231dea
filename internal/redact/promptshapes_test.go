package redact_test

import "testing"

// promptShapeCases hold prompts in shapes no key-value separator names —
// a property list's padded names, a template's bracketed tags, Python's
// adjacent literals, an INSERT's columns, a parser's echo of its input, a
// content key's list after '=' — (docs/design.md "Redaction", 1 and 5), in
// other tools', vendors' and languages' wordings than the holdout rounds'.
var promptShapeCases = []planted{
	{
		name: "a query program's prompt between its decoder and its model",
		in: "query failed: TokenLimitExceeded\n  sample(temperature=0.8, n=2)\n    'Summarize the tenant complaint about the broken boiler in flat 3B:\\n'\n" +
			"    '[SUMMARY]'\n  from 'local:llama.cpp:mistral-7b.gguf'\n  where len(TOKENS(SUMMARY)) < 120\n",
		secrets: []string{"tenant complaint about the broken boiler"},
		keep:    []string{"sample(temperature=0.8, n=2)", "from 'local:llama.cpp:mistral-7b.gguf'", "where len(TOKENS(SUMMARY)) < 120"},
	},
	{
		name: "a decoder's word in prose opens no block",
		in:   "argmax\nselected the sample with the highest score\nfrom the batch",
		keep: []string{"selected the sample with the highest score"},
	},
	{
		name:    "Format-List of a turn, wrapped",
		in:      "PS> $body.input | Format-List\n\nrole : user\ntext : Draft a polite reminder to the landlord that the boiler has been broken\n       for three weeks now.\n\nPS> $r.StatusCode\n503",
		secrets: []string{"polite reminder to the landlord", "for three weeks now"},
		keep:    []string{"role : user", "PS> $r.StatusCode", "503"},
	},
	{
		name: "Format-List's own properties stay",
		in:   "StatusCode        : 429\nStatusDescription : Too Many Requests\nmessage           : Rate limit reached for requests in organization org-x\n",
		keep: []string{"Too Many Requests", "Rate limit reached for requests in organization org-x"},
	},
	{
		name:    "bracketed tags of a template",
		in:      "DEBUG render: [AVAILABLE_TOOLS][{\"name\":\"lookup\"}][/AVAILABLE_TOOLS][SYSTEM_PROMPT]Answer as a tax adviser for freelancers.[/SYSTEM_PROMPT][INST]Can I deduct my home office rent?[/INST][TOOL_RESULTS]the rent paid in 2025 was 9600 euros[/TOOL_RESULTS]\nDEBUG done in 12 ms",
		secrets: []string{"tax adviser for freelancers", "deduct my home office rent", "rent paid in 2025"},
		keep:    []string{"DEBUG done in 12 ms"},
	},
	{
		name: "a log's bracketed level and user tag stay",
		in:   "[USER] alice signed in from the mobile app\n[ERROR] upstream closed the stream early [/ERROR]",
		keep: []string{"alice signed in from the mobile app", "upstream closed the stream early"},
	},
	{
		name:    "pprint's wrapped literals",
		in:      "request=\n{'model': 'mistral-large-latest',\n 'prompt': 'Translate the tenancy agreement clause into plain English for '\n           'a tenant who is not a lawyer.',\n 'temperature': 0.2}",
		secrets: []string{"tenancy agreement clause", "not a lawyer"},
		keep:    []string{"mistral-large-latest", "'temperature': 0.2"},
	},
	{
		name:    "an INSERT's content and credential columns, several rows",
		in:      "ERROR:  value too long for type character varying(64)\nSTATEMENT:  insert into completions (request_id, completion, api_key) values ('r-1', 'Your parcel will arrive between nine and noon tomorrow', 'ak_live_93jf83JKd'), ('r-2', 'We could not find an order with that number', NULL)",
		secrets: []string{"parcel will arrive between nine", "could not find an order", "ak_live_93jf83JKd"},
		keep:    []string{"'r-1'", "'r-2'", "value too long for type character varying(64)", "insert into completions"},
	},
	{
		name:    "a parser's echo of its input",
		in:      `com.fasterxml.jackson.databind.exc.InvalidFormatException: Cannot deserialize value of type int from String "please summarise my last three bank statements": not a valid int value` + "\njava.lang.NumberFormatException: For input string: \"send the refund to my other account please\"\nInvalid value: 'express'",
		secrets: []string{"send the refund to my other account"},
		keep:    []string{"NumberFormatException", "Invalid value: 'express'"},
	},
	{
		name: "a template in a string, the model's turn left empty",
		in: `INFO llm_engine: Added request 7f3a: inputs='<|im_start|>system
You answer for a pharmacy.<|im_end|>
<|im_start|>user
Can I take ibuprofen with my blood thinners?<|im_end|>
<|im_start|>assistant
', sampling_params=SamplingParams(n=1, top_p=0.9), lora=None`,
		secrets: []string{"take ibuprofen with my blood thinners", "answer for a pharmacy"},
		keep:    []string{"sampling_params=SamplingParams(n=1, top_p=0.9), lora=None"},
	},
	{
		name:    "a content key's list after '='",
		in:      "ValidationError: [type=list_type, prompt_messages=[{'role': 'user', 'content': 'Which of my two pension pots has the lower fees?'}], input_type=str]",
		secrets: []string{"two pension pots has the lower fees"},
		keep:    []string{"type=list_type", "input_type=str"},
	},
}

func TestPromptShapes(t *testing.T) {
	stringCases(t, promptShapeCases)
}
