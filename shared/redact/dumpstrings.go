package redact

import "strings"

// findDumpedContent finds a quoted string under a content key (IsTextKey)
// in the dumps of languages whose maps and structs are no JSON: Go's %#v
// (`Content:"…"`), PHP's var_export (`'content' => '…'`) and Clojure's
// EDN (`:content "…"`). It returns the string's text between its quotes.
func findDumpedContent(s string, from int) []int {
	for i := from; i < len(s); {
		k := strings.IndexAny(s[i:], `"'`)
		if k < 0 {
			return nil
		}
		q := i + k
		i = q + 1
		key := dumpKeyBefore(s, q)
		if key == "" || !IsTextKey(key) {
			continue
		}
		end := closingQuote(s, q)
		if end < 0 {
			return nil
		}
		vs := q + 1
		if end-vs < 2 || strings.HasPrefix(s[vs:], markerPrefix) || strings.HasPrefix(s[vs:], "[text ") {
			i = end + 1
			continue
		}
		return []int{vs, end, -1, -1, vs, end}
	}
	return nil
}

// dumpKeyBefore returns the key whose value is the string opening at
// s[q], in Go's, PHP's or EDN's way of writing one, or "".
func dumpKeyBefore(s string, q int) string {
	isKey := func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }
	switch {
	case q > 0 && s[q-1] == ':' && s[q] == '"': // Go: Content:"…"
		ks := q - 1
		for ks > 0 && isKey(s[ks-1]) {
			ks--
		}
		if ks == q-1 || ks > 0 && (s[ks-1] == '"' || s[ks-1] == '\'') {
			return ""
		}
		return s[ks : q-1]
	case q > 0 && s[q-1] == ' ' && s[q] == '"': // EDN: :content "…"
		ke := q - 1
		ks := ke
		for ks > 0 && isKey(s[ks-1]) {
			ks--
		}
		if ks == ke || ks < 2 || s[ks-1] != ':' || isWord(s[ks-2]) || s[ks-2] == ':' {
			return ""
		}
		return s[ks:ke]
	default: // PHP: 'content' => '…'
		j := q
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		if j < 2 || s[j-2:j] != "=>" {
			return ""
		}
		j -= 2
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		if j < 2 || s[j-1] != '\'' && s[j-1] != '"' {
			return ""
		}
		ke := j - 1
		ks := ke
		for ks > 0 && isKey(s[ks-1]) {
			ks--
		}
		if ks == 0 || s[ks-1] != s[ke] {
			return ""
		}
		return s[ks:ke]
	}
}

// closingQuote returns the index of the quote that closes the string
// opening at s[q] (a backslash escapes), or -1.
func closingQuote(s string, q int) int {
	for j := q + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case s[q]:
			return j
		}
	}
	return -1
}
