package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream"
	"github.com/triagehq/triage/internal/work"
)

// defaultMaxBytes is the default fetcher.MaxBytes: 200 KiB keeps the stored
// document well inside DynamoDB's 400 KB item limit, next to the item's
// failure history and enrichment.
const defaultMaxBytes = 200 << 10

// defaultUserAgent is the default fetcher.UserAgent.
const defaultUserAgent = "triage/1.0 (+https://github.com/triagehq/triage)"

// Timeouts of the client newFetcher builds, besides upstream.NewClient's. The
// Lambda's own deadline still applies through the request's context.
const (
	// responseHeaderTimeout bounds the wait for the response headers once
	// the request is written.
	responseHeaderTimeout = 10 * time.Second
	// fetchTimeout bounds the whole request, redirects and body included.
	fetchTimeout = 20 * time.Second
)

// opGet is the Op of the fetch stage's HTTPErrors.
const opGet = "GET article"

// fetcherConfig configures newFetcher. Zero fields take the defaults
// documented on fetcher.
type fetcherConfig struct {
	// Client, when set, replaces the client newFetcher builds; BlockPrivate
	// is then the caller's business.
	Client *http.Client
	// MaxBytes is fetcher.MaxBytes.
	MaxBytes int64
	// UserAgent is fetcher.UserAgent.
	UserAgent string
	// BlockPrivate is fetcher.BlockPrivate, enforced by the built client.
	BlockPrivate bool
	// Clock is fetcher.Clock.
	Clock clock.Clock
}

// fetcher is the fetch stage's Work: it downloads the item's SourceURL and
// stores its readable text. It never retries; the queue does.
type fetcher struct {
	// Client makes the request. newFetcher builds one with a 5s dial
	// timeout, 5s TLS handshake timeout, 10s response header timeout and a
	// 20s overall timeout, whose dialer enforces BlockPrivate. Nil uses a
	// shared client built the same way for the fetcher's BlockPrivate.
	Client *http.Client
	// MaxBytes bounds the body kept, after decompression; zero or less means
	// defaultMaxBytes. At most MaxBytes+1 bytes are read from the wire; a
	// longer body is cut at MaxBytes and stored with Truncated set.
	MaxBytes int64
	// UserAgent is sent with the request; empty means defaultUserAgent.
	UserAgent string
	// BlockPrivate refuses connections to loopback, private, link-local,
	// unspecified, multicast and other special-purpose addresses (see
	// upstream.BlockedAddr). Item producers choose the URL, so production turns this
	// on (server-side request forgery protection); the local stack turns it
	// off to reach fakes on 127.0.0.1. It is checked in the dialer's Control
	// hook — after DNS resolution, on every connection, redirects included —
	// so DNS rebinding cannot get around it. A refused address is
	// SCHEMA_INVALID. With BlockPrivate on, proxies from the environment are
	// not used: the dialer could not see the real destination.
	BlockPrivate bool
	// Clock stamps FetchedAt; nil means the wall clock.
	Clock clock.Clock
}

// newFetcher returns a fetcher with cfg's defaults applied and, unless
// cfg.Client is set, its own HTTP client.
func newFetcher(cfg fetcherConfig) *fetcher {
	f := &fetcher{
		Client:       cfg.Client,
		MaxBytes:     cfg.MaxBytes,
		UserAgent:    cfg.UserAgent,
		BlockPrivate: cfg.BlockPrivate,
		Clock:        cfg.Clock,
	}
	if f.Client == nil {
		f.Client = newHTTPClient(cfg.BlockPrivate)
	}
	if f.MaxBytes <= 0 {
		f.MaxBytes = defaultMaxBytes
	}
	if f.UserAgent == "" {
		f.UserAgent = defaultUserAgent
	}
	f.Clock = clock.Or(f.Clock)
	return f
}

// newHTTPClient returns the fetch stage's HTTP client: the timeouts above,
// up to 10 redirects, and with blockPrivate the upstream.BlockedAddr check on
// every connection.
func newHTTPClient(blockPrivate bool) *http.Client {
	return upstream.NewClient(upstream.ClientOptions{Timeout: fetchTimeout, ResponseHeaderTimeout: responseHeaderTimeout, BlockPrivate: blockPrivate})
}

// Default clients for a fetcher whose Client is nil, built once.
var (
	openClient    = sync.OnceValue(func() *http.Client { return newHTTPClient(false) })
	guardedClient = sync.OnceValue(func() *http.Client { return newHTTPClient(true) })
)

func (f *fetcher) client() *http.Client {
	switch {
	case f.Client != nil:
		return f.Client
	case f.BlockPrivate:
		return guardedClient()
	default:
		return openClient()
	}
}

