package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON returns a redacted copy of b. When b is one JSON document it is
// walked: the value under a secret key (KeyKind) becomes a marker whatever
// its shape (null, booleans and "" stay); values under text keys (IsTextKey)
// become Text of the string, or of the compact JSON (keys sorted) of an
// object or array, while numbers, booleans and null stay;
// values under PayloadKeys are walked when they are JSON and hashed
// otherwise; every other string — object keys included — goes through
// String, and a string that itself holds a JSON object or array is walked in
// turn. Whitespace, key order, numbers and untouched strings are copied byte
// for byte; a number that is a card number becomes a marker string. The
// result of a valid document is valid JSON. When b is not JSON, JSON returns
// String(b) (walked in turn if that made it valid JSON). b is never
// modified.
func JSON(b []byte) []byte {
	if json.Valid(b) {
		return walk(b)
	}
	out := []byte(String(string(b)))
	// Redaction can mend a document (a control character inside a redacted
	// value was all that was wrong): walk it then, so that JSON(JSON(b)) ==
	// JSON(b).
	if json.Valid(out) {
		return walk(out)
	}
	return out
}

// walk redacts b, a valid JSON document.
func walk(b []byte) []byte {
	w := walker{in: b, out: make([]byte, 0, len(b)+len(b)/8), st: newState(), pairs: mayHavePairs(b), turns: mayHaveTurns(b)}
	w.ws()
	w.value()
	w.ws()
	return w.out
}

// Value returns a redacted copy of v, a value as encoding/json decodes it:
// map[string]any, []any, string, float64, json.Number, bool, nil, nested.
// Keys and values follow the rules of JSON; Text hashes the compact JSON of
// structured text values, keys sorted. map[string]string, []string,
// http.Header, json.RawMessage and errors are redacted too; any other value
// goes through a JSON round trip (so a struct becomes a map[string]any), and
// one that JSON cannot encode becomes "[unencodable TYPE]", as does
// anything nested deeper than 10000 levels (a cycle). Map keys go through
// String; two keys that redact alike are kept apart by a "#2", "#3" suffix.
// v itself is never modified.
func Value(v any) (out any) {
	defer func() {
		// A MarshalJSON or Error method may panic (a nil receiver); Value
		// never does.
		if recover() != nil {
			out = fmt.Sprintf("[unencodable %T]", v)
		}
	}()
	return value(v, 0)
}

// maxDepth is how deep Value follows nested maps and slices, as deep as
// encoding/json nests; deeper values (or a cycle) become a marker instead of
// a stack overflow.
const maxDepth = 10000

func value(v any, depth int) any { return valueIn(v, depth, "") }

// valueIn is value for v under the key parent (its record's key).
func valueIn(v any, depth int, parent string) any {
	if depth > maxDepth {
		return "[unencodable: nested deeper than 10000]"
	}
	switch t := v.(type) {
	case nil, bool, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return t
	case json.Number:
		if r := redactNumber(string(t)); r != string(t) {
			return r
		}
		return t
	case string:
		return scrub(t)
	case json.RawMessage:
		return json.RawMessage(JSON(t))
	case map[string]any:
		m := make(map[string]any, len(t))
		var pr keyRole
		pair := false
		var tc turnCount
		for k, x := range t {
			if v, ok := x.(string); ok && NameKeys[normKey(k)] {
				if r := roleOf(v); r.kind != "" || r.text {
					pr, pair = r, true
				}
			}
			tc.add(k)
		}
		turn := tc.turn()
		var rec *record
		for k, x := range t {
			rk := String(k)
			if pair && isValueKey(normKey(rk)) {
				put(m, rk, memberOf(pr, x, depth+1))
				continue
			}
			if v, ok := x.(string); ok && turn && isMessageKey(rk) && !systemURI(rk, v) {
				put(m, rk, memberOf(keyRole{text: true}, x, depth+1))
				continue
			}
			if v, ok := x.(string); ok && turn && isSummaryKey(rk) && isFreeText(v) {
				put(m, rk, Text(v))
				continue
			}
			role := roleOf(rk)
			if mergeFieldsKey(parent) && role == (keyRole{}) {
				switch x.(type) {
				case map[string]any, []any:
				default:
					role.kind = KindPersonal
				}
			}
			if contextKey(rk) {
				if rec == nil {
					rec = mapRecord(t, parent)
				}
				v, _ := x.(string)
				role = rec.roleIn(rk, v, role)
			}
			if v, ok := x.(string); ok && role == (keyRole{}) && partyPhone(rk, v) {
				role.kind = KindPhone
			}
			if v, ok := x.(string); ok && role.text && systemURI(rk, v) {
				role.text = false
			}
			switch x.(type) {
			case map[string]any, []any:
				if role == (keyRole{}) {
					put(m, rk, valueIn(x, depth+1, rk))
					continue
				}
			}
			if v, ok := x.(string); ok && role == (keyRole{}) && isFreeText(v) && proseKey(rk) {
				put(m, rk, Text(v))
				continue
			}
			if a, ok := x.([]any); ok && personal(role.kind) {
				put(m, rk, personalList(role.kind, a, depth+1, rk))
				continue
			}
			put(m, rk, memberOf(role, x, depth+1))
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = valueIn(x, depth+1, parent)
		}
		return s
	case map[string]string:
		return Map(t)
	case []string:
		s := make([]string, len(t))
		for i, x := range t {
			s[i] = scrub(x)
		}
		return s
	case http.Header:
		return Header(t)
	case error:
		return String(t.Error())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("[unencodable %T]", v)
	}
	x, err := decodeNumbers(bytes.NewReader(b))
	if err != nil {
		return fmt.Sprintf("[unencodable %T]", v)
	}
	return value(x, depth)
}

