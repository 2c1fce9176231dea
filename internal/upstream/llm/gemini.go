package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// GeminiOp is the operation name on the Gemini client's HTTPErrors.
const GeminiOp = "generateContent"

// DefaultGeminiBaseURL is the Gemini API's root.
const DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// GeminiClient calls Google's generateContent: the Gemini API
// (generativelanguage.googleapis.com) or Vertex AI, which speaks the same
// wire format. It is safe for concurrent use.
type GeminiClient struct {
	httpDialect
	base *url.URL
}

var _ Completer = (*GeminiClient)(nil)

// NewGemini returns a generateContent client for cfg. BaseURL is the root
// that "/models/<model>:generateContent" is added to:
// DefaultGeminiBaseURL for the Gemini API, or a Vertex AI publisher's
// ("https://REGION-aiplatform.googleapis.com/v1/projects/P/locations/REGION/publishers/google",
// "https://aiplatform.googleapis.com/v1/publishers/google" in express
// mode). The API key goes in the x-goog-api-key header, which both accept
// (Vertex AI's OAuth tokens are not fetched here: front it with a key, or
// a proxy that holds the token). cfg.Provider is what the client reports
// (failure.Gemini by default; "vertex" for Vertex AI). A BaseURL that is
// not an absolute http or https URL is an INTERNAL_BUG.
func NewGemini(cfg Config) (*GeminiClient, error) {
	u, err := parseBaseURL(cmpOr(cfg.BaseURL, DefaultGeminiBaseURL))
	if err != nil {
		return nil, err
	}
	p := cfg.Provider
	if p == "" {
		p = failure.Gemini
	}
	return &GeminiClient{httpDialect: newHTTPDialect(cfg, p, GeminiOp), base: u}, nil
}

type geminiPart struct {
	Text    string `json:"text,omitempty"`
	Thought bool   `json:"thought,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiGenerationConfig struct {
	Temperature      *float64 `json:"temperature,omitempty"`
	MaxOutputTokens  int      `json:"maxOutputTokens,omitempty"`
	ResponseMimeType string   `json:"responseMimeType,omitempty"`
}

type geminiRequest struct {
	Contents          []geminiContent         `json:"contents"`
	SystemInstruction *geminiContent          `json:"systemInstruction,omitempty"`
	GenerationConfig  *geminiGenerationConfig `json:"generationConfig,omitempty"`
}

// geminiResponse is a GenerateContentResponse, or one chunk of a stream.
type geminiResponse struct {
	Candidates []struct {
		Content      geminiContent `json:"content"`
		FinishReason string        `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string          `json:"modelVersion"`
	ResponseID   string          `json:"responseId"`
	Error        json.RawMessage `json:"error"`
}

// geminiStops maps a candidate's finishReason (the FinishReason enum of
// the Gemini API and Vertex AI) to a Stop; anything else is StopOther.
var geminiStops = map[string]Stop{
	"": StopEnd, "STOP": StopEnd, "MAX_TOKENS": StopMaxTokens,
	"SAFETY": StopContentFilter, "RECITATION": StopContentFilter, "BLOCKLIST": StopContentFilter,
	"PROHIBITED_CONTENT": StopContentFilter, "SPII": StopContentFilter, "IMAGE_SAFETY": StopContentFilter,
	"IMAGE_PROHIBITED_CONTENT": StopContentFilter, "IMAGE_RECITATION": StopContentFilter,
	"MALFORMED_FUNCTION_CALL": StopToolUse, "UNEXPECTED_TOOL_CALL": StopToolUse, "TOO_MANY_TOOL_CALLS": StopToolUse,
}

