package redact

import "strings"

// findDumpedContent finds a quoted string under a content key (IsTextKey)
// in the dumps of languages whose maps and structs are no JSON: Go's %#v
// (`Content:"…"`), PHP's var_export (`'content' => '…'`) and Clojure's
// EDN (`:content "…"`). It returns the string's text between its quotes.
//
// A role's key (user, assistant, human) is a content key too in a dump
// whose other keys are roles (Node's `Map(2) { 'system' => '…', 'user' =>
// '…' }`): each member is a turn, and its free text goes.
func findDumpedContent(s string, from int) []int {
	return findDumpedMember(s, from, func(r keyRole) bool { return r.text }, true)
}

// findDumpedSecret finds a quoted string under a credential's key in the
// same dumps (`:sasl.password "…"`, `Password:"…"`, `'api_key' => '…'`);
// checkPHPSecret gives it its key's kind.
func findDumpedSecret(s string, from int) []int {
	return findDumpedMember(s, from, func(r keyRole) bool { return r.kind != "" }, false)
}

// findDumpedMember returns the whole member, its key and the text between
// the quotes of the first dumped string whose key's role is wanted.
func findDumpedMember(s string, from int, want func(keyRole) bool, turns bool) []int {
	for i := from; i < len(s); {
		k := strings.IndexAny(s[i:], `"'`)
		if k < 0 {
			return nil
		}
		q := i + k
		i = q + 1
		ks, ke := dumpKeyBefore(s, q)
		if ks < from || ke <= ks {
			continue
		}
		turn := false
		if !want(roleOf(s[ks:ke])) {
			if turn = turns && RoleWords[strings.ToLower(s[ks:ke])] && otherRoleKey(s, ks, ke); !turn {
				continue
			}
		}
		end := closingQuote(s, q)
		if end < 0 {
			return nil
		}
		if turn && strings.Count(s[q+1:end], " ") < 2 {
			i = end + 1
			continue // a role's key over a name ("user" => "alice") is a login
		}
		vs := q + 1
		if end-vs < 2 || strings.HasPrefix(s[vs:], markerPrefix) || strings.HasPrefix(s[vs:], "[text ") {
			i = end + 1
			continue
		}
		return []int{ks, end, ks, ke, vs, end}
	}
	return nil
}

// otherRoleKey reports whether another role than s[ks:ke] stands as a
// dump's quoted key within 512 bytes of it: the dump is a conversation's
// turns by role.
func otherRoleKey(s string, ks, ke int) bool {
	lo, hi := max(0, ks-512), min(len(s), ke+512)
	w := s[lo:hi]
	for r := range RoleWords {
		if strings.EqualFold(r, s[ks:ke]) {
			continue
		}
		for _, q := range []string{"'", "\""} {
			k := strings.Index(w, q+r+q)
			if k < 0 {
				continue
			}
			a := skipBlanks(w, k+len(r)+2)
			if strings.HasPrefix(w[a:], "=>") || strings.HasPrefix(w[a:], ":") {
				return true
			}
		}
	}
	return false
}

// dumpKeyBefore returns the span of the key whose value is the string
// opening at s[q], in Go's, PHP's or EDN's way of writing one (an EDN
// keyword may hold dots and a namespace: `:sasl.password`, `:db/password`),
// or an empty span.
func dumpKeyBefore(s string, q int) (int, int) {
	isKey := func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }
	isEDNKey := func(c byte) bool { return isKey(c) || c == '.' || c == '/' }
	keyFrom := func(ke int, in func(byte) bool) int { // the start of the key ending at s[ke]
		for ke > 0 && in(s[ke-1]) {
			ke--
		}
		return ke
	}
	switch {
	case q > 0 && s[q-1] == ':' && s[q] == '"': // Go: Content:"…"
		ks := keyFrom(q-1, isKey)
		if ks == q-1 || ks > 0 && (s[ks-1] == '"' || s[ks-1] == '\'') {
			return 0, 0
		}
		return ks, q - 1
	case q >= 3 && s[q-1] == '=' && isKey(s[q-2]): // Ruby's inspect: @content="…"
		ks := keyFrom(q-1, isKey)
		if ks == 0 || s[ks-1] != '@' {
			return 0, 0
		}
		return ks, q - 1
	case q >= 2 && s[q-1] == ' ' && isKey(s[q-2]) && groovyKey(s, q-1): // Groovy's DSL: password 'p…'
		return keyFrom(q-1, isKey), q - 1
	case q >= 4 && s[q-3:q] == " = " && isKey(s[q-4]): // Java's toString with spaced '=': text = "…" (LangChain4j)
		ke := q - 3
		return keyFrom(ke, isKey), ke
	case q >= 6 && s[q-1] == ' ' && typedKey(s, q-1) >= 0: // R's str(): $ content: chr "…"
		ke := typedKey(s, q-1)
		return keyFrom(ke, isKey), ke
	case q > 0 && s[q-1] == ' ' && s[q] == '"' && ednKey(s, q): // EDN: :content "…"
		ke := q - 1
		return keyFrom(ke, isEDNKey), ke
	default: // PHP: 'content' => '…'; Ruby: :content=>"…"; Julia: "content" => "…"
		j := q
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		if j < 2 || s[j-2:j] != "=>" {
			return 0, 0
		}
		j -= 2
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		if j > 0 && isKey(s[j-1]) { // a Ruby symbol's key
			ks := keyFrom(j, isKey)
			if ks > 0 && s[ks-1] == ':' {
				return ks, j
			}
			return 0, 0
		}
		if j < 2 || s[j-1] != '\'' && s[j-1] != '"' {
			return 0, 0
		}
		ke := j - 1
		ks := keyFrom(ke, isKey)
		if ks == 0 || s[ks-1] != s[ke] {
			return 0, 0
		}
		return ks, ke
	}
}

// ednKey reports whether an EDN keyword (`:content`, `:db/password`)
// stands before the blank before the string opening at s[q].
func ednKey(s string, q int) bool {
	ke := q - 1
	ks := ke
	for ks > 0 && (isAlnum(s[ks-1]) || strings.IndexByte("_-./", s[ks-1]) >= 0) {
		ks--
	}
	return ks != ke && ks >= 2 && s[ks-1] == ':' && !isWord(s[ks-2]) && s[ks-2] != ':'
}

// DumpTypeWords are the type names a dump prints between a member's name
// and its string (R's str(): `$ content: chr "…"`).
var DumpTypeWords = map[string]bool{"chr": true, "str": true, "string": true, "String": true, "char": true}

// typedKey returns the end of the key of a member printed as "key: type
// "…"" whose type word ends at s[e] (the blank before the string), or -1.
func typedKey(s string, e int) int {
	ts := e
	for ts > 0 && e-ts < 8 && isLetter(s[ts-1]) {
		ts--
	}
	if ts == e || !DumpTypeWords[s[ts:e]] || ts < 3 || s[ts-1] != ' ' || s[ts-2] != ':' {
		return -1
	}
	ke := ts - 2
	for ke > 0 && s[ke-1] == ' ' {
		ke--
	}
	if ke == 0 || !isAlnum(s[ke-1]) && s[ke-1] != '_' {
		return -1
	}
	return ke
}

// groovyKey reports whether the word ending at s[e] starts its line (after
// its indentation): a Groovy or Gradle DSL call, `password 'p…'`.
func groovyKey(s string, e int) bool {
	ks := e
	for ks > 0 && (isAlnum(s[ks-1]) || s[ks-1] == '_') {
		ks--
	}
	ks = skipBlanksBack(s, 0, ks)
	return ks == 0 || s[ks-1] == '\n'
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
