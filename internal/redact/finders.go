package redact

import (
	"slices"
	"strings"
	"sync"
)

// Hand-written finders for Pattern.Find. Each one hops between the bytes
// that must be there (':' or '=', '?' or '&', "://") with the strings
// package's fast searches and looks around them by hand.

// findKeyValue finds "key: value", "key=value", "key => value",
// "key": "value" and \"key\":\"value\" where the key matcher calls the key
// secret. The key is a run of letters, digits and "_.-", or two such runs
// separated by one space ("API key", "access tokens"). The value is
// double-quoted (JSON escapes allowed, the closing quote optional so that
// truncated text is covered), quoted with escaped quotes (JSON inside a
// JSON string), single-quoted, or a bare token ending at whitespace or one
// of "\&,;<>{}()`. An auth scheme (Bearer, Basic, Token, Digest) before the
// value is kept. A value on the next line is not taken: "credentials:" in
// YAML heads a block.
func findKeyValue(s string, from int) []int {
	for i := from; i < len(s); {
		sep := i
		for sep < len(s) && s[sep] != ':' && s[sep] != '=' {
			sep++
		}
		if sep == len(s) {
			return nil
		}
		i = sep + 1
		keyStart, keyEnd, kind := keyBefore(s, from, sep)
		if keyStart < 0 || !keyInContext(s, keyStart, keyEnd, sep) {
			continue
		}
		v := sep + 1
		if s[sep] == ':' && phpVisibility(s, v) {
			continue // ["secret":protected]=>: a var_dump member's key
		}
		if v < len(s) && (s[v] == '>' && s[sep] == '=' || s[v] == '=' && s[sep] == ':') { // => and :=
			v++
		}
		if t := skipBlanks(s, v); t < len(s) && s[t] == '(' && kind != KindCookie {
			// A tuple under a secret key (requests' auth=('user', 'pass')):
			// every member is the secret.
			if e := tupleEnd(s, t); e > t+1 {
				return []int{keyStart, e + 1, keyStart, keyEnd, t + 1, e}
			}
		}
		if t := v; s[sep] == '=' && t+1 < len(s) && s[t] == '{' && s[t+1] != ' ' && s[t+1] != '\n' && !personal(kind) && kind != KindCookie && !isReference(s, t) {
			// An ODBC or ADO connection string's braced value
			// (Pwd={s3;cr}}et}), the brace right after '=': it runs to
			// the lone '}', "}}" standing for one, and may hold ';' and
			// '='. A code's object ("creds = { password: … }") has
			// blanks around its brace.
			if e := bracedValueEnd(s, t); e > t+1 {
				return []int{keyStart, e + 1, keyStart, keyEnd, t + 1, e}
			}
		}
		var quote byte
		if keyStart > 0 && s[keyStart-1] == '\'' {
			quote = '\'' // 'Authorization: Token …': the value ends at the quote
		}
		vs, ve, end := valueAt(s, v, kind == KindCookie, quote)
		if vs < len(s) && startsWithMarker(s, vs) {
			continue // redacted already: a content rule's Text, or a marker
		}
		if versionPin(s, keyEnd, vs, ve) {
			continue // a requirement's pin: a package named like a secret (keytar==7.9.0)
		}
		if vs < len(s) && (isReference(s, vs) || kind == KindBearer && isReference(s, afterWord(s, vs)) || ve > vs && !personal(kind) && isLiteral(s[vs:ve])) {
			continue // where the secret is kept (${DB_PASSWORD}, !secret name, Bearer {{token}}), or none (False)
		}
		if kind == KindBearer && ve == end && ve > vs {
			if cs, ce, ok := credentialSlot(s, vs, ve); ok && !isReference(s, cs) {
				if s[sep] == ':' && headerLineStart(s, keyStart) {
					ce = lineEnd(s, ce) // a header line's credential runs to its end
					ce = skipBlanksBack(s, cs, ce)
				}
				return []int{keyStart, ce, keyStart, keyEnd, cs, ce}
			}
		}
		if ve <= vs || s[sep] == ':' && proseAfterLabel(s, vs, ve) && !personal(kind) || pathUnderPWD(s, keyStart, keyEnd, vs, ve) || statusAnswer(s, vs, ve) {
			continue
		}
		if s[sep] == ':' && ve == end && isBlockIndicator(s[vs:ve]) {
			// A YAML block scalar: the secret is the indented block below.
			if bs, be := yamlValue(s, keyStart, sep+1); be > bs {
				return []int{keyStart, be, keyStart, keyEnd, vs, be}
			}
			continue
		}
		if kind == KindBearer && s[sep] == ':' && ve == end && headerLineStart(s, keyStart) {
			// An Authorization header's credential runs to the end of its
			// line: a Digest or AWS4 value has parameters after commas.
			ve = lineEnd(s, ve)
			ve = skipBlanksBack(s, vs, ve)
			if strings.Contains(s[vs:ve], markerPrefix) {
				ve = end // already redacted in part by a more specific rule
			}
			end = ve
		}
		if personal(kind) && (isLiteral(s[vs:ve]) || inThingRecord(s, keyStart, keyEnd)) {
			continue // null, or a repository's full_name
		}
		if ve == end && personal(kind) {
			// A bare phone number, card or name runs over its spaces.
			ve = personalEnd(s, vs, ve, kind)
			if kind == KindPersonal && addressKey(s[keyStart:keyEnd]) {
				ve = addressEnd(s, vs, ve)
			}
			end = ve
		}
		return []int{keyStart, end, keyStart, keyEnd, vs, ve}
	}
	return nil
}

