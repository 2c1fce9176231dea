package work

import "unicode/utf8"

// Prefix returns the longest prefix of s of at most n bytes that ends on a
// rune boundary: s itself when it fits, "" when n <= 0 and s is not empty.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Ellipsis returns s when it fits in n bytes, otherwise its Prefix of n
// bytes followed by "…" (so at most n+3 bytes).
func Ellipsis(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}
