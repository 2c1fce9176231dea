package redact

import (
	"strings"
)

// The random-token layer: deny by default. A token that no rule named is
// redacted when it looks like a credential rather than a word, a number or
// an identifier an operator needs. The rule needs no vendor: it reads the
// token's shape (length, alphabet, how its characters mix, Shannon entropy)
// and the label just before it, as detect-secrets' entropy plugins and
// Presidio's context words do.

// KindToken is a random-looking token that no other rule named: another
// vendor's key, a session id, an opaque credential.
const KindToken Kind = "token"

// Thresholds of the random-token test.
const (
	// minRandomLen is the shortest token judged by its shape alone.
	minRandomLen = 16
	// minLabelledLen is the shortest value taken after a secret label in
	// prose ("password hunter2", "token 9f86d081…").
	minLabelledLen = 6
	// minJunk is how many characters of a token must be unexplained by
	// words, numbers and hex pieces for it to be random.
	minJunk = 12
)

// entropyFloor is the Shannon entropy (bits per character) a token of n
// characters must exceed to be random: a random string over a key's
// alphabet reaches about 3.7 at 16 characters and 4.5 at 32; words and
// repeated characters stay below.
func entropyFloor(n int) float64 {
	switch {
	case n < 28:
		return 3.2
	default:
		return 3.6
	}
}

// IDWords are label words that say the value after them is an identifier an
// operator needs: the random-token test does not apply to it (request_id,
// x-amz-id-2, traceId, ETag, digest). Named rules still do. A word ending in
// "id" counts when what comes before is one of IDNouns (requestid,
// correlationid).
var IDWords = map[string]bool{
	"id": true, "ids": true, "uuid": true, "guid": true, "rid": true,
	"etag": true, "digest": true, "checksum": true, "hash": true, "sha": true,
	"sha1": true, "sha256": true, "sha384": true, "sha512": true, "md5": true,
	"crc32": true, "crc32c": true, "fingerprint": true, "commit": true, "revision": true,
	"rev": true, "integrity": true, "arn": true, "trace": true, "traceparent": true,
	"span": true, "root": true, "parent": true, "hostid": true, "request": true,
	"ref": true, "reference": true, "version": true, "handle": true,
	"number": true, "numbers": true, "sequence": true,
	// A chain's transaction names its record (tx, txid).
	"tx": true, "txid": true,
	// A protocol's one-time value, public by design (ACME's Replay-Nonce,
	// OIDC's nonce), and the thing a pipeline moves, named in prose
	// ("event 2Nq… dropped", "skipped item Nq4z…").
	"nonce": true, "event": true, "item": true,
	// A Go module's dirhash after its algorithm (h1:<base64 sha256>).
	"h1": true,
	// A cluster's node (an OpenSearch node id, node[Qm4b…]) and a Vault
	// token's accessor, which looks a token up or revokes it but
	// authenticates nothing.
	"node": true, "accessor": true,
}

// IDNouns are the nouns that make "<noun>id" an identifier's label.
var IDNouns = map[string]bool{
	"request": true, "trace": true, "span": true, "correlation": true, "message": true,
	"execution": true, "invocation": true, "event": true, "job": true, "run": true,
	"item": true, "object": true, "resource": true, "host": true, "cf": true,
	"amz": true, "amzn": true, "client": true, "account": true, "user": true,
	"org": true, "organization": true, "project": true, "tenant": true,
	"transaction": true, "txn": true, "order": true, "customer": true, "device": true,
	"instance": true, "task": true, "container": true, "image": true, "build": true,
	"deployment": true, "version": true, "group": true, "parent": true, "root": true,
	"segment": true, "thread": true, "response": true, "completion": true, "chat": true,
	"conversation": true, "batch": true, "file": true, "model": true, "record": true,
	"entity": true, "subscription": true, "connection": true, "principal": true,
	"role": true, "query": true, "operation": true, "activity": true, "workflow": true,
	"node": true, "cluster": true, "volume": true, "snapshot": true, "receipt": true,
	"dedup": true, "deduplication": true, "idempotency": true, "upload": true,
	"part": true, "multipart": true, "change": true, "stack": true, "kms": true,
}

// NonSecretKeyQualifiers are the words before "key" that make it something
// other than a credential: "partition key", "idempotency key", "public
// key". Any other word before "key" in prose ("API2CART key is …",
// "Using key …") labels a credential.
var NonSecretKeyQualifiers = map[string]bool{
	"idempotency": true, "partition": true, "sort": true, "primary": true, "foreign": true,
	"object": true, "s3": true, "cache": true, "dedup": true, "deduplication": true,
	"routing": true, "shard": true, "hash": true, "range": true, "composite": true,
	"sequence": true, "message": true, "group": true, "row": true, "lookup": true,
	"map": true, "public": true, "pub": true, "publishable": true,
	"index": true, "unique": true, "duplicate": true, "missing": true, "unknown": true,
	"invalid": true, "no": true, "by": true, "per": true, "kms": true, "cmk": true,
	"natural": true, "surrogate": true, "dict": true, "item": true, "record": true,
	"table": true, "bucket": true, "file": true, "path": true, "cluster": true,
	"order": true, "ordering": true, "meta": true, "metadata": true, "idem": true,
	"job": true, "task": true, "event": true, "request": true, "trace": true,
	"correlation": true, "cursor": true, "page": true, "pagination": true,
	"config": true, "setting": true, "settings": true, "env": true, "field": true,
	"column": true, "attribute": true, "attr": true, "label": true, "tag": true,
	"name": true, "entry": true, "hot": true, "registry": true, "redis": true,
	"memcache": true, "lock": true, "rate": true, "ratelimit": true, "throttle": true,
	"sharding": true, "dynamo": true, "ddb": true, "x": true, "amz": true,
	// A public key's algorithm or format: gpg's "using RSA key 3AA5C343…"
	// names a key by its id; a private key's body is a named shape or
	// random-looking all the same.
	"rsa": true, "dsa": true, "ecdsa": true, "ed25519": true, "eddsa": true,
	"gpg": true, "pgp": true, "openpgp": true,
}