// isReference reports whether the value at s[i] names where a secret is
// kept rather than being one: a variable of a shell, a config file or a
// template (${DB_PASSWORD}, ${?APPLICATION_SECRET}, {{token}}, %(secret)s,
// {env:VAR}), or a YAML tag that looks a value up by name (Home Assistant's
// `!secret name`, MkDocs' `!ENV NAME`, CloudFormation's `!Ref Param`), the
// name a plain identifier. The whole value must be the reference.
func isReference(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	end := func(k int) bool {
		return k >= len(s) || s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r' ||
			s[k] == '"' || s[k] == '\'' || s[k] == ',' || s[k] == '}' || s[k] == ')' || s[k] == ']' || s[k] == ';'
	}
	name := func(k int) int { // the end of an identifier at k
		for k < len(s) && (isAlnum(s[k]) || s[k] == '_' || s[k] == '.' || s[k] == '-') {
			k++
		}
		return k
	}
	switch {
	case strings.HasPrefix(s[i:], "${"), strings.HasPrefix(s[i:], "{{"), strings.HasPrefix(s[i:], "%("):
		open, close := 2, "}"
		switch s[i] {
		case '{':
			close = "}}"
		case '%':
			close = ")s"
		}
		k := i + open
		for k < len(s) && (s[k] == ' ' || s[k] == '?' || s[k] == '$') {
			k++ // ${?OPTIONAL} (HOCON), {{ token }}, {{$dotenv NAME}}
		}
		n := name(k)
		if s[i] == '{' && n < len(s) && s[n] == ' ' {
			n = name(n + 1) // {{$dotenv NAME}}
		}
		for n < len(s) && s[n] == ' ' {
			n++
		}
		// A default (${DB_PASSWORD:-changeme}) may be the secret itself.
		return n > k && strings.HasPrefix(s[n:], close) && end(n+len(close))
	case s[i] == '!':
		t := i + 1
		for t < len(s) && isLetter(s[t]) || t < len(s) && s[t] == '_' {
			t++
		}
		switch strings.ToLower(s[i+1 : t]) {
		case "secret", "env", "env_var", "ref", "getatt", "import":
		default:
			return false
		}
		if t >= len(s) || s[t] != ' ' {
			return false
		}
		n := name(t + 1)
		return n > t+1 && end(n)
	}
	return false
}

// afterWord returns where the text after the word at s[v] and the blanks
// after it starts: past an Authorization value's scheme.
func afterWord(s string, v int) int {
	for v < len(s) && isAlnum(s[v]) {
		v++
	}
	return skipBlanks(s, v)
}

// tupleEnd returns the index of the ')' that closes the tuple opened at
// s[i] on its line, quotes respected, when it holds quoted members only;
// -1 otherwise.
func tupleEnd(s string, i int) int {
	var q byte
	quoted := false
	for k := i + 1; k < len(s) && k-i < 512; k++ {
		switch c := s[k]; {
		case q != 0:
			if c == '\\' {
				k++
			} else if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q, quoted = c, true
		case c == ')':
			if quoted {
				return k
			}
			return -1
		case c == '\n', c == '(', c == '[', c == '{':
			return -1
		case c != ',' && c != ' ':
			return -1
		}
	}
	return -1
}

// codeParam reports whether a query parameter's name ends in "code" with
// no word before it that makes the code a description (status_code,
// error_code, country_code are not secrets; verification_code, otp_code,
// auth_code are): a one-time code.
func codeParam(name string) bool {
	var buf [8]string
	words := splitWords(name, buf[:0])
	if len(words) < 2 || words[len(words)-1] != "code" {
		return false
	}
	for _, w := range words[:len(words)-1] {
		if MetaWords[w] || DescriptorWords[w] || codeQualifiers[w] {
			return false
		}
	}
	return true
}

// codeQualifiers make a code a classification, not a secret.
var codeQualifiers = map[string]bool{
	"country": true, "currency": true, "lang": true, "language": true, "locale": true,
	"zip": true, "postal": true, "post": true, "area": true, "http": true, "response": true,
	"exit": true, "return": true, "promo": true, "discount": true, "coupon": true,
	"product": true, "item": true, "airport": true, "iata": true, "icao": true, "source": true,
}

// codeValue reports whether a code's value could be a one-time code or a
// grant: six digits or more, or letters and digits together (FR, USD and
// 75001 are not).
func codeValue(v string) bool {
	digits, letters := 0, 0
	for i := 0; i < len(v); i++ {
		switch {
		case isDigit(v[i]):
			digits++
		case isLetter(v[i]):
			letters++
		}
	}
	return digits >= 6 || digits > 0 && letters > 0 && len(v) >= 6
}

