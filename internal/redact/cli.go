package redact

import "strings"

// Command lines (a shell trace, a CI log, a process listing) pass
// credentials as arguments. Two rules read them:
//
//   - a flag whose name the key matcher calls secret, or whose last word
//     ends in "pass" (--password, --token=, -storepass, -passin,
//     --api-key), takes its value as a secret whatever its shape;
//   - a one-letter flag that command-line tools give to passwords and
//     tokens (-p, -P, -w, -a, -t) takes its value as a secret when the value
//     looks like one (credentialArg): at least six characters, a UUID or
//     letters mixed with symbols or with both cases and digits, and none of
//     the punctuation of a path, a host, an address, a tag or a format
//     (/ . : @ = % $ {) — so "-p 5432", "-t app:v2", "-w '%{http_code}'",
//     "logs -p api-7d9f8" stay; beside a user's flag (-u, -U, --user) a
//     -p or -P takes any value of six characters or more that is no number
//     and has none of that punctuation (altool's "-u … -p abcd-efgh-ijkl-mnop").
//
// A user's flag whose value is user:password (curl's -u and --user, -U and
// --proxy-user, git's and httpie's --auth), or user%password after -U
// (Samba's smbclient, rpcclient, smbcacls), loses the part after the first
// ':' or '%' — unless the pair is a container's or a file's user:group (docker
// run -u 1000:1000, --user app:app): a number, the user's name again, or
// a line that runs a container or changes an owner. sshpass's -p is a
// password whatever its shape.
//
// A connect string user/password@//host or user/password@host:port
// (Oracle's EZConnect, after sqlplus, rman, expdp) loses its password.

// cliShortSecret are the one-letter flags whose value may be a credential.
const cliShortSecret = "pPwatkK"

// findCLIFlag finds a flag's secret value, or a connect string's password,
// starting at or after from.
func findCLIFlag(s string, from int) []int {
	for d := range byteMarks(s, from, '-') {
		if d == 0 || s[d-1] != ' ' && s[d-1] != '\t' {
			continue
		}
		ns := d + 1
		if ns < len(s) && s[ns] == '-' {
			ns++
		}
		ne := ns
		for ne < len(s) && (isAlnum(s[ne]) || s[ne] == '-' || s[ne] == '_') {
			ne++
		}
		if ne == ns || !isLetter(s[ns]) || ne >= len(s) {
			continue
		}
		name := s[ns:ne]
		short := ns == d+1 && len(name) == 1
		pair := short && (name[0] == 'u' || name[0] == 'U') || !short && userPairFlags[strings.ToLower(name)]
		secret := short && strings.IndexByte(cliShortSecret, name[0]) >= 0 || !short && secretFlag(name)
		if !pair && !secret {
			continue
		}
		v := ne
		switch {
		case s[v] == '=' && !short:
			v++
		case s[v] == ' ' || s[v] == '\t':
			v = skipBlanks(s, v)
		default:
			continue
		}
		if v >= len(s) || s[v] == '-' || s[v] == '\n' || s[v] == '\r' {
			continue
		}
		vs, ve := v, v
		if q := s[v]; q == '\'' || q == '"' {
			ve = v + 1
			for ve < len(s) && s[ve] != q && s[ve] != '\n' {
				ve++
			}
			if ve >= len(s) || s[ve] != q {
				continue
			}
			vs++
		} else {
			for ve < len(s) && s[ve] != ' ' && s[ve] != '\t' && s[ve] != '\n' && s[ve] != '\r' {
				ve++
			}
		}
		if ve <= vs || startsWithMarker(s, vs) || isLiteral(s[vs:ve]) {
			continue
		}
		if pair {
			if ps := userPairPassword(s, d, vs, ve); ps > 0 {
				return []int{d, ve, d, ne, ps, ve}
			}
			if !secret {
				continue
			}
		}
		if short && name[0] == 'p' && s[vs] != '$' && strings.Contains(s[lineStartOf(s, d):d], "sshpass") {
			return []int{d, ve, d, ne, vs, ve} // sshpass -p takes the password itself, whatever its shape
		}
		if short && !credentialArg(s[vs:ve]) && !(name[0] == 'p' || name[0] == 'P') || short && (name[0] == 'p' || name[0] == 'P') && !credentialArg(s[vs:ve]) && !passwordBesideUser(s, d, s[vs:ve]) {
			continue
		}
		return []int{d, ve, d, ne, vs, ve}
	}
	return nil
}