// SafeIDPrefixes are the prefixes of object ids that are not credentials
// (OpenAI's chatcmpl-, req_, resp_, file-; Anthropic's msg_, toolu_;
// Stripe's cus_, ch_, pi_): a token that starts with one and a '_' or '-' is
// an identifier, however random its rest.
var SafeIDPrefixes = map[string]bool{
	"req": true, "request": true, "msg": true, "chatcmpl": true, "cmpl": true,
	"compl": true, "resp": true, "run": true, "thread": true, "asst": true,
	"file": true, "batch": true, "ft": true, "ftjob": true, "ftckpt": true,
	"org": true, "proj": true, "call": true, "toolu": true, "srvtoolu": true,
	"msgbatch": true, "evt": true, "ch": true, "pi": true, "cus": true,
	"in": true, "sub": true, "price": true, "prod": true, "txn": true, "pm": true,
	"seti": true, "acct": true, "po": true, "tr": true, "py": true, "vs": true,
	"vsfile": true, "step": true, "modr": true, "embd": true, "img": true,
	"trace": true, "span": true, "item": true, "story": true, "job": true,
	"task": true, "conv": true, "chat": true, "gen": true, "fp": true, "pk": true,
	"user": true, "team": true, "ws": true, "wrkspc": true,
	"i": true, "ami": true, "sg": true, "subnet": true, "vpc": true, "eni": true,
	"vol": true, "snap": true, "igw": true, "nat": true, "rtb": true, "acl": true,
	"lt": true, "tgw": true, "eipalloc": true, "r": true, "sir": true,
	"card": true, "src": true, "tok": true, "cs": true, "si": true, "il": true, "ii": true,
	"dp": true, "du": true, "ipi": true, "plink": true, "promo": true, "cn": true,
}

// isTokenByte reports whether c may be part of a token: the base64 and
// base64url alphabets, and the '.' and '~' of paths and JWTs.
func isTokenByte(c byte) bool { return byteClass[c]&clToken != 0 }

// findToken is the Find of the random-token pattern: the first token at or
// after from that looks random (or that a secret label in prose names),
// with the label as its key when there is one.
func findToken(in *probe, s string, from int) []int {
	i := from
	// A search resumed inside a run (after a part of it was taken) judges
	// the rest of the run.
	for i < len(s) {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isTokenByte(s[j]) {
			j++
		}
		if j-i >= minLabelledLen {
			if loc := judgeRun(in, s, i, j); loc != nil {
				return loc
			}
		}
		i = j
	}
	return nil
}

// Bounds of a quoted password (findQuotedPassword).
const (
	minQuotedPassword = 10
	maxQuotedPassword = 64
)

// findQuotedPassword finds a password by its shape whatever its key (a
// secret store's answer, a dump's field), quoted or standing bare between
// spaces (a struct printed positionally): one run without spaces of 10 to
// 64 characters holding lower case, upper case, a
// digit and a symbol a password takes (passwordSymbol), not a URL, a path,
// an e-mail address or a host, and random-looking — most of it explained
// by no word, number or hex piece, and of varied characters. Labelled
// values and tokens of a key's alphabet are the token rule's (findToken).
func findQuotedPassword(s string, from int) []int {
	for i := from; i < len(s); i++ {
		if !passwordSymbol(s[i]) {
			continue
		}
		a := i
		for a > 0 && a > i-maxQuotedPassword && s[a-1] != '"' && s[a-1] != '\'' && s[a-1] > ' ' {
			a--
		}
		b := i + 1
		for b < len(s) && b < i+maxQuotedPassword && s[b] != '"' && s[b] != '\'' && s[b] > ' ' {
			b++
		}
		if b-a < minQuotedPassword || b-a > maxQuotedPassword {
			i = b
			continue
		}
		quoted := a > 0 && b < len(s) && (s[b] == '"' || s[b] == '\'') && s[a-1] == s[b]
		bare := (a == 0 || isSpace(s[a-1])) && (b == len(s) || isSpace(s[b])) && bareWordBytes(s[a:b])
		if (quoted || bare) && quotedPassword(s[a:b], bare) {
			return []int{a, b, -1, -1, a, b}
		}
		i = b
	}
	return nil
}

// bareWordBytes reports whether v is letters, digits, '-', '_' and
// password symbols only: a password standing bare between spaces (a
// struct printed positionally), not a bracketed or assigned field.
func bareWordBytes(v string) bool {
	for k := 0; k < len(v); k++ {
		c := v[k]
		if !isLetter(c) && !isDigit(c) && c != '-' && c != '_' && !passwordSymbol(c) {
			return false
		}
	}
	return true
}

// passwordSymbol reports whether c is a symbol passwords hold and ids,
// paths and numbers do not.
func passwordSymbol(c byte) bool { return passwordSymbols[c] }

var passwordSymbols = func() (t [256]bool) {
	for _, c := range []byte("#!$%&*@^?~") {
		t[c] = true
	}
	return t
}()

// quotedPassword judges a run for findQuotedPassword: half of its letters
// and digits explained by no word-like segment and no number ("#Spring2026
// Launch" is a tag), two thirds for a bare one (no quotes around it), so a
// code's words joined by a format's separator (HL7's "error^HL70357") stay.
func quotedPassword(v string, bare bool) bool {
	var lower, upper, digit, symbol bool
	for k := 0; k < len(v); k++ {
		c := v[k]
		switch {
		case isLower(c):
			lower = true
		case isUpper(c):
			upper = true
		case isDigit(c):
			digit = true
		case passwordSymbol(c):
			symbol = true
		case c == '/' || c == ':' || c == '.' || c == '\\' || c >= 0x80:
			return false // a URL, a path, a host, an e-mail address, a time
		}
	}
	if !(lower && upper && digit && symbol) || isMarker(v) {
		return false
	}
	// Explained are the letters of word-like segments and the digits of
	// numbers (two digits or more); the rest is junk.
	counted, numbers := 0, 0
	for k := 0; k < len(v); {
		if !isDigit(v[k]) {
			if isLetter(v[k]) {
				counted++
			}
			k++
			continue
		}
		e := k
		for e < len(v) && isDigit(v[e]) {
			e++
		}
		counted += e - k
		if e-k >= 2 {
			numbers += e - k
		}
		k = e
	}
	j := counted - numbers - explainedLetters(v)
	if bare {
		return 3*j >= 2*counted && shannonEntropy(v) > 3.0
	}
	return 2*j >= counted && shannonEntropy(v) > 3.0
}