// credentialSlot reads an Authorization value written bare, s[vs:ve] being
// its first word: when that word is an auth scheme (RFC 7235: a token of
// letters, digits and "-._", any vendor's — Bearer, GenieKey, SSWS, Splunk,
// DeepL-Auth-Key) and a credential follows it after a space, the
// credential is the secret whatever its shape, a UUID or a short word
// included. The credential is a token68 (with ':' for account:signature
// forms) or a list of auth-params (Hawk id="…", mac="…"), and ends where
// the header's value does: at whitespace that no ", name=" follows, a
// quote or bracket closing what holds the header, or the end of the line.
func credentialSlot(s string, vs, ve int) (cs, ce int, ok bool) {
	if ve-vs > 32 || !isLetter(s[vs]) || ve >= len(s) || s[ve] != ' ' {
		return 0, 0, false
	}
	for k := vs; k < ve; k++ {
		if c := s[k]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return 0, 0, false
		}
	}
	cs = skipBlanks(s, ve)
	if e := skipMarker(s, cs); e > cs {
		return cs, e + 1, true // redacted already: the scheme stays
	}
	k := cs
	for {
		st := k
		for k < len(s) && (isAlnum(s[k]) || strings.IndexByte("-._~+/:=", s[k]) >= 0) {
			k++
		}
		if k == st {
			break
		}
		if s[k-1] == '=' && k < len(s) && s[k] == '"' { // an auth-param's quoted value
			q := k + 1
			for q < len(s) && s[q] != '"' && s[q] != '\n' {
				q++
			}
			if q >= len(s) || s[q] != '"' {
				break
			}
			k = q + 1
		}
		if k+1 < len(s) && s[k] == ',' {
			if n := skipBlanks(s, k+1); n < len(s) && isLetter(s[n]) {
				if e := strings.IndexByte(s[n:min(len(s), n+32)], '='); e > 0 {
					k = n
					continue
				}
			}
		}
		break
	}
	if k-cs < 4 {
		return 0, 0, false
	}
	// Auth-params that name their secret (AWS4's Credential=, Signature=)
	// are redacted by name, and the names that describe them stay.
	for p := cs; p < k; {
		e := strings.IndexByte(s[p:k], '=')
		if e <= 0 {
			break
		}
		if _, secret := KeyKind(strings.TrimLeft(s[p:p+e], ", ")); secret {
			return 0, 0, false
		}
		n := strings.IndexByte(s[p+e:k], ',')
		if n < 0 {
			break
		}
		p += e + n + 1
	}
	return cs, k, true
}

// headerLineStart reports whether the key at s[i] starts a line, as an
// HTTP header does (also after curl -v's "> " and "< ").
func headerLineStart(s string, i int) bool {
	k := i
	if k >= 2 && (s[k-2] == '>' || s[k-2] == '<') && s[k-1] == ' ' {
		k -= 2
	}
	k = skipBlanksBack(s, 0, k)
	return k == 0 || s[k-1] == '\n' || s[k-1] == '\r'
}

// isBlockIndicator reports whether v is a YAML block scalar's indicator:
// | or > with an optional chomping sign and indentation.
func isBlockIndicator(v string) bool {
	return v != "" && (v[0] == '|' || v[0] == '>') && strings.Trim(v[1:], "+-0123456789") == ""
}

// personal reports whether kind is personal data rather than a credential.
func personal(kind Kind) bool {
	switch kind {
	case KindEmail, KindPhone, KindCard, KindSSN, KindIBAN, KindPersonal:
		return true
	}
	return false
}

// ibanComplete reports whether v, its spaces and dashes left out, is as
// long as its country's IBAN: a group after it is another word's.
func ibanComplete(v string) bool {
	n := 0
	for i := 0; i < len(v); i++ {
		if isAlnum(v[i]) {
			n++
		}
	}
	if len(v) < 2 {
		return false
	}
	want := ibanLengths[strings.ToUpper(v[:2])]
	return want > 0 && n >= want
}

// personalEnd extends the bare value s[vs:ve] of a personal key over the
// spaces its data is written with: the digit groups of a phone number,
// card, SSN or IBAN; the words of a name or an address, to the end of the
// line or the next ',', ';', '&', quote or "key=".
func personalEnd(s string, vs, ve int, kind Kind) int {
	k := ve
	switch kind {
	case KindEmail:
		return ve
	case KindPhone, KindCard, KindSSN, KindIBAN:
		for k < len(s) {
			if c := s[k]; c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' {
				if kind == KindIBAN && (nextIsPair(s, k+1) || ibanComplete(s[vs:k])) {
					break // the next word is another pair's key, or the IBAN is whole
				}
				if k+1 < len(s) && (isDigit(s[k+1]) || s[k+1] == '(' || kind == KindIBAN && isAlnum(s[k+1])) {
					k++
					continue
				}
				break
			}
			if !isAlnum(s[k]) {
				break
			}
			k++
		}
		return k
	}
	for k < len(s) {
		switch c := s[k]; c {
		case '\n', '\r', ',', ';', '&', '"', '\'', '|', '}', ']', '<':
			return k
		case ' ':
			if nextIsPair(s, k+1) || k+1 < len(s) && s[k+1] == '(' || idLabelAt(s, k+1) {
				return k
			}
		case 0xD8: // the Arabic comma, U+060C
			if k+1 < len(s) && s[k+1] == 0x8C {
				return k
			}
		}
		k++
	}
	return k
}

// idLabelAt reports whether an identity number's label (idLabels, any
// case) starts s[i:] as a word: a name written before it ends there
// ("Soyad: Çağlayan TC Kimlik No: …").
func idLabelAt(s string, i int) bool {
	if i >= len(s) || !isLetter(s[i]) {
		return false
	}
	for _, l := range idLabels {
		if len(s)-i >= len(l) && strings.EqualFold(s[i:i+len(l)], l) && (i+len(l) == len(s) || !isWord(s[i+len(l)])) {
			return true
		}
	}
	return false
}

// nextIsPair reports whether s[i:] starts a key and '=' or ':' (or the
// full-width colon of CJK text): a key of any script.
func nextIsPair(s string, i int) bool {
	k := i
	for k < len(s) && (isKeyByte(s[k]) || s[k] >= 0x80 && !strings.HasPrefix(s[k:], "：")) {
		k++
	}
	return k > i && k < len(s) && (s[k] == '=' || s[k] == ':' || strings.HasPrefix(s[k:], "："))
}