// secretFlag reports whether a long flag's name says its value is a
// credential: a secret key (KeyKind), or a last word ending in "pass"
// (storepass, keypass) or OpenSSL's passin and passout. A flag naming
// where the secret comes from (--password-stdin, --token-file) or a switch
// (--no-password) is not.
func secretFlag(name string) bool {
	var buf [8]string
	words := splitWords(name, buf[:0])
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if last == "stdin" || last == "env" || last == "prompt" || last == "cmd" || last == "command" || words[0] == "no" {
		return false // where the secret comes from, or a switch (--no-password)
	}
	if _, ok := KeyKind(name); ok {
		return true
	}
	return strings.HasSuffix(last, "pass") || last == "passin" || last == "passout"
}

// credentialArg reports whether a one-letter flag's value looks like a
// credential rather than a port, a path, a host, a tag, a name or a word:
// a UUID, letters with a symbol other than '-' and '_', or upper case,
// lower case and digits together ("podname-7d9f8" and "Release" stay).
func credentialArg(v string) bool {
	// An '@' is a user@host's, but not as the last character: a host
	// follows it (PsExec's "-p 3yqKMRT4Baa@" is a password).
	if len(v) < 6 || strings.ContainsAny(v, "/.:=%${") || strings.Contains(v[:len(v)-1], "@") {
		return false
	}
	if isUUID(v) || keyHex(v) {
		return true
	}
	var digit, symbol, upper, lower bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isUpper(c):
			upper = true
		case isLower(c):
			lower = true
		case isDigit(c):
			digit = true
		case c != '-' && c != '_':
			symbol = true
		}
	}
	return (upper || lower) && symbol || upper && lower && digit
}

// keyHex reports whether a flag's value is 32 hex digits or more with
// letters among them: after a key's, a token's or a password's flag that
// is an API key written in hex (a 40-digit one is no commit's digest
// there), while a tag, a port or a word stays.
func keyHex(v string) bool {
	if len(v) < 32 {
		return false
	}
	letter := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return letter
}

// passwordBesideUser reports whether a -p flag's value v is a password
// because the same command line names a user (-u, -U, --user, --username):
// six characters or more, not a number (psql's "-U app -p 5432" is a port)
// and none of the punctuation of a path, a host or a format.
func passwordBesideUser(s string, d int, v string) bool {
	return besideUser(s, d, v, "/.:=%${@", false, " -u ", " -U ", " --user ", " --user=", " --username ", " --username=")
}

// besideUser reports whether v, a password flag's value at s[d], is a
// password because its line names a user by one of userFlags (compared
// lower-cased when fold): six characters or more, not all digits, none of
// notPassword (a path's, a host's or a format's punctuation).
func besideUser(s string, d int, v, notPassword string, fold bool, userFlags ...string) bool {
	if len(v) < 6 || isAllDigits(v) || strings.ContainsAny(v, notPassword) {
		return false
	}
	line := s[lineStartOf(s, d):lineEnd(s, d)]
	if fold {
		line = strings.ToLower(line)
	}
	for _, f := range userFlags {
		if strings.Contains(line, f) {
			return true
		}
	}
	return false
}

// findContentFlag finds the value of a long flag whose name is a content
// key (--prompt, --system-prompt, --message, --query): a quoted string, or
// one word, after a blank or '='.
func findContentFlag(s string, from int) []int {
	for d := range marks(s, from, " --") {
		ns := d + 3
		ne := ns
		for ne < len(s) && (isAlnum(s[ne]) || s[ne] == '-' || s[ne] == '_') {
			ne++
		}
		if ne == ns || ne >= len(s) || s[ne] != ' ' && s[ne] != '=' || !hasContentNeedle(s[ns:ne]) || !roleOf(s[ns:ne]).text {
			continue
		}
		v := ne + 1
		if s[ne] == ' ' {
			v = skipBlanks(s, ne)
		}
		if v >= len(s) || s[v] == '-' || s[v] == '\n' || s[v] == '\r' || startsWithMarker(s, v) {
			continue
		}
		vs, ve := v, v
		if q := s[v]; q == '\'' || q == '"' {
			e := closingQuote(s, v)
			if e < 0 {
				continue
			}
			vs, ve = v+1, e
		} else {
			for ve < len(s) && !isSpace(s[ve]) {
				ve++
			}
		}
		if ve <= vs || isLiteral(s[vs:ve]) || startsWithMarker(s, vs) {
			continue
		}
		return []int{d + 1, ve, ns, ne, vs, ve}
	}
	return nil
}

