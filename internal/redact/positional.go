package redact

import "strings"

// Credentials written without a "name: value" separator, where a format
// says by position or by a definition which value is the secret
// (docs/design.md "Redaction", 3):
//
//   - a definition of a name with a blank or a call between name and value
//     — C's "#define SECRET_PASS "…"", csh's "setenv API_TOKEN …", PHP's
//     "define('DB_PASSWORD', '…')" — loses the value when the key rules
//     call the name secret (findDefinition);
//   - a call whose name the key rules call secret — sbt's
//     Credentials("realm", "host", "user", "…"), HTTPBasicAuth('u', '…'),
//     UsernamePasswordCredentials — loses its last string argument
//     (findCredentialCall);
//   - a line of a whitespace-aligned configuration file (msmtp, netrc,
//     fetchmail): a secret key at the line's start, blanks, one value, and
//     another such directive line beside it (findLineCredential);
//   - a PostgreSQL password file's line host:port:database:user:password
//     loses everything after its fourth colon (findLineCredential);
//   - an IPsec secrets file's entry "ids : PSK|EAP|XAUTH|NTLM secret", and
//     the passphrase after an RSA or ECDSA key's file (findIPsecSecret);
//   - a tool's "config" command that sets a credential's key — poetry's
//     "config http-basic.repo user password", "config pypi-token.repo …",
//     npm's "config set //host/:_authToken …" — loses its last argument
//     (findConfigCommand);
//   - a line of prose announcing a credential and ending with ':' ("Please
//     use the following password to proceed:") loses the lone token on the
//     next line that is not blank, past a log prefix both lines share
//     (findAnnouncedSecret).

// findDefinition finds the value of a definition whose name is secret.
func findDefinition(s string, from int) []int {
	for i := from; i < len(s); {
		k := indexFold(s[i:], "define")
		e := indexFold(s[i:], "setenv")
		if k < 0 || e >= 0 && e < k {
			k = e
		}
		if k < 0 {
			return nil
		}
		k += i
		i = k + 6
		if k > 0 && isWord(s[k-1]) || i >= len(s) {
			continue
		}
		var ns, ne int
		if s[i] == ' ' || s[i] == '\t' {
			// #define NAME value, setenv NAME value
			ns = skipBlanks(s, i)
			ne = ns
			for ne < len(s) && (isWord(s[ne]) || s[ne] == '.' || s[ne] == '-') {
				ne++
			}
			if ne == ns || ne >= len(s) || s[ne] != ' ' && s[ne] != '\t' {
				continue
			}
		} else {
			// define('NAME', 'value')
			j := skipBlanks(s, i)
			if j >= len(s) || s[j] != '(' {
				continue
			}
			j = skipBlanks(s, j+1)
			if j >= len(s) || s[j] != '\'' && s[j] != '"' {
				continue
			}
			q := closingQuote(s, j)
			if q < 0 {
				continue
			}
			ns, ne = j+1, q
			j = skipBlanks(s, q+1)
			if j >= len(s) || s[j] != ',' {
				continue
			}
			ne = q
			vs, ve, ok := definitionValue(s, skipBlanks(s, j+1))
			if ok && secretName(s[ns:ne]) {
				return []int{k, ve, ns, ne, vs, ve}
			}
			continue
		}
		vs, ve, ok := definitionValue(s, skipBlanks(s, ne))
		if ok && secretName(s[ns:ne]) {
			return []int{k, ve, ns, ne, vs, ve}
		}
	}
	return nil
}

// definitionValue returns the value standing at s[v]: a quoted string's
// inside, or a run to the end of the line without blanks.
func definitionValue(s string, v int) (vs, ve int, ok bool) {
	if v >= len(s) {
		return 0, 0, false
	}
	if s[v] == '\'' || s[v] == '"' {
		q := closingQuote(s, v)
		if q <= v+1 || strings.ContainsAny(s[v:q], "\n\r") {
			return 0, 0, false
		}
		vs, ve = v+1, q
	} else {
		vs, ve = v, v
		for ve < len(s) && !isSpace(s[ve]) {
			ve++
		}
		if ve < len(s) && s[ve] != '\n' && s[ve] != '\r' && skipBlanks(s, ve) < lineEnd(s, ve) {
			return 0, 0, false // more words follow: not one value
		}
	}
	if ve <= vs || startsWithMarker(s, vs) || isLiteral(s[vs:ve]) {
		return 0, 0, false
	}
	return vs, ve, true
}