// addressEnd extends the bare address at s[vs:ve] under an address's key
// over its comma-separated parts — the street, then the postcode and city
// (`пта: 12, गांधी मार्ग, जयपुर 302001`) — up to the next key, a bracket, a
// line's end or 200 bytes.
func addressEnd(s string, vs, ve int) int {
	for ve < len(s) && ve-vs < 200 {
		k := ve
		switch {
		case s[k] == ',':
			k++
		case strings.HasPrefix(s[k:], "،"):
			k += len("،")
		default:
			return ve
		}
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if k >= len(s) || s[k] == '(' || nextIsPair(s, k) {
			return ve
		}
		e := personalEnd(s, k, k, KindPersonal)
		if e == k {
			return ve
		}
		ve = e
	}
	return ve
}

// addressKey reports whether a personal key names a postal address, in
// any of the languages PersonalKeys holds.
func addressKey(key string) bool {
	lk := strings.ToLower(key)
	if strings.Contains(lk, "addr") || strings.Contains(lk, "adres") || strings.Contains(lk, "adress") {
		return true
	}
	switch lk {
	case "anschrift", "osoite", "aadress", "cím", "lakcím", "morada", "endereço", "endereco", "indirizzo",
		"direccion", "dirección", "адрес", "адреса", "διεύθυνση", "כתובת", "العنوان", "عنوان", "पता",
		"ที่อยู่", "住所", "주소", "地址", "住址",
		// Lao, Georgian, Armenian, Mongolian, Uzbek in both scripts,
		// Burmese, Zulu, Yoruba, Khmer, Amharic, Swahili and Hausa
		"ທີ່ຢູ່", "მისამართი", "հասցե", "хаяг", "manzil", "manzili", "манзил", "манзили", "လိပ်စာ", "ikheli",
		"àdírẹ́sì", "អាសយដ្ឋាន", "አድራሻ", "anwani", "adireshi":
		return true
	}
	return false
}

// proseAfterLabel reports whether the bare value s[vs:ve] after a ':' is
// the first word of a sentence rather than a credential: a plain word
// (letters only, at most one capital, first) followed by a space and
// another word — "ExpiredToken: The security token…", "failed to retrieve
// credentials: failed to refresh…".
func proseAfterLabel(s string, vs, ve int) bool {
	if vs > 0 && (s[vs-1] == '"' || s[vs-1] == '\'') || ve-vs > 20 || ve+1 >= len(s) || s[ve] != ' ' || !isLetter(s[ve+1]) {
		return false
	}
	for k := vs; k < ve; k++ {
		if c := s[k]; !(isLower(c) || k == vs && isUpper(c)) {
			return false
		}
	}
	return true
}

// pathUnderPWD reports whether the value is the working directory of a
// shell or sudo log (PWD=/home/vagrant), not a password.
func pathUnderPWD(s string, ks, ke, vs, ve int) bool {
	return strings.EqualFold(s[ks:ke], "pwd") && vs < ve && s[vs] == '/' && !strings.ContainsAny(s[vs:ve], "@:")
}

// keyInContext reports whether the key at [start, end), followed by the
// separator at sep, is a key rather than part of a reference: a name right
// after '/' or '@' is a host or a path (//auth.example.com:443,
// /v1/auth:login), a name between colons is a field of an ARN or a URN
// (arn:aws:secretsmanager:…:secret:prod/openai), and host.name:port is an
// address.
func keyInContext(s string, start, end, sep int) bool {
	if loggerName(s[start:end]) {
		return false
	}
	if start > 0 {
		switch s[start-1] {
		case '/', '@':
			return false
		case ':':
			if s[sep] == ':' {
				return false
			}
		}
	}
	if end < len(s) && s[end] == ':' && strings.IndexByte(s[start:end], '.') >= 0 {
		d := end + 1
		for d < len(s) && isDigit(s[d]) {
			d++
		}
		if d > end+1 && (d == len(s) || !isKeyByte(s[d])) {
			return false
		}
	}
	return true
}

// loggerName reports whether key is a logger's name — dotted package
// segments and a class name (o.a.c.session.ManagerBase), as Java and .NET
// logs print it before " : " and the message — rather than a key.
func loggerName(key string) bool {
	d := strings.LastIndexByte(key, '.')
	if d < 0 || strings.Count(key, ".") < 2 || d+2 >= len(key) {
		return false
	}
	cls := key[d+1:]
	if !isUpper(cls[0]) {
		return false
	}
	for k := 1; k < len(cls); k++ {
		if isLower(cls[k]) {
			return true
		}
	}
	return false
}