// findConnectString finds the password of user/password@//host or
// user/password@host:port, after whitespace or a quote.
func findConnectString(s string, from int) []int {
	for a := range byteMarks(s, from, '@') {
		// After '@': "//" or a host and a port.
		h := a + 1
		if !strings.HasPrefix(s[h:], "//") {
			for h < len(s) && (isAlnum(s[h]) || s[h] == '.' || s[h] == '-') {
				h++
			}
			p := h + 1
			for p < len(s) && isDigit(s[p]) {
				p++
			}
			if h == a+1 || h >= len(s) || s[h] != ':' || p == h+1 || p-h > 6 || p < len(s) && isAlnum(s[p]) {
				continue // not host:port (an image digest's sha256:… is not)
			}
		}
		// Before '@': user/password, the user an identifier after a blank.
		ps := a
		for ps > from && s[ps-1] != '/' && s[ps-1] != ' ' && s[ps-1] != '\n' && s[ps-1] != '\t' && a-ps < 128 {
			ps--
		}
		if ps == a || ps == from || s[ps-1] != '/' {
			continue
		}
		us := ps - 1
		for us > from && (isAlnum(s[us-1]) || s[us-1] == '_' || s[us-1] == '$' || s[us-1] == '#') {
			us--
		}
		if us == ps-1 || us > from && s[us-1] != ' ' && s[us-1] != '\t' && s[us-1] != '\'' && s[us-1] != '"' && s[us-1] != '\n' || startsWithMarker(s, ps) {
			continue
		}
		return []int{us, a, us, ps - 1, ps, a}
	}
	return nil
}

// authVerbs are the subcommands a command-line tool takes a credential
// after, as a positional argument: "snyk auth <token>", "<tool> login
// <token>", "ngrok authtoken <token>", "<tool> config add-authtoken …".
var authVerbs = []string{"auth", "login", "token", "authenticate", "authtoken", "add-authtoken", "set-token"}

// authVerbSubs may stand between an auth verb and its credential ("<tool>
// auth login <token>", "<tool> token set <token>").
var authVerbSubs = map[string]bool{"login": true, "set": true, "add": true, "token": true}

// findAuthArg finds the credential a command line passes as the positional
// argument of an auth verb: the verb follows the tool's name (a word and a
// blank), and the argument is a UUID or random-looking — letters and
// digits mixed, twenty characters or more, or a credential's shape by
// credentialArg. "gh auth login --web", "docker login registry.example.com"
// and "npm token list" stay: a flag, a host and a word are no credential.
func findAuthArg(s string, from int) []int {
	for i := from; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			continue
		}
		// The tool's name before the blank.
		if i == 0 || !(isAlnum(s[i-1]) || s[i-1] == '-' || s[i-1] == '_') {
			continue
		}
		vs := i + 1
		verb := ""
		for _, v := range authVerbs {
			if hasPrefixFold(s[vs:], v) && vs+len(v) < len(s) && (s[vs+len(v)] == ' ' || s[vs+len(v)] == '\t') {
				verb = v
				break
			}
		}
		if verb == "" {
			continue
		}
		a := skipBlanks(s, vs+len(verb))
		for n := 0; n < 2; n++ {
			e := a
			for e < len(s) && !isSpace(s[e]) {
				e++
			}
			if !authVerbSubs[strings.ToLower(s[a:e])] || e >= len(s) || s[e] == '\n' || s[e] == '\r' {
				break
			}
			a = skipBlanks(s, e)
		}
		ve := a
		for ve < len(s) && !isSpace(s[ve]) && s[ve] != '"' && s[ve] != '\'' {
			ve++
		}
		if ve == a || s[a] == '-' || startsWithMarker(s, a) || isLiteral(s[a:ve]) || !randomArg(s[a:ve]) {
			continue
		}
		return []int{vs, ve, vs, vs + len(verb), a, ve}
	}
	return nil
}

// randomArg reports whether a positional argument reads as a credential: a
// UUID, a credential's shape (credentialArg), or twenty characters or more
// of letters and digits mixed (with '-' and '_') and no path or host
// punctuation.
func randomArg(v string) bool {
	if isUUID(v) || credentialArg(v) {
		return true
	}
	if len(v) < 20 || strings.ContainsAny(v, "/.:@=%${") {
		return false
	}
	var letter, digit int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isLetter(c):
			letter++
		case isDigit(c):
			digit++
		case c != '-' && c != '_':
			return false
		}
	}
	return letter > 0 && digit >= 3
}

