package redact

import "strings"

// findRedisFieldValue finds the value after a field in redis-cli's
// numbered reply (SLOWLOG GET's arguments of an HSET or HMSET, an HGETALL):
// a line `N) "field"` whose field the key rules call secret or personal,
// and on the next line `N+1) "value"` — the value's quoted body is the
// match, the field its key.
func findRedisFieldValue(s string, from int) []int {
	for i := from; i < len(s); {
		k := strings.Index(s[i:], ") \"")
		if k < 0 {
			return nil
		}
		k += i
		i = k + 3
		n, ok := redisItemNumber(s, k)
		if !ok {
			continue
		}
		fs := k + 3
		fe := redisQuotedEnd(s, fs)
		if fe < 0 || fe+1 < len(s) && s[fe+1] != '\n' && s[fe+1] != '\r' {
			continue
		}
		kind, _ := KeyKind(s[fs:fe])
		if kind == "" {
			continue
		}
		// The next line: blanks, the next number, ") \"".
		j := fe + 1
		for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
			j++
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		d := j
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == d || !strings.HasPrefix(s[j:], ") \"") || atoiSmall(s[d:j]) != n+1 {
			continue
		}
		vs := j + 3
		ve := redisQuotedEnd(s, vs)
		if ve <= vs {
			continue
		}
		return []int{vs, ve, fs, fe, vs, ve}
	}
	return nil
}

// redisItemNumber returns the number before the ')' at s[k], standing
// after blanks or another item's number at its line's start.
func redisItemNumber(s string, k int) (int, bool) {
	d := k
	for d > 0 && isDigit(s[d-1]) {
		d--
	}
	if d == k || d > 0 && s[d-1] != ' ' && s[d-1] != '\n' {
		return 0, false
	}
	ls := strings.LastIndexByte(s[:d], '\n') + 1
	for _, c := range []byte(s[ls:d]) {
		if c != ' ' && c != ')' && !isDigit(c) {
			return 0, false
		}
	}
	return atoiSmall(s[d:k]), true
}

// redisQuotedEnd returns the index of the closing quote of the string
// whose body starts at s[i], on one line, or -1.
func redisQuotedEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		case '\n':
			return -1
		}
	}
	return -1
}

// atoiSmall parses a run of at most nine digits.
func atoiSmall(d string) int {
	n := 0
	for i := 0; i < len(d) && i < 9; i++ {
		n = n*10 + int(d[i]-'0')
	}
	return n
}