// labelContext is what the label before a value says about it.
type labelContext int

const (
	labelNone   labelContext = iota
	labelSecret              // a credential's label: password, token, "API key"
	labelID                  // an identifier's label: request_id, ETag, x-amz-id-2
	labelOther               // another key with ':' or '=' after it
)

// judgeRun returns the span to redact in the run s[i:j) of token bytes, or
// nil. A run holding '=' other than base64 padding is pairs
// (key=value): each side is judged on its own.
func judgeRun(in *probe, s string, i, j int) []int {
	for a := i; a < j; {
		b := a
		for b < j && s[b] != '=' {
			b++
		}
		e := b
		for e < j && s[e] == '=' {
			e++
		}
		if e == j || e < j && !isTokenByte(s[e]) {
			b = e // trailing padding belongs to the token
		}
		if loc := judgeToken(in, s, a, b); loc != nil {
			return loc
		}
		a = e
	}
	return nil
}

// judgeToken judges the token s[i:j).
func judgeToken(in *probe, s string, i, j int) []int {
	i0 := i // an id may start with a symbol: its label stands before it
	for i < j && strings.IndexByte("-_.=/~+", s[i]) >= 0 {
		i++
	}
	for j > i && strings.IndexByte(".-_/~", s[j-1]) >= 0 {
		j--
	}
	if j-i < minLabelledLen || insideMarker(s, i) {
		return nil
	}
	tok := s[i:j]
	long := j-i >= minRandomLen
	if !long && !credentialLike(tok) {
		return nil
	}
	ks, ke, ctx := labelBefore(s, i, long)
	if i0 < i && ctx == labelNone && (s[i0] == '-' || s[i0] == '_' || i0 > 0 && s[i0-1] == '>') {
		// A base64url id's own '-' or '_', or any first byte of an XML
		// element's text (<HostId>/LHE1…).
		ks, ke, ctx = labelBefore(s, i0, long)
	}
	if ctx == labelNone && i0 > 5 && s[i0-1] == '(' {
		// An optional's wrapper (Scala's and Rust's Some(…), Java's
		// Optional(…)) is no label: the label stands before it.
		if w := optionWrapper(s, i0-1); w > 0 {
			ks, ke, ctx = labelBefore(s, w, long)
		}
	}
	switch ctx {
	case labelID:
		return nil
	case labelSecret:
		if inARN(s, i) {
			return nil
		}
		ve := bareValueEnd(s, i)
		if ve < len(s) && s[ve] == ' ' && startsWithMarker(s, skipBlanks(s, ve)) && roleOf(s[ks:ke]).kind == KindBearer {
			return nil // the scheme before an Authorization credential
		}
		if k := roleOf(s[ks:ke]).kind; (k == KindPersonal || k == KindNationalID) && companyTaxNumber(s[i:ve]) {
			return nil // a company's tax number under a person's key
		}
		if v := s[i:ve]; credentialLike(v) && !isMarker(v) && !(ve < len(s) && s[ve-1] == '=' && (s[ve] == '"' || s[ve] == '\'')) {
			return []int{ks, ve, ks, ke, i, ve}
		}
		return nil
	}
	if !long || inARN(s, i) {
		return nil
	}
	if ctx == labelOther && isHexKey(tok) {
		// 32 hex digits or more as the value of a key that names neither
		// an identifier nor a digest: a vendor's key (cloudsmith:
		// 6fd00a2c…, TOGETHER=…), not a request id.
		return []int{i, j, -1, -1, i, j}
	}
	if in != nil && in.st != nil {
		if m, ok := decodeBlob(tok, in.st); ok {
			if m == "" {
				return nil // decoded, and nothing in it to hide
			}
			in.blob = m
			return []int{i, j, -1, -1, i, j}
		}
	}
	if wholeToken(tok) {
		if randomLooking(tok) {
			return []int{i, j, -1, -1, i, j}
		}
		return nil
	}
	// A path, a host name or dotted segments: judge each part, so that a
	// host and the words of a path stay.
	prev := ""
	for a := i; a < j; {
		b := a
		for b < j && s[b] != '/' && s[b] != '.' {
			b++
		}
		if b-a >= minRandomLen && !(a > 0 && s[a-1] == '/' && collectionSegment(prev)) && !onionHost(s, a, b) && !generatedHostLabel(s, a, b) && randomLooking(s[a:b]) {
			return []int{a, b, -1, -1, a, b}
		}
		if a > 0 && s[a-1] == '/' || a == i {
			prev = s[a:b]
		}
		a = b + 1
	}
	return nil
}

// optionWrapper returns where the word before the '(' at s[p] starts
// when it wraps an optional value (Some, Optional), or 0.
func optionWrapper(s string, p int) int {
	for _, w := range [...]string{"Some", "Optional"} {
		if p >= len(w)+1 && s[p-len(w):p] == w && !isKeyByte(s[p-len(w)-1]) {
			return p - len(w)
		}
	}
	return 0
}

// versionPin reports whether the value s[i:ve] after the label ending at
// s[ke] is a package's pinned version: "==" between them (pip's
// requirements, a lock file) and a version of digits and dots
// (0.8.0, 2.31.0rc1). A package's name may hold a credential's word
// (tiktoken, keyring, passlib), but not be a credential's word itself
// (SecretWords).
func versionPin(s string, ke, i, ve int) bool {
	if i-ke != 2 || s[ke] != '=' || s[ke+1] != '=' || ve-i > 24 || !isDigit(s[i]) {
		return false
	}
	var buf [16]string
	for _, w := range splitWords(s[keyStart(s, 0, ke):ke], buf[:0]) {
		if _, ok := SecretWords[w]; ok {
			return false // password==1.2.3 is a password's value
		}
	}
	dots := 0
	for k := i; k < ve; k++ {
		switch c := s[k]; {
		case c == '.':
			dots++
		case isDigit(c), isLower(c) && dots > 0:
		default:
			return false
		}
	}
	return dots > 0
}

