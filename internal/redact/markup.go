package redact

import (
	"net/url"
	"strings"
)

// Structure in text that is not JSON: XML and SOAP elements and attributes,
// and the content keys of YAML, logfmt, env files, query strings and form
// bodies. The key rules are those of KeyKind and IsTextKey.

// xmlElement finds the next leaf element <name …>text</name> at or after
// from whose local name (the part after a namespace prefix) has the role
// want asks for, or whose name/value attributes name one
// (<entry key="password">…</entry>). It returns the Find indices: the
// element, its name, its text.
func xmlElement(s string, from int, want func(keyRole) bool) []int {
	for c := range marks(s, from, "</") {
		ns := c + 2
		ne := ns
		for ne < len(s) && isXMLNameByte(s[ne]) {
			ne++
		}
		if ne == ns || ne >= len(s) || s[ne] != '>' {
			continue
		}
		name := s[ns:ne]
		// The opening tag is the last '<' before the text, which holds no
		// other element (CDATA aside).
		o := strings.LastIndexByte(s[from:c], '<')
		if o < 0 {
			continue
		}
		o += from
		if strings.HasPrefix(s[o:], "<![CDATA[") {
			o2 := strings.LastIndexByte(s[from:o], '<')
			if o2 < 0 {
				continue
			}
			o = o2 + from
		}
		if !strings.HasPrefix(s[o+1:], name) {
			continue
		}
		after := o + 1 + len(name)
		if after >= len(s) || !(s[after] == '>' || s[after] == ' ' || s[after] == '\t' || s[after] == '\n' || s[after] == '\r') {
			continue
		}
		gt := strings.IndexByte(s[after:c], '>')
		if gt < 0 || s[after+gt-1] == '/' {
			continue
		}
		ts, te := after+gt+1, c
		if ts >= te || strings.TrimSpace(s[ts:te]) == "" {
			continue
		}
		role := roleOf(localName(name))
		if htmlElements[strings.ToLower(name)] {
			role = keyRole{}
		} else if role == (keyRole{}) && promptTags[strings.ToLower(localName(name))] && isProse(s[ts:te]) {
			role.text = true
		}
		if role.text && role.kind == "" {
			// The text of the system's own element — SOAP 1.2's
			// <Reason><Text>, an <Error><Message> — is its message.
			if p := strings.ToLower(xmlParent(s, o)); OwnTextWords[p] || p == "fault" {
				role = keyRole{}
			}
		}
		if !want(role) {
			// <entry key="password">…</entry>: the name is an attribute.
			if r, ok := attrNameRole(s[after : after+gt]); !ok || !want(r) {
				continue
			}
		}
		// Trim the text's surrounding blanks so that the layout stays.
		for ts < te && isSpace(s[ts]) {
			ts++
		}
		for te > ts && isSpace(s[te-1]) {
			te--
		}
		if isMarker(s[ts:te]) || isTextMarker(s[ts:te]) {
			continue
		}
		return []int{o, ne + 1, o + 1, o + 1 + len(name), ts, te}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isXMLNameByte(c byte) bool { return isWord(c) || c == ':' || c == '-' || c == '.' }

// localName returns name without its namespace prefix: wsse:Password →
// Password.
func localName(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// attrNameRole reads the attributes of a tag and returns the role of the
// one a name/value pair names (key="password", name="ApiKey").
func attrNameRole(attrs string) (keyRole, bool) {
	for _, a := range xmlAttrs(attrs) {
		if NameKeys[normKey(a.name)] {
			if r := roleOf(a.value); r.kind != "" || r.text {
				return r, true
			}
		}
	}
	return keyRole{}, false
}

type xmlAttr struct {
	name, value string
	vs, ve      int // the value's bounds in the attribute text
}

// xmlAttrs parses name="value" and name='value' attributes.
func xmlAttrs(s string) []xmlAttr {
	var out []xmlAttr
	for i := 0; i < len(s); {
		for i < len(s) && !isXMLNameByte(s[i]) {
			i++
		}
		ns := i
		for i < len(s) && isXMLNameByte(s[i]) {
			i++
		}
		name := s[ns:i]
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			continue
		}
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '"' && s[i] != '\'' {
			continue
		}
		q := s[i]
		e := strings.IndexByte(s[i+1:], q)
		if e < 0 {
			return out
		}
		out = append(out, xmlAttr{name: name, value: s[i+1 : i+1+e], vs: i + 1, ve: i + 1 + e})
		i += e + 2
	}
	return out
}

func findXMLSecret(s string, from int) []int {
	return xmlElement(s, from, func(r keyRole) bool { return r.kind != "" })
}

func findXMLText(s string, from int) []int {
	return xmlElement(s, from, func(r keyRole) bool { return r.text })
}

// promptTags name the elements a prompt is written in (an agent's <task>,
// a prompt's <context>, <goal>, <examples>): prose in one is content, as
// a content key's value is. Their names are common words (a build's
// <goal>clean</goal>), so only prose counts.
var promptTags = map[string]bool{
	"task": true, "context": true, "goal": true, "objective": true, "instruction": true,
	"example": true, "examples": true, "background": true, "requirements": true,
	"constraints": true, "rules": true, "persona": true, "user_input": true, "user_query": true,
	"user_request": true, "thinking": true, "answer": true, "draft": true,
	"environment_details": true, "attempt_completion": true,
}

// htmlElements are the elements of an HTML page, which an error body often
// is: their text (a title, "Service Unavailable") is what the operator
// reads, not content someone sent.
var htmlElements = map[string]bool{"html": true, "body": true, "head": true, "title": true}

// checkXMLSecret gives the element's text the kind of its name, or of the
// name its attributes give.
func checkXMLSecret(m Match) (Kind, bool) {
	if k, ok := KeyKind(localName(m.Key)); ok {
		return k, true
	}
	return KindSecret, true
}

// findXMLAttrPair finds the value attribute of a tag whose name attribute
// names a credential: <add key="ApiKey" value="…"/>, <property
// name="password" value="…"/>.
func findXMLAttrPair(s string, from int) []int {
	for o := range byteMarks(s, from, '<') {
		e := strings.IndexByte(s[o:], '>')
		if e < 0 {
			return nil
		}
		tag := s[o : o+e]
		if strings.IndexByte(tag[1:], '<') >= 0 {
			continue
		}
		attrs := xmlAttrs(tag)
		found := false
		for _, a := range attrs {
			if NameKeys[normKey(a.name)] && roleOf(a.value).kind != "" {
				found = true
			}
		}
		if !found {
			continue
		}
		for _, a := range attrs {
			if isValueKey(normKey(a.name)) && a.value != "" && !isMarker(a.value) {
				return []int{o, o + e, -1, -1, o + a.vs, o + a.ve}
			}
		}
	}
	return nil
}

// findContentValue finds the value of a content key (IsTextKey; a payload
// key whose value is not JSON) written as YAML or an HTTP header line
// ("prompt: …" at the start of a line, with its block scalar or indented
// block), as logfmt or an env line (prompt="…", PROMPT=…), or as a query or
// form parameter (?prompt=…&). Quoted JSON keys are the structure
// layer's.
func findContentValue(s string, from int) []int {
	for i := from; i < len(s); {
		ks, ke, sep := nextKey(s, from, i)
		if sep < 0 {
			return nil
		}
		i = sep + 1
		// A dump's field may be spaced around '=': C#'s anonymous types and
		// records, `{ Role = user, Content = … }`.
		spaced := false
		if ks == ke && s[sep] == '=' && sep >= 2 && s[sep-1] == ' ' && sep+1 < len(s) && s[sep+1] == ' ' {
			ke = sep - 1
			ks = keyStart(s, from, ke)
			spaced = true
		}
		// A property list's line pads its name to align the colons:
		// PowerShell's Format-List, `content : …`.
		padded := false
		if ks == ke && s[sep] == ':' && sep >= 2 && s[sep-1] == ' ' && sep+1 < len(s) && s[sep+1] == ' ' {
			ke = sep - 1
			for ke > from && s[ke-1] == ' ' {
				ke--
			}
			ks = keyStart(s, from, ke)
			padded = ks < ke && (ks == 0 || s[ks-1] == '\n' || s[ks-1] == '\r')
			if !padded {
				continue
			}
		}
		if ks == ke || ke-ks > 64 {
			continue
		}
		before := byte('\n')
		if ks > 0 {
			before = s[ks-1]
		}
		// A dump's field may follow its name after ':' — Thrift's
		// `Type(prompt:…, model:…)`, Dart's `Type(role: user, content: …)`.
		dumpColon := s[sep] == ':' && (before == '(' || before == ' ' && ks >= 2 && s[ks-2] == ',' || before == ',') &&
			hasContentNeedle(s[ks:ke]) && inToString(s, ks)
		// Or a variable assigned a quoted string wherever it is printed —
		// a debugger's or a traceback's locals (`prompt = '…'`), a REPL.
		assignedQuote := spaced && sep+2 < len(s) && (s[sep+2] == '\'' || s[sep+2] == '"') &&
			(before == ' ' || before == '\t' || before == '\n' || ks == 0)
		if spaced && !assignedQuote && !(strings.IndexByte(" ,({", before) >= 0 && hasContentNeedle(s[ks:ke]) && inToString(s, ks)) {
			continue
		}
		// Where a key may stand, before what it is: cheap tests first.
		// A namespace before the key (genkit:input=, gen_ai:prompt=) is
		// no separator of its own.
		namespaced := before == ':' && ks > 1 && isKeyByte(s[ks-2]) ||
			// An indexed path's last key (messages[0].content='…').
			before == ']' && s[sep] == '=' && s[ks] == '.'
		if s[sep] == '=' && strings.IndexByte(" \t&?;,({\n\r", before) < 0 && !namespaced ||
			s[sep] == ':' && !dumpColon && !(before == '\n' || before == '\r' || before == ' ' || before == '\t' || before == '-' || ks == 0) ||
			!hasContentNeedle(s[ks:ke]) {
			continue
		}
		role := roleOf(s[ks:ke])
		nk := normKey(s[ks:ke])
		output := !role.text && role.payload && (nk == "output" || nk == "outputs")
		if !role.text && !(role.payload && (nk == "input" || nk == "inputs")) && !output {
			continue
		}
		lineStart := ks == 0 || lineIndentStart(s, ks)
		var vs, ve int
		switch {
		case padded:
			if !role.text {
				continue
			}
			vs, ve = sep+2, wrappedLine(s, ks, sep+2)
		case assignedQuote:
			if !role.text {
				continue
			}
			// One variable a line: the string ends at the line's last quote
			// of its kind, so quotes a repr left unescaped stay inside.
			vs, ve = quotedSpan(s, sep+2)
			if le := lineEnd(s, vs); ve < le {
				if k := strings.LastIndexByte(s[ve:le], s[sep+2]); k > 0 {
					ve += k
				}
			}
		case spaced:
			vs, ve = toStringValue(s, sep+2, " =")
			for ve > vs && s[ve-1] == ' ' {
				ve--
			}
		case dumpColon:
			vs, ve = toStringValue(s, skipBlanks(s, sep+1), ":")
		case s[sep] == '=' && strings.IndexByte(" ,({", before) >= 0 && inToString(s, ks):
			vs, ve = toStringValue(s, sep+1, "=")
		case s[sep] == '=' && role.text && sep+1 < len(s) && s[sep+1] == '[' && strings.IndexByte(" \t,({", before) >= 0 && bracketEnd(s, sep+1) > sep+2:
			// A content key's list written after '=' (a repr in a validation
			// error: input_value=[{'type': 'text', …}]) goes whole, as under
			// a JSON key.
			vs, ve = sep+1, bracketEnd(s, sep+1)
		case s[sep] == '=' && role.payload && !role.text && sep+1 < len(s) && s[sep+1] == '[':
			// An input list written after '=' (a repr, a log line): plain
			// strings are content, a list holding objects is walked.
			vs, ve = sep+1, bracketEnd(s, sep+1)
			if strings.IndexByte(s[vs:ve], '{') >= 0 || strings.IndexAny(s[vs:ve], "'\"") < 0 {
				continue
			}
		case s[sep] == '=' && before == ' ' && ks >= 2 && s[ks-2] == '|' && role.text && TextKeys[normKey(s[ks:ke])]:
			// A content key as a field of a log line whose fields " | "
			// separates: "| query=… | kb=hr": the text runs to the next
			// separator, spaces and braces within it.
			vs, ve = sep+1, lineEnd(s, sep+1)
			if k := strings.Index(s[vs:ve], " | "); k >= 0 {
				ve = vs + k
			}
		case s[sep] == '=' && (lineStart || namespaced || strings.IndexByte(" \t&?;,({", before) >= 0):
			vs, ve = assignedValue(s, sep+1, before == '&' || before == '?', lineStart)
		case s[sep] == ':' && lineStart && sep+1 < len(s) && (s[sep+1] == ' ' || s[sep+1] == '\t' || s[sep+1] == '\n' || s[sep+1] == '\r'):
			vs, ve = yamlValue(s, ks, sep+1)
			ve = lineContinuation(s, ks, vs, ve)
		case s[sep] == ':' && before == ' ' && sep+2 < len(s) && s[sep+1] == ' ' && (s[sep+2] == '\'' || s[sep+2] == '"') && role.text:
			// A label in prose with its quoted value, which may run over
			// lines: "Returned completion: '1. …'".
			vs, ve = quotedSpan(s, sep+2)
		case s[sep] == ':' && before == ' ' && ks >= 2 && s[ks-2] == '|' && sep+1 < len(s) && s[sep+1] == ' ' && role.text && TextKeys[normKey(s[ks:ke])] && proseTail(s, sep+2):
			// A content key as a field of a log line whose fields '|'
			// separates, with prose after it to the line's end: "| ERROR |
			// stderr | prompt: A chat between …".
			vs, ve = sep+2, lineEnd(s, sep+2)
		default:
			continue
		}
		if ve <= vs || startsWithMarker(s, vs) {
			continue
		}
		if output {
			ve = min(ve, lineEnd(s, vs)) // its line alone: "output: text" over a comment is a setting
		}
		v := s[vs:ve]
		if isLiteral(v) || isNumber(v) || measurement(s, vs) || output && !isFreeText(strings.Trim(v, "\"'")) {
			continue // a model's output is content when it is prose; a command's is the system's
		}
		if role.payload && !role.text && !role.args && (v[0] == '{' || v[0] == '[' && s[sep] != '=') {
			continue // JSON: the structure layer's
		}
		if role.args && v[0] == '{' && !strings.Contains(v, "\\\"") {
			continue // plain JSON: the structure layer's, which reads it as arguments
		}
		return []int{ks, ve, ks, ke, vs, ve}
	}
	return nil
}

// wrappedLine returns the end of a property's value that starts at s[vs]
// on the line that starts at s[ls]: its line, and the lines after it
// indented to the value's column (Format-List wraps a long value so).
func wrappedLine(s string, ls, vs int) int {
	ve := lineEnd(s, vs)
	col := vs - ls
	for ve < len(s) {
		n := ve + 1
		if s[ve] == '\r' && n < len(s) && s[n] == '\n' {
			n++
		}
		k := n
		for k < len(s) && k-n < col && s[k] == ' ' {
			k++
		}
		if k-n != col || k >= len(s) || s[k] == ' ' || s[k] == '\n' || s[k] == '\r' {
			break
		}
		ve = lineEnd(s, k)
	}
	return ve
}

// proseTail reports whether the rest of the line from s[i] is prose: five
// words or more, starting with a letter (not markup, a quote or a marker).
func proseTail(s string, i int) bool {
	t := s[i:lineEnd(s, i)]
	return i < len(s) && isLetter(s[i]) && strings.Count(strings.TrimSpace(t), " ") >= 4
}

// inToString reports whether the key at s[ks] is a field of a toString()
// dump — Lombok's Type(a=…, b=…), Kotlin's data classes, Java's
// Type{a=…, b=…} —: an unclosed '(' or '{' right after an identifier
// stands before it, within 512 bytes, with fields "name=" after it.
func inToString(s string, ks int) bool {
	depth := 0
	for k := ks - 1; k >= 0 && ks-k < 512; k-- {
		switch s[k] {
		case ')', '}', ']':
			depth++
		case '[':
			if depth > 0 {
				depth--
			}
		case '(', '{':
			if depth > 0 {
				depth--
				continue
			}
			return k > 0 && (isAlnum(s[k-1]) || s[k-1] == '_' || s[k-1] == ' ' && k > 1 && isAlnum(s[k-2]))
		case '\n':
			return false
		}
	}
	return false
}

// toStringValue returns the value of a toString() field that starts at v:
// a quoted string to its quote, a bracketed value to its bracket, or bare
// text — which may hold spaces, commas and brackets of its own — to the
// ", name=" of the next field (", name:", ", Name =" in dumps that write
// their fields so: sep) or the bracket that closes the dump, at the same
// depth.
func toStringValue(s string, v int, sep string) (int, int) {
	if v >= len(s) {
		return v, v
	}
	if q := s[v]; q == '\'' || q == '"' {
		return lineQuoted(s, v)
	}
	depth := 0
	for k := v; k < len(s) && k-v < maxDecodedBytes; k++ {
		switch c := s[k]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return v, k
			}
			if depth--; depth == 0 && s[v] == opener(c) {
				return v, k + 1 // a bracketed value: [Message(…), …]
			}
		case ',':
			if depth == 0 && nextField(s, k+1, sep) {
				return v, k
			}
		case '\n':
			return v, k
		}
	}
	return v, min(len(s), v+maxDecodedBytes)
}

