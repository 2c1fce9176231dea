package fakes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// dialectRequest builds a minimal valid request of dialect d for key.
func (b *llmBundle) dialectRequest(t *testing.T, d Dialect, key, model string) *http.Request {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json", ItemIDHeader: key}
	var url string
	var body []byte
	switch d {
	case DialectOpenAI, DialectAzure:
		body = chatBody(model, "")
		url = b.base + "/v1/chat/completions"
		h["Authorization"] = "Bearer " + testAPIKey
		if d == DialectAzure {
			url = b.base + "/openai/deployments/" + model + "/chat/completions?api-version=2024-10-21"
			delete(h, "Authorization")
			h["api-key"] = testAPIKey
		}
	case DialectAnthropic:
		body, _ = json.Marshal(map[string]any{"model": model, "max_tokens": 256, "system": "be brief",
			"messages": []map[string]any{{"role": "user", "content": userText}}})
		url = b.base + "/v1/messages"
		h["x-api-key"], h["anthropic-version"] = testAPIKey, "2023-06-01"
	case DialectBedrock:
		body, _ = json.Marshal(map[string]any{"system": []map[string]string{{"text": "be brief"}},
			"messages": []map[string]any{{"role": "user", "content": []map[string]string{{"text": userText}}}}})
		url = b.base + "/model/" + model + "/converse"
		h["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=abc"
	case DialectGemini:
		body, _ = json.Marshal(map[string]any{"systemInstruction": map[string]any{"parts": []map[string]string{{"text": "be brief"}}},
			"contents": []map[string]any{{"role": "user", "parts": []map[string]string{{"text": userText}}}}})
		url = b.base + "/v1beta/models/" + model + ":generateContent"
		h["x-goog-api-key"] = testAPIKey
	}
	return newRequest(t, http.MethodPost, url, body, h)
}

// TestLLMDialectShapes checks each dialect's wire shape of an answer and of
// its errors, as its provider documents them.
func TestLLMDialectShapes(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{APIKey: testAPIKey})
	tests := []struct {
		dialect Dialect
		fault   Fault
		status  int
		header  map[string]string
		body    string // a fragment the body holds
	}{
		{DialectOpenAI, FaultNone, 200, map[string]string{"x-request-id": "req_"}, `"object":"chat.completion"`},
		{DialectAzure, FaultNone, 200, map[string]string{"apim-request-id": ""}, `"finish_reason":"stop"`},
		{DialectAzure, FaultAuth, 401, nil, `"code":"401"`},
		{DialectAzure, FaultContentPolicy, 400, nil, `"ResponsibleAIPolicyViolation"`},
		{DialectAzure, FaultModelNotFound, 404, nil, `"code":"DeploymentNotFound"`},
		{DialectAnthropic, FaultNone, 200, map[string]string{"request-id": "req_"}, `"type":"message"`},
		{DialectAnthropic, FaultUnavailable, 529, nil, `"type":"overloaded_error"`},
		{DialectAnthropic, FaultRateLimit, 429, map[string]string{"retry-after": "2", "anthropic-ratelimit-requests-remaining": "0"},
			`"type":"rate_limit_error"`},
		{DialectAnthropic, FaultContextLength, 400, nil, `prompt is too long`},
		{DialectAnthropic, FaultAuth, 401, nil, `"type":"authentication_error"`},
		{DialectAnthropic, FaultCutOff, 200, nil, `"stop_reason":"max_tokens"`},
		{DialectAnthropic, FaultContentPolicy, 200, nil, `"stop_reason":"refusal"`},
		{DialectBedrock, FaultNone, 200, map[string]string{"x-amzn-RequestId": ""}, `"stopReason":"end_turn"`},
		{DialectBedrock, FaultRateLimit, 429, map[string]string{"X-Amzn-Errortype": "ThrottlingException:"}, `{"message":"Too many requests`},
		{DialectBedrock, FaultModelTimeout, 408, map[string]string{"X-Amzn-Errortype": "ModelTimeoutException:"}, `"message"`},
		{DialectBedrock, FaultModelError, 424, map[string]string{"X-Amzn-Errortype": "ModelErrorException:"}, `"message"`},
		{DialectBedrock, FaultContextLength, 400, map[string]string{"X-Amzn-Errortype": "ValidationException:"}, `Input is too long`},
		{DialectBedrock, FaultContentPolicy, 200, nil, `"stopReason":"guardrail_intervened"`},
		{DialectBedrock, FaultContentFilter, 200, nil, `"stopReason":"content_filtered"`},
		{DialectGemini, FaultNone, 200, nil, `"finishReason":"STOP"`},
		{DialectGemini, FaultRateLimit, 429, nil, `"retryDelay":"2s"`},
		{DialectGemini, FaultQuota, 429, nil, `PerDayPerProjectPerModel`},
		{DialectGemini, FaultUnavailable, 503, nil, `"status":"UNAVAILABLE"`},
		{DialectGemini, FaultModelTimeout, 504, nil, `"status":"DEADLINE_EXCEEDED"`},
		{DialectGemini, FaultAuth, 400, nil, `"reason":"API_KEY_INVALID"`},
		{DialectGemini, FaultModelNotFound, 404, nil, `"status":"NOT_FOUND"`},
		{DialectGemini, FaultContextLength, 400, nil, `exceeds the maximum number of tokens`},
		{DialectGemini, FaultCutOff, 200, nil, `"finishReason":"MAX_TOKENS"`},
		{DialectGemini, FaultContentFilter, 200, nil, `"finishReason":"SAFETY"`},
		{DialectGemini, FaultContentPolicy, 200, nil, `"blockReason":"SAFETY"`},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s", tc.dialect, tc.fault), func(t *testing.T) {
			t.Parallel()
			key := fmt.Sprintf("shape-%d", i)
			if tc.fault != FaultNone {
				if err := b.llm.SetScript(key, tc.fault); err != nil {
					t.Fatal(err)
				}
			}
			r := do(t, nil, b.dialectRequest(t, tc.dialect, key, "model-a"))
			if r.status != tc.status || !strings.Contains(string(r.body), tc.body) {
				t.Fatalf("%d %s, want %d with %s", r.status, r.body, tc.status, tc.body)
			}
			for h, prefix := range tc.header {
				if v := r.header.Get(h); v == "" || !strings.HasPrefix(v, prefix) {
					t.Errorf("header %s = %q, want it to start with %q", h, v, prefix)
				}
			}
			if strings.Contains(string(r.body), testAPIKey) {
				t.Error("the body leaks the key")
			}
		})
	}
}