// userPairFlags are the long flags whose value may be user:password.
var userPairFlags = map[string]bool{
	"user": true, "proxy-user": true, "proxy_user": true, "auth": true, "basic-auth": true,
	"basic_auth": true, "credentials": true, "creds": true, "userpass": true,
}

// userPairPassword returns where the password of a user's flag's value
// s[vs:ve] starts when the value is user:password, or -1: the user part a
// name (no '/', no space, no '('), the password neither a number, nor the
// user's name again (user:group), nor a variable, on a line that runs no
// container and changes no owner.
func userPairPassword(s string, d, vs, ve int) int {
	v := s[vs:ve]
	c := strings.IndexByte(v, ':')
	if c < 0 && s[d+1] == 'U' {
		c = strings.IndexByte(v, '%') // Samba's -U user%password
	}
	if c <= 0 || c == len(v)-1 || strings.ContainsAny(v[:c], "/( ") {
		return -1
	}
	user, pass := v[:c], v[c+1:]
	if isAllDigits(pass) || pass == user || pass[0] == '$' || startsWithMarker(pass, 0) {
		return -1
	}
	pre := strings.ToLower(s[lineStartOf(s, d):d])
	for _, w := range []string{"docker", "podman", "nerdctl", "kubectl", "chown", "chgrp", "runuser", "crictl", "ctr "} {
		if strings.Contains(pre, w) {
			return -1
		}
	}
	return vs + c + 1
}

// A Basic credential is built in a shell by piping user:password into
// base64 (echo -n user:password | base64), and a shell's trace (set -x)
// prints the pipe's commands on lines of their own: "++ echo -n
// user:password" and then "++ base64 -w 0". An echo's or a printf's
// argument that is user:password, on a line that pipes into base64 or
// before a traced base64 line, loses its password.

// findEncodedPair finds the password of a user:password echoed into base64.
func findEncodedPair(s string, from int) []int {
	return findInLines(s, from, encodedPairIn)
}

func encodedPairIn(s string, ls, le int) []int {
	line := s[ls:le]
	k := strings.Index(line, "echo ")
	if k < 0 {
		k = strings.Index(line, "printf ")
	}
	if k < 0 || k > 0 && isWord(line[k-1]) {
		return nil
	}
	end := len(line)
	if p := strings.IndexByte(line[k:], '|'); p >= 0 {
		end = k + p
		if !strings.Contains(line[end:], "base64") {
			return nil
		}
	} else {
		next := ""
		if le+1 < len(s) {
			next = strings.TrimLeft(s[le+1:lineEnd(s, le+1)], "+ \t")
		}
		if !strings.HasPrefix(next, "base64") {
			return nil
		}
	}
	args := strings.TrimRight(line[k:end], " \t\r")
	a := strings.LastIndexAny(args, " \t") + 1
	vs, ve := ls+k+a, ls+k+len(args)
	if vs < ve && (s[vs] == '\'' || s[vs] == '"') && s[ve-1] == s[vs] {
		vs++
		ve--
	}
	v := s[vs:ve]
	c := strings.IndexByte(v, ':')
	if c <= 0 || c == len(v)-1 || v[c+1] == '$' || strings.ContainsAny(v[:c], "/ ") || startsWithMarker(s, vs+c+1) {
		return nil
	}
	return []int{ls + k, ve, -1, -1, vs + c + 1, ve}
}

// Tools also name a credential by their own convention, where no flag's
// name says "password":
//
//   - a Windows-style flag /p:, /pass:, /password:, /pwd: or /rp (a task's
//     run-as password), with ':' or a blank before its value (FreeRDP's
//     "/p:…", schtasks' "/rp …"), takes a value that looks like a credential
//     (credentialArg), or beside a user's /u, /user or /ru any value of six
//     characters or more that is no number and has no path, host or format
//     punctuation; MSBuild's "/p:Configuration=Release" stays;
//   - a password fused to a lower-case -p after a blank or a quote (7-Zip's
//     and RAR's "-pSECRET") when it looks like a credential: "-pthread",
//     "-pedantic" and "-p2222" stay;
//   - a tool that gives a flag to a credential takes that flag's value
//     whatever its shape but a path's (toolFlags: SNMP's community -c and v3
//     passphrases -A and -X, ipmitool's -P and Kg keys, redis-cli's -a,
//     mosquitto's -P); snmpd's "-c /etc/snmp/snmpd.conf" is a file;
//   - a tool that takes a password by position (htpasswd -b FILE USER PASS,
//     htpasswd -nb USER PASS, net user NAME PASS) loses that argument;
//   - a process's argument vector printed with its NUL separators
//     (/proc/<pid>/cmdline, an audit EXECVE record: "\x00", "\0", "^@",
//     "\u0000" or the byte itself between arguments) is read as a command
//     line whose separators are blanks.

