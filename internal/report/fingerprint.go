package report

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// urlMark opens a shaped URL set aside by Shape; the rune after it is
// urlMark+1+its index. Both are in Unicode's private use area.
const (
	urlMark = '\uE000'
	maxURLs = 64
)

// MaxShape bounds a normalised text (Shape): two failures whose texts
// differ only past it are one family.
const MaxShape = 300

// maxShapeInput bounds the text Shape reads: the error log keeps at most
// 1 KiB of a failure's text, and the shape at most MaxShape bytes of it.
const maxShapeInput = 4 << 10

// maxQuoted bounds a quoted value: a longer run between two quotes is
// taken for text that happens to hold two quotes.
const maxQuoted = 200

// Shape is text with what varies between two failures of one family
// stripped (docs/design.md "Reports"). In this order:
//
//  1. a URL keeps its scheme, host and path words: an IPv4 host is <ip>, a
//     port <n>, a host label or a path segment with a digit <id> (but a
//     short version, "v1"); its query and fragment go;
//  2. a quoted value ("…", '…', `…`, at most 200 bytes) is "<q>", except
//     a JSON key (a ':' follows; no digit) and a quoted URL; an apostrophe
//     inside a word ("can't") quotes nothing;
//  3. a UUID is <uuid>, an ISO 8601 timestamp <time>, an IPv4 address with
//     its port <ip>;
//  4. then word by word (a word is a run of letters, digits and '_'): a
//     number — digits, with a decimal part, an exponent and a unit
//     (59.977s, 644ms, 1.5e3, 8KiB, 20%) — is <n>; a hex run of 8 or more
//     with a digit and a letter, or 0x…, is <hex>; a word of 4 or more with
//     a digit and a letter is <id> (req_8f2a, C024BE91L; shorter ones,
//     "s3", "v1", "4o", stay);
//  5. white space is one space; the shape is at most MaxShape bytes.
//
// Redaction markers ("[REDACTED:openai-key]") hold no digit and stay.
// Shape reads at most the text's first 4 KiB.
func Shape(text string) string {
	if len(text) > maxShapeInput {
		text = cutRunes(text, maxShapeInput)
	}
	s := text
	// A URL, once shaped, is set aside (a private-use mark holding its
	// index) so that the later rules do not read its host and path again.
	var urls []string
	if strings.Contains(s, "://") {
		s = replaceURLs(s, func(u string) string {
			if len(urls) >= maxURLs {
				return "<url>"
			}
			urls = append(urls, shapeURL(u))
			return string(urlMark) + string(rune(urlMark+1+rune(len(urls)-1)))
		})
	}
	if strings.ContainsAny(s, "\"'`") {
		s = shapeQuoted(s)
	}
	return cutRunes(shapeWords(s, urls), MaxShape)
}

// shapeWords is Shape's last pass, word by word: UUIDs, timestamps,
// addresses, numbers, hex runs and identifiers; white space collapsed;
// the URLs set aside put back.
func shapeWords(s string, urls []string) string {
	var b strings.Builder
	b.Grow(min(len(s), MaxShape+64))
	space := false
	for i := 0; i < len(s) && b.Len() <= MaxShape; {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case unicode.IsSpace(r):
				space = true
			case r == urlMark && i+n < len(s):
				r2, n2 := utf8.DecodeRuneInString(s[i+n:])
				if k := int(r2 - urlMark - 1); k >= 0 && k < len(urls) {
					writeSpace(&b, &space)
					b.WriteString(urls[k])
					i += n + n2
					continue
				}
				fallthrough
			default:
				writeSpace(&b, &space)
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			space = true
			i++
			continue
		}
		writeSpace(&b, &space)
		if !isWord(c) {
			b.WriteByte(c)
			i++
			continue
		}
		if p, n := placeholder(s[i:]); n > 0 {
			b.WriteString(p)
			i += n
			continue
		}
		j := i
		for j < len(s) && isWord(s[j]) {
			j++
		}
		w := s[i:j]
		switch {
		case isHexRun(w):
			b.WriteString("<hex>")
		case len(w) >= 4 && hasDigit(w) && hasLetter(w):
			b.WriteString("<id>")
		default:
			b.WriteString(w)
		}
		i = j
	}
	return b.String()
}

// writeSpace writes the one space a run of white space became, unless at
// the start.
func writeSpace(b *strings.Builder, space *bool) {
	if *space && b.Len() > 0 {
		b.WriteByte(' ')
	}
	*space = false
}

// placeholder is what the text at a word's start is, and its length: a
// UUID, a timestamp, an IPv4 address (with its port) or a number; n is 0
// when it is none of them.
func placeholder(s string) (p string, n int) {
	if n = uuidLen(s); n > 0 {
		return "<uuid>", n
	}
	if n = timeLen(s); n > 0 {
		return "<time>", n
	}
	if n = ipLen(s); n > 0 {
		return "<ip>", n
	}
	if n = numberLen(s); n > 0 {
		return "<n>", n
	}
	return "", 0
}

