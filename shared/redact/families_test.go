package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// familyCases hold members of the families the holdout's first reading
// found that neither the holdout nor the corpus holds — other vendors,
// other tools, other spellings — to show each rule reasons about the
// structure, and the plain facts next to them that must stay.
var familyCases = []struct {
	name string
	in   string
	gone []string // must not survive
	kept []string // must survive unchanged
}{
	// The credential slot of an Authorization header.
	{"custom scheme with a short token", "retry 2: 401 (Authorization: Acme-Token 7f3k9q) at https://api.acme.example/v1",
		[]string{"7f3k9q"}, []string{"Acme-Token", "https://api.acme.example/v1"}},
	{"proxy header with a UUID", "Proxy-Authorization: Custom 0b9d4a3c-7e21-4f5a-9c1d-2e3f4a5b6c7d\nHost: x",
		[]string{"0b9d4a3c-7e21-4f5a-9c1d-2e3f4a5b6c7d"}, []string{"Host: x"}},
	{"auth-params without secret names", `sent Authorization: MyScheme keyid="k-17-x", nonce="n0nce99", mac="Zm9vYmFyYmF6"`,
		[]string{"k-17-x", "Zm9vYmFyYmF6"}, []string{"MyScheme"}},
	{"auth-params that name their secret", `sent Authorization: MyScheme keyId="k-17", sig="Zm9vYmFyYmF6"`,
		[]string{"Zm9vYmFyYmF6"}, nil},
	// Command lines.
	{"long password flag", "+ vault login --method=userpass --username=ops --password=Hunter22 -address=https://vault:8200",
		[]string{"Hunter22"}, []string{"--username=ops", "--method=userpass"}},
	{"single-dash pass flag", "+ jarsigner -keystore rel.jks -keypass S3cret!x -storetype JKS app.apk",
		[]string{"S3cret!x"}, []string{"-storetype JKS"}},
	{"short flags that stay", "+ docker run -p 8080:80 -t app:v2 nginx && ssh -p 2222 h && curl -w '%{http_code}' -a x && kubectl logs -p api-7d9f8",
		nil, []string{"-p 8080:80", "-t app:v2", "-p 2222", "'%{http_code}'", "-p api-7d9f8"}},
	{"short password flag", "+ mysqladmin -u root -p Zx9!wq ping && influx -t 5e0c6a1d-2b3f-4c8e-9d7a-1f2e3d4c5b6a query",
		[]string{"Zx9!wq", "5e0c6a1d-2b3f-4c8e-9d7a-1f2e3d4c5b6a"}, []string{"-u root"}},
	{"password from stdin names no secret", "+ docker login --password-stdin registry.acme.example && pg_dump --no-password billing && x264 --passes 3",
		nil, []string{"registry.acme.example", "--no-password billing", "--passes 3"}},
	{"connect string", "+ rman target sys/Orcl_2026x@db01.corp:1521/ORCL",
		[]string{"Orcl_2026x"}, []string{"db01.corp:1521/ORCL"}},
	{"image digest is no connect string", "image library/ubuntu@sha256:6216f64ab88fc51d311e38c7f69ca3f9aaba621492b4f1fa93ddf63093768845",
		nil, []string{"library/ubuntu@sha256:6216f64ab88fc51d311e38c7f69ca3f9aaba621492b4f1fa93ddf63093768845"}},
	// Tokens in URL paths.
	{"intake token after a named segment", "POST https://collector.acme.example/v2/ingest/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/events -> 403",
		[]string{"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"}, []string{"collector.acme.example/v2/ingest/", "/events -> 403"}},
	{"key right after the host", "curl https://status.acme.example/0f9e8d7c6b5a49382716a5b4c3d2e1f0 failed",
		[]string{"0f9e8d7c6b5a49382716a5b4c3d2e1f0"}, []string{"status.acme.example"}},
	{"short token after a webhook segment", "POST https://n8n.acme.example/webhook/2c7e9a4f1b3d5e6f -> 404; POST https://acme.example/webhook/order-created-v2 -> 200",
		[]string{"2c7e9a4f1b3d5e6f"}, []string{"/webhook/order-created-v2 -> 200"}},
	{"one-time codes and HMACs in a query", "GET https://x.example/cb?hmac=8f2a9c1e7b3d&verification_code=482913&country_code=FR&currency_code=EUR&status_code=200",
		[]string{"8f2a9c1e7b3d", "482913"}, []string{"country_code=FR", "currency_code=EUR", "status_code=200"}},
	{"resource ids stay", "GET https://api.acme.example/v1/users/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/orders and s3://bucket/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/part-0",
		nil, []string{"/v1/users/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/orders", "s3://bucket/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/part-0"}},
	// PHP dumps.
	{"print_r of an object", "App\\Mailer Object\n(\n    [host:protected] => smtp.acme.example\n    [smtpPass:App\\Mailer:private] => pl41n-w0rd\n    [port] => 587\n)",
		[]string{"pl41n-w0rd"}, []string{"[host:protected] => smtp.acme.example", "[port] => 587"}},
	{"var_dump of a prompt with quotes inside", "array(2) {\n  [\"prompt\"]=>\n  string(34) \"Tell \"Sam\" his MRI is on Friday\"\n  [\"max_tokens\"]=>\n  int(64)\n}",
		[]string{"MRI is on Friday", "Sam"}, []string{"int(64)", `["max_tokens"]=>`}},
	// Session ids in prose.
	{"session id in prose", "WARN c.e.web.SessionFilter : Session 9F8E7D6C5B4A39281706F5E4D3C2B1A0 invalidated; PHP: unknown session id 7hq2mvx0c3kd9e1fw8p4zt6nr5 in /srv/app.php; session ended normally",
		[]string{"9F8E7D6C5B4A39281706F5E4D3C2B1A0", "7hq2mvx0c3kd9e1fw8p4zt6nr5"}, []string{"c.e.web.SessionFilter", "session ended normally", "/srv/app.php"}},
	{"a logger's name is no key", "INFO c.e.auth.TokenService : Token refreshed for user 42",
		nil, []string{"c.e.auth.TokenService : Token refreshed for user 42"}},
	// toString() dumps and input lists.
	{"Java toString with a bare prompt", "retry 1 of LlmRequest{model=claude-3-haiku, prompt=Summarise Ana's claim (urgent), then reply, temperature=0.1, stop=null} -> 529",
		[]string{"Ana's claim", "then reply"}, []string{"model=claude-3-haiku", "temperature=0.1", "stop=null} -> 529"}},
	{"Kotlin toString with a list of turns", "failed: Conversation(id=conv-81, turns=[Turn(role=user, text=Is Kofi's MRI booked?)], tokens=12)",
		[]string{"Kofi's MRI"}, []string{"id=conv-81", "tokens=12)"}},
	{"toString without content stays", "pool: DbConfig(host=db.internal, port=5432, user=app, maxIdle=4)",
		nil, []string{"DbConfig(host=db.internal, port=5432, user=app, maxIdle=4)"}},
	{"input list after '='", "embed failed: model=voyage-3 input=[\"Ana's lab results\", \"Ben's referral\"] truncation=true",
		[]string{"Ana's lab results", "Ben's referral"}, []string{"model=voyage-3", "truncation=true"}},
	// Rendered prompts and retrieved passages in log prose.
	{"rendered prompt over lines", "2026-03-02 10:00:01 DEBUG Formatted prompt: You are Mr Osei's pension adviser.\n  Question: can he retire at 60?\n2026-03-02 10:00:02 ERROR 429 from api.openai.com",
		[]string{"Osei's pension", "retire at 60"}, []string{"ERROR 429 from api.openai.com"}},
	{"tool output label", "agent step 3 | Tool output: Found 2 invoices for Keller GmbH totalling 4,210 EUR",
		[]string{"Keller GmbH"}, []string{"agent step 3"}},
	{"error sentences and plain labels stay", "Error: Unable to parse the prompt: unexpected token\nResult: 200 OK\nStatus: degraded",
		nil, []string{"Unable to parse the prompt: unexpected token", "Result: 200 OK", "Status: degraded"}},
	{"retrieval hit", "- [doc-17] [score=0.91] Maria Lopez was diagnosed with asthma in 2019\n- [doc-4] [score=0.55] Policy renewal is due in May",
		[]string{"diagnosed with asthma", "renewal is due"}, []string{"[doc-17] [score=0.91]", "[doc-4] [score=0.55]"}},
	{"a credential tuple", "HTTPError 401 for GET https://api.acme.example/v1 (auth=('svc-reports', 'q9Zx2Lw8Rt5'), timeout=30)",
		[]string{"q9Zx2Lw8Rt5"}, []string{"timeout=30", "https://api.acme.example/v1"}},
	// Phone numbers in national groupings, with no label.
	{"national groupings", "rappel au 04 78 12 34 56; Brussel 0470 12 34 56; Zürich 044 668 18 00; Milano 02 1234 5678; Wien 0043 1 234 56 78",
		[]string{"04 78 12 34 56", "0470 12 34 56", "044 668 18 00", "02 1234 5678", "0043 1 234 56 78"}, []string{"rappel au", "Zürich"}},
	{"groups that are no phone", "ids 020 7946 0958; dump 00000010  16 03 01 02 00 01 00 01; date 2026-03-02 10:11:12; v0.4.12; order 0412-5551",
		nil, []string{"ids 020 7946 0958", "16 03 01 02 00 01 00 01", "2026-03-02 10:11:12", "v0.4.12", "0412-5551"}},
	// Compound content keys.
	{"compound content keys", `{"system_prompt": "You are Ada's tutor", "user_message": "my exam is on May 3", "retrieval.documents.1.document.content": "Clause 4 lets Bob sublet", "content_type": "text/plain", "error_message": "quota exceeded", "prompt_tokens": 12}`,
		[]string{"Ada's tutor", "exam is on May 3", "Bob sublet"}, []string{`"content_type": "text/plain"`, `"error_message": "quota exceeded"`, `"prompt_tokens": 12`}},
	{"a digest of content is no content", `{"MD5OfMessageBody": "2e5a1c0b7f3d9e8a6b4c2d1f0e9a8b7c", "content_sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "input.value": "Ana's lab results"}`,
		[]string{"Ana's lab results"}, []string{"2e5a1c0b7f3d9e8a6b4c2d1f0e9a8b7c", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}},
	{"debug exporter attribute", "     -> llm.input_messages.0.message.content: Str(Please cancel Maria's order)\n     -> llm.model_name: Str(gpt-4o)",
		[]string{"cancel Maria's order"}, []string{"llm.model_name: Str(gpt-4o)"}},
	{"a turn's message, an error's message", `turns=[{"speaker": "customer", "message": "my card ending 4421 was charged twice"}] err={"message": "upstream timeout", "code": 504}`,
		[]string{"charged twice"}, []string{`"message": "upstream timeout"`}},
}

// TestTurnsInJSON: a turn's message is content in a JSON document, through
// JSON and Value alike; an error's message and a log record's stay.
func TestTurnsInJSON(t *testing.T) {
	t.Parallel()
	doc := `{"chat_history":[{"role":"USER","message":"my son Callum is 9"}],"message":"can he join?","turns":[{"speaker":"agent","msg":"Ines is allergic"}],"error":{"message":"rate limited","code":429},"log":{"level":"warn","msg":"completion rejected","completion":"take 20mg"}}`
	outs := map[string]string{"JSON": string(JSON([]byte(doc)))}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Value(v))
	outs["Value"] = string(b)
	for name, out := range outs {
		for _, s := range []string{"Callum", "can he join", "Ines is allergic", "take 20mg"} {
			if strings.Contains(out, s) {
				t.Errorf("%s: %q survived: %s", name, s, out)
			}
		}
		if !strings.Contains(out, `"message":"rate limited"`) || !strings.Contains(out, `"msg":"completion rejected"`) {
			t.Errorf("%s: the error's message is lost: %s", name, out)
		}
	}
}

func TestFamilies(t *testing.T) {
	t.Parallel()
	for _, tc := range familyCases {
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