// Complete sends one generateContent request: the system messages joined
// into systemInstruction, the others as contents (an assistant message has
// the role "model"), MaxTokens as maxOutputTokens, JSONObject as
// responseMimeType application/json. Errors are those of Client.Complete,
// with Op "generateContent" and Google's error bodies
// ({"error":{"code","message","status","details"}}), which failure.Classify
// reads by their status and details (RetryInfo's retryDelay is the delay
// asked for). A 2xx whose prompt was blocked (promptFeedback.blockReason,
// no candidates) comes back with StopPromptBlocked for Judge.
func (c *GeminiClient) Complete(ctx context.Context, req Request) (Response, error) {
	if err := checkRequest(req); err != nil {
		return Response{}, err
	}
	var w geminiRequest
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			system = append(system, m.Content)
		case RoleAssistant:
			w.Contents = append(w.Contents, geminiContent{Role: "model", Parts: []geminiPart{{Text: m.Content}}})
		default:
			w.Contents = append(w.Contents, geminiContent{Role: "user", Parts: []geminiPart{{Text: m.Content}}})
		}
	}
	if len(w.Contents) == 0 {
		return Response{}, failure.New(work.InternalBug, "llm request has no user message")
	}
	if len(system) > 0 {
		w.SystemInstruction = &geminiContent{Parts: []geminiPart{{Text: strings.Join(system, "\n\n")}}}
	}
	if req.Temperature != nil || req.MaxTokens > 0 || req.JSONObject {
		w.GenerationConfig = &geminiGenerationConfig{Temperature: req.Temperature, MaxOutputTokens: max(req.MaxTokens, 0)}
		if req.JSONObject {
			w.GenerationConfig.ResponseMimeType = "application/json"
		}
	}
	h := http.Header{}
	if c.apiKey != "" {
		h.Set("x-goog-api-key", c.apiKey)
	}
	model := strings.TrimPrefix(req.Model, "models/")
	r, err := c.post(ctx, withPath(c.base, "/models/"+url.PathEscape(model)+":generateContent"), req, w, h)
	if err != nil {
		return Response{}, err
	}
	return c.decode(r)
}

// decode reads a 2xx GenerateContentResponse, a server-sent event stream
// of them (alt=sse) or a JSON array of them (the REST stream).
func (c *GeminiClient) decode(r reply) (Response, error) {
	var chunks [][]byte
	switch b := bytes.TrimSpace(r.body); {
	case r.eventStream():
		events, complete := parseSSE(r.body)
		for _, ev := range events {
			if errorEvent(ev) {
				return Response{}, c.errorAnswer(r, ev.data)
			}
			chunks = append(chunks, ev.data)
		}
		if !complete {
			return Response{}, c.streamCut(r)
		}
	case len(b) > 0 && b[0] == '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(b, &arr); err != nil {
			return Response{}, r.detail(malformed(err))
		}
		for _, a := range arr {
			chunks = append(chunks, a)
		}
	default:
		chunks = [][]byte{r.body}
	}
	out := Response{Provider: c.provider, RequestID: r.requestID}
	var (
		text        strings.Builder
		candidates  bool
		blockReason string
		stop        string
	)
	for _, ch := range chunks {
		var g geminiResponse
		if err := json.Unmarshal(ch, &g); err != nil {
			return Response{}, r.detail(malformed(err))
		}
		if len(g.Candidates) == 0 && hasErrorObject(g.Error) {
			return Response{}, c.errorAnswer(r, ch)
		}
		if g.ModelVersion != "" {
			out.Model = g.ModelVersion
		}
		if out.RequestID == "" {
			out.RequestID = truncateString(g.ResponseID, 128)
		}
		if u := g.UsageMetadata; u != nil {
			out.Usage = Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, Reported: true}
		}
		if g.PromptFeedback != nil && g.PromptFeedback.BlockReason != "" {
			blockReason = g.PromptFeedback.BlockReason
		}
		if len(g.Candidates) == 0 {
			continue
		}
		candidates = true
		cand := g.Candidates[0]
		for _, p := range cand.Content.Parts {
			if !p.Thought {
				text.WriteString(p.Text)
			}
		}
		if cand.FinishReason != "" {
			stop = cand.FinishReason
		}
	}
	switch {
	case !candidates && blockReason != "":
		out.StopReason, out.Stop = "blockReason "+blockReason, StopPromptBlocked
		return out, nil
	case !candidates:
		return Response{}, r.detail(malformed(errors.New("no candidates")))
	case stop == "" && r.eventStream():
		// A stream's last chunk carries the finish reason: a stream that
		// ended on a whole chunk without one was cut between chunks.
		return Response{}, c.streamCut(r)
	}
	out.Content = text.String()
	out.StopReason = stop
	out.Stop = stopOf(geminiStops, stop)
	return out, nil
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