// Run downloads item.SourceURL and returns its text as the item's Document.
//
//   - SourceURL must be an absolute http or https URL, else SCHEMA_INVALID.
//   - A non-2xx answer is a *failure.HTTPError{Provider: failure.HTTP,
//     Op: "GET article"} with at most failure.MaxBodyBytes of body (404/410
//     classify as NOT_FOUND, 429 RATE_LIMITED, 5xx UPSTREAM_UNAVAILABLE).
//   - Transport failures, including a body cut short by a reset
//     (io.ErrUnexpectedEOF), are returned wrapped, so they classify as
//     NETWORK_TIMEOUT; a refused private address is SCHEMA_INVALID.
//   - text/*, application/json and application/xhtml+xml are accepted
//     (without a Content-Type header the body is sniffed); anything else is
//     SCHEMA_INVALID "unsupported content type".
//   - HTML is reduced to readable text; a body in a charset the WHATWG
//     Encoding Standard names (ISO-8859-1, windows-1252, Shift_JIS, GBK,
//     …), declared by the Content-Type or, for HTML without one, by a meta
//     element, is decoded; invalid UTF-8 is repaired. Empty text is SCHEMA_INVALID
//     "empty document".
//   - The Document's Bytes is the size of the body kept (at most MaxBytes,
//     after transfer decompression), SHA256 the hex digest of Text,
//     ContentType the media type without parameters.
//
// Errors carry the "host" detail and, after a response, "upstream_status"
// and "request_id". Neither the URL's path nor its query ever appears in an
// error: they may hold access tokens.
func (f *fetcher) Run(ctx context.Context, item store.Item, _ gates.Delivery) (work.Output, error) {
	u, err := upstream.ParseURL(item.SourceURL)
	if err != nil {
		return work.Output{}, failure.New(work.SchemaInvalid, "source URL: %s", err)
	}
	doc, err := f.fetch(ctx, u)
	if err != nil {
		return work.Output{}, failure.WithDetail(err, "host", u.Host)
	}
	return work.Output{Document: doc}, nil
}

func (f *fetcher) fetch(ctx context.Context, u *url.URL) (*work.Document, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, failure.New(work.SchemaInvalid, "source URL cannot be requested")
	}
	// Every type acceptedType stores: a server that negotiates strictly
	// answers 406 to a type left out.
	req.Header.Set("Accept", "text/plain, text/html;q=0.9, application/xhtml+xml;q=0.9, application/json;q=0.8, text/*;q=0.7")
	req.Header.Set("User-Agent", cmp.Or(f.UserAgent, defaultUserAgent))

	resp, err := f.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET article: %w", upstream.RedactURL(err, u))
	}
	defer resp.Body.Close()

	detail := func(err error) error {
		err = failure.WithDetail(err, "upstream_status", strconv.Itoa(resp.StatusCode))
		if id := resp.Header.Get("X-Request-Id"); id != "" {
			err = failure.WithDetail(err, "request_id", id)
		}
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, failure.MaxBodyBytes))
		return nil, detail(&failure.HTTPError{
			Provider: failure.HTTP, Stage: work.Fetch, Op: opGet, Status: resp.StatusCode,
			Header: resp.Header.Clone(), Body: body,
		})
	}

	var (
		mediaType string
		params    map[string]string
		declared  = resp.Header.Get("Content-Type") != ""
	)
	if declared {
		mediaType, params, err = mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if errors.Is(err, mime.ErrInvalidMediaParameter) {
			err = nil // the type itself is fine; ignore the broken parameters
		}
		if err != nil {
			return nil, detail(failure.New(work.SchemaInvalid, "unsupported content type: malformed Content-Type header"))
		}
		if !acceptedType(mediaType) {
			return nil, detail(failure.New(work.SchemaInvalid, "unsupported content type %q", mediaType))
		}
	}

	maxBytes := f.MaxBytes
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, detail(fmt.Errorf("read article body: %w", upstream.RedactURL(err, u)))
	}
	truncated := int64(len(raw)) > maxBytes
	if truncated {
		raw = raw[:maxBytes]
	}

	if !declared {
		mediaType, params, _ = mime.ParseMediaType(http.DetectContentType(raw))
		if !acceptedType(mediaType) {
			return nil, detail(failure.New(work.SchemaInvalid, "unsupported content type %q (sniffed)", mediaType))
		}
	}

	charset, isHTML := params["charset"], mediaType == "text/html" || mediaType == "application/xhtml+xml"
	if charset == "" && isHTML {
		charset = metaCharset(raw)
	}
	text := decode(raw, charset, truncated)
	if isHTML {
		text = htmlText(text)
	} else {
		text = tidyText(text)
	}
	if int64(len(text)) > maxBytes { // repairing invalid bytes can grow the text
		text, truncated = work.Prefix(text, int(maxBytes)), true
	}
	if text == "" {
		return nil, detail(failure.New(work.SchemaInvalid, "empty document"))
	}
	sum := sha256.Sum256([]byte(text))
	now := clock.Or(f.Clock).Now
	return &work.Document{
		Text:        text,
		Bytes:       len(raw),
		SHA256:      hex.EncodeToString(sum[:]),
		ContentType: mediaType,
		Truncated:   truncated,
		FetchedAt:   now().UTC(),
	}, nil
}

