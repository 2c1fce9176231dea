package redact

import (
	"bytes"
	"encoding/json"
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A job queue's record of a failed job — Celery's args and kwargs, Sidekiq's
// and Resque's "args", RQ's, Dramatiq's and BullMQ's, a Temporal
// activity's — holds the arguments the job was called with, which are the
// item's payload: a prompt, a customer's message, a document. An argument
// is content when it is free text (isProse) and stays when it looks like
// an identifier, a number, an enum or a region, so the operator keeps the
// ids that say which item failed. A member of a keyword-argument object is
// judged by its own key first (a secret key, a content key), then by its
// shape.

// JobArgKeys are the keys of a job's arguments (compared without case and
// separators). "arguments" (Active Job, a tool call) is a content key
// whole.
var JobArgKeys = map[string]bool{
	"args": true, "kwargs": true, "argsrepr": true, "kwargsrepr": true,
	"jobargs": true, "jobkwargs": true, "taskargs": true, "taskkwargs": true,
	// a flow's, a chain's or a prompt template's input: free text in it is
	// the user's, whatever its own key says ({"input": {"theme": "…"}})
	"input": true, "inputs": true, "variables": true, "inputvariables": true, "templatevariables": true,
}

// isProse reports whether an argument is free text: four words or more,
// three of them with two letters or more, 20 bytes or more ("Help me write
// an appeal to my landlord…"; not "eu-west-1", "2026-03-14 10:42:55" nor
// "FULL").
func isProse(s string) bool {
	if len(s) < 20 || isTextMarker(s) || isMarker(s) {
		return false
	}
	if t := strings.TrimSpace(s); t[0] == '{' || t[0] == '[' {
		return false // a document: the structure layer walks it
	}
	words, wordy := 0, 0
	for f := range spaceFields(s) {
		words++
		letters := 0
		for i := 0; i < len(f) && letters < 2; i++ {
			if isLetter(f[i]) {
				letters++
			}
		}
		if letters >= 2 {
			wordy++
		}
	}
	return words >= 4 && wordy >= 3
}

// spaceFields yields the runs of s between spaces, tabs and line breaks
// (isSpace).
func spaceFields(s string) iter.Seq[string] {
	return strings.FieldsFuncSeq(s, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
}

// isFreeText reports whether s is free text that somebody wrote rather
// than a value the system printed: prose (isProse) whose words are mostly
// words — four or more of letters alone (an apostrophe, a hyphen or a
// closing punctuation mark allowed), at least half of its fields — so a
// DSN ("host=db port=5432 …"), a struct, a status line ("HTTP/1.1 429 Too
// Many Requests") or a date is none. The prose rule's test (proseKey).
func isFreeText(s string) bool {
	if !isProse(s) || strings.IndexByte(s, '{') >= 0 {
		return false
	}
	fields, words := 0, 0
	for f := range spaceFields(s) {
		fields++
		if wordField(f) {
			words++
		}
	}
	return words >= 4 && 2*words >= fields
}

// wordField reports whether a field of text is a word: two letters or
// more and nothing else but an apostrophe or a hyphen inside, and quotes,
// brackets or punctuation around it.
func wordField(f string) bool {
	for f != "" && strings.IndexByte(".,;:!?)\"'", f[len(f)-1]) >= 0 {
		f = f[:len(f)-1]
	}
	for f != "" && strings.IndexByte("(\"'", f[0]) >= 0 {
		f = f[1:]
	}
	letters := 0
	for _, r := range f {
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == '\'' || r == '-' || r == '’':
		default:
			return false
		}
	}
	return letters >= 2
}

// argsValue redacts a decoded job argument (see above).
func argsValue(x any, depth int) any {
	if depth > maxDepth {
		return value(x, depth)
	}
	switch t := x.(type) {
	case string:
		if isProse(t) {
			return Text(t)
		}
		return scrub(t)
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = argsValue(e, depth+1)
		}
		return s
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			rk := String(k)
			if r := roleOf(k); r.kind != "" || r.text || r.payload || r.args {
				put(m, rk, memberOf(r, e, depth+1))
				continue
			}
			put(m, rk, argsValue(e, depth+1))
		}
		return m
	}
	return value(x, depth)
}

// argsJSON redacts the raw JSON value of a job's arguments, returning raw
// itself when nothing in it changed.
func argsJSON(raw []byte) []byte {
	x, err := decodeNumbers(bytes.NewReader(raw))
	if err != nil {
		return JSON(raw)
	}
	r := argsValue(x, 0)
	if canonical(r) == canonical(x) {
		return raw
	}
	b, err := json.Marshal(r)
	if err != nil {
		return []byte(`"` + KindToken.Marker() + `"`)
	}
	return b
}

// argsKeyBefore reports whether the text before an opening bracket at i
// is a job arguments' key and its separator: "args=(", "kwargs: {",
// "args: [".
func argsKeyBefore(s string, i int) bool {
	k := i
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	if k == 0 || s[k-1] != '=' && s[k-1] != ':' {
		return false
	}
	k--
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	e := k
	for k > 0 && e-k < 16 && (isWord(s[k-1]) || s[k-1] == '-') {
		k--
	}
	return e > k && JobArgKeys[normKey(s[k:e])]
}

// argsLabelBefore reports whether a job's arguments are labelled in prose
// before the quote at i: "with arguments: ", "args: ".
func argsLabelBefore(s string, i int) bool {
	if i < 2 || s[i-1] != ' ' || s[i-2] != ':' {
		return false
	}
	k := i - 2
	e := k
	for k > 0 && e-k < 16 && isLetter(s[k-1]) {
		k--
	}
	w := strings.ToLower(s[k:e])
	return w == "arguments" || JobArgKeys[w]
}

// argList parses the values of a list written without brackets, from i to
// the end of its line, and returns where it ended (i when nothing was
// read).
func (p *lenient) argList(i int) int {
	end := i
	for k := i; k < len(p.s); {
		e, kind := p.value(k, nil)
		if kind == vNone || e <= k {
			break
		}
		end = e
		k = e
		for k < len(p.s) && p.s[k] == ' ' {
			k++
		}
		if k >= len(p.s) || p.s[k] != ',' {
			break
		}
		k++
		for k < len(p.s) && p.s[k] == ' ' {
			k++
		}
	}
	return end
}
