package redact_test

import (
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// positionalCases hold credentials that a format places by position or
// definition rather than after "name: value" (docs/design.md "Redaction",
// 3), and the plain facts beside them. The formats' wordings, keys and
// values are none of the holdout rounds'.
var positionalCases = []planted{
	{
		name:    "a C header's definitions",
		in:      "// config.h\n#define WIFI_SSID \"barn-mesh\"\n#define MQTT_PASSWORD \"q7#Lm!2vRt\"\n#define MQTT_PORT 8883\n",
		secrets: []string{"q7#Lm!2vRt"},
		keep:    []string{`WIFI_SSID "barn-mesh"`, "MQTT_PORT 8883"},
	},
	{
		name:    "csh's setenv",
		in:      "setenv REGISTRY_TOKEN xk29fjq8Zp01mm\nsetenv REGISTRY_HOST registry.example.net\n",
		secrets: []string{"xk29fjq8Zp01mm"},
		keep:    []string{"REGISTRY_HOST registry.example.net"},
	},
	{
		name:    "PHP's define() of a constant",
		in:      "define('MAIL_SMTP_PASS', 'h&J2w*Lq:9z');\ndefine('MAIL_SMTP_HOST', 'smtp.example.org');\ndefine( \"NONCE_SALT\", 'nothing-secret-here' );\n",
		secrets: []string{"h&J2w*Lq:9z"},
		keep:    []string{"smtp.example.org", "nothing-secret-here"},
	},
	{
		name:    "a credentials call's last argument",
		in:      `val creds = new UsernamePasswordCredentials("svc-builder", "Tr0ub4dor&3x")` + "\nauth = HTTPBasicAuth('metrics', 'plain-words-pass')\n",
		secrets: []string{"Tr0ub4dor&3x", "plain-words-pass"},
		keep:    []string{"svc-builder", "'metrics'"},
	},
	{
		name:    "a whitespace-aligned configuration file",
		in:      "machine_name   relay\nlogin          relay-bot\npassphrase     lanternfishmeadow\nport           465\n",
		secrets: []string{"lanternfishmeadow"},
		keep:    []string{"relay-bot", "port           465"},
	},
	{
		name: "prose that starts with a secret's word keeps its words",
		in:   "password expired\nplease reset it from the console\n",
		keep: []string{"password expired"},
	},
	{
		name:    "a password file's colon fields",
		in:      "db-replica.example.net:6432:*:reporting:pl4in:col0n-pw\n10.1.2.3:*:analytics:etl:Zq9Rm3LxTt\n",
		secrets: []string{"pl4in:col0n-pw", "Zq9Rm3LxTt"},
		keep:    []string{"db-replica.example.net:6432:*:reporting:", "10.1.2.3:*:analytics:etl:"},
	},
	{
		name: "timestamps and host:port pairs are no password file",
		in:   "2026-02-03 11:04:55:812 worker started\ncache.internal:6379: connection refused: dial tcp\n",
		keep: []string{"11:04:55:812 worker started", "cache.internal:6379: connection refused"},
	},
	{
		name:    "an IPsec secrets file",
		in:      "gw-east.example.com : XAUTH \"rota-Kx8!\"\ndave@example.com : NTLM hunter2hunter2\n: ECDSA gw.key.pem \"unlock-Me-9\"\n: RSA plain.pem\n",
		secrets: []string{"rota-Kx8!", "hunter2hunter2", "unlock-Me-9"},
		keep:    []string{"gw-east.example.com : XAUTH", "ECDSA gw.key.pem", ": RSA plain.pem"},
	},
	{
		name:    "a tool's config command that sets a credential",
		in:      "$ poetry config http-basic.mirror deploy-ci Hq?u9-Lr7\n$ pnpm config set //npm.example.com/:_authToken npm_9f3b1c2a4d\n$ poetry config repositories.mirror https://pypi.example.com/simple/\n",
		secrets: []string{"Hq?u9-Lr7", "npm_9f3b1c2a4d"},
		keep:    []string{"deploy-ci", "https://pypi.example.com/simple/"},
	},
	{
		name:    "a credential announced on the line before it",
		in:      "gitlab-1  | Your root password has been generated. Use it to sign in:\ngitlab-1  |\ngitlab-1  |   mK2pQ8wZr4Lx7nYb\ngitlab-1  | It is stored in /etc/gitlab/initial_root_password\n",
		secrets: []string{"mK2pQ8wZr4Lx7nYb"},
		keep:    []string{"It is stored in /etc/gitlab/initial_root_password"},
	},
	{
		name: "a label that names no credential keeps the line after it",
		in:   "The following nodes were drained during the upgrade:\nworker-0a7f3c9e1b\n",
		keep: []string{"worker-0a7f3c9e1b"},
	},
	{
		name:    "a pre-shared key's key",
		in:      "wifi-sec.psk:             amber-otter-lantern7\nwifi-sec.psk-flags:       0 (none)\n",
		secrets: []string{"amber-otter-lantern7"},
		keep:    []string{"0 (none)"},
	},
	{
		name:    "a password beside a user's flag",
		in:      "$ notarytool-legacy --upload -u builds@example.com -p wxyz-abcd-efgh-ijkl --team T1\n$ psql -U app -h db.internal -p 5432 orders\n",
		secrets: []string{"wxyz-abcd-efgh-ijkl"},
		keep:    []string{"-p 5432"},
	},
	{
		name:    "a channel token after a one-letter segment",
		in:      "GET https://packages.example.org/t/qa-9b2d4c6e-1f3a-4b5c-8d7e-0a1b2c3d4e5f/private/linux-64/repodata.json 403\nhttps://forum.example.org/t/upgrade-notes-for-2026/4412\n",
		secrets: []string{"qa-9b2d4c6e-1f3a-4b5c-8d7e-0a1b2c3d4e5f"},
		keep:    []string{"/private/linux-64/repodata.json", "/t/upgrade-notes-for-2026/4412"},
	},
}

func TestPositionalCredentials(t *testing.T) {
	stringCases(t, positionalCases)
}

// stringCases runs String over each case: its secrets gone, its facts kept.
func stringCases(t *testing.T, cases []planted) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t, "String", redact.String(c.in))
		})
	}
}