// collectionSegment reports whether a path segment names a collection of
// resources, so that the segment after it is a resource's id
// (/drive/v3/files/<id>, /v2/checkout/orders/<id>,
// …/documents/orders/<id>): a plural noun of lower-case letters, four or
// more, that names no credential (keys, tokens, secrets), no intake or
// webhook (IntakeWords: a key after it is its capability) and no link that
// is one (CapabilityWords: /invites/<token>, /shares/<token>).
func collectionSegment(seg string) bool {
	if len(seg) < 4 || len(seg) > 24 || seg[len(seg)-1] != 's' {
		return false
	}
	for k := 0; k < len(seg); k++ {
		if c := seg[k]; !isLower(c) && c != '_' && c != '-' {
			return false
		}
	}
	if IntakeWords[seg] || CapabilityWords[seg] {
		return false
	}
	_, secret := KeyKind(seg)
	return !secret && !strings.HasSuffix(seg, "keys")
}

// generatedHostLabel reports whether s[a:b] is a label of a URL's host
// that a platform generated from a service's name (Cloud Run's
// llm-gw-7x2k3p4q5a-ew.a.run.app, a preview deployment's
// web-3f9c2a1b7d-team): lower-case letters, digits and '-', a word of
// letters among its '-'-separated pieces and none of them 20 characters or
// more. A host is where the request went, not a credential.
func generatedHostLabel(s string, a, b int) bool {
	h := a
	for h > 0 && (isLower(s[h-1]) || isDigit(s[h-1]) || s[h-1] == '-' || s[h-1] == '.') {
		h--
	}
	if h < 3 || s[h-3:h] != "://" {
		return false
	}
	word := false
	for _, p := range strings.Split(s[a:b], "-") {
		if len(p) >= 20 || p == "" {
			return false
		}
		allLetters := len(p) >= 2
		for k := 0; k < len(p); k++ {
			if !isLower(p[k]) && !isDigit(p[k]) {
				return false
			}
			allLetters = allLetters && isLower(p[k])
		}
		word = word || allLetters
	}
	return word
}

