package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/upstream"
	"github.com/triagehq/triage/internal/work"
)

// httpDialect is what the HTTP dialects (OpenAI, Azure, Anthropic, Gemini)
// share: the provider they report, sending one POST, turning a non-2xx into a *failure.HTTPError and a
// transport failure into a wrapped net/http error, reading a bounded 2xx
// body, and keeping the API key and the request URL out of every error.
type httpDialect struct {
	provider failure.Provider
	op       string
	apiKey   string
	timeout  time.Duration
	http     *http.Client
}

// Provider returns the provider the client reports on its errors and
// responses (its constructor says which).
func (d *httpDialect) Provider() failure.Provider { return d.provider }

func newHTTPDialect(cfg Config, provider failure.Provider, op string) httpDialect {
	d := httpDialect{provider: provider, op: op, apiKey: cfg.APIKey, timeout: timeoutOr(cfg.Timeout), http: cfg.HTTPClient}
	if d.http == nil {
		d.http = upstream.NewClient(upstream.ClientOptions{NoRedirects: true})
	} else {
		// A redirect from an API endpoint is a misconfiguration, and
		// following it would resend the credentials to wherever it points:
		// the 3xx comes back as an HTTPError. A copy: the caller's client
		// keeps its policy.
		hc := *cfg.HTTPClient
		hc.CheckRedirect = upstream.NoRedirects
		d.http = &hc
	}
	return d
}

// parseBaseURL checks that raw is an absolute http(s) URL.
func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, failure.New(work.InternalBug, "llm base URL is not an absolute http(s) URL")
	}
	return u, nil
}

// withPath returns u with p appended to its path (query kept).
func withPath(u *url.URL, p string) *url.URL {
	v := *u
	v.Path = strings.TrimRight(v.Path, "/") + p
	v.RawPath = ""
	return &v
}

// reply is a 2xx answer as read.
type reply struct {
	status    int
	header    http.Header
	body      []byte
	requestID string
}

// detail adds the upstream's status and request id to err.
func (r reply) detail(err error) error {
	err = failure.WithDetail(err, "upstream_status", strconv.Itoa(r.status))
	if r.requestID != "" {
		err = failure.WithDetail(err, "request_id", r.requestID)
	}
	return err
}

// malformed is the RESPONSE_INVALID of a 2xx whose envelope is not the
// dialect's answer.
func malformed(err error) error {
	return failure.Wrap(work.ResponseInvalid, err, "malformed answer envelope")
}

// eventStream reports whether the answer is a server-sent event stream: by
// its content type, or, when a proxy dropped that, by its first line.
func (r reply) eventStream() bool {
	if mt, _, err := mime.ParseMediaType(r.header.Get("Content-Type")); err == nil && mt == "text/event-stream" {
		return true
	}
	b := bytes.TrimLeft(r.body, " \t\r\n")
	return bytes.HasPrefix(b, []byte("data:")) || bytes.HasPrefix(b, []byte("event:"))
}

// httpError is the *failure.HTTPError of an answer, its body scrubbed and
// bounded.
func (c *httpDialect) httpError(status int, h http.Header, body []byte) *failure.HTTPError {
	return &failure.HTTPError{Provider: c.provider, Stage: work.LLM, Op: c.op, Status: status, Header: h.Clone(),
		Body: c.scrub(truncateBytes(body, failure.MaxBodyBytes))}
}

// errorAnswer is the *failure.HTTPError of r, a 2xx answer whose body (or
// one event or chunk of it, body) is an error object, with r's details.
func (c *httpDialect) errorAnswer(r reply, body []byte) error {
	return r.detail(c.httpError(r.status, r.header, body))
}

// post sends wire as JSON to endpoint, with header and req's ids set, and
// returns the 2xx answer; see Completer for the errors.
func (c *httpDialect) post(ctx context.Context, endpoint *url.URL, req Request, wire any, header http.Header) (reply, error) {
	body, err := json.Marshal(wire)
	if err != nil {
		return reply{}, failure.Wrap(work.InternalBug, err, "encode llm request")
	}
	header.Set("Accept", "application/json")
	setIDs(header, req)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return reply{}, failure.Wrap(work.InternalBug, err, "build llm request")
	}
	hreq.Header = header
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("User-Agent", UserAgent)
	resp, err := c.http.Do(hreq)
	if err != nil {
		return reply{}, failure.WithDetail(
			fmt.Errorf("%s %s: %w", c.provider, c.op, c.redactURL(endpoint, err)), "host", endpoint.Host)
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header, requestID: requestIDOf(resp.Header)}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, failure.MaxBodyBytes))
		// The status is the evidence; a body cut short by a reset is still
		// worth keeping as far as it got.
		return r, r.detail(c.httpError(resp.StatusCode, resp.Header, raw))
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return r, r.detail(fmt.Errorf("%s %s: read response: %w", c.provider, c.op, c.redactURL(endpoint, err)))
	}
	if len(raw) > MaxResponseBytes {
		return r, r.detail(failure.New(work.ResponseInvalid, "malformed answer envelope: larger than %d bytes", MaxResponseBytes))
	}
	r.body = raw
	return r, nil
}

// requestIDOf returns the upstream's request id: OpenAI sends x-request-id,
// Azure apim-request-id, Anthropic request-id.
func requestIDOf(h http.Header) string {
	for _, k := range []string{"X-Request-Id", "Apim-Request-Id", "Request-Id", "X-Ms-Request-Id", "X-Amzn-Requestid"} {
		if v := h.Get(k); v != "" {
			return truncateString(v, 128)
		}
	}
	return ""
}

// scrub removes the API key from an upstream body (some servers echo the
// key they rejected) so it cannot reach an error, a log or a dead letter.
func (c *httpDialect) scrub(b []byte) []byte {
	if c.apiKey == "" || len(b) == 0 {
		return b
	}
	return bytes.ReplaceAll(b, []byte(c.apiKey), []byte("[REDACTED]"))
}

// redactURL replaces the request URL in a *url.Error with scheme://host, so
// that a query string or path never reaches an error; the chain (net.Error,
// errnos, context errors) is kept.
func (c *httpDialect) redactURL(endpoint *url.URL, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = endpoint.Scheme + "://" + endpoint.Host
	}
	return err
}

// checkRequest rejects a Request no dialect can send.
func checkRequest(req Request) error {
	if strings.TrimSpace(req.Model) == "" {
		return failure.New(work.InternalBug, "llm request has no model")
	}
	if len(req.Messages) == 0 {
		return failure.New(work.InternalBug, "llm request has no messages")
	}
	return nil
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