// decodeNumbers decodes the first JSON value r holds, its numbers as
// json.Number so that they come out as they went in.
func decodeNumbers(r io.Reader) (x any, err error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	err = dec.Decode(&x)
	return x, err
}

// Map returns a redacted copy of m, for headers, message attributes and
// other string maps: values under secret keys become markers (an empty value
// stays empty), values under text keys become Text, values under
// PayloadKeys are walked as JSON or hashed, every other value and every key
// goes through String. A nil map gives nil.
func Map(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	var rec *record
	for key, v := range m {
		k := String(key)
		var r string
		role := roleOf(k)
		if contextKey(k) {
			if rec == nil {
				rec = newRecord("")
				for mk, mv := range m {
					rec.member(mk, mv)
				}
			}
			role = rec.roleIn(k, v, role)
		}
		switch {
		case role.kind != "":
			r = secretString(role.kind, v)
		case role.text && !systemURI(k, v):
			r = Text(v)
		case role.payload:
			r = payloadString(v)
		case isFreeText(v) && proseKey(k):
			r = Text(v)
		default:
			r = scrub(v)
		}
		if _, dup := out[k]; dup {
			k = freeKey(out, k)
		}
		out[k] = r
	}
	return out
}

// Header returns a redacted copy of h. Every value of a secret header —
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key,
// Api-Key, X-Amz-Security-Token, anything KeyKind flags — becomes a marker
// (an Authorization scheme such as "Bearer" stays in front of it); other
// values go through String. Names and the number of values are kept; rate
// limit headers (X-Ratelimit-Remaining-Tokens) stay readable. A nil header
// gives nil.
func Header(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for name, vals := range h {
		rv := make([]string, len(vals))
		kind, secret := KeyKind(name)
		for i, v := range vals {
			if secret {
				rv[i] = secretString(kind, v)
			} else {
				rv[i] = String(v)
			}
		}
		out[name] = rv
	}
	return out
}

// memberOf redacts the value x of a decoded object by its key's role.
func memberOf(role keyRole, x any, depth int) any {
	if kind := role.kind; kind != "" {
		switch t := x.(type) {
		case nil, bool:
			return t
		case string:
			return secretString(kind, t)
		}
		return kind.Marker()
	}
	if role.text {
		switch t := x.(type) {
		case nil, bool, float64, float32, int, int64, json.Number:
			return t
		case string:
			return Text(t)
		}
		if recordList(x) {
			return value(x, depth)
		}
		return Text(canonical(x))
	}
	if role.args {
		return argsValue(x, depth)
	}
	if role.payload {
		switch t := x.(type) {
		case string:
			return payloadString(t)
		case []any:
			if plainStrings(t) {
				return Text(canonical(x))
			}
		}
	}
	return value(x, depth)
}

