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
	for i := from; i < len(s); {
		a := strings.Index(s[i:], "=>")
		if a < 0 {
			return nil
		}
		a += i
		i = a + 2
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
		vs, ve := phpValue(s, i, varDump, role.kind != "")
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
		ve := vs
		for ve < len(s) && s[ve] != '\n' && s[ve] != '\r' {
			ve++
		}
		for ve > vs && (s[ve-1] == ' ' || s[ve-1] == '\t') {
			ve--
		}
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
