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

// Op is the operation name on the OpenAI and Azure client's HTTPErrors.
const Op = "chat.completions"

// DefaultAzureAPIVersion is the api-version an Azure resource URL gets when
// it names none (a generally available version of the data-plane API).
const DefaultAzureAPIVersion = "2024-10-21"

// Client calls an OpenAI-compatible chat-completions endpoint: OpenAI, Azure
// OpenAI, or the local fake. It is safe for concurrent use.
type Client struct {
	httpDialect
	endpoint *url.URL
	// azureResource is true for an Azure resource URL (".../openai"),
	// whose deployment is the request's model.
	azureResource bool
}

var _ Completer = (*Client)(nil)

// New returns a Client for cfg — Provider failure.OpenAI (the default),
// any OpenAI-compatible endpoint (a provider whose dialect is OpenAI's, or
// whose name triage does not know: it reports that name), or one speaking
// Azure's dialect — with its defaults applied. A BaseURL that is not an
// absolute http or https URL, or a provider of another dialect, is an
// INTERNAL_BUG.
func New(cfg Config) (*Client, error) {
	p := cfg.Provider
	if p == "" {
		p = failure.OpenAI
	}
	dialect := p.Dialect()
	if dialect != "" && dialect != failure.OpenAI && dialect != failure.Azure || p.Role() != failure.RoleModel && p.Role() != failure.RoleUnknown {
		return nil, failure.New(work.InternalBug, "llm.New speaks the openai and azure dialects, not %q", truncateString(string(p), 40))
	}
	u, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{httpDialect: newHTTPDialect(cfg, p, Op)}
	if dialect == failure.Azure && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/openai") {
		c.azureResource = true
		if u.Query().Get("api-version") == "" {
			q := u.Query()
			q.Set("api-version", DefaultAzureAPIVersion)
			u.RawQuery = q.Encode()
		}
		c.endpoint = u
	} else {
		c.endpoint = withPath(u, "/chat/completions")
	}
	return c, nil
}

type wireRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type wireResponse struct {
	ID    string          `json:"id"`
	Model string          `json:"model"`
	Error json.RawMessage `json:"error"`
	// Response is the Responses API's object as its stream's last event
	// carries it ({"type": "response.failed", "response": {"status":
	// "failed", "error": {…}}}): a failed response's error is the answer.
	Response *struct {
		Error json.RawMessage `json:"error"`
	} `json:"response"`
	Choices []struct {
		Message struct {
			Content *openAIContent `json:"content"`
			Refusal *string        `json:"refusal"`
		} `json:"message"`
		Delta struct {
			Content *openAIContent `json:"content"`
			Refusal *string        `json:"refusal"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// openAIContent is a message's content: a string, or a list of content
// blocks (Mistral's reasoning models answer with a "thinking" block and a
// "text" block), whose text blocks are the answer.
type openAIContent string

// UnmarshalJSON reads a string, or joins the text of a list's "text"
// blocks.
func (c *openAIContent) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(t, &blocks); err != nil {
			return err
		}
		var text strings.Builder
		for _, bl := range blocks {
			if bl.Type == "text" || bl.Type == "" { // a text block may omit its type
				text.WriteString(bl.Text)
			}
		}
		*c = openAIContent(text.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*c = openAIContent(s)
	return nil
}

// Complete sends one chat completion and returns the first choice; it makes
// exactly one HTTP request. Errors (see Completer):
//
//   - a non-2xx answer: *failure.HTTPError{Provider, Op: "chat.completions"}
//     with the body (at most failure.MaxBodyBytes, API key scrubbed);
//   - a transport failure: the net/http error, wrapped (context deadlines,
//     resets and refused connections classify as NETWORK_TIMEOUT);
//   - a 2xx that is not a completion (bad JSON, no choices): RESPONSE_INVALID
//     "malformed answer envelope"; a 2xx carrying an "error" object instead
//     of choices (some gateways), or a text/event-stream with an error event,
//     is an HTTPError with that object so its code is classified;
//   - an invalid Request (no model, no messages): INTERNAL_BUG.
//
// A finish_reason of length, content_filter or tool_calls, or a refusal,
// comes back in the Response for Judge. Every error after a response
// arrived carries the "request_id" (when the upstream sent one) and
// "upstream_status" details.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	if err := checkRequest(req); err != nil {
		return Response{}, err
	}
	w := wireRequest{
		Model:          req.Model,
		Messages:       req.Messages,
		ResponseFormat: jsonObject(req.JSONObject),
		Temperature:    req.Temperature,
		MaxTokens:      req.MaxTokens,
	}
	h := http.Header{}
	if c.apiKey != "" {
		if c.provider.Dialect() == failure.Azure {
			h.Set("api-key", c.apiKey)
		} else {
			h.Set("Authorization", "Bearer "+c.apiKey)
		}
	}
	endpoint := c.endpoint
	if c.azureResource {
		endpoint = withPath(c.endpoint, "/deployments/"+url.PathEscape(req.Model)+"/chat/completions")
	}
	r, err := c.post(ctx, endpoint, req, w, h)
	if err != nil {
		return Response{}, err
	}
	return c.decode(r)
}

// decode reads a 2xx chat completion, or a stream of completion chunks.
func (c *Client) decode(r reply) (Response, error) {
	if r.eventStream() {
		return c.decodeStream(r)
	}
	var w wireResponse
	if err := json.Unmarshal(r.body, &w); err != nil {
		return Response{}, r.detail(malformed(err))
	}
	if hasErrorObject(w.Error) && (!w.answered() || w.brokenOff()) {
		// A gateway that answers 200 with an error object beside choices
		// that hold no text (OpenRouter's "Provider returned error" with
		// code 429 and an empty message), or beside the text its upstream
		// gave before it broke off (finish_reason "error"), reports the
		// upstream's failure: the error object is the answer, judged as its
		// code says.
		return Response{}, c.errorAnswer(r, r.body)
	}
	if len(w.Choices) == 0 && w.Response != nil && hasErrorObject(w.Response.Error) {
		// A Responses API event or object that failed (Azure OpenAI's
		// "response.failed" over a rate limit): its error object is the
		// answer, judged as its code says, as a top-level one would be.
		return Response{}, c.errorAnswer(r, errorEnvelope(w.Response.Error))
	}
	if len(w.Choices) == 0 && codedFailure(r.body) {
		// A 200 whose body is an error envelope with a non-zero numeric
		// code beside its message (Baidu Qianfan's {"code": 336501, "msg":
		// "Rate limit reached for RPM"}, {"error_code", "error_msg"}): the
		// failure is the answer, read by its words.
		return Response{}, c.errorAnswer(r, r.body)
	}
	if len(w.Choices) == 0 {
		return Response{}, r.detail(malformed(errors.New("no choices")))
	}
	out := Response{Provider: c.provider, Model: w.Model, RequestID: r.requestID}
	if out.RequestID == "" {
		out.RequestID = truncateString(w.ID, 128)
	}
	ch := w.Choices[0]
	var refusal string
	if ch.Message.Content != nil {
		out.Content = string(*ch.Message.Content)
	}
	if ch.Message.Refusal != nil {
		refusal = *ch.Message.Refusal
	}
	if ch.FinishReason != nil {
		out.StopReason = *ch.FinishReason
	}
	if w.Usage != nil {
		out.Usage = Usage{InputTokens: w.Usage.PromptTokens, OutputTokens: w.Usage.CompletionTokens, Reported: true}
	}
	out.Stop = openAIStop(out.StopReason, out.Content, refusal)
	return out, nil
}

// codedFailure reports whether body is an error envelope that reports a
// failure by a non-zero numeric code beside a message, as many model
// platforms answer a 200 ({"code": 336501, "msg": "…"}, {"error_code": 4,
// "error_msg": "…"}).
func codedFailure(body []byte) bool {
	var e struct {
		Code      json.Number `json:"code"`
		ErrorCode json.Number `json:"error_code"`
		Msg       string      `json:"msg"`
		Message   string      `json:"message"`
		ErrorMsg  string      `json:"error_msg"`
	}
	if json.Unmarshal(body, &e) != nil {
		return false
	}
	code := e.Code
	if code == "" {
		code = e.ErrorCode
	}
	n, err := code.Int64()
	return err == nil && n != 0 && (e.Msg != "" || e.Message != "" || e.ErrorMsg != "")
}

// errorEnvelope is raw, an error object, as the body {"error": raw}.
func errorEnvelope(raw json.RawMessage) []byte {
	b, err := json.Marshal(struct {
		Error json.RawMessage `json:"error"`
	}{raw})
	if err != nil {
		return raw
	}
	return b
}

// brokenOff reports whether the first choice ended with finish_reason
// "error": a gateway's mark of an answer its upstream broke off.
func (w *wireResponse) brokenOff() bool {
	return len(w.Choices) > 0 && w.Choices[0].FinishReason != nil && *w.Choices[0].FinishReason == "error"
}

// answered reports whether the first choice carries text or a refusal:
// an answer an error object beside it does not replace.
func (w *wireResponse) answered() bool {
	if len(w.Choices) == 0 {
		return false
	}
	m := w.Choices[0].Message
	return m.Content != nil && strings.TrimSpace(string(*m.Content)) != "" || m.Refusal != nil && strings.TrimSpace(*m.Refusal) != ""
}

// openAIStop maps a finish_reason; a refusal with no content is a refusal
// whatever the finish_reason says (OpenAI reports "stop" for one).
func openAIStop(reason, content, refusal string) Stop {
	if strings.TrimSpace(refusal) != "" && strings.TrimSpace(content) == "" {
		return StopRefusal
	}
	return stopOf(openAIStops, reason)
}

// decodeStream assembles a chat.completion.chunk stream (a gateway that
// streams though triage never asks it to): the deltas of the first choice,
// its finish_reason and the usage chunk. An error event ends it as an
// HTTPError; a stream that stops before "data: [DONE]" and without a
// finish_reason was cut off (NETWORK_TIMEOUT).
func (c *Client) decodeStream(r reply) (Response, error) {
	events, complete := parseSSE(r.body)
	out := Response{Provider: c.provider, RequestID: r.requestID}
	var (
		content, refusal strings.Builder
		done, finished   bool
	)
	for _, ev := range events {
		if bytes.HasPrefix(ev.data, []byte("[DONE]")) {
			done = true
			break
		}
		if errorEvent(ev) {
			return Response{}, c.errorAnswer(r, ev.data)
		}
		var w wireResponse
		if err := json.Unmarshal(ev.data, &w); err != nil {
			return Response{}, r.detail(failure.Wrap(work.ResponseInvalid, err, "malformed answer stream chunk"))
		}
		if out.Model == "" {
			out.Model = w.Model
		}
		if out.RequestID == "" {
			out.RequestID = truncateString(w.ID, 128)
		}
		if w.Usage != nil {
			out.Usage = Usage{InputTokens: w.Usage.PromptTokens, OutputTokens: w.Usage.CompletionTokens, Reported: true}
		}
		if len(w.Choices) == 0 {
			continue
		}
		ch := w.Choices[0]
		if ch.Delta.Content != nil {
			content.WriteString(string(*ch.Delta.Content))
		}
		if ch.Delta.Refusal != nil {
			refusal.WriteString(*ch.Delta.Refusal)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			out.StopReason, finished = *ch.FinishReason, true
		}
	}
	if !done && !(finished && complete) {
		return Response{}, c.streamCut(r)
	}
	out.Content = content.String()
	out.Stop = openAIStop(out.StopReason, out.Content, refusal.String())
	return out, nil
}

func jsonObject(on bool) *responseFormat {
	if !on {
		return nil
	}
	return &responseFormat{Type: "json_object"}
}

// setIDs sets the item and correlation id headers.
func setIDs(h http.Header, req Request) {
	if req.ItemID != "" {
		h.Set(HeaderItemID, req.ItemID)
	}
	if req.CorrelationID != "" {
		h.Set(HeaderCorrelationID, req.CorrelationID)
	}
}
