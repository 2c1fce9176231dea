package redact_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/redact"
)

// googleKey is a planted Google API key: "AIza" and exactly 35 characters.
const googleKey = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"

// planted is one input with secrets planted in it. Every string in secrets
// (the whole secret and, for keys, a distinctive part of it) must be gone
// from the output; every string in keep must still be there.
type planted struct {
	name    string
	in      string
	secrets []string
	keep    []string
}

// check fails t for each of c's secrets out keeps and each of the values c
// keeps that out loses; via names the entry point that gave out.
func (c planted) check(t *testing.T, via, out string) {
	t.Helper()
	for _, s := range c.secrets {
		if strings.Contains(out, s) {
			t.Errorf("%s keeps %q\nout: %s", via, s, out)
		}
	}
	for _, k := range c.keep {
		if !strings.Contains(out, k) {
			t.Errorf("%s loses %q\nout: %s", via, k, out)
		}
	}
}

// everyWay checks c as String redacts it and, when c.in is JSON, as JSON
// does and (with value) as Value does to the decoded document.
func (c planted) everyWay(t *testing.T, value bool) {
	t.Helper()
	c.check(t, "String", redact.String(c.in))
	if !json.Valid([]byte(c.in)) {
		return
	}
	c.check(t, "JSON", string(redact.JSON([]byte(c.in))))
	if value {
		c.check(t, "Value", valueOf(t, c.in))
	}
}

// valueOf is the JSON document in as Value redacts it, decoded and encoded
// again.
func valueOf(t *testing.T, in string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(redact.Value(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStringRemovesPlantedSecrets judges the secrets in their contexts
// (testdata/planted/secrets-in-context.json) by String: each secret gone,
// each fact kept, a marker where the secret stood, and a second pass
// changing nothing.
func TestStringRemovesPlantedSecrets(t *testing.T) {
	t.Parallel()
	cases := plantedCases(t, "secrets-in-context")
	if len(cases) < 40 {
		t.Fatalf("corpus has %d cases, want at least 40", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := redact.String(tc.in)
			tc.check(t, "String", got)
			if !strings.Contains(got, "[REDACTED:") {
				t.Errorf("no marker in %q", got)
			}
			if again := redact.String(got); again != got {
				t.Errorf("not idempotent:\n once: %s\ntwice: %s", got, again)
			}
		})
	}
}

// The planted corpus must also be clean after JSON (which falls back to
// String for text, and walks the JSON cases).
func TestJSONRemovesPlantedSecrets(t *testing.T) {
	t.Parallel()
	for _, tc := range plantedCases(t, "secrets-in-context") {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := string(redact.JSON([]byte(tc.in)))
			planted{secrets: tc.secrets}.check(t, "JSON", got)
			if json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) {
				t.Errorf("valid JSON in, invalid out: %s", got)
			}
		})
	}
}

// stringWant is a text and all String must make of it.
type stringWant struct{ in, want string }