// secretName reports whether the key rules call a name secret.
func secretName(name string) bool {
	_, ok := KeyKind(name)
	return ok
}

// checkNamedSecret gives a candidate the kind its key names.
func checkNamedSecret(m Match) (Kind, bool) {
	if k, ok := KeyKind(m.Key); ok {
		return k, true
	}
	return KindPassword, true
}

// findCredentialCall finds the last string argument of a call whose name
// the key rules call secret.
func findCredentialCall(s string, from int) []int {
	for p := range byteMarks(s, from, '(') {
		ns := p
		for ns > from && (isWord(s[ns-1]) || s[ns-1] == '.') {
			ns--
		}
		if ns == p || !isLetter(s[ns]) {
			continue
		}
		name := s[ns:p]
		if d := strings.LastIndexByte(name, '.'); d >= 0 {
			name = name[d+1:]
		}
		if !secretName(name) {
			continue
		}
		// The arguments: string literals separated by commas, to ')'.
		last := [2]int{-1, -1}
		n := 0
		j := skipBlanks(s, p+1)
		for j < len(s) && (s[j] == '\'' || s[j] == '"') {
			q := closingQuote(s, j)
			if q < 0 || strings.ContainsAny(s[j:q], "\n\r") {
				break
			}
			last, n = [2]int{j + 1, q}, n+1
			j = skipBlanks(s, q+1)
			if j < len(s) && s[j] == ',' {
				j = skipBlanks(s, j+1)
			}
		}
		if n < 2 || j >= len(s) || s[j] != ')' || last[1] <= last[0] || startsWithMarker(s, last[0]) {
			continue
		}
		return []int{ns, j + 1, ns, p, last[0], last[1]}
	}
	return nil
}

// findLineCredential finds, line by line, the value of a directive line
// "key value" whose key is secret in a file of such lines, or the password
// of a line host:port:database:user:password: both read the run a line
// starts with, once.
func findLineCredential(s string, from int) []int {
	colons := strings.Count(s[from:], ":") >= 4
	for ls := from; ls < len(s); {
		if ls > 0 && s[ls-1] != '\n' && s[ls-1] != '\r' {
			n := strings.IndexByte(s[ls:], '\n')
			if n < 0 {
				return nil
			}
			ls += n + 1
			continue
		}
		// The run the line starts with: a host, or a lower-case key.
		e, lower := ls, true
		for e < len(s) && e-ls < 256 {
			c := s[e]
			if isLower(c) || isDigit(c) || c == '_' || c == '-' {
				e++
				continue
			}
			if isUpper(c) || c == '.' || c == '*' {
				e, lower = e+1, false
				continue
			}
			break
		}
		switch {
		case e == ls || e >= len(s):
		case s[e] == ':' && colons:
			if f := colonFields(s, ls, e); f > 0 {
				le := lineEnd(s, f)
				if le > f && !strings.ContainsAny(s[f:le], " \t") && !startsWithMarker(s, f) {
					return []int{ls, le, -1, -1, f, le}
				}
			}
		case (s[e] == ' ' || s[e] == '\t') && lower && hasDirectiveWord(s[ls:e]):
			le := lineEnd(s, e)
			if ks, ke, vs, ve, ok := directive(s, ls, le); ok && secretName(s[ks:ke]) &&
				!startsWithMarker(s, vs) && !isLiteral(s[vs:ve]) && besideDirective(s, ls, le) {
				return []int{ks, ve, ks, ke, vs, ve}
			}
		}
		ls = e + 1
	}
	return nil
}

