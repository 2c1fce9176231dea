package redact_test

import "testing"

// TestRoundElevenSecrets holds members of the credential family redaction
// holdout round 11 showed (testdata/holdout/README.md), in wordings other
// than the round's: a credential passed as an auth verb's positional
// argument on a command line.
func TestRoundElevenSecrets(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "a tool's login with a random token",
			in:      "$ fly auth token Fq8mZ2kR7pLx4Nw9Tb3Vc6Hd1Js5\nError: token rejected (401)",
			secrets: []string{"Fq8mZ2kR7pLx4Nw9Tb3Vc6Hd1Js5"},
			keep:    []string{"token rejected (401)"},
		},
		{
			name:    "an agent's authtoken subcommand",
			in:      "+ ngrok authtoken 2f9Kx0QbWzRn4TqLm8Vy_6HcJd3Pa7Es1\nERR_NGROK_107 authentication failed",
			secrets: []string{"2f9Kx0QbWzRn4TqLm8Vy_6HcJd3Pa7Es1"},
			keep:    []string{"ERR_NGROK_107"},
		},
		{
			name:    "a UUID after login",
			in:      "run: deepsource login 0c5d7a3e-91b2-4f6a-8e3d-2b7c9f1a0d64 --host app.example.dev exited 1",
			secrets: []string{"0c5d7a3e-91b2-4f6a-8e3d-2b7c9f1a0d64"},
			keep:    []string{"app.example.dev", "exited 1"},
		},
		{
			name: "an auth verb with a flag, a host or a word keeps them",
			in:   "gh auth login --with-token < t.txt; docker login registry.example.com; npm token list; az login tenant",
			keep: []string{"--with-token", "docker login registry.example.com", "npm token list", "az login tenant"},
		},
	})
}

// TestRoundElevenPersonal holds members of the personal-data families
// round 11 showed, in other wordings: a name beside an e-mail address in
// a thing's record (an event's payload), an INSERT's named parameters, a
// name under a key that says "name" and its owner in another language, a
// Ruby object's inspect, Dutch, Turkish and Swedish name and identity keys
// and labels.
func TestRoundElevenPersonal(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name:    "an account's display name beside its e-mail in an event",
			in:      `webhook event={"id": "ev_81", "email": "tomasz.wr@example.pl", "full_name": "Tomasz Wróblewski", "plan": "pro"}`,
			secrets: []string{"tomasz.wr@example.pl", "Tomasz Wróblewski"},
			keep:    []string{"ev_81", `"plan": "pro"`},
		},
		{
			name: "a thing's display name beside no e-mail stays",
			in:   `event={"id": "ev_82", "display_name": "Nightly Export", "status": "failed"}`,
			keep: []string{"Nightly Export"},
		},
		{
			name:    "an INSERT's dict of parameters under a person's table",
			in:      `[SQL: INSERT INTO accounts_member (login, realname, email) VALUES (%(login)s, %(realname)s, %(email)s)] [parameters: {'login': 'ochoa', 'realname': 'Ines Ochoa Pardo', 'email': 'ines@example.es'}]`,
			secrets: []string{"Ines Ochoa Pardo", "ines@example.es"},
			keep:    []string{"INSERT INTO accounts_member", "'login': 'ochoa'"},
		},
		{
			name:    "a name's column in Romance order",
			in:      "INSERT INTO `pedidos` (`nombreCliente`, `ciudad`, `total`) VALUES ('Marisol Quintero Vega', 'Sevilla', '88.10')",
			secrets: []string{"Marisol Quintero Vega"},
			keep:    []string{"'Sevilla'", "'88.10'"},
		},
		{
			name:    "a form's cardholder and a mailing name",
			in:      `POST /pay form: ctl00$body$txtCardName=Ewan McAllister&ctl00$body$ddlMonth=07 body={"MailingName": "Ewan McAllister", "City": "Perth"}`,
			secrets: []string{"Ewan McAllister"},
			keep:    []string{"ddlMonth=07", `"City": "Perth"`},
		},
		{
			name:    "the same name under a key that says nothing of it",
			in:      `upsert failed: {'label': 'Nora af Lindgren', 'customer_name': 'Nora af Lindgren', 'tier': 'gold'}`,
			secrets: []string{"Nora af Lindgren"},
			keep:    []string{"'tier': 'gold'"},
		},
		{
			name:    "a Ruby object's inspect under a debtor's class",
			in:      `#<Billing::CreditorPayment name: "Ottokar Brandstätter", iban: "DE89370400440532013000", reference: "INV-2026-0042">`,
			secrets: []string{"Ottokar Brandstätter", "DE89370400440532013000"},
			keep:    []string{"INV-2026-0042"},
		},
		{
			name: "a thing's inspect keeps its name",
			in:   `#<Sidekiq::Queue name: "mailers", size: 12>`,
			keep: []string{`name: "mailers"`, "size: 12"},
		},
		{
			name:    "a Dutch person's name parts",
			in:      `persoon={"naam": {"voornamen": "Pieter Jan", "voorvoegsel": "van", "geslachtsnaam": "Dijk"}, "gemeente": "Zwolle"}`,
			secrets: []string{"Pieter Jan", "Dijk"},
			keep:    []string{"Zwolle"},
		},
		{
			name:    "a Turkish surname under its label and the number by its labels",
			in:      "MERNIS sorgu: Ad: Emre Soyad: Çağlayan TC Kimlik No: 10000000146 kod=E-17",
			secrets: []string{"Emre", "Çağlayan", "10000000146"},
			keep:    []string{"TC Kimlik No", "kod=E-17"},
		},
		{
			name:    "a Turkish number under its abbreviation",
			in:      `kayıt reddedildi tckn=10000000146 sebep=mükerrer`,
			secrets: []string{"10000000146"},
			keep:    []string{"sebep=mükerrer"},
		},
		{
			name:    "a Swedish name under its key",
			in:      `Skatteverket svar 404: förnamn="Åsa" efternamn="Lindqvist" namn="Åsa Lindqvist"`,
			secrets: []string{"Åsa", "Lindqvist"},
			keep:    []string{"Skatteverket svar 404"},
		},
	})
}

