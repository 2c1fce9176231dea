// Package llm is triage's client for OpenAI-compatible chat-completions APIs
// (OpenAI, Azure OpenAI, and the local fake), and the enrichment prompt with
// the validation of its answer.
//
// The client never retries: the stage's queue is the one retry owner. It
// returns what the upstream said as faithfully as it can so that
// failure.Classify decides — a non-2xx answer is a *failure.HTTPError, a
// transport failure keeps net.Error, syscall errnos and context errors in its
// chain, and a 2xx that is not a usable completion is a *failure.Error
// (RESPONSE_INVALID, or CONTENT_POLICY for a filtered answer). Neither the
// API key nor the messages ever appear in an error.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/shared/failure"
)

// DefaultTimeout bounds one Complete call when Config.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// MaxResponseBytes bounds the completion envelope Complete reads. A larger
// 2xx body is RESPONSE_INVALID: no enrichment is anywhere near it.
const MaxResponseBytes = 4 << 20

// UserAgent is sent with every request.
const UserAgent = "triage/1.0 (+https://github.com/triagehq/triage)"

// Op is the operation name on the client's HTTPErrors.
const Op = "chat.completions"

// Header names the client sends so that upstream logs (and the fault
// injecting fakes, which key their plans on the item id) can tie a request
// to an item.
const (
	// HeaderItemID carries Request.ItemID.
	HeaderItemID = "X-Triage-Item-Id"
	// HeaderCorrelationID carries Request.CorrelationID.
	HeaderCorrelationID = "X-Correlation-Id"
)

// Message roles.
const (
	// RoleSystem is the instructions.
	RoleSystem = "system"
	// RoleUser is the input.
	RoleUser = "user"
	// RoleAssistant is a model answer.
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	// Role is RoleSystem, RoleUser or RoleAssistant.
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// Request is one chat completion.
type Request struct {
	// Model is the model (OpenAI) or deployment (Azure) name. Required.
	Model string
	// Messages is the conversation. At least one is required.
	Messages []Message
	// JSONObject asks for response_format {"type":"json_object"}, which makes
	// the model answer with one JSON object.
	JSONObject bool
	// Temperature is sent when non-nil (a pointer, so that 0 can be sent).
	Temperature *float64
	// MaxTokens caps the completion; zero leaves the provider's default.
	MaxTokens int
	// ItemID and CorrelationID are sent as HeaderItemID and
	// HeaderCorrelationID when non-empty.
	ItemID, CorrelationID string
}

// Response is a completion the client accepted.
type Response struct {
	// Content is the first choice's message content. It may be empty; judging
	// the content is the caller's job (see ParseEnrichment).
	Content string
	// FinishReason is the first choice's finish_reason: "stop", or empty for
	// servers that omit it. "length" and "content_filter" are errors.
	FinishReason string
	// Model is the model the upstream says answered, which may be more
	// specific than Request.Model ("gpt-4o-2024-08-06" for "gpt-4o").
	Model string
	// RequestID is the upstream's request id header (x-request-id,
	// apim-request-id, …), or the completion's id when there is none.
	RequestID string
	// PromptTokens and CompletionTokens are the reported usage, zero when the
	// upstream did not report it.
	PromptTokens, CompletionTokens int
}

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, such as "https://api.openai.com/v1"; the
	// client POSTs to BaseURL + "/chat/completions". A query string is kept
	// (Azure's "?api-version=…"). Required: absolute http or https.
	BaseURL string
	// APIKey authenticates the client; empty sends no credentials (local
	// fakes). It is sent as "Authorization: Bearer" or, for Azure, as an
	// "api-key" header, and is scrubbed from any error body kept.
	APIKey string
	// Provider selects the authentication header and how failure.Classify
	// reads error bodies. Empty means failure.OpenAI.
	Provider failure.Provider
	// Timeout bounds each Complete call, through its context. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// HTTPClient sends the requests. Nil means a client with 5s dial and TLS
	// handshake timeouts and connection reuse. Either way redirects are not
	// followed (New uses a copy of a client given here).
	HTTPClient *http.Client
}