// findConnectCall finds the password among a database driver's connect
// call's positional string arguments, as a stack trace or a line of code
// shows them: PHP's `PDO->__construct('mysql:host=…', 'user', '…')`,
// `new PDO(…)`, `mysqli_connect('host', 'user', '…', 'db')`,
// `mysqli_real_connect(Object(mysqli), 'host', 'user', '…')`, Python's
// `pymysql.connect('host', 'user', '…')`, Java's
// `DriverManager.getConnection("jdbc:…", "user", "…")`. The call is named
// connect, pconnect, real_connect, …_connect, getConnection, or it builds
// a PDO or mysqli object; its string arguments (other arguments — Array,
// NULL, an object, a port — may stand among them) are host or DSN, user,
// password, and the third goes when the first reads as a host or a DSN;
// when the third reads as one and the first does not (Oracle's
// `oci_connect('user', '…', 'host/db')`, `cx_Oracle.connect(…)`), the
// second goes.
func findConnectCall(s string, from int) []int {
	for p := range byteMarks(s, from, '(') {
		ns := p
		for ns > from && p-ns < 96 && (isWord(s[ns-1]) || s[ns-1] == '.' || s[ns-1] == '>' && ns-1 > from && s[ns-2] == '-' || s[ns-1] == '-' && s[ns] == '>' || s[ns-1] == ':' || s[ns-1] == '\\' || s[ns-1] == ' ' && ns-4 >= from && s[ns-4:ns-1] == "new") {
			ns--
		}
		call := connectCallName(s[ns:p])
		if call == callNone {
			continue
		}
		// The arguments are read within 512 bytes of the parenthesis.
		s := s[:min(len(s), p+512)]
		var args [6][2]int
		n := 0
		j := skipBlanks(s, p+1)
		for j < len(s) && s[j] != ')' && n < len(args) {
			if s[j] == '\'' || s[j] == '"' {
				q := closingQuote(s, j)
				if q < 0 || strings.ContainsAny(s[j:q], "\n\r") {
					break
				}
				args[n], n = [2]int{j + 1, q}, n+1
				j = q + 1
			} else {
				// Another argument: a word, a number, Object(mysqli).
				for j < len(s) && s[j] != ',' && s[j] != ')' && s[j] != '\n' && s[j] != '\'' && s[j] != '"' {
					if s[j] == '(' {
						if e := strings.IndexByte(s[j:], ')'); e > 0 && !strings.ContainsAny(s[j:j+e], "\n'\"") {
							j += e
						}
					}
					j++
				}
			}
			j = skipBlanks(s, j)
			if j < len(s) && s[j] == ',' {
				j = skipBlanks(s, j+1)
			} else if j < len(s) && s[j] != ')' {
				break
			}
		}
		pw := -1
		switch {
		case n >= 2 && distinguishedName(s[args[0][0]:args[0][1]]):
			pw = 1 // a bind's DN, then its password
		case n >= 3 && hostOrDSN(s[args[0][0]:args[0][1]]):
			// Where, then who, then the password: past more
			// addresses (SMTP's HELO domain) to the first that is
			// none, the user.
			u := 1
			for u < n-1 && hostOrDSN(s[args[u][0]:args[u][1]]) {
				u++
			}
			if distinguishedName(s[args[u][0]:args[u][1]]) || !strings.ContainsAny(s[args[u][0]:args[u][1]], " /") {
				pw = u + 1
			}
			if call == callDatabase {
				pw = 2
			}
		case n >= 3 && call == callDatabase && hostOrDSN(s[args[2][0]:args[2][1]]):
			pw = 1
		case n == 2 && call == callLogin && !hostOrDSN(s[args[0][0]:args[0][1]]):
			pw = 1 // login(user, password)
		}
		if pw < 0 || pw >= n {
			continue
		}
		vs, ve := args[pw][0], args[pw][1]
		if ve <= vs || startsWithMarker(s, vs) || isLiteral(s[vs:ve]) || isReference(s, vs) || strings.Trim(s[vs:ve], "*x.") == "" {
			continue
		}
		if call != callDatabase && (strings.ContainsAny(s[vs:ve], " \t") || hostOrDSN(s[vs:ve])) {
			continue // a phrase, a path or an address is no password
		}
		return []int{ns, ve, -1, -1, vs, ve}
	}
	return nil
}

// The calls whose positional string arguments findConnectCall reads.
const (
	callNone     = iota
	callDatabase // a database driver's connect call
	callOpen     // a constructor, or a call that connects, opens or starts a session
	callLogin    // a call that logs in, binds or authenticates
)

