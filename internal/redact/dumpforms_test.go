package redact_test

import "testing"

// dumpFormCases hold prompts printed by languages' own dump formats
// (docs/design.md "Redaction", 1): fields after ':' or a spaced '=', a
// message printed as a call with its role first, pairs written with '=>',
// a member with its type between name and string, a map keyed by roles.
// The languages' wordings and values are none of the holdout rounds'.
var dumpFormCases = []planted{
	{
		name:    "fields after ':' with no blank",
		in:      `call failed: CompletionArgs(model:mixtral-8x7b, prompt:List three risks of storing the spare keys under the doormat, seed:7)`,
		secrets: []string{"spare keys under the doormat"},
		keep:    []string{"model:mixtral-8x7b", "seed:7)"},
	},
	{
		name:    "fields after ': '",
		in:      `W/app: enqueue: Turn(speaker: assistant, text: Your parcel will arrive between nine and noon tomorrow, ts: 1767225600)`,
		secrets: []string{"parcel will arrive between nine and noon"},
		keep:    []string{"speaker: assistant", "ts: 1767225600)"},
	},
	{
		name:    "a record with spaced '='",
		in:      `Posting ChatTurn { Author = customer, Prompt = Translate the lease clause about subletting into plain Spanish, Tokens = 212 } failed`,
		secrets: []string{"lease clause about subletting"},
		keep:    []string{"Author = customer", "Tokens = 212 }"},
	},
	{
		name:    "a message printed with its role first",
		in:      `retrying Conversation(Vector(ChatMessage("assistant", "Sure, the boiler service is booked for the fourth"), Message(Role.USER, plan a route past the old mill and back before dark)))`,
		secrets: []string{"boiler service is booked", "route past the old mill"},
		keep:    []string{"retrying Conversation(Vector(ChatMessage("},
	},
	{
		name:    "pairs written with '=>' and double quotes",
		in:      `payload = Dict("model" => "qwen2.5:14b", "prompt" => "Estimate the paint needed for a fence forty metres long")`,
		secrets: []string{"paint needed for a fence"},
		keep:    []string{`"model" => "qwen2.5:14b"`},
	},
	{
		name:    "a member with its type between name and string",
		in:      " $ query : chr \"which of the pumps in hall B failed its pressure test last week\"\n $ engine: chr \"sonar-small\"\n",
		secrets: []string{"pumps in hall B failed"},
		keep:    []string{`$ engine: chr "sonar-small"`},
	},
	{
		name:    "a map keyed by roles",
		in:      "turns: Map(2) {\n  \"assistant\" => \"I have moved your dentist appointment to Tuesday\",\n  \"user\" => \"can you move my dentist appointment again please\"\n}",
		secrets: []string{"moved your dentist appointment", "move my dentist appointment again"},
	},
	{
		name: "a role's key over a login stays",
		in:   `owners: Map(2) { "user" => "ops-bot", "system" => "billing" }`,
		keep: []string{`"user" => "ops-bot"`},
	},
}

func TestDumpForms(t *testing.T) {
	stringCases(t, dumpFormCases)
}

// markdownTurnCases hold chat logs written in Markdown (docs/design.md
// "Redaction", 1: a transcript's turns), in other tools' wordings.
var markdownTurnCases = []planted{
	{
		name:    "headings that name a turn",
		in:      "# session 2026-02-01\n\nModel: `mistral-small`\n\n## User message\n\nDraft a note to the landlord about the damp in the bathroom ceiling.\n\n## Answer\n\nDear Mr Price, the damp patch in the bathroom ceiling has grown.\n",
		secrets: []string{"damp in the bathroom ceiling", "Dear Mr Price"},
		keep:    []string{"Model: `mistral-small`", "# session 2026-02-01"},
	},
	{
		name:    "a turn written as a heading, the tool's quoted output after it",
		in:      "### please rename the helper so that it says what it parses\n\nI renamed `parse` to `parseInvoiceLine` in all three callers.\n\n> Applied edit to billing/lines.go\n> Tokens: 2.1k sent, 300 received.\n",
		secrets: []string{"rename the helper so that it says", "renamed `parse` to `parseInvoiceLine`"},
		keep:    []string{"> Applied edit to billing/lines.go", "Tokens: 2.1k sent, 300 received."},
	},
	{
		name: "a document's headings stay",
		in:   "## Summary\n\nThe nightly export failed twice.\n\n## Next steps\n\nRe-run the export after the schema fix.\n",
		keep: []string{"The nightly export failed twice.", "Re-run the export after the schema fix."},
	},
}

func TestMarkdownTurns(t *testing.T) {
	t.Parallel()
	stringCases(t, markdownTurnCases)
}

// promptFlagCases hold a prompt given on a command line, a run's
// statistics after a label of content, and a model's output as a YAML-like
// line (docs/design.md "Redaction", 1), in other tools' wordings.
var promptFlagCases = []planted{
	{
		name:    "a prompt flag and a system prompt flag",
		in:      "+ llama-cli -m models/phi-3.gguf --system-prompt 'You answer as the purser of a ferry' --prompt=\"List the cabins that still need fresh linen today\" -n 128\n",
		secrets: []string{"purser of a ferry", "cabins that still need fresh linen"},
		keep:    []string{"-m models/phi-3.gguf", "-n 128"},
	},
	{
		name: "a run's statistics after a label of content",
		in:   "Prompt: 57 tokens, 312.5 tokens-per-sec\nCompletion: 210 tokens, 28.4 tokens-per-sec\nPeak RSS: 9.1 GB\n",
		keep: []string{"57 tokens, 312.5 tokens-per-sec", "210 tokens, 28.4 tokens-per-sec", "Peak RSS: 9.1 GB"},
	},
	{
		name:    "a model's output as a line of a record",
		in:      "event: generation.done\nmodel: qwen2.5-7b\noutput: 'Der Zug nach Basel fällt heute wegen Bauarbeiten aus.'\nlatency_ms: 812\n",
		secrets: []string{"Der Zug nach Basel"},
		keep:    []string{"event: generation.done", "latency_ms: 812"},
	},
	{
		name: "an output setting stays",
		in:   "output: json\n# kubectl get pods -> error: You must be logged in to the server (Unauthorized)\n",
		keep: []string{"output: json", "You must be logged in to the server"},
	},
}

func TestPromptFlags(t *testing.T) {
	t.Parallel()
	stringCases(t, promptFlagCases)
}

// labelledDumpCases hold a dump after a label of content: the dump's
// fields are judged one by one (docs/design.md "Redaction", 1).
var labelledDumpCases = []planted{
	{
		name:    "a completion printed as a dump after its label",
		in:      "2026-02-01 08:00:00 Model output: AssistantReply(text='Your booking for two at eight is confirmed', reply_id='rep_55Qx', finish='stop')\n",
		secrets: []string{"booking for two at eight"},
		keep:    []string{"reply_id='rep_55Qx'", "finish='stop'"},
	},
	{
		name:    "a dump that names no content field goes whole",
		in:      "2026-02-01 08:00:00 Rendered prompt: PromptValue(value='Write to the tenant about the boiler visit')\n",
		secrets: []string{"tenant about the boiler visit"},
	},
}

func TestLabelledDumps(t *testing.T) {
	t.Parallel()
	stringCases(t, labelledDumpCases)
}