// Client calls one chat-completions endpoint. It is safe for concurrent use.
type Client struct {
	endpoint *url.URL
	apiKey   string
	provider failure.Provider
	timeout  time.Duration
	http     *http.Client
}

// New returns a Client for cfg, with its defaults applied. A BaseURL that is
// not an absolute http or https URL, or an unknown Provider, is an
// INTERNAL_BUG (a deployment's configuration).
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, failure.New(failure.InternalBug, "llm base URL is not an absolute http(s) URL")
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	u.RawPath = ""
	c := &Client{endpoint: u, apiKey: cfg.APIKey, provider: cfg.Provider, timeout: cfg.Timeout, http: cfg.HTTPClient}
	if c.provider == "" {
		c.provider = failure.OpenAI
	}
	if _, err := failure.ParseProvider(string(c.provider)); err != nil {
		return nil, failure.Wrap(failure.InternalBug, err, "llm provider")
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.http == nil {
		c.http = defaultHTTPClient()
	} else {
		hc := *cfg.HTTPClient // a copy: the caller's client keeps its policy
		hc.CheckRedirect = noRedirects
		c.http = &hc
	}
	return c, nil
}

// Provider returns the provider the client reports on its errors.
func (c *Client) Provider() failure.Provider { return c.provider }

func defaultHTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          32,
			IdleConnTimeout:       90 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: noRedirects,
	}
}

