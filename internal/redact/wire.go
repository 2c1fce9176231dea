package redact

import "strings"

// Credentials by their place in a protocol's command or a table's row,
// where no key-value separator names them (docs/design.md "Redaction", 3).

// tableSeps are the separators of a table's cells: ASCII tables (psql, a
// Markdown table, the AWS CLI's --output table) and box-drawing ones.
var tableSeps = []string{"│", "┃", "║", "|"}

// tableSep returns the width of the cell separator at s[i], or 0.
func tableSep(s string, i int) int {
	for _, p := range tableSeps {
		if strings.HasPrefix(s[i:], p) {
			return len(p)
		}
	}
	return 0
}

// findTableCredential finds the cell after a cell that holds only a name
// the key rules call secret, on a line of a table: "│ API_TOKEN │ 0d8c… │",
// psql's "password | hunter2", "| DB_PASSWORD | s3cr3t |".
func findTableCredential(s string, from int) []int {
	for i := from; i < len(s); i++ {
		w := tableSep(s, i)
		if w == 0 {
			continue
		}
		// The key's cell: back to the previous separator or the line's start.
		ks := i
		for ks > 0 && s[ks-1] != '\n' && tableSepBefore(s, ks) == 0 {
			ks--
		}
		ke := i
		for ks < ke && (s[ks] == ' ' || s[ks] == '\t') {
			ks++
		}
		ke = skipBlanksBack(s, ks, ke)
		// The value's cell: to the next separator or the line's end.
		vs := i + w
		ve := vs
		for ve < len(s) && s[ve] != '\n' && s[ve] != '\r' && tableSep(s, ve) == 0 {
			ve++
		}
		for vs < ve && (s[vs] == ' ' || s[vs] == '\t') {
			vs++
		}
		ve = skipBlanksBack(s, vs, ve)
		i += w - 1
		if ke <= ks || ve <= vs || !cellName(s[ks:ke]) || strings.ContainsAny(s[vs:ve], " \t") {
			continue
		}
		if !secretName(s[ks:ke]) || startsWithMarker(s, vs) || isReference(s, vs) || isLiteral(s[vs:ve]) {
			continue
		}
		return []int{ks, ve, ks, ke, vs, ve}
	}
	return nil
}

// tableSepBefore returns the width of a cell separator that ends at s[i],
// or 0.
func tableSepBefore(s string, i int) int {
	for _, p := range tableSeps {
		if strings.HasSuffix(s[:i], p) {
			return len(p)
		}
	}
	return 0
}

// saslMechanisms are the mechanisms whose initial response, after
// "AUTH <mechanism>" or "AUTHENTICATE <mechanism>", holds the credential.
var saslMechanisms = []string{"PLAIN", "LOGIN", "XOAUTH2", "OAUTHBEARER", "CRAM-MD5"}

// findWireLogin finds the password of a protocol's login command written
// as a client sends it, in a debug trace or a transcript: IMAP's "<tag>
// LOGIN <user> <password>", POP3's and FTP's "PASS <password>", SMTP's and
// IMAP's "AUTH PLAIN <response>", Redis's "AUTH [user] <password>". The
// command is the protocol's upper-case word where a command stands — at
// a line's start, after a quote (Python's b'…'), a direction marker (">",
// "C:", ">>>") or, for LOGIN, a tag — so "login failed" and "AUTH=PLAIN"
// stay.
func findWireLogin(s string, from int) []int {
	for i := from; i < len(s); i++ {
		var cmd string
		switch {
		case strings.HasPrefix(s[i:], "LOGIN "):
			cmd = "LOGIN"
		case strings.HasPrefix(s[i:], "PASS "):
			cmd = "PASS"
		case strings.HasPrefix(s[i:], "AUTHENTICATE "):
			cmd = "AUTHENTICATE"
		case strings.HasPrefix(s[i:], "AUTH "):
			cmd = "AUTH"
		default:
			cmd = quotedCommand(s, i)
			if cmd == "" {
				continue
			}
		}
		if !commandPosition(s, i, cmd == "LOGIN") {
			continue
		}
		at := i + len(cmd) + 1
		if s[i+len(cmd)] == '"' {
			at++ // a monitor's quoted command: "AUTH" "user" "password"
		}
		args, end := wireArgs(s, at)
		i += len(cmd)
		var a [2]int
		switch cmd {
		case "LOGIN":
			if len(args) != 2 {
				continue
			}
			a = args[1]
		case "PASS":
			if len(args) < 1 {
				continue
			}
			a = [2]int{args[0][0], end}
		default:
			if len(args) == 0 {
				continue
			}
			if containsWord(saslMechanisms, s[args[0][0]:args[0][1]]) {
				if len(args) != 2 || s[args[1][0]:args[1][1]] == "=" {
					continue // no initial response, or an empty one
				}
				a = args[1]
			} else {
				if cmd == "AUTHENTICATE" || len(args) > 2 {
					continue
				}
				a = args[len(args)-1]
			}
		}
		if a[1] <= a[0] || startsWithMarker(s, a[0]) {
			continue
		}
		return []int{a[0], a[1], -1, -1, a[0], a[1]}
	}
	return nil
}