// slashSecretFlags are the Windows-style flags whose value is a password.
var slashSecretFlags = []string{"password", "pass", "pwd", "rp", "p"}

// findSlashFlag finds the value of a Windows-style password flag.
func findSlashFlag(s string, from int) []int {
	for d := range byteMarks(s, from, '/') {
		if d == 0 || s[d-1] != ' ' && s[d-1] != '\t' {
			continue
		}
		ne := d + 1
		for ne < len(s) && isLetter(s[ne]) {
			ne++
		}
		if ne >= len(s) || s[ne] != ':' && s[ne] != ' ' {
			continue
		}
		name := strings.ToLower(s[d+1 : ne])
		known := false
		for _, f := range slashSecretFlags {
			known = known || name == f
		}
		if !known {
			continue
		}
		vs := ne + 1
		if s[ne] == ' ' {
			vs = skipBlanks(s, ne)
		}
		if vs >= len(s) {
			return nil
		}
		q := s[vs]
		if q == '"' || q == '\'' {
			vs++
		}
		ve := vs
		for ve < len(s) && !isSpace(s[ve]) && (q != '"' && q != '\'' || s[ve] != q) {
			ve++
		}
		if ve == vs || s[vs] == '/' || startsWithMarker(s, vs) || isLiteral(s[vs:ve]) {
			continue
		}
		v := s[vs:ve]
		if !credentialArg(v) && !slashBesideUser(s, d, v) {
			continue
		}
		return []int{d, ve, d, ne, vs, ve}
	}
	return nil
}

// slashBesideUser reports whether a Windows-style password flag's value v
// is a password because its line names a user (/u, /user, /ru).
func slashBesideUser(s string, d int, v string) bool {
	return besideUser(s, d, v, "/.:=%${@*", true, " /u:", " /u ", " /user:", " /ru ")
}

// findFusedPassword finds a password fused to a lower-case -p.
func findFusedPassword(s string, from int) []int {
	for d := range marks(s, from, "-p") {
		if d == 0 || s[d-1] != ' ' && s[d-1] != '\t' && s[d-1] != '\'' && s[d-1] != '"' {
			continue
		}
		vs, ve := d+2, d+2
		for ve < len(s) && !isSpace(s[ve]) && s[ve] != '\'' && s[ve] != '"' && s[ve] != ',' && s[ve] != ']' && s[ve] != ')' {
			ve++
		}
		if ve == vs || startsWithMarker(s, vs) || !credentialArg(s[vs:ve]) {
			continue
		}
		return []int{d, ve, d, vs, vs, ve}
	}
	return nil
}

// toolFlags are the tools that give a one-letter flag to a credential, and
// those flags: the value goes whatever its shape.
var toolFlags = []struct{ tool, flags string }{
	{"snmp", "cAX"},     // community; v3 authentication and privacy passphrases
	{"ipmitool", "Pky"}, // password; Kg key, in text and in hex
	{"redis-cli", "a"},  // password
	{"mosquitto_", "P"}, // password
}

// findToolFlag finds the value of a flag toolFlags names on a line that
// runs its tool.
func findToolFlag(s string, from int) []int {
	for ls := lineStartOf(s, from); ls < len(s); {
		le := lineEnd(s, ls)
		line := s[ls:le]
		for _, t := range toolFlags {
			at := strings.Index(line, t.tool)
			if at < 0 {
				continue
			}
			for j := at + len(t.tool); j+2 < len(line); j++ {
				if line[j] != '-' || !isSpace(line[j-1]) || strings.IndexByte(t.flags, line[j+1]) < 0 || line[j+2] != ' ' {
					continue
				}
				vs := skipBlanks(line, j+2)
				q := byte(0)
				if vs < len(line) && (line[vs] == '\'' || line[vs] == '"') {
					q = line[vs]
					vs++
				}
				ve := vs
				for ve < len(line) && (q == 0 && !isSpace(line[ve]) || q != 0 && line[ve] != q) {
					ve++
				}
				if ve == vs || ls+vs < from || line[vs] == '-' || line[vs] == '$' || line[vs] == '~' || strings.Contains(line[vs:ve], "/") || startsWithMarker(line, vs) || isLiteral(line[vs:ve]) {
					continue
				}
				return []int{ls + j, ls + ve, ls + j, ls + j + 2, ls + vs, ls + ve}
			}
		}
		ls = le + 1
	}
	return nil
}

