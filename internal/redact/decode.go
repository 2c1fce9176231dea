package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The decoding layer: what stands encoded in text — a percent- or
// form-encoded run, a base64 or base64url blob, a run of \uXXXX, \xXX or
// &#NN; escapes — is decoded and redacted as text one level deeper. When
// that changes anything, the run is replaced whole by a marker of the
// first kind found inside it (or by Text of it, for content): an encoded
// secret never survives, because its plain form would not. Quoted strings
// with backslash escapes are the structure layer's (layers.go).

// minBlobLen is the shortest base64 run decoded (trufflehog's decoder
// takes runs longer than 20; a Basic credential has its own rule).
const minBlobLen = 16

// encodedRuns applies the decoding layer to s.
func encodedRuns(s string, st *state) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '&') < 0 {
		return s
	}
	out := splicer{s: s}
	for i := 0; i < len(s); {
		c := s[i]
		if isRunStop(c) {
			i++
			continue
		}
		j := i + 1
		pct, esc, b64 := c == '%', c == '\\' || c == '&', isBase64URL(c) || c == '+' || c == '/'
		for j < len(s) && !isRunStop(s[j]) {
			switch d := s[j]; {
			case d == '%':
				pct = true
			case d == '\\' || d == '&':
				esc = true
			case !(isBase64URL(d) || d == '+' || d == '/' || d == '='):
				b64 = false
			}
			j++
		}
		if skipMarker(s, i) != i || i > 0 && s[i-1] == '[' && strings.HasPrefix(s[i:], "REDACTED:") {
			i = j
			continue
		}
		for _, sp := range pieces(s, i, j, pct, esc, b64) {
			if r, ok := decodeRun(s[sp.start:sp.end], sp.how, st); ok {
				out.replace(sp.start, sp.end, r)
			}
		}
		i = j
	}
	return out.String()
}

// isRunStop reports whether c ends an encoded run: whitespace, quotes,
// brackets of markup, and the '=', '&', '?', '#' and ':' that separate a
// key or a parameter from its value (so that the key stays).
func isRunStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '`', '<', '>', '(', ')', '[', ']', '{', '}', ',', ';', '|':
		return true
	}
	return false
}

func isBase64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// encoding is how a piece of a run is encoded.
type encoding int

const (
	encEscapes encoding = iota
	encPercent
)

// piece is a part of a run to decode, and how.
type piece struct {
	start, end int
	how        encoding
}

// pieces returns the parts of the run s[a:b] to decode: the whole run when
// it holds escapes; each parameter, key and value of it when it is
// percent-encoded (so that the names stay); the blob after the last inner
// '=' when it is base64.
func pieces(s string, a, b int, pct, esc, b64 bool) []piece {
	if run := s[a:b]; esc && (strings.Contains(run, `\u`) || strings.Contains(run, `\x`) || strings.Contains(run, "&#")) {
		return []piece{{a, b, encEscapes}}
	}
	switch {
	case pct:
		var out []piece
		for k := a; k < b; {
			e := k
			for e < b && strings.IndexByte("&=?#", s[e]) < 0 {
				e++
			}
			if e > k && strings.IndexByte(s[k:e], '%') >= 0 {
				out = append(out, piece{k, e, encPercent})
			}
			k = e + 1
		}
		return out
	}
	return nil
}

// decodeRun decodes run as how says and returns its replacement when its
// decoded form held something to redact.
func decodeRun(run string, how encoding, st *state) (string, bool) {
	var (
		dec string
		ok  bool
	)
	switch how {
	case encEscapes:
		dec, ok = unescapeRun(run)
	case encPercent:
		dec, ok = percentDecode(run)
	}
	if !ok || dec == run || len(dec) < minSecretLen || st.depth >= maxDecodeDepth {
		return "", false
	}
	if !st.canDecode(len(dec)) {
		// Not looked into: deny by default.
		return KindToken.Marker(), true
	}
	inner := redactText(dec, st.deeper())
	if inner == dec {
		return "", false
	}
	if how == encEscapes {
		// What the patterns find in the escaped run itself they redact
		// there, keeping the rest of the run.
		if sf, ok := unescapeRun(surface(run, st)); ok && sf == inner {
			return "", false
		}
	}
	return blobMarker(dec, inner), true
}

// decodeBlob decodes tok, a long token of the random-token rule, when it
// is base64 or base64url of text, and returns the blob's replacement when
// the text held something to redact — or "" and true when the text is a
// JSON document with nothing to redact, which stays. A blob that the
// budget does not let it look into is left to the token's shape (deny by
// default).
func decodeBlob(tok string, st *state) (string, bool) {
	if st.depth >= maxDecodeDepth {
		return "", false
	}
	dec, ok := base64Text(tok)
	if !ok || len(dec) < minSecretLen || plainWords(dec) || !st.canDecode(len(dec)) {
		return "", false
	}
	inner := redactText(dec, st.deeper())
	if inner == dec {
		if jsonDocument(dec) {
			return "", true // a JSON document with nothing to hide: a message's data
		}
		return "", false
	}
	return blobMarker(dec, inner), true
}

// jsonDocument reports whether s is one JSON object or array: data a
// message carries (Pub/Sub's data, a Kinesis record), read whole by the
// key rules when decoded, so the encoding is no credential's.
func jsonDocument(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return false
	}
	return json.Valid([]byte(t))
}

// plainWords reports whether s is letters and spaces only: text in which no
// rule can find anything, not worth a nested redaction.
func plainWords(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && c != ' ' {
			return false
		}
	}
	return true
}