// quotedCommand returns the login command a monitor prints quoted with its
// arguments at s[i] (Redis MONITOR's "AUTH" "user" "password"), or "".
func quotedCommand(s string, i int) string {
	if i == 0 || s[i-1] != '"' {
		return ""
	}
	for _, c := range []string{"AUTH", "LOGIN", "PASS"} {
		if strings.HasPrefix(s[i:], c) && strings.HasPrefix(s[i+len(c):], "\" \"") {
			return c
		}
	}
	return ""
}

// commandPosition reports whether a protocol's command word at s[i] stands
// where a command does: after blanks at a line's start, a quote, a
// direction marker, or (tagged) a tag of letters and digits.
func commandPosition(s string, i int, tagged bool) bool {
	j := skipBlanksBack(s, 0, i)
	if j == 0 || s[j-1] == '\n' || s[j-1] == '\r' {
		return true
	}
	switch s[j-1] {
	case '\'', '"', '>':
		return true
	case ':':
		return j >= 2 && (s[j-2] == 'C' || s[j-2] == 'c') && (j < 3 || !isLetter(s[j-3]))
	}
	if !tagged || j == i {
		return false
	}
	// An IMAP tag: letters, digits and '.', after a quote, blanks or a
	// line's start.
	t := j
	for t > 0 && (isLetter(s[t-1]) || isDigit(s[t-1]) || s[t-1] == '.') {
		t--
	}
	if t == j || j-t > 16 {
		return false
	}
	return t == 0 || strings.IndexByte(" \t\n\r'\">", s[t-1]) >= 0
}

// wireArgs splits a command's arguments, atoms or double-quoted strings
// (the quotes excluded, escapes kept), up to the line's end or the quote
// that closes a repr (b'…'); end is where the last argument ends.
func wireArgs(s string, i int) (args [][2]int, end int) {
	end = i
	for i < len(s) && len(args) < 4 {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || s[i] == '\n' || s[i] == '\r' || s[i] == '\'' || s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'r' || s[i+1] == 'n') {
			break
		}
		if s[i] == '"' {
			j := i + 1
			for j < len(s) && s[j] != '"' && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) || s[j] != '"' {
				break
			}
			args = append(args, [2]int{i + 1, j})
			i, end = j+1, j
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\r' && s[j] != '\'' && !(s[j] == '\\' && j+1 < len(s) && (s[j+1] == 'r' || s[j+1] == 'n')) {
			j++
		}
		args = append(args, [2]int{i, j})
		i, end = j, j
	}
	return args, end
}

// cellName reports whether a table's cell holds a name only: letters,
// digits, '_', '-' and '.'.
func cellName(c string) bool {
	for k := 0; k < len(c); k++ {
		if !isLetter(c[k]) && !isDigit(c[k]) && c[k] != '_' && c[k] != '-' && c[k] != '.' {
			return false
		}
	}
	return true
}