// TestRoundElevenAgentSteps holds members of the prompt family round 11
// showed, in other wordings: an agent framework's run log, whose task
// descriptions, task outputs and final answers are content while the
// agent's name, the status and the times stay.
func TestRoundElevenAgentSteps(t *testing.T) {
	t.Parallel()
	stringCases(t, []planted{
		{
			name: "a verbose run's task and its output",
			in: "[2026-03-02 10:01:12][DEBUG]: == Working Agent: Claims Triage\n" +
				"[2026-03-02 10:01:12][INFO]: == Starting Task: Summarise the claim filed by the tenant about water damage in flat 4B\n" +
				"[2026-03-02 10:01:40][DEBUG]: == [Claims Triage] Task output: The tenant reports a burst pipe under the sink since Tuesday\n",
			secrets: []string{"water damage in flat 4B", "burst pipe under the sink"},
			keep:    []string{"== Working Agent: Claims Triage", "[2026-03-02 10:01:40]"},
		},
		{
			name:    "a ReAct agent's final answer over two lines",
			in:      "Thought: I know enough now\nFinal Answer: Refund the order for the customer in Leeds\nand send the apology template.\n\nFinished chain.",
			secrets: []string{"Refund the order for the customer in Leeds", "send the apology template"},
			keep:    []string{"Finished chain."},
		},
		{
			name:    "a run's log file with the task's description as a field",
			in:      "agent=Researcher2026-05-01 08:00:03: task=find the home phone of the applicant named in the form2026-05-01 08:00:03: status=started",
			secrets: []string{"home phone of the applicant"},
			keep:    []string{"agent=Researcher", "status=started"},
		},
		{
			name: "a task's name in a worker's log stays",
			in:   "worker=celery@w1 agent=beat task=reports.send_digest status=retry",
			keep: []string{"task=reports.send_digest", "status=retry"},
		},
	})
}
