package redact_test

import "testing"

// TestRoundTenFamilies holds members of the families redaction holdout
// round 10 showed (testdata/holdout/README.md), in wordings other than the
// round's: an object's client secret, a messaging service's key in a
// path, an ODBC braced password, identity and health numbers in their
// spaced shapes with their check digits, and a person's name where only
// its neighbours say so.
func TestRoundTenFamilies(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "a setup intent's client secret",
			in:      `confirmSetup failed for seti_1QaZ8xLkN2mPq7Rt_secret_R9yWb3VvC4nKd8sJ2hT6uPe0 (status 400)`,
			secrets: []string{"seti_1QaZ8xLkN2mPq7Rt_secret_R9yWb3VvC4nKd8sJ2hT6uPe0", "R9yWb3VvC4nKd8sJ2hT6uPe0"},
			keep:    []string{"confirmSetup failed", "status 400"},
		},
		{
			name:    "a publish key in a path; a bare UUID stays",
			in:      `GET https://ps.example.net/publish/pub-c-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/sub-x/0/ch1 403 req 7d2e9f10-3c4b-4a5d-9e8f-0a1b2c3d4e5f`,
			secrets: []string{"pub-c-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"},
			keep:    []string{"7d2e9f10-3c4b-4a5d-9e8f-0a1b2c3d4e5f", "403"},
		},
		{
			name:    "an ADO connection string's braced password with escaped braces",
			in:      `Provider=MSOLEDBSQL;Data Source=db-eu-1;User ID=report;Password={pa}}ss;w=rd};Initial Catalog=sales`,
			secrets: []string{"pa}}ss;w=rd"},
			keep:    []string{"Data Source=db-eu-1", "Initial Catalog=sales"},
		},
		{
			name: "a code's object under a credential's name is no braced value",
			in:   `local auth = { token: std.extVar('t'), zone: 'eu-west-3' };`,
			keep: []string{"zone: 'eu-west-3'"},
		},
		{
			name:    "an Austrian social insurance number by its check digit",
			in:      `Abgleich fehlgeschlagen: 1239 150785 unbekannt (vorgang 7781)`,
			secrets: []string{"1239 150785"},
			keep:    []string{"vorgang 7781"},
		},
		{
			name: "ten digits in that shape without the check digit stay",
			in:   `batch 1238 150785 retried`,
			keep: []string{"1238 150785"},
		},
		{
			name:    "a BC personal health number by its check digit",
			in:      `eligibility: member 9876-543-218 inactive since 2026-01-31`,
			secrets: []string{"9876-543-218"},
			keep:    []string{"2026-01-31"},
		},
		{
			name:    "a Malaysian identity card number",
			in:      `semakan gagal untuk 910305-08-6621 (permohonan AP-5512)`,
			secrets: []string{"910305-08-6621"},
			keep:    []string{"AP-5512"},
		},
		{
			name:    "a second SSN after one that went",
			in:      `caller said SSN 219-09-9999 or 078 05 1120, ticket 5521`,
			secrets: []string{"219-09-9999", "078 05 1120"},
			keep:    []string{"ticket 5521"},
		},
		{
			name:    "a name after an identity number and a title",
			in:      `PESEL 44051401359 nie należy do pacjenta Prof. Anna Wiśniewska-Kowal, NFZ`,
			secrets: []string{"44051401359", "Anna Wiśniewska-Kowal"},
			keep:    []string{"NFZ"},
		},
		{
			name:    "a date of birth and a surname after their labels without colons",
			in:      `member lookup failed (date of birth 04/11/1958, surname O'Neill-Brady); ref Q-19`,
			secrets: []string{"04/11/1958", "O'Neill-Brady"},
			keep:    []string{"ref Q-19"},
		},
		{
			name:    "a payer's name in a JSON record",
			in:      `{"payerName": "Ilse Vandenberghe", "remitterName": "Tomas Sauer", "payment": "pay_82"}`,
			secrets: []string{"Ilse Vandenberghe", "Tomas Sauer"},
			keep:    []string{"pay_82"},
		},
		{
			name:    "a notification's merge fields in text",
			in:      `send failed: body={"template_id": "t-9", "dynamic_template_data": {"first": "Oskar", "policy": "P-77120", "renewal": {"month": "May"}}}`,
			secrets: []string{"Oskar", "P-77120"},
			keep:    []string{"t-9"},
		},
		{
			name:    "a name in the field before an account's in a row",
			in:      "rejected: 2026-03-01|Lastschrift|Birgit Sommerfeld|DE89370400440532013000|Abo",
			secrets: []string{"Birgit Sommerfeld", "DE89370400440532013000"},
			keep:    []string{"Lastschrift", "Abo"},
		},
		{
			name:    "a holder's name and a card's code under bracketed form keys",
			in:      `body: amount=900&source[owner][name]=Kai+Lindqvist&payment_method_data[card][cvc]=381&metadata[name]=promo`,
			secrets: []string{"Kai+Lindqvist", "381"},
			keep:    []string{"metadata[name]=promo", "amount=900"},
		},
		{
			name:    "a party's name beside a messenger's number",
			in:      `{"viber": "+380 67 123 4567", "destinatario": "Olena Kovalenko", "status": "undelivered"}`,
			secrets: []string{"Olena Kovalenko"},
			keep:    []string{"undelivered"},
		},
		{
			name:    "a recipient's Thai name after its label",
			in:      `parcel P-88 held: ผู้รับ: วิชัย รักษ์ดี, สาขา 12`,
			secrets: []string{"วิชัย รักษ์ดี"},
			keep:    []string{"parcel P-88 held"},
		},
		{
			name:    "a party's number in prose after a preposition; an order's number stays",
			in:      "delivery failed for recipient 4915112345678 (blocked); order number 20261127000123 queued",
			secrets: []string{"4915112345678"},
			keep:    []string{"order number 20261127000123"},
		},
		{
			name: "a support chat's turns by their speakers",
			in: "classify_chat failed: context too long\nVisitor: hi, the parcel with my insulin pens never arrived and I leave tomorrow\n" +
				"Rep: I am sorry to hear that, can you confirm the delivery postcode please?\n",
			secrets: []string{"insulin pens never arrived", "confirm the delivery postcode"},
			keep:    []string{"classify_chat failed: context too long"},
		},
		{
			name: "a support speaker's word alone in a log stays",
			in:   "run 7 done\nClient: ollama-local (llama3.1:8b) - 912ms. StopReason: stop\nuser: summarise the attached note please",
			keep: []string{"ollama-local (llama3.1:8b) - 912ms"},
		},
		{
			name: "an agent's config after its key stays",
			in:   "boot failed\n    agent: { name: 'router', retries: 3, backoff: 'linear' }",
			keep: []string{"name: 'router'"},
		},
		{
			name:    "a model's answer in a parser's error",
			in:      `OutputParserException: Invalid json output: {"reply": "Your claim for the water damage in the cellar was approved on Friday" "ok": true}`,
			secrets: []string{"water damage in the cellar"},
			keep:    []string{"OutputParserException: Invalid json output:"},
		},
		{
			name:    "a decoder's document after its position",
			in:      `JSONDecodeError: Expecting value: line 1 column 1 (char 0) doc: 'Sure! The patient was discharged after two nights on the ward'`,
			secrets: []string{"discharged after two nights"},
			keep:    []string{"Expecting value: line 1 column 1 (char 0)"},
		},
		{
			name:    "a validator's echo of the value it checked",
			in:      `ValidationError: Validation failed for field summary: value: "He told me his divorce hearing is set for the ninth" failed ToxicLanguage; attempts=3`,
			secrets: []string{"divorce hearing is set"},
			keep:    []string{"Validation failed for field summary", "attempts=3"},
		},
	})
}