// connectCallName says what a call's name (with its receiver) opens. A
// database connection: connect, pconnect, real_connect, a name ending in
// _connect, getConnection, or the constructor of PDO or mysqli. A login:
// a name holding login, logon, bind or auth (ldap_bind, ftp.login,
// authenticate). Any other connection by its shape alone: a constructor
// (__construct, "new X", X.new, X::new) or a name holding connect, open or
// start (Net::SMTP.start, AMQPStreamConnection->__construct, new
// Client(…)) — whose arguments must then read as host, user, password.
func connectCallName(name string) int {
	if name == "" {
		return callNone
	}
	last := name
	if k := strings.LastIndexAny(last, ".>:\\ "); k >= 0 {
		last = last[k+1:]
	}
	l := strings.ToLower(last)
	ln := strings.ToLower(name)
	switch {
	case l == "connect" || l == "pconnect" || l == "real_connect" || l == "getconnection" ||
		strings.HasSuffix(l, "_connect") || strings.HasSuffix(l, "_pconnect"):
		return callDatabase
	case (l == "__construct" || strings.HasPrefix(ln, "new ")) && (strings.Contains(ln, "pdo") || strings.Contains(ln, "mysqli")):
		return callDatabase
	case strings.Contains(l, "login") || strings.Contains(l, "logon") || strings.Contains(l, "bind") || strings.Contains(l, "auth"):
		return callLogin
	case l == "__construct" || l == "new" || strings.HasPrefix(ln, "new ") ||
		strings.Contains(l, "connect") || strings.Contains(l, "open") || l == "start":
		return callOpen
	}
	return callNone
}

// distinguishedName reports whether a bind's argument reads as an LDAP
// distinguished name: attribute=value pairs (cn=, uid=, dc=, ou=) joined
// by ','.
func distinguishedName(a string) bool {
	l := strings.ToLower(a)
	return strings.Contains(l, ",") && (strings.HasPrefix(l, "cn=") || strings.HasPrefix(l, "uid=") || strings.HasPrefix(l, "ou=") || strings.Contains(l, ",dc=") || strings.Contains(l, ", dc="))
}

// hostOrDSN reports whether a connect call's argument reads as where to
// connect: a DSN (`mysql:host=…`, `jdbc:…`, `host=… dbname=…`), an
// address, a host name with a dot, localhost, or Oracle's `host/service`.
func hostOrDSN(a string) bool {
	if a == "" || strings.ContainsAny(a, " \t") && !strings.Contains(a, "=") {
		return false
	}
	return strings.Contains(a, "://") || strings.Contains(a, "host=") || strings.Contains(a, "dbname=") ||
		strings.HasPrefix(a, "jdbc:") || strings.EqualFold(a, "localhost") || strings.HasPrefix(a, "localhost:") ||
		strings.Contains(a, ".") && hasLetter(a) && !strings.ContainsAny(a, "!@#$%^&") ||
		strings.Count(a, ".") == 3 || strings.Contains(a, "/") && !strings.ContainsAny(a, "!#$%^&")
}

// findPgpassEntry finds a PostgreSQL password file's entry that follows
// the file's name on its line — a warning or a listing that quotes the
// file (`/home/u/.pgpass: host:5432:db:user:…`, grep's `.pgpass:3:host:…`):
// the first word after the name that reads as host:port:database:user
// loses what follows its fourth colon, as at a line's start.
func findPgpassEntry(s string, from int) []int {
	for i := from; i < len(s); {
		k := indexFold(s[i:], "pgpass")
		if k < 0 {
			return nil
		}
		i += k + len("pgpass")
		// The entry follows the name within 256 bytes on its line.
		le := min(len(s), i+256)
		if n := strings.IndexAny(s[i:le], "\n\r"); n >= 0 {
			le = i + n
		}
		for ws := i; ws < le; ws++ {
			if c := s[ws-1]; c != ' ' && c != '\t' && c != ':' {
				continue
			}
			e := ws
			for e < le && (isWord(s[e]) || s[e] == '.' || s[e] == '-' || s[e] == '*') {
				e++
			}
			if e == ws || e >= le || s[e] != ':' || !hasLetter(s[ws:e]) && strings.Count(s[ws:e], ".") != 3 && s[ws:e] != "*" {
				continue
			}
			if f := colonFields(s, ws, e); f > 0 {
				ve := f
				for ve < le && s[ve] != ' ' && s[ve] != '\t' && s[ve] != '\r' {
					ve++
				}
				if ve > f && !startsWithMarker(s, f) {
					return []int{ws, ve, -1, -1, f, ve}
				}
			}
		}
		i = le
	}
	return nil
}

// directiveWords are the secret words a directive's key holds, lower case.
var directiveWords = []string{"pass", "secret", "token", "psk"}

