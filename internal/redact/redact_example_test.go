package redact_test

import (
	"fmt"
	"net/http"

	"github.com/triagehq/triage/internal/redact"
)

func ExampleString() {
	msg := "item story-000123: POST https://api.openai.com/v1/chat/completions: 401 " +
		"Incorrect API key provided: sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2G (notify ops@example.com, " +
		"webhook https://hooks.slack.com/services/T0A1B2C3D/B4E5F6G7H/aBcDeFgHiJkLmNoP)"
	fmt.Println(redact.String(msg))
	// Output:
	// item story-000123: POST https://api.openai.com/v1/chat/completions: 401 Incorrect API key provided: [REDACTED:openai-key] (notify [REDACTED:email], webhook https://hooks.slack.com/services/[REDACTED:url-secret])
}

func ExampleJSON() {
	body := []byte(`{"model":"gpt-4o-mini","max_tokens":512,"api_key":"k-123",` +
		`"messages":[{"role":"user","content":"Summarize: ..."}],` +
		`"error":{"code":"rate_limit_exceeded","request_id":"req_8f2a"}}`)
	fmt.Println(string(redact.JSON(body)))
	// Output:
	// {"model":"gpt-4o-mini","max_tokens":512,"api_key":"[REDACTED:secret]","messages":"[text 44 bytes sha256:0764ae99b3c8]","error":{"code":"rate_limit_exceeded","request_id":"req_8f2a"}}
}

func ExampleText() {
	fmt.Println(redact.Text("Summarize the following article in three sentences."))
	// Output:
	// [text 51 bytes sha256:a927543cd1f6]
}

func ExampleHeader() {
	h := http.Header{
		"Authorization":                {"Bearer sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2G"},
		"X-Ratelimit-Remaining-Tokens": {"0"},
	}
	r := redact.Header(h)
	fmt.Println(r.Get("Authorization"))
	fmt.Println(r.Get("X-Ratelimit-Remaining-Tokens"))
	// Output:
	// Bearer [REDACTED:bearer]
	// 0
}