// recordList reports whether x, under a content key, is a list of records
// that are no turns of a conversation: objects none of whose keys is a
// turn's (role, speaker, sender) or a content key — SQS's ReceiveMessage
// "Messages" (MessageId, Body, Attributes), a mail API's "messages" of ids.
// Their members are judged by their own keys.
func recordList(x any) bool {
	a, ok := x.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	for _, e := range a {
		m, ok := e.(map[string]any)
		if !ok || len(m) == 0 {
			return false
		}
		for k := range m {
			if TurnKeys[normKey(k)] || roleOf(k).text {
				return false
			}
		}
	}
	return true
}

// mayBeRecords is recordList's cheap test on a list's bytes: a list of
// objects that names none of a chat's common keys.
func mayBeRecords(raw []byte) bool {
	t := bytes.TrimLeft(raw[1:], " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	for _, k := range [...]string{`"role"`, `"content"`, `"text"`, `"parts"`} {
		if bytes.Contains(raw, []byte(k)) {
			return false
		}
	}
	return true
}

// mayBeRecordsText is mayBeRecords on text.
func mayBeRecordsText(raw string) bool {
	t := strings.TrimLeft(raw[1:], " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	for _, k := range [...]string{`"role"`, `"content"`, `"text"`, `"parts"`} {
		if strings.Contains(raw, k) {
			return false
		}
	}
	return true
}

// plainStrings reports whether a holds strings (and numbers) only, with at
// least one string: a payload of content, not of records.
func plainStrings(a []any) bool {
	str := false
	for _, x := range a {
		switch x.(type) {
		case string:
			str = true
		case float64, json.Number, nil, bool:
		default:
			return false
		}
	}
	return str
}

// put stores x under k in m, renaming k with a "#n" suffix if it is taken.
func put(m map[string]any, k string, x any) {
	if _, dup := m[k]; dup {
		k = freeKey(m, k)
	}
	m[k] = x
}

// freeKey returns k + "#n" for the smallest n ≥ 2 not in m.
func freeKey[V any](m map[string]V, k string) string {
	for n := 2; ; n++ {
		c := k + "#" + strconv.Itoa(n)
		if _, dup := m[c]; !dup {
			return c
		}
	}
}

// secretString is the replacement of a string under a secret key: empty
// strings and markers stay; an Authorization value keeps its scheme.
func secretString(kind Kind, s string) string {
	if s == "" || isMarker(s) || !plausible(kind, s) {
		return s
	}
	if kind == KindBearer {
		if scheme, rest, ok := strings.Cut(s, " "); ok && authSchemes[strings.ToLower(scheme)] {
			rest = strings.TrimLeft(rest, " ")
			if rest == "" || isMarker(rest) {
				return s
			}
			return scheme + " " + kind.Marker()
		}
	}
	return kind.Marker()
}

// authSchemes are the HTTP authentication schemes kept in front of a
// redacted Authorization value.
var authSchemes = map[string]bool{
	"bearer": true, "basic": true, "digest": true, "token": true, "negotiate": true,
	"ntlm": true, "aws4-hmac-sha256": true, "hmac": true, "dpop": true, "apikey": true,
}

// scrub redacts a string value: as JSON if it holds a JSON object or array,
// with String otherwise.
func scrub(s string) string { return scrubState(s, newState()) }

// scrubState is scrub at the depth and with the budget of st.
func scrubState(s string, st *state) string {
	if r, ok := embeddedJSON(s); ok {
		return r
	}
	return redactText(s, st)
}

// payloadString redacts a string under a payload key: walked if it holds a
// JSON object or array, hashed otherwise.
func payloadString(s string) string {
	if r, ok := embeddedJSON(s); ok {
		return r
	}
	return Text(s)
}

// embeddedJSON redacts s as JSON when s is a JSON object or array.
func embeddedJSON(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return "", false
	}
	b := []byte(s)
	if !json.Valid(b) {
		return "", false
	}
	return string(walk(b)), true
}

// redactNumber catches card numbers written as JSON numbers; shorter numbers
// cannot be one and skip String.
func redactNumber(lit string) string {
	if len(lit) < 13 {
		return lit
	}
	return String(lit)
}

