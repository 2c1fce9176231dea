package deadletter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// prompt is what an upstream may echo back; it must never reach a dead
// letter, last_error or a log line.
const prompt = "Summarize the attached contract for Jane Roe, account 4471"

func TestUpstreamOf(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		provider failure.Provider
		header   http.Header
		body     string
		want     deadletter.Upstream
	}{
		"openai": {failure.OpenAI, nil,
			`{"error":{"message":"Rate limit reached for gpt-4o-mini. Please try again in 2.5s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			deadletter.Upstream{Code: "rate_limit_exceeded", Type: "tokens", Message: "Rate limit reached for gpt-4o-mini. Please try again in 2.5s."}},
		"openai after a byte-order mark": {failure.OpenAI, nil,
			"\xef\xbb\xbf" + `{"error":{"message":"Rate limit reached.","type":"tokens","code":"rate_limit_exceeded"}}`,
			deadletter.Upstream{Code: "rate_limit_exceeded", Type: "tokens", Message: "Rate limit reached."}},
		"anthropic": {failure.Anthropic, nil,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			deadletter.Upstream{Type: "overloaded_error", Message: "Overloaded"}},
		"gemini": {failure.Provider("gemini"), nil,
			`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`,
			deadletter.Upstream{Code: "RESOURCE_EXHAUSTED", Message: "Resource has been exhausted (e.g. check quota)."}},
		"aws json": {failure.Bedrock, nil,
			`{"__type":"com.amazon.coral.availability#ThrottlingException","message":"Too many requests, please wait before trying again."}`,
			deadletter.Upstream{Code: "ThrottlingException", Message: "Too many requests, please wait before trying again."}},
		"aws xml": {failure.AWS, nil,
			`<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized</Message></Error></ErrorResponse>`,
			deadletter.Upstream{Code: "AccessDenied", Message: "User is not authorized"}},
		"aws header": {failure.Bedrock, http.Header{"X-Amzn-Errortype": {"ServiceUnavailableException:http://internal.amazon.com/coral/"}}, ``,
			deadletter.Upstream{Code: "ServiceUnavailableException"}},
		"discord": {failure.Webhook, nil, `{"message": "Unknown Webhook", "code": 10015}`,
			deadletter.Upstream{Code: "10015", Message: "Unknown Webhook"}},
		"slack token": {failure.Webhook, nil, `channel_not_found`, deadletter.Upstream{Code: "channel_not_found"}},
		"oauth": {failure.HTTP, nil, `{"error":"invalid_grant","error_description":"Bad Request"}`,
			deadletter.Upstream{Code: "invalid_grant", Message: "Bad Request"}},
		"errors array": {failure.HTTP, nil, `{"errors":[{"code":"TOO_MANY","message":"slow down"}]}`,
			deadletter.Upstream{Code: "TOO_MANY", Message: "slow down"}},
		"html page":  {failure.HTTP, nil, `<html><body><h1>502 Bad Gateway</h1>` + prompt + `</body></html>`, deadletter.Upstream{}},
		"prose echo": {failure.OpenAI, nil, `upstream failed while handling: ` + prompt, deadletter.Upstream{}},
		"echo beside the message": {failure.OpenAI, nil,
			`{"error":{"message":"Invalid request","code":"bad_request"},"request":{"messages":[{"role":"user","content":"` + prompt + `"}]}}`,
			deadletter.Upstream{Code: "bad_request", Message: "Invalid request"}},
		"secret in the message": {failure.OpenAI, nil,
			`{"error":{"message":"Incorrect API key provided: sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98765","code":"invalid_api_key"}}`,
			deadletter.Upstream{Code: "invalid_api_key", Message: "Incorrect API key provided: [REDACTED:openai-key]"}},
		"long message": {failure.OpenAI, nil, `{"error":{"message":"` + strings.Repeat("overloaded ", 60) + `"}}`,
			deadletter.Upstream{Message: strings.Repeat("overloaded ", 60)[:297] + "…"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := &failure.HTTPError{Provider: tc.provider, Op: "op", Status: 500, Header: tc.header, Body: []byte(tc.body)}
			got := deadletter.UpstreamOf(h)
			want := tc.want
			want.Provider, want.Op, want.Status = tc.provider, "op", 500
			if got != want {
				t.Errorf("UpstreamOf = %+v\n          want %+v", got, want)
			}
			if len(got.Message) > deadletter.MaxUpstreamMessageBytes {
				t.Errorf("message of %d bytes", len(got.Message))
			}
		})
	}
}

// A dead letter keeps the provider's message, status and codes, and
// nothing else of what the upstream sent.
func TestBuildKeepsNoUpstreamBody(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"html":  `<html><head><title>503 Service Unavailable</title></head><body>` + prompt + `</body></html>`,
		"prose": `the model could not process: ` + prompt,
		"json echo": `{"error":{"message":"Invalid 'messages[0].content'","type":"invalid_request_error","code":"bad_request"},` +
			`"echo":{"messages":[{"role":"user","content":"` + prompt + `"}]}}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := &failure.HTTPError{Provider: failure.OpenAI, Op: "chat.completions", Status: 400,
				Header: http.Header{"X-Request-Id": {"req_8f2a9c1d"}}, Body: []byte(body)}
			err := failure.WithDetail(fmt.Errorf("enrich story-1: %w", h), "model", "gpt-4o-mini")
			p := deadletter.Build(deadletter.Input{ItemID: "story-1", Stage: work.LLM, Err: err, Failure: failure.Classify(err)})
			b, merr := p.Marshal()
			if merr != nil {
				t.Fatal(merr)
			}
			for _, frag := range []string{"Jane Roe", "attached contract", "account 4471"} {
				if strings.Contains(string(b), frag) {
					t.Fatalf("the dead letter keeps %q of the upstream's body:\n%s", frag, b)
				}
			}
			sc := p.SanitizedContext
			if sc.UpstreamStatus != 400 || sc.RequestID != "req_8f2a9c1d" || !strings.Contains(sc.Error, "HTTP 400") {
				t.Errorf("sanitized context = %+v", sc)
			}
			if name == "json echo" && (sc.UpstreamMessage != "Invalid 'messages[0].content'" || sc.UpstreamType != "invalid_request_error" ||
				!strings.Contains(sc.Error, "Invalid 'messages[0].content'")) {
				t.Errorf("the provider's own message and type are lost: %+v", sc)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	h := &failure.HTTPError{Provider: failure.Anthropic, Op: "messages", Status: 529,
		Body: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)}
	echo := &failure.HTTPError{Provider: failure.HTTP, Op: "GET article", Status: 500, Body: []byte(prompt)}
	tests := map[string]struct {
		err  error
		want string
	}{
		"nil":          {nil, ""},
		"plain":        {fmt.Errorf("read: %w", fmt.Errorf("connection reset by peer")), "read: connection reset by peer"},
		"wrapped":      {fmt.Errorf("llm stage: %w", h), "llm stage: anthropic messages: HTTP 529 overloaded_error: Overloaded"},
		"body dropped": {fmt.Errorf("fetch: %w", echo), "fetch: http GET article: HTTP 500"},
		"joined":       {fmt.Errorf("both: %w", errorsJoin(h, echo)), "both: anthropic messages: HTTP 529 overloaded_error: Overloaded\nhttp GET article: HTTP 500"},
		"redacted":     {fmt.Errorf("key sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98765 refused"), "key [REDACTED:openai-key] refused"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := deadletter.ErrorText(tc.err); got != tc.want {
				t.Errorf("ErrorText = %q\n        want %q", got, tc.want)
			}
		})
	}
}

func errorsJoin(errs ...error) error { return joined(errs) }

type joined []error

func (j joined) Error() string {
	var s []string
	for _, e := range j {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

func (j joined) Unwrap() []error { return j }
