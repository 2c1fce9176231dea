// Terminal makes stored text safe to print in a terminal: item ids, error
// messages, notes, model names and timelines come from messages and
// upstreams, and a raw escape sequence, carriage return or bidirectional
// override in one could rewrite or hide what an operator reads.

package redact

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// String returns s with control and format characters and invalid UTF-8
// written as Go escapes (\x1b, \r, \u202e, \xff); everything else stays as
// it is, and a clean s is returned as is.
func Terminal(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\x`...)
			out = append(out, hexByte(s[i])...)
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\r', '\u202e'
			out = append(out, q[1:len(q)-1]...)
		default:
			out = append(out, s[i:i+n]...)
		}
		i += n
	}
	return string(out)
}

// unsafeRune reports whether r moves the cursor, changes the terminal's
// state or reorders text: C0 and C1 controls, DEL, and Unicode format
// characters (bidirectional overrides and isolates, zero-width marks).
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r) ||
		r == '\u2028' || r == '\u2029'
}

func hexByte(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&0xf]})
}
