package fakes

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The Gemini dialect of the fake LLM: Google's generateContent, as the
// Gemini API serves it (POST /v1beta/models/{model}:generateContent, the
// key in x-goog-api-key or ?key=) and as Vertex AI does under a publisher's
// path (POST /v1/projects/{p}/locations/{l}/publishers/google/models/
// {model}:generateContent, or /v1/publishers/google/models/… in express
// mode). Answers are GenerateContentResponse objects (candidates with a
// finishReason, promptFeedback.blockReason for a blocked prompt,
// usageMetadata); errors are google.rpc.Status bodies,
// {"error":{"code","message","status","details"}}, with the statuses the
// Gemini API documents (INVALID_ARGUMENT, PERMISSION_DENIED, NOT_FOUND,
// RESOURCE_EXHAUSTED with QuotaFailure and RetryInfo, INTERNAL,
// UNAVAILABLE, DEADLINE_EXCEEDED).

// geminiRequest is the part of a generateContent request the fake reads.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"systemInstruction"`
}

func (l *LLM) parseGemini(c *llmCall, r *http.Request, body []byte) {
	c.presented = strings.TrimSpace(r.Header.Get("x-goog-api-key"))
	if c.presented == "" {
		c.presented = strings.TrimSpace(r.URL.Query().Get("key"))
	}
	c.authOK = l.opts.APIKey == "" || subtle.ConstantTimeCompare([]byte(c.presented), []byte(l.opts.APIKey)) == 1
	model, method, _ := strings.Cut(r.PathValue("action"), ":")
	c.model = model
	if c.bad != nil {
		return
	}
	if method != "generateContent" {
		c.bad = &badRequest{status: http.StatusNotFound, message: fmt.Sprintf("models/%s:%s is not supported by the fake LLM", model, method)}
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		c.bad = &badRequest{status: http.StatusBadRequest, message: "Invalid JSON payload received. " + err.Error()}
		return
	}
	c.messages = len(req.Contents)
	if req.SystemInstruction != nil {
		for _, p := range req.SystemInstruction.Parts {
			c.p.add("system", p.Text)
		}
		c.messages++
	}
	for i, m := range req.Contents {
		var text strings.Builder
		for _, p := range m.Parts {
			text.WriteString(p.Text)
		}
		switch m.Role {
		case "user", "":
			c.p.add("user", text.String())
		case "model":
			c.p.add("assistant", text.String())
		default:
			c.bad = &badRequest{status: http.StatusBadRequest, message: fmt.Sprintf(
				"Please use a valid role: user, model. contents[%d].role: %q", i, m.Role)}
			return
		}
	}
	if len(req.Contents) == 0 {
		c.bad = &badRequest{status: http.StatusBadRequest, message: "* GenerateContentRequest.contents: contents is not specified"}
	}
}

// geminiStatus is the google.rpc.Code name of an HTTP status the fake
// answers with.
func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

// geminiError answers a google.rpc.Status body.
func geminiError(w http.ResponseWriter, status int, message string, details ...map[string]any) {
	e := map[string]any{"code": status, "message": message, "status": geminiStatus(status)}
	if len(details) > 0 {
		e["details"] = details
	}
	writeJSON(w, status, map[string]any{"error": e})
}

