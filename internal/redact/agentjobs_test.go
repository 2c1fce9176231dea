package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// agentJobCases hold members of the families round 2 of the holdout found
// — agent frameworks' transcripts, job queues' arguments, secrets deeper in
// a URL's path — that neither the holdout nor the corpus holds, and the
// plain facts beside them that must stay.
var agentJobCases = []struct {
	name string
	in   string
	gone []string // must not survive
	kept []string // must survive unchanged
}{
	// Secrets in URL paths.
	{"webhook secret past the webhook's name", "POST https://auto.acme.example/webhooks/crm/lead-sync/Zt4mW9qLx2Rb7Kc5 -> 401",
		[]string{"Zt4mW9qLx2Rb7Kc5"}, []string{"auto.acme.example/webhooks/crm/lead-sync/", "-> 401"}},
	{"webhook deliveries stay", "GET https://api.acme.example/repos/a/b/hooks/48211/deliveries/9120553 and /hooks/48211/config",
		nil, []string{"/hooks/48211/deliveries/9120553", "/hooks/48211/config"}},
	{"key after an API version", "GET https://api.acme.example/soap/v3/0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9/Account 401",
		[]string{"0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"}, []string{"/Account 401"}},
	{"ids after an API version and digests elsewhere stay", "GET https://api.acme.example/v1/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/items and https://r.acme.example/v2/app/blobs/sha256/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		nil, []string{"/v1/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/items", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}},
	// A job's arguments.
	{"Celery tuple without brackets elsewhere", "Task t.reply[9] raised: E()\nargs=(4412, 'Please tell my landlord the boiler failed again', 'FULL')",
		[]string{"boiler failed again"}, []string{"args=(4412, '", "', 'FULL')"}},
	{"kwargs judged by key, then by shape", `kwargs: {'api_key': 'abc123XYZ789', 'note': 'call her back after six, she is worried', 'region': 'eu-west-1', 'when': '2026-03-14 10:42:55'}`,
		[]string{"abc123XYZ789", "she is worried"}, []string{"'region': 'eu-west-1'", "'when': '2026-03-14 10:42:55'"}},
	{"Ruby hash args", `WARN: {"class"=>"ReplyJob", "args"=>["usr_9", "my parcel never came and I am moving abroad"], "jid"=>"b3dbe9255da3b2a74aa43c74"}`,
		[]string{"my parcel never came"}, []string{`"usr_9"`, "b3dbe9255da3b2a74aa43c74"}},
	{"free text outside a job's arguments stays", `{"error_message": "the server responded with status 429 after a long wait", "argv": ["run", "--mode", "a quick test of the batch"]}`,
		nil, []string{"the server responded with status 429 after a long wait", "a quick test of the batch"}},
	{"Active Job's arguments in prose", `[ActiveJob] Enqueued ReplyJob (Job ID: 61fbc6aa) to Sidekiq(llm) with arguments: "usr_551", "How do I cancel without paying the exit fee?", 42`,
		[]string{"cancel without paying"}, []string{"Sidekiq(llm) with arguments: ", ", 42"}},
	{"a job printed as a call", "[ERROR] Failed to process message answer_ticket('tkt_9', 'The invoice address is wrong since June', retries=3) with unhandled exception.\ndefault: tasks.summarize('Translate the lease for the Berg family today', 'FULL') (7c1f2e3d)",
		[]string{"invoice address is wrong", "lease for the Berg family"}, []string{"answer_ticket('tkt_9', '", "retries=3) with unhandled exception.", "tasks.summarize('", "', 'FULL') (7c1f2e3d)"}},
	{"an exception's message and a function's short literal stay", "ValueError('user message content is empty here') in load('config.yaml') and get('a b')",
		nil, []string{"ValueError('user message content is empty here')", "load('config.yaml')", "get('a b')"}},
	// Transcripts: the header stays, the text under it goes.
	{"DSPy headers with colour codes", "\x1b[31mUser message:\x1b[0m\n\n[[ ## claim ## ]]\nMy roof leaked onto the new piano in March\n\n\x1b[31mResponse:\x1b[0m\n\n[[ ## verdict ## ]]\ncovered under water damage",
		[]string{"roof leaked onto the new piano", "covered under water damage"}, []string{"User message:", "[[ ## claim ## ]]", "[[ ## verdict ## ]]"}},
	{"framed speakers and a summary that stays", "-------------------- Tool Message --------------------\nSven's balance is 4 310 kroner\n---------- Summary ----------\nTotal tokens: 812, Duration: 3.2 s",
		[]string{"Sven's balance"}, []string{"Tool Message", "Total tokens: 812, Duration: 3.2 s"}},
	{"speaker line up to the traceback", "Critic (to Writer):\n\nThe draft names the patient, remove it.\nTraceback (most recent call last):\n  File \"x.py\", line 3",
		[]string{"names the patient"}, []string{"Critic (to Writer):", "Traceback (most recent call last):", `File "x.py", line 3`}},
	{"Markdown heading labels, speakers stay, comments stay", "# Agent: Claims Reviewer\n## Thought: the claimant Ola lives alone\n# created: 2026-03-01\n# public key: age1qgfqwx4cwxnf",
		[]string{"the claimant Ola lives alone"}, []string{"# Agent: Claims Reviewer", "# created: 2026-03-01", "# public key: "}},
	{"role keys over indented text, a mapping under user stays", "system:\n  You are terse with Ms Dahl.\nuser:\n  name: ops\n  uid: 1001",
		[]string{"terse with Ms Dahl"}, []string{"name: ops", "uid: 1001"}},
	{"PEM armour is no framed heading", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\nverifier ready",
		nil, []string{"verifier ready", "-----END PUBLIC KEY-----"}},
	// Role calls.
	{"role calls in code", `prompt = system("Be brief with Mr Lund") + user('He owes 300 kroner') ; UserMessage.from("Karin asked twice"); AIMessage('Sure, Karin') ; print('done') ; ValueError('user message content is empty')`,
		[]string{"Be brief with Mr Lund", "He owes 300 kroner", "Karin asked twice", "Sure, Karin"}, []string{"print('done')", "ValueError('user message content is empty')"}},
	// A content key's value over lines.
	{"content key over lines up to the next key", "last_prompt: <data>\nrow 1\n</data>\n\nFind Per's overdue invoices\nmodel: gpt-4o\nprompt: hi there\nERROR: timeout",
		[]string{"Find Per's overdue invoices", "hi there"}, []string{"model: gpt-4o", "ERROR: timeout"}},
}

// TestJobArgsInJSON: JSON and Value judge a job's arguments as String does.
func TestJobArgsInJSON(t *testing.T) {
	t.Parallel()
	doc := `{"class":"ReplyJob","args":["tkt_1",{"ticket":"T-9","note":"she asked for a refund of both charges"}],"kwargs":{"lang":"en"},"error_message":"status 429 from the upstream service"}`
	outs := map[string]string{"JSON": string(JSON([]byte(doc)))}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Value(v))
	outs["Value"] = string(b)
	for name, out := range outs {
		if strings.Contains(out, "refund of both charges") {
			t.Errorf("%s: an argument survived: %s", name, out)
		}
		for _, k := range []string{`"tkt_1"`, `"ticket":"T-9"`, `"lang":"en"`, `"error_message":"status 429 from the upstream service"`} {
			if !strings.Contains(out, k) {
				t.Errorf("%s: lost %s: %s", name, k, out)
			}
		}
	}
	plain := `{"class":"ReindexJob","args": [1042, "eu-west-1"]}`
	if out := string(JSON([]byte(plain))); out != plain {
		t.Errorf("arguments without free text changed: %s", out)
	}
}

func TestAgentJobFamilies(t *testing.T) {
	t.Parallel()
	for _, tc := range agentJobCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := String(tc.in)
			for _, s := range tc.gone {
				if strings.Contains(got, s) {
					t.Errorf("%q survived\n in: %s\nout: %s", s, tc.in, got)
				}
			}
			for _, s := range tc.kept {
				if !strings.Contains(got, s) {
					t.Errorf("lost %q\n in: %s\nout: %s", s, tc.in, got)
				}
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent\n once: %s\ntwice: %s", got, again)
			}
		})
	}
}