// canonical returns the compact JSON of x with object keys sorted, for
// hashing structured text.
func canonical(x any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return fmt.Sprint(x)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// walker copies a valid JSON document from in to out, redacting as it goes.
// json.Valid has vouched for in; the bounds checks are only there so that no
// input can make it panic.
type walker struct {
	in    []byte
	i     int
	out   []byte
	st    *state
	pairs bool // the document may hold name/value pairs (mayHavePairs)
	turns bool // the document may hold a conversation's turns (mayHaveTurns)
	// parent is the key the object being walked stands under: its
	// record's key.
	parent string
}

// mayHavePairs reports whether b holds a key of ValueKeys, quoted, in any
// case: only then can an object be a name/value pair.
func mayHavePairs(b []byte) bool {
	for i := bytes.IndexByte(b, ':'); i >= 0; {
		k := i - 1
		for k >= 0 && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
			k--
		}
		if k > 0 && b[k] == '"' {
			j := bytes.LastIndexByte(b[:k], '"')
			if j >= 0 && isValueKey(normKey(string(b[j+1:k]))) {
				return true
			}
		}
		n := bytes.IndexByte(b[i+1:], ':')
		if n < 0 {
			break
		}
		i += n + 1
	}
	return false
}

func (w *walker) peek() byte {
	if w.i < len(w.in) {
		return w.in[w.i]
	}
	return 0
}

// ws copies whitespace.
func (w *walker) ws() {
	for w.i < len(w.in) {
		switch c := w.in[w.i]; c {
		case ' ', '\t', '\n', '\r':
			w.out = append(w.out, c)
			w.i++
		default:
			return
		}
	}
}

// copyByte copies one structural byte.
func (w *walker) copyByte() {
	if w.i < len(w.in) {
		w.out = append(w.out, w.in[w.i])
		w.i++
	}
}

func (w *walker) value() {
	switch w.peek() {
	case '{':
		w.object()
	case '[':
		w.array()
	case '"':
		raw := w.skip()
		s := decodeString(raw)
		w.emitString(raw, s, scrubState(s, w.st))
	case 0:
	default:
		raw := w.skip()
		if r := redactNumber(string(raw)); r != string(raw) {
			w.out = appendQuoted(w.out, r)
		} else {
			w.out = append(w.out, raw...)
		}
	}
}

func (w *walker) object() {
	var pr keyRole
	pair := false
	if w.pairs {
		pr, pair = pairRole(w.in, w.i)
	}
	turn := w.turns && turnObject(w.in, w.i)
	parent, start := w.parent, w.i
	defer func() { w.parent = parent }()
	var rec *record
	w.copyByte() // {
	for w.i < len(w.in) {
		w.ws()
		if w.peek() != '"' { // }
			w.copyByte()
			return
		}
		raw := w.skip()
		key := decodeString(raw)
		// The role comes from the redacted key, so that a second pass
		// decides exactly as the first.
		rkey := String(key)
		w.emitString(raw, key, rkey)
		w.ws()
		w.copyByte() // :
		w.ws()
		w.parent = rkey
		switch {
		case mergeFieldsKey(parent) && w.peek() != '{' && w.peek() != '[':
			w.memberRole(keyRole{kind: KindPersonal})
		case pair && isValueKey(normKey(rkey)):
			w.memberRole(pr)
		case turn && isMessageKey(rkey) && w.peek() == '"' && !w.systemURIAhead(rkey):
			w.memberRole(keyRole{text: true})
		case turn && isSummaryKey(rkey) && w.peek() == '"':
			raw := w.skip()
			v := decodeString(raw)
			if isFreeText(v) {
				w.emitString(raw, v, Text(v))
			} else {
				w.emitString(raw, v, String(v))
			}
		case w.peek() == '"' && (PartyWords[normKey(rkey)] || digitsString(w.in, w.i) && phoneLineKey(normKey(rkey)) && roleOf(rkey).kind == "") && !contextKey(rkey):
			raw := w.skip()
			v := decodeString(raw)
			if partyPhone(rkey, v) {
				w.emitString(raw, v, secretString(KindPhone, v))
			} else {
				w.emitString(raw, v, String(v))
			}
		case contextKey(rkey):
			if rec == nil {
				rec = jsonRecord(w.in, start, parent)
			}
			role := roleOf(rkey)
			if nr := rec.roleIn(rkey, rec.members[recordKey(rkey)], role); nr != role {
				w.memberRole(nr)
			} else {
				w.member(rkey)
			}
		default:
			w.member(rkey)
		}
		w.ws()
		if w.peek() != ',' {
			w.copyByte() // }
			return
		}
		w.copyByte()
	}
}

