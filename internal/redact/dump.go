package redact

import (
	"strconv"
	"strings"
)

// PHP prints its arrays and objects in two formats that are neither JSON
// nor a key=value list, and the key rules apply to their members all the
// same:
//
//	var_dump:  ["api_key"]=>            print_r:  [api_key] => sk_live_…
//	           string(32) "3f9a…"                [messages] => Array
//	           ["secret":protected]=>
//	           string(24) "Zk3q…"
//
// A var_dump member's key is the quoted name in brackets (with its
// visibility and class after ':'), its value on the next line; a string
// value is read by the byte length PHP prints, so quotes inside it do not
// end it. A print_r member's key is the bare name in brackets, its value
// the rest of the line. A value under a secret key is replaced; under a
// content key it becomes Text; nested arrays and objects are walked
// member by member.

// findPHPSecret and findPHPText find the members of PHP dumps whose key is
// secret, or content.
func findPHPSecret(s string, from int) []int {
	return findPHPMember(s, from, func(r keyRole) bool { return r.kind != "" })
}

func findPHPText(s string, from int) []int {
	return findPHPMember(s, from, func(r keyRole) bool { return r.text || r.payload })
}

// checkPHPSecret gives a member its key's kind.
func checkPHPSecret(m Match) (Kind, bool) {
	r := roleOf(m.Key)
	return r.kind, r.kind != ""
}

func findPHPMember(s string, from int, want func(keyRole) bool) []int {
	for a := range marks(s, from, "=>") {
		c := a
		if c > 0 && s[c-1] == ' ' {
			c--
		}
		if c == 0 || s[c-1] != ']' {
			continue
		}
		o := strings.LastIndexByte(s[max(from, c-128):c-1], '[')
		if o < 0 {
			continue
		}
		o += max(from, c-128)
		inner := s[o+1 : c-1]
		if strings.IndexByte(inner, '\n') >= 0 {
			continue
		}
		ks, ke, name := o+1, c-1, inner
		varDump := c == a // no space before "=>"
		if varDump {
			if len(inner) < 2 || inner[0] != '"' {
				continue
			}
			q := strings.IndexByte(inner[1:], '"')
			if q < 0 {
				continue
			}
			ks, ke, name = o+2, o+2+q, inner[1:1+q]
		} else if k := strings.IndexByte(inner, ':'); k >= 0 {
			ke, name = o+1+k, inner[:k] // [name:protected], [name:Class:private]
		}
		role := roleOf(name)
		if name == "" || !want(role) {
			continue
		}
		vs, ve := phpValue(s, a+2, varDump, role.kind != "")
		if ve <= vs || startsWithMarker(s, vs) {
			continue
		}
		return []int{ks, ve, ks, ke, vs, ve}
	}
	return nil
}

// phpValue returns the scalar value of the member whose "=>" ends at v:
// for var_dump the string on the next line (string(N) "…", by its length),
// for print_r the rest of the line; an empty span for an array, an object,
// NULL or a number.
func phpValue(s string, v int, varDump, numbers bool) (int, int) {
	if !varDump {
		vs := skipBlanks(s, v)
		ve := skipBlanksBack(s, vs, lineEnd(s, vs))
		if v := s[vs:ve]; v == "Array" || strings.HasSuffix(v, " Object") || isNumber(v) && !numbers {
			return 0, 0
		}
		return vs, ve
	}
	k := v
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
		k++
	}
	if !strings.HasPrefix(s[k:], "string(") {
		return 0, 0
	}
	p := k + len("string(")
	e := strings.IndexByte(s[p:min(len(s), p+12)], ')')
	if e < 0 {
		return 0, 0
	}
	n, err := strconv.Atoi(s[p : p+e])
	q := p + e + 1
	if err != nil || n < 0 || q+1 >= len(s) || s[q] != ' ' || s[q+1] != '"' {
		return 0, 0
	}
	vs := q + 2
	ve := min(len(s), vs+n)
	if ve < len(s) && s[ve] != '"' {
		// The length is in bytes of the original; a dump cut short or
		// re-encoded ends at the last quote on the line.
		if eol := strings.IndexAny(s[vs:], "\n\r"); eol >= 0 {
			ve = vs + strings.LastIndexByte(s[vs:vs+eol], '"')
		} else {
			ve = vs + strings.LastIndexByte(s[vs:], '"')
		}
	}
	return vs, ve
}

// phpVisibility reports whether s[i:] is the visibility of a var_dump
// member (":protected]", ":private]"), not a value.
func phpVisibility(s string, i int) bool {
	for _, w := range [...]string{"protected]", "private]", "public]"} {
		if strings.HasPrefix(s[i:], w) {
			return true
		}
	}
	return false
}

// A dump of name/value pairs — a CRM's properties as [{name: firstname,
// value: …}] printed by var_dump, Xdebug's var_dump ('name' => string
// 'firstname' (length=9)) or print_r ([name] => firstname) — names a
// member's meaning in one member and holds its value in the next: the
// value under a value's key ('value', 'passed_value') on the lines after a
// name's key whose value is a secret or personal key is that key's.

