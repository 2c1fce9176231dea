package fakes

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// The OpenAI and Azure OpenAI dialects of the fake LLM: chat completions,
// OpenAI's error object {"error":{"message","type","param","code"}} and its
// x-request-id and x-ratelimit-* headers; Azure's deployment path, api-key
// header, apim-request-id and its own wording of auth, throttling, content
// filter and missing-deployment errors.

// chatRequest is the part of a Chat Completions request the fake reads;
// temperature, response_format and the rest are accepted and ignored.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns the message's text: a string content, or the text parts of an
// array content.
func (m chatMessage) text() (string, error) {
	return textOf(m.Content, "text")
}

// textOf reads a content that is a string or an array of parts, keeping the
// parts of type partType (every part with a "text" when partType is "").
func textOf(raw json.RawMessage, partType string) (string, error) {
	c := strings.TrimSpace(string(raw))
	switch {
	case c == "" || c == "null":
		return "", nil
	case c[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case c[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range parts {
			if partType == "" || p.Type == partType {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", errors.New("content must be a string or an array of parts")
}

// parseChat reads an OpenAI or Azure request: the model (Azure's is the
// deployment in the path), the messages, and the credential.
func (l *LLM) parseChat(c *llmCall, r *http.Request, body []byte) {
	if c.dialect == DialectAzure {
		c.presented = strings.TrimSpace(r.Header.Get("api-key"))
	}
	if c.presented == "" {
		if scheme, key, found := strings.Cut(r.Header.Get("Authorization"), " "); found && strings.EqualFold(scheme, "Bearer") {
			c.presented = strings.TrimSpace(key)
		}
	}
	c.authOK = l.opts.APIKey == "" || subtle.ConstantTimeCompare([]byte(c.presented), []byte(l.opts.APIKey)) == 1
	if c.bad != nil {
		return
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		c.bad = &badRequest{status: http.StatusBadRequest, message: "We could not parse the JSON body of your request. " +
			"(HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, " +
			"but what was sent was not valid JSON.)"}
		return
	}
	c.model, c.messages = req.Model, len(req.Messages)
	if c.dialect == DialectAzure {
		c.model = r.PathValue("deployment")
	}
	for i, m := range req.Messages {
		text, err := m.text()
		if err != nil {
			c.bad = &badRequest{status: http.StatusBadRequest, message: fmt.Sprintf("Invalid messages[%d].content: %v", i, err), param: "messages"}
			return
		}
		c.p.add(m.Role, text)
	}
	switch {
	case c.model == "":
		c.bad = &badRequest{status: http.StatusBadRequest, message: "you must provide a model parameter"}
	case len(req.Messages) == 0:
		c.bad = &badRequest{status: http.StatusBadRequest, message: "[] is too short - 'messages'", param: "messages"}
	case req.Stream:
		c.bad = &badRequest{status: http.StatusBadRequest, message: "stream is not supported by the fake LLM", param: "stream"}
	}
}

// maskKey masks an API key the way OpenAI's 401 message does: the first three
// and last four characters survive. Keys shorter than 8 are fully masked.
func maskKey(k string) string {
	if len(k) < 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:3] + strings.Repeat("*", len(k)-7) + k[len(k)-4:]
}

// headers sets the headers OpenAI puts on every API response (Azure adds
// its apim-request-id).
func (l *LLM) headers(w http.ResponseWriter, d Decision, limited bool) {
	h := w.Header()
	h.Set("x-request-id", "req_"+requestID(d))
	h.Set("openai-organization", "org-fake")
	h.Set("openai-processing-ms", "42")
	h.Set("openai-version", "2020-10-01")
	if limited {
		h.Set("x-ratelimit-limit-requests", "3")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", l.opts.RetryAfter.String())
	} else {
		h.Set("x-ratelimit-limit-requests", "10000")
		h.Set("x-ratelimit-remaining-requests", "9999")
		h.Set("x-ratelimit-reset-requests", "6ms")
	}
	h.Set("x-ratelimit-limit-tokens", "200000")
	h.Set("x-ratelimit-remaining-tokens", "199000")
	h.Set("x-ratelimit-reset-tokens", "300ms")
}

// apiError is OpenAI's error object; empty Param and Code encode as null.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// WriteOpenAIError writes OpenAI's error body with status; empty param and
// code encode as null. Other fakes (the soak's planted secrets) answer in
// OpenAI's words through it.
func WriteOpenAIError(w http.ResponseWriter, status int, message, typ, param, code string) {
	e := apiError{Message: message, Type: typ}
	if param != "" {
		e.Param = &param
	}
	if code != "" {
		e.Code = &code
	}
	writeJSON(w, status, map[string]apiError{"error": e})
}

// failOpenAI answers an error fault as OpenAI does.
func (l *LLM) failOpenAI(w http.ResponseWriter, d Decision, c llmCall, fault Fault) {
	l.headers(w, d, fault == FaultRateLimit)
	switch fault {
	case FaultRateLimit:
		w.Header().Set("Retry-After", seconds(l.opts.RetryAfter))
		WriteOpenAIError(w, http.StatusTooManyRequests, fmt.Sprintf("Rate limit reached for %s in organization org-xxx on "+
			"requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in %s. Visit "+
			"https://platform.openai.com/account/rate-limits to learn more.", c.model, l.opts.RetryAfter),
			"requests", "", "rate_limit_exceeded")
	case FaultQuota:
		WriteOpenAIError(w, http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and "+
			"billing details. For more information on this error, read the docs: "+
			"https://platform.openai.com/docs/guides/error-codes/api-errors.", "insufficient_quota", "", "insufficient_quota")
	case FaultServerError, FaultModelError:
		WriteOpenAIError(w, http.StatusInternalServerError, "The server had an error while processing your request. "+
			"Sorry about that!", "server_error", "", "")
	case FaultUnavailable, FaultModelNotReady:
		WriteOpenAIError(w, http.StatusServiceUnavailable, "The engine is currently overloaded, please try again later.",
			"server_error", "", "engine_overloaded")
	case FaultModelTimeout:
		writeText(w, http.StatusGatewayTimeout, "upstream request timeout")
	case FaultContentPolicy:
		WriteOpenAIError(w, http.StatusBadRequest, "Your request was rejected as a result of our safety system. Your "+
			"prompt may contain text that is not allowed by our safety system.", "invalid_request_error", "",
			"content_policy_violation")
	case FaultContextLength:
		WriteOpenAIError(w, http.StatusBadRequest, "This model's maximum context length is 128000 tokens. However, your "+
			"messages resulted in 130012 tokens. Please reduce the length of the messages.", "invalid_request_error",
			"messages", "context_length_exceeded")
	case FaultAuth:
		if c.presented == "" && l.opts.APIKey != "" {
			WriteOpenAIError(w, http.StatusUnauthorized, "You didn't provide an API key. You need to provide your API key "+
				"in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain "+
				"an API key from https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "")
			return
		}
		masked := "sk-...xxxx"
		if c.presented != "" {
			masked = maskKey(c.presented)
		}
		WriteOpenAIError(w, http.StatusUnauthorized, "Incorrect API key provided: "+masked+". You can find your API key "+
			"at https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "invalid_api_key")
	case FaultModelNotFound:
		WriteOpenAIError(w, http.StatusNotFound, "The model `"+c.model+"` does not exist or you do not have access to it.",
			"invalid_request_error", "", "model_not_found")
	default:
		WriteOpenAIError(w, http.StatusInternalServerError, "fake LLM: fault "+string(fault)+" has no OpenAI answer", "server_error", "", "")
	}
}

// azureError is Azure OpenAI's error object.
func azureError(w http.ResponseWriter, status int, code, message string, inner map[string]any) {
	e := map[string]any{"code": code, "message": message}
	if inner != nil {
		e["param"], e["type"], e["status"], e["innererror"] = "prompt", nil, status, inner
	}
	writeJSON(w, status, map[string]any{"error": e})
}

// failAzure answers an error fault as Azure OpenAI does where its words
// differ from OpenAI's (auth, throttling, the content filter, a missing
// deployment); the rest as OpenAI.
func (l *LLM) failAzure(w http.ResponseWriter, d Decision, c llmCall, fault Fault) {
	w.Header().Set("apim-request-id", requestIDUUID(d))
	switch fault {
	case FaultAuth:
		azureError(w, http.StatusUnauthorized, "401", "Access denied due to invalid subscription key or wrong API endpoint. "+
			"Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.", nil)
	case FaultRateLimit, FaultQuota:
		w.Header().Set("Retry-After", seconds(l.opts.RetryAfter))
		w.Header().Set("x-ratelimit-remaining-requests", "0")
		azureError(w, http.StatusTooManyRequests, "429", "Requests to the ChatCompletions_Create Operation under Azure OpenAI "+
			"API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after "+
			seconds(l.opts.RetryAfter)+" seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further "+
			"increase the default rate limit.", nil)
	case FaultContentPolicy:
		azureError(w, http.StatusBadRequest, "content_filter", "The response was filtered due to the prompt triggering Azure "+
			"OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content "+
			"filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
			map[string]any{"code": "ResponsibleAIPolicyViolation", "content_filter_result": map[string]any{
				"hate": filter{false, "safe"}, "self_harm": filter{false, "safe"}, "sexual": filter{false, "safe"},
				"violence": filter{true, "medium"}}})
	case FaultModelNotFound:
		azureError(w, http.StatusNotFound, "DeploymentNotFound", "The API deployment for this resource does not exist. If you "+
			"created the deployment within the last 5 minutes, please wait a moment and try again.", nil)
	default:
		l.failOpenAI(w, d, c, fault)
	}
}

type chatResponse struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	Usage             chatUsage    `json:"usage"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type chatChoice struct {
	Index        int               `json:"index"`
	Message      chatAnswer        `json:"message"`
	Logprobs     *struct{}         `json:"logprobs"`
	FinishReason string            `json:"finish_reason"`
	Filter       map[string]filter `json:"content_filter_results,omitempty"`
}

type chatAnswer struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
	Refusal *string `json:"refusal"`
}

type filter struct {
	Filtered bool   `json:"filtered"`
	Severity string `json:"severity"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// completeChat answers a 200 chat completion.
func (l *LLM) completeChat(w http.ResponseWriter, d Decision, c llmCall, a answerText, in, out int) {
	l.headers(w, d, false)
	if c.dialect == DialectAzure {
		w.Header().Set("apim-request-id", requestIDUUID(d))
	}
	content := a.content
	choice := chatChoice{Message: chatAnswer{Role: "assistant", Content: &content}, FinishReason: "stop"}
	switch a.stop {
	case stopMaxTokens:
		choice.FinishReason = "length"
	case stopFilter, stopGuardrail:
		choice.FinishReason = "content_filter"
		// Azure OpenAI reports which category tripped.
		choice.Filter = map[string]filter{
			"hate": {false, "safe"}, "self_harm": {false, "safe"}, "sexual": {false, "safe"}, "violence": {true, "high"},
		}
	case stopRefusal:
		refusal := a.refusal
		choice.Message.Content, choice.Message.Refusal = nil, &refusal
	}
	writeJSON(w, http.StatusOK, chatResponse{
		ID:                fmt.Sprintf("chatcmpl-%016x", splitmix64(HashString(d.Key)+uint64(d.Call))),
		Object:            "chat.completion",
		Created:           l.opts.Clock.Now().Unix(),
		Model:             c.model,
		Choices:           []chatChoice{choice},
		Usage:             chatUsage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out},
		SystemFingerprint: "fp_fake",
	})
}

// requestIDUUID is a decision's request id in UUID form (Azure, Bedrock).
func requestIDUUID(d Decision) string {
	id := requestID(d)
	return id[:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:32]
}