func (w *walker) array() {
	w.copyByte() // [
	for w.i < len(w.in) {
		w.ws()
		if w.peek() == ']' {
			w.copyByte()
			return
		}
		w.value()
		w.ws()
		if w.peek() != ',' {
			w.copyByte() // ]
			return
		}
		w.copyByte()
	}
}

// pairRole reads the object starting at in[i] and returns the role of its
// name/value pair's name (NameKeys) when that names a credential or
// content: {"name": "Authorization", "value": "…"}.
// mayHaveTurns reports whether b holds a quoted "message", "msg" or
// "summary" key, in any case: only then can an object be a turn whose
// message (or summary) is content.
func mayHaveTurns(b []byte) bool {
	for _, k := range [...]string{`message"`, `Message"`, `msg"`, `MESSAGE"`, `ummary"`} {
		if bytes.Contains(b, []byte(k)) {
			return true
		}
	}
	return false
}

// LogRecordKeys mark an object as a structured log record, whose message
// is the log's even beside a content key ({"level": …, "msg": …,
// "completion": …}).
var LogRecordKeys = map[string]bool{
	"level": true, "severity": true, "loglevel": true, "levelname": true,
	"time": true, "timestamp": true, "ts": true, "logger": true,
}

// turnKind says what a member's key makes of its object: a turn (one of
// TurnKeys), a request holding content (a content key), or a log record.
func turnKind(key string) (turn, content, record bool) {
	nk := normKey(key)
	return TurnKeys[nk], hasContentNeedle(key) && roleOf(key).text, LogRecordKeys[nk]
}

// SummaryKeys are the keys of a summary of what an object holds: beside a
// content key it summarizes the content (a call's transcript, a chat's
// messages), so its free text is content too, and elsewhere (a run's
// report, a ticket's title) it is the system's own.
var SummaryKeys = map[string]bool{
	"summary": true, "recap": true, "synopsis": true, "gist": true, "callsummary": true,
	"conversationsummary": true,
}

// isSummaryKey reports whether key is a summary's (SummaryKeys).
func isSummaryKey(key string) bool { return SummaryKeys[normKey(key)] }

// isMessageKey reports whether key is a turn's message: "message" or "msg".
func isMessageKey(key string) bool {
	nk := normKey(key)
	return nk == "message" || nk == "msg"
}

// turnObject reports whether the object at in[i] is a turn whose message
// is content (see turnMembers).
func turnObject(in []byte, i int) bool {
	var tc turnCount
	r := walker{in: in, i: i + 1}
	for r.i < len(r.in) {
		r.skipWS()
		if r.peek() != '"' {
			break
		}
		tc.add(decodeString(r.skip()))
		r.skipWS()
		r.i++ // :
		r.skipWS()
		r.skip()
		r.skipWS()
		if r.peek() != ',' {
			break
		}
		r.i++
	}
	return tc.turn()
}

// turnCount gathers what an object's keys say of it.
type turnCount struct{ turnKey, content, record bool }

func (tc *turnCount) add(key string) {
	t, c, r := turnKind(key)
	tc.turnKey, tc.content, tc.record = tc.turnKey || t, tc.content || c, tc.record || r
}

// turn: an object is a turn of a conversation, its "message" content, when
// it has a role, speaker or sender, or a content key beside its message
// and it is no log record.
func (tc turnCount) turn() bool { return tc.turnKey || tc.content && !tc.record }

func pairRole(in []byte, i int) (keyRole, bool) {
	r := walker{in: in, i: i + 1}
	for r.i < len(r.in) {
		r.skipWS()
		if r.peek() != '"' {
			return keyRole{}, false
		}
		key := decodeString(r.skip())
		r.skipWS()
		r.i++ // :
		r.skipWS()
		raw := r.skip()
		if NameKeys[normKey(key)] && firstByte(raw) == '"' {
			if role := roleOf(decodeString(raw)); role.kind != "" || role.text {
				return role, true
			}
		}
		r.skipWS()
		if r.peek() != ',' {
			return keyRole{}, false
		}
		r.i++
	}
	return keyRole{}, false
}