// onionHost reports whether s[a:b] is a Tor v3 onion service's name: 56
// characters of lower-case base32 before ".onion" — the service's public
// key, its published address.
func onionHost(s string, a, b int) bool {
	if b-a != 56 || !strings.HasPrefix(s[b:], ".onion") {
		return false
	}
	for k := a; k < b; k++ {
		if c := s[k]; !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// CapabilityWords are plural path segments whose next segment is the link's
// own credential, not a resource's id.
var CapabilityWords = map[string]bool{
	"invites": true, "invitations": true, "shares": true, "links": true,
	"resets": true, "confirmations": true, "verifications": true, "grants": true,
	"magic-links": true, "passes": true, "sessions": true, "tickets": true,
	"unsubscribes": true, "downloads": true, "attachments": true, "signups": true,
}

// wholeToken reports whether tok is judged whole rather than part by part:
// base64 (a '+' or '=' padding in it) or no '/' or '.' at all.
func wholeToken(tok string) bool {
	return strings.ContainsAny(tok, "+=") || !strings.ContainsAny(tok, "/.")
}

// insideMarker reports whether s[i:] continues a marker ("[REDACTED:" just
// before it).
func insideMarker(s string, i int) bool {
	return i >= len(markerPrefix) && s[i-len(markerPrefix):i] == markerPrefix
}

// inARN reports whether the field holding s[i] (the run of bytes without
// spaces and quotes around it) is an ARN.
func inARN(s string, i int) bool {
	k := i
	for k > 0 && i-k < 512 && !isFieldStop(s[k-1]) {
		k--
	}
	return hasPrefixFold(s[k:], "arn:")
}

func isFieldStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', '[', '{', '<', ',', ';', '=':
		return true
	}
	return false
}

// bareValueEnd returns where the bare value starting at s[i] ends:
// whitespace, a quote or one of `,;&<>()[]{}\`.
func bareValueEnd(s string, i int) int {
	for i < len(s) && !isBareStop(s[i]) && s[i] != '\'' && s[i] != '[' && s[i] != ']' {
		i++
	}
	return i
}

// credentialLike reports whether v could be a credential rather than a word
// or a number: at least minLabelledLen bytes, and digits mixed with letters,
// or upper case after lower case, or a symbol among letters.
func credentialLike(v string) bool {
	if len(v) < minLabelledLen {
		return false
	}
	var digit, letter, lowerSeen, upperAfterLower, symbol bool
	for k := 0; k < len(v); k++ {
		c := v[k]
		switch {
		case isDigit(c):
			digit = true
		case c >= 'a' && c <= 'z':
			letter, lowerSeen = true, true
		case c >= 'A' && c <= 'Z':
			letter = true
			upperAfterLower = upperAfterLower || lowerSeen
		case c == '.' || c == '-' || c == '_' || c == '/' || c == ':':
		default:
			symbol = true
		}
	}
	return letter && (digit || upperAfterLower || symbol)
}

// labelBefore reads the label that ends just before s[i] — a key with ':'
// or '=' after it, or one or two words in prose, optionally followed by
// "is" — and says what it makes of the value: a credential, an identifier,
// or nothing. ks and ke bound the label (-1 when there is none).
func labelBefore(s string, i int, wantID bool) (ks, ke int, ctx labelContext) {
	k := i
	lo := max(0, i-96)
	skip := func() {
		for k > lo && (s[k-1] == ' ' || s[k-1] == '\t' || s[k-1] == '"' || s[k-1] == '\'' || s[k-1] == '\\' || s[k-1] == '(') {
			k--
		}
	}
	if wantID && k > lo && s[k-1] == '[' {
		// An id in brackets after its name: OpenSearch's node[Qm4b…].
		k--
	}
	skip()
	sep, sepPos := false, 0
	if k > lo && (s[k-1] == ':' || s[k-1] == '=') {
		k--
		sepPos = k
		if k > lo && s[k-1] == '=' || k > lo && s[k-1] == ':' {
			k--
		}
		sep = true
		skip()
	} else if k > lo && s[k-1] == '>' && k-1 > lo && s[k-2] == '=' {
		k -= 2
		sepPos = k
		sep = true
		skip()
	} else if wantID && k > lo && s[k-1] == '>' {
		// An XML element's name before its text: <HostId>…, <RequestId>….
		b := k - 1
		for b > lo && isKeyByte(s[b-1]) {
			b--
		}
		if b < k-1 && b > lo && s[b-1] == '<' && isIDLabel(s[b:k-1]) {
			return b, k - 1, labelID
		}
		return -1, -1, labelNone
	}
	end := k
	start := k
	for start > lo && isKeyByte(s[start-1]) {
		start--
	}
	if start == end {
		return -1, -1, labelNone
	}
	if sep && wantID && s[sepPos] == ':' && sepPos == end && urnChain(s, start, end, lo) {
		return start, end, labelID
	}
	if sep && !keyInContext(s, start, end, sepPos) || !sep && start > 0 && strings.IndexByte("/@:.", s[start-1]) >= 0 {
		// A host, a path or a field of an ARN or URN, not a label.
		return -1, -1, labelNone
	}
	w1 := s[start:end]
	if !sep && strings.EqualFold(w1, "id") && start-1 > lo && s[start-1] == ' ' {
		// "session id q3k8…": an identifier's noun that names a credential.
		b := start - 1
		a := b
		for a > lo && isKeyByte(s[a-1]) {
			a--
		}
		if w := s[a:b] + w1; a < b && proseLabel(w) {
			if _, ok := KeyKind(w); ok {
				return a, end, labelSecret
			}
		}
	}
	if !hasNeedle(w1) && !isFiller(w1) {
		// Cheap way out for most words: no credential's label.
		switch {
		case wantID && isIDLabel(w1):
			return start, end, labelID
		case sep:
			return start, end, labelOther
		}
		return -1, -1, labelNone
	}
	if w1[0] == '-' {
		// A command-line flag (--password X, -token X): its value follows.
		sep = true
	}
	if !sep && isFiller(w1) {
		// "API key is …": the label is before the verb.
		k = start
		for k > lo && s[k-1] == ' ' {
			k--
		}
		end, start = k, k
		for start > lo && isKeyByte(s[start-1]) {
			start--
		}
		if start == end {
			return -1, -1, labelNone
		}
		w1 = s[start:end]
	}
	// A second word only in prose order: "API key", "access token", not
	// the value of an earlier pair ("Bucket=b Key=…").
	w2, s2 := "", start
	if start-1 > lo && s[start-1] == ' ' && isKeyByte(s[start-2]) {
		b := start - 1
		a := b
		for a > lo && isKeyByte(s[a-1]) {
			a--
		}
		if a == lo || !(s[a-1] == '=' || s[a-1] == ':' && !sep) {
			w2, s2 = s[a:b], a
		}
	}
	if w2 != "" {
		if _, ok := KeyKind(w2 + " " + w1); ok && (sep || proseLabel(w1) || proseLabel(w2+w1)) {
			return s2, end, labelSecret
		}
	}
	if _, ok := KeyKind(w1); ok && (sep || proseLabel(w1)) {
		return start, end, labelSecret
	}
	if strings.EqualFold(w1, "key") || strings.EqualFold(w1, "keys") {
		if w2 != "" && !NonSecretKeyQualifiers[strings.ToLower(w2)] && !isIDLabel(w2) {
			return s2, end, labelSecret
		}
		return -1, -1, labelNone
	}
	if isIDLabel(w1) {
		return start, end, labelID
	}
	if sep {
		return start, end, labelOther
	}
	return -1, -1, labelNone
}

// urnChain reports whether the word s[start:end] before a ':' ends a
// URI's chain of lower-case words joined by ':' (spotify:track:<id>,
// urn:li:activity:<id>): the token after it is the resource's id. No word
// of the chain may name a credential (vault:secret:…).
func urnChain(s string, start, end, lo int) bool {
	if start <= lo || s[start-1] != ':' {
		return false
	}
	p := start - 1
	for p > lo && isLower(s[p-1]) {
		p--
	}
	if p == start-1 || p > 0 && (isAlnum(s[p-1]) || s[p-1] == '/' || s[p-1] == '.') {
		return false
	}
	for _, w := range [2]string{s[p : start-1], s[start:end]} {
		for k := 0; k < len(w); k++ {
			if !isLower(w[k]) {
				return false
			}
		}
		if hasNeedle(w) {
			return false
		}
	}
	return true
}

// isFiller reports whether w is a verb or preposition between a label in
// prose and its value ("API key is …").
func isFiller(w string) bool {
	return strings.EqualFold(w, "is") || strings.EqualFold(w, "was") || strings.EqualFold(w, "of")
}

// hasNeedle reports whether w holds one of the key needles
// (keyNeedleIndex), ignoring case: no secret key lacks one.
func hasNeedle(w string) bool {
	var buf [64]byte
	if len(w) > len(buf) {
		return true // let the full test decide
	}
	lower := buf[:len(w)]
	for i := 0; i < len(w); i++ {
		lower[i] = lowerASCII(w[i])
	}
	return hasKeyNeedle(lower)
}

// ProseLabels are the words that label a credential in prose, without a
// ':' or '=' after them ("password hunter2", "API key is …", "token
// 9f86d0…", "Session 4C1A9E… expired", "session id q3k8…"): a label must
// end with one of them, and the value must look like a credential
// (credentialLike), so "session ended" stays. Elsewhere a secret word is
// an adjective or an enum ("AUTH_DENIED reason=…").
var ProseLabels = []string{
	"password", "passwd", "pwd", "passphrase", "token", "secret", "key", "apikey",
	"credential", "credentials", "bearer", "session", "sessionid",
}

// proseLabel reports whether the label w ends with one of ProseLabels.
func proseLabel(w string) bool {
	lw := strings.ToLower(w)
	for _, p := range ProseLabels {
		if strings.HasSuffix(lw, p) {
			return true
		}
	}
	return false
}

// isIDLabel reports whether a label names an identifier (IDWords, or
// "<noun>id" with the noun in IDNouns), judging its last word that is not
// a number: x-amz-id-2, request_id, requestId, ETag.
func isIDLabel(label string) bool {
	var buf [16]string
	words := splitWords(label, buf[:0])
	for n := len(words) - 1; n >= 0; n-- {
		w := words[n]
		if isAllDigits(w) {
			continue
		}
		if IDWords[w] {
			return true
		}
		if stem, ok := strings.CutSuffix(w, "id"); ok && (IDNouns[stem] || len(stem) >= 4 && !notIDWords[w]) {
			return true
		}
		// A digest's algorithm anywhere in the key: Content-MD5,
		// x-amz-content-sha256, MD5OfMessageBody, ChecksumSHA256.
		for _, x := range words {
			switch x {
			case "md5", "sha1", "sha256", "sha512", "crc32", "crc32c", "checksum", "digest", "etag":
				return true
			}
		}
		return false
	}
	return false
}

// notIDWords are words that end in "id" and are not an identifier's name.
var notIDWords = map[string]bool{
	"invalid": true, "android": true, "liquid": true, "hybrid": true, "stupid": true,
	"splendid": true, "pyramid": true, "orchid": true, "candid": true, "squid": true,
	"humanoid": true, "asteroid": true, "paranoid": true, "tabloid": true, "steroid": true,
}

// isAllDigits reports whether s is one ASCII digit or more.
func isAllDigits(s string) bool {
	for k := 0; k < len(s); k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return s != ""
}

// randomLooking reports whether tok, a run of token bytes at least
// minRandomLen long, looks like a random credential rather than one of the
// safe shapes (safeShape) or a run of words and numbers: enough of its
// characters are explained by nothing (see junk) and its entropy is above
// the floor for its length.
func randomLooking(tok string) bool {
	n := len(tok)
	if n < minRandomLen || safeShape(tok) {
		return false
	}
	if prefixedKey(tok) {
		return true
	}
	if !mixedClasses(tok) && n < 32 {
		return false
	}
	j, counted := junk(tok)
	if j < minJunk || 2*j < counted {
		return false
	}
	return shannonEntropy(tok) > entropyFloor(n)
}

// letterClasses reports whether s holds an ASCII upper-case letter, a
// lower-case one and a digit.
func letterClasses(s string) (upper, lower, digit bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		upper = upper || isUpper(c)
		lower = lower || isLower(c)
		digit = digit || isDigit(c)
	}
	return upper, lower, digit
}

// mixedClasses reports whether tok has digits among its letters, or both
// cases: a run of one case of letters only is a word or a placeholder
// unless it is long.
func mixedClasses(tok string) bool {
	upper, lower, digit := letterClasses(tok)
	return digit && (upper || lower) || upper && lower
}

// prefixedKey reports whether tok is a vendor's key shape: a short prefix
// word (not one of SafeIDPrefixes), '_' or '-', then a body holding at
// least 32 hex digits in its pieces (pri_099889f1…, lsv2_pt_f7993350…) that
// is not a UUID.
func prefixedKey(tok string) bool {
	p := strings.IndexAny(tok, "_-")
	if p <= 0 || p > 10 || !isLetter(tok[0]) || titleWord(tok[:p]) {
		return false
	}
	body := tok[p+1:]
	if safePrefix(tok, p) {
		return false
	}
	if isUUID(body) {
		return false
	}
	hexDigits := 0
	for a := 0; a < len(body); {
		b := a
		for b < len(body) && body[b] != '_' && body[b] != '-' {
			b++
		}
		if piece := body[a:b]; len(piece) >= 8 && isHexPiece(piece) {
			hexDigits += len(piece)
		}
		a = b + 1
	}
	return hexDigits >= 32
}

// safePrefix reports whether tok[:p] is one of SafeIDPrefixes and shields
// tok: a key's own prefix among them — pk, a private key's or a
// publishable one's — shields only what a publishable key looks like
// (Stripe's pk_live_… of mixed letters); before a bare body of 32 hex
// digits or more it is a private key's (pk_90ab…).
func safePrefix(tok string, p int) bool {
	pre := strings.ToLower(tok[:p])
	if !SafeIDPrefixes[pre] {
		return false
	}
	return pre != "pk" || len(tok)-p-1 < 32 || !isHexPiece(tok[p+1:])
}

// titleWord reports whether p is a capitalized word (a capital, then four
// lower-case letters or more): the first word of a page's title in a slug
// (Notion's Incident-runbook-<32 hex>), never a vendor's key prefix.
func titleWord(p string) bool {
	if len(p) < 5 || !isUpper(p[0]) {
		return false
	}
	for k := 1; k < len(p); k++ {
		if !isLower(p[k]) {
			return false
		}
	}
	return true
}

// isHexKey reports whether tok is 32 hex digits or more of one case,
// without dashes (a UUID's dashes make it an identifier).
func isHexKey(tok string) bool {
	return len(tok) >= 32 && isHexPiece(tok)
}

// isUUID reports whether s is 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for k := 0; k < len(s); k++ {
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if s[k] != '-' {
				return false
			}
		} else if unhex(s[k]) < 0 {
			return false
		}
	}
	return true
}

