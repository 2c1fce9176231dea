package redact_test

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// The prose layer: a run of words that is not a system's is content
// wherever it stands, with nothing naming it; a system's own sentences,
// and the identifiers between content's words, stay.
func TestProseThatIsNotTheSystems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		gone     []string // fragments of content that must not survive
		keep     []string // what the operator needs
	}{
		{
			name: "a sentence anyone wrote",
			in:   "The quick brown fox jumps over the lazy dog.",
			gone: []string{"quick brown fox", "lazy dog"},
		},
		{
			name: "a model's answer in a parser's exception",
			in:   `OutputParserException: could not parse: "Sure! Here is a gentle bedtime story about a hedgehog who learns to share his apples"`,
			gone: []string{"bedtime story about a hedgehog", "learns to share his apples"},
			keep: []string{"OutputParserException: could not parse"},
		},
		{
			name: "a user's request after the work that failed",
			in:   `worker-3 gave up after 4 attempts on job 8812 while summarising 'please tidy my notes from the landlord meeting about the damp bathroom'`,
			gone: []string{"tidy my notes from the landlord", "damp bathroom"},
			keep: []string{"worker-3 gave up after 4 attempts on job 8812"},
		},
		{
			name: "a retrieved passage in a trace, ANSI colours around it",
			in:   "> Finished retriever.\n\x1b[32mThe orchard cooperative ships pears to Lisbon every Tuesday before dawn.\x1b[0m\nlatency_ms=412",
			gone: []string{"orchard cooperative ships pears to Lisbon"},
			keep: []string{"latency_ms=412", "> Finished retriever."},
		},
		{
			name: "identifiers between content's words stay",
			in:   `rerank failed for doc_8812 (chunk 3): "our grandmother's walnut cake recipe needs brown sugar, cinnamon and 200 grams of flour"`,
			gone: []string{"grandmother's walnut cake recipe", "brown sugar, cinnamon"},
			keep: []string{"rerank failed for doc_8812 (chunk 3)", "200"},
		},
		{
			name: "a Chinese request",
			in:   "ERROR chat: upstream 500 for query=帮我把这份采购合同翻译成英文并标出付款条款 trace=t-77",
			gone: []string{"采购合同翻译成英文"},
			keep: []string{"ERROR chat: upstream 500", "trace=t-77"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := redact.String(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Errorf("content survived: %q\nout: %s", g, out)
				}
			}
			for _, k := range c.keep {
				if !strings.Contains(out, k) {
					t.Errorf("lost %q\nout: %s", k, out)
				}
			}
			if again := redact.String(out); again != out {
				t.Errorf("not idempotent:\n once: %s\ntwice: %s", out, again)
			}
		})
	}
}

// A system's sentences are the operator's: failures of databases, clouds,
// networks, schedulers and payment APIs, in words the vocabulary never
// listed one by one.
func TestProseOfSystemsStays(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`pq: duplicate key value violates unique constraint "items_pkey"`,
		"dial tcp 10.0.3.7:5432: connect: connection refused",
		"The security token included in the request is expired",
		"Your card was declined. The card does not have sufficient funds to complete the purchase.",
		"Back-off restarting failed container llm in pod triage-llm-7f9c8d6b5-x2k4q",
		"The server is currently unable to handle the request due to a temporary overload or maintenance.",
		"Service Unavailable: the upstream did not respond before the deadline; will retry in 30s",
		"Request was throttled. Expected available in 12 seconds.",
		"请求过于频繁，请稍后再试",
		"Die Anfrage ist fehlgeschlagen: Zeitüberschreitung",
	} {
		if got := redact.String(s); got != s {
			t.Errorf("a system's sentence changed:\n in: %s\nout: %s", s, got)
		}
	}
}

// passwordShapes are passwords by their shape alone — symbols among mixed
// letters and digits, random-looking — quoted under a key that says
// nothing, or bare in a struct printed by position; and values of the same
// characters that are no password (docs/design.md "Redaction", 4).
var passwordShapes = []planted{
	{
		name:    "a secret store's answer, quoted under value",
		in:      `GET https://kv-prod-7.vault.azure.net/secrets/ledger-db/3f2a -> 200 {"value":"Wq7!zRm4Tp2Lx","attributes":{"enabled":true}}`,
		secrets: []string{"Wq7!zRm4Tp2Lx"},
		keep:    []string{"kv-prod-7.vault.azure.net/secrets/ledger-db/3f2a", `"enabled":true`},
	},
	{
		name:    "a Python repr's unnamed field",
		in:      `connect() failed: args=('reporting', 'h$8GmQ2vYk4Rn', 'pg-ro.internal', 5432)`,
		secrets: []string{"h$8GmQ2vYk4Rn"},
		keep:    []string{"reporting", "pg-ro.internal", "5432"},
	},
	{
		name:    "bare in a struct printed by position",
		in:      `pool init: cfg={{etl_loader Zp4%cV9nW2qHs8 WAREHOUSE01 true} {4 16 30s}} err=connection reset`,
		secrets: []string{"Zp4%cV9nW2qHs8"},
		keep:    []string{"etl_loader", "WAREHOUSE01", "err=connection reset"},
	},
	{
		name: "tags, codes and request labels of the same characters stay",
		in:   `[Req#7c3e] campaign "#Spring2026Launch" code "50%OFF-B2B" segment "error^HL70357" ref "C#12.0-Preview"`,
		keep: []string{"[Req#7c3e]", "#Spring2026Launch", "50%OFF-B2B", "error^HL70357", "C#12.0-Preview"},
	},
}