// skipWS skips whitespace without copying it.
func (w *walker) skipWS() {
	for w.i < len(w.in) && (w.in[w.i] == ' ' || w.in[w.i] == '\t' || w.in[w.i] == '\n' || w.in[w.i] == '\r') {
		w.i++
	}
}

// member copies the value of key, redacting it by the key's role.
func (w *walker) member(key string) {
	role := roleOf(key)
	if role.text && w.peek() == '"' && w.systemURIAhead(key) {
		role.text = false
	}
	if role.kind == "" && !role.text && !role.payload {
		role.id = isIDLabel(key)
		if !role.args && !role.id {
			role.proseOf = key
		}
	}
	w.memberRole(role)
}

// memberRole copies a member's value, redacting it by role.
func (w *walker) memberRole(role keyRole) {
	if role.id && w.peek() != '{' && w.peek() != '[' {
		// An identifier's value: the operator needs it, so the
		// random-token rule does not apply (named rules still do).
		st := w.st
		w.st = st.withoutTokens()
		defer func() { w.st = st }()
	}
	if kind := role.kind; kind != "" && personal(kind) && w.peek() == '[' {
		w.personalList(kind)
		return
	}
	if kind := role.kind; kind != "" {
		raw := w.skip()
		switch c := firstByte(raw); {
		case c == 'n' || c == 't' || c == 'f': // null, true, false reveal nothing
			w.out = append(w.out, raw...)
		case c == '"':
			s := decodeString(raw)
			w.emitString(raw, s, secretString(kind, s))
		default:
			w.out = appendQuoted(w.out, kind.Marker())
		}
		return
	}
	var skipped []byte
	if role.text && w.peek() == '[' {
		start := w.i
		skipped = w.skip()
		var x any
		if mayBeRecords(skipped) && json.Unmarshal(skipped, &x) == nil && recordList(x) {
			// A queue's messages, not a chat's: records walked member by
			// member.
			w.i = start
			w.value()
			return
		}
	}
	if role.text {
		raw := skipped
		if raw == nil {
			raw = w.skip()
		}
		switch firstByte(raw) {
		case '"':
			s := decodeString(raw)
			w.emitString(raw, s, Text(s))
		case '{', '[':
			if x, err := decodeNumbers(bytes.NewReader(raw)); err == nil {
				w.out = appendQuoted(w.out, Text(canonical(x)))
			} else {
				w.out = appendQuoted(w.out, Text(string(raw)))
			}
		default:
			w.out = append(w.out, raw...)
		}
		return
	}
	if role.args {
		w.out = append(w.out, argsJSON(w.skip())...)
		return
	}
	if role.proseOf != "" && w.peek() == '"' {
		start := w.i
		raw := w.skip()
		// Free text has four words: a short string, or one with fewer than
		// three spaces, is none; the key is judged before the string is
		// decoded.
		if len(raw) >= 22 && bytes.Count(raw, space) >= 3 && proseKey(role.proseOf) {
			if s := decodeString(raw); isFreeText(s) {
				w.emitString(raw, s, Text(s))
				return
			}
		}
		w.i = start
	}
	if role.payload && w.peek() == '"' {
		raw := w.skip()
		s := decodeString(raw)
		w.emitString(raw, s, payloadString(s))
		return
	}
	if role.payload && w.peek() == '[' {
		// A payload of plain strings (an embeddings input, a batch of
		// prompts) is content; one holding objects is walked.
		start := w.i
		raw := w.skip()
		if bytes.IndexByte(raw, '{') < 0 && bytes.IndexByte(raw, '"') >= 0 {
			if x, err := decodeNumbers(bytes.NewReader(raw)); err == nil {
				w.out = appendQuoted(w.out, Text(canonical(x)))
				return
			}
		}
		w.i = start
	}
	w.value()
}

var space = []byte{' '}

// emitString writes the redacted string r, or the original bytes raw when
// redaction changed nothing, so that escapes survive as written.
func (w *walker) emitString(raw []byte, s, r string) {
	if r == s {
		w.out = append(w.out, raw...)
		return
	}
	w.out = appendQuoted(w.out, r)
}

