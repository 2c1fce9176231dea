package redact

import "strings"

// Credentials that stand where no key names them, by the shape of what
// holds them:
//
//   - an Erlang term's binary that follows another binary in the same tuple
//     or list and looks like a credential (credentialArg): a record printed
//     without its field names in a crash report ("{conn_opts,<<"host">>,
//     8883,<<"user">>,<<"secret">>,…}") has the password after the user;
//   - an array of 32 integers or more, each 0–255, with one above 127 and
//     at least sixteen distinct values: a private key written as its bytes
//     (a Solana keypair file, a seed), under a key or alone;
//   - a value in backticks after a secret's name ("Invalid secret key
//     `…`", "token `…` rejected"): a tool's error echoing what it was given.

// findErlangBinaryCredential finds a credential-shaped binary that follows
// another binary.
func findErlangBinaryCredential(s string, from int) []int {
	for j := range marks(s, from, `<<"`) {
		vs := j + 3
		e := strings.Index(s[vs:], `">>`)
		if e < 0 {
			return nil
		}
		ve := vs + e
		// The element before: ",<<"…">>" or ", <<"…">>" ending right here.
		k := j - 1
		for k >= 0 && s[k] == ' ' {
			k--
		}
		if k < 4 || s[k] != ',' || !strings.HasSuffix(s[:k], `">>`) {
			continue
		}
		if v := s[vs:ve]; !credentialArg(v) || strings.ContainsAny(v, ` "`) || startsWithMarker(s, vs) {
			continue
		}
		return []int{j, ve + 3, -1, -1, vs, ve}
	}
	return nil
}

// findByteArrayKey finds an array of byte values long and varied enough to
// be a key.
func findByteArrayKey(s string, from int) []int {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			return nil
		}
		j += i
		i = j + 1
		k := skipBlanks(s, j+1)
		if k >= len(s) || !isDigit(s[k]) {
			continue
		}
		var seen [4]uint64
		n, distinct, high := 0, 0, false
		vs, ve := k, k
		for k < len(s) {
			e := k
			v := 0
			for e < len(s) && isDigit(s[e]) && e-k < 4 {
				v = v*10 + int(s[e]-'0')
				e++
			}
			if e == k || e-k > 3 || v > 255 || e < len(s) && isDigit(s[e]) {
				break
			}
			n++
			high = high || v > 127
			if seen[v>>6]&(1<<(v&63)) == 0 {
				seen[v>>6] |= 1 << (v & 63)
				distinct++
			}
			ve = e
			k = skipBlanks(s, e)
			if k < len(s) && s[k] == ',' {
				k = skipBlanks(s, k+1)
				continue
			}
			break
		}
		if k >= len(s) || s[k] != ']' || n < 32 || !high || distinct < 16 {
			i = k
			continue
		}
		return []int{j, k + 1, -1, -1, vs, ve}
	}
	return nil
}

// findEchoedSecret finds a value in backticks after a secret's name.
func findEchoedSecret(s string, from int) []int {
	for j := range marks(s, from, " `") {
		vs := j + 2
		e := strings.IndexByte(s[vs:], '`')
		if e <= 0 {
			continue
		}
		ve := vs + e
		v := s[vs:ve]
		if len(v) < 4 || strings.ContainsAny(v, " \n\t<") || v[0] == '$' || startsWithMarker(s, vs) || isLiteral(v) {
			continue
		}
		// The name: up to three words before the blank.
		ks := j
		for w := 0; w < 3 && ks > 0; w++ {
			p := ks
			for p > 0 && (isAlnum(s[p-1]) || s[p-1] == '_' || s[p-1] == '-') {
				p--
			}
			if p == ks {
				break
			}
			if kind, ok := KeyKind(strings.ToLower(s[p:j])); ok && kind != "" {
				return []int{p, ve + 1, p, j, vs, ve}
			}
			ks = p
			if ks == 0 || s[ks-1] != ' ' {
				break
			}
			ks--
		}
	}
	return nil
}