// findDumpNamedValue finds the value of a dumped name/value pair whose name
// is a secret or personal key; the key span is the name.
func findDumpNamedValue(s string, from int) []int {
	for a := range marks(s, from, "=>") {
		ls := lineStartOf(s, a)
		key, ok := dumpKey(s[ls:a])
		if !ok || !NameKeys[normKey(key)] {
			continue
		}
		ns, ne := dumpScalar(s, a+2)
		if ne <= ns || ne-ns > 64 {
			continue
		}
		if r := roleOf(s[ns:ne]); r.kind == "" {
			continue
		}
		// The value's member: on the next lines, at the name's indentation.
		indent := s[ls:a]
		indent = indent[:len(indent)-len(strings.TrimLeft(indent, " \t"))]
		for k, n := lineEnd(s, a)+1, 0; k < len(s) && n < 4; n++ {
			le := lineEnd(s, k)
			line := s[k:le]
			if !strings.HasPrefix(line, indent) || len(line) > len(indent) && (line[len(indent)] == ' ' || line[len(indent)] == '\t') && !strings.Contains(line, "=>") {
				break
			}
			if d := strings.Index(line, "=>"); d >= 0 {
				if vk, ok := dumpKey(line[:d]); ok && isValueKey(normKey(vk)) {
					vs, ve := dumpScalar(s, k+d+2)
					if ve > vs && !startsWithMarker(s, vs) {
						return []int{ns, ve, ns, ne, vs, ve}
					}
					break
				}
			}
			k = le + 1
		}
	}
	return nil
}

// dumpKey reads a dump member's key before its "=>": 'k', "k", [k], ["k"]
// or [k:protected], alone on its line but for the indentation.
func dumpKey(before string) (string, bool) {
	t := strings.TrimSpace(before)
	if len(t) < 3 {
		return "", false
	}
	if t[0] == '[' && t[len(t)-1] == ']' {
		t = t[1 : len(t)-1]
		if k := strings.IndexByte(t, ':'); k > 0 && t[0] != '"' {
			t = t[:k]
		}
	}
	if len(t) >= 2 && (t[0] == '\'' || t[0] == '"') && t[len(t)-1] == t[0] {
		t = t[1 : len(t)-1]
	}
	if t == "" || strings.ContainsAny(t, " \t'\"[]") {
		return "", false
	}
	return t, true
}

// dumpScalar reads the scalar after a dump member's "=>" at v: Xdebug's
// string 'v' (length=N), var_dump's string(N) "v" on the next line, a
// quoted string, or print_r's bare rest of the line.
func dumpScalar(s string, v int) (int, int) {
	vs := skipBlanks(s, v)
	le := lineEnd(s, vs)
	if vs >= le {
		return phpValue(s, v, true, false)
	}
	rest := s[vs:le]
	if strings.HasPrefix(rest, "string '") {
		e := strings.LastIndex(rest, "' (length=")
		if e < 0 {
			e = strings.LastIndexByte(rest, '\'')
		}
		if e <= len("string '") {
			return 0, 0
		}
		return vs + len("string '"), vs + e
	}
	if q := rest[0]; q == '\'' || q == '"' {
		e := strings.LastIndexByte(rest, q)
		if e <= 0 {
			return 0, 0
		}
		return vs + 1, vs + e
	}
	rest = strings.TrimRight(rest, " \t\r,")
	if rest == "Array" || strings.HasSuffix(rest, " Object") || strings.HasPrefix(rest, "array") {
		return 0, 0
	}
	return vs, vs + len(rest)
}

// A print_r member's name or address line ([name] => …, [line1] => …) is
// judged by its record as a JSON object's is: the label of the array it
// stands in — the key before "=> Array" ([customer] => Array) or the words
// a log wrote before it (wc_stripe_create_customer_args: Array) — and the
// members beside it at its indentation.

// findPHPRecordMember finds a print_r member whose key names a name or an
// address line and whose record is a person's.
func findPHPRecordMember(s string, from int) []int {
	for a := range marks(s, from, "] =>") {
		o := strings.LastIndexByte(s[max(from, a-48):a], '[')
		if o < 0 {
			continue
		}
		o += max(from, a-48)
		key := s[o+1 : a]
		nk := recordKey(key)
		if key == "" || !(personNameKeys[nk] || addressLineKeys[nk]) {
			continue
		}
		vs, ve := phpValue(s, a+len("] =>"), false, false)
		if ve <= vs || startsWithMarker(s, vs) {
			continue
		}
		val := s[vs:ve]
		if rec := printRRecord(s, o); rec != nil {
			if k, ok := rec.kindOf(key, val); ok && k != "" && plausible(k, val) {
				return []int{o + 1, ve, o + 1, a, vs, ve}
			}
		}
	}
	return nil
}

// printRRecord returns the record of the print_r member whose '[' is at
// s[o]: the array's label above it and the members beside it, or nil when
// the member stands in no array.
func printRRecord(s string, o int) *record {
	ls := lineStartOf(s, o)
	ind := o - ls
	var sib [][2]string
	parent := ""
	found := false
	for p, n := ls, 0; p > 0 && n < 40; n++ {
		pe := p - 1
		p = lineStartOf(s, pe)
		line := s[p:pe]
		t := strings.TrimLeft(line, " \t")
		pi := len(line) - len(t)
		if pi == ind && strings.HasPrefix(t, "[") {
			if k := strings.Index(t, "] => "); k > 0 {
				sib = append(sib, [2]string{t[1:k], t[k+5:]})
			}
			continue
		}
		if pi < ind && strings.TrimRight(t, " \r") == "(" && p > 0 {
			label := strings.TrimRight(s[lineStartOf(s, p-1):p-1], " \r")
			label = strings.TrimSuffix(label, "Array")
			label = strings.TrimRight(label, " :=>")
			if b := strings.LastIndexByte(label, '['); b >= 0 {
				label = strings.Trim(label[b:], "[]")
			} else if b := strings.LastIndexAny(label, " \t"); b >= 0 {
				label = label[b+1:]
			}
			parent, found = label, true
			break
		}
	}
	if !found {
		return nil
	}
	r := newRecord(parent)
	for _, m := range sib {
		r.member(m[0], m[1])
	}
	return r
}