// failGemini answers an error fault as the Gemini API does (messages as it
// words them): a rate limit with the per-minute quota it broke and the
// delay to retry in, a spent quota as the per-day free tier it is.
func (l *LLM) failGemini(w http.ResponseWriter, d Decision, c llmCall, fault Fault) {
	switch fault {
	case FaultRateLimit:
		secs := l.opts.RetryAfter.Seconds()
		geminiError(w, http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and billing details. "+
			"For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n"+
			"* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 15, model: "+c.model+
			"\nPlease retry in "+strconv.FormatFloat(secs, 'f', -1, 64)+"s.",
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []map[string]any{{
				"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
				"quotaId":     "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
			}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.FormatFloat(secs, 'f', -1, 64) + "s"})
	case FaultQuota:
		geminiError(w, http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and billing details. "+
			"For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []map[string]any{{
				"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
				"quotaId":     "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
			}}})
	case FaultServerError, FaultModelError:
		geminiError(w, http.StatusInternalServerError, "An internal error has occurred. Please retry or report in "+
			"https://developers.generativeai.google/guide/troubleshooting")
	case FaultUnavailable, FaultModelNotReady:
		geminiError(w, http.StatusServiceUnavailable, "The model is overloaded. Please try again later.")
	case FaultModelTimeout:
		geminiError(w, http.StatusGatewayTimeout, "Deadline expired before operation could complete.")
	case FaultContextLength:
		geminiError(w, http.StatusBadRequest, "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).")
	case FaultAuth:
		if c.presented == "" {
			geminiError(w, http.StatusForbidden, "Method doesn't allow unregistered callers (callers without established identity). "+
				"Please use API Key or other form of API consumer identity to call this API.")
			return
		}
		geminiError(w, http.StatusBadRequest, "API key not valid. Please pass a valid API key.",
			map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com",
				"metadata": map[string]string{"service": "generativelanguage.googleapis.com"}})
	case FaultModelNotFound:
		geminiError(w, http.StatusNotFound, "models/"+c.model+" is not found for API version v1beta, or is not supported for "+
			"generateContent. Call ListModels to see the list of available models and their supported methods.")
	default:
		geminiError(w, http.StatusInternalServerError, "fake LLM: fault "+string(fault)+" has no Gemini answer")
	}
}

type geminiResponse struct {
	Candidates     []geminiCandidate     `json:"candidates,omitempty"`
	PromptFeedback *geminiPromptFeedback `json:"promptFeedback,omitempty"`
	UsageMetadata  geminiUsage           `json:"usageMetadata"`
	ModelVersion   string                `json:"modelVersion"`
	ResponseID     string                `json:"responseId"`
}

type geminiCandidate struct {
	Content struct {
		Parts []geminiPart `json:"parts"`
		Role  string       `json:"role"`
	} `json:"content"`
	FinishReason string `json:"finishReason"`
	Index        int    `json:"index"`
}

type geminiPart struct {
	Text string `json:"text"`
}

type geminiPromptFeedback struct {
	BlockReason   string           `json:"blockReason"`
	SafetyRatings []map[string]any `json:"safetyRatings"`
}

type geminiUsage struct {
	PromptTokenCount     int `json:"promptTokenCount"`
	CandidatesTokenCount int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount      int `json:"totalTokenCount"`
}

// completeGemini answers a 200 GenerateContentResponse: finishReason STOP,
// MAX_TOKENS or SAFETY (a candidate with no parts); a blocked prompt
// (content policy) has no candidate and promptFeedback.blockReason SAFETY.
// A model's refusal has no finish reason of its own: it is a plain-text
// answer.
func (l *LLM) completeGemini(w http.ResponseWriter, d Decision, c llmCall, a answerText, in, out int) {
	r := geminiResponse{ModelVersion: c.model, ResponseID: requestID(d)[:22],
		UsageMetadata: geminiUsage{PromptTokenCount: in, CandidatesTokenCount: out, TotalTokenCount: in + out}}
	if a.stop == stopBlocked {
		r.UsageMetadata.CandidatesTokenCount, r.UsageMetadata.TotalTokenCount = 0, in
		r.PromptFeedback = &geminiPromptFeedback{BlockReason: "SAFETY", SafetyRatings: []map[string]any{
			{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}}}
		writeJSON(w, http.StatusOK, r)
		return
	}
	var cand geminiCandidate
	cand.Content.Role, cand.Content.Parts, cand.FinishReason = "model", []geminiPart{}, "STOP"
	text := a.content
	switch a.stop {
	case stopMaxTokens:
		cand.FinishReason = "MAX_TOKENS"
	case stopFilter:
		cand.FinishReason, text = "SAFETY", ""
	case stopRefusal:
		text = a.refusal
	}
	if text != "" {
		cand.Content.Parts = append(cand.Content.Parts, geminiPart{Text: text})
	}
	r.Candidates = []geminiCandidate{cand}
	writeJSON(w, http.StatusOK, r)
}