// acceptedType reports whether the fetch stage stores a body of mediaType.
func acceptedType(mediaType string) bool {
	switch mediaType {
	case "application/json", "application/xhtml+xml":
		return true
	}
	return strings.HasPrefix(mediaType, "text/")
}

// decode turns raw into valid UTF-8: ISO-8859-1 and windows-1252 are
// decoded, and so is every other charset the WHATWG Encoding Standard names
// (Shift_JIS, GBK, EUC-KR, windows-1251, …); anything else is taken as
// UTF-8 with invalid bytes replaced. A body cut at MaxBytes loses a trailing
// partial character rather than ending in U+FFFD.
func decode(raw []byte, charset string, truncated bool) string {
	charset = strings.ToLower(strings.TrimSpace(charset))
	switch charset {
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "l1", "windows-1252", "cp1252", "us-ascii", "ascii":
		var b strings.Builder
		b.Grow(len(raw) + len(raw)/8)
		for _, c := range raw {
			if c >= 0x80 && c < 0xA0 {
				b.WriteRune(cp1252[c-0x80])
				continue
			}
			b.WriteRune(rune(c))
		}
		return b.String()
	}
	if e, err := htmlindex.Get(charset); err == nil && charset != "" {
		// The replacement encoding (ISO-2022-KR, HZ-GB-2312) decodes to a
		// lone U+FFFD: such a body stays with the UTF-8 repair.
		if name, _ := htmlindex.Name(e); name != "utf-8" && name != "replacement" {
			if out, err := e.NewDecoder().Bytes(raw); err == nil {
				text := string(out)
				if truncated {
					text = strings.TrimSuffix(text, "\uFFFD")
				}
				return strings.ToValidUTF8(text, "\uFFFD")
			}
		}
	}
	if truncated {
		// Drop an incomplete final rune (its start is at most 3 bytes back).
		for i := 1; i <= utf8.UTFMax-1 && i <= len(raw); i++ {
			if utf8.RuneStart(raw[len(raw)-i]) {
				if !utf8.FullRune(raw[len(raw)-i:]) {
					raw = raw[:len(raw)-i]
				}
				break
			}
		}
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}

// metaCharset returns the charset an HTML document declares in a meta
// element of its first 1024 bytes — <meta charset="…"> or <meta
// http-equiv="Content-Type" content="text/html; charset=…"> — as a browser
// reads it when the Content-Type names none; empty when there is none. A
// declared UTF-16 is UTF-8: bytes that could be read so far are not UTF-16.
func metaCharset(raw []byte) string {
	head := asciiLower(string(raw[:min(len(raw), 1024)]))
	for i := 0; ; {
		k := strings.Index(head[i:], "<meta")
		if k < 0 {
			return ""
		}
		i += k + len("<meta")
		end := strings.IndexByte(head[i:], '>')
		if end < 0 {
			end = len(head) - i
		}
		tag := head[i : i+end]
		c := strings.Index(tag, "charset")
		if c < 0 {
			continue
		}
		v := strings.TrimLeft(tag[c+len("charset"):], " \t\r\n\f")
		if !strings.HasPrefix(v, "=") {
			continue
		}
		v = strings.TrimLeft(v[1:], " \t\r\n\f\"'")
		if n := strings.IndexAny(v, "\"'; \t\r\n\f/>"); n >= 0 {
			v = v[:n]
		}
		if strings.HasPrefix(v, "utf-16") {
			return "utf-8"
		}
		if v != "" {
			return v
		}
	}
}

// cp1252 maps windows-1252's 0x80..0x9F; the unassigned five map to U+FFFD.
var cp1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}

// skipElements are elements whose content is not readable text.
var skipElements = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "math": true, "iframe": true, "object": true, "canvas": true,
}

// breakElements end a run of text: paragraph-level elements with a blank
// line (breakParagraph), the others with a line break (breakLine).
var breakElements = map[string]rune{
	"address": breakParagraph, "article": breakParagraph, "aside": breakParagraph,
	"blockquote": breakParagraph, "body": breakParagraph, "details": breakParagraph,
	"dl": breakParagraph, "figure": breakParagraph, "footer": breakParagraph,
	"form": breakParagraph, "h1": breakParagraph, "h2": breakParagraph, "h3": breakParagraph,
	"h4": breakParagraph, "h5": breakParagraph, "h6": breakParagraph, "header": breakParagraph,
	"hr": breakParagraph, "html": breakParagraph, "main": breakParagraph, "nav": breakParagraph,
	"ol": breakParagraph, "p": breakParagraph, "pre": breakParagraph, "section": breakParagraph,
	"table": breakParagraph, "title": breakParagraph, "ul": breakParagraph,

	"br": breakLine, "caption": breakLine, "dd": breakLine, "div": breakLine, "dt": breakLine,
	"figcaption": breakLine, "li": breakLine, "option": breakLine, "summary": breakLine, "tr": breakLine,
}

