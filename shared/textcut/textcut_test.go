package textcut_test

import (
	"testing"
	"unicode/utf8"

	"github.com/triagehq/triage/shared/textcut"
)

func TestCut(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		s            string
		n            int
		prefix, elli string
	}{
		"fits":                {s: "abc", n: 3, prefix: "abc", elli: "abc"},
		"ascii":               {s: "abcdef", n: 4, prefix: "abcd", elli: "abcd…"},
		"inside a character":  {s: "aé€b", n: 4, prefix: "aé", elli: "aé…"},
		"on a boundary":       {s: "aé€b", n: 6, prefix: "aé€", elli: "aé€…"},
		"nothing fits":        {s: "€", n: 2, prefix: "", elli: "…"},
		"zero budget":         {s: "abc", n: 0, prefix: "", elli: "…"},
		"negative budget":     {s: "abc", n: -1, prefix: "", elli: "…"},
		"empty":               {s: "", n: 0, prefix: "", elli: ""},
		"invalid byte is cut": {s: "ab\xffcd", n: 3, prefix: "ab\xff", elli: "ab\xff…"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := textcut.Prefix(tc.s, tc.n); got != tc.prefix {
				t.Errorf("Prefix(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.prefix)
			}
			if got := textcut.Ellipsis(tc.s, tc.n); got != tc.elli {
				t.Errorf("Ellipsis(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.elli)
			}
			if utf8.ValidString(tc.s) && !utf8.ValidString(textcut.Prefix(tc.s, tc.n)) {
				t.Errorf("Prefix(%q, %d) is not valid UTF-8", tc.s, tc.n)
			}
		})
	}
}
