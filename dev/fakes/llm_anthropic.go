package fakes

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The Anthropic Messages dialect of the fake LLM: POST /v1/messages with
// x-api-key and anthropic-version, the Message object, and Anthropic's
// error body {"type":"error","error":{"type","message"},"request_id"} with
// the documented types and statuses (invalid_request_error 400,
// authentication_error 401, not_found_error 404, rate_limit_error 429,
// api_error 500, overloaded_error 529), request-id and
// anthropic-ratelimit-* headers.

// anthropicRequest is the part of a Messages request the fake reads.
type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []chatMessage   `json:"messages"`
	Stream    bool            `json:"stream"`
}

func (l *LLM) parseAnthropic(c *llmCall, r *http.Request, body []byte) {
	c.presented = strings.TrimSpace(r.Header.Get("x-api-key"))
	c.authOK = l.opts.APIKey == "" || subtle.ConstantTimeCompare([]byte(c.presented), []byte(l.opts.APIKey)) == 1
	if c.bad != nil {
		return
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		c.bad = &badRequest{status: http.StatusBadRequest, message: "There was an issue with the format of your request: the body is not valid JSON"}
		return
	}
	c.model, c.messages = req.Model, len(req.Messages)
	if !c.addSystem(req.System, "text", "") {
		return
	}
	for i, m := range req.Messages {
		text, err := textOf(m.Content, "text")
		if err != nil {
			c.bad = &badRequest{status: http.StatusBadRequest, message: fmt.Sprintf("messages.%d.content: %v", i, err)}
			return
		}
		if m.Role != "user" && m.Role != "assistant" {
			c.bad = &badRequest{status: http.StatusBadRequest, message: fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)}
			return
		}
		c.p.add(m.Role, text)
	}
	switch {
	case r.Header.Get("anthropic-version") == "":
		c.bad = &badRequest{status: http.StatusBadRequest, message: "anthropic-version: header is required"}
	case c.model == "":
		c.bad = &badRequest{status: http.StatusBadRequest, message: "model: Field required"}
	case req.MaxTokens == nil:
		c.bad = &badRequest{status: http.StatusBadRequest, message: "max_tokens: Field required"}
	case len(req.Messages) == 0:
		c.bad = &badRequest{status: http.StatusBadRequest, message: "messages: at least one message is required"}
	case req.Stream:
		c.bad = &badRequest{status: http.StatusBadRequest, message: "stream: not supported by the fake LLM"}
	}
}

// anthropicHeaders sets the headers Anthropic puts on every API response.
func (l *LLM) anthropicHeaders(w http.ResponseWriter, d Decision, limited bool) {
	h := w.Header()
	h.Set("request-id", "req_"+requestID(d)[:24])
	h.Set("anthropic-organization-id", "00000000-0000-4000-8000-000000000000")
	reset := l.opts.Clock.Now().Add(time.Second).UTC()
	if limited {
		reset = l.opts.Clock.Now().Add(l.opts.RetryAfter).UTC()
		h.Set("anthropic-ratelimit-requests-remaining", "0")
	} else {
		h.Set("anthropic-ratelimit-requests-remaining", "49")
	}
	h.Set("anthropic-ratelimit-requests-limit", "50")
	h.Set("anthropic-ratelimit-requests-reset", reset.Format(time.RFC3339))
	h.Set("anthropic-ratelimit-tokens-limit", "50000")
	h.Set("anthropic-ratelimit-tokens-remaining", "49000")
	h.Set("anthropic-ratelimit-tokens-reset", reset.Format(time.RFC3339))
}

func anthropicError(w http.ResponseWriter, d Decision, status int, typ, message string) {
	writeJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]string{"type": typ, "message": message},
		"request_id": "req_" + requestID(d)[:24],
	})
}

// anthropicBadType is the error type of a status the fake rejects a
// request with.
func anthropicBadType(status int) string {
	if status == http.StatusRequestEntityTooLarge {
		return "request_too_large"
	}
	return "invalid_request_error"
}

// failAnthropic answers an error fault as the Messages API does.
func (l *LLM) failAnthropic(w http.ResponseWriter, d Decision, c llmCall, fault Fault) {
	l.anthropicHeaders(w, d, fault == FaultRateLimit)
	switch fault {
	case FaultRateLimit:
		w.Header().Set("retry-after", seconds(l.opts.RetryAfter))
		anthropicError(w, d, http.StatusTooManyRequests, "rate_limit_error", "This request would exceed the rate limit for "+
			"your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. "+
			"You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens "+
			"requested, or try again later.")
	case FaultQuota:
		anthropicError(w, d, http.StatusBadRequest, "invalid_request_error", "Your credit balance is too low to access the "+
			"Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")
	case FaultServerError, FaultModelError:
		anthropicError(w, d, http.StatusInternalServerError, "api_error", "Internal server error")
	case FaultUnavailable, FaultModelNotReady:
		anthropicError(w, d, 529, "overloaded_error", "Overloaded")
	case FaultModelTimeout:
		writeText(w, http.StatusGatewayTimeout, "upstream request timeout")
	case FaultContextLength:
		anthropicError(w, d, http.StatusBadRequest, "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")
	case FaultAuth:
		anthropicError(w, d, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
	case FaultModelNotFound:
		anthropicError(w, d, http.StatusNotFound, "not_found_error", "model: "+c.model)
	default:
		anthropicError(w, d, http.StatusInternalServerError, "api_error", "fake LLM: fault "+string(fault)+" has no Anthropic answer")
	}
}

type anthropicMessage struct {
	ID           string             `json:"id"`
	Type         string             `json:"type"`
	Role         string             `json:"role"`
	Model        string             `json:"model"`
	Content      []anthropicContent `json:"content"`
	StopReason   string             `json:"stop_reason"`
	StopSequence *string            `json:"stop_sequence"`
	Usage        anthropicUsage     `json:"usage"`
}

type anthropicContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anthropicUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// completeAnthropic answers a 200 Message. A refusal has stop_reason
// "refusal" and no content, as the API sends it; the fake's content filter
// is Anthropic's refusal too (the Messages API has no other).
func (l *LLM) completeAnthropic(w http.ResponseWriter, d Decision, c llmCall, a answerText, in, out int) {
	l.anthropicHeaders(w, d, false)
	m := anthropicMessage{
		ID: "msg_" + requestID(d)[:24], Type: "message", Role: "assistant", Model: c.model,
		Content: []anthropicContent{}, StopReason: "end_turn", Usage: anthropicUsage{InputTokens: in, OutputTokens: out},
	}
	if a.content != "" {
		m.Content = append(m.Content, anthropicContent{Type: "text", Text: a.content})
	}
	switch a.stop {
	case stopMaxTokens:
		m.StopReason = "max_tokens"
	case stopFilter, stopRefusal, stopGuardrail:
		m.StopReason, m.Content = "refusal", []anthropicContent{}
	}
	writeJSON(w, http.StatusOK, m)
}
