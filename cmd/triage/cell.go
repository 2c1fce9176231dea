package main

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/redact"
)

// cell makes a stored string safe to print in a terminal table: item ids,
// error messages, notes and model names come from messages and upstreams,
// and a raw escape sequence, carriage return or bidirectional override in
// one could rewrite or hide what the operator reads. Control and format
// characters and invalid UTF-8 are written as Go escapes (\x1b, \r,
// \u202e, \xff); everything else stays as it is (redact.Terminal).
func cell(s string) string { return redact.Terminal(s) }

// jsonCell makes encoded JSON as safe to print as cell makes a string:
// encoding/json escapes C0 controls but leaves DEL, C1 controls and Unicode
// format characters (bidirectional overrides, zero-width marks) and the line
// and paragraph separators as they are; jsonCell writes them as \u escapes,
// which decode to the same value. They only ever stand inside strings.
func jsonCell(b []byte) []byte {
	unsafe := func(r rune) bool {
		return r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
	}
	if !bytes.ContainsFunc(b, unsafe) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case !unsafe(r):
			out = append(out, b[:n]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		b = b[n:]
	}
	return out
}