// xmlrpcCases are credentials XML-RPC calls pass by position
// (docs/design.md "Redaction", 3).
var xmlrpcCases = []planted{
	{
		name: "a login and its password side by side, pretty-printed, untyped",
		in: "odoo: AccessDenied\n<?xml version='1.0'?>\n<methodCall>\n<methodName>authenticate</methodName>\n<params>\n" +
			"<param>\n<value><string>acme_prod</string></value>\n</param>\n<param>\n<value>ops@acme.test</value>\n</param>\n" +
			"<param>\n<value><string>Wq9!rT2#vLp4</string></value>\n</param>\n<param>\n<value><struct></struct></value>\n</param>\n</params>\n</methodCall>",
		secrets: []string{"Wq9!rT2#vLp4", "ops@acme.test"},
		keep:    []string{"<methodName>authenticate</methodName>", "acme_prod"},
	},
	{
		name: "a password after a database and a user id; an appkey's call",
		in: `<methodCall><methodName>execute_kw</methodName><params><param><value><string>erp</string></value></param>` +
			`<param><value><int>7</int></value></param><param><value><string>hX4mQ8zN1c</string></value></param>` +
			`<param><value><string>res.partner</string></value></param></params></methodCall> ` +
			`<methodCall><methodName>blogger.deletePost</methodName><params><param><value><string>0123456789ABCDEF</string></value></param>` +
			`<param><value><string>9912</string></value></param><param><value><string>editor</string></value></param>` +
			`<param><value><string>s3cr3t-Pa55</string></value></param><param><value><boolean>1</boolean></value></param></params></methodCall>`,
		secrets: []string{"hX4mQ8zN1c", "s3cr3t-Pa55"},
		keep:    []string{"execute_kw", "<int>7</int>", "blogger.deletePost", "<boolean>1</boolean>"},
	},
	{
		name: "a call with one string keeps it",
		in:   `<methodCall><methodName>examples.getStateName</methodName><params><param><value><i4>41</i4></value></param><param><value><string>South Dakota</string></value></param></params></methodCall>`,
		keep: []string{"South Dakota", "<i4>41</i4>"},
	},
}

func TestXMLRPCCredential(t *testing.T) {
	stringCases(t, xmlrpcCases)
}

// referenceCases hold values that say where a secret comes from, and
// values that are no secret, under secret keys (docs/design.md
// "Redaction", 3).
var referenceCases = []planted{
	{
		name:    "placeholders stay, a default inside one goes",
		in:      "auth.token = ${?RELAY_TOKEN}\nredis.password = ${REDIS_PASSWORD:-Xq7rLm2pZ9}\nAuthorization: Bearer {{ access_token }}\nsmtp_password: !secret mail_relay_pw\n",
		secrets: []string{"Xq7rLm2pZ9"},
		keep:    []string{"${?RELAY_TOKEN}", "Bearer {{ access_token }}", "!secret mail_relay_pw"},
	},
	{
		name: "literals and a secret's user and algorithm stay",
		in:   "sign_secret = None\nuse_signature = False\nTOKEN_HASH_ALGO = argon2id\nbasicAuthUser: 88213\n",
		keep: []string{"sign_secret = None", "use_signature = False", "TOKEN_HASH_ALGO = argon2id", "basicAuthUser: 88213"},
	},
}

func TestReferencesAreNoSecrets(t *testing.T) {
	t.Parallel()
	stringCases(t, referenceCases)
}