// ends reports whether s[i:] starts no word: the end of a token.
func ends(s string, i int) bool { return i >= len(s) || !isWord(s[i]) }

// uuidLen is 36 when s starts with a UUID (8-4-4-4-12 hex digits), else 0.
func uuidLen(s string) int {
	if len(s) < 36 || !ends(s, 36) {
		return 0
	}
	for i := range 36 {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return 0
			}
		default:
			if !allHex(s[i : i+1]) {
				return 0
			}
		}
	}
	return 36
}

// timeLen is the length of the ISO 8601 date s starts with (YYYY-MM-DD),
// with its time (THH:MM[:SS[.fff]]) and zone (Z, ±HH[:]MM) when present; 0
// when there is none.
func timeLen(s string) int {
	if !fixed(s, "dddd-dd-dd") {
		return 0
	}
	i := 10
	if fixed(s[i:], "Tdd:dd") || fixed(s[i:], " dd:dd") {
		i += 6
		if fixed(s[i:], ":dd") {
			i += 3
			if i+1 < len(s) && (s[i] == '.' || s[i] == ',') && isDigit(s[i+1]) {
				i = digits(s, i+1)
			}
		}
		switch {
		case i < len(s) && s[i] == 'Z':
			i++
		case fixed(s[i:], "+dd:dd") || fixed(s[i:], "-dd:dd"):
			i += 6
		case fixed(s[i:], "+dddd") || fixed(s[i:], "-dddd"):
			i += 5
		}
	}
	if !ends(s, i) {
		return 0
	}
	return i
}

// fixed reports whether s starts with pattern, where 'd' is any digit and
// every other byte itself.
func fixed(s, pattern string) bool {
	if len(s) < len(pattern) {
		return false
	}
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == 'd' && !isDigit(s[i]) || pattern[i] != 'd' && s[i] != pattern[i] {
			return false
		}
	}
	return true
}

// ipLen is the length of the IPv4 address s starts with, with its port
// when present; 0 when there is none.
func ipLen(s string) int {
	i := 0
	for part := range 4 {
		if part > 0 {
			if i >= len(s) || s[i] != '.' {
				return 0
			}
			i++
		}
		j := digits(s, i)
		if j == i || j-i > 3 {
			return 0
		}
		i = j
	}
	if i+1 < len(s) && s[i] == ':' && isDigit(s[i+1]) {
		if j := digits(s, i+1); j-i-1 <= 5 && ends(s, j) {
			return j
		}
	}
	if !ends(s, i) {
		return 0
	}
	return i
}

