package redact_test

import (
	"encoding/json"
	"testing"
)

// proseCases hold free text under keys that say nothing of it, and the
// system's own text under keys that do (docs/design.md "Redaction": free
// text under a key that says nothing of it). The keys and wordings are
// none of the holdout rounds'.
var proseCases = []planted{
	{
		name:    "a Go map's unknown member",
		in:      `render failed: data: map[Lang:en Order:map[Remark:please leave the parcel with the neighbour at number twelve Ref:ord_551]]`,
		secrets: []string{"leave the parcel with the neighbour"},
		keep:    []string{"ord_551", "render failed", "Lang:en"},
	},
	{
		name:    "a JSON member no table names",
		in:      `{"ticket_ref": "t-88", "complaint": "My daughter's inhaler was delivered to the wrong flat twice", "priority": "high"}`,
		secrets: []string{"inhaler was delivered to the wrong flat"},
		keep:    []string{"t-88", "priority", "high"},
	},
	{
		name:    "logfmt's quoted value",
		in:      `level=warn msg="moderation skipped" transcript_snippet="we talked about moving the appointment to friday morning" call=CA77`,
		secrets: []string{"moving the appointment to friday"},
		keep:    []string{`msg="moderation skipped"`, "call=CA77"},
	},
	{
		name:    "a YAML line beside a question",
		in:      "question: When does the warranty on the boiler end?\nbackground: The boiler was fitted by the previous owner in the spring of last year.\n",
		secrets: []string{"fitted by the previous owner"},
	},
	{
		name: "the system's own text stays",
		in:   `{"error": {"message": "The model is overloaded, please try again later", "hint": "Lower the request rate or switch to another model", "type": "overloaded_error"}}`,
		keep: []string{"The model is overloaded, please try again later", "Lower the request rate or switch to another model"},
	},
	{
		name: "a DSN, a date and a status line are no free text",
		in:   `conn="host=db.internal port=5432 dbname=app sslmode=require" when="Tue, 03 Feb 2026 10:00:00 GMT" line="HTTP/1.1 503 Service Unavailable"`,
		keep: []string{"db.internal", "Tue, 03 Feb 2026 10:00:00 GMT", "503 Service Unavailable"},
	},
	{
		name: "programs' messages at a line's start",
		in:   "curl: (7) Failed to connect to feeds.example.org port 443 after 3 ms\nfatal: unable to access the remote repository over https\n",
		keep: []string{"Failed to connect to feeds.example.org port 443", "unable to access the remote repository"},
	},
}

func TestProseUnderUnknownKeys(t *testing.T) {
	t.Parallel()
	eachEveryWay(t, proseCases, true)
}

// summaryCases hold a summary beside the content it summarizes, and the
// documents retrieved for a prompt under a plural key (docs/design.md
// "Redaction", 1), in other vendors' wordings.
var summaryCases = []planted{
	{
		name:    "a call's summary beside its transcript",
		in:      `{"event": "call.completed", "call_id": "c-7731", "messages": [{"role": "bot", "text": "Hello"}], "recap": "Caller wants to move her smear test to a Saturday morning", "duration_ms": 48000}`,
		secrets: []string{"move her smear test to a Saturday"},
		keep:    []string{"c-7731", "call.completed", `"duration_ms": 48000`},
	},
	{
		name: "a run's summary stays",
		in:   `{"job": "nightly-export", "summary": "Exported 4120 rows to the warehouse in three batches", "status": "ok"}`,
		keep: []string{"Exported 4120 rows to the warehouse in three batches"},
	},
	{
		name:    "retrieved contexts in a repr",
		in:      `EvalRow(question_id=q-19, retrieval_contexts=['Tenants must give eight weeks notice before moving out of the flat.'], score=0.42)`,
		secrets: []string{"eight weeks notice before moving out"},
		keep:    []string{"question_id=q-19", "score=0.42"},
	},
}

func TestSummaryBesideContent(t *testing.T) {
	t.Parallel()
	for _, c := range summaryCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.everyWay(t, false)
			// Value's output is compact JSON: only the secrets are sought.
			if json.Valid([]byte(c.in)) {
				planted{secrets: c.secrets}.check(t, "Value", valueOf(t, c.in))
			}
		})
	}
}