// opener returns the bracket that the closing bracket c closes.
func opener(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// nextField reports whether s[i:] is " name" and sep ("=", ":" or " ="):
// the next field of a toString() dump.
func nextField(s string, i int, sep string) bool {
	i = skipBlanks(s, i)
	k := i
	for k < len(s) && (isAlnum(s[k]) || s[k] == '_') && k-i < 64 {
		k++
	}
	return k > i && strings.HasPrefix(s[k:], sep) && isLetter(s[i])
}

// lineIndentStart reports whether only indentation, or a list marker — a
// YAML dash, or the "->" of OpenTelemetry's debug exporter ("-> gen_ai.
// prompt.0.content: Str(…)") —, stands between the start of the line and
// s[i].
func lineIndentStart(s string, i int) bool {
	k := skipBlanksBack(s, 0, i)
	if k > 1 && s[k-1] == '>' && s[k-2] == '-' {
		k--
	}
	if k > 0 && s[k-1] == '-' {
		k--
		k = skipBlanksBack(s, 0, k)
	}
	if k > 0 && s[k-1] == '#' { // a commented-out line
		return false
	}
	if k >= 7 && s[k-7:k] == "export " {
		k -= 7
	}
	return k == 0 || s[k-1] == '\n' || s[k-1] == '\r'
}

// assignedValue returns the value after '=' at v: quoted (to the closing
// quote, escapes allowed), or bare — to '&' or '#' in a query, to the end
// of the line on a line of its own, to whitespace elsewhere.
func assignedValue(s string, v int, query, line bool) (int, int) {
	if v >= len(s) {
		return v, v
	}
	if q := s[v]; q == '"' || q == '\'' {
		return lineQuoted(s, v)
	}
	k := v
	for k < len(s) {
		c := s[k]
		if c == '\n' || c == '\r' || query && (c == '&' || c == '#' || c == ' ' || c == '"' || c == '\'') || !query && !line && (c == ' ' || c == '\t' || c == '"') {
			break
		}
		k++
	}
	return v, k
}

// yamlValue returns the value of the YAML key that starts at ks, its ':'
// just before v: the rest of the line, or — when that is empty or a block
// indicator (| > with chomping) — the lines indented deeper than the key
// (or list items at its indentation).
func yamlValue(s string, ks, v int) (int, int) {
	k := skipBlanks(s, v)
	eol := lineEnd(s, k)
	rest := strings.TrimSpace(s[k:eol])
	if rest != "" && strings.Trim(rest, "|>-+0123456789") != "" {
		if q := rest[0]; (q == '"' || q == '\'') && len(rest) > 1 && rest[len(rest)-1] == q {
			return k + 1, k + len(rest) - 1
		}
		return k, k + len(rest)
	}
	indent := ks - lineStartOf(s, ks)
	end := eol
	for p := eol; p < len(s); {
		for p < len(s) && (s[p] == '\n' || s[p] == '\r') {
			p++
		}
		ls := p
		p = skipBlanks(s, p)
		le := lineEnd(s, p)
		if ls >= len(s) || le == p {
			break
		}
		if d := p - ls; d <= indent && !(d == indent && s[p] == '-' && p+1 < len(s) && s[p+1] == ' ') {
			break
		}
		end, p = le, le
	}
	if end == eol {
		if strings.Trim(rest, "|>-+0123456789") == "" {
			return k, k // a block indicator with no block
		}
		return k, k + len(rest)
	}
	// The block, from the line after the key.
	start := eol
	for start < end && (s[start] == '\n' || s[start] == '\r') {
		start++
	}
	return start, end
}

// lineStartOf returns where the line holding s[i] starts, looking back at
// most 256 bytes (a label or an indentation is no longer).
func lineStartOf(s string, i int) int {
	lo := max(0, i-256)
	return lo + strings.LastIndexAny(s[lo:i], "\n\r") + 1
}

// LabelWords are words that, in a line of prose ending with ':', say the
// lines after it are content: "Prompt after formatting:", "System
// prompt:", "User messages:".
var LabelWords = map[string]bool{
	"prompt": true, "prompts": true, "messages": true, "completion": true,
	"instructions": true, "transcript": true, "conversation": true, "template": true,
}

// findLabelBlock finds a line that is only a label of at most six words,
// one of them in LabelWords or all of them one of TextKeys ("System
// Instruction", "Contents"), and a ':', and returns the lines after
// it up to the next blank line.
func findLabelBlock(s string, from int) []int {
	for c := range byteMarks(s, from, ':') {
		eol := skipBlanks(s, c+1)
		if eol < len(s) && s[eol] != '\n' && s[eol] != '\r' {
			continue
		}
		ls := lineStartOf(s, c)
		label := strings.TrimSpace(s[ls:c])
		words := strings.Fields(label)
		if len(words) == 0 || len(words) > 6 {
			continue
		}
		found := false
		for _, w := range words {
			if !isPlainWord(w) {
				found = false
				break
			}
			found = found || LabelWords[strings.ToLower(w)]
		}
		if !found && !TextKeys[strings.ToLower(strings.Join(words, ""))] {
			continue // "System Instruction:" is a content key written as words
		}
		start := eol
		for start < len(s) && (s[start] == '\n' || s[start] == '\r') {
			start++
		}
		if start >= len(s) || startsWithMarker(s, start) || s[start] == '-' {
			continue // redacted already, or a list under a YAML key: the content rule's
		}
		if s[start] == ' ' || s[start] == '\t' {
			// An indented block under a label of words ("Prompt after
			// formatting:", a chain's verbose log) is the label's, blank
			// lines within it too, up to the next line that is not
			// indented; under a one-word YAML key, the content rule's.
			if len(words) < 2 {
				continue
			}
			if ie := indentedBlockEnd(s, start); ie > start && !startsWithMarker(s, skipBlanks(s, start)) {
				return []int{ls, ie, ls, c, start, ie}
			}
			continue
		}
		end := start
		for end < len(s) {
			e := strings.IndexByte(s[end:], '\n')
			if e < 0 {
				end = len(s)
				break
			}
			l := strings.TrimSpace(s[end : end+e])
			if end > start && (strings.HasPrefix(l, "---") || strings.HasPrefix(l, "===")) {
				break // a rule between sections
			}
			if l == "" && !paragraphFollows(s, end+e+1) {
				break // a blank line before a log record or the end
			}
			end += e + 1
		}
		if end == len(s) {
			if l := strings.TrimSpace(s[lineStartOf(s, max(start, end-1)):end]); end > start && lineStartOf(s, end-1) > start && (strings.HasPrefix(l, "---") || strings.HasPrefix(l, "===")) {
				end = lineStartOf(s, end-1)
			}
		}
		for end > start && (s[end-1] == '\n' || s[end-1] == '\r') {
			end--
		}
		v := s[start:end]
		if end <= start || isTextMarker(v) || isMarker(v) {
			continue
		}
		return []int{ls, end, ls, c, start, end}
	}
	return nil
}

// indentedBlockEnd returns the end of the block of indented lines that
// starts at s[i] — blank lines within it included, trailing ones not — up
// to the first line that is not indented.
func indentedBlockEnd(s string, i int) int {
	end := i
	for k := i; k < len(s) && k-i < maxDecodedBytes; {
		e := lineEnd(s, k)
		l := s[k:e]
		if strings.TrimSpace(l) != "" {
			if l[0] != ' ' && l[0] != '\t' {
				break
			}
			end = e
		}
		k = e + 1
	}
	return trimLineEnd(s, i, end)
}

// paragraphFollows reports whether the next line from s[i] that is not
// blank is another paragraph of the same content — prose, not the start
// of a log record or a chain's marker ("> Finished chain.", a timestamp,
// a bracket, a level word, a rule, a traceback): a rendered prompt's
// paragraphs are separated by blank lines ("Use the following pieces of
// context…", the context, "Question: …").
func paragraphFollows(s string, i int) bool {
	for i < len(s) && (s[i] == '\n' || s[i] == '\r' || s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) {
		return false
	}
	switch c := s[i]; {
	case c == '>' || c == '[' || c == '{' || c == '#' || c == '-' || c == '=' || c == '*' || c == '|' || isDigit(c):
		return false
	case !isLetter(c) && c < 0x80:
		return false
	}
	first := s[i:lineEnd(s, i)]
	if j := strings.IndexAny(first, " :"); j >= 0 {
		first = first[:j]
	}
	switch strings.ToUpper(first) {
	case "INFO", "DEBUG", "WARN", "WARNING", "ERROR", "TRACE", "FATAL", "CRITICAL", "TRACEBACK", "PANIC":
		return false
	}
	return true
}

func isPlainWord(w string) bool {
	for k := 0; k < len(w); k++ {
		if !isLetter(w[k]) {
			return false
		}
	}
	return w != ""
}

// lineQuoted returns the content of the string quoted at s[q] within its
// line: to its closing quote (escapes allowed) or, when none stands on the
// line, to the line's end.
func lineQuoted(s string, q int) (int, int) {
	k := q + 1
	for k < len(s) && s[k] != s[q] && s[k] != '\n' {
		if s[k] == '\\' {
			k++
		}
		k++
	}
	return q + 1, min(k, len(s))
}

// quotedSpan returns the content of the string quoted at s[q], to its
// closing quote (over lines, escapes allowed, at most maxDecodedBytes) or
// the end of the line when there is none.
func quotedSpan(s string, q int) (int, int) {
	c := s[q]
	k := q + 1
	for k < len(s) && s[k] != c && k-q < maxDecodedBytes {
		if s[k] == '\\' {
			k++
		}
		k++
	}
	if k < len(s) && s[k] == c {
		return q + 1, k
	}
	e := strings.IndexByte(s[q:], '\n')
	if e < 0 {
		return q + 1, len(s)
	}
	return q + 1, q + e
}

// startsWithMarker reports whether a marker of String or of Text starts
// at s[i]: a value redacted already, whatever delimits it.
func startsWithMarker(s string, i int) bool {
	if skipMarker(s, i) != i {
		return true
	}
	if !strings.HasPrefix(s[i:], "[text ") {
		return false
	}
	j := strings.IndexByte(s[i:], ']')
	return j > 0 && isTextMarker(s[i:i+j+1])
}

// hasContentNeedle reports whether key holds one of contentNeedles,
// ignoring case: a cheap test before roleOf splits it into words.
func hasContentNeedle(key string) bool {
	for i := 0; i+1 < len(key); i++ {
		for _, n := range contentNeedleIndex.at(lowerASCII(key[i]), lowerASCII(key[i+1])) {
			if hasPrefixFold(key[i:], n) {
				return true
			}
		}
	}
	return false
}

var contentNeedleIndex = newPairIndex(contentNeedles)

// ProseContentWords are the words that, in the few words before a ':' on a
// line, say the quoted text or the list after it is content: "Chat history
// with David Wong is: ['…']", "Returned completion: '…'", "Final prompt:
// \"…\"".
var ProseContentWords = map[string]bool{
	"prompt": true, "prompts": true, "messages": true, "completion": true, "completions": true,
	"instructions": true, "transcript": true, "conversation": true, "history": true,
	"question": true, "query": true,
}

// findProseContent finds a quoted string or a list after ': ' whose label —
// at most six words before the ':' on its line — holds one of
// ProseContentWords, and returns the value (a string over lines to its
// closing quote; a list to its closing bracket).
func findProseContent(s string, from int) []int {
	for c := range marks(s, from, ": ") {
		v := c + 2
		if v >= len(s) || s[v] != '\'' && s[v] != '"' && s[v] != '[' {
			continue
		}
		// The label is prose: the words after the last delimiter of code or
		// structure on the line, so a value of a dict ("…the messages.",
		// 'type': …) is no label.
		ls := max(lineStartOf(s, c), c-80)
		if d := strings.LastIndexAny(s[ls:c], "'\"{}[](),;=|:<>`"); d >= 0 {
			ls += d + 1
		}
		words := strings.FieldsFunc(s[ls:c], func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
		if len(words) > 6 {
			words = words[len(words)-6:]
		}
		found := false
		for _, w := range words {
			found = found || ProseContentWords[strings.ToLower(w)]
		}
		if !found || startsWithMarker(s, v) {
			continue
		}
		var vs, ve int
		if s[v] == '[' {
			vs, ve = v, bracketEnd(s, v)
		} else {
			vs, ve = quotedSpan(s, v)
		}
		if ve <= vs {
			continue
		}
		return []int{ls, ve, -1, -1, vs, ve}
	}
	return nil
}

// bracketEnd returns the end of the list opened at s[i] (past its closing
// bracket, quotes respected), or the end of the line when it does not close
// within maxDecodedBytes.
func bracketEnd(s string, i int) int {
	depth := 0
	var q byte
	for k := i; k < len(s) && k-i < maxDecodedBytes; k++ {
		c := s[k]
		switch {
		case q != 0:
			if c == '\\' {
				k++
			} else if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '[':
			depth++
		case c == ']':
			if depth--; depth == 0 {
				return k + 1
			}
		}
	}
	if e := strings.IndexByte(s[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(s)
}

// ProseResultWords end a label of a tool's or a model's output ("Function
// result:", "LLM response:", "Tool output:") when one of AgentWords stands
// before them in the label: alone ("Result: OK") they are the system's.
var ProseResultWords = map[string]bool{
	"result": true, "results": true, "output": true, "response": true, "answer": true,
	"arguments": true, "args": true, "reply": true,
}

// AgentWords are the words that make a result in a label a model's or a
// tool's.
var AgentWords = map[string]bool{
	"function": true, "tool": true, "llm": true, "model": true, "agent": true,
	"chain": true, "assistant": true, "chat": true, "generated": true,
}

// findLabelLine finds content after a heading-like label in a log line —
// one to four words after the line's start or its logger prefix, the first
// capitalized, none a function word (a heading, not a sentence), the last one of ProseContentWords or "context" ("Rendered
// prompt: You are…", "Condensed question: Does…", "Context: …") or one of
// ProseResultWords after one of AgentWords ("Function result: …") — and
// returns the text after it: the rest of the line and the lines after it
// up to the next line that starts a log record (logRecordStart), so that a
// rendered prompt over several lines goes whole. A quoted value or a list
// is findProseContent's; a label alone on its line, findLabelBlock's.
func findLabelLine(s string, from int) []int {
	for c := range marks(s, from, ": ") {
		vs := skipBlanks(s, c+2)
		if vs >= len(s) || strings.IndexByte("'\"[{\n\r", s[vs]) >= 0 || startsWithMarker(s, vs) {
			continue
		}
		w := c
		for w > 0 && c-w < 16 && isLetter(s[w-1]) {
			w--
		}
		if lw := strings.ToLower(s[w:c]); !ProseContentWords[lw] && lw != "context" && lw != "input" && lw != "inputs" && !ProseResultWords[lw] && !SpokenWords[lw] {
			continue // cheap way out: no content word before the ':'
		}
		ls := lineStartOf(s, c)
		ln := ls
		if d := strings.LastIndexAny(s[ls:c], "'\"{}[](),;=|:<>`"); d >= 0 {
			ln += d + 1
		}
		// The label is the plain words that end the region: a timestamp
		// or a level before them is the log's prefix.
		for k := c; k > ln; k-- {
			if s[k-1] == ' ' || s[k-1] == '\t' {
				if w := strings.TrimSpace(s[ln:k]); w != "" && !isPlainWord(w[strings.LastIndexAny(w, " \t")+1:]) {
					ln = k
					break
				}
			}
		}
		ln = skipBlanks(s, ln)
		if ln >= c || !(isUpper(s[ln]) && labelIsContent(s[ln:c]) || spokenLabel(s[ln:c])) || measurement(s, vs) || dumpAt(s, vs) {
			continue
		}
		ve := lineEnd(s, vs)
		for ve < len(s) && ve-vs < maxDecodedBytes {
			next := ve
			for next < len(s) && (s[next] == '\n' || s[next] == '\r') {
				next++
			}
			if next >= len(s) || logRecordStart(s, next) {
				break
			}
			ve = lineEnd(s, next)
		}
		ve = skipBlanksBack(s, vs, ve)
		if ve <= vs {
			continue
		}
		return []int{ln, ve, -1, -1, vs, ve}
	}
	return nil
}

// dumpAt reports whether a toString() dump with named fields starts at
// s[v] — `ChatCompletionMessage(content=None, role='assistant', …)` —
// with a content key's field among them on the line, whose fields the dump
// rules judge one by one: the ids and names in it stay, its content goes.
func dumpAt(s string, v int) bool {
	k := v
	for k < len(s) && k-v < 64 && (isAlnum(s[k]) || s[k] == '_' || s[k] == '.') {
		k++
	}
	if k == v || !isUpper(s[v]) || k >= len(s) || s[k] != '(' || !nextField(s, k+1, "=") {
		return false
	}
	// The dump names where its content is: a content key's field.
	le := lineEnd(s, k)
	for i := k + 1; i < le; i++ {
		if s[i] != '=' {
			continue
		}
		ks := i
		for ks > k && (isAlnum(s[ks-1]) || s[ks-1] == '_') {
			ks--
		}
		if ks < i && (s[ks-1] == '(' || s[ks-1] == ' ' || s[ks-1] == ',') && roleOf(s[ks:i]).text {
			return true
		}
	}
	return false
}

// MeasureUnits are the units of a count a label of content may be
// followed by: a run's statistics ("Prompt: 31 tokens, 148.2
// tokens-per-sec"), not its text.
var MeasureUnits = map[string]bool{
	"tokens": true, "token": true, "toks": true, "bytes": true, "chars": true,
	"characters": true, "words": true, "lines": true, "messages": true, "turns": true,
	"ms": true, "s": true, "kb": true, "kib": true, "mb": true, "mib": true,
}

// measurement reports whether the text at s[v] starts with a number and a
// unit of count (MeasureUnits).
func measurement(s string, v int) bool {
	k := v
	for k < len(s) && (isDigit(s[k]) || s[k] == '.' || s[k] == ',') {
		k++
	}
	if k == v || k >= len(s) || s[k] != ' ' {
		return false
	}
	u := k + 1
	e := u
	for e < len(s) && isLetter(s[e]) {
		e++
	}
	return e > u && MeasureUnits[strings.ToLower(s[u:e])]
}

// labelIsContent reports whether a label of one to four plain words names
// content (see findLabelLine).
func labelIsContent(label string) bool {
	words := strings.Fields(label)
	if withContent(words) {
		return true
	}
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		if !isPlainWord(w) || functionWords[strings.ToLower(w)] {
			return false // a sentence ("Unable to process messages:"), not a heading
		}
	}
	last := strings.ToLower(words[len(words)-1])
	if ProseContentWords[last] || last == "context" {
		return true
	}
	if ProseResultWords[last] {
		for _, w := range words[:len(words)-1] {
			if AgentWords[strings.ToLower(w)] {
				return true
			}
		}
	}
	return false
}

// SpokenWords end a label of what someone sent a model, written in lower
// case within a log line ("attack prompt: …", "last user message: …",
// "user request: …"), when the label says who spoke (SpeakerWords) or
// names a prompt.
var SpokenWords = map[string]bool{
	"prompt": true, "message": true, "request": true, "query": true, "question": true,
}

// SpeakerWords say who sent a message or a request to a model.
var SpeakerWords = map[string]bool{
	"user": true, "human": true, "customer": true, "client": true, "attack": true,
	"adversarial": true, "jailbreak": true, "rendered": true, "formatted": true,
}

// spokenLabel reports whether a label of two to four plain words, none a
// failure's or a function word, ends in one of SpokenWords and is a prompt
// or holds one of SpeakerWords: "attack prompt", "last user message" —
// not "error message" nor "status message".
func spokenLabel(label string) bool {
	words := strings.Fields(label)
	if len(words) < 2 || len(words) > 4 {
		return false
	}
	last := strings.ToLower(words[len(words)-1])
	if !SpokenWords[last] {
		return false
	}
	speaker := last == "prompt"
	for _, w := range words {
		lw := strings.ToLower(w)
		if !isPlainWord(w) || failureWords[lw] || functionWords[lw] {
			return false
		}
		speaker = speaker || SpeakerWords[lw]
	}
	return speaker
}

// withContent reports whether a label of up to six plain words ends in
// "with" and a content word — a step that names what it sends ("Entering
// LLM with prompt:", "Running chain with input:") — and says nothing
// failed ("failed with messages: expected an array" is the system's).
func withContent(words []string) bool {
	n := len(words)
	if n < 3 || n > 6 || !strings.EqualFold(words[n-2], "with") {
		return false
	}
	if last := strings.ToLower(words[n-1]); !ProseContentWords[last] && last != "input" && last != "inputs" {
		return false
	}
	for _, w := range words {
		if !isPlainWord(w) || failureWords[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// failureWords in a label say it reports the system's own failure.
var failureWords = map[string]bool{
	"unable": true, "cannot": true, "failed": true, "invalid": true, "not": true, "no": true,
	"error": true, "errored": true, "rejected": true, "missing": true,
}

// functionWords make a label a sentence rather than a heading.
var functionWords = map[string]bool{
	"to": true, "of": true, "for": true, "the": true, "a": true, "an": true,
	"with": true, "in": true, "on": true, "from": true, "at": true, "by": true,
	"is": true, "was": true, "not": true, "no": true, "and": true, "or": true,
	"unable": true, "cannot": true, "failed": true, "invalid": true,
}

// lineEnd returns the end of the line holding s[i].
func lineEnd(s string, i int) int {
	if e := strings.IndexAny(s[i:], "\n\r"); e >= 0 {
		return i + e
	}
	return len(s)
}

// findInLines returns what in finds in the first line, from s[from] on,
// where it finds anything: in looks at the line s[ls:le] alone.
func findInLines(s string, from int, in func(s string, ls, le int) []int) []int {
	for ls := from; ls < len(s); {
		le := lineEnd(s, ls)
		if loc := in(s, ls, le); loc != nil {
			return loc
		}
		ls = le + 1
	}
	return nil
}

// logRecordStart reports whether the line at s[i] starts a new log record:
// a timestamp or a bracket, a level word (INFO, DEBUG, WARN, ERROR, …, and
// .NET's info, dbug, trce, warn, fail, crit) followed by ':', ' ' or ']',
// a "> " quote, or a traceback.
func logRecordStart(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	switch c := s[i]; {
	case isDigit(c), c == '[', c == '>':
		return true
	}
	e := i
	for e < len(s) && isLetter(s[e]) && e-i < 10 {
		e++
	}
	if e == i || e >= len(s) || s[e] != ':' && s[e] != ' ' && s[e] != ']' {
		return false
	}
	switch strings.ToLower(s[i:e]) {
	case "info", "debug", "warn", "warning", "error", "trace", "fatal", "critical",
		"notice", "dbug", "trce", "fail", "crit", "traceback":
		return true
	}
	return false
}

// findRetrievalHit finds the passage of a retrieval hit printed as a line:
// bracketed metadata at the line's start (after "> " or "- "), one group
// holding a relevance score ("[Node 3c1d…] [Similarity score: 0.87]
// Flat 9 at…", "[doc-7] [score=0.81] …"), then the passage, which is
// content. The metadata stays.
func findRetrievalHit(s string, from int) []int {
	for i := from; i < len(s); {
		ls := i
		le := lineEnd(s, i)
		i = le + 1
		k := skipBlanks(s, ls)
		if k+1 < len(s) && (s[k] == '>' || s[k] == '-') && s[k+1] == ' ' {
			k = skipBlanks(s, k+2)
		}
		scored := false
		for k < le && s[k] == '[' {
			e := strings.IndexByte(s[k:le], ']')
			if e < 0 {
				break
			}
			if g := strings.ToLower(s[k : k+e]); strings.Contains(g, "score") || strings.Contains(g, "similarity") || strings.Contains(g, "relevance") || strings.Contains(g, "distance") {
				scored = true
			}
			k = skipBlanks(s, k+e+1)
		}
		if !scored || k >= le || startsWithMarker(s, k) {
			continue
		}
		ve := skipBlanksBack(s, k, le)
		return []int{k, ve, -1, -1, k, ve}
	}
	return nil
}

// findProseValue finds free text under a key that says nothing of it
// (proseKey) written as logfmt or an env line with a quoted value
// (notes="Customer says …") or as a YAML line whose key is lower case
// (context: Tenant may not …, user_feedback: "…"): deny by default, as
// the structure layer does for objects. A capitalized word before a colon
// is a label in prose ("Reason: …"), which findContentValue and the
// heading rules judge.
func findProseValue(s string, from int) []int {
	return earlier(proseAssigned(s, from), proseYAML(s, from))
}

// proseAssigned finds the first key="free text" (or '…') from s[from].
func proseAssigned(s string, from int) []int {
	for i := from; i < len(s); {
		k := strings.Index(s[i:], "=\"")
		if k2 := strings.Index(s[i:], "='"); k2 >= 0 && (k < 0 || k2 < k) {
			k = k2
		}
		if k < 0 {
			return nil
		}
		sep := i + k
		i = sep + 2
		ks := keyStart(s, from, sep)
		if ks == sep || sep-ks > 64 || ks > 0 && strings.IndexByte(" \t,;({\n\r", s[ks-1]) < 0 {
			continue
		}
		vs, ve := assignedValue(s, sep+1, false, false)
		if ve >= len(s) || s[ve] != s[sep+1] {
			continue // not closed on its line
		}
		if r := proseSpan(s, ks, sep, vs, ve); r != nil {
			return r
		}
	}
	return nil
}

// proseYAML finds the first line "key: free text" from s[from] whose key
// is lower case: quoted, or unquoted beside a content key's line.
func proseYAML(s string, from int) []int {
	for sep := range marks(s, from, ": ") {
		ks := keyStart(s, from, sep)
		if ks == sep || !isLower(s[ks]) || !lineIndentStart(s, ks) || !proseKey(s[ks:sep]) {
			continue
		}
		vs, ve := sep+2, lineEnd(s, sep+2)
		quoted := ve-vs > 1 && (s[vs] == '"' || s[vs] == '\'') && s[ve-1] == s[vs] && strings.IndexByte(s[vs+1:ve-1], s[vs]) < 0
		if quoted {
			vs, ve = vs+1, ve-1
		}
		// An unquoted line is content only in a record that holds
		// content: "send: b'GET …'", "curl: (52) Empty reply from server"
		// and "llm_load_tensors: offloaded …" are a program's messages.
		if r := proseSpan(s, ks, sep, vs, ve); r != nil && (quoted || besideContent(s, ks, sep)) {
			return r
		}
	}
	return nil
}

// proseSpan is the match of free text s[vs:ve] under the key s[ks:ke],
// or nil when the key or the text is not the prose rule's.
func proseSpan(s string, ks, ke, vs, ve int) []int {
	if ve-vs < 20 || ke-ks > 64 || startsWithMarker(s, vs) || !proseKey(s[ks:ke]) || !isFreeText(s[vs:ve]) {
		return nil
	}
	if r := roleOf(s[ks:ke]); r.kind != "" || r.text || r.payload || r.args || isIDLabel(s[ks:ke]) {
		return nil // another rule's
	}
	return []int{ks, ve, ks, ke, vs, ve}
}

// besideContent reports whether the "key: value" line whose key is s[ks:ke]
// has a neighbour — the line before or after it, at the same indent — whose
// key is a content key (question: …, then context: …): a record of a
// prompt's parts.
func besideContent(s string, ks, ke int) bool {
	ls := strings.LastIndexByte(s[:ks], '\n') + 1
	indent := s[ls:ks]
	content := func(line string) bool {
		rest, ok := strings.CutPrefix(line, indent)
		if !ok || rest == "" || !isLower(rest[0]) {
			return false
		}
		k := 0
		for k < len(rest) && isKeyByte(rest[k]) {
			k++
		}
		return k < len(rest) && rest[k] == ':' && roleOf(rest[:k]).text
	}
	if ls > 0 {
		ps := strings.LastIndexByte(s[:ls-1], '\n') + 1
		if content(strings.TrimRight(s[ps:ls-1], "\r")) {
			return true
		}
	}
	if le := lineEnd(s, ke); le < len(s) {
		ns := le + 1
		if content(s[ns:lineEnd(s, ns)]) {
			return true
		}
	}
	return false
}

// findProseForm finds free text written form-encoded (spaces as '+' or
// %20) as the value of a pair of a form body or a query string — an SMS
// webhook's Body=Hi+this+is+…, a feedback form's comment=… — under a key
// that says nothing of it (proseKey) or a body's (PayloadKeys: not JSON
// when encoded so): decoded, it is content as the same text under the
// same key in JSON is. A pair counts when '&' stands before or after it.
func findProseForm(s string, from int) []int {
	for amp := range byteMarks(s, from, '&') {
		// The pair after '&', and the pair before it when it is a form's
		// first (its key after '?', '=', a space or the line's start).
		if r := proseFormPair(s, amp+1); r != nil {
			return r
		}
		ve := amp
		vs := ve
		for vs > from && s[vs-1] != '=' && formValueByte(s[vs-1]) {
			vs--
		}
		if vs > from && s[vs-1] == '=' && (vs-1 <= from || s[vs-2] != '=') {
			ks := keyStart(s, from, vs-1)
			if ks < vs-1 && (ks == from || strings.IndexByte("?= \t\n\r&", s[ks-1]) >= 0) {
				if r := proseFormSpan(s, ks, vs-1, vs, ve); r != nil {
					return r
				}
			}
		}
	}
	return nil
}

// proseFormPair judges the pair key=value starting at s[ks].
func proseFormPair(s string, ks int) []int {
	ke := ks
	for ke < len(s) && isKeyByte(s[ke]) {
		ke++
	}
	if ke == ks || ke >= len(s) || s[ke] != '=' {
		return nil
	}
	ve := ke + 1
	for ve < len(s) && formValueByte(s[ve]) {
		ve++
	}
	return proseFormSpan(s, ks, ke, ke+1, ve)
}

// formValueByte reports whether c may stand inside a form-encoded value:
// no space, quote, '&' or line break.
func formValueByte(c byte) bool {
	return c > ' ' && c != '&' && c != '"' && c != '\'' && c != '<' && c != '>'
}

// proseFormSpan is the match of the form-encoded value s[vs:ve] under the
// key s[ks:ke] when, decoded, it is free text under a key the prose rule or
// a body's holds.
func proseFormSpan(s string, ks, ke, vs, ve int) []int {
	if ve-vs < 20 || ke-ks > 64 || startsWithMarker(s, vs) {
		return nil
	}
	v := s[vs:ve]
	if strings.Count(v, "+")+strings.Count(v, "%20") < 3 {
		return nil
	}
	d := strings.ReplaceAll(v, "+", " ")
	if u, err := url.PathUnescape(d); err == nil {
		d = u
	}
	if !isFreeText(d) {
		return nil
	}
	key := s[ks:ke]
	r := roleOf(key)
	switch {
	case r.text || r.payload:
	case r.kind != "" || r.args || isIDLabel(key) || !proseKey(key):
		return nil // another rule's, or the system's own text
	}
	return []int{ks, ve, ks, ke, vs, ve}
}

// findLabelledField finds the value of a CEF extension's custom field
// (cs1…cs6, cn1…, flexString1, …) whose label — csNLabel=<label> on the
// same line — names content or a credential by the key rules: the field
// is what its label says (cs2Label=userPrompt cs2=…). The value runs to
// the next " key=" of the extension or the line's end, as CEF writes it.
func findLabelledField(s string, from int) []int {
	for k := range marks(s, from, "Label=") {
		i := k + len("Label=")
		ns := keyStart(s, 0, k)
		if ns == k || ns > 0 && s[ns-1] != ' ' && s[ns-1] != '|' {
			continue
		}
		field := s[ns:k] // cs2
		le := i
		for le < len(s) && s[le] != ' ' && s[le] != '\n' {
			le++
		}
		label := s[i:le]
		if r := roleOf(label); !r.text && r.kind == "" {
			continue
		}
		// The field itself, on the same line: " cs2=".
		line := lineEnd(s, i)
		needle := " " + field + "="
		f := strings.Index(s[lineStartOf(s, k):line], needle)
		if f < 0 {
			continue
		}
		vs := lineStartOf(s, k) + f + len(needle)
		ve := vs
		for ve < line {
			if s[ve] == ' ' && cefKeyAt(s, ve+1, line) {
				break
			}
			ve++
		}
		if ve > vs && !startsWithMarker(s, vs) {
			return []int{vs, ve, -1, -1, vs, ve}
		}
	}
	return nil
}

// cefKeyAt reports whether a CEF extension's key and its '=' start at
// s[i] (before end).
func cefKeyAt(s string, i, end int) bool {
	j := i
	for j < end && isKeyByte(s[j]) {
		j++
	}
	return j > i && j < end && s[j] == '='
}