// wantStrings runs String over each test's text, as a parallel subtest
// named by the test, and wants exactly what the test wants.
func wantStrings(t *testing.T, tests map[string]stringWant) {
	t.Helper()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := redact.String(tc.in); got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestStringMarkers(t *testing.T) {
	t.Parallel()
	tests := map[string]stringWant{
		"openai key":          {"key sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0L", "key [REDACTED:openai-key]"},
		"anthropic key":       {"key sk-ant-api03-AbCdEfGhIjKlMnOpQrSt", "key [REDACTED:anthropic-key]"},
		"aws key id":          {"id AKIAIOSFODNN7EXAMPLE.", "id [REDACTED:aws-access-key]."},
		"aws secret":          {"SecretAccessKey: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "SecretAccessKey: [REDACTED:aws-secret]"},
		"github":              {"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "[REDACTED:github-token]"},
		"slack":               {"xoxb-123456789012-AbCdEfGhIj", "[REDACTED:slack-token]"},
		"google":              {googleKey, "[REDACTED:google-key]"},
		"stripe":              {"sk_live_51H8xYzAbCdEfGhIj", "[REDACTED:stripe-key]"},
		"webhook secret":      {"whsec_MfKQ9r8GKYqrTwjU", "[REDACTED:webhook-secret]"},
		"bearer keeps scheme": {"Authorization: Bearer opaque0123456789", "Authorization: Bearer [REDACTED:bearer]"},
		"cookie":              {"Cookie: a=1; b=2", "Cookie: [REDACTED:cookie]"},
		"jwt":                 {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "[REDACTED:jwt]"},
		"private key":         {"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----", "[REDACTED:private-key]"},
		"url password":        {"https://bob:pw123456@example.com/x", "https://bob:[REDACTED:password]@example.com/x"},
		"url param":           {"https://example.com/x?token=abc123&page=2", "https://example.com/x?token=[REDACTED:url-secret]&page=2"},
		"slack webhook":       {"https://hooks.slack.com/services/T0/B0/XyZ", "https://hooks.slack.com/services/[REDACTED:url-secret]"},
		"discord webhook":     {"https://discord.com/api/webhooks/123/tok-EN_x", "https://discord.com/api/webhooks/123/[REDACTED:url-secret]"},
		"password key":        {"db_password=hunter2", "db_password=[REDACTED:password]"},
		"secret key":          {`"x-api-key": "abc"`, `"x-api-key": "[REDACTED:secret]"`},
		"email":               {"mail bob@example.com now", "mail [REDACTED:email] now"},
		"phone":               {"call (415) 555-0100 now", "call [REDACTED:phone] now"},
		"card":                {"card 4111-1111-1111-1111 now", "card [REDACTED:card] now"},
		"ssn":                 {"ssn 078-05-1120 now", "ssn [REDACTED:ssn] now"},
		"key after a colon":   {"msg=failed:token=abc", "msg=failed:token=[REDACTED:secret]"},
		"sessid":              {"PHPSESSID=abc123", "PHPSESSID=[REDACTED:secret]"},
		"quoted scheme stays": {`{"Authorization": "Token abc123def456"}`, `{"Authorization": "Token [REDACTED:bearer]"}`},
		"single quotes stay":  {`'Authorization: Token abc123def456'`, `'Authorization: Token [REDACTED:bearer]'`},
		"bare aws secret":     {"key je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY.", "key [REDACTED:aws-secret]."},
		"ported rule":         {"token glpat-Zq3xV9kLm2Pw8RtY4bNc ok", "token [REDACTED:credential] ok"},
		"empty":               {"", ""},
	}
	wantStrings(t, tests)
}

// survivors are what an operator needs to read; String must not touch them.
var survivors = []string{
	"story-000123",
	"item story-000123 failed at stage llm (attempt 3 of 5)",
	"550e8400-e29b-41d4-a716-446655440000",
	"correlation_id=c0ffee00-1234-4abc-8def-0123456789ab",
	"sqs message 059f36b4-87a3-44ab-83d2-661975830a7d redelivered",
	"RequestId: 4d6a1f0e-7b0c-4e2a-9a3e-0f1b2c3d4e5f",
	"x-amzn-RequestId: 9d7a2f8c-5b4e-4c3d-a2b1-0f9e8d7c6b5a",
	"x-request-id: req_8f2a9c1d3e4b5a6f",
	"HTTP 429 Too Many Requests",
	"status=503 error_class=UPSTREAM_UNAVAILABLE retryable=true",
	"RATE_LIMITED",
	"error_class=AUTH_DENIED reason=\"openai code invalid_api_key (HTTP 401)\"",
	"gpt-4o-mini",
	"claude-3-5-sonnet-20241022",
	"model=gpt-4o-2024-08-06 fallback=claude-3-haiku-20240307",
	"2024-01-15T10:30:00Z",
	"2024-01-15T10:30:00.123456-05:00",
	"at 2024-01-15 10:30:00 UTC",
	"retry after 6m0s",
	"x-ratelimit-reset-tokens: 6m0s, x-ratelimit-reset-requests: 120ms",
	"x-ratelimit-remaining-tokens: 0",
	"https://example.com/articles/42?page=2",
	"https://example.com/search?q=golang&page=2&sort=desc#results",
	"https://hooks.slack.com/ is the host",
	"The security token included in the request is expired.",
	"1700000000",
	"1700000000123",
	"429",
	"8080",
	"localhost:8080 and 127.0.0.1:4566",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
	"4111111111111112",
	"order 1234567812345678 shipped",
	"max_tokens=4096 prompt_tokens=12 completion_tokens=30 total_tokens=42",
	"token_count: 1234",
	"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29541, Requested 1733. Please try again in 2.548s.",
	"Bearer authentication failed",
	"Incorrect API key provided.",
	"arn:aws:sqs:us-east-1:123456789012:triage-llm-dlq",
	"arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/openai-AbCdEf",
	"duration=6m0s attempts=3 max_attempts=5",
	"context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
	"/var/task/bootstrap main.go:42",
	"ports 8080, 9090 and 4566",
	"idempotency_key=item-42-llm partition key=item_id",
	"version 1.2.3 on 10.0.0.1 build 20240115",
	"Café naïve résumé — 東京",
	"sk-learn is not a key",
	"notify @oncall in #alerts",
	"took 1234.5678ms for 1048576 bytes",
	"phone: unknown",
	"auth.example.com:443",
	"WWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\"",
	"ISBN 978-3-16-148410-0",
	"level=error msg=failed:token_count=5",
	"urn:example:session:item-42",
	// 40 characters, but not an AWS secret.
	"commit 9fceb02d0ae598e95dc970b74767f19372d61af8 on main",
	"SHA1 9FCEB02D0AE598E95DC970B74767F19372D61AF8",
	"digest sha256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
	"see /Documents/Reports2024/QuarterlyEarnings/ for the figures",
	"https://example.com/ThisIsAVeryLongCamelCaseIdentifierName12/x",
	"ThisIsAVeryLongCamelCaseIdentifierName12_v2",
}

func TestStringKeepsSurvivors(t *testing.T) {
	t.Parallel()
	for _, s := range survivors {
		t.Run(s, func(t *testing.T) {
			t.Parallel()
			if got := redact.String(s); got != s {
				t.Errorf("String changed a survivor:\n in: %s\nout: %s", s, got)
			}
		})
	}
}

func TestStringInvalidUTF8(t *testing.T) {
	t.Parallel()
	in := "bad \xff\xfe bytes sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0L \xc3 end"
	got := redact.String(in)
	if strings.Contains(got, "Zx9Qw8Er7Ty6Ui5Op4As3") {
		t.Errorf("key survived: %q", got)
	}
	if !strings.Contains(got, "\xff\xfe") || !strings.HasSuffix(got, "\xc3 end") {
		t.Errorf("invalid bytes outside the secret changed: %q", got)
	}
	valid := "héllo wörld +1 415 555 0100 — ok"
	if got := redact.String(valid); !utf8.ValidString(got) {
		t.Errorf("valid UTF-8 in, invalid out: %q", got)
	}
}

func TestKeyKind(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		kind   redact.Kind
		secret bool
	}{
		"password":                     {redact.KindPassword, true},
		"db_password":                  {redact.KindPassword, true},
		"DB_PASSWORD":                  {redact.KindPassword, true},
		"dbPassword":                   {redact.KindPassword, true},
		"passwd":                       {redact.KindPassword, true},
		"pwd":                          {redact.KindPassword, true},
		"secret":                       {redact.KindSecret, true},
		"client_secret":                {redact.KindSecret, true},
		"clientSecret":                 {redact.KindSecret, true},
		"token":                        {redact.KindSecret, true},
		"access_token":                 {redact.KindSecret, true},
		"refreshToken":                 {redact.KindSecret, true},
		"access_tokens":                {redact.KindSecret, true},
		"api_key":                      {redact.KindSecret, true},
		"apikey":                       {redact.KindSecret, true},
		"apiKey":                       {redact.KindSecret, true},
		"APIKey":                       {redact.KindSecret, true},
		"x-api-key":                    {redact.KindSecret, true},
		"X-Api-Key":                    {redact.KindSecret, true},
		"api-key":                      {redact.KindSecret, true},
		"openai_api_key":               {redact.KindSecret, true},
		"OPENAI_API_KEY":               {redact.KindSecret, true},
		"openaiapikey":                 {redact.KindSecret, true},
		"access_key":                   {redact.KindSecret, true},
		"aws_secret_access_key":        {redact.KindSecret, true},
		"SecretAccessKey":              {redact.KindSecret, true},
		"secret_key":                   {redact.KindSecret, true},
		"private_key":                  {redact.KindSecret, true},
		"authorization":                {redact.KindBearer, true},
		"Proxy-Authorization":          {redact.KindBearer, true},
		"auth":                         {redact.KindSecret, true},
		"cookie":                       {redact.KindCookie, true},
		"Set-Cookie":                   {redact.KindCookie, true},
		"session":                      {redact.KindSecret, true},
		"session_id":                   {redact.KindSecret, true},
		"credential":                   {redact.KindSecret, true},
		"credentials":                  {redact.KindSecret, true},
		"signature":                    {redact.KindSecret, true},
		"X-Amz-Security-Token":         {redact.KindSecret, true},
		"X-Amz-Credential":             {redact.KindSecret, true},
		"token_count":                  {"", false},
		"max_tokens":                   {"", false},
		"tokens_used":                  {"", false},
		"prompt_tokens":                {"", false},
		"completion_tokens":            {"", false},
		"total_tokens":                 {"", false},
		"input_tokens":                 {"", false},
		"output_tokens":                {"", false},
		"max_completion_tokens":        {"", false},
		"maxTokens":                    {"", false},
		"tokenizer":                    {"", false},
		"author":                       {"", false},
		"authors":                      {"", false},
		"key":                          {"", false},
		"Key":                          {"", false},
		"partition_key":                {"", false},
		"idempotency_key":              {"", false},
		"secret_arn":                   {"", false},
		"secret_name":                  {"", false},
		"password_length":              {"", false},
		"auth_type":                    {"", false},
		"token_type":                   {"", false},
		"signature_version":            {"", false},
		"token_expires_at":             {"", false},
		"x-ratelimit-remaining-tokens": {"", false},
		"secretary":                    {"", false},
		"item_id":                      {"", false},
		"message":                      {"", false},
		"":                             {"", false},
	}
	for key, tc := range tests {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			kind, secret := redact.KeyKind(key)
			if kind != tc.kind || secret != tc.secret {
				t.Errorf("KeyKind(%q) = %q, %v; want %q, %v", key, kind, secret, tc.kind, tc.secret)
			}
		})
	}
}

