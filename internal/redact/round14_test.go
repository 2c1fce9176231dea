package redact_test

import (
	"testing"
)

// The families of the fourteenth set, each in other vendors', languages'
// and formats' wordings: a secret must go, a fact must stay.
func TestRound14Families(t *testing.T) {
	stringCases(t, []planted{
		{"constructor's positional password in a stack trace",
			"#3 /srv/app/Mail.php(88): Vendor\\Smtp\\SmtpTransport->__construct('smtp.mail.example', 587, 'notify', 'Kq7#vL2pXz', 'tls')",
			[]string{"Kq7#vL2pXz"}, []string{"smtp.mail.example", "'notify'", "Mail.php(88)"}},
		{"new Client in a JavaScript trace",
			`    at new Client("pg.prod.example", "etl", "Zr4$pQ8mWn") (client.js:41:9)`,
			[]string{"Zr4$pQ8mWn"}, []string{"pg.prod.example", "client.js:41:9"}},
		{"Ruby's mail start past its HELO domain",
			"Net::SMTP.start('smtp.example.org', 587, 'mx.example.org', 'alerts', 'Tw5!rN3kLq', :login)",
			[]string{"Tw5!rN3kLq"}, []string{"mx.example.org", "'alerts'"}},
		{"an LDAP bind after its DN",
			"PHP Warning:  ldap_bind(Resource id #4, 'uid=sync,ou=svc,dc=corp,dc=example', 'Hq2%mX7vRb'): Invalid credentials",
			[]string{"Hq2%mX7vRb"}, []string{"Invalid credentials"}},
		{"a login call's user and password",
			"ftplib.error_perm: 530 Login incorrect at session.login('deploy', 'Wd8&nK3zPq')",
			[]string{"Wd8&nK3zPq"}, []string{"530 Login incorrect"}},
		{"a request call's path stays",
			"client.request('api.example.com', 'GET', '/v2/orders') timed out",
			nil, []string{"/v2/orders", "api.example.com"}},
		{"a key's short flag with a hex key",
			"$ pkgctl upload acme/repo build/app.tar.gz -K 9be1c07f4d2a6e83b5c0f1d9a7e2c4b6d8f0a1c3\nerror: 403 Forbidden",
			[]string{"9be1c07f4d2a6e83b5c0f1d9a7e2c4b6d8f0a1c3"}, []string{"build/app.tar.gz", "403 Forbidden"}},
		{"a monitor's quoted login command",
			`1714471300.004 [2 10.1.2.3:40022] "AUTH" "Zp4!kT9wQe"` + "\n" + `1714471300.005 [2 10.1.2.3:40022] "GET" "cfg"`,
			[]string{"Zp4!kT9wQe"}, []string{"10.1.2.3:40022", `"GET" "cfg"`}},
		{"an ODBC value closed by a doubled brace",
			"conn='Driver={PostgreSQL Unicode};Server=db.example;Uid=app;Pwd={Vn8;q}};SSLmode=require'",
			[]string{"Vn8;q}"}, []string{"Server=db.example", "Uid=app"}},
		{"a tool's output to the next record",
			"Tool Output: \nRefund policy for order 1182: customer Ana Lopes may return the blender within 30 days\nwhen the receipt is shown.\n[2026-02-01 09:12:44][INFO]: tool=ReadFileTool status=ok",
			[]string{"may return the blender within 30 days", "when the receipt is shown"}, []string{"tool=ReadFileTool"}},
		{"a planner's plan",
			"Step 2 plan: Draft the termination letter for the night-shift supervisor at the Leeds depot.\n[Planner] steps=4",
			[]string{"termination letter for the night-shift supervisor"}, []string{"steps=4"}},
		{"Terraform's plan line stays",
			"Plan: 2 to add, 0 to change, 1 to destroy.",
			nil, []string{"Plan: 2 to add, 0 to change, 1 to destroy."}},
		{"a task's text in a JSON log message",
			`{"level":"debug","msg":"[worker] task text: Email the overdue invoice reminder to the Hamburg clinic's billing office","ts":1714471300.5,"route":"/jobs"}`,
			[]string{"overdue invoice reminder to the Hamburg clinic"}, []string{`"ts":1714471300.5`, `"route":"/jobs"`}},
		{"a surname before the next field's label",
			"ORU^R01 rejected: surname Okonkwo-Hale DOB 03/11/1972 MRN 55102 missing",
			[]string{"Okonkwo-Hale", "03/11/1972"}, []string{"ORU^R01", "missing"}},
	})
}
