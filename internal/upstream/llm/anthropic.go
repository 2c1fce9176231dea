package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// AnthropicOp is the operation name on the Anthropic client's HTTPErrors.
const AnthropicOp = "messages"

// AnthropicVersion is the anthropic-version header the client sends: the
// Messages API version its wire format follows.
const AnthropicVersion = "2023-06-01"

// AnthropicClient calls the Anthropic Messages API (POST /v1/messages). It
// is safe for concurrent use.
type AnthropicClient struct {
	httpDialect
	endpoint *url.URL
}

var _ Completer = (*AnthropicClient)(nil)

// NewAnthropic returns an Anthropic Messages client for cfg; BaseURL is the
// API root ("https://api.anthropic.com"), to which "/v1/messages" is
// added. It reports failure.Anthropic unless cfg.Provider names another
// provider of Anthropic's dialect. A BaseURL that is not an absolute http
// or https URL is an INTERNAL_BUG.
func NewAnthropic(cfg Config) (*AnthropicClient, error) {
	u, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	p := failure.Anthropic
	if cfg.Provider.Dialect() == failure.Anthropic {
		p = cfg.Provider
	}
	return &AnthropicClient{httpDialect: newHTTPDialect(cfg, p, AnthropicOp), endpoint: withPath(u, "/v1/messages")}, nil
}

type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      string             `json:"system,omitempty"`
	Messages    []anthropicMessage `json:"messages"`
	Temperature *float64           `json:"temperature,omitempty"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// anthropicMessageBody is a Message object, as the non-streaming answer and
// the stream's message_start carry it.
type anthropicMessageBody struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Role    string `json:"role"`
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason *string         `json:"stop_reason"`
	Usage      *anthropicUsage `json:"usage"`
	Error      json.RawMessage `json:"error"`
}

type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

func (u anthropicUsage) input() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// Complete sends one Messages request: the system messages joined into
// "system", the others as messages, max_tokens Request.MaxTokens or
// DefaultMaxTokens. The Messages API has no JSON mode; the prompt asks for
// the object. Errors are those of Client.Complete, with Op "messages" and
// Anthropic's error bodies ({"type":"error","error":{"type":…}}), which
// failure.Classify reads by their error type.
func (c *AnthropicClient) Complete(ctx context.Context, req Request) (Response, error) {
	if err := checkRequest(req); err != nil {
		return Response{}, err
	}
	w := anthropicRequest{Model: req.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature}
	if w.MaxTokens <= 0 {
		w.MaxTokens = DefaultMaxTokens
	}
	var system []string
	for _, m := range req.Messages {
		if m.Role == RoleSystem {
			system = append(system, m.Content)
			continue
		}
		w.Messages = append(w.Messages, anthropicMessage{Role: m.Role, Content: m.Content})
	}
	if len(w.Messages) == 0 {
		return Response{}, failure.New(work.InternalBug, "llm request has no user message")
	}
	w.System = strings.Join(system, "\n\n")
	h := http.Header{}
	h.Set("anthropic-version", AnthropicVersion)
	if c.apiKey != "" {
		h.Set("x-api-key", c.apiKey)
	}
	r, err := c.post(ctx, c.endpoint, req, w, h)
	if err != nil {
		return Response{}, err
	}
	return c.decode(r)
}

func (c *AnthropicClient) decode(r reply) (Response, error) {
	if r.eventStream() {
		return c.decodeStream(r)
	}
	var m anthropicMessageBody
	if err := json.Unmarshal(r.body, &m); err != nil {
		return Response{}, r.detail(malformed(err))
	}
	if m.Type == "error" || hasErrorObject(m.Error) {
		return Response{}, c.errorAnswer(r, r.body)
	}
	// A message whose envelope a gateway trimmed of its type keeps its
	// role, content and stop reason: judged as the message it is.
	if m.Type != "message" && !(m.Type == "" && m.Role == "assistant" && (m.StopReason != nil || len(m.Content) > 0)) {
		return Response{}, r.detail(malformed(fmt.Errorf("type %q, want message", truncateString(m.Type, 40))))
	}
	out := c.response(r, m)
	var text strings.Builder
	for _, b := range m.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	out.Content = text.String()
	if m.StopReason != nil {
		out.StopReason = *m.StopReason
	}
	out.Stop = stopOf(anthropicStops, out.StopReason)
	return out, nil
}

func (c *AnthropicClient) response(r reply, m anthropicMessageBody) Response {
	out := Response{Provider: c.provider, Model: m.Model, RequestID: r.requestID}
	if out.RequestID == "" {
		out.RequestID = truncateString(m.ID, 128)
	}
	if m.Usage != nil {
		out.Usage = Usage{InputTokens: m.Usage.input(), OutputTokens: m.Usage.OutputTokens, Reported: true}
	}
	return out
}

// anthropicStreamEvent is the part of a Messages stream event the client
// reads.
type anthropicStreamEvent struct {
	Type    string               `json:"type"`
	Message anthropicMessageBody `json:"message"`
	Delta   struct {
		Type       string  `json:"type"`
		Text       string  `json:"text"`
		StopReason *string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
}

// decodeStream assembles a Messages event stream: message_start (id, model,
// input usage), content_block_delta text deltas, message_delta (stop reason,
// output usage), message_stop. An error event — Anthropic sends one after
// HTTP 200 when, say, the API overloads mid-answer — is an HTTPError with
// the event's body; a stream without message_stop was cut off.
func (c *AnthropicClient) decodeStream(r reply) (Response, error) {
	events, _ := parseSSE(r.body)
	var (
		out     Response
		started bool
		text    strings.Builder
	)
	for _, ev := range events {
		if errorEvent(ev) {
			return Response{}, c.errorAnswer(r, ev.data)
		}
		var e anthropicStreamEvent
		if err := json.Unmarshal(ev.data, &e); err != nil {
			return Response{}, r.detail(failure.Wrap(work.ResponseInvalid, err, "malformed answer stream event"))
		}
		switch e.Type {
		case "message_start":
			out, started = c.response(r, e.Message), true
		case "content_block_delta":
			if e.Delta.Type == "text_delta" {
				text.WriteString(e.Delta.Text)
			}
		case "message_delta":
			if e.Delta.StopReason != nil {
				out.StopReason = *e.Delta.StopReason
			}
			if e.Usage != nil {
				out.Usage.OutputTokens, out.Usage.Reported = e.Usage.OutputTokens, true
			}
		case "message_stop":
			if !started {
				return Response{}, r.detail(failure.Wrap(work.ResponseInvalid, errors.New("message_stop before message_start"),
					"malformed answer stream"))
			}
			out.Content = text.String()
			out.Stop = stopOf(anthropicStops, out.StopReason)
			return out, nil
		}
	}
	return Response{}, c.streamCut(r)
}
