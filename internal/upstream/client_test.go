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
		if follows := c.CheckRedirect == nil; follows != tc.redirects {
			t.Errorf("%s: follows redirects %t, want %t", name, follows, tc.redirects)
		}
	}
	if err := upstream.NoRedirects(nil, nil); !errors.Is(err, http.ErrUseLastResponse) {
		t.Fatalf("NoRedirects = %v", err)
	}
}