func TestPasswordShapes(t *testing.T) {
	stringCases(t, passwordShapes)
}

// linkTokens are one-time links' credentials in a URL's path after the
// action the link does; a resource's id after its collection stays
// (docs/design.md "Redaction", 3).
var linkTokens = []planted{
	{
		name:    "an e-mail confirmation link",
		in:      `GET https://accounts.example.io/email/confirm/0f4e9a7c2b1d83e6f5a4c3b2d1e0f9a8b7c6d5e4 -> 410 Gone`,
		secrets: []string{"0f4e9a7c2b1d83e6f5a4c3b2d1e0f9a8b7c6d5e4"},
		keep:    []string{"accounts.example.io/email/confirm/", "410 Gone"},
	},
	{
		name:    "an invitation's UUID",
		in:      `render failed for https://app.example.com/team/invite/7d1f3c9e-2a4b-4c8d-9e0f-1a2b3c4d5e6f?lang=de`,
		secrets: []string{"7d1f3c9e-2a4b-4c8d-9e0f-1a2b3c4d5e6f"},
		keep:    []string{"app.example.com/team/invite/", "lang=de"},
	},
	{
		name: "a collection's id stays",
		in:   `GET https://api.example.com/orders/7d1f3c9e-2a4b-4c8d-9e0f-1a2b3c4d5e6f/items 404`,
		keep: []string{"/orders/7d1f3c9e-2a4b-4c8d-9e0f-1a2b3c4d5e6f/items"},
	},
}

func TestLinkTokens(t *testing.T) {
	stringCases(t, linkTokens)
}

// assignedContent is a content variable assigned a quoted string where a
// debugger, a traceback's locals or a REPL prints it, quotes left
// unescaped inside included; other variables stay (docs/design.md
// "Redaction", 1).
var assignedContent = []planted{
	{
		name:    "a traceback's locals panel",
		in:      "│ │   user_input = 'can you check whether the clause \"net 30\" applies to the Porto invoices'   │\n│ │        model = 'gpt-4o-mini'   │\n│ │      retries = 3   │",
		secrets: []string{"whether the clause", "applies to the Porto invoices"},
		keep:    []string{"model = 'gpt-4o-mini'", "retries = 3"},
	},
	{
		name:    "a debugger's print of a template with quotes inside",
		in:      `(Pdb) system_prompt = "You answer as the leasing desk's assistant; never quote the customer's "hardship" note back"` + "\n(Pdb) c",
		secrets: []string{"leasing desk's assistant", "hardship"},
		keep:    []string{"(Pdb) c"},
	},
}

func TestAssignedContent(t *testing.T) {
	stringCases(t, assignedContent)
}

// hashDumps are password hashes dumped one account a line, which pass as
// the password (docs/design.md "Redaction", 3).
var hashDumps = []planted{
	{
		name:    "pwdump's line",
		in:      "[*] Dumping local SAM hashes\nbackup_operator:1017:aad3b435b51404eeaad3b435b51404ee:31d6cfe0d16ae931b73c59d7e0c089c0:::\n[*] done",
		secrets: []string{"31d6cfe0d16ae931b73c59d7e0c089c0", "aad3b435b51404eeaad3b435b51404ee"},
		keep:    []string{"backup_operator:1017:", "[*] Dumping local SAM hashes", "[*] done"},
	},
	{
		name: "an IPv6 address and a digest stay",
		in:   "bind [fe80::1]:8443 digest 31d6cfe0d16ae931b73c59d7e0c089c0",
		keep: []string{"fe80::1", "31d6cfe0d16ae931b73c59d7e0c089c0"},
	},
}

func TestHashDumps(t *testing.T) {
	stringCases(t, hashDumps)
}

// labelledFields are a CEF extension's custom fields, judged by the label
// the line gives them (docs/design.md "Redaction", 1).
var labelledFields = []planted{
	{
		name:    "a custom string labelled as the request",
		in:      "CEF:0|Vendor|AIProxy|1.4|200|request_flagged|5|src=203.0.113.9 cs3Label=requestText cs3=summarise the pension letter I got from my employer last week cs4Label=tenant cs4=acme-eu",
		secrets: []string{"summarise the pension letter", "from my employer last week"},
		keep:    []string{"cs4Label=tenant cs4=acme-eu", "src=203.0.113.9"},
	},
	{
		name: "a custom string labelled as an id stays",
		in:   "CEF:0|Vendor|AIProxy|1.4|200|request_flagged|5|cs1Label=deploymentName cs1=gpt4o-eu-prod cn1Label=latencyMs cn1=812",
		keep: []string{"cs1=gpt4o-eu-prod", "cn1=812"},
	},
}

func TestLabelledFields(t *testing.T) {
	stringCases(t, labelledFields)
}
