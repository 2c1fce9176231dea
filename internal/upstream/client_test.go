package upstream_test

import (
	"errors"
	"net/http"
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