func TestIsTextKey(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"prompt": true, "Prompt": true, "system_prompt": true, "systemPrompt": true,
		"messages": true, "content": true, "completion": true, "text": true,
		"system": true, "article": true, "article_text": true, "rendered_prompt": true,
		"contents": true, "output_text": true,
		"prompt_tokens": false, "content_type": false, "Content-Length": false,
		"message": false, "status_text": false, "article_id": false, "body": false,
		"messages_count": false, "model": false, "": false,
	}
	for key, want := range tests {
		if got := redact.IsTextKey(key); got != want {
			t.Errorf("IsTextKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestIsSecretParam(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"token", "access_token", "api_key", "apikey", "key", "secret", "signature", "sig", "password", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "code", "client_secret", "CODE"} {
		if !redact.IsSecretParam(name) {
			t.Errorf("IsSecretParam(%q) = false", name)
		}
	}
	for _, name := range []string{"page", "q", "sort", "state", "X-Amz-Date", "X-Amz-Expires", "sv", "max_tokens", "keyword"} {
		if redact.IsSecretParam(name) {
			t.Errorf("IsSecretParam(%q) = true", name)
		}
	}
}

var textMarker = regexp.MustCompile(`^\[text \d+ bytes sha256:[0-9a-f]{12}\]$`)

func TestText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		// sha256("hello") = 2cf24dba5fb0a30e…
		"known vector":     {"hello", "[text 5 bytes sha256:2cf24dba5fb0]"},
		"empty":            {"", ""},
		"marker stays":     {"[text 5 bytes sha256:2cf24dba5fb0]", "[text 5 bytes sha256:2cf24dba5fb0]"},
		"bytes, not runes": {"héllo", "[text 6 bytes sha256:" + redact.Text("héllo")[len("[text 6 bytes sha256:"):]},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := redact.Text(tc.in); got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	long := strings.Repeat("Summarize the following article. ", 100)
	got := redact.Text(long)
	if !textMarker.MatchString(got) || !strings.Contains(got, "[text 3300 bytes") {
		t.Errorf("Text(long) = %q", got)
	}
	if redact.Text(long) != got || redact.Text(long+".") == got {
		t.Error("Text must be deterministic and tell different texts apart")
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"provider error body stays readable": {
			`{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			`{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
		},
		"secret keys whatever the shape": {
			`{"api_key":"abc","token":12345,"credentials":{"user":"bob","pass":"x"},"signature":["a","b"],"password":"","session":null,"auth":true}`,
			`{"api_key":"[REDACTED:secret]","token":"[REDACTED:secret]","credentials":"[REDACTED:secret]","signature":"[REDACTED:secret]","password":"","session":null,"auth":true}`,
		},
		"harmless lookalike keys": {
			`{"max_tokens":4096,"token_count":7,"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42},"author":"Jane","key":"dl/item-42.json"}`,
			`{"max_tokens":4096,"token_count":7,"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42},"author":"Jane","key":"dl/item-42.json"}`,
		},
		"authorization keeps its scheme": {
			`{"Authorization":"Bearer abc.def","Cookie":"a=1"}`,
			`{"Authorization":"Bearer [REDACTED:bearer]","Cookie":"[REDACTED:cookie]"}`,
		},
		"prompt and messages become text markers": {
			`{"model":"gpt-4o-mini","prompt":"hello","messages":[{"role":"user","content":"hello"}]}`,
			`{"model":"gpt-4o-mini","prompt":"[text 5 bytes sha256:2cf24dba5fb0]","messages":"` + redact.Text(`[{"content":"hello","role":"user"}]`) + `"}`,
		},
		"content inside a response is hashed, the rest stays": {
			`{"id":"chatcmpl-9xY","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`,
			`{"id":"chatcmpl-9xY","choices":[{"index":0,"message":{"role":"assistant","content":"[text 5 bytes sha256:2cf24dba5fb0]"},"finish_reason":"stop"}]}`,
		},
		"JSON body is walked": {
			`{"messageId":"059f36b4-87a3-44ab-83d2-661975830a7d","body":"{\"item_id\":\"story-000123\",\"stage\":\"llm\",\"api_key\":\"k1\"}"}`,
			`{"messageId":"059f36b4-87a3-44ab-83d2-661975830a7d","body":"{\"item_id\":\"story-000123\",\"stage\":\"llm\",\"api_key\":\"[REDACTED:secret]\"}"}`,
		},
		"text body is hashed": {
			`{"body":"hello"}`,
			`{"body":"[text 5 bytes sha256:2cf24dba5fb0]"}`,
		},
		"strings go through String, keys too": {
			`{"error":"dial postgres://u:pw12345@db:5432/x","bob@example.com":1}`,
			`{"error":"dial postgres://u:[REDACTED:password]@db:5432/x","[REDACTED:email]":1}`,
		},
		"embedded JSON string is walked": {
			`{"details":"{\"password\":\"p w\",\"status\":401}"}`,
			`{"details":"{\"password\":\"[REDACTED:password]\",\"status\":401}"}`,
		},
		"card number as a JSON number": {
			`{"card":4111111111111111,"id":1700000000123}`,
			`{"card":"[REDACTED:card]","id":1700000000123}`,
		},
		"escaped secret is decoded first": {
			`{"note":"\u0073k-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2G"}`,
			`{"note":"[REDACTED:openai-key]"}`,
		},
		"untouched escapes are kept": {
			`{"url":"https://x.example/a?b=1\u0026c=2","s":"\u00e9\n"}`,
			`{"url":"https://x.example/a?b=1\u0026c=2","s":"\u00e9\n"}`,
		},
		"whitespace and order are kept": {
			"{\n  \"z\": 1,\n  \"token\": \"t0k3n\",\n  \"a\": [ 1, 2 ]\n}\n",
			"{\n  \"z\": 1,\n  \"token\": \"[REDACTED:secret]\",\n  \"a\": [ 1, 2 ]\n}\n",
		},
		"top-level string": {`"mail bob@example.com"`, `"mail [REDACTED:email]"`},
		"not JSON falls back to String": {
			`token=abc {broken`,
			`token=[REDACTED:secret] {broken`,
		},
		"empty":  {``, ``},
		"scalar": {`42`, `42`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := string(redact.JSON([]byte(tc.in)))
			if got != tc.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
			if json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) {
				t.Errorf("invalid JSON out: %s", got)
			}
			if again := string(redact.JSON([]byte(got))); again != got {
				t.Errorf("JSON not idempotent:\n once %s\ntwice %s", got, again)
			}
		})
	}
}

func TestJSONDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	in := []byte(`{"api_key":"abc","note":"bob@example.com"}`)
	orig := string(in)
	_ = redact.JSON(in)
	if string(in) != orig {
		t.Errorf("input modified: %s", in)
	}
}

func TestValue(t *testing.T) {
	t.Parallel()
	in := map[string]any{
		"item_id":  "story-000123",
		"status":   float64(429),
		"api_key":  "sk-whatever",
		"headers":  map[string]any{"Authorization": "Bearer xyz", "X-Request-Id": "req_1"},
		"messages": []any{map[string]any{"role": "user", "content": "hello"}},
		"prompt":   "hello",
		"error":    "mail bob@example.com",
		"list":     []any{"ok", "jane@example.com", nil, true},
		"password": nil,
		"attempts": json.Number("3"),
	}
	want := map[string]any{
		"item_id":  "story-000123",
		"status":   float64(429),
		"api_key":  "[REDACTED:secret]",
		"headers":  map[string]any{"Authorization": "Bearer [REDACTED:bearer]", "X-Request-Id": "req_1"},
		"messages": redact.Text(`[{"content":"hello","role":"user"}]`),
		"prompt":   "[text 5 bytes sha256:2cf24dba5fb0]",
		"error":    "mail [REDACTED:email]",
		"list":     []any{"ok", "[REDACTED:email]", nil, true},
		"password": nil,
		"attempts": json.Number("3"),
	}
	got := redact.Value(in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Value:\n got %#v\nwant %#v", got, want)
	}
	if in["api_key"] != "sk-whatever" || in["headers"].(map[string]any)["Authorization"] != "Bearer xyz" {
		t.Error("Value modified its input")
	}
	// The same document through JSON and through Value hashes alike.
	doc := `{"messages":[{"role":"user","content":"hello"}]}`
	var decoded map[string]any
	if err := json.Unmarshal([]byte(doc), &decoded); err != nil {
		t.Fatal(err)
	}
	viaJSON := string(redact.JSON([]byte(doc)))
	viaValue, _ := json.Marshal(redact.Value(decoded))
	if viaJSON != string(viaValue) {
		t.Errorf("JSON and Value disagree:\n%s\n%s", viaJSON, viaValue)
	}
}

