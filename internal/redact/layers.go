package redact

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// The structure layer: objects and arrays wherever they stand in text —
// JSON, a Python or Ruby repr, a JavaScript literal, Go's %v of a struct
// or map, whole or cut short — are parsed where they stand, and the key
// rules apply to their members (see keyRole): a credential's value goes
// whole, a prompt's becomes Text, a name/value pair whose name is one of
// them is judged by its name. Quoted strings with escapes are decoded,
// redacted and escaped again. Only what a key or an escape calls for is
// rewritten; the text around, and every other value, is left to the
// patterns that run over the whole text after this layer.

// edit replaces s[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

// layers applies the structure and decoding layers to s once.
func layers(s string, st *state) string {
	s = structures(s, st)
	return entityText(encodedRuns(s, st), st)
}

// structures applies the structure layer to s (see the comment above).
func structures(s string, st *state) string {
	if strings.IndexByte(s, '{') < 0 && strings.IndexByte(s, '[') < 0 && strings.IndexByte(s, '"') < 0 && !strings.Contains(s, "map[") && !strings.Contains(s, "args") && !strings.Contains(s, "((") {
		return s
	}
	out := splicer{s: s}
	emit := func(edits []edit) {
		for _, e := range edits {
			if e.start < out.copied || e.end < e.start || s[e.start:e.end] == e.repl {
				continue
			}
			out.replace(e.start, e.end, e.repl)
		}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '[', '{', 'm':
			if c == '[' {
				if j := skipMarker(s, i); j != i {
					i = j + 1
					continue
				}
				if strings.HasPrefix(s[i:], "[text ") {
					if j := strings.IndexByte(s[i:], ']'); j > 0 && isTextMarker(s[i:i+j+1]) {
						i += j + 1
						continue
					}
				}
			}
			if c == 'm' && !(strings.HasPrefix(s[i:], "map[") && (i == 0 || !isWord(s[i-1]))) {
				break
			}
			if end, edits, ok := escapedStructure(s, i, st); ok {
				emit(edits)
				i = end
				continue
			}
			p := lenient{s: s, st: st, parent: structLabel(s, i)}
			var end int
			if c != 'm' && argsKeyBefore(s, i) {
				end, _ = p.value(i, &keyRole{args: true})
			} else {
				end = p.parse(i)
			}
			emit(p.sorted())
			if end > i {
				i = end
				continue
			}
		case '#':
			// Ruby's inspect of an object: #<SEPA::DebtorTransaction
			// name: "…", iban: "…">, a record under its class's name.
			if cs, ce := rubyInspectHead(s, i); ce > cs {
				p := lenient{s: s, st: st, parent: s[cs:ce]}
				p.depth++
				if end, ok := p.object(ce+1, '>'); ok {
					emit(p.sorted())
					i = end
					continue
				}
			}
		case '(':
			if argsKeyBefore(s, i) {
				// A job's positional arguments as a tuple: args=('…', …).
				p := lenient{s: s, st: st}
				if end, _ := p.container(i, i+1, ')', &keyRole{args: true}); end > i {
					emit(p.sorted())
					i = end
					continue
				}
			}
			if i+1 < len(s) && s[i+1] == '(' {
				// A tuple of tuples, as Python prints gRPC metadata:
				// (('authorization', 'Key …'),) — its pairs are name/value
				// pairs as in a list.
				p := lenient{s: s, st: st}
				if end, _ := p.container(i, i+1, ')', nil); end > i {
					emit(p.sorted())
					i = end
					continue
				}
			}
		case '"':
			if argsLabelBefore(s, i) {
				// Active Job's "with arguments: "…", "…"": a job's
				// arguments as a list to the end of the line.
				p := lenient{s: s, st: st, args: 1}
				if end := p.argList(i); end > i {
					emit(p.sorted())
					i = end
					continue
				}
			}
			if end, edits := quotedText(s, i, st); end > i {
				emit(edits)
				i = end
				continue
			}
		}
		i++
	}
	return out.String()
}

// rubyInspectHead reads the head of Ruby's inspect of an object at s[i],
// "#<Module::Class " with a member's key after it, and returns the
// bounds of the class's own name (past its modules), or 0, 0.
func rubyInspectHead(s string, i int) (int, int) {
	if i+2 >= len(s) || s[i+1] != '<' || !isUpper(s[i+2]) {
		return 0, 0
	}
	cs, k := i+2, i+2
	for k < len(s) && k-i < 128 && (isAlnum(s[k]) || s[k] == '_' || s[k] == ':') {
		if s[k] == ':' {
			cs = k + 1
		}
		k++
	}
	if k+1 >= len(s) || s[k] != ' ' || !isLetter(s[k+1]) || cs >= k {
		return 0, 0
	}
	return cs, k
}