// findPositionalPassword finds the password a tool takes by position:
// htpasswd's last argument in batch mode (-b; after FILE and USER, or
// after USER alone with -n), net user's second.
func findPositionalPassword(s string, from int) []int {
	for ls := lineStartOf(s, from); ls < len(s); {
		le := lineEnd(s, ls)
		line := s[ls:le]
		if at := strings.Index(line, "htpasswd "); at >= 0 {
			if vs, ve := htpasswdPassword(line, at+len("htpasswd ")); ve > vs && ls+vs >= from {
				return []int{ls + at, ls + ve, ls + at, ls + at + 8, ls + vs, ls + ve}
			}
		}
		if at := strings.Index(strings.ToLower(line), "net user "); at >= 0 {
			args := argsOf(line, at+len("net user "), 2)
			if len(args) == 2 {
				vs, ve := args[1][0], args[1][1]
				if v := line[vs:ve]; v != "*" && v[0] != '/' && v[0] != '$' && v[0] != '%' && ls+vs >= from && !startsWithMarker(line, vs) {
					return []int{ls + at, ls + ve, ls + at, ls + at + 8, ls + vs, ls + ve}
				}
			}
		}
		ls = le + 1
	}
	return nil
}

// htpasswdPassword returns the bounds of the password in htpasswd's
// arguments starting at i, or (0, 0) when the line is not in batch mode.
func htpasswdPassword(line string, i int) (int, int) {
	batch, nofile := false, false
	var pos [][2]int
	for _, a := range argsOf(line, i, 8) {
		v := line[a[0]:a[1]]
		if len(pos) == 0 && len(v) > 1 && v[0] == '-' {
			batch = batch || strings.IndexByte(v, 'b') > 0
			nofile = nofile || strings.IndexByte(v, 'n') > 0
			continue
		}
		if len(pos) == 0 && len(v) > 0 && isAllDigits(v) {
			continue // -C's cost, -r's rounds
		}
		pos = append(pos, a)
	}
	want := 3
	if nofile {
		want = 2
	}
	if !batch || len(pos) < want {
		return 0, 0
	}
	a := pos[want-1]
	if v := line[a[0]:a[1]]; v[0] == '$' || startsWithMarker(line, a[0]) {
		return 0, 0
	}
	return a[0], a[1]
}

// argsOf splits up to n blank-separated arguments of line from i, each
// without its quotes.
func argsOf(line string, i, n int) [][2]int {
	var out [][2]int
	for len(out) < n {
		i = skipBlanks(line, i)
		if i >= len(line) {
			break
		}
		if q := line[i]; q == '\'' || q == '"' {
			e := strings.IndexByte(line[i+1:], q)
			if e < 0 {
				break
			}
			if e > 0 {
				out = append(out, [2]int{i + 1, i + 1 + e})
			}
			i += e + 2
			continue
		}
		e := i
		for e < len(line) && !isSpace(line[e]) && line[e] != ';' && line[e] != '|' && line[e] != '&' {
			e++
		}
		if e == i {
			break
		}
		out = append(out, [2]int{i, e})
		i = e
	}
	return out
}

// argvSeparators are how a NUL between a process's arguments is printed.
var argvSeparators = []string{`\u0000`, `\x00`, `\0`, "^@", "\x00"}

// findArgvFlag reads a NUL-separated argument vector as a command line:
// each separator becomes as many blanks, so the flag rules' offsets hold
// (findCLIFlag's and a fused -p's).
func findArgvFlag(s string, from int) []int {
	b := []byte(s)
	for _, sep := range argvSeparators {
		for i := 0; ; {
			j := strings.Index(s[i:], sep)
			if j < 0 {
				break
			}
			j += i
			if sep == `\0` && j+2 < len(s) && isDigit(s[j+2]) {
				i = j + 2 // an octal escape \012 is no separator
				continue
			}
			for k := j; k < j+len(sep); k++ {
				b[k] = ' '
			}
			i = j + len(sep)
		}
	}
	n := string(b)
	if n == s {
		return nil
	}
	return earlier(findCLIFlag(n, from), findFusedPassword(n, from))
}
