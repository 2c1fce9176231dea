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
