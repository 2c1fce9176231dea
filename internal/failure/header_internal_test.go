package failure

import (
	"net/textproto"
	"strings"
	"testing"
)

// TestHeaderNamesCanonical guards header(): it indexes http.Header directly,
// which only finds names in canonical MIME form.
func TestHeaderNamesCanonical(t *testing.T) {
	t.Parallel()
	names := []string{"Retry-After", "Retry-After-Ms", "X-Amzn-Errortype", "X-Amzn-Query-Error"}
	for _, rh := range resetHeaders {
		names = append(names, rh.reset, rh.remaining)
		if rh.source != strings.ToLower(rh.reset) {
			t.Errorf("source %q is not %q lower-cased", rh.source, rh.reset)
		}
	}
	for _, n := range names {
		if c := textproto.CanonicalMIMEHeaderKey(n); c != n {
			t.Errorf("header name %q is not canonical (%q): header() would never find it", n, c)
		}
	}
}