func TestValueOtherTypes(t *testing.T) {
	t.Parallel()
	type request struct {
		Model  string `json:"model"`
		APIKey string `json:"api_key"`
	}
	tests := map[string]struct {
		in, want any
	}{
		"nil":               {nil, nil},
		"number":            {42, 42},
		"string":            {"token=abc", "token=[REDACTED:secret]"},
		"strings":           {[]string{"a", "bob@example.com"}, []string{"a", "[REDACTED:email]"}},
		"error":             {errors.New("mail bob@example.com"), "mail [REDACTED:email]"},
		"struct":            {request{Model: "gpt-4o-mini", APIKey: "k"}, map[string]any{"model": "gpt-4o-mini", "api_key": "[REDACTED:secret]"}},
		"raw":               {json.RawMessage(`{"token":"x"}`), json.RawMessage(`{"token":"[REDACTED:secret]"}`)},
		"func":              {func() {}, "[unencodable func()]"},
		"nil error pointer": {(*panicky)(nil), "[unencodable *redact_test.panicky]"},
		"string map": {
			map[string]string{"password": "x"},
			map[string]string{"password": "[REDACTED:password]"},
		},
		"colliding keys": {
			map[string]any{"a@example.com": 1, "b@example.com": 1},
			map[string]any{"[REDACTED:email]": 1, "[REDACTED:email]#2": 1},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := redact.Value(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Value(%#v) = %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}

// panicky is an error whose Error panics on a nil receiver.
type panicky struct{ msg string }

func (p *panicky) Error() string { return p.msg }

// A cycle (which JSON cannot produce) ends in a marker, not a stack overflow.
func TestValueCycle(t *testing.T) {
	t.Parallel()
	m := map[string]any{}
	m["next"] = m
	v, depth := redact.Value(m), 0
	for {
		next, ok := v.(map[string]any)
		if !ok {
			break
		}
		v, depth = next["next"], depth+1
	}
	if v != "[unencodable: nested deeper than 10000]" || depth != 10001 {
		t.Errorf("bottom %v at depth %d", v, depth)
	}
}

func TestMap(t *testing.T) {
	t.Parallel()
	in := map[string]string{
		"item_id":        "story-000123",
		"correlation_id": "c0ffee00-1234-4abc-8def-0123456789ab",
		"db_password":    "hunter2",
		"token":          "",
		"prompt":         "hello",
		"body":           `{"item_id":"story-1","token":"x"}`,
		"note":           "call 415-555-0100",
	}
	want := map[string]string{
		"item_id":        "story-000123",
		"correlation_id": "c0ffee00-1234-4abc-8def-0123456789ab",
		"db_password":    "[REDACTED:password]",
		"token":          "",
		"prompt":         "[text 5 bytes sha256:2cf24dba5fb0]",
		"body":           `{"item_id":"story-1","token":"[REDACTED:secret]"}`,
		"note":           "call [REDACTED:phone]",
	}
	if got := redact.Map(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Map:\n got %v\nwant %v", got, want)
	}
	if redact.Map(nil) != nil {
		t.Error("Map(nil) != nil")
	}
}

func TestHeader(t *testing.T) {
	t.Parallel()
	in := http.Header{
		"Authorization":                {"Bearer sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2G"},
		"Proxy-Authorization":          {"Basic YWxhZGRpbjpvcGVu"},
		"Cookie":                       {"a=1; b=2"},
		"Set-Cookie":                   {"s=1; Path=/", "t=2"},
		"X-Api-Key":                    {"abc"},
		"Api-Key":                      {"def"},
		"X-Amz-Security-Token":         {"IQoJb3JpZ2lu"},
		"X-Request-Id":                 {"req_8f2a"},
		"Retry-After":                  {"30"},
		"X-Ratelimit-Remaining-Tokens": {"0"},
		"X-Ratelimit-Reset-Tokens":     {"6m0s"},
		"Content-Type":                 {"application/json"},
		"Location":                     {"https://example.com/cb?code=abc&x=1"},
		"X-Empty-Token":                {""},
	}
	want := http.Header{
		"Authorization":                {"Bearer [REDACTED:bearer]"},
		"Proxy-Authorization":          {"Basic [REDACTED:bearer]"},
		"Cookie":                       {"[REDACTED:cookie]"},
		"Set-Cookie":                   {"[REDACTED:cookie]", "[REDACTED:cookie]"},
		"X-Api-Key":                    {"[REDACTED:secret]"},
		"Api-Key":                      {"[REDACTED:secret]"},
		"X-Amz-Security-Token":         {"[REDACTED:secret]"},
		"X-Request-Id":                 {"req_8f2a"},
		"Retry-After":                  {"30"},
		"X-Ratelimit-Remaining-Tokens": {"0"},
		"X-Ratelimit-Reset-Tokens":     {"6m0s"},
		"Content-Type":                 {"application/json"},
		"Location":                     {"https://example.com/cb?code=[REDACTED:url-secret]&x=1"},
		"X-Empty-Token":                {""},
	}
	got := redact.Header(in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Header:\n got %v\nwant %v", got, want)
	}
	if in.Get("Authorization") != "Bearer sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2G" {
		t.Error("Header modified its input")
	}
	if redact.Header(nil) != nil {
		t.Error("Header(nil) != nil")
	}
}

func TestKinds(t *testing.T) {
	t.Parallel()
	seen := map[redact.Kind]bool{}
	for _, k := range redact.Kinds() {
		if seen[k] {
			t.Errorf("duplicate kind %q", k)
		}
		seen[k] = true
		if m := k.Marker(); m != "[REDACTED:"+string(k)+"]" || redact.String("x "+m) != "x "+m {
			t.Errorf("marker %q is not stable under String", m)
		}
	}
	for _, p := range redact.Patterns {
		if !seen[p.Kind] {
			t.Errorf("pattern kind %q missing from Kinds()", p.Kind)
		}
		for _, tr := range p.Triggers {
			// Texts are lowered in their ASCII letters only: a trigger's
			// ASCII letters must be lower case, its other letters are
			// matched as written (the Cyrillic "ЕГН").
			if tr != asciiLower(tr) {
				t.Errorf("%s: trigger %q is not lowercase", p.Kind, tr)
			}
		}
	}
}

// Many goroutines share the compiled tables.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	cases := plantedCases(t, "secrets-in-context")
	done := make(chan string)
	for range 8 {
		go func() {
			var out string
			for _, tc := range cases {
				out = redact.String(tc.in)
				_ = redact.JSON([]byte(tc.in))
			}
			done <- out
		}()
	}
	want := redact.String(cases[len(cases)-1].in)
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("concurrent result %q, want %q", got, want)
		}
	}
}

// TestDenyByDefault: what no vendor rule names, in the layers of
// docs/design.md "Redaction", with the marker each gets.
func TestDenyByDefault(t *testing.T) {
	t.Parallel()
	tests := map[string]stringWant{
		"unknown vendor token":      {"retry with gsk_Iw23uPOzcF3U9lY6snmaWGdyb3FY7rFwT2FFaGHt", "retry with [REDACTED:token]"},
		"prefixed hex key":          {"key pri_099889f14d114dfaae476569b395eade ok", "key [REDACTED:token] ok"},
		"password in prose":         {"the password is Tr0ub4dor3 now", "the password is [REDACTED:password] now"},
		"plain word after a label":  {"Login failed: password is incorrect", "Login failed: password is incorrect"},
		"vendor key variable":       {"AZURE_OPENAI_KEY=57d2de35873840b5ad59d742e90e974e", "AZURE_OPENAI_KEY=[REDACTED:secret]"},
		"hex under a vendor key":    {"cloudsmith: 6fd00a2cfd7bbc51e1c4db6ac2f29d59629afd22", "cloudsmith: [REDACTED:token]"},
		"hex under a request id":    {"x-request-id: 6fd00a2cfd7bbc51e1c4db6ac2f29d59629afd22", "x-request-id: 6fd00a2cfd7bbc51e1c4db6ac2f29d59629afd22"},
		"random under an id label":  {"x-amz-id-2: BsCfJedfuSnds2QFoxi+E/O7M6OEWzJnw4dUaes/2hyA363sONRJKzB7", "x-amz-id-2: BsCfJedfuSnds2QFoxi+E/O7M6OEWzJnw4dUaes/2hyA363sONRJKzB7"},
		"object ids stay":           {"id chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT msg_013Zva2CMHLNnXjNJJKqJ2EF", "id chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT msg_013Zva2CMHLNnXjNJJKqJ2EF"},
		"model ids stay":            {"model anthropic.claude-3-5-sonnet-20240620-v1:0 and gpt-4o-mini-2024-07-18", "model anthropic.claude-3-5-sonnet-20240620-v1:0 and gpt-4o-mini-2024-07-18"},
		"words stay":                {"ProvisionedThroughputExceededException on table nonprod-processing-assets", "ProvisionedThroughputExceededException on table nonprod-processing-assets"},
		"percent-encoded email":     {"GET /u?email=jane.doe%40example.org&page=2", "GET /u?email=[REDACTED:email]&page=2"},
		"encoded secret":            {"next=https%3A%2F%2Fa.example%2Fcb%3Fpassword%3Dhunter2xyz", "next=[REDACTED:url-secret]"},
		"spaced IBAN":               {"IBAN DE89 3704 0044 0532 0130 00 closed", "IBAN [REDACTED:iban] closed"},
		"IBAN failing mod 97":       {"ref DE89 3704 0044 0532 0130 01 closed", "ref DE89 3704 0044 0532 0130 01 closed"},
		"labelled national phone":   {"tel: 020 7946 0958", "tel: [REDACTED:phone]"},
		"unlabelled digits stay":    {"ids 020 7946 0958", "ids 020 7946 0958"},
		"prompt in logfmt":          {`level=info prompt="Write a poem" model=m`, `level=info prompt="` + redact.Text("Write a poem") + `" model=m`},
		"prompt in a log line":      {`request body: {"messages":[{"role":"user","content":"hi there"}],"model":"m"}`, `request body: {"messages":"` + redact.Text(`[{"content":"hi there","role":"user"}]`) + `","model":"m"}`},
		"SOAP password":             {`<wsse:Password Type="t">s3cr3t!</wsse:Password>`, `<wsse:Password Type="t">[REDACTED:password]</wsse:Password>`},
		"name/value pair":           {`{"key":"x-api-key","value":"abc123def456"}`, `{"key":"x-api-key","value":"[REDACTED:secret]"}`},
		"personal data under keys":  {"first_name=Jane Marie last_name=Roe city=Paris", "first_name=[REDACTED:personal] last_name=[REDACTED:personal] city=Paris"},
		"YAML block under a secret": {"db:\n  password: |-\n    hunter2\n  host: db.internal\n", "db:\n  password: [REDACTED:password]\n  host: db.internal\n"},
		"00 international phone":    {"call 0044 20 7946 0958 today", "call [REDACTED:phone] today"},
		"email in words":            {"write to jane.doe at example dot com please", "write to [REDACTED:email] please"},
		"spaced SSN after a label":  {"SSN 078 05 1120 on file", "SSN [REDACTED:ssn] on file"},
		"spaced digits, no label":   {"ids 078 05 1120 on file", "ids 078 05 1120 on file"},
		"YAML list of messages":     {"messages:\n  - role: user\n    content: Tell me Bob's balance\nmodel: gpt-4o\n", "messages:\n" + redact.Text("  - role: user\n    content: Tell me Bob's balance") + "\nmodel: gpt-4o\n"},
		"protobuf text format":      {"contents { role: \"user\" parts { text: \"Summarize the memo\" } }", "contents { role: \"user\" parts { text: \"" + redact.Text("Summarize the memo") + "\" } }"},
		"passcode":                  {"passcode: 482916", "passcode: [REDACTED:password]"},
		"digest authorization":      {"Authorization: Digest username=\"ops\", response=\"6629fae49393a05397450978507c4ef1\"\nHost: x", "Authorization: Digest [REDACTED:bearer]\nHost: x"},
	}
	wantStrings(t, tests)
}

// asciiLower lowers s's ASCII letters only, as the trigger scan lowers a
// text.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