// keyBefore returns the secret key that ends just before the separator at
// sep (past an optional quote and spaces) and its kind, or -1, -1. It
// prefers the single word; when that is not secret it tries the two words
// before sep.
func keyBefore(s string, from, sep int) (start, end int, kind Kind) {
	k := skipBlanksBack(s, from, sep)
	if k > from && (s[k-1] == '"' || s[k-1] == '\'') {
		k--
		if k > from && s[k-1] == '\\' {
			k--
		}
	}
	end = k
	for k > from && isKeyByte(s[k-1]) {
		k--
	}
	if k < end && k > from && s[k-1] >= 0x80 {
		// A Latin key with a letter outside ASCII (förnamn=, fødselsnummer:,
		// Adı=): a personal key's, one word.
		k2 := k
		for k2 > from && (isKeyByte(s[k2-1]) || s[k2-1] >= 0x80) {
			k2--
		}
		if kind := PersonalKeys[lowerString(s[k2:end])]; kind != "" {
			return k2, end, kind
		}
		// Its words joined by '_' or '-' (doğum_tarixi, dzimšanas-datums).
		if kind := PersonalKeys[strings.NewReplacer("_", "", "-", "").Replace(lowerString(s[k2:end]))]; kind != "" {
			return k2, end, kind
		}
	}
	if k == end && end > from && s[end-1] >= 0x80 {
		// A key in a script other than Latin (адрес:, כתובת:, पता:): a
		// personal key's, one word.
		for k > from && s[k-1] >= 0x80 {
			k--
		}
		if kind := PersonalKeys[s[k:end]]; kind != "" {
			return k, end, kind
		}
		return -1, -1, ""
	}
	if k == end || k == from && from > 0 && isKeyByte(s[from-1]) {
		return -1, -1, ""
	}
	if kind := secretKeyCandidate(s[k:end]); kind != "" {
		return k, end, kind
	}
	// Two words only where the last one needs the first: "API key",
	// "access tokens". Elsewhere the word before is prose ("Bearer realm=",
	// "AUTH_DENIED reason=").
	if last := s[k:end]; !strings.EqualFold(last, "key") && !strings.EqualFold(last, "keys") && !strings.EqualFold(last, "tokens") {
		return -1, -1, ""
	}
	if w := k - 1; w > from && s[w] == ' ' && isKeyByte(s[w-1]) {
		k2 := keyStart(s, from, w)
		if !(k2 == from && from > 0 && isKeyByte(s[from-1])) {
			if kind := secretKeyCandidate(s[k2:end]); kind != "" {
				return k2, end, kind
			}
		}
	}
	return -1, -1, ""
}

// keyTriggers are the key needles but the personal keys withPersonalKeys adds:
// the key-value rule's triggers. A text that names a rarer personal key
// (kennitala=, ird_number=) nearly always holds one of these too (a name,
// a key, an account), and the added keys' pairs of bytes, common in words,
// would make every text's trigger scan slower.
var keyTriggers = ([]string{
	"pass", "pwd", "secret", "token", "key", "auth", "cookie", "sess",
	"credential", "creds", "sig", "jwt", "bearer", "otp", "csrf", "xsrf", "psk",
	// A credential word misspelt (misspeltKind): "pasword", "secert",
	// "credentail"; "passwrod" holds "pass".
	"pasw", "secer", "secr", "credent",
	// Keys that name personal data (PersonalKeys; the others are added).
	"mail", "phone", "ssn", "iban", "card", "birth", "dob", "name", "street",
	"postal", "zip", "postcode", "cvv", "cvc", "tax", "licen", "msisdn", "fax",
	"tel", "account", "pan", "mrn", "national",
	// the numbers a school, a health plan, a licensing authority and a
	// vehicle register give a person (student_number, subscriber_id,
	// Kennzeichen, vrm)
	"student", "subscriber", "schüler", "schueler", "matricul",
	"kennzeichen", "vrm", "plate", "driving", "kvnr", "mbi", "pinfl", "jshshir", "personal",
})

// keyValueTriggers are the key-value rule's triggers: keyTriggers, and the
// personal keys written in a script other than Latin (адреса, 住所, כתובת),
// whose bytes never occur in ASCII text, so they cost clean text nothing,
// and the Nordic and Germanic name's and address's keys (navn, adres…).
var keyValueTriggers = func() []string {
	t := append([]string{}, keyTriggers...)
	for k := range PersonalKeys {
		if k[0] >= 0x80 && !slices.Contains(nameLabels, k) {
			t = append(t, lowerString(k))
		}
	}
	slices.Sort(t[len(keyTriggers):])
	return append(t, "navn", "adres", "namn", "kimlik", "soyad",
		// the surname's, given names' and birth date's keys of Spanish,
		// Portuguese, the Baltic, Finnic, Hungarian, Slavic and Romanian
		// records (apellidoPaterno=, uzvārds=, syntymaaika=)
		"apellid", "nombre", "apprimer", "apsegundo", "documento", "sobrenome", "apelido", "vards", "vārds",
		"vardas", "pavard", "sukunimi", "etunim", "eesnimi", "perekonnanimi", "vezetek", "vezeték", "keresztn",
		"prezime", "priezvisko", "priimek", "prenume", "syntym", "dzims", "dzimš", "gimimo",
		"geburts", "narozen", "fodsel", "fødsel",
		"fodelse", "födelse", "dogum", "doğum", "tarix", "kokonimi", "szuletes", "születés", "veronumero",
		// the address's keys of Zulu, Swahili, Hausa and Uzbek (ikheli=,
		// anwani:, adireshi:, manzil:)
		"ikheli", "anwani", "adiresh", "manzil",
		// an identity document's number (id.document.number=)
		"document.number", "document_number", "documentnumber")
}()

// withPersonalKeys adds to needles every key of PersonalKeys that holds
// none of them (cpf, kennitala, nombre, 성명), so that the key-value rule
// wakes for each in text as the structure layer reads each in JSON.
func withPersonalKeys(needles []string) []string {
	// One needle for the addresses by their purpose (homeaddress,
	// registrationaddress, …): one pair of bytes, not one a purpose.
	needles = append(needles[:len(needles):len(needles)], "address")
	var add []string
	for k := range PersonalKeys {
		lk := lowerString(k)
		if slices.Contains(nameLabels, lk) {
			continue // a name label's value is findLabelledName's: a name, not any value (holder=worker-3)
		}
		covered := false
		for _, n := range needles {
			covered = covered || strings.Contains(lk, n)
		}
		if !covered {
			add = append(add, lk)
		}
	}
	slices.Sort(add)
	return append(needles, add...)
}

