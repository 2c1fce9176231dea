package redact_test

import "testing"

// TestRoundThirteenSecrets holds members of the credential families
// redaction holdout round 13 showed (testdata/holdout/README.md), in
// wordings other than the round's: a URL's user information that is a
// token (an empty password or none), a command line's user:password flag,
// a user:password echoed into base64 in a shell's trace, a validator's
// echo of a rejected value beside the parameter's name, and text written
// into HTML with its quotes as character references.
func TestRoundThirteenSecrets(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "a token as the user with an empty password in a pip index URL",
			in:      "ERROR: HTTP error 403 while getting https://c3a1f09be27d4410b6e8aa5f21d07c94:@pypi.fury.io/acme/wheel/ (from -r requirements.txt)",
			secrets: []string{"c3a1f09be27d4410b6e8aa5f21d07c94"},
			keep:    []string{"pypi.fury.io/acme/wheel/", "HTTP error 403"},
		},
		{
			name:    "a key-shaped user with no password before a git host",
			in:      "fatal: unable to access 'https://glpat_Vx82kQm3Rt7ZpL0bN5cW@gitlab.example.org/infra/charts.git/': 403",
			secrets: []string{"glpat_Vx82kQm3Rt7ZpL0bN5cW"},
			keep:    []string{"gitlab.example.org/infra/charts.git/"},
		},
		{
			name:    "wget's and curl's proxy user pairs and sshpass",
			in:      "+ curl --proxy-user svc-fetch:Qm7!vT2#pL -x http://proxy.corp:3128 https://files.example.com/a.tgz\n+ sshpass -p 'r0ot.Pa55' ssh -o StrictHostKeyChecking=no ops@10.4.2.9",
			secrets: []string{"Qm7!vT2#pL", "r0ot.Pa55"},
			keep:    []string{"svc-fetch", "http://proxy.corp:3128", "ops@10.4.2.9"},
		},
		{
			name: "a container's user:group stays",
			in:   "docker run --rm -u 1001:1001 -v /src:/src builder make\npodman run --user app:staff img\ncurl -u $CI_USER:$CI_TOKEN https://x.example.com",
			keep: []string{"-u 1001:1001", "--user app:staff", "$CI_USER:$CI_TOKEN"},
		},
		{
			name:    "a printf of user:password piped into base64 in a script's trace",
			in:      "+++ printf '%s' 'npm-ci:Wq8zR!n4Lk'\n+++ base64\n++ NPM_AUTH=bnBtLWNpOldxOHpSIW40TGs=\n",
			secrets: []string{"Wq8zR!n4Lk"},
			keep:    []string{"+++ base64"},
		},
		{
			name:    "an echo piped into base64 on one line",
			in:      `export REG_AUTH=$(echo -n "robot$ci:Ht5pK0zWq2" | base64 -w0)`,
			secrets: []string{"Ht5pK0zWq2"},
		},
		{
			name: "an echo of variables stays",
			in:   "++ echo -n \"$REG_USER:$REG_PASS\"\n++ base64",
			keep: []string{"$REG_USER:$REG_PASS"},
		},
		{
			name:    "a validator's rejected value beside the field it names",
			in:      `{"timestamp":"2024-05-01T10:00:00Z","status":400,"errors":[{"field":"clientSecret","rejectedValue":"Yz4kP9qT2mWb","defaultMessage":"size must be between 32 and 64"}]}`,
			secrets: []string{"Yz4kP9qT2mWb"},
			keep:    []string{"size must be between 32 and 64", `"status":400`},
		},
		{
			name:    "an invalid value under another name's key",
			in:      `{"error":"invalid_param","param":"access_token","invalid_value":"at-9f2c81d7e6b5a4","hint":"expired"}`,
			secrets: []string{"at-9f2c81d7e6b5a4"},
			keep:    []string{`"hint":"expired"`},
		},
		{
			name:    "JSON as numeric references in an error page",
			in:      `<pre class="params">{&#34;client_id&#34;: &#34;web&#34;, &#34;client_secret&#34;: &#34;Kd93hf-Pq1xZ0vLm&#34;}</pre>`,
			secrets: []string{"Kd93hf-Pq1xZ0vLm"},
			keep:    []string{`<pre class="params">`, "&#34;client_id&#34;: &#34;web&#34;"},
		},
		{
			name:    "a Python dict in named references inside a table cell",
			in:      "<td>{&apos;username&apos;: &apos;ops&apos;, &apos;password&apos;: &apos;Tr0ub4dor&amp;3x&apos;}</td><td>POST /login</td>",
			secrets: []string{"Tr0ub4dor"},
			keep:    []string{"<td>POST /login</td>", "&apos;username&apos;: &apos;ops&apos;"},
		},
		{
			name: "references in plain markup stay",
			in:   "<p>Fish &amp; chips &lt;3 at &quot;The Anchor&quot;</p>",
			keep: []string{"<p>Fish &amp; chips &lt;3 at &quot;The Anchor&quot;</p>"},
		},
	})
}

// TestRoundThirteenPrompts: a ReAct transcript's lines of model output,
// alone or quoted by an agent's parse error.
func TestRoundThirteenPrompts(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "a parse error quoting a thought and an answer",
			in:      "OutputParserException: Could not parse LLM output: Thought: the tenant asked if the boiler in flat 4B was serviced this winter\nAnswer: It was serviced on 12 January by the landlord's contractor.",
			secrets: []string{"boiler in flat 4B was serviced", "serviced on 12 January"},
			keep:    []string{"OutputParserException"},
		},
		{
			name:    "an agent's action input on its own line",
			in:      "Thought: I need the customer's order history\nAction: orders_lookup\nAction Input: orders placed by the customer who complained about the broken blender\nObservation: 2 orders",
			secrets: []string{"complained about the broken blender", "I need the customer's order history"},
			keep:    []string{"Action: orders_lookup", "Observation: 2 orders"},
		},
		{
			name: "an answer count in a resolver's header stays",
			in:   ";; ->>HEADER<<- opcode: QUERY, status: NOERROR\n;; flags: qr rd ra, ANSWER: 2, AUTHORITY: 0",
			keep: []string{"ANSWER: 2, AUTHORITY: 0"},
		},
	})
}

// TestRoundThirteenPersonal: a dumped name/value pair's value by the key
// its name names, and an account owner's name.
func TestRoundThirteenPersonal(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "print_r of a form's fields",
			in:      "Array\n(\n    [0] => Array\n        (\n            [name] => last_name\n            [value] => Oyelaran\n        )\n    [1] => Array\n        (\n            [name] => plan\n            [value] => gold\n        )\n)",
			secrets: []string{"Oyelaran"},
			keep:    []string{"[value] => gold", "[name] => last_name"},
		},
		{
			name:    "Xdebug's var_dump of a contact's properties",
			in:      "array (size=2)\n  'key' => string 'full_name' (length=9)\n  'value' => string 'Marisol Etxeberria' (length=18)",
			secrets: []string{"Marisol Etxeberria"},
			keep:    []string{"'key' => string 'full_name' (length=9)"},
		},
		{
			name:    "an account owner's name under keys of any casing",
			in:      `PUT /v3/payouts/beneficiaries {"account_owner_name":"Henrik Lindqvist","BeneficiaryName":"Aiko Tanabe","currency":"SEK"}`,
			secrets: []string{"Henrik Lindqvist", "Aiko Tanabe"},
			keep:    []string{`"currency":"SEK"`, "/v3/payouts/beneficiaries"},
		},
	})
}