// skip advances past the value at w.i and returns its bytes.
func (w *walker) skip() []byte {
	start := w.i
	depth := 0
	for w.i < len(w.in) {
		switch c := w.in[w.i]; c {
		case '"':
			w.i = endOfString(w.in, w.i)
			if depth == 0 {
				return w.in[start:w.i]
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				w.i++
				return w.in[start:w.i]
			}
		default:
			if depth == 0 {
				for w.i < len(w.in) && !isJSONDelim(w.in[w.i]) {
					w.i++
				}
				return w.in[start:w.i]
			}
		}
		w.i++
	}
	return w.in[start:w.i]
}

// endOfString returns the index just past the string starting at b[i].
func endOfString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func isJSONDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// decodeString returns the text of a JSON string literal, as
// encoding/json would: escapes resolved, a lone surrogate becomes U+FFFD.
// Invalid UTF-8 is kept as is.
func decodeString(raw []byte) string {
	if len(raw) < 2 {
		return ""
	}
	body := raw[1 : len(raw)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return string(body)
	}
	b := make([]byte, 0, len(body))
	for {
		b = append(b, body[:i]...)
		body = body[i:]
		if len(body) < 2 {
			break
		}
		switch c := body[1]; c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, n := decodeEscapedRune(body)
			b = utf8.AppendRune(b, r)
			body = body[n:]
			goto next
		default: // " \ /
			b = append(b, c)
		}
		body = body[2:]
	next:
		i = bytes.IndexByte(body, '\\')
		if i < 0 {
			b = append(b, body...)
			break
		}
	}
	return string(b)
}

// decodeEscapedRune decodes \uXXXX (and a following low surrogate) at the
// start of b, returning the rune and the bytes used.
func decodeEscapedRune(b []byte) (rune, int) {
	r := hex4(b[2:])
	if r < 0 {
		return utf8.RuneError, min(len(b), 2)
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if r2 := hex4(b[8:]); r2 >= 0 {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
	}
	return utf8.RuneError, 6
}

// hex4 parses four hex digits at the start of b, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendQuoted appends s as a JSON string literal. Unlike encoding/json it
// leaves <, > and & alone (logs are not HTML); invalid UTF-8 becomes U+FFFD.
func appendQuoted(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// mergeFieldsKey reports whether key heads a notification's merge fields —
// GOV.UK Notify's personalisation, SendGrid's dynamic_template_data,
// Postmark's TemplateModel, Mandrill's merge_vars: the values a template
// fills in for one recipient (a name, a claim number, a date), personal
// data whatever their keys.
func mergeFieldsKey(key string) bool {
	if len(key) < 9 || len(key) > 26 {
		return false // the cheap test first: most keys are shorter
	}
	switch lowerASCII(key[0]) {
	case 'p', 'd', 't', 'm', 'g':
	default:
		return false
	}
	switch normKey(key) {
	case "personalisation", "personalization", "dynamictemplatedata", "templatemodel",
		"mergevars", "globalmergevars", "mergefields", "templatepersonalisation":
		return true
	}
	return false
}

// digitsString reports whether the JSON string at b[i] holds 7 to 15
// digits alone, after an optional '+': a phone number's shape.
func digitsString(b []byte, i int) bool {
	k := i + 1
	if k < len(b) && b[k] == '+' {
		k++
	}
	n := 0
	for k < len(b) && isDigit(b[k]) && n <= 15 {
		k++
		n++
	}
	return n >= 7 && n <= 15 && k < len(b) && b[k] == '"'
}

// systemURI reports whether v, under key, is a FHIR identifier's or
// coding's system: one absolute URI (http://fhir.de/sid/gkv/kvid-10,
// urn:oid:1.2.276…) under a key named system, which names the namespace of
// a value beside it and is no prompt's system message.
func systemURI(key, v string) bool {
	if normKey(key) != "system" || strings.ContainsAny(v, " \t\n\r\"<>") {
		return false
	}
	l := strings.ToLower(v)
	return (strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) && len(v) > 10 || strings.HasPrefix(l, "urn:") && len(v) > 6
}

// systemURIAhead reports whether the string value ahead, under key, is a
// system's URI (systemURI), without moving past it.
func (w *walker) systemURIAhead(key string) bool {
	if normKey(key) != "system" || w.peek() != '"' {
		return false
	}
	start := w.i
	ok := systemURI(key, decodeString(w.skip()))
	w.i = start
	return ok
}