// quotedText handles a double-quoted string standing in text at s[i]: its
// content is decoded when it holds escapes, and structures inside it are
// handled; end is past the closing quote (i when there is none on the
// line).
func quotedText(s string, i int, st *state) (end int, edits []edit) {
	k := i + 1
	esc := false
	for k < len(s) && s[k] != '"' && s[k] != '\n' {
		if s[k] == '\\' {
			esc = true
			k++
		}
		k++
	}
	if k >= len(s) || s[k] != '"' {
		// No quote closes this one on its line, so none after it does
		// either: skip the line rather than scan it again from each quote.
		return k, nil
	}
	body := s[i+1 : k]
	if strings.Trim(body, "{[ ") == "" && body != "" {
		// `"{"system":…}"`: JSON written unescaped between quotes, as wire
		// logs print a body; the quote opens no string, the structure
		// after it is parsed where it stands.
		return i + 1, nil
	}
	if r, ok := redactQuoted(body, '"', esc, st, nil); ok {
		edits = append(edits, edit{i + 1, k, r})
	}
	return k + 1, edits
}

// redactQuoted redacts the body of a string quoted with q: decoded (one
// level of escapes) and redacted as text when it holds escapes, its
// structures handled when it holds none. ok is false when nothing
// changed. role, when not nil, is the key's role.
func redactQuoted(body string, q byte, esc bool, st *state, role *keyRole) (string, bool) {
	if !esc {
		if strings.IndexAny(body, "{[") < 0 {
			return "", false
		}
		r := structures(body, st)
		return r, r != body
	}
	dec, ok := unescape(body)
	if !ok || !st.canDecode(len(dec)) {
		return "", false
	}
	r := redactText(dec, st.deeperWithoutProse())
	if r == dec {
		return "", false
	}
	// What the patterns find in the escaped text itself they redact there,
	// keeping its escapes as written; only what decoding exposed is
	// rewritten here.
	if sf, ok := unescape(surface(body, st)); ok && sf == r {
		return "", false
	}
	return escapeFor(r, q), true
}

// escapedStructure handles a JSON object or array written escaped into
// text, `{\"api_key\":\"…\"}` (JSON inside a string whose quotes are not
// in the text, or cut off): from s[i] to the end of the line or of the
// string it stands in, unescaped as many levels as its quotes are, handled
// as text, and escaped back.
func escapedStructure(s string, i int, st *state) (end int, edits []edit, ok bool) {
	j := i + 1
	for j < len(s) && j-i < 4 && (s[j] == '{' || s[j] == '[' || s[j] == ' ') {
		j++
	}
	if j >= len(s) || s[j] != '\\' {
		return i, nil, false
	}
	n := 0
	for j+n < len(s) && s[j+n] == '\\' {
		n++
	}
	if j+n >= len(s) || s[j+n] != '"' || n%2 == 0 {
		return i, nil, false
	}
	// The region ends where a quote escaped fewer times than n ends the
	// string it stands in, or at the end of the line.
	k := i
	for k < len(s) && s[k] != '\n' {
		if s[k] == '"' {
			b := 0
			for b < k-i && s[k-1-b] == '\\' {
				b++
			}
			if b < n {
				break
			}
		}
		k++
	}
	region := s[i:k]
	levels := (n + 1) / 2
	// Unescaping one level turns 2m+1 backslashes before a quote into m:
	// levels of them reach the plain text.
	dec := region
	for range levels {
		d, ok := unescape(dec)
		if !ok || !st.canDecode(len(d)) {
			// Not escaped JSON after all, or past the budget: the region is
			// left to the patterns, and not searched again.
			return k, nil, true
		}
		dec = d
	}
	inner := st
	for range levels {
		inner = inner.deeper()
	}
	r := redactText(dec, inner)
	if r == dec {
		return k, nil, true
	}
	for range levels {
		r = escapeFor(r, '"')
	}
	return k, []edit{{i, k, r}}, true
}

