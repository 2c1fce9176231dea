package redact_test

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// benchError is a typical failure log line (~300 bytes) with one key in it.
const benchError = `llm stage: item story-000123 attempt 3/5 (correlation c0ffee00-1234-4abc-8def-0123456789ab): ` +
	`POST https://api.openai.com/v1/chat/completions: 401 Unauthorized: Incorrect API key provided: ` +
	`sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm. You can find your API key at ` +
	`https://platform.openai.com/account/api-keys. (request req_8f2a9c1d, 412ms)`

// benchClean is 1 KiB of clean operator text: ids, statuses, timestamps.
var benchClean = func() string {
	line := "2024-01-15T10:30:00Z stage=llm item=story-000123 status=429 class=RATE_LIMITED " +
		"model=gpt-4o-mini retry_in=6m0s attempts=3 max_tokens=4096 request=req_8f2a9c1d ok.\n"
	s := strings.Repeat(line, 1024/len(line)+1)
	return s[:1024]
}()

// benchJSON is a ~2 KiB provider error body with request context around it.
var benchJSON = []byte(`{
  "item_id": "story-000123",
  "stage": "llm",
  "correlation_id": "c0ffee00-1234-4abc-8def-0123456789ab",
  "attempts": 3,
  "first_failure_at": "2024-01-15T10:30:00Z",
  "last_failure_at": "2024-01-15T10:36:00Z",
  "request": {
    "url": "https://api.openai.com/v1/chat/completions",
    "headers": {"Authorization": "Bearer sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm", "Content-Type": "application/json", "OpenAI-Organization": "org-abc"},
    "body": {
      "model": "gpt-4o-mini",
      "max_tokens": 512,
      "temperature": 0.2,
      "messages": [
        {"role": "system", "content": "You are a careful news editor. Summarize the article in three sentences, neutral tone, no speculation."},
        {"role": "user", "content": "Article: The city council met on Tuesday to discuss the new transit plan, which would add three bus lines and extend the light rail to the airport by 2027. Residents raised concerns about construction noise and the cost of the project, estimated at 1.2 billion dollars. The council will vote next month."}
      ]
    }
  },
  "response": {
    "status": 429,
    "headers": {"x-request-id": "req_8f2a9c1d3e4b5a6f", "x-ratelimit-limit-tokens": "30000", "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s", "retry-after": "360"},
    "body": "{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min (TPM): Limit 30000, Used 29541, Requested 1733. Please try again in 2.548s. Visit https://platform.openai.com/account/rate-limits to learn more.\",\"type\":\"tokens\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}"
  },
  "error_class": "RATE_LIMITED",
  "retryable": true,
  "last_stack": "goroutine 1 [running]:\nmain.(*Handler).call(0xc000010000)\n\t/var/task/llm.go:142 +0x1d\nmain.(*Handler).Handle(0xc000010000, {0x1, 0x2})\n\t/var/task/handler.go:88 +0x2a"
}`)

func BenchmarkString(b *testing.B) { benchString(b, benchError, "Zx9Qw8Er") }

// benchString times String over s, which holds gone: a secret or a name
// that must not survive.
func benchString(b *testing.B, s, gone string) {
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if out := redact.String(s); strings.Contains(out, gone) {
			b.Fatalf("%q survived", gone)
		}
	}
}

func BenchmarkStringClean(b *testing.B) {
	b.SetBytes(int64(len(benchClean)))
	b.ReportAllocs()
	for b.Loop() {
		if out := redact.String(benchClean); len(out) != len(benchClean) {
			b.Fatal("clean text changed")
		}
	}
}

func BenchmarkJSON(b *testing.B) {
	b.SetBytes(int64(len(benchJSON)))
	b.ReportAllocs()
	for b.Loop() {
		if out := redact.JSON(benchJSON); strings.Contains(string(out), "Zx9Qw8Er") {
			b.Fatal("key survived")
		}
	}
}

func BenchmarkText(b *testing.B) {
	s := strings.Repeat("Summarize the following article. ", 128)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = redact.Text(s)
	}
}

// BenchmarkStringDigits is the slow path: 4 KiB of numbers with separators
// (a metrics dump), where the digit patterns must look at every run.
func BenchmarkStringDigits(b *testing.B) {
	line := "2024-01-15 10:30:00 latency_ms 1234.5 p99 2048 bytes 1048576 ids 123 456 7890 4111 1111 1111 1112\n"
	s := strings.Repeat(line, 4096/len(line)+1)[:4096]
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = redact.String(s)
	}
}

// benchTokens is an error message holding credentials only the ported
// gitleaks rules name: a GitLab token and a DigitalOcean token.
const benchTokens = `deploy stage: item story-000123 attempt 2/5: git push https://gitlab.example.com/group/app.git failed: ` +
	`HTTP Basic: Access denied (token glpat-Zq3xV9kLm2Pw8RtY4bNc); ` +
	`then doctl failed with DIGITALOCEAN_ACCESS_TOKEN=dop_v1_2da8d757801cf349b4b7cf0d099b459b4c034c3b5df6bc6d355448ed2e8a4479 (request req_8f2a9c1d, 412ms)`

func BenchmarkStringTokens(b *testing.B) { benchString(b, benchTokens, "Zq3xV9kL") }