// safeShape reports whether tok has the shape of an identifier an operator
// needs: digits and separators only, hex (a digest, a git object id, a
// UUID or a trace id with its dashes), an object id with a known prefix
// (SafeIDPrefixes), a digest with its algorithm ("sha512-…"), an ISO 8601
// basic timestamp ("20240115T103000Z").
func safeShape(tok string) bool {
	hexOnly, digitsOnly := true, true
	var lowerHex, upperHex bool
	for k := 0; k < len(tok); k++ {
		c := tok[k]
		switch {
		case isDigit(c):
		case c >= 'a' && c <= 'f':
			digitsOnly, lowerHex = false, true
		case c >= 'A' && c <= 'F':
			digitsOnly, upperHex = false, true
		case c == '-' || c == '_' || c == '.' || c == ':':
		default:
			hexOnly, digitsOnly = false, false
		}
	}
	if digitsOnly || hexOnly && !(lowerHex && upperHex) {
		return true
	}
	if len(tok) == 34 && isUpper(tok[0]) && isUpper(tok[1]) && isHexPiece(tok[2:]) {
		return true // a Twilio SID: AC, SM, CA… and 32 hex digits
	}
	if p := strings.IndexAny(tok, "_-"); p > 0 {
		if safePrefix(tok, p) {
			return true
		}
		switch strings.ToLower(tok[:p]) {
		case "sha1", "sha256", "sha384", "sha512", "md5":
			return true
		}
	}
	if strings.HasPrefix(tok, "h1:") && len(tok) == 47 && tok[46] == '=' {
		return true // a Go module's checksum (go.sum's h1: and base64 SHA-256)
	}
	return isULID(tok) || isBasicTimestamp(tok) || isPublicAddress(tok)
}

