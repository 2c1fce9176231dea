package triage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/triagehq/triage/internal/failure"
)

type callKey struct{}

// WithCall returns ctx carrying opts for the requests a RoundTripper sends
// with it (the item, its model), after the RoundTripper's own.
func WithCall(ctx context.Context, opts ...CallOption) context.Context {
	prev, _ := ctx.Value(callKey{}).([]CallOption)
	return context.WithValue(ctx, callKey{}, append(prev[:len(prev):len(prev)], opts...))
}

// RoundTripper wraps next (nil is http.DefaultTransport) so that each
// request goes through Do: the gates are checked before each send, an
// answer of 400 or more or a transport error is classified (its status,
// Retry-After and body, at the client's stage) and fed to them, and the
// request is sent again as the policy decides, within the request's
// context. A request with a body but no GetBody is sent once.
//
// When it gives up on an answer, the last response is returned as the
// upstream sent it, so the provider's client reports its own error; on a
// transport error, a closed gate, a hand-off to the fetch queue (an item
// in WithCall), made or failed, or the request's context ending, the
// *Error. Turn off the provider client's own retries
// (option.WithMaxRetries(0) in the OpenAI and Anthropic Go SDKs): the
// policy decides them.
func (c *Client) RoundTripper(next http.RoundTripper, opts ...CallOption) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{c: c, next: next, opts: opts}
}

type transport struct {
	c    *Client
	next http.RoundTripper
	opts []CallOption
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var last *http.Response
	release := func() {
		if last != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(last.Body, failure.MaxBodyBytes))
			_ = last.Body.Close()
			last = nil
		}
	}
	sent := 0
	send := func(ctx context.Context) error {
		release()
		r := req.Clone(ctx)
		if sent > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return err
			}
			r.Body = body
		}
		sent++
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			return err
		}
		last = resp
		if resp.StatusCode < http.StatusBadRequest {
			return nil
		}
		head, err := io.ReadAll(io.LimitReader(resp.Body, failure.MaxBodyBytes))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		if err != nil {
			return err
		}
		return evidence(resp, head, t.c.stage)
	}
	opts := t.opts
	if more, ok := req.Context().Value(callKey{}).([]CallOption); ok {
		opts = append(opts[:len(opts):len(opts)], more...)
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		opts = append(opts[:len(opts):len(opts)], func(c *call) { c.single = true })
	}
	err := t.c.Do(req.Context(), send, opts...)
	if sent == 0 && req.Body != nil {
		_ = req.Body.Close() // a RoundTripper closes the body, also unsent
	}
	var e *Error
	switch {
	case err == nil:
		return last, nil
	case last != nil && req.Context().Err() == nil && errors.As(err, &e) && e.MessageID == "" && e.HandoffErr == nil && isAnswer(e.Err):
		return last, nil
	}
	release()
	return nil, err
}

// isAnswer reports whether err is the upstream's answer (a status of 400 or
// more) rather than a transport error or a closed gate.
func isAnswer(err error) bool {
	var ev *failure.Evidence
	return errors.As(err, &ev)
}

type readCloser struct {
	io.Reader
	io.Closer
}