// unescape decodes one level of backslash escapes: JSON's (\" \\ \/ \b \f
// \n \r \t \uXXXX with surrogate pairs), \' and \xXX. ok is false when s
// holds a backslash that escapes nothing it knows.
func unescape(s string) (string, bool) {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return "", false
		}
		switch c := s[1]; c {
		case '"', '\\', '/', '\'':
			b = append(b, c)
			s = s[2:]
		case 'b':
			b, s = append(b, '\b'), s[2:]
		case 'f':
			b, s = append(b, '\f'), s[2:]
		case 'n':
			b, s = append(b, '\n'), s[2:]
		case 'r':
			b, s = append(b, '\r'), s[2:]
		case 't':
			b, s = append(b, '\t'), s[2:]
		case 'u':
			if hex4([]byte(s[2:min(len(s), 6)])) < 0 {
				return "", false
			}
			r, n := decodeEscapedRune([]byte(s[:min(len(s), 12)]))
			b = utf8.AppendRune(b, r)
			s = s[n:]
		case 'x':
			if len(s) < 4 || unhex(s[2]) < 0 || unhex(s[3]) < 0 {
				return "", false
			}
			b = append(b, byte(unhex(s[2])<<4|unhex(s[3])))
			s = s[4:]
		default:
			return "", false
		}
		i = strings.IndexByte(s, '\\')
	}
	return string(append(b, s...)), true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// escapeFor escapes s to stand inside a string quoted with q: JSON's
// escapes, and \' for a single quote.
func escapeFor(s string, q byte) string {
	b := appendQuoted(nil, s)
	b = b[1 : len(b)-1]
	if q == '\'' {
		b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(`\"`), []byte(`"`)), []byte(`'`), []byte(`\'`))
	}
	return string(b)
}

// lenient parses an object or array in text, collecting the edits its key
// rules call for. It accepts JSON and what looks like it: single-quoted
// strings, bare keys and values (JavaScript, Go's %v), "=>" (Ruby),
// members without commas (Go), Go's map[k:v], and a document cut short
// (the edits up to the cut stand).
type lenient struct {
	s     string
	st    *state
	edits []edit
	depth int
	quote byte // the quote of the structure's strings, for what edits insert
	// parent is the key the object being parsed stands under (or the
	// label before the structure): its record's key.
	parent string
	// elem is the role of the scalars of a list under a personal key.
	elem *keyRole
	args int // how many job arguments' containers enclose the value
}

// maxNesting bounds how deep lenient follows nested objects and arrays.
const maxNesting = 64

// parse parses the value at i and returns where it ended: past it, or
// where parsing stopped (i when nothing was read).
func (p *lenient) parse(i int) int {
	end, _ := p.value(i, nil)
	return end
}

// sorted returns the edits in order, dropping those inside another.
func (p *lenient) sorted() []edit {
	if len(p.edits) < 2 {
		return p.edits
	}
	sort.SliceStable(p.edits, func(a, b int) bool { return p.edits[a].start < p.edits[b].start })
	out := p.edits[:0]
	last := -1
	for _, e := range p.edits {
		if e.start < last {
			continue
		}
		out = append(out, e)
		last = e.end
	}
	return out
}

// valueKind is what a value of a structure is.
type valueKind int

const (
	vNone valueKind = iota
	vString
	vContainer
	vBare
)

// objMember is a member of an object as lenient read it.
type objMember struct {
	key        string
	start, end int // the value's bounds (a string's include its quotes)
	kind       valueKind
	text       string // a string's decoded content
	quote      byte
	edited     bool // an edit already covers the value
}

func (p *lenient) ws(i int) int {
	for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t' || p.s[i] == '\n' || p.s[i] == '\r') {
		i++
	}
	return i
}

