package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// geminiEnrichment is a usable enrichment as generateContent returns it.
const geminiEnrichment = `{"candidates":[{"content":{"parts":[{"text":"{\"summary_neutral\":\"a\",\"summary_spicy\":\"b\",\"category\":\"c\",` +
	`\"severity\":\"low\",\"primary_actor\":\"d\",\"top_entities\":[\"e\"]}"}],"role":"model"},"finishReason":"STOP","index":0}],` +
	`"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":30,"thoughtsTokenCount":5,"totalTokenCount":47},` +
	`"modelVersion":"gemini-2.0-flash","responseId":"resp-1"}`

// TestGeminiRequest checks the generateContent request: the model's path,
// the system messages in systemInstruction, an assistant's role "model",
// the generation config, and the key only in x-goog-api-key.
func TestGeminiRequest(t *testing.T) {
	t.Parallel()
	b := setup(t, respond(200, geminiEnrichment))
	c, err := llm.NewCompleter(llm.Config{Provider: failure.Gemini, BaseURL: b.srv.URL + "/v1beta", APIKey: "AIzaFakeKey0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	req := wireRequest()
	req.Model, req.MaxTokens, req.JSONObject = "models/gemini-2.0-flash", 700, true
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: "earlier"})
	resp, err := c.Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Provider != failure.Gemini || resp.Model != "gemini-2.0-flash" || resp.RequestID != "resp-1" || resp.Stop != llm.StopEnd ||
		resp.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 35, Reported: true}) {
		t.Errorf("response = %+v", resp)
	}
	if enr, err := llm.Judge(store.KindStory, resp); err != nil || enr.PrimaryActor != "d" {
		t.Errorf("judged %+v, %v", enr, err)
	}
	got := b.request()
	if got.path != "/v1beta/models/gemini-2.0-flash:generateContent" {
		t.Errorf("path = %s", got.path)
	}
	if got.header.Get("X-Goog-Api-Key") != "AIzaFakeKey0123456789" || got.header.Get("Authorization") != "" || got.header.Get(llm.HeaderItemID) != "item-9" {
		t.Errorf("headers = %v", got.header)
	}
	sys, _ := got.body["systemInstruction"].(map[string]any)
	cfg, _ := got.body["generationConfig"].(map[string]any)
	contents, _ := got.body["contents"].([]any)
	if sys == nil || len(contents) != 2 || cfg["maxOutputTokens"] != 700.0 || cfg["responseMimeType"] != "application/json" || cfg["temperature"] == nil {
		t.Errorf("body = %v", got.body)
	}
	if last, _ := contents[1].(map[string]any); last["role"] != "model" {
		t.Errorf("an assistant message has role %v", last["role"])
	}
}