// The same inputs through gitleaks' detector (default rules), the
// alternative the runtime could call instead of String: it only finds, so
// the figures are a floor for redacting with it.
func benchGitleaks(b *testing.B, s string) {
	det := gitleaks(b)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		_ = det.DetectString(s)
	}
}

func BenchmarkGitleaksError(b *testing.B)  { benchGitleaks(b, benchError) }
func BenchmarkGitleaksClean(b *testing.B)  { benchGitleaks(b, benchClean) }
func BenchmarkGitleaksTokens(b *testing.B) { benchGitleaks(b, benchTokens) }
func BenchmarkGitleaksJSON(b *testing.B)   { benchGitleaks(b, string(benchJSON)) }

// BenchmarkStringAdversarial is 256 KiB of each shape that makes a layer
// work hardest: unclosed escaped quotes, nested brackets, base64 blobs of
// text, a label and a quote repeated, key=value chains, tokens.
func BenchmarkStringAdversarial(b *testing.B) {
	for name, unit := range map[string]string{
		"escaped quotes": `\"`,
		"brackets":       "[{",
		"base64 blobs":   "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo= ",
		"label quote":    "Returned completion: '",
		"pairs":          "a=b=c=d&",
		"tokens":         "Zx9Qw8Er7Ty6Ui5Op4As ",
		"xml":            "<a>x</a><password>",
		"toString":       "Msg(content=a, b(",
		"label lines":    "Rendered prompt: x\n",
		"retrieval hits": "> [Node 1] [score: 0.5] x\n",
		"php dumps":      "[\"password\"]=>\nstring(9) \"",
		"cli flags":      " -p Zx9!wq --token=",
		"url paths":      "https://h.example/inputs/",
		"webhook paths":  "https://h.example/webhook/a/",
		"auth schemes":   "Authorization: X ",
		"yaml names":     "name: x\n",
		"xml names":      "<Dbtr><Nm>Jo Do</Nm>",
		"logfmt names":   "name=x email=y ",
		"sql keys":       "Key (full_name)=(x) ",
		"sql parameters": "INSERT INTO t (name, email) VALUES (?, ?) [parameters: ('x', 'y')] ",
		"records":        `{"user": {"name": "x", "a": `,
		"turn headers":   "User message:\n\nx\n",
		"framed turns":   "---------- user ----------\n",
		"role calls":     "user('",
		"job arguments":  "args=('a b c d', ",
		"vcards":         "BEGIN:VCARD\nFN:",
		"name labels":    "姓名",
		"content lines":  "prompt: x\ny\n",
		"names by ids":   "Jan Novak (born 1980), CNP 1770418394803 (Ion Popescu) ",
		"honorifics":     "Mme Anne Roy ",
		"mailboxes":      "Aino Virtanen <a@b.fi> ",
		"addresses":      "Via Roma 1, 20121 Milano ",
		"chat templates": "<|im_start|>user\nhi there<|im_end|>",
		"panels":         "╭─ New run ─╮\n│ do it │\n╰─╯\n",
		"level turns":    "DEBUG ==== user ====\nDEBUG hi\n",
		"quoted turns":   "user message 'hi' ",
		"emails":         "a.b.c.d.e.f.g.h@",
	} {
		s := strings.Repeat(unit, (256<<10)/len(unit)+1)[:256<<10]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				_ = redact.String(s)
			}
		})
	}
}

// benchRecord is personal data in records (docs/design.md "Redaction",
// personal data): a customer object after a label, a logfmt line with a
// customer's name, and a PostgreSQL key naming its columns.
const benchRecord = `stripe.error.InvalidRequestError: Request req_Nb3Xk2Qm8Lp4Tz: No such payment_method: 'pm_1QxY2z3A4b5C6d' ` +
	`customer={"id": "cus_RkL9m2N3o4P5q6", "object": "customer", "email": "avery.q@example.org", "name": "Avery Quinlan", ` +
	`"phone": "+1 202 555 0143", "address": {"line1": "221B Baker Street", "city": "London", "postal_code": "NW1 6XE", "country": "GB"}, ` +
	`"metadata": {"queue": "fetch", "plan": "pro"}, "created": 1773400000, "livemode": true}` + "\n" +
	`level=error msg="sync failed" queue.name=crm-sync customer.name="Avery Quinlan" email=avery.q@example.org status=409` + "\n" +
	`DETAIL:  Key (full_name, date_of_birth)=(Avery Quinlan, 1984-07-19) already exists.`

// benchRecordJSON is a customer record as a JSON document, beside a
// group's record whose name stays.
var benchRecordJSON = []byte(`{"id": "cus_RkL9m2N3o4P5q6", "object": "customer", "email": "avery.q@example.org", "name": "Avery Quinlan", "phone": "+1 202 555 0143", "address": {"line1": "221B Baker Street", "city": "London", "postal_code": "NW1 6XE", "country": "GB"}, "metadata": {"queue": "fetch", "plan": "pro"}, "owner": {"name": "billing-team", "type": "group"}, "created": 1773400000}`)

func BenchmarkStringRecord(b *testing.B) { benchString(b, benchRecord, "Quinlan") }

func BenchmarkJSONRecord(b *testing.B) {
	b.SetBytes(int64(len(benchRecordJSON)))
	b.ReportAllocs()
	for b.Loop() {
		if out := redact.JSON(benchRecordJSON); strings.Contains(string(out), "Quinlan") || !strings.Contains(string(out), "billing-team") {
			b.Fatal("record misjudged")
		}
	}
}
