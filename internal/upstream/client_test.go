package upstream_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/upstream"
)

func TestNewClient(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		o         upstream.ClientOptions
		proxy     bool
		redirects bool
	}{
		"open":    {upstream.ClientOptions{Timeout: 20 * time.Second, ResponseHeaderTimeout: 10 * time.Second}, true, true},
		"guarded": {upstream.ClientOptions{BlockPrivate: true, NoRedirects: true}, false, false},
	}
	for name, tc := range tests {
		c := upstream.NewClient(tc.o)
		tr := c.Transport.(*http.Transport)
		if c.Timeout != tc.o.Timeout || tr.ResponseHeaderTimeout != tc.o.ResponseHeaderTimeout || tr.TLSHandshakeTimeout != upstream.TLSHandshakeTimeout {
			t.Errorf("%s: timeouts %v, %v, %v", name, c.Timeout, tr.ResponseHeaderTimeout, tr.TLSHandshakeTimeout)
		}
		if (tr.Proxy != nil) != tc.proxy {
			t.Errorf("%s: proxy from the environment %t, want %t", name, tr.Proxy != nil, tc.proxy)
		}
		next, _ := http.NewRequest(http.MethodGet, "https://example.com/next", nil)
		if follows := c.CheckRedirect(next, nil) == nil; follows != tc.redirects {
			t.Errorf("%s: follows redirects %t, want %t", name, follows, tc.redirects)
		}
	}
	if err := upstream.NoRedirects(nil, nil); !errors.Is(err, http.ErrUseLastResponse) {
		t.Fatalf("NoRedirects = %v", err)
	}
}

func TestFollowHTTP(t *testing.T) {
	t.Parallel()
	req := func(u string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := upstream.FollowHTTP(req("https://example.com/b"), make([]*http.Request, 9)); err != nil {
		t.Errorf("the 10th redirect: %v", err)
	}
	if err := upstream.FollowHTTP(req("https://example.com/b"), make([]*http.Request, 10)); err == nil || err.Error() != "stopped after 10 redirects" {
		t.Errorf("the 11th redirect: %v", err)
	}
	for _, u := range []string{"file:///etc/passwd", "gopher://127.0.0.1:70/_x", "ftp://example.com/a"} {
		if err := upstream.FollowHTTP(req(u), nil); !errors.Is(err, http.ErrUseLastResponse) {
			t.Errorf("redirect to %s: %v, want the 3xx back", u, err)
		}
	}
}

// TestNewClientBoundsResponseHeaders: net/http reads up to 10 MB of a
// response's headers by default, and four records of a batch run at once in
// a 256 MB function: a producer's URL to a host that answers with megabytes
// of headers must fail the request, not the function.
func TestNewClientBoundsResponseHeaders(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := range 100 {
			w.Header().Set(fmt.Sprintf("X-Pad-%d", i), strings.Repeat("p", 20<<10))
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	resp, err := upstream.NewClient(upstream.ClientOptions{}).Get(srv.URL)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("2 MB of response headers were read whole")
	}
	srvSmall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Security-Policy", strings.Repeat("c", 64<<10))
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srvSmall.Close)
	resp, err = upstream.NewClient(upstream.ClientOptions{}).Get(srvSmall.URL)
	if err != nil {
		t.Fatalf("64 KB of headers: %v", err)
	}
	_ = resp.Body.Close()
}
