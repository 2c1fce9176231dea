package redact_test

import "testing"

// TestRoundTwelveSecrets holds members of the credential families
// redaction holdout round 12 showed (testdata/holdout/README.md), in
// wordings other than the round's: an ODBC braced value holding a brace,
// a database driver's connect call's positional password in a stack trace
// or a line of code, a password file's entry quoted after the file's name.
func TestRoundTwelveSecrets(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "an ODBC braced password holding a brace and a semicolon",
			in:      `pyodbc.InterfaceError: ('28000', "[Microsoft][ODBC Driver 18 for SQL Server]Login failed") conn_str=Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql7.example.net,1433;Uid=etl;Pwd={k2{Vb;9x}}Qe=};Encrypt=yes`,
			secrets: []string{"k2{Vb;9x}}Qe="},
			keep:    []string{"Login failed", "sql7.example.net,1433", "Encrypt=yes", "Driver={ODBC Driver 18 for SQL Server}"},
		},
		{
			name: "a template's double brace stays",
			in:   `Server=db;Uid=app;Pwd={{ vault_sql_password }};`,
			keep: []string{"{{ vault_sql_password }}"},
		},
		{
			name:    "mysqli's real_connect after its object in a PHP trace",
			in:      "#3 /srv/shop/db.php(41): mysqli_real_connect(Object(mysqli), 'mysql-primary.shop.svc', 'shop_rw', 'Hq4#tZ8pWm', 'shop', 3306)\n#4 {main}",
			secrets: []string{"Hq4#tZ8pWm"},
			keep:    []string{"mysql-primary.shop.svc", "'shop_rw'", "db.php(41)"},
		},
		{
			name:    "new PDO with a pgsql DSN",
			in:      `$pdo = new PDO("pgsql:host=10.20.0.5;port=5432;dbname=ledger", "ledger_app", "rT7vY2qLs9Kd");`,
			secrets: []string{"rT7vY2qLs9Kd"},
			keep:    []string{"dbname=ledger", `"ledger_app"`},
		},
		{
			name:    "JDBC's getConnection and Oracle's user-first connect",
			in:      "DriverManager.getConnection(\"jdbc:mariadb://maria:3306/erp\", \"erp\", \"Nb6mK1xQ\")\n$c = oci_connect('hr', 'W0rk4hr2024', 'ora.example.com/HRPDB');",
			secrets: []string{"Nb6mK1xQ", "W0rk4hr2024"},
			keep:    []string{"jdbc:mariadb://maria:3306/erp", "'hr'", "ora.example.com/HRPDB"},
		},
		{
			name: "a connect call with variables or a call keeps them",
			in:   `$db = new PDO('mysql:host=db;dbname=x', $user, getenv('DB_PASS')); mysqli_connect($host, $user, $pass);`,
			keep: []string{"$user, getenv('DB_PASS')", "mysqli_connect($host, $user, $pass)"},
		},
		{
			name:    "grep's numbered line of a password file",
			in:      "$ grep -n reporting ~/.pgpass\n/var/lib/ci/.pgpass:4:10.8.1.40:6432:reporting:bi_reader:Lp3sX9vQ2a",
			secrets: []string{"Lp3sX9vQ2a"},
			keep:    []string{"10.8.1.40:6432:reporting:bi_reader"},
		},
		{
			name: "a time after the file's name stays",
			in:   "pgpass check at 12:30:45:01 passed",
			keep: []string{"12:30:45:01"},
		},
	})
}

// TestRoundTwelvePrompts holds members of the content families round 12
// showed, in other wordings: a question quoted in a query's WHERE clause,
// a request validator's echo of a content parameter (botocore's, a JSON
// Schema validator's behind a model endpoint), a content key at the end of
// an indexed path, a parser's failure that quotes the answer before its
// target type.
func TestRoundTwelvePrompts(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "a stored question searched with ILIKE",
			in:      "QueryCanceled: canceling statement due to statement timeout: SELECT id FROM chat_log m WHERE m.tenant_id = 42 AND m.question ILIKE '%can I get a refund for the blender I bought%' ORDER BY id",
			secrets: []string{"can I get a refund for the blender I bought"},
			keep:    []string{"m.tenant_id = 42", "ORDER BY id", "statement timeout"},
		},
		{
			name:    "an agent table's prompt column compared with =",
			in:      `agent error: SELECT completion FROM support_agent WHERE "prompt" = 'Why was my card declined at the pharmacy yesterday?' USING max_tokens = 200;`,
			secrets: []string{"Why was my card declined at the pharmacy"},
			keep:    []string{"support_agent", "max_tokens = 200"},
		},
		{
			name: "a WHERE clause over other columns keeps its literals",
			in:   "ERROR: SELECT * FROM jobs WHERE status = 'failed' AND owner = 'Ops team on call rota for this week'",
			keep: []string{"'failed'", "Ops team on call rota for this week"},
		},
		{
			name:    "botocore's invalid type echoing a dict under inputText",
			in:      "ParamValidationError: Parameter validation failed:\nInvalid type for parameter inputText, value: {'q': 'Write a limerick about our third quarter churn'}, type: <class 'dict'>, valid types: <class 'str'>",
			secrets: []string{"Write a limerick about our third quarter churn"},
			keep:    []string{"parameter inputText", "valid types: <class 'str'>"},
		},
		{
			name: "botocore's echo of a parameter that holds no content stays",
			in:   "Invalid type for parameter MaxResults, value: ten, type: <class 'str'>, valid types: <class 'int'>",
			keep: []string{"value: ten"},
		},
		{
			name:    "a schema validator's string under a content path",
			in:      `ValidationException: Malformed input request: #/messages/0/content/0/text: string [Translate the attached lease into plain English for the tenant] does not match pattern ^\S.*$, please reformat your input and try again.`,
			secrets: []string{"Translate the attached lease into plain English"},
			keep:    []string{"#/messages/0/content/0/text", "does not match pattern"},
		},
		{
			name: "a schema validator's string under a version stays",
			in:   "Malformed input request: #/anthropic_version: string [bedrock-2022] is not a valid enum value",
			keep: []string{"string [bedrock-2022]"},
		},
		{
			name:    "a content key at the end of an indexed path",
			in:      `DEBUG gateway: body.messages[2].text="Draft a polite reply to the landlord about the leak" items[3].count=5`,
			secrets: []string{"Draft a polite reply to the landlord"},
			keep:    []string{"items[3].count=5"},
		},
		{
			name:    "a parser that cannot parse a quoted answer as its type",
			in:      "OutputParserException: Cannot parse 'Sure! Here is the summary of the call with Dr. Okafor' as JSON\n\tat com.example.Planner.plan(Planner.java:88)",
			secrets: []string{"Here is the summary of the call with Dr. Okafor"},
			keep:    []string{"as JSON", "Planner.java:88"},
		},
		{
			name: "a parse failure of a short value stays",
			in:   `Failed to parse "42x" into java.lang.Integer`,
			keep: []string{`"42x"`, "java.lang.Integer"},
		},
	})
}