// value parses the value at i under a key of the given role (nil: none)
// and returns its end and kind.
func (p *lenient) value(i int, role *keyRole) (int, valueKind) {
	if i >= len(p.s) {
		return i, vNone
	}
	switch c := p.s[i]; {
	case c == '{':
		return p.container(i, i+1, '}', role)
	case c == '[' && startsWithMarker(p.s, i):
		// A bare marker an earlier pass left is one word, not a list.
		return i + strings.IndexByte(p.s[i:], ']') + 1, vBare
	case c == '[':
		return p.container(i, i+1, ']', role)
	case c == '(' && i+1 < len(p.s) && (p.s[i+1] == '\'' || p.s[i+1] == '"' || p.s[i+1] == 'b' && i+2 < len(p.s) && (p.s[i+2] == '\'' || p.s[i+2] == '"')):
		return p.container(i, i+1, ')', role)
	case c == 'm' && strings.HasPrefix(p.s[i:], "map["):
		return p.container(i, i+4, ']', role)
	case c == '"' || c == '\'':
		return p.stringValue(i, role)
	case (c == 'b' || c == 'u' || c == 'r') && i+1 < len(p.s) && (p.s[i+1] == '\'' || p.s[i+1] == '"'):
		return p.stringValue(i+1, role)
	}
	end := p.bareEnd(i)
	if end > i && role != nil {
		v := strings.TrimSpace(p.s[i:end])
		switch {
		case role.kind != "" && !isLiteral(v) && !isMarker(v):
			p.edits = append(p.edits, edit{i, i + len(v), secretString(role.kind, v)})
		case role.text && !isLiteral(v) && !isNumber(v) && !isTextMarker(v):
			p.edits = append(p.edits, edit{i, i + len(v), Text(v)})
		case role.payload && isProse(v) || role.prose(v):
			// Free text under a body or under a key that says nothing of
			// it: Go's %v of a ticket, map[Body:I was charged twice …].
			p.edits = append(p.edits, edit{i, i + len(v), Text(v)})
		}
	}
	return end, vBare
}

func isLiteral(v string) bool {
	switch v {
	case "null", "true", "false", "None", "True", "False", "nil", "<nil>", "undefined", "":
		return true
	}
	return false
}

func isNumber(v string) bool {
	if v == "" {
		return false
	}
	for k := 0; k < len(v); k++ {
		if c := v[k]; !(isDigit(c) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false
		}
	}
	return true
}

// bareEnd returns the end of a bare value at i: a ',', a closing bracket,
// a newline, or — Go's %v, which has no commas — a space before the next
// "Name:".
func (p *lenient) bareEnd(i int) int {
	k := i
	for k < len(p.s) {
		if p.s[k] == '[' && startsWithMarker(p.s, k) {
			// A marker is one word: its ']' closes nothing.
			k += strings.IndexByte(p.s[k:], ']') + 1
			continue
		}
		switch p.s[k] {
		case ',', '}', ']', '\n', '\r':
			return k
		case ' ':
			if nextGoField(p.s, k+1) || k+1 < len(p.s) && (p.s[k+1] == '\'' || p.s[k+1] == '"') && isLiteral(strings.TrimSpace(p.s[i:k])) {
				return k
			}
		}
		k++
	}
	return k
}

// nextGoField reports whether s[i:] starts with an identifier and a ':'
// that is not "://".
func nextGoField(s string, i int) bool {
	k := i
	for k < len(s) && (isWord(s[k]) || s[k] == '-') {
		k++
	}
	return k > i && k < len(s) && s[k] == ':' && !strings.HasPrefix(s[k:], "://") && isLetter(s[i])
}

// stringValue parses a string quoted at i and applies role to it.
func (p *lenient) stringValue(i int, role *keyRole) (int, valueKind) {
	q := p.s[i]
	if p.quote == 0 {
		p.quote = q
	}
	k := i + 1
	esc := false
	// Content may run over lines (a terminal wraps a logged prompt); any
	// other string ends with its line.
	multi := role != nil && (role.text || role.kind != "")
	for k < len(p.s) && p.s[k] != q && (multi && k-i < maxDecodedBytes || p.s[k] != '\n') {
		if p.s[k] == '\\' {
			esc = true
			k++
		}
		k++
	}
	closed := k < len(p.s) && p.s[k] == q
	k = min(k, len(p.s))
	body := p.s[i+1 : k]
	end := k
	if closed {
		end = k + 1
		if role != nil && (role.text || role.kind != "") {
			if e, joined, ok := p.adjacentLiterals(end, q); ok {
				// Python's adjacent literals are one string: pprint wraps a
				// long one so, 'You are … never speculate about '\n 'liability.'
				text := body
				if esc {
					if d, ok := unescape(body); ok {
						text = d
					}
				}
				p.applyString(i+1, e-1, text+joined, q, false, role)
				return e, vString
			}
		}
	}
	p.applyString(i+1, k, body, q, esc, role)
	if !closed {
		return end, vNone // cut short: stop here
	}
	return end, vString
}