// pairIndex indexes needles by their first two bytes, so that a text is
// searched for them with one table look-up a byte and compares only the
// needles that start there.
type pairIndex struct {
	pairs [1 << 16]uint16 // index into lists; 0 means no needle starts so
	lists [][]string
}

func newPairIndex(needles []string) *pairIndex {
	x := &pairIndex{lists: [][]string{nil}}
	for _, n := range needles {
		k := uint16(n[0])<<8 | uint16(n[1])
		if x.pairs[k] == 0 {
			x.pairs[k] = uint16(len(x.lists))
			x.lists = append(x.lists, nil)
		}
		x.lists[x.pairs[k]] = append(x.lists[x.pairs[k]], n)
	}
	return x
}

// at returns the needles that start with the bytes a and b.
func (x *pairIndex) at(a, b byte) []string { return x.lists[x.pairs[uint16(a)<<8|uint16(b)]] }

// keyNeedleIndex indexes the key needles, withPersonalKeys(keyTriggers):
// lowercase fragments every secret or personal key contains (see
// SecretWords, SecretFragments, KeyPrefixes, PersonalKeys), a cheap test
// before KeyKind splits a key into words. It is built at its first use:
// adding the personal keys reads every one of them.
var keyNeedleIndex = sync.OnceValue(func() *pairIndex { return newPairIndex(withPersonalKeys(keyTriggers)) })

// hasKeyNeedle reports whether lower, a lower-cased key, holds one of the
// key needles.
func hasKeyNeedle(lower []byte) bool {
	idx := keyNeedleIndex()
	for i := 0; i+1 < len(lower); i++ {
		for _, n := range idx.at(lower[i], lower[i+1]) {
			if len(lower)-i >= len(n) && string(lower[i:i+len(n)]) == n {
				return true
			}
		}
	}
	return false
}

// secretKeyCandidate returns the kind of key, the word(s) before a
// separator, or "" if it is not a secret key.
func secretKeyCandidate(key string) Kind {
	var buf [64]byte
	if len(key) < 3 || len(key) > len(buf) {
		return "" // too short for a needle, or a long run of word characters
	}
	lower := buf[:0]
	for i := 0; i < len(key); i++ {
		if c := key[i]; c != '_' && c != '-' && c != '.' {
			lower = append(lower, lowerASCII(c)) // without separators, as the keys are normalized (ird_number: irdnumber)
		}
	}
	if !hasKeyNeedle(lower) {
		return ""
	}
	kind, _ := KeyKind(key)
	return kind
}

// valueAt parses the value starting at v (after spaces and an optional auth
// scheme, also inside quotes) and returns the span to replace and the end of
// the value including a closing quote. A bare cookie value runs on across
// "; " to the next name=value pair. A bare value also ends at quote, when
// set: the quote the whole pair stands in.
func valueAt(s string, v int, cookie bool, quote byte) (vs, ve, end int) {
	j := skipBlanks(s, v)
	// No value starts with '=': "key => =\"…\"" and "key==…" repeat the
	// separator.
	for j < len(s) && s[j] == '=' {
		j = skipBlanks(s, j+1)
	}
	if w := schemeLen(s[j:]); w > 0 {
		if k := skipBlanks(s, j+w); k > j+w && k < len(s) && !isBareStop(s[k]) {
			j = k
		}
	}
	if j >= len(s) {
		return 0, 0, 0
	}
	switch c := s[j]; {
	case c == '"':
		k := j + 1
	quoted:
		for k < len(s) {
			switch s[k] {
			case '\\':
				if k+1 >= len(s) || s[k+1] == '\n' {
					break quoted
				}
				k += 2
			case '"', '\r', '\n':
				break quoted
			default:
				k++
			}
		}
		k = min(k, len(s))
		vs := afterScheme(s, j+1, k)
		if k < len(s) && s[k] == '"' {
			return vs, k, k + 1
		}
		return vs, k, k
	case c == '\\' && j+1 < len(s) && s[j+1] == '"':
		k := j + 2
		for k < len(s) && s[k] != '"' && s[k] != '\\' && s[k] != '\r' && s[k] != '\n' {
			k++
		}
		return j + 2, k, k
	case c == '\'':
		k := j + 1
		for k < len(s) && s[k] != '\'' && s[k] != '\r' && s[k] != '\n' {
			k++
		}
		vs := afterScheme(s, j+1, k)
		if k < len(s) && s[k] == '\'' {
			return vs, k, k + 1
		}
		return vs, k, k
	default:
		if strings.HasPrefix(s[j:], markerPrefix) {
			// A bare value an earlier pattern already redacted: extending it
			// over what follows would let a second pass disagree with the
			// first, as the value syntaxes of the patterns differ.
			return 0, 0, 0
		}
		k := j
		for {
			for k < len(s) && !isBareStop(s[k]) && (quote == 0 || s[k] != quote) {
				k++
			}
			if !cookie || k >= len(s) || s[k] != ';' {
				return j, k, k
			}
			if n := skipBlanks(s, k+1); n < len(s) && !isBareStop(s[n]) {
				k = n
				continue
			}
			return j, k, k
		}
	}
}

// afterScheme returns where the credential of the quoted value s[i:end]
// starts: past an auth scheme ("Token …", "Bearer …") when one leads it
// and something follows.
func afterScheme(s string, i, end int) int {
	if w := schemeLen(s[i:end]); w > 0 {
		if k := skipBlanks(s, i+w); k < end {
			return k
		}
	}
	return i
}

// earlier returns of two finders' matches the one that starts first, a
// when both start at once; nil when neither matched.
func earlier(a, b []int) []int {
	if a == nil || b != nil && b[0] < a[0] {
		return b
	}
	return a
}