// replaceURLs replaces every URL of s — a scheme (a letter, then letters,
// digits, '+', '.', '-'), "://", and what follows up to white space, a
// quote, a bracket or a comma — by f(url).
func replaceURLs(s string, f func(string) string) string {
	var b strings.Builder
	last := 0
	for {
		k := strings.Index(s[last:], "://")
		if k < 0 {
			break
		}
		k += last
		start := k
		for start > last && (isWord(s[start-1]) && s[start-1] != '_' || s[start-1] == '+' || s[start-1] == '.' || s[start-1] == '-') {
			start--
		}
		for start < k && !(s[start]|0x20 >= 'a' && s[start]|0x20 <= 'z') {
			start++
		}
		end := k + 3
		for end < len(s) && !strings.ContainsRune(" \t\n\r\"'<>()[]{},", rune(s[end])) {
			end++
		}
		if start == k || end == k+3 {
			b.WriteString(s[last : k+3])
			last = k + 3
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(f(s[start:end]))
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// units are the units a number may carry, the longer before their
// prefixes.
var units = []string{"KiB", "MiB", "GiB", "min", "sec", "ns", "us", "µs", "ms", "kb", "KB", "mb", "MB", "gb", "GB", "s", "m", "h", "d", "%"}

// numberLen is the length of the number that s starts with — digits,
// then '.' and digits, then an exponent, then a unit — when no letter,
// digit or '_' follows it; else 0.
func numberLen(s string) int {
	i := digits(s, 0)
	if i == 0 {
		return 0
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i = digits(s, i+1)
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		k := i + 1
		if s[k] == '+' || s[k] == '-' {
			k++
		}
		if e := digits(s, k); e > k {
			i = e
		}
	}
	for _, u := range units {
		if strings.HasPrefix(s[i:], u) && (i+len(u) == len(s) || !isWord(s[i+len(u)])) {
			return i + len(u)
		}
	}
	if i < len(s) && isWord(s[i]) {
		return 0
	}
	return i
}

func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isHexRun reports whether w is 0x… or a run of 8 or more hex digits with
// a digit and a letter (a digest, a trace id).
func isHexRun(w string) bool {
	if len(w) > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') {
		return allHex(w[2:])
	}
	return len(w) >= 8 && allHex(w) && hasDigit(w) && hasLetter(w)
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !isDigit(s[i]) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// cutRunes bounds s to n bytes on a rune boundary, and trims the space a
// cut may leave at its end.
func cutRunes(s string, n int) string {
	if len(s) > n {
		for n > 0 && s[n]&0xC0 == 0x80 {
			n--
		}
		s = s[:n]
	}
	return strings.TrimRight(s, " ")
}

// shapeURL keeps a URL's scheme, host and path words: an IPv4 host is
// <ip>, a port <n>, a host's label of 4 or more with a digit (a tenant's
// id, a region) <id>, and so is a path segment with a digit (but "v1").
func shapeURL(u string) string {
	whole := u
	u = strings.TrimRight(u, ".,;:")
	tail := whole[len(u):]
	scheme, rest, _ := strings.Cut(u, "://")
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	host, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(host, '@'); at >= 0 { // user:password@ was redacted already; it is no part of the family
		host = host[at+1:]
	}
	host, port := strings.ToLower(host), ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && i+1 < len(host) && digits(host, i+1) == len(host) {
		host, port = host[:i], ":<n>"
	}
	if n := ipLen(host); n > 0 && n == len(host) {
		host = "<ip>"
	} else {
		labels := strings.Split(host, ".")
		for i, l := range labels {
			if hasDigit(l) && len(l) >= 4 {
				labels[i] = "<id>"
			}
		}
		host = strings.Join(labels, ".")
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(scheme) + "://" + host + port)
	if path != "" {
		for _, seg := range strings.Split(path, "/") {
			b.WriteByte('/')
			if hasDigit(seg) && (len(seg) >= 4 || !hasLetter(seg)) {
				b.WriteString("<id>")
			} else {
				b.WriteString(seg)
			}
		}
	}
	return b.String() + tail
}

// shapeQuoted replaces every quoted value by "<q>" between its quotes,
// and keeps the ones a ':' follows (JSON keys) when they hold no digit,
// and quoted URLs (Go's `Post "https://…": …`), shaped already. A quote
// opens a value when its closing quote follows on the same line within
// maxQuoted bytes ('"' with backslash escapes); a single quote inside a
// word (an apostrophe: "can't", "model's") opens and closes nothing.
func shapeQuoted(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		if q == '\'' && i > 0 && isWord(s[i-1]) {
			continue
		}
		end := closingQuote(s, i)
		if end < 0 || q == '\'' && end+1 < len(s) && isWord(s[end+1]) {
			continue
		}
		value := s[i+1 : end]
		b.WriteString(s[last:i])
		if strings.HasPrefix(strings.TrimLeft(s[end+1:], " "), ":") && !hasDigit(value) || strings.HasPrefix(value, string(urlMark)) {
			b.WriteString(s[i : end+1])
		} else {
			b.WriteString(string(q) + "<q>" + string(q))
		}
		last, i = end+1, end
	}
	b.WriteString(s[last:])
	return b.String()
}

// closingQuote is the index of the quote that closes the one at s[i], or
// -1.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s) && j-i <= maxQuoted+1; j++ {
		switch s[j] {
		case '\n':
			return -1
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j
		}
	}
	return -1
}

func isWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// Fingerprint names a family of failures: the provider, the stage, the
// HTTP status and the text's Shape. Two failures with one fingerprint
// differ only in what Shape strips.
type Fingerprint struct {
	// Provider is the upstream the text names ("" when it names none).
	Provider failure.Provider `json:"provider,omitempty"`
	// Stage is the stage that met the failure.
	Stage work.Stage `json:"stage,omitempty"`
	// Status is the HTTP status the text names, or zero.
	Status int `json:"status,omitempty"`
	// Shape is the text's Shape.
	Shape string `json:"shape"`
}

// FingerprintOf is the fingerprint of a failure as the error log recorded
// it (store.LogEntry.Evidence): its stage, its text's Shape, and the
// provider and the status the log recorded — or, when it lacks one, both
// as the classifier reads them in the evidence (failure.FactsOf).
func FingerprintOf(ev *failure.Evidence) Fingerprint {
	fp := Fingerprint{Provider: ev.Provider, Stage: ev.Stage, Status: ev.Status, Shape: Shape(ev.Text)}
	if fp.Provider == "" || fp.Status == 0 {
		f := failure.FactsOf(ev)
		fp.Provider, fp.Status = f.Provider, f.Status
	}
	return fp
}

// ID is a short stable name of fp: 12 hex digits of a SHA-256 of its
// fields.
func (fp Fingerprint) ID() string {
	h := sha256.Sum256([]byte(string(fp.Provider) + "\x00" + string(fp.Stage) + "\x00" + strconv.Itoa(fp.Status) + "\x00" + fp.Shape))
	return hex.EncodeToString(h[:6])
}