// adjacentLiterals reads the string literals quoted with q that follow
// s[i] with only blanks and line breaks before each (Python's implicit
// concatenation) and returns the end of the last, their bodies joined
// (unescaped), and whether there was one.
func (p *lenient) adjacentLiterals(i int, q byte) (end int, joined string, ok bool) {
	var b strings.Builder
	end = i
	for n := 0; n < 256; n++ {
		j := end
		for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t' || p.s[j] == '\n' || p.s[j] == '\r') {
			j++
		}
		if j >= len(p.s) || p.s[j] != q {
			break
		}
		k := j + 1
		esc := false
		for k < len(p.s) && p.s[k] != q && p.s[k] != '\n' {
			if p.s[k] == '\\' {
				esc = true
				k++
			}
			k++
		}
		if k >= len(p.s) || p.s[k] != q {
			break
		}
		body := p.s[j+1 : k]
		if esc {
			if d, ok := unescape(body); ok {
				body = d
			}
		}
		b.WriteString(body)
		end, ok = k+1, true
	}
	return end, b.String(), ok
}

// applyString edits the string body s[a:b] by role.
func (p *lenient) applyString(a, b int, body string, q byte, esc bool, role *keyRole) {
	text := body
	if esc {
		if d, ok := unescape(body); ok {
			text = d
		}
	}
	switch {
	case role != nil && role.kind != "":
		if r := secretString(role.kind, text); r != text {
			p.edits = append(p.edits, edit{a, b, escapeFor(r, q)})
		}
	case role != nil && role.text:
		if text != "" && !isTextMarker(text) {
			p.edits = append(p.edits, edit{a, b, Text(text)})
		}
	case role != nil && role.payload:
		t := strings.TrimSpace(text)
		if t == "" || isTextMarker(t) || isMarker(t) {
			return
		}
		if t[0] == '{' || t[0] == '[' {
			if role.args {
				// A flow's input written as a JSON string: free text in it
				// is content whatever its own keys say.
				if r := string(argsJSON([]byte(text))); r != text {
					if esc {
						r = escapeFor(r, q)
					}
					p.edits = append(p.edits, edit{a, b, r})
					return
				}
			}
			if r, ok := redactQuoted(body, q, esc, p.st, role); ok {
				p.edits = append(p.edits, edit{a, b, r})
			}
			return
		}
		p.edits = append(p.edits, edit{a, b, Text(text)})
	case (p.args > 0 || role != nil && role.args) && isProse(text) || role.prose(text):
		// A job's argument that is free text (jobargs.go), or free text
		// under a key that says nothing of it (proseKey).
		p.edits = append(p.edits, edit{a, b, Text(text)})
	default:
		if r, ok := redactQuoted(body, q, esc, p.st, role); ok {
			p.edits = append(p.edits, edit{a, b, r})
		}
	}
}

// container parses an object or array whose content starts at from and
// ends with close; start is its opening bracket. Under a text key the
// whole container becomes Text; under a secret key, a marker.
func (p *lenient) container(start, from int, close byte, role *keyRole) (int, valueKind) {
	if p.depth >= maxNesting {
		return start, vNone
	}
	p.depth++
	defer func() { p.depth-- }()
	if role != nil && role.args {
		p.args++
		defer func() { p.args-- }()
	}
	mark := len(p.edits)
	var end int
	var ok bool
	// A list under a personal key (emails, phone_numbers, a field's
	// validation errors) is judged element by element (personalList).
	list := role != nil && personal(role.kind) && p.s[start] == '['
	if list {
		elem := p.elem
		p.elem = role
		defer func() { p.elem = elem }()
	}
	if close == '}' || p.s[start] == 'm' {
		end, ok = p.object(from, close)
	} else {
		end, ok = p.array(from, close)
	}
	if list && ok {
		return end, vContainer
	}
	if role != nil && role.payload && !role.text && ok && strings.IndexByte(p.s[start+1:end], '{') < 0 && p.s[start] == '[' {
		// A payload of plain strings (an embeddings input, a batch of
		// prompts) is content.
		tr := keyRole{text: true}
		role = &tr
	}
	if role != nil && role.text && role.kind == "" && ok && p.s[start] == '[' && end > start {
		// A queue's records under a content key keep what was judged
		// member by member (recordList).
		var x any
		if raw := p.s[start:end]; mayBeRecordsText(raw) && json.Unmarshal([]byte(raw), &x) == nil && recordList(x) {
			return end, vContainer
		}
	}
	if role != nil && (role.kind != "" || role.text) && end > start {
		// The key decides for the whole value: drop what was edited inside.
		// A value that did not close (cut short, or quoted in a way the
		// parser lost) runs to the end of its line: deny by default.
		if !ok {
			if e := strings.IndexByte(p.s[end:], '\n'); e >= 0 {
				end += e
			} else {
				end = len(p.s)
			}
		}
		p.edits = p.edits[:mark]
		raw := p.s[start:end]
		q := p.quote
		if q == 0 {
			q = '"'
		}
		var r string
		if role.kind != "" {
			r = role.kind.Marker()
		} else {
			r = Text(canonicalOrRaw(raw))
		}
		p.edits = append(p.edits, edit{start, end, string(q) + r + string(q)})
	}
	if !ok {
		return end, vNone
	}
	return end, vContainer
}

