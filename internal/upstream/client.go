package upstream

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Timeouts of every client NewClient builds; the caller's context and
// ClientOptions.Timeout bound the rest.
const (
	// DialTimeout bounds establishing the TCP connection.
	DialTimeout = 5 * time.Second
	// TLSHandshakeTimeout bounds the TLS handshake.
	TLSHandshakeTimeout = 5 * time.Second
)

// MaxResponseHeaderBytes bounds a response's headers, as net/http's server
// bounds a request's (http.DefaultMaxHeaderBytes): its client's own default
// is 10 MB, and a destination an item producer chose can send that many.
const MaxResponseHeaderBytes = http.DefaultMaxHeaderBytes

// ClientOptions says how an upstream's client differs from the others.
type ClientOptions struct {
	// Timeout bounds a whole request, redirects and body included; 0 leaves
	// it to the request's context.
	Timeout time.Duration
	// ResponseHeaderTimeout bounds the wait for the response headers once
	// the request is written; 0 is no bound.
	ResponseHeaderTimeout time.Duration
	// BlockPrivate refuses BlockedAddr destinations on every connection
	// (Control); proxies from the environment are then not used, since the
	// dialer could not see the real destination.
	BlockPrivate bool
	// NoRedirects returns a redirect as the response instead of following
	// it (otherwise at most 10 are followed, and only to http and https:
	// FollowHTTP).
	NoRedirects bool
	// SchemeUpgradeOnly follows one redirect, a 307 or 308 that only moves
	// an http URL to https (FollowSchemeUpgrade), and returns every other
	// as the response. It overrides NoRedirects.
	SchemeUpgradeOnly bool
}

// NewClient returns the HTTP client of an upstream: the shared dial and TLS
// timeouts, response headers of at most MaxResponseHeaderBytes, HTTP/2 when
// offered, a pool of 32 idle connections, and o.
func NewClient(o ClientOptions) *http.Client {
	dialer := &net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}
	proxy := http.ProxyFromEnvironment
	if o.BlockPrivate {
		dialer.Control, proxy = Control, nil
	}
	c := &http.Client{
		Transport: &http.Transport{
			Proxy:                  proxy,
			DialContext:            dialer.DialContext,
			TLSHandshakeTimeout:    TLSHandshakeTimeout,
			ResponseHeaderTimeout:  o.ResponseHeaderTimeout,
			MaxResponseHeaderBytes: MaxResponseHeaderBytes,
			ForceAttemptHTTP2:      true,
			MaxIdleConns:           32,
			IdleConnTimeout:        90 * time.Second,
			ExpectContinueTimeout:  time.Second,
		},
		Timeout: o.Timeout,
	}
	c.CheckRedirect = FollowHTTP
	if o.NoRedirects {
		c.CheckRedirect = NoRedirects
	}
	if o.SchemeUpgradeOnly {
		c.CheckRedirect = FollowSchemeUpgrade
	}
	return c
}

// FollowHTTP is a CheckRedirect that follows at most 10 redirects, as
// net/http's default does, and only to http and https: a redirect to
// another scheme (file:, gopher:, ftp:) comes back to the caller as the 3xx
// it is, a redirect not followed, rather than as the transport's
// "unsupported protocol scheme".
func FollowHTTP(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// NoRedirects is a CheckRedirect that stops at the first response: the 3xx
// comes back to the caller.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// FollowSchemeUpgrade is a CheckRedirect that follows one redirect, and only
// a 307 or 308 from http to https on the same host and port (a scheme's
// default port counts as none) with the same path and query: a receiver
// that moved to TLS. net/http sends the same method, body and headers again
// on a 307 or 308, over the same transport, so the dialer's checks
// (BlockPrivate) apply to the new connection as to the first. Every other
// redirect comes back to the caller as the 3xx it is, as with NoRedirects.
func FollowSchemeUpgrade(req *http.Request, via []*http.Request) error {
	if len(via) != 1 || req.Response == nil {
		return http.ErrUseLastResponse
	}
	if s := req.Response.StatusCode; s != http.StatusTemporaryRedirect && s != http.StatusPermanentRedirect {
		return http.ErrUseLastResponse
	}
	from, to := via[0].URL, req.URL
	if from.Scheme != "http" || to.Scheme != "https" || to.User != nil ||
		!strings.EqualFold(from.Hostname(), to.Hostname()) || explicitPort(from) != explicitPort(to) ||
		from.EscapedPath() != to.EscapedPath() || from.RawQuery != to.RawQuery {
		return http.ErrUseLastResponse
	}
	return nil
}

// explicitPort is u's port, empty when it is its scheme's default.
func explicitPort(u *url.URL) string {
	p := u.Port()
	if (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		return ""
	}
	return p
}
