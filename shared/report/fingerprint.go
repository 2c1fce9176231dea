package report

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
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

// The normaliser's rules, in the order Shape applies them (docs/design.md
// "Reports"). Each replaces what varies between two failures of one family
// by a placeholder; what stays is the family's wording.
var (
	// A URL keeps its scheme, host and the path's words; query and fragment
	// go, and a path segment that holds a digit is an <id> (but a short
	// version: v1).
	reURL = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>()\[\]{},]+`)
	// A quoted value — "…", '…' or `…` — is "<q>", unless it is a JSON
	// key (a ':' follows), which names the structure rather than a value,
	// or a URL (shaped already).
	reQuoted = regexp.MustCompile("\"(?:[^\"\\\\\\n]|\\\\.){0,200}\"|'[^'\\n]{0,200}'|`[^`\\n]{0,200}`")
	// A UUID, any version.
	reUUID = regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)
	// A timestamp: an ISO 8601 date, with its time and zone when present.
	reTime = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b`)
	// An IPv4 address, with its port when present.
	reIP = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b`)
	// A hex run of 8 or more with a digit (a digest, a trace id), or 0x….
	reHex = regexp.MustCompile(`\b0x[0-9a-fA-F]+\b|\b[0-9a-fA-F]*[0-9][0-9a-fA-F]*\b`)
	// A number, with a decimal part and a unit (59.977s, 644ms, 8192,
	// 1.5e3, 20%).
	reNumber = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?:ns|us|µs|ms|s|m|h|d|kb|mb|gb|KB|MB|GB|KiB|MiB|GiB|%)?)\b`)
	// An identifier: a token of letters, digits and "_-.:/", of 4 or more
	// without its trailing punctuation, that holds a digit and a letter
	// (req_8f2a, chatcmpl-9xYz, gpt-4o, org-AbC123; "s3", "v1" and "ec2"
	// stay: they name a service or a version, not one failure).
	reID = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_.:/-]*`)
	// Runs of white space are one space.
	reSpace = regexp.MustCompile(`\s+`)
)

// Shape is text with what varies between two failures of one family
// stripped (docs/design.md "Reports"), in this order: a URL keeps its
// scheme, host and path words (an IPv4 host is <ip>; a host label or a
// path segment with a digit is <id>, but "v1"; query and fragment go); a quoted value is "<q>" (a JSON key, followed by ':', and a
// URL stay);
// a UUID is <uuid>; a timestamp <time>; an IPv4 address <ip>; a hex run of 8
// or more with a digit, or 0x…, <hex>; a number, with its decimals and unit,
// <n>; a token of 4 or more that holds a digit and a letter <id> (shorter
// ones, "s3", "v1", stay); white space is one space; the result at most
// MaxShape bytes. Redaction markers ("[REDACTED:openai-key]") hold no
// digit and stay.
func Shape(text string) string {
	// A URL, once shaped, is set aside (a private-use mark holding its
	// index) so that the later rules do not read its host and path again.
	var urls []string
	s := reURL.ReplaceAllStringFunc(text, func(u string) string {
		if len(urls) >= maxURLs {
			return "<url>"
		}
		urls = append(urls, shapeURL(u))
		return string(urlMark) + string(rune(urlMark+1+rune(len(urls)-1)))
	})
	s = shapeQuoted(s)
	s = reUUID.ReplaceAllString(s, "<uuid>")
	s = reTime.ReplaceAllString(s, "<time>")
	s = reIP.ReplaceAllString(s, "<ip>")
	s = reHex.ReplaceAllStringFunc(s, func(h string) string {
		if strings.HasPrefix(h, "0x") || len(h) >= 8 && strings.ContainsAny(h, "abcdefABCDEF") {
			return "<hex>"
		}
		return h
	})
	s = reNumber.ReplaceAllStringFunc(s, func(m string) string {
		// The match starts with the character before the number, but at
		// the start of the text.
		if m[0] < '0' || m[0] > '9' {
			return m[:1] + "<n>"
		}
		return "<n>"
	})
	s = reID.ReplaceAllStringFunc(s, func(tok string) string {
		word := strings.TrimRight(tok, ".:/-")
		if len(word) < 4 || !hasDigit(word) || !hasLetter(word) {
			return tok
		}
		return "<id>" + tok[len(word):]
	})
	if len(urls) > 0 {
		var b strings.Builder
		rs := []rune(s)
		for i := 0; i < len(rs); i++ {
			if rs[i] == urlMark && i+1 < len(rs) {
				if k := int(rs[i+1] - urlMark - 1); k >= 0 && k < len(urls) {
					b.WriteString(urls[k])
					i++
					continue
				}
			}
			b.WriteRune(rs[i])
		}
		s = b.String()
	}
	s = strings.TrimSpace(reSpace.ReplaceAllString(s, " "))
	if len(s) > MaxShape {
		n := MaxShape
		for n > 0 && s[n]&0xC0 == 0x80 {
			n--
		}
		s = s[:n]
	}
	return s
}

// shapeURL keeps a URL's scheme, host and path words: an IPv4 host is
// <ip>, a host's label of 4 or more with a digit (a tenant's id, a
// region) <id>, and so is a path segment with a digit (but "v1").
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
	labels := strings.Split(reIP.ReplaceAllString(strings.ToLower(host), "<ip>"), ".")
	for i, l := range labels {
		if hasDigit(l) && len(l) >= 4 && !strings.HasPrefix(l, "<ip>") {
			labels[i] = "<id>"
		}
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(scheme) + "://" + strings.Join(labels, "."))
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
// and quoted URLs (Go's `Post "https://…": …`), shaped already. A
// single quote inside a word (an apostrophe: "can't", "model's") opens
// and closes nothing.
func shapeQuoted(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range reQuoted.FindAllStringIndex(s, -1) {
		q := s[m[0]:m[1]]
		if q[0] == '\'' && (m[0] > 0 && isWord(s[m[0]-1]) || m[1] < len(s) && isWord(s[m[1]])) {
			continue
		}
		b.WriteString(s[last:m[0]])
		last = m[1]
		if strings.HasPrefix(strings.TrimLeft(s[m[1]:], " "), ":") && !hasDigit(q) || strings.HasPrefix(q[1:], string(urlMark)) {
			b.WriteString(q)
			continue
		}
		b.WriteString(q[:1] + "<q>" + q[len(q)-1:])
	}
	b.WriteString(s[last:])
	return b.String()
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
	Stage pipeline.Stage `json:"stage,omitempty"`
	// Status is the HTTP status the text names, or zero.
	Status int `json:"status,omitempty"`
	// Shape is the text's Shape.
	Shape string `json:"shape"`
}

// FingerprintOf is the fingerprint of a failure as the error log recorded
// it (state.LogEntry.Evidence): the provider and the status as the
// classifier reads them in the evidence (failure.FactsOf: the recorded
// fields, else the text), its stage, and its text's Shape.
func FingerprintOf(ev *failure.Evidence) Fingerprint {
	f := failure.FactsOf(ev)
	return Fingerprint{Provider: f.Provider, Stage: ev.Stage, Status: f.Status, Shape: Shape(ev.Text)}
}

// ID is a short stable name of fp: 12 hex digits of a SHA-256 of its
// fields.
func (fp Fingerprint) ID() string {
	h := sha256.Sum256([]byte(string(fp.Provider) + "\x00" + string(fp.Stage) + "\x00" + strconv.Itoa(fp.Status) + "\x00" + fp.Shape))
	return hex.EncodeToString(h[:6])
}