// TestGeminiJudgement: generateContent's answers and errors reach the
// stage's judgement (docs/design.md "One judgement, whatever the
// dialect"), whether given as one object, an SSE stream or the REST
// stream's JSON array. The shapes are the Gemini API reference's
// (GenerateContentResponse, FinishReason, BlockReason) and Google's error
// model (google.rpc.Status with RetryInfo).
func TestGeminiJudgement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	answer := func(finish string) string {
		return `{"candidates":[{"content":{"parts":[{"text":"{\"summary_neutral\":"}],"role":"model"},"finishReason":"` + finish + `"}]}`
	}
	for name, tc := range map[string]struct {
		p         failure.Provider
		rec       llm.Recorded
		want      work.Class
		requested time.Duration
	}{
		"cut off":     {failure.Gemini, llm.Recorded{Body: []byte(answer("MAX_TOKENS"))}, work.ResponseInvalid, 0},
		"safety":      {failure.Gemini, llm.Recorded{Body: []byte(answer("SAFETY"))}, work.ContentPolicy, 0},
		"recitation":  {failure.Vertex, llm.Recorded{Body: []byte(answer("RECITATION"))}, work.ContentPolicy, 0},
		"prohibited":  {failure.Gemini, llm.Recorded{Body: []byte(answer("PROHIBITED_CONTENT"))}, work.ContentPolicy, 0},
		"a tool call": {failure.Gemini, llm.Recorded{Body: []byte(answer("MALFORMED_FUNCTION_CALL"))}, work.ResponseInvalid, 0},
		"other":       {failure.Gemini, llm.Recorded{Body: []byte(answer("OTHER"))}, work.ResponseInvalid, 0},
		"a blocked prompt": {failure.Gemini, llm.Recorded{Body: []byte(`{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":8}}`)},
			work.ContentPolicy, 0},
		"no candidates, nothing blocked": {failure.Gemini, llm.Recorded{Body: []byte(`{"usageMetadata":{"promptTokenCount":8}}`)}, work.ResponseInvalid, 0},
		"not json":                       {failure.Gemini, llm.Recorded{Body: []byte(`<html>proxy</html>`)}, work.ResponseInvalid, 0},
		"429 with RetryInfo": {failure.Gemini, llm.Recorded{Status: 429, Body: []byte(`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]}}`)}, work.RateLimited, 17 * time.Second},
		"400 api key": {failure.Gemini, llm.Recorded{Status: 400, Body: []byte(`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`)}, work.AuthDenied, 0},
		"404 model": {failure.Vertex, llm.Recorded{Status: 404, Body: []byte(`{"error":{"code":404,"message":"Publisher Model ` + "`gemini-9`" + ` was not found or your project does not have access to it.","status":"NOT_FOUND"}}`)},
			work.ClientError, 0},
		"503 overloaded": {failure.Gemini, llm.Recorded{Status: 503, Body: []byte(`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)},
			work.UpstreamUnavailable, 0},
		"an error in a stream after 200": {failure.Gemini, llm.Recorded{Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: []byte("data: " + answer("") + "\n\ndata: {\"error\":{\"code\":500,\"message\":\"Internal error encountered.\",\"status\":\"INTERNAL\"}}\n\n")},
			work.UpstreamUnavailable, 0},
		"a stream cut off": {failure.Gemini, llm.Recorded{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte("data: " + answer(""))},
			work.NetworkTimeout, 0},
		"a stream cut between chunks": {failure.Gemini, llm.Recorded{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte("data: " + answer("") + "\r\n\r\n")},
			work.NetworkTimeout, 0},
		"the REST stream's array, cut at the end": {failure.Gemini, llm.Recorded{Body: []byte("[" + answer("") + "," + answer("MAX_TOKENS") + "]")},
			work.ResponseInvalid, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := llm.JudgeRecorded(ctx, tc.p, store.KindStory, tc.rec)
			c := failure.Classify(err)
			if c.Class != tc.want {
				t.Errorf("%s (%v), want %s", c.Class, err, tc.want)
			}
			if got := c.Requested.Resolve(time.Time{}); got != tc.requested {
				t.Errorf("requested %v, want %v", got, tc.requested)
			}
			if err != nil && strings.Contains(err.Error(), "AIza") {
				t.Errorf("the error names a key: %v", err)
			}
		})
	}
	// A usable answer, whole or streamed, is accepted.
	stream := "data: " + strings.Replace(geminiEnrichment, `"finishReason":"STOP",`, "", 1) + "\n\ndata: " +
		`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP"}]}` + "\n\n"
	for name, rec := range map[string]llm.Recorded{
		"whole":  {Body: []byte(geminiEnrichment)},
		"stream": {Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: []byte(stream)},
		"array":  {Body: []byte("[" + geminiEnrichment + "]")},
	} {
		if enr, err := llm.JudgeRecorded(ctx, failure.Gemini, store.KindStory, rec); err != nil || enr.PrimaryActor != "d" {
			t.Errorf("%s: %+v, %v", name, enr, err)
		}
	}
}