// canonicalOrRaw returns the compact JSON of raw with keys sorted when raw
// is JSON (so that Text of it matches what JSON gives), raw otherwise.
func canonicalOrRaw(raw string) string {
	if !json.Valid([]byte(raw)) {
		return raw
	}
	x, err := decodeNumbers(strings.NewReader(raw))
	if err != nil {
		return raw
	}
	return canonical(x)
}

// array parses elements from i to close (']', or ')' for a tuple) and
// returns the end and whether it closed. A pair of strings whose first
// names a credential or content — a Python (name, value) tuple, a
// ["Authorization", "Bearer …"] pair — has its second judged by it.
func (p *lenient) array(i int, close byte) (int, bool) {
	var elems []objMember
	defer func() { p.tuple(elems) }()
	for {
		var end int
		var kind valueKind
		i = p.ws(i)
		if i >= len(p.s) {
			return i, false
		}
		if p.s[i] == close {
			return i + 1, true
		}
		var er *keyRole
		if c := p.s[i]; c != '{' && c != '[' {
			er = p.elem
			if isLetter(c) {
				// A keyword argument whose value is a structure, as an
				// exception prints a request: [request_body={'contents':
				// …}]. Its value is parsed under its key.
				if ve, vk, ok := p.assigned(i); ok {
					end, kind = ve, vk
				}
			}
		}
		if end <= i {
			end, kind = p.value(i, er)
		}
		if kind == vNone || end <= i {
			return end, false
		}
		if len(elems) < 3 {
			elems = append(elems, p.element(i, end, kind))
		}
		i = p.ws(end)
		if i < len(p.s) && p.s[i] == ',' {
			i++
		}
	}
}

// assigned parses, at i, an identifier, '=' and an object or a list (a
// keyword argument printed inside a list or a message; Go's map[…]
// too), the value under
// the identifier's key. ok is false when s[i:] is not of that shape.
func (p *lenient) assigned(i int) (int, valueKind, bool) {
	k := i
	for k < len(p.s) && k-i < 64 && (isWord(p.s[k]) || p.s[k] == '.') {
		k++
	}
	if k+1 >= len(p.s) || p.s[k] != '=' || p.s[k+1] != '{' && p.s[k+1] != '[' && !strings.HasPrefix(p.s[k+1:], "map[") {
		return 0, vNone, false
	}
	role := roleOf(p.s[i:k])
	parent := p.parent
	p.parent = p.s[i:k]
	end, kind := p.value(k+1, &role)
	p.parent = parent
	if kind == vNone || end <= k+1 {
		return 0, vNone, false
	}
	return end, kind, true
}

// element describes the value s[start:end] of the given kind.
func (p *lenient) element(start, end int, kind valueKind) objMember {
	m := objMember{start: start, end: end, kind: kind}
	if kind == vString {
		m.quote = p.s[start]
		if m.quote != '"' && m.quote != '\'' {
			m.quote = p.s[start+1]
			m.start++
		}
		if m.start+1 > end-1 {
			m.kind = vNone
			return m
		}
		body := p.s[m.start+1 : end-1]
		m.text = body
		if strings.IndexByte(body, '\\') >= 0 {
			if d, ok := unescape(body); ok {
				m.text = d
			}
		}
	}
	return m
}

// tuple judges a pair of strings as a name and its value.
func (p *lenient) tuple(elems []objMember) {
	if len(elems) != 2 || elems[0].kind != vString || elems[1].kind != vString {
		return
	}
	r := roleOf(elems[0].text)
	if r.kind == "" && !r.text {
		return
	}
	m := elems[1]
	p.applyString(m.start+1, m.end-1, p.s[m.start+1:m.end-1], m.quote, m.text != p.s[m.start+1:m.end-1], &r)
}

