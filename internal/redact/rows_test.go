package redact_test

import "testing"

// rowCases are a database's row printed with its columns nearby — an
// INSERT's own literals, the bound values a driver prints after its
// placeholders, PostgreSQL's failing row, SQL Server's duplicate key —
// whose values are judged by their columns (docs/design.md "Redaction",
// personal data by its record). Tables, drivers and values are none of the
// holdout rounds'.
var rowCases = []planted{
	{
		name:    "an INSERT's quoted literals",
		in:      "ERROR 1406 (22001): Data too long for column 'surname' at row 1 -- INSERT INTO customers (first_name, surname, city, plan) VALUES ('Matthias', 'Oberholzer', 'Basel', 'pro')",
		secrets: []string{"Matthias", "Oberholzer"},
		keep:    []string{"'Basel'", "'pro'", "Data too long for column 'surname'"},
	},
	{
		name:    "an INSERT's bindings printed bare into the SQL",
		in:      `Illuminate\Database\QueryException: SQLSTATE[23505] (SQL: insert into "members" ("display_name", "contact_email", "tier") values (Hamid Rezaei, h.rezaei@example.org, gold))`,
		secrets: []string{"Hamid Rezaei", "h.rezaei@example.org"},
		keep:    []string{"gold)", "SQLSTATE[23505]"},
	},
	{
		name:    "the bound values after a statement's placeholders",
		in:      `QueryFailedError: duplicate key value violates unique constraint "UQ_member_email" query: INSERT INTO "member"("full_name", "email", "plan") VALUES ($1, $2, $3) -- PARAMETERS: ["Oskar Lindgren","oskar.l@example.se","basic"]`,
		secrets: []string{"Oskar Lindgren", "oskar.l@example.se"},
		keep:    []string{`"basic"`, "UQ_member_email"},
	},
	{
		name:    "a failing row aligned with the statement before it",
		in:      "LOG:  execute S_1: INSERT INTO guests (id, full_name, birth_date, age) VALUES ($1, $2, $3, $4)\nERROR: new row for relation \"guests\" violates check constraint \"guests_age_check\"\nDETAIL: Failing row contains (17, Matteo Ricci, 2011-04-02, -3).",
		secrets: []string{"Matteo Ricci", "2011-04-02"},
		keep:    []string{"(17, ", ", -3)", "guests_age_check"},
	},
	{
		name:    "a failing row without its statement",
		in:      `ERROR: null value in column "plan_id" violates not-null constraint DETAIL: Failing row contains (5, Yusuf Demir, null, standard).`,
		secrets: []string{"Yusuf Demir"},
		keep:    []string{"violates not-null constraint", "standard"},
	},
	{
		name:    "SQL Server's duplicate key value under a personal index",
		in:      "Violation of UNIQUE KEY constraint 'UQ_Patients_FullName_BirthDate'. Cannot insert duplicate key in object 'dbo.Patients'. The duplicate key value is (Hanne Kjær, 1979-11-30).",
		secrets: []string{"Hanne Kjær", "1979-11-30"},
		keep:    []string{"UQ_Patients_FullName_BirthDate", "dbo.Patients"},
	},
	{
		name: "a thing's row keeps its values",
		in:   "ERROR: duplicate key value violates unique constraint \"queues_name_key\" (SQL: insert into queues (name, region, owner_team) values ('fetch-dlq', 'eu-west-1', 'platform'))",
		keep: []string{"'fetch-dlq'", "'eu-west-1'", "'platform'"},
	},
	{
		name: "SQL Server's duplicate key value under an order's index",
		in:   "Cannot insert duplicate key row in object 'dbo.Orders' with unique index 'IX_Orders_ExternalRef'. The duplicate key value is (ORD-55120).",
		keep: []string{"(ORD-55120)"},
	},
}

func TestRowsByTheirColumns(t *testing.T) {
	t.Parallel()
	stringCases(t, rowCases)
}