// isPublicAddress reports whether tok is a public key or an address that
// says so by its own shape, so that it is published, not kept: a Bech32 or
// Bech32m string (BIP 173, 350) whose checksum holds — an age recipient
// (age1…), a Bitcoin or Cosmos address (bc1…, cosmos1…), a Lightning
// invoice — unless its human-readable part names a secret (Nostr's nsec1…,
// a …secret…, …priv… or …sk part); an Ethereum address (0x and 40 hex
// digits, either case: EIP-55 writes its checksum in the case); an IPFS
// content id (CIDv1 in base32, "baf…", or CIDv0, "Qm" and 44 base58).
func isPublicAddress(tok string) bool {
	switch {
	case len(tok) == 42 && tok[0] == '0' && tok[1] == 'x':
		for k := 2; k < len(tok); k++ {
			if unhex(tok[k]) < 0 {
				return false
			}
		}
		return true
	case len(tok) == 46 && strings.HasPrefix(tok, "Qm"):
		for k := 2; k < len(tok); k++ {
			if c := tok[k]; !isAlnum(c) || c == '0' || c == 'O' || c == 'I' || c == 'l' {
				return false
			}
		}
		return true
	case len(tok) >= 50 && strings.HasPrefix(tok, "baf"):
		for k := 3; k < len(tok); k++ {
			if c := tok[k]; !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
				return false
			}
		}
		return true
	}
	return isBech32(tok)
}

// bech32Charset is Bech32's alphabet, by value.
const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// isBech32 reports whether tok is a lower-case Bech32 or Bech32m string
// with a valid checksum and a human-readable part that names no secret.
func isBech32(tok string) bool {
	sep := strings.LastIndexByte(tok, '1')
	if sep < 1 || sep > 83 || len(tok)-sep-1 < 6+32 || len(tok) > 1023 {
		return false
	}
	hrp := tok[:sep]
	for k := 0; k < len(hrp); k++ {
		if c := hrp[k]; !(c >= 'a' && c <= 'z' || isDigit(c)) {
			return false
		}
	}
	if strings.Contains(hrp, "sec") || strings.Contains(hrp, "priv") || strings.HasSuffix(hrp, "sk") {
		return false // nsec1…, a private key's or a secret's encoding
	}
	chk := uint32(1)
	step := func(v uint32) {
		b := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ v
		for i, g := range [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3} {
			if b>>i&1 != 0 {
				chk ^= g
			}
		}
	}
	for k := 0; k < len(hrp); k++ {
		step(uint32(hrp[k]) >> 5)
	}
	step(0)
	for k := 0; k < len(hrp); k++ {
		step(uint32(hrp[k]) & 31)
	}
	for k := sep + 1; k < len(tok); k++ {
		v := strings.IndexByte(bech32Charset, tok[k])
		if v < 0 {
			return false
		}
		step(uint32(v))
	}
	return chk == 1 || chk == 0x2bc830a3
}

// isULID reports whether p is a ULID: 26 characters of Crockford's base32
// (digits and capitals but I, L, O and U), the first at most 7 — a time
// then randomness, an identifier (a job's, an item's), never a credential
// vendors issue in that alphabet.
func isULID(p string) bool {
	if len(p) != 26 || p[0] < '0' || p[0] > '7' {
		return false
	}
	letters := 0
	for k := 0; k < len(p); k++ {
		c := p[k]
		switch {
		case isDigit(c):
		case c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U':
			letters++
		default:
			return false
		}
	}
	return letters > 0
}

// isBasicTimestamp reports whether tok is an ISO 8601 basic date-time,
// 20240115T103000Z or with fractions.
func isBasicTimestamp(tok string) bool {
	if len(tok) < 15 || tok[8] != 'T' {
		return false
	}
	for k := 0; k < len(tok); k++ {
		if c := tok[k]; !(isDigit(c) || k == 8 || c == 'Z' && k == len(tok)-1 || c == '.') {
			return false
		}
	}
	return true
}

// junk returns how many characters of tok nothing explains, and how many
// were counted (separators are not). Explained are: letters of word-like
// segments (four letters or more, split at camel-case humps, with vowels
// and no long consonant cluster), digits of numbers standing between
// separators, and hex pieces between separators (a UUID or hex id inside a
// longer token).
func junk(tok string) (junk, counted int) {
	for a := 0; a < len(tok); {
		if isSep(tok[a]) {
			a++
			continue
		}
		b := a
		for b < len(tok) && !isSep(tok[b]) {
			b++
		}
		piece := tok[a:b]
		counted += len(piece)
		switch {
		case len(piece) >= 4 && isHexPiece(piece), isAllDigits(piece), isAcronym(piece), isULID(piece):
		default:
			junk += len(piece) - explainedLetters(piece)
		}
		a = b
	}
	return junk, counted
}

// isAcronym reports whether p is two to six capitals and up to four
// digits: RSA, AES128, SHA256, HMAC, TLSv1 is not.
func isAcronym(p string) bool {
	k := 0
	for k < len(p) && isUpper(p[k]) {
		k++
	}
	if k < 2 || k > 6 || len(p)-k > 4 {
		return false
	}
	return isAllDigits(p[k:]) || k == len(p)
}

func isSep(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c == '/' || c == '+' || c == '=' || c == '~'
}

// isHexPiece reports whether p is hex digits of one case with at least one
// digit (so that "cafe" and "dead" stay words for explainedLetters).
func isHexPiece(p string) bool {
	var digit, lower, upper bool
	for k := 0; k < len(p); k++ {
		c := p[k]
		switch {
		case isDigit(c):
			digit = true
		case c >= 'a' && c <= 'f':
			lower = true
		case c >= 'A' && c <= 'F':
			upper = true
		default:
			return false
		}
	}
	return digit && !(lower && upper)
}

