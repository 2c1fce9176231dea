package redact

import (
	"encoding/json"
	"testing"
)

// decodeString must agree with encoding/json on valid UTF-8 literals.
func TestDecodeStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, lit := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u0073k-proj"`, `"\u00e9\u6771"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, `"tail\\"`, `"\u2028"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if got := decodeString([]byte(lit)); got != want {
			t.Errorf("decodeString(%s) = %q, want %q", lit, got, want)
		}
	}
}

func TestAppendQuotedRoundTrips(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\n\t", "<&>", "é東😀", "\u2028\u2029", "bad \xff byte"} {
		var got string
		if err := json.Unmarshal(appendQuoted(nil, s), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var want string
		b, _ := json.Marshal(s)
		_ = json.Unmarshal(b, &want)
		if got != want {
			t.Errorf("appendQuoted(%q) decodes to %q, want %q", s, got, want)
		}
	}
}