// Break markers htmlText writes between runs of text. They are control
// characters, which never survive from the document itself (writeHTMLText
// drops them), and tidy turns them into newlines; adjacent markers merge
// into the strongest rather than adding up.
const (
	breakLine      = '\x01'
	breakParagraph = '\x02'
)

// htmlText reduces an HTML document to readable text without a parser:
// comments, declarations and the content of script, style and similar
// elements are dropped; block elements become line breaks, table cells
// spaces; other tags vanish; entities are decoded; whitespace is collapsed.
// It is a pass over the bytes, good enough for summarisation, not a browser.
func htmlText(s string) string {
	var b strings.Builder
	b.Grow(len(s) / 2)
	lower := asciiLower(s)
	i := 0
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			writeHTMLText(&b, s[i:])
			break
		}
		writeHTMLText(&b, s[i:i+lt])
		i += lt
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				i = len(s)
			} else {
				i += 4 + end + 3
			}
			continue
		case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "<?"):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				i = len(s)
			} else {
				i += end + 1
			}
			continue
		}
		closing := strings.HasPrefix(rest, "</")
		nameStart := 1
		if closing {
			nameStart = 2
		}
		if nameStart >= len(rest) || !isASCIILetter(rest[nameStart]) {
			b.WriteByte('<') // a literal '<', as in "a < b"
			i++
			continue
		}
		nameEnd := nameStart
		for nameEnd < len(rest) && (isASCIILetter(rest[nameEnd]) || rest[nameEnd] >= '0' && rest[nameEnd] <= '9' || rest[nameEnd] == '-') {
			nameEnd++
		}
		name := lower[i+nameStart : i+nameEnd]
		end := tagEnd(rest, nameEnd)
		if end < 0 {
			break // an unterminated tag runs to the end of the document
		}
		selfClosing := rest[end-1] == '/'
		i += end + 1
		switch {
		case !closing && !selfClosing && skipElements[name]:
			closeAt := strings.Index(lower[i:], "</"+name)
			if closeAt < 0 {
				i = len(s)
				continue
			}
			i += closeAt
			if e := strings.IndexByte(s[i:], '>'); e >= 0 {
				i += e + 1
			} else {
				i = len(s)
			}
			b.WriteByte(' ')
		case breakElements[name] != 0:
			b.WriteRune(breakElements[name])
		case name == "td" || name == "th":
			b.WriteByte(' ')
		}
	}
	return tidy(b.String(), true)
}

// writeHTMLText writes a run of HTML text with its entities decoded. Line
// breaks in the source are only whitespace in HTML, so they become spaces
// (the tags make the lines); other control characters are dropped.
func writeHTMLText(b *strings.Builder, s string) {
	if s == "" {
		return
	}
	for _, r := range html.UnescapeString(s) {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
}

// tagEnd returns the index of the '>' closing the tag in s whose name ends
// at from, skipping quoted attribute values; -1 when there is none.
func tagEnd(s string, from int) int {
	var quote byte
	for j := from; j < len(s); j++ {
		c := s[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return j
		}
	}
	return -1
}

// tidyText tidies plain text: see tidy.
func tidyText(s string) string { return tidy(s, false) }

// tidy collapses runs of horizontal whitespace into one space, trims every
// line, keeps at most one blank line between paragraphs and drops control
// characters. In plain text one newline is a line break and two or more a
// paragraph break; in htmlText's output (markers) breakLine and
// breakParagraph say so.
func tidy(s string, markers bool) string {
	var b strings.Builder
	b.Grow(len(s))
	level, space := 0, false
	for _, r := range s {
		switch {
		case r == '\n' && !markers:
			level++
		case markers && r == breakLine:
			level = max(level, 1)
		case markers && r == breakParagraph:
			level = max(level, 2)
		case unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff':
			space = true
		case unicode.IsControl(r):
			// dropped
		default:
			if b.Len() > 0 {
				switch {
				case level >= 2:
					b.WriteString("\n\n")
				case level == 1:
					b.WriteByte('\n')
				case space:
					b.WriteByte(' ')
				}
			}
			level, space = 0, false
			b.WriteRune(r)
		}
	}
	return b.String()
}

// asciiLower lowercases ASCII letters only, so indexes into the result are
// indexes into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
