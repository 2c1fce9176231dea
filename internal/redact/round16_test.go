package redact_test

import (
	"testing"
)

// The families of the sixteenth set, each in other vendors', languages'
// and formats' wordings: a secret must go, a fact must stay.
func TestRound16Families(t *testing.T) {
	stringCases(t, []planted{
		// A structured-output failure quoting the model's answer.
		{"a completion quoted after a validation failure",
			`instructor.exceptions.InstructorRetryException: validation failed after 3 attempts, last completion: "Dear Mr Okafor, your loan application for the Leeds flat was declined" (TicketReply)`,
			[]string{"your loan application for the Leeds flat"}, []string{"InstructorRetryException", "validation failed after 3 attempts", "(TicketReply)"}},
		{"a response that could not be parsed, with an apostrophe inside",
			`pydantic_ai.exceptions.UnexpectedModelBehavior: response could not be parsed as Verdict: 'The tenant's deposit of 900 euros was withheld without notice' (retries=2)`,
			[]string{"deposit of 900 euros was withheld"}, []string{"UnexpectedModelBehavior", "(retries=2)"}},
		{"a JSON answer cut short after raw=",
			`ERROR extractor: StructuredOutputError model=claude-haiku output did not match schema raw="{\"notes\": \"Patient in bed 4 refuses the morning dose of warfarin and asks for`,
			[]string{"refuses the morning dose of warfarin"}, []string{"StructuredOutputError", "model=claude-haiku"}},
		{"a model's name in quotes stays",
			`schema validation failed: model 'mistral-small-2409' returned 0 choices (finish_reason=length)`,
			nil, []string{"mistral-small-2409", "finish_reason=length"}},
		{"a short quoted value after output stays",
			`config check failed to parse output format 'jsonl' for sink s3-archive`,
			nil, []string{"'jsonl'", "s3-archive"}},
		// A payment's party beside its account.
		{"a debtor quoted beside an IBAN",
			`ERPNext WARNING payment entry ACC-PAY-2026-00031: debtor "Lotte Vermeulen-Claes" has no valid mandate for GB29NWBK60161331926819`,
			[]string{"Lotte Vermeulen-Claes", "GB29NWBK60161331926819"}, []string{"ACC-PAY-2026-00031", "has no valid mandate"}},
		{"a customer's name on a direct debit line",
			`direct debit DD/2026/77 returned (MD06): customer='Henrik Lindqvist' amount=45.00`,
			[]string{"Henrik Lindqvist"}, []string{"DD/2026/77", "MD06", "amount=45.00"}},
		{"a partner named away from any account stays",
			`sync: partner 'Acme Logistics' has 3 open orders`,
			nil, []string{"Acme Logistics"}},
		{"a beneficiary's name beside a spaced IBAN in JSON",
			`Überweisung abgelehnt: {"begünstigter": "Hannelore Brückner", "iban": "DE89 3704 0044 0532 0130 00", "status": "RJCT"}`,
			[]string{"Hannelore Brückner"}, []string{`"status": "RJCT"`}},
		{"a payee's name before the word name on a SEPA line",
			`SEPA payout 5512 rejected: payee name "Tomasz Wiśniewski" differs from the account's holder (reason AM05)`,
			[]string{"Tomasz Wiśniewski"}, []string{"payout 5512", "reason AM05"}},
		// A name among a frame's local variables.
		{"a Sentry frame's vars map",
			`{"function": "create_payee", "vars": {"payee_id": "'p_8812'", "name": "'Oluwaseun Adeyemi'", "retries": "0"}}`,
			[]string{"Oluwaseun Adeyemi"}, []string{"create_payee", "p_8812"}},
		{"a lower-case name under locals stays",
			"Local variables:\n    name = 'invoice_worker'\n    attempt = 3",
			nil, []string{"invoice_worker", "attempt = 3"}},
		// A name's key with a language tag.
		{"a language tag before and after a name's key",
			`{"id": 91, "ja_name": "Kenji Watanabe", "name_ko": "Min-jun Park", "status": "active"}`,
			[]string{"Kenji Watanabe", "Min-jun Park"}, []string{`"status": "active"`}},
		{"a camel-case English name in a text",
			`upsert failed: {"enName":"Olga Petrenko","city_code":"KBP"}`,
			[]string{"Olga Petrenko"}, []string{"upsert failed", "KBP"}},
		// A SEPA purpose line.
		{"remittance text up to the next tag",
			`camt.053 entry 4: EREF+INV-2207 SVWZ+Darlehen Rate 12 Familie Kowalski ABWA+Kowalski GmbH`,
			[]string{"Darlehen Rate 12 Familie Kowalski"}, []string{"EREF+INV-2207", "camt.053 entry 4"}},
		// A Swedish personnummer, bare.
		{"a personnummer as a command's argument",
			`$ ./lookup-patient --pnr 640823-3234 --region VGR`,
			[]string{"640823-3234"}, []string{"--region VGR", "lookup-patient"}},
		{"a date-stamped build id without its check digit stays",
			`deployed build 640823-3235 to staging`,
			nil, []string{"640823-3235"}},
		// A name after '=' in a form body, the label a key's last word.
		{"a URL-encoded holder's name",
			`POST /mandates body: account_holder=Jos%C3%A9+Mar%C3%ADa+Olmedo&amount=12.00`,
			[]string{"Jos%C3%A9+Mar%C3%ADa+Olmedo"}, []string{"amount=12.00"}},
	})
}