// blobMarker is the replacement of an encoded run whose decoded form dec
// redacted to inner: the marker of the first kind found inside, or Text of
// dec when only content was found.
func blobMarker(dec, inner string) string {
	if i := strings.Index(inner, markerPrefix); i >= 0 {
		if j := strings.IndexByte(inner[i:], ']'); j > 0 && isMarker(inner[i:i+j+1]) {
			return inner[i : i+j+1]
		}
	}
	if strings.Contains(inner, "[text ") {
		return Text(dec)
	}
	return KindToken.Marker()
}

// percentDecode decodes %XX escapes and '+' (form encoding) in s. ok is
// false when s holds no valid %XX.
func percentDecode(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0:
			b = append(b, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
			n++
		case c == '+':
			b = append(b, ' ')
		default:
			b = append(b, c)
		}
	}
	return string(b), n > 0
}

// unescapeRun decodes \uXXXX, \xXX, JSON's other escapes and HTML numeric
// entities (&#115; &#x73;) in a run of text.
func unescapeRun(s string) (string, bool) {
	if strings.Contains(s, "&#") {
		s = decodeEntities(s)
	}
	if strings.IndexByte(s, '\\') < 0 {
		return s, true
	}
	return unescape(s)
}

// decodeEntities decodes HTML numeric character references.
func decodeEntities(s string) string {
	out := splicer{s: s}
	for i := 0; i+3 < len(s); i++ {
		if s[i] != '&' || s[i+1] != '#' {
			continue
		}
		j := i + 2
		hexa := j < len(s) && (s[j] == 'x' || s[j] == 'X')
		if hexa {
			j++
		}
		v, k := 0, j
		for k < len(s) && k-j < 7 {
			d := unhex(s[k])
			if d < 0 || !hexa && d > 9 {
				break
			}
			if hexa {
				v = v*16 + d
			} else {
				v = v*10 + d
			}
			k++
		}
		if k == j || k >= len(s) || s[k] != ';' || v > utf8.MaxRune {
			continue
		}
		out.replace(i, k+1, string(rune(v)))
		i = k
	}
	return out.String()
}

// base64Text decodes s as base64 or base64url, padded or not, and returns
// the decoded form when it reads as text: valid UTF-8 without control
// characters other than tab and newlines. Hex digests and numbers are
// valid base64 too; they are not decoded.
func base64Text(s string) (string, bool) {
	s = strings.TrimLeft(s, "+/-_=")
	if len(s) < minBlobLen || safeShape(s) {
		return "", false
	}
	upper, lower, _ := letterClasses(s)
	if !(upper && lower) {
		return "", false
	}
	encs := []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding}
	for _, enc := range encs {
		d, err := enc.DecodeString(s)
		if err != nil || len(d) == 0 {
			continue
		}
		if textLike(d) {
			return string(d), true
		}
		return "", false
	}
	return "", false
}

// textLike reports whether b reads as text.
func textLike(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

// A mail body in quoted-printable (Content-Transfer-Encoding:
// quoted-printable) writes '=' as =3D, other bytes as =XX and breaks long
// lines with a soft break ("=" at a line's end): key=3Dvalue, a token cut
// over two lines. Such a body is decoded and redacted as text one level
// deeper; when that changes anything, the redacted text is written back
// encoded again ('=' as =3D, bytes outside ASCII as =XX), its soft breaks
// joined. It is looked for only where =3D occurs ('=' must be written so,
// and a credential stands after one); the body is what follows the
// header's blank line to the next MIME boundary, or the whole text when no
// header says so.

// findQuotedPrintable finds, once per text, a quoted-printable body whose
// decoded text held anything to redact, and leaves its redacted text,
// encoded again, in in.blob.
func findQuotedPrintable(in *probe, s string, from int) []int {
	if from > 0 || !strings.Contains(s, "=3D") {
		return nil
	}
	st := in.st
	a, b := 0, len(s)
	if h := strings.Index(s, "uoted-printable"); h >= 0 {
		if k := strings.Index(s[h:], "\n\n"); k >= 0 {
			a = h + k + 2
		} else if k := strings.Index(s[h:], "\r\n\r\n"); k >= 0 {
			a = h + k + 4
		} else {
			return nil
		}
		if k := strings.Index(s[a:], "\n--"); k >= 0 {
			b = a + k
		}
	}
	dec, ok := qpDecode(s[a:b])
	if !ok || len(dec) < minSecretLen || st.depth >= maxDecodeDepth || a >= b {
		return nil
	}
	if !st.canDecode(len(dec)) {
		in.blob = KindToken.Marker() // not looked into: deny by default
		return []int{a, b, -1, -1, a, b}
	}
	inner := redactText(dec, st.deeper())
	if inner == dec {
		return nil
	}
	in.blob = qpEncode(inner)
	return []int{a, b, -1, -1, a, b}
}

// qpDecode decodes quoted-printable text; ok is false when nothing in it
// was encoded.
func qpDecode(s string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '=' {
			b.WriteByte(c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\n':
			i++
			changed = true
		case i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
			i += 2
			changed = true
		case i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0 && !isLowerHex(s[i+1]) && !isLowerHex(s[i+2]):
			b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
			i += 2
			changed = true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), changed
}

func isLowerHex(c byte) bool { return c >= 'a' && c <= 'f' }

// qpEncode writes text back in quoted-printable: '=' and bytes outside
// ASCII as =XX, lines as they are.
func qpEncode(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '=' || c >= 0x80 {
			b.WriteByte('=')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