// skipBlanks returns i moved past the spaces and tabs at it.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipBlanksBack returns i moved back over the spaces and tabs before it,
// never below lo.
func skipBlanksBack(s string, lo, i int) int {
	for i > lo && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return i
}

// trimLineEnd returns i moved back over the spaces, tabs and carriage
// returns before it, never below lo: where the text of a line that ends at
// i ends.
func trimLineEnd(s string, lo, i int) int {
	for i > lo && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\r') {
		i--
	}
	return i
}

// schemeLen returns the length of the auth scheme word s starts with, or 0.
func schemeLen(s string) int {
	for _, w := range [...]string{"bearer", "basic", "token", "digest"} {
		if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) && (s[len(w)] == ' ' || s[len(w)] == '\t') {
			return len(w)
		}
	}
	return 0
}

// isBareStop reports whether c ends a bare (unquoted) value.
func isBareStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\\', '&', ',', ';', '<', '>', '{', '}', '(', ')', '`':
		return true
	}
	return false
}

// isKeyByte is [\w.-]: a byte of a key's name, and of the run gitleaks'
// semi-generic rules allow before a service's name.
func isKeyByte(c byte) bool { return byteClass[c]&clKey != 0 }

// findParam finds "name=value" after '?', '&', '#', an escaped "\u0026"
// (Go's JSON encoder) or "&amp;" (HTML), where IsSecretParam(name). The
// value ends at '&', '#', whitespace, a quote, '<', '>' or a backslash.
func findParam(s string, from int) []int {
	for a := range anyMarks(s, from, "?&#\\") {
		name := a + 1
		switch {
		case s[a] == '\\':
			if !strings.HasPrefix(s[a:], `\u0026`) {
				continue
			}
			name = a + len(`\u0026`)
		case strings.HasPrefix(s[a:], "&amp;"):
			name = a + len("&amp;")
		}
		k := name
		for k < len(s) && isParamByte(s[k]) {
			k++
		}
		// Decide on the name before scanning the value, so that a text of
		// many harmless parameters is read once.
		if k == name || k >= len(s) || s[k] != '=' {
			continue
		}
		secret := IsSecretParam(s[name:k])
		if !secret && !codeParam(s[name:k]) {
			continue
		}
		ve := k + 1
		for ve < len(s) && !isParamStop(s[ve]) {
			ve++
		}
		if ve == k+1 || strings.HasPrefix(s[k+1:], markerPrefix) { // empty, or redacted already (see valueAt)
			continue
		}
		if !secret && !codeValue(s[k+1:ve]) {
			continue
		}
		return []int{a, ve, name, k, k + 1, ve}
	}
	return nil
}

// keyStart returns where the run of key bytes (isKeyByte) that ends at
// s[end] starts, no earlier than from.
func keyStart(s string, from, end int) int {
	for end > from && isKeyByte(s[end-1]) {
		end--
	}
	return end
}

func isParamByte(c byte) bool {
	return isKeyByte(c) || c == '[' || c == ']' || c == '%'
}

func isParamStop(c byte) bool {
	switch c {
	case '&', '#', ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '<', '>', '\\':
		return true
	}
	return false
}

// findURLPassword finds the password of scheme://user:password@host. The
// authority ends at '/', '?', '#', whitespace, a quote, '<', '>' or a
// backslash; the last '@' in it ends the user information, and the first
// ':' before that starts the password, so a password may hold ':' and '@'
// and a user name may be an email address. User information is always a
// credential: with an empty password (token:@host) or none and a
// key-shaped user (token@host) the user part is the secret.
func findURLPassword(s string, from int) []int {
	for p := range marks(s, from, "://") {
		start := p
		for start > from && isSchemeByte(s[start-1]) {
			start--
		}
		for start < p && !isLetter(s[start]) {
			start++
		}
		if start == p {
			continue
		}
		a := p + 3
		e := a
		for e < len(s) && !isAuthorityStop(s[e]) {
			e++
		}
		at := strings.LastIndexByte(s[a:e], '@')
		if at < 0 {
			continue
		}
		user := s[a : a+at]
		colon := indexOutsideMarkers(user, ':')
		switch {
		case colon == len(user)-1 && colon > 0 && !startsWithMarker(s, a):
			// user:@host — a token as the user with an empty password
			// (an API key written where basic auth's user goes).
			return []int{start, a + at + 1, -1, -1, a, a + colon}
		case colon < 0 && len(user) >= 20 && tokenShaped(user):
			// token@host — a key-shaped user with no password at all.
			return []int{start, a + at + 1, -1, -1, a, a + at}
		case colon < 0 || colon == len(user)-1:
			continue
		}
		return []int{start, a + at + 1, -1, -1, a + colon + 1, a + at}
	}
	return nil
}

// indexOutsideMarkers is strings.IndexByte that skips markers, whose ':'
// separates nothing.
func indexOutsideMarkers(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '[' && strings.HasPrefix(s[i:], markerPrefix) {
			if j := strings.IndexByte(s[i:], ']'); j > 0 {
				i += j
				continue
			}
		}
		if s[i] == c {
			return i
		}
	}
	return -1
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSchemeByte(c byte) bool { return isAlnum(c) || c == '+' || c == '.' || c == '-' }

func isAuthorityStop(c byte) bool {
	switch c {
	case '/', '?', '#', ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '<', '>', '\\':
		return true
	}
	return false
}

// findBareAWSSecret finds a run of exactly 40 characters of [A-Za-z0-9/+]
// that stands alone — no word character, '-', '.', '=', '%' or another
// key character glued to either side — does not start or end with '/', and
// mixes upper case, lower case and digits.
func findBareAWSSecret(s string, from int) []int {
	for i := from; i < len(s); {
		if !isAWSSecretByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isAWSSecretByte(s[j]) {
			j++
		}
		if j-i == 40 && bareAWSSecret(s, i, j) {
			return []int{i, j, -1, -1, i, j}
		}
		i = j
	}
	return nil
}

func isAWSSecretByte(c byte) bool { return isAlnum(c) || c == '/' || c == '+' }

func bareAWSSecret(s string, i, j int) bool {
	if s[i] == '/' || s[j-1] == '/' {
		return false
	}
	if i > 0 {
		switch c := s[i-1]; {
		case c == '_' || c == '-' || c == '.' || c == '=' || c == '%' || c == ':' && i > 1 && s[i-2] == '/':
			return false
		case c == ']' && gluedBefore(s, i):
			return false
		}
	}
	if j < len(s) {
		switch c := s[j]; {
		case c == '_' || c == '-' || c == '=' || c == '%' || strings.HasPrefix(s[j:], markerPrefix):
			return false
		case c == '.' && j+1 < len(s) && isWord(s[j+1]):
			return false
		}
	}
	upper, lower, digit := letterClasses(s[i:j])
	return upper && lower && digit
}

// findSecureString finds the quoted string PowerShell's
// ConvertTo-SecureString turns into a credential (with -AsPlainText, the
// password itself), after the cmdlet or its -String parameter.
func findSecureString(s string, from int) []int {
	const cmd = "convertto-securestring"
	for i := from; i < len(s); {
		k := indexFold(s[i:], cmd)
		if k < 0 {
			return nil
		}
		j := skipBlanks(s, i+k+len(cmd))
		i = j
		if hasPrefixFold(s[j:], "-string") {
			j = skipBlanks(s, j+len("-string"))
		}
		if j < len(s) && (s[j] == '\'' || s[j] == '"') {
			if e := closingQuote(s, j); e > j+1 && !startsWithMarker(s, j+1) {
				return []int{j + 1, e, -1, -1, j + 1, e}
			}
		}
	}
	return nil
}

// nextKey returns the next ':' or '=' at or after i (sep, -1 when none is
// left) and the run of key bytes before it, no further back than from:
// where the line-structure finders look for a key and its value.
func nextKey(s string, from, i int) (ks, ke, sep int) {
	sep = i
	for sep < len(s) && s[sep] != ':' && s[sep] != '=' {
		sep++ // a byte loop: strings.IndexAny builds its set on every call
	}
	if sep >= len(s) {
		return 0, 0, -1
	}
	ks = keyStart(s, from, sep)
	return ks, sep, sep
}

// statusAnswer reports whether the value s[vs:ve] is an HTTP status with
// its reason phrase after it ("unable to fetch secrets: 401
// Unauthorized", "token: 403 Forbidden"): the answer to a request for the
// secret, not the secret.
func statusAnswer(s string, vs, ve int) bool {
	if ve-vs != 3 || s[vs] < '1' || s[vs] > '5' || !isAllDigits(s[vs:ve]) {
		return false
	}
	return ve+1 < len(s) && s[ve] == ' ' && isUpper(s[ve+1])
}

// findVaultPayload finds the payload of an Ansible Vault — the lines of
// hex digits after its "$ANSIBLE_VAULT;1.1;AES256" header, indented as a
// YAML block scalar or not — at or after from. The payload is the secret
// encrypted with the vault's password: whoever holds the password reads
// it, so it leaves no log or dead letter.
func findVaultPayload(s string, from int) []int {
	for k := range marks(s, from, "$ANSIBLE_VAULT;") {
		ls := lineEnd(s, k)
		if ls >= len(s) {
			return nil
		}
		start, end := ls+1, ls+1
		for end < len(s) {
			le := lineEnd(s, end)
			line := strings.TrimSpace(s[end:le])
			if line == "" || !isHexPiece(line) {
				break
			}
			end = le
			if end < len(s) {
				end++
			}
		}
		for end > start && (s[end-1] == '\n' || s[end-1] == '\r') {
			end--
		}
		if end > start && !startsWithMarker(s, skipBlanks(s, start)) {
			vs := skipBlanks(s, start)
			return []int{vs, end, -1, -1, vs, end}
		}
	}
	return nil
}

// bracedValueEnd returns the index of the '}' that closes the ODBC braced
// value opened at s[i] ("}}" inside stands for one brace; '{', ';' and '='
// inside are the value's own), when a ';', a quote, a blank or the end
// follows it and no line break is inside; -1 otherwise. A value that opens
// with a second brace ("={{ name }}") is a template's reference.
func bracedValueEnd(s string, i int) int {
	if i+1 < len(s) && s[i+1] == '{' {
		return -1
	}
	// A value no lone '}' closes before the line's end was written with
	// its closing brace doubled (PWD={s3cr}};…): it ends at the first
	// "}}" a separator follows.
	open := -1
	for k := i + 1; k < len(s) && k-i < 256; k++ {
		switch s[k] {
		case '\n', '\r':
			return open
		case '}':
			if k+1 < len(s) && s[k+1] == '}' {
				k++
				if open < 0 && (k+1 == len(s) || strings.IndexByte(";'\" \t\r\n", s[k+1]) >= 0) {
					open = k
				}
				continue
			}
			if k+1 == len(s) || strings.IndexByte(";'\" \t\r\n", s[k+1]) >= 0 {
				return k
			}
			return -1
		}
	}
	return open
}
