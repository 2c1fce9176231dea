package redact_test

import (
	"testing"
)

// The families of the fifteenth set, each in other vendors', languages'
// and formats' wordings: a secret must go, a fact must stay.
func TestRound15Families(t *testing.T) {
	stringCases(t, []planted{
		// A structure under a keyword argument, inside a list or a message.
		{"a Python dict under a keyword argument in brackets",
			"openai.BadRequestError: Error code: 400 [payload={'messages': [{'role': 'user', 'content': 'Summarise the Q3 churn interviews for the Osaka retail team'}], 'max_tokens': 512}]",
			[]string{"churn interviews for the Osaka retail team"}, []string{"'max_tokens': 512", "Error code: 400"}},
		{"a Go map under a keyword argument in a list",
			"send failed: [req=map[prompt:Draft a apology note for the delayed Vienna shipment batch] attempt=3]",
			[]string{"apology note for the delayed Vienna shipment"}, []string{"attempt=3", "send failed"}},
		{"a plain list of words stays",
			"tags=[alpha beta] retries=[1 2 3]",
			nil, []string{"tags=[alpha beta]", "retries=[1 2 3]"}},
		// A parser's failure quoting the model's answer.
		{"an answer over lines up to the parser's link",
			"OutputParserException: Could not parse LLM output: I think the best option is:\n- reroute the Tuesday Antwerp freight via Ghent\n- tell Marta's team\nFor troubleshooting, visit: https://docs.example.com/errors/PARSING",
			[]string{"reroute the Tuesday Antwerp freight", "tell Marta's team"}, []string{"For troubleshooting, visit: https://docs.example.com/errors/PARSING", "OutputParserException"}},
		{"an answer over lines up to a traceback",
			"ValueError: Invalid json output: Here you go, the refund summary for the Oslo store\nlists three late orders\nTraceback (most recent call last):\n  File \"app.py\", line 4, in <module>",
			[]string{"refund summary for the Oslo store", "lists three late orders"}, []string{"Traceback (most recent call last):", "app.py"}},
		{"a target type, then the completion it was read from",
			"evals.ParserError: Failed to parse VerdictOutput from completion {\"verdicts\": [\"The Brno plant cut its night shift after the audit\"]}. Got: 2 validation errors for VerdictOutput",
			[]string{"Brno plant cut its night shift"}, []string{"VerdictOutput", "2 validation errors"}},
		{"from completion without a parse failure stays",
			"INFO received 812 tokens from completion endpoint in 2.3 s for tenant acme",
			nil, []string{"received 812 tokens from completion endpoint in 2.3 s for tenant acme"}},
		// An element a prompt is written in.
		{"an agent's goal element after an error",
			"[ERROR] 429 Too Many Requests from model gpt-4o\n<goal>\nMigrate the Halden warehouse stock sheet into the new ERP with the supplier notes\n</goal>",
			[]string{"Halden warehouse stock sheet"}, []string{"429 Too Many Requests", "<goal>"}},
		{"a context element in a log line",
			"prompt build failed: <context>The caller, a nurse at Tromsø clinic, asked about dosage changes</context> exceeds 8192 tokens",
			[]string{"nurse at Tromsø clinic"}, []string{"exceeds 8192 tokens"}},
		{"a build's goal element stays",
			"<plugin><execution><goal>compile</goal></execution></plugin>",
			nil, []string{"<goal>compile</goal>"}},
		// Quoted-printable.
		{"a key behind =3D in a quoted-printable body",
			"Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\nDeploy notice from ci-runner-7:\napi_token=3Dghp_Zq81LmN0pQrStUvWxYz0123456789abcDE =\nregion=3Deu-west-1\n",
			[]string{"ghp_Zq81LmN0pQrStUvWxYz0123456789abcDE"}, []string{"ci-runner-7", "Content-Transfer-Encoding: quoted-printable", "eu-west-1"}},
		{"a password split by a soft line break",
			"Content-Transfer-Encoding: quoted-printable\n\nsmtp settings: password=3DHx7#kLq2=\nvWm9Rz host=3Dmail.example.net\n",
			[]string{"Hx7#kLq2", "vWm9Rz"}, []string{"mail.example.net"}},
		// A vendor's key that names its mode.
		{"a mode-named key id after an id key",
			"checkout config: key_id=pay_live_Jx7QmR2vTy9LkP merchant=acme-store",
			[]string{"pay_live_Jx7QmR2vTy9LkP"}, []string{"merchant=acme-store"}},
		{"an upper-case test-mode key",
			"gateway key MPX_TEST_a81cf09b3e7d4F62b5a0 rejected",
			[]string{"a81cf09b3e7d4F62b5a0"}, []string{"rejected"}},
		{"a snake_case name with test stays",
			"ran run_test_integration_suite and ci_live_smoke_checks: ok",
			nil, []string{"run_test_integration_suite", "ci_live_smoke_checks"}},
		// A phone number under a phone line's key, digits alone.
		{"digits under mobile",
			`{"error": "invalid postcode", "customer": {"mobileNumber": "6045550199", "plan": "basic"}}`,
			[]string{"6045550199"}, []string{`"plan": "basic"`, "invalid postcode"}},
		{"digits under msisdn and cell in a repr",
			"rejected: {'msisdn': '31612345678', 'cell': '5550147', 'order_id': '88123401'}",
			[]string{"31612345678", "5550147"}, []string{"'order_id': '88123401'"}},
		{"a device flag under mobile stays",
			`{"mobile": true, "mobile_app_version": "5.12.0", "hotel": "2155550147"}`,
			nil, []string{`"mobile": true`, `"5.12.0"`, "2155550147"}},
	})
}