// object parses members from i to close and returns the end and whether
// it closed. After the members are read, name/value pairs are judged.
func (p *lenient) object(i int, close byte) (int, bool) {
	var buf [8]objMember // most objects' members, without growing a slice
	members := buf[:0]
	closed := false
	parent, from, elem := p.parent, i, p.elem
	p.elem = nil
	defer func() { p.parent, p.elem = parent, elem }()
	var rec *record
	for {
		i = p.ws(i)
		if i >= len(p.s) {
			break
		}
		if p.s[i] == close {
			i++
			closed = true
			break
		}
		ks, ke, key, ok := p.key(i)
		if !ok {
			break
		}
		i, ok = p.valueAt(ke)
		if !ok {
			p.pairs(members)
			return ks, false
		}
		role := roleOf(key)
		if role.text && i < len(p.s) && p.s[i] == '"' {
			if e := strings.IndexByte(p.s[i+1:min(len(p.s), i+1+256)], '"'); e >= 0 && systemURI(key, p.s[i+1:i+1+e]) {
				role.text = false
			}
		}
		if role == (keyRole{}) && mergeFieldsKey(parent) && i < len(p.s) && p.s[i] != '{' && p.s[i] != '[' {
			role.kind = KindPersonal
		}
		if contextKey(key) {
			if rec == nil {
				rec = p.record(from, close, parent)
			}
			role = rec.roleIn(key, rec.members[recordKey(key)], role)
		}
		if role == (keyRole{}) && i < len(p.s) {
			if c := p.s[i]; c == '"' || c == '\'' {
				if e := strings.IndexByte(p.s[i+1:min(len(p.s), i+18)], c); e >= 7 && partyPhone(key, p.s[i+1:i+1+e]) {
					role.kind = KindPhone
				}
			}
		}
		p.parent = key
		var rp *keyRole
		if role.kind != "" || role.text || role.payload || role.args {
			rp = &role
		} else {
			role.proseOf = key
			rp = &role
		}
		mark := len(p.edits)
		end, kind := p.value(i, rp)
		m := p.element(i, end, kind)
		m.key, m.edited = key, len(p.edits) > mark
		members = append(members, m)
		if kind == vNone || end <= i {
			i = end
			break
		}
		i = p.ws(end)
		if i < len(p.s) && p.s[i] == ',' {
			i++
		}
	}
	p.pairs(members)
	p.sameName(members)
	return i, closed
}

// sameName replaces, in one object, a string equal to a person's name that
// went under a personal key (Mailing_Name, customer_name): the same name
// under a key that says nothing of it (Alpha_Name, label) is the same
// person's.
func (p *lenient) sameName(members []objMember) {
	var names map[string]bool
	for _, m := range members {
		if m.kind != vString || !m.edited || strings.IndexByte(m.text, ' ') < 0 || personalKind(splitWords(m.key, nil)) != KindPersonal || len(strings.Fields(m.text)) < 2 {
			continue
		}
		if names == nil {
			names = make(map[string]bool, 4)
		}
		names[m.text] = true
	}
	if names == nil {
		return
	}
	for _, n := range members {
		if n.kind == vString && !n.edited && names[n.text] && n.end-n.start >= 2 {
			p.applyString(n.start+1, n.end-1, p.s[n.start+1:n.end-1], n.quote, n.text != p.s[n.start+1:n.end-1], &keyRole{kind: KindPersonal})
		}
	}
}

// turn replaces the "message" (or "msg") of an object that also holds a
// TurnKeys member, or a content key (IsTextKey: Cohere's preamble and
// chat_history beside its message) when it is no log record
// (LogRecordKeys): a chat turn's message or a request's, which is content.
// An error's message, and a log record's, stay.
func (p *lenient) turn(members []objMember) {
	var tc turnCount
	for _, m := range members {
		tc.add(m.key)
	}
	if !tc.turn() {
		return
	}
	text := keyRole{text: true}
	for i, m := range members {
		if nk := normKey(m.key); (nk == "message" || nk == "msg" || SummaryKeys[nk] && isFreeText(m.text)) && m.kind == vString && !m.edited && !isLiteral(m.text) {
			p.applyString(m.start+1, m.end-1, p.s[m.start+1:m.end-1], m.quote, m.text != p.s[m.start+1:m.end-1], &text)
			members[i].edited = true
		}
	}
}