// explainedLetters returns how many letters of p belong to word-like
// segments.
func explainedLetters(p string) int {
	n := 0
	for a := 0; a < len(p); {
		if !isLetter(p[a]) {
			a++
			continue
		}
		// A segment: an upper-case run followed by lower case splits before
		// its last capital ("APIKey" → API|Key); a lower-case run ends at
		// the next capital.
		b := a + 1
		if isUpper(p[a]) {
			for b < len(p) && isUpper(p[b]) {
				b++
			}
			if b < len(p) && isLower(p[b]) {
				if b-a > 1 {
					b-- // the last capital starts the next word
				} else {
					for b < len(p) && isLower(p[b]) {
						b++
					}
				}
			}
		} else {
			for b < len(p) && isLower(p[b]) {
				b++
			}
		}
		if wordLike(p[a:b]) {
			n += b - a
		}
		a = b
	}
	return n
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// commonBigrams lists, for each letter, the letters that commonly follow
// it inside words: the pairs that make up 98% of the letter pairs of the
// words in Go's standard library source (identifiers split at camel-case
// humps, and comments). Random letters pair rarely so.
var commonBigrams = [26]string{
	"abcdefgiklmnprstuvwxy",
	"aceijlorsuy",
	"acdefghiklmoprstuv",
	"acdefilnorsuwxy",
	"abcdefgilmnopqrstuvwxy",
	"acdefilmoprstuy",
	"acehilnorstu",
	"aeimortu",
	"abcdefglmnoprstvxz",
	"es",
	"aegins",
	"adefilostuy",
	"abdeilmopstu",
	"acdefgiklmnopstuvy",
	"abcdefgiklmnoprstuvw",
	"acdefhikloprstuy",
	"u",
	"acdefgiklmnoprstuvy",
	"acdeghiklmnoprstuwy",
	"acdefhilmoprstuwxy",
	"abcdefgilmnprst",
	"aeios",
	"aehinors",
	"acdefipt",
	"lmnprst",
	"e",
}

// wordLike reports whether a run of letters reads like a word: four letters
// or more, at least a quarter of them vowels (y included), no more than
// four consonants in a row, and three quarters of its letter pairs common
// (commonBigrams).
func wordLike(w string) bool {
	if len(w) < 4 {
		return false
	}
	common := 0
	for k := 0; k+1 < len(w); k++ {
		a, b := w[k]|0x20, w[k+1]|0x20
		if a >= 'a' && a <= 'z' && strings.IndexByte(commonBigrams[a-'a'], b) >= 0 {
			common++
		}
	}
	if 4*common < 3*(len(w)-1) {
		return false
	}
	vowels, run, maxRun := 0, 0, 0
	for k := 0; k < len(w); k++ {
		switch w[k] | 0x20 {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			vowels++
			run = 0
		default:
			run++
			maxRun = max(maxRun, run)
		}
	}
	return 4*vowels >= len(w) && maxRun <= 4
}

// A vendor's API key often names the mode it works in between its prefix
// and its body: Razorpay's rzp_live_…, Stripe's sk_test_… and rk_live_…,
// and others'. Such a token — a prefix of two
// to ten letters (not one of SafeIDPrefixes: a publishable pk_live_ stays),
// "live" or "test" in one case, '_', then a body of twelve
// characters or more that mixes upper- and lower-case letters or letters
// and digits — is a credential wherever it stands: an identifier has no
// mode, and a snake_case name's words are of one case.

// findModeKey finds a key that names its mode (see above).
func findModeKey(s string, from int) []int {
	for i := from; i < len(s); {
		k := indexFold(s[i:], "_live")
		if t := indexFold(s[i:], "_test"); t >= 0 && (k < 0 || t < k) {
			k = t
		}
		if k < 0 {
			return nil
		}
		m := i + k
		i = m + 5
		if i >= len(s) || s[i] != '_' {
			continue
		}
		if w := s[m+1 : i]; w != "live" && w != "test" && w != "LIVE" && w != "TEST" {
			continue
		}
		a := m
		for a > 0 && isLetter(s[a-1]) {
			a--
		}
		if m-a < 2 || m-a > 10 || a > 0 && (isAlnum(s[a-1]) || s[a-1] == '_' || s[a-1] == '-') || SafeIDPrefixes[strings.ToLower(s[a:m])] {
			continue
		}
		bs := i + 1
		b := bs
		var upper, lower, digit bool
		for b < len(s) && isAlnum(s[b]) {
			c := s[b]
			upper, lower, digit = upper || isUpper(c), lower || isLower(c), digit || isDigit(c)
			b++
		}
		if b-bs < 12 || !(upper && lower || digit && (upper || lower)) || b < len(s) && (s[b] == '_' || s[b] == '-') {
			continue
		}
		return []int{a, b, -1, -1, a, b}
	}
	return nil
}

// findProsePassword finds a password a sentence states — "Password for
// user admin is w_Ux7…", "the password is Kq2!mz…", "root password was
// …" — and returns the value: the run of bytes after the verb up to a
// space or the quote, comma or escape of the string it stands in, less the
// sentence's closing punctuation, when it could be a
// credential (credentialLike, symbols included: a password is not a
// token's alphabet). "password is incorrect" keeps its word.
func findProsePassword(s string, from int) []int {
	for p := range foldMarks(s, from, "password") {
		k := p + len("password")
		if k < len(s) && (s[k] == 's' || s[k] == 'S') {
			k++
		}
		// "for user admin", "of bob": at most four words to the verb.
		le := lineEnd(s, k)
		lim := min(le, k+96)
		verb := -1
		for w, n := k, 0; w < lim && n < 6; n++ {
			for w < lim && s[w] == ' ' {
				w++
			}
			e := w
			for e < lim && s[e] != ' ' {
				e++
			}
			word := strings.ToLower(s[w:e])
			if word == "is" || word == "was" {
				verb = e
				break
			}
			if n == 0 && word != "for" && word != "of" {
				break
			}
			w = e
		}
		if verb < 0 {
			continue
		}
		vs := skipBlanks(s, verb)
		if vs < le && (s[vs] == '"' || s[vs] == '\'') {
			vs++
		}
		// The value ends at a space, or at the quote, comma or escape of
		// the string or record the sentence stands in.
		ve := vs
		for ve < le && strings.IndexByte(" \t\"',;\\<>", s[ve]) < 0 {
			ve++
		}
		for ve > vs && strings.IndexByte(".:)", s[ve-1]) >= 0 {
			ve--
		}
		if ve <= vs || startsWithMarker(s, vs) || !credentialLike(s[vs:ve]) {
			continue
		}
		return []int{p, ve, p, p + 8, vs, ve}
	}
	return nil
}