// noRedirects stops at the first response: a redirect from an API endpoint
// is a misconfiguration, and following it would resend the credentials to
// wherever it points. The 3xx comes back as an HTTPError.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

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
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Error   json.RawMessage `json:"error"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete sends one chat completion and returns the first choice. It makes
// exactly one HTTP request. Errors:
//
//   - a non-2xx answer: *failure.HTTPError{Provider, Op: "chat.completions"}
//     with the body (at most failure.MaxBodyBytes, API key scrubbed);
//   - a transport failure: the net/http error, wrapped (context deadlines,
//     resets and refused connections classify as NETWORK_TIMEOUT);
//   - a 2xx that is not a completion (bad JSON, no choices):
//     RESPONSE_INVALID "malformed completion envelope"; a 2xx carrying an
//     "error" object instead of choices (some gateways) is an HTTPError so its
//     code is classified;
//   - finish_reason "length": RESPONSE_INVALID (the answer was cut off);
//     "content_filter" or a refusal: CONTENT_POLICY;
//   - an invalid Request (no model, no messages): INTERNAL_BUG.
//
// Every error after a response arrived carries the "request_id" (when the
// upstream sent one) and "upstream_status" details.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	if strings.TrimSpace(req.Model) == "" {
		return Response{}, failure.New(failure.InternalBug, "llm request has no model")
	}
	if len(req.Messages) == 0 {
		return Response{}, failure.New(failure.InternalBug, "llm request has no messages")
	}
	body, err := json.Marshal(wireRequest{
		Model:          req.Model,
		Messages:       req.Messages,
		ResponseFormat: jsonObject(req.JSONObject),
		Temperature:    req.Temperature,
		MaxTokens:      req.MaxTokens,
	})
	if err != nil {
		return Response{}, failure.Wrap(failure.InternalBug, err, "encode llm request")
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return Response{}, failure.Wrap(failure.InternalBug, err, "build llm request")
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", UserAgent)
	if req.ItemID != "" {
		hreq.Header.Set(HeaderItemID, req.ItemID)
	}
	if req.CorrelationID != "" {
		hreq.Header.Set(HeaderCorrelationID, req.CorrelationID)
	}
	if c.apiKey != "" {
		if c.provider == failure.Azure {
			hreq.Header.Set("api-key", c.apiKey)
		} else {
			hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
		}
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		return Response{}, failure.WithDetail(
			fmt.Errorf("%s %s: %w", c.provider, Op, c.redactURL(err)), "host", c.endpoint.Host)
	}
	defer resp.Body.Close()
	requestID := requestIDOf(resp.Header)
	detail := func(err error) error {
		err = failure.WithDetail(err, "upstream_status", strconv.Itoa(resp.StatusCode))
		if requestID != "" {
			err = failure.WithDetail(err, "request_id", requestID)
		}
		return err
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, failure.MaxBodyBytes))
		// The status is the evidence; a body cut short by a reset is still
		// worth keeping as far as it got.
		return Response{}, detail(&failure.HTTPError{
			Provider: c.provider, Op: Op, Status: resp.StatusCode,
			Header: resp.Header.Clone(), Body: c.scrub(raw),
		})
	}

	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return Response{}, detail(fmt.Errorf("%s %s: read response: %w", c.provider, Op, c.redactURL(err)))
	}
	if len(raw) > MaxResponseBytes {
		return Response{}, detail(failure.New(failure.ResponseInvalid,
			"malformed completion envelope: larger than %d bytes", MaxResponseBytes))
	}
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil {
		return Response{}, detail(failure.Wrap(failure.ResponseInvalid, err, "malformed completion envelope"))
	}
	if len(w.Choices) == 0 {
		if hasErrorObject(w.Error) {
			return Response{}, detail(&failure.HTTPError{
				Provider: c.provider, Op: Op, Status: resp.StatusCode,
				Header: resp.Header.Clone(), Body: c.scrub(truncateBytes(raw, failure.MaxBodyBytes)),
			})
		}
		return Response{}, detail(failure.Wrap(failure.ResponseInvalid, errors.New("no choices"), "malformed completion envelope"))
	}
	if requestID == "" {
		requestID = w.ID
	}
	ch := w.Choices[0]
	out := Response{Model: w.Model, RequestID: requestID}
	if ch.Message.Content != nil {
		out.Content = *ch.Message.Content
	}
	if ch.FinishReason != nil {
		out.FinishReason = *ch.FinishReason
	}
	if w.Usage != nil {
		out.PromptTokens, out.CompletionTokens = w.Usage.PromptTokens, w.Usage.CompletionTokens
	}
	switch out.FinishReason {
	case "", "stop":
	case "content_filter":
		return Response{}, detail(failure.New(failure.ContentPolicy, "completion stopped by the provider's content filter (finish_reason content_filter)"))
	case "length":
		return Response{}, detail(failure.New(failure.ResponseInvalid, "completion cut off at the token limit (finish_reason length)"))
	default:
		return Response{}, detail(failure.New(failure.ResponseInvalid, "unexpected finish_reason %q", truncateString(out.FinishReason, 40)))
	}
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" && out.Content == "" {
		return Response{}, detail(failure.New(failure.ContentPolicy, "model refused the request"))
	}
	return out, nil
}

func jsonObject(on bool) *responseFormat {
	if !on {
		return nil
	}
	return &responseFormat{Type: "json_object"}
}

// hasErrorObject reports whether raw is a non-null "error" value.
func hasErrorObject(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}

// requestIDOf returns the upstream's request id: OpenAI sends x-request-id,
// Azure apim-request-id.
func requestIDOf(h http.Header) string {
	for _, k := range []string{"X-Request-Id", "Apim-Request-Id", "Request-Id", "X-Ms-Request-Id"} {
		if v := h.Get(k); v != "" {
			return truncateString(v, 128)
		}
	}
	return ""
}

// scrub removes the API key from an upstream body (some servers echo the
// key they rejected) so it cannot reach an error, a log or a dead letter.
func (c *Client) scrub(b []byte) []byte {
	if c.apiKey == "" || len(b) == 0 {
		return b
	}
	return bytes.ReplaceAll(b, []byte(c.apiKey), []byte("[REDACTED]"))
}

// redactURL replaces the request URL in a *url.Error with scheme://host, so
// that a query string or path never reaches an error; the chain (net.Error,
// errnos, context errors) is kept.
func (c *Client) redactURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = c.endpoint.Scheme + "://" + c.endpoint.Host
	}
	return err
}

func truncateBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[:n]
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