// key reads a member's key at i: a quoted string or a bare identifier.
func (p *lenient) key(i int) (start, end int, key string, ok bool) {
	if c := p.s[i]; c == '"' || c == '\'' {
		_, k := lineQuoted(p.s, i)
		if k >= len(p.s) || p.s[k] != c {
			return 0, 0, "", false
		}
		key = p.s[i+1 : k]
		if strings.IndexByte(key, '\\') >= 0 {
			if d, ok := unescape(key); ok {
				key = d
			}
		}
		return i, k + 1, key, true
	}
	k := i
	for k < len(p.s) && (isKeyByte(p.s[k]) || p.s[k] == '$') {
		k++
	}
	if k == i || k-i > 128 {
		return 0, 0, "", false
	}
	return i, k, p.s[i:k], true
}

// valueAt reads the separator after a member's key that ends at ke — ':',
// or "=>" as PHP and Ruby print it, blanks around it — and returns where
// the member's value starts, or false when no separator follows the key.
func (p *lenient) valueAt(ke int) (int, bool) {
	i := p.ws(ke)
	switch {
	case i < len(p.s) && p.s[i] == ':':
		i++
	case strings.HasPrefix(p.s[i:], "=>"):
		i += 2
	default:
		return i, false
	}
	return p.ws(i), true
}

// NameKeys are the keys of a name/value pair's name: {"name":
// "Authorization", "value": "…"} (HAR), {"key": "x-api-key", "value": "…"}
// (Postman), {"Name": "DB_PASSWORD", "Value": "…"} (ECS, CloudFormation),
// {"ParameterKey": "DbPassword", "ParameterValue": "…"}.
var NameKeys = map[string]bool{
	"name": true, "key": true, "header": true, "param": true, "parameter": true,
	"parameterkey": true, "parametername": true, "optionname": true, "variable": true,
	"var": true, "field": true, "fieldname": true, "label": true, "id": true,
	"attribute": true, "attributename": true, "setting": true, "property": true,
	"propertyname": true, "envname": true, "k": true,
}

// ValueKeys are the keys of a name/value pair's value.
var ValueKeys = map[string]bool{
	"value": true, "values": true, "val": true, "v": true, "parametervalue": true,
	"currentvalue": true, "initialvalue": true, "defaultvalue": true, "default": true,
	"attributevalue": true, "settingvalue": true, "propertyvalue": true, "data": true,
	"src": true, "string": true, "stringvalue": true, "secretstring": true,
}

// isValueKey reports whether a normalized key holds a name/value pair's
// value: one of ValueKeys, or any key that ends in "value" — a validator's
// echo of what it was given (passed_value, rejectedValue, invalid_value,
// received_value) beside the parameter's name.
func isValueKey(k string) bool {
	return ValueKeys[k] || len(k) > 5 && strings.HasSuffix(k, "value")
}

// normKey lower-cases a key and drops its separators; letters of other
// scripts stay as written (الاسم, שם).
func normKey(k string) string {
	clean := true
	for i := 0; i < len(k) && clean; i++ {
		c := k[i]
		clean = c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	if clean {
		return k // most keys: no copy
	}
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(k); i++ {
		if c := k[i]; isAlnum(c) || c >= 0x80 {
			b = append(b, lowerASCII(c))
		}
	}
	return string(b)
}

// TurnKeys are the members that make an object a turn of a conversation
// ({"role": "user", "message": …}): its "message" is content, not an
// error's. A structured log record's "model" does not: its "message" is the
// log's.
var TurnKeys = map[string]bool{"role": true, "speaker": true, "sender": true}

// pairs judges the name/value pairs of an object's members, and the
// message of a conversation's turn.
func (p *lenient) pairs(members []objMember) {
	p.turn(members)
	var role keyRole
	found := false
	for _, m := range members {
		if m.kind == vString && NameKeys[normKey(m.key)] {
			if r := roleOf(m.text); r.kind != "" || r.text {
				role, found = r, true
				break
			}
		}
	}
	if !found {
		return
	}
	for _, m := range members {
		if !isValueKey(normKey(m.key)) || m.edited {
			continue
		}
		switch m.kind {
		case vString:
			p.applyString(m.start+1, m.end-1, p.s[m.start+1:m.end-1], m.quote, m.text != p.s[m.start+1:m.end-1], &role)
		case vContainer, vBare:
			raw := strings.TrimSpace(p.s[m.start:m.end])
			if isLiteral(raw) || raw == "" {
				continue
			}
			q := p.quote
			if q == 0 {
				q = '"'
			}
			r := role.kind.Marker()
			if role.kind == "" {
				r = Text(canonicalOrRaw(raw))
			}
			p.edits = append(p.edits, edit{m.start, m.start + len(raw), string(q) + r + string(q)})
		}
	}
}
