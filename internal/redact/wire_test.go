package redact_test

import "testing"

// wireCases hold credentials by their place in a protocol's command or a
// table's row, and a vendor key behind a prefix that usually names a
// public one (docs/design.md "Redaction", 3), in wordings of other
// protocols, tools and vendors than the holdout rounds'.
var wireCases = []planted{
	{
		name:    "IMAP LOGIN in a client's echo, atoms",
		in:      "C: a001 CAPABILITY\nS: * CAPABILITY IMAP4rev1 IDLE\nC: a002 LOGIN billing-bot Wq8-zzPLr4\nS: a002 NO [AUTHENTICATIONFAILED] Invalid credentials (Failure)\n",
		secrets: []string{"Wq8-zzPLr4"},
		keep:    []string{"a002 LOGIN billing-bot", "Invalid credentials (Failure)"},
	},
	{
		name:    "IMAP LOGIN in a bytes repr, quoted",
		in:      `DEBUG imap: send b'A7 LOGIN "ops@example.net" "hunter two!"\r\n'` + "\nDEBUG imap: recv b'A7 OK LOGIN completed'",
		secrets: []string{"hunter two!"},
		keep:    []string{"A7 OK LOGIN completed"},
	},
	{
		name:    "POP3 and FTP PASS",
		in:      ">>> USER mailer\n>>> PASS s3cretPop!\n<<< -ERR [AUTH] Authentication failed\n---> PASS ftpPw0rd#77\n530 Login incorrect.",
		secrets: []string{"s3cretPop!", "ftpPw0rd#77"},
		keep:    []string{"USER mailer", "-ERR [AUTH] Authentication failed", "530 Login incorrect."},
	},
	{
		name:    "SMTP AUTH PLAIN's initial response, Redis AUTH",
		in:      "send: 'AUTH PLAIN AG5vdGlmaWVyAGJhZHBhc3M5OQ=='\nreply: b'535 5.7.8 Authentication credentials invalid'\n\"AUTH\" \"default\" \"r3dis-Pw-1x\"\nAUTH rediskey77Q\n",
		secrets: []string{"AG5vdGlmaWVyAGJhZHBhc3M5OQ==", "rediskey77Q"},
		keep:    []string{"535 5.7.8 Authentication credentials invalid"},
	},
	{
		name: "commands in prose and capabilities stay",
		in:   "login failed for user deploy\nThe server said LOGIN disabled until TLS\nAUTH PLAIN\n",
		keep: []string{"login failed for user deploy", "LOGIN disabled until TLS"},
	},
	{
		name:    "a box-drawn table of variables",
		in:      "┏━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━┓\n┃ SENDGRID_KEY   ┃ Zp4-Qm7Lx0aTr9Kw2         ┃\n┃ WORKER_COUNT   ┃ 4                       ┃\n┃ SERVICE_NAME   ┃ mailer-eu               ┃\n┗━━━━━━━━━━━━━━━━┻━━━━━━━━━━━━━━━━━━━━━━━━━┛\n",
		secrets: []string{"Zp4-Qm7Lx0aTr9Kw2"},
		keep:    []string{"mailer-eu", "WORKER_COUNT", "SENDGRID_KEY"},
	},
	{
		name:    "psql's and Markdown's rows",
		in:      " smtp_password | mailPw!2026\n smtp_host     | smtp.example.org\n\n| Setting | Value |\n|---|---|\n| WEBHOOK_SECRET | whk-88aa-Zt |\n| REGION | eu-west-1 |\n",
		secrets: []string{"mailPw!2026", "whk-88aa-Zt"},
		keep:    []string{"smtp.example.org", "eu-west-1", "| Setting | Value |"},
	},
	{
		name: "a secret's setting and a placeholder in a row stay",
		in:   "| PASSWORD_HASH_ALGO | argon2id |\n| API_TOKEN | ${API_TOKEN} |\n| DB_PASSWORD | null |\n",
		keep: []string{"argon2id", "${API_TOKEN}"},
	},
	{
		name:    "a private key behind pk_ in a job's arguments",
		in:      `sidekiq: SyncContactsJob failed args=["pk_3fa1c07d9e2b48d6a0c15f7e9b3d2a4c88", 500] error=HTTP 403`,
		secrets: []string{"pk_3fa1c07d9e2b48d6a0c15f7e9b3d2a4c88"},
		keep:    []string{"SyncContactsJob", "HTTP 403"},
	},
	{
		name: "a publishable key stays",
		in:   `checkout init publishable=pk_test_51NzQk2LmPqRsTuVwXyZaBcDeF`,
		keep: []string{"pk_test_51NzQk2LmPqRsTuVwXyZaBcDeF"},
	},
}

func TestWireAndTableCredentials(t *testing.T) {
	stringCases(t, wireCases)
}