// hasDirectiveWord reports whether a lower-case key holds one of
// directiveWords.
func hasDirectiveWord(key string) bool {
	for _, w := range directiveWords {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// directive parses the line s[ls:le] as "key<blanks>value": a lower-case
// key at the line's start and one value without blanks after it.
func directive(s string, ls, le int) (ks, ke, vs, ve int, ok bool) {
	ks = ls
	ke = ks
	for ke < le && (isLower(s[ke]) || isDigit(s[ke]) || s[ke] == '_' || s[ke] == '-') {
		ke++
	}
	if ke == ks || !isLower(s[ks]) || ke >= le || s[ke] != ' ' && s[ke] != '\t' {
		return 0, 0, 0, 0, false
	}
	vs = skipBlanks(s, ke)
	ve = vs
	for ve < le && s[ve] != ' ' && s[ve] != '\t' {
		ve++
	}
	if ve == vs || skipBlanks(s, ve) < le {
		return 0, 0, 0, 0, false
	}
	return ks, ke, vs, ve, true
}

// besideDirective reports whether the line before or after s[ls:le] is a
// directive too: the line stands in a configuration file, not in prose.
func besideDirective(s string, ls, le int) bool {
	if ls > 0 {
		ps := lineStartOf(s, ls-1)
		if _, _, _, _, ok := directive(s, ps, ls-1); ok {
			return true
		}
	}
	if le < len(s) {
		ns := nextLine(s, le)
		if _, _, _, _, ok := directive(s, ns, lineEnd(s, ns)); ok {
			return true
		}
	}
	return false
}

// nextLine returns where the line after the line end le starts.
func nextLine(s string, le int) int {
	if le < len(s) && s[le] == '\r' {
		le++
	}
	if le < len(s) && s[le] == '\n' {
		le++
	}
	if le == len(s) {
		return len(s)
	}
	return le
}

// colonFields returns where the password field starts when s[ls:c] is a
// host and port, database and user fields follow it, or -1.
func colonFields(s string, ls, c int) int {
	host := s[ls:c]
	if c >= len(s) || s[c] != ':' || host == "" || host != "*" && !hasLetter(host) && strings.Count(host, ".") != 3 {
		return -1
	}
	// The port: digits or '*', then ':'.
	p := c + 1
	for p < len(s) && p-c <= 6 && isDigit(s[p]) {
		p++
	}
	if p == c+1 && p < len(s) && s[p] == '*' {
		p++
	}
	if p == c+1 || p >= len(s) || s[p] != ':' {
		return -1
	}
	// The database and the user: names or '*'.
	f := p + 1
	for n := 0; n < 2; n++ {
		e := f
		for e < len(s) && (isWord(s[e]) || s[e] == '*' || s[e] == '-' || s[e] == '.' || s[e] == '$') {
			e++
		}
		if e == f || e >= len(s) || s[e] != ':' {
			return -1
		}
		f = e + 1
	}
	return f
}

// IPsecSecretTypes are the types of an IPsec secrets file's entry whose
// value is the secret itself; IPsecKeyTypes name a private key's file,
// whose optional second value is its passphrase.
var (
	IPsecSecretTypes = []string{"PSK", "EAP", "XAUTH", "NTLM"}
	IPsecKeyTypes    = []string{"RSA", "ECDSA", "BLISS", "PKCS8", "P12"}
)

// findIPsecSecret finds the secret of an entry "ids : TYPE secret".
func findIPsecSecret(s string, from int) []int {
	for i := from; i < len(s); {
		c := strings.Index(s[i:], " : ")
		if c < 0 {
			if strings.HasPrefix(s[i:], ": ") && (i == 0 || s[i-1] == '\n') {
				c = i - 1 // an entry without ids at the text's start
			} else if k := strings.Index(s[i:], "\n: "); k >= 0 {
				c = i + k
			} else {
				return nil
			}
		} else {
			// An entry without ids starts its line with ": ".
			if k := strings.Index(s[i:i+c], "\n: "); k >= 0 {
				c = k
			}
			c += i
		}
		c++ // the ':'
		i = c + 2
		t := skipBlanks(s, c+1)
		te := t
		for te < len(s) && isAlnum(s[te]) {
			te++
		}
		typ := s[t:te]
		if te >= len(s) || s[te] != ' ' && s[te] != '\t' {
			continue
		}
		v := skipBlanks(s, te)
		vs, ve, ok := ipsecValue(s, v)
		if !ok {
			continue
		}
		switch {
		case containsWord(IPsecSecretTypes, typ):
		case containsWord(IPsecKeyTypes, typ):
			// The key's file, then its passphrase.
			if vs, ve, ok = ipsecValue(s, skipBlanks(s, ve+quoted(s, v))); !ok {
				continue
			}
		default:
			continue
		}
		if startsWithMarker(s, vs) {
			continue
		}
		return []int{c, ve, t, te, vs, ve}
	}
	return nil
}

// quoted is 1 when s[v] opens a quoted value, else 0: the width of the
// closing quote past a value's end.
func quoted(s string, v int) int {
	if v < len(s) && (s[v] == '"' || s[v] == '\'') {
		return 1
	}
	return 0
}

// ipsecValue returns the value at s[v] on its line: a quoted string's
// inside or a run without blanks.
func ipsecValue(s string, v int) (vs, ve int, ok bool) {
	if v >= len(s) || s[v] == '\n' || s[v] == '\r' {
		return 0, 0, false
	}
	if s[v] == '"' || s[v] == '\'' {
		q := closingQuote(s, v)
		if q <= v+1 || strings.ContainsAny(s[v:q], "\n\r") {
			return 0, 0, false
		}
		return v + 1, q, true
	}
	ve = v
	for ve < len(s) && !isSpace(s[ve]) {
		ve++
	}
	return v, ve, ve > v
}

// containsWord reports whether list holds w, in any case.
func containsWord(list []string, w string) bool {
	for _, x := range list {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

// findConfigCommand finds the last argument of a tool's "config" command
// that sets a credential's key.
func findConfigCommand(s string, from int) []int {
	for k := range foldMarks(s, from, "config ") {
		i := k + len("config ")
		if k > 0 && s[k-1] != ' ' && s[k-1] != '\t' {
			continue
		}
		le := lineEnd(s, i)
		args := strings.Fields(s[i:le])
		// Past a verb and options: set, --global, --local, -g.
		a := 0
		for a < len(args) && (args[a] == "set" || strings.HasPrefix(args[a], "-")) {
			a++
		}
		if len(args)-a < 2 || !settingKey(args[a]) || !configCredential(args[a]) {
			continue
		}
		last := args[len(args)-1]
		if strings.HasPrefix(last, "-") || isLiteral(last) {
			continue
		}
		ve := skipBlanksBack(s, i, le)
		vs := ve - len(last)
		if startsWithMarker(s, vs) {
			continue
		}
		return []int{k, ve, -1, -1, vs, ve}
	}
	return nil
}

// settingKey reports whether a command's argument is written as a
// setting's key: names, dots, dashes, slashes and colons (no quote, no
// brace: not a document).
func settingKey(a string) bool {
	for i := 0; i < len(a); i++ {
		if c := a[i]; !isWord(c) && strings.IndexByte(".-/:@", c) < 0 {
			return false
		}
	}
	return true
}

// configCredential reports whether a tool's setting names a credential: the
// key rules call it secret, or it is HTTP basic authentication's
// (http-basic.<repository>).
func configCredential(key string) bool {
	if secretName(key) {
		return true
	}
	var buf [8]string
	for _, w := range splitWords(key, buf[:0]) {
		if w == "basic" {
			return true
		}
	}
	return false
}

// findAnnouncedSecret finds the lone token on the line after a line of
// prose that names a credential and ends with ':'.
func findAnnouncedSecret(s string, from int) []int {
	// A line that ends with ':' ("…:\n", "…:\r\n").
	for n := range byteMarks(s, from, '\n') {
		c := n - 1
		if c >= 0 && s[c] == '\r' {
			c--
		}
		if c < 0 || s[c] != ':' {
			continue
		}
		ls := lineStartOf(s, c)
		if !announcesSecret(s[ls:c]) {
			continue
		}
		// The next line not blank past the prefix both lines share.
		next := nextLine(s, lineEnd(s, c))
		for tries := 0; next < len(s) && tries < 3; tries++ {
			ne := lineEnd(s, next)
			vs := next + sharedPrefix(s[ls:c], s[next:ne])
			vs = skipBlanks(s, vs)
			if vs >= ne {
				next = nextLine(s, ne)
				continue
			}
			ve := skipBlanksBack(s, vs, ne)
			if v := s[vs:ve]; len(v) >= 8 && !strings.ContainsAny(v, " \t/") && !startsWithMarker(s, vs) && !isLiteral(v) && strings.Trim(v, "*x•") != "" {
				return []int{vs, ve, -1, -1, vs, ve}
			}
			break
		}
	}
	return nil
}

// announcesSecret reports whether a line ending with ':' is prose that
// names a credential: three words of letters or more, one of them a
// secret's word (AnnouncedWords).
func announcesSecret(line string) bool {
	if len(line) > 256 {
		return false
	}
	words, secret := 0, false
	for i := 0; i < len(line); {
		i = skipBlanks(line, i)
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		f := strings.Trim(line[i:j], ",;()\"'")
		i = j
		letters := f != ""
		for k := 0; k < len(f) && letters; k++ {
			letters = isLetter(f[k])
		}
		if !letters {
			continue
		}
		words++
		for _, w := range AnnouncedWords {
			if strings.EqualFold(f, w) {
				secret = true
			}
		}
	}
	return words >= 3 && secret
}

// AnnouncedWords are the words of a credential a line of prose announces.
var AnnouncedWords = []string{"password", "passphrase", "passcode", "passwd", "token", "secret", "credential", "credentials"}

// sharedPrefix returns the length of the prefix two lines share, cut back
// to just after a blank or a '|' (a log's prefix: "web-1  | ").
func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && a[n-1] != ' ' && a[n-1] != '\t' && a[n-1] != '|' {
		n--
	}
	return n
}

// findXMLRPCCredential finds a credential an XML-RPC call passes by
// position: a <methodCall>'s params carry no names, and the APIs that
// authenticate in the call put a login and its password side by side
// near the front — WordPress's wp.*(blog_id, username, password, …),
// MetaWeblog's and Movable Type's (id, username, password, …), Blogger's
// (appkey, id, username, password, …), Odoo's authenticate(db, login,
// password, …) and execute_kw(db, uid, password, …). So among the first
// four params, a string that follows a string goes, and the third when a
// string and an integer (a database and a user id) come before it.
func findXMLRPCCredential(s string, from int) []int {
	i := from
	if b := strings.LastIndex(s[:from], "<methodCall"); b >= 0 {
		i = b // the call a credential went from: the next may follow
	}
	for i < len(s) {
		k := strings.Index(s[i:], "<methodCall")
		if k < 0 {
			return nil
		}
		k += i
		i = k + len("<methodCall")
		end := strings.Index(s[i:], "</methodCall>")
		if end < 0 {
			end = len(s)
		} else {
			end += i
		}
		var types [4]byte // 's' a string, 'i' an integer, 'o' anything else
		p := i
		for n := 0; n < len(types); n++ {
			q := strings.Index(s[p:end], "<param>")
			if q < 0 {
				break
			}
			p += q + len("<param>")
			typ, vs, ve := xmlrpcValue(s, p, end)
			types[n] = typ
			if typ == 's' && ve > vs && n > 0 && (types[n-1] == 's' || n == 2 && types[0] == 's' && types[1] == 'i') &&
				vs >= from && !startsWithMarker(s, vs) {
				return []int{vs, ve, -1, -1, vs, ve}
			}
		}
	}
	return nil
}

// xmlrpcValue reads the <value> of a param whose body starts at s[p]: its
// type and the span of a string's text.
func xmlrpcValue(s string, p, end int) (typ byte, vs, ve int) {
	skip := func(j int) int {
		for j < end && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
			j++
		}
		return j
	}
	j := skip(p)
	if !strings.HasPrefix(s[j:end], "<value>") {
		return 'o', 0, 0
	}
	j += len("<value>")
	t := skip(j)
	switch {
	case strings.HasPrefix(s[t:end], "<string>"):
		vs = t + len("<string>")
		e := strings.Index(s[vs:end], "</string>")
		if e < 0 {
			return 'o', 0, 0
		}
		return 's', vs, vs + e
	case strings.HasPrefix(s[t:end], "<int>"), strings.HasPrefix(s[t:end], "<i4>"), strings.HasPrefix(s[t:end], "<i8>"):
		return 'i', 0, 0
	case t < end && s[t] != '<':
		// An untyped value is a string.
		e := strings.Index(s[j:end], "</value>")
		if e < 0 {
			return 'o', 0, 0
		}
		return 's', j, j + e
	}
	return 'o', 0, 0
}
