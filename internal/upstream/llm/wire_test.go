package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

func wireRequest() llm.Request {
	temp := 0.2
	return llm.Request{Model: "claude-3-5-haiku-latest", Temperature: &temp, ItemID: "item-9", CorrelationID: "corr-9",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "rules"}, {Role: llm.RoleSystem, Content: "more rules"},
			{Role: llm.RoleUser, Content: plantedPrompt}}}
}

// TestAnthropicRequest checks the Messages request: the headers Anthropic
// requires, the system messages in "system", max_tokens defaulted (the API
// requires it), and the key only in x-api-key.
func TestAnthropicRequest(t *testing.T) {
	t.Parallel()
	b := setup(t, respond(200,
		`{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":"{}"}],`+
			`"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":3}}`))
	c, err := llm.NewAnthropic(llm.Config{BaseURL: b.srv.URL, APIKey: plantedKey})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(t.Context(), wireRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != (llm.Usage{InputTokens: 15, OutputTokens: 3, Reported: true}) || resp.RequestID != "msg_1" || resp.Stop != llm.StopEnd {
		t.Errorf("response = %+v", resp)
	}
	got := b.request()
	for k, want := range map[string]string{"x-api-key": plantedKey, "anthropic-version": llm.AnthropicVersion,
		"Authorization": "", llm.HeaderItemID: "item-9", llm.HeaderCorrelationID: "corr-9"} {
		if h := got.header.Get(k); h != want {
			t.Errorf("header %s = %q, want %q", k, h, want)
		}
	}
	if got.path != "/v1/messages" || got.body["system"] != "rules\n\nmore rules" || got.body["max_tokens"] != float64(llm.DefaultMaxTokens) ||
		got.body["temperature"] != 0.2 {
		t.Errorf("path %s, body %v", got.path, got.body)
	}
	msgs, _ := got.body["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "user" {
		t.Errorf("messages = %v", msgs)
	}
}

// TestBedrockRequest checks the Converse request the AWS SDK sends: the
// model id escaped in the path, a SigV4 signature and no API key, the
// system blocks, the inference configuration, and the item id header.
func TestBedrockRequest(t *testing.T) {
	t.Parallel()
	b := setup(t, respond(200,
		`{"output":{"message":{"role":"assistant","content":[{"text":"{"},{"text":"}"}]}},"stopReason":"end_turn",`+
			`"usage":{"inputTokens":12,"outputTokens":2,"totalTokens":14},"metrics":{"latencyMs":10}}`))
	c, err := llm.NewBedrock(llm.Config{BaseURL: b.srv.URL, AWS: &aws.Config{Region: "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("test-access-key", "test-secret-key", "")}})
	if err != nil {
		t.Fatal(err)
	}
	req := wireRequest()
	req.Model, req.MaxTokens = "anthropic.claude-3-5-haiku-20241022-v1:0", 700
	resp, err := c.Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "{}" || resp.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 2, Reported: true}) || resp.Provider != failure.Bedrock {
		t.Errorf("response = %+v", resp)
	}
	got := b.request()
	if got.path != "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse" {
		t.Errorf("path = %s", got.path)
	}
	auth := got.header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=test-access-key/") || !strings.Contains(auth, "/eu-west-1/bedrock/aws4_request") ||
		!strings.Contains(strings.ToLower(auth), "x-triage-item-id") {
		t.Errorf("Authorization = %q: want SigV4 for bedrock in eu-west-1, the item id header signed", auth)
	}
	if got.header.Get(llm.HeaderItemID) != "item-9" || got.header.Get("x-api-key") != "" {
		t.Errorf("headers = %v", got.header)
	}
	sys, _ := got.body["system"].([]any)
	cfg, _ := got.body["inferenceConfig"].(map[string]any)
	if len(sys) != 2 || cfg["maxTokens"] != 700.0 || cfg["temperature"] == nil {
		t.Errorf("body = %v", got.body)
	}
}

// TestJudgeRecorded checks the recorded-response judge the CLI uses: the
// same client and judgement for any status, and a usable answer accepted.
func TestJudgeRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ok := `{"choices":[{"message":{"content":"{\"summary_neutral\":\"a\",\"summary_spicy\":\"b\",\"category\":\"c\",` +
		`\"severity\":\"low\",\"primary_actor\":\"d\",\"top_entities\":[\"e\"]}"},"finish_reason":"stop"}]}`
	if enr, err := llm.JudgeRecorded(ctx, failure.OpenAI, store.KindStory, llm.Recorded{Body: []byte(ok)}); err != nil || enr.PrimaryActor != "d" {
		t.Fatalf("a usable answer: %+v, %v", enr, err)
	}
	// OpenAI-compatible servers end an answer in words of their own: Hugging
	// Face TGI's "eos_token" and "stop_sequence" are a natural end.
	for _, finish := range []string{"eos_token", "stop_sequence"} {
		body := strings.Replace(ok, `"finish_reason":"stop"`, `"finish_reason":"`+finish+`"`, 1)
		if enr, err := llm.JudgeRecorded(ctx, failure.OpenAI, store.KindStory, llm.Recorded{Body: []byte(body)}); err != nil || enr.PrimaryActor != "d" {
			t.Errorf("an answer that ended with %q: %+v, %v", finish, enr, err)
		}
	}
	for name, tc := range map[string]struct {
		p    failure.Provider
		rec  llm.Recorded
		want work.Class
	}{
		"anthropic 429": {failure.Anthropic, llm.Recorded{Status: 429, Header: http.Header{"Retry-After": {"9"}},
			Body: []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)}, work.RateLimited},
		"bedrock 503": {failure.Bedrock, llm.Recorded{Status: 503, Header: http.Header{"X-Amzn-Errortype": {"ServiceUnavailableException"}},
			Body: []byte(`{"message":"Bedrock is unable to process your request."}`)}, work.UpstreamUnavailable},
		"bedrock 200 not json": {failure.Bedrock, llm.Recorded{Body: []byte(`<html>gateway</html>`)}, work.ResponseInvalid},
		"azure content filter": {failure.Azure, llm.Recorded{Body: []byte(`{"choices":[{"message":{"role":"assistant"},"finish_reason":"content_filter"}]}`)},
			work.ContentPolicy},
		// DeepSeek stops an answer when its inference system runs short:
		// an outage of the provider's, not a bad answer.
		"deepseek insufficient_system_resource": {failure.OpenAI, llm.Recorded{Body: []byte(strings.Replace(ok, `"finish_reason":"stop"`,
			`"finish_reason":"insufficient_system_resource"`, 1))}, work.UpstreamUnavailable},
		"an action that failed": {failure.OpenAI, llm.Recorded{Body: []byte(strings.Replace(ok, `]}"}`, `]}\nACTION_OUTCOME: failed | no"}`, 1))},
			work.ResponseInvalid}, // a story: text after the JSON object
	} {
		_, err := llm.JudgeRecorded(ctx, tc.p, store.KindStory, tc.rec)
		if got := failure.Classify(err).Class; got != tc.want {
			t.Errorf("%s: %s (%v), want %s", name, got, err, tc.want)
		}
	}
	if _, err := llm.JudgeRecorded(ctx, failure.OpenAI, store.KindStory, llm.Recorded{Status: 42}); failure.Classify(err).Class != work.InternalBug {
		t.Errorf("status 42: %v", err)
	}
}