// TestLLMMixIsTheSameInEveryDialect posts one seeded mix to five fakes and
// asks each the same keys in a different dialect: every key gets the same
// fault whatever the wire format.
func TestLLMMixIsTheSameInEveryDialect(t *testing.T) {
	t.Parallel()
	mix := Mix{Seed: 99, Rates: map[Fault]float64{FaultRateLimit: 0.2, FaultServerError: 0.1, FaultInvalidJSON: 0.1,
		Always(FaultContentPolicy): 0.1}}
	faults := map[Dialect][]Fault{}
	for _, d := range Dialects() {
		b := setupLLM(t, LLMOptions{APIKey: testAPIKey})
		if err := b.llm.SetMix(mix); err != nil {
			t.Fatal(err)
		}
		for k := range 40 {
			for range 2 {
				do(t, nil, b.dialectRequest(t, d, fmt.Sprintf("k%d", k), "model-a"))
			}
		}
		for _, c := range b.llm.Stats().Recent {
			faults[d] = append(faults[d], c.Fault)
			if c.Dialect != d {
				t.Fatalf("call recorded as %s, sent as %s", c.Dialect, d)
			}
		}
	}
	base := fmt.Sprint(faults[DialectOpenAI])
	for _, d := range Dialects() {
		if got := fmt.Sprint(faults[d]); got != base {
			t.Errorf("%s drew %s, openai %s", d, got, base)
		}
	}
	if !strings.Contains(base, string(FaultRateLimit)) || !strings.Contains(base, string(FaultContentPolicy)) {
		t.Errorf("the mix drew no faults: %s", base)
	}
}

func TestLLMDialectOutageControl(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{})
	on := true
	control(t, b.base, "/_fake/dialect-outage", DialectOutageRequest{Dialect: DialectAnthropic, On: &on, Mode: OutageUnavailable}, http.StatusOK)
	if r := do(t, nil, b.dialectRequest(t, DialectAnthropic, "x", "m")); r.status != 529 {
		t.Errorf("anthropic during its outage: %d %s", r.status, r.body)
	}
	if r := do(t, nil, b.dialectRequest(t, DialectOpenAI, "x", "m")); r.status != 200 {
		t.Errorf("openai during anthropic's outage: %d", r.status)
	}
	for _, bad := range []string{`{"dialect":"cohere","on":true}`, `{"dialect":"anthropic"}`, `{"dialect":"bedrock","on":true,"mode":"slow"}`} {
		req := newRequest(t, http.MethodPost, b.base+"/_fake/dialect-outage", []byte(bad), nil)
		if r := do(t, nil, req); r.status != http.StatusBadRequest {
			t.Errorf("%s: %d", bad, r.status)
		}
	}
	b.llm.Reset()
	if st := b.llm.Stats(); len(st.DialectOutages) != 0 {
		t.Errorf("reset kept %v", st.DialectOutages)
	}
}

// TestLLMGeminiPaths: the Gemini dialect answers on the Gemini API's path
// and on Vertex AI's, with the key in the header or the query.
func TestLLMGeminiPaths(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, LLMOptions{APIKey: testAPIKey})
	body, _ := json.Marshal(map[string]any{"contents": []map[string]any{{"role": "user", "parts": []map[string]string{{"text": userText}}}}})
	for path, want := range map[string]int{
		"/v1beta/models/gemini-2.0-flash:generateContent?key=" + testAPIKey:                                                 200,
		"/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent?key=" + testAPIKey: 200,
		"/v1/publishers/google/models/gemini-2.0-flash:generateContent?key=" + testAPIKey:                                   200,
		"/v1beta/models/gemini-2.0-flash:streamGenerateContent?key=" + testAPIKey:                                           404,
		"/v1beta/models/gemini-2.0-flash:generateContent?key=wrong":                                                         400,
		"/v1beta/models/gemini-2.0-flash:generateContent":                                                                   403,
	} {
		r := do(t, nil, newRequest(t, http.MethodPost, b.base+path, body, map[string]string{"Content-Type": "application/json"}))
		if r.status != want {
			t.Errorf("%s: %d %s, want %d", path, r.status, r.body, want)
		}
	}
}
