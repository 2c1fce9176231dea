package failure

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// detail is what a provider's error body says, in the shapes we know:
//
//	OpenAI, Azure   {"error":{"message","type","param","code","innererror":{"code"}}}
//	Anthropic       {"type":"error","error":{"type","message","details":{"error_code"}}}
//	AWS JSON        {"__type":"ns#Code","message"} or header x-amzn-ErrorType
//	Discord         {"message","code":10015,"retry_after":1.5,"global":false}
//	Slack           plain text token: "channel_not_found"
//	generic         {"error":"text"} / {"code":"x","message":"y"}
type detail struct {
	Code      string // provider error code ("insufficient_quota", "ThrottlingException", "channel_not_found")
	Type      string // provider error type ("rate_limit_error", "invalid_request_error")
	InnerCode string // Azure innererror.code ("ResponsibleAIPolicyViolation"), Anthropic details.error_code
	Message   string

	RetryAfter    time.Duration // body retry_after, seconds in the body
	HasRetryAfter bool
}

// codes returns the codes from most to least specific.
func (d detail) codes() [3]string { return [3]string{d.InnerCode, d.Code, d.Type} }

// bestCode is the most specific non-empty code, for messages.
func (d detail) bestCode() string {
	for _, c := range d.codes() {
		if c != "" {
			return truncate(c, maxCodeLen)
		}
	}
	return ""
}

// maxCodeLen bounds an error code taken from a body. Providers' codes are
// short identifiers; a body that puts kilobytes in one must not carry them
// into error messages, last_error or dead letters.
const maxCodeLen = 100

// maxScanDepth bounds nesting so a hostile body cannot exhaust the stack.
const maxScanDepth = 64

// parseBody extracts a detail from an error body. ok is false when the body
// says nothing we recognise.
func parseBody(p Provider, body []byte) (detail, bool) {
	b := bytes.TrimSpace(body)
	if len(b) > MaxBodyBytes {
		b = b[:MaxBodyBytes]
	}
	var d detail
	if len(b) > 0 && b[0] == '{' {
		// The scanner holds the detail by value: a pointer to a local would
		// move it to the heap on every classification.
		s := scanner{buf: b}
		if s.object(ctxRoot, 0) {
			return s.d, s.d != (detail{})
		}
		// A half-parsed body is not evidence: d stays empty.
	}
	// Plain text. Slack's incoming webhooks answer errors with a bare token
	// such as "invalid_token" or "channel_is_archived".
	text := string(b)
	if isToken(text) {
		d.Code = text
		return d, true
	}
	if p != AWS && len(text) > 0 && text[0] != '<' { // skip HTML error pages
		d.Message = text
		return d, true
	}
	return d, false
}

// headerCode reads the AWS error code from response headers, as
// x-amzn-ErrorType "ThrottlingException:http://internal.amazon.com/..." or
// the query protocol's x-amzn-query-error "AWS.SimpleQueueService.X;Sender".
func headerCode(h http.Header) string {
	if v := header(h, "X-Amzn-Errortype"); v != "" {
		if i := strings.IndexAny(v, ":"); i >= 0 {
			v = v[:i]
		}
		return v
	}
	if v := header(h, "X-Amzn-Query-Error"); v != "" {
		if i := strings.IndexByte(v, ';'); i >= 0 {
			v = v[:i]
		}
		return v
	}
	return ""
}

// isToken reports whether s looks like a Slack-style error code: 3..64 bytes
// of lowercase letters, digits and underscores with at least one underscore or
// letter run, and no spaces.
func isToken(s string) bool {
	if len(s) < 3 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || c >= '0' && c <= '9' && i > 0) {
			return false
		}
	}
	return true
}

// Object contexts the scanner records fields in.
const (
	ctxRoot  = iota // the top-level object
	ctxError        // the object under "error"
	ctxInner        // the object under "error.innererror" or "error.details"
	ctxOther        // anything else: scanned, not recorded
)

// scanner is a minimal JSON reader that records the handful of fields
// classification needs and validates the rest without building values. It is
// several times faster than decoding into a map, which matters because every
// failure is classified on the record's hot path.
type scanner struct {
	buf []byte
	pos int
	d   detail
	// lenient reads a body printed inside error text: Python literals
	// (single-quoted strings, None, True, False) as well as JSON, and it
	// keeps the root's "name" (the JavaScript SDKs' error name) in name.
	lenient bool
	name    string
}

func (s *scanner) ws() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.pos >= len(s.buf) {
		return 0
	}
	return s.buf[s.pos]
}

// object scans {...} at s.pos, recording fields according to ctx.
func (s *scanner) object(ctx, depth int) bool {
	if depth > maxScanDepth || s.peek() != '{' {
		return false
	}
	s.pos++
	if s.peek() == '}' {
		s.pos++
		return true
	}
	for {
		if c := s.peek(); c != '"' && !(s.lenient && c == '\'') {
			return false
		}
		key, ok := s.str()
		if !ok || s.peek() != ':' {
			return false
		}
		s.pos++
		if !s.field(ctx, key, depth) {
			return false
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// field scans the value of key in an object of context ctx.
func (s *scanner) field(ctx int, key []byte, depth int) bool {
	c := s.peek()
	if c == '{' {
		child := ctxOther
		switch {
		case ctx == ctxRoot && (string(key) == "error" || string(key) == "Error"):
			child = ctxError
		case ctx == ctxError && (string(key) == "innererror" || string(key) == "details"):
			child = ctxInner
		}
		return s.object(child, depth+1)
	}
	if c == '[' {
		return s.array(depth + 1)
	}
	start := s.pos
	var raw []byte
	var isStr bool
	if c == '"' || s.lenient && c == '\'' {
		v, ok := s.str()
		if !ok {
			return false
		}
		raw, isStr = v, true
	} else if !s.literal() {
		return false
	} else {
		raw = s.buf[start:s.pos]
	}
	if ctx == ctxOther {
		return true
	}
	s.record(ctx, key, raw, isStr, s.buf[start:s.pos])
	return true
}

// record stores a scalar field. quoted is the value as it appeared, for
// unescaping strings that contain escapes.
func (s *scanner) record(ctx int, key, raw []byte, isStr bool, quoted []byte) {
	text := func() string {
		if isStr && bytes.IndexByte(raw, '\\') >= 0 && quoted[0] == '"' {
			var out string
			if json.Unmarshal(quoted, &out) == nil {
				return out
			}
		}
		if !isStr && (string(raw) == "null" || string(raw) == "None") {
			return ""
		}
		return string(raw)
	}
	d := &s.d
	switch ctx {
	case ctxInner:
		// Anthropic's details.error_code tells a monthly spend cap apart
		// from a rate limit that shares its type, rate_limit_error.
		if string(key) == "code" || string(key) == "error_code" {
			if v := text(); v != "" {
				d.InnerCode = v
			}
		}
	case ctxError:
		switch string(key) {
		case "code", "Code":
			d.Code = text()
		case "type", "Type":
			d.Type = text()
		case "message", "Message":
			d.Message = text()
		}
	case ctxRoot:
		switch string(key) {
		case "__type": // AWS JSON protocol: "com.amazonaws.dynamodb.v20120810#ThrottlingException"
			v := text()
			if i := strings.LastIndexByte(v, '#'); i >= 0 {
				v = v[i+1:]
			}
			if d.Code == "" {
				d.Code = v
			}
		case "code", "Code":
			if d.Code == "" {
				d.Code = text()
			}
		case "name":
			if s.lenient && isStr {
				s.name = truncate(text(), maxCodeLen)
			}
		case "type":
			if v := text(); v != "error" && d.Type == "" { // Anthropic's envelope says "type":"error"
				d.Type = v
			}
		case "message", "Message":
			if d.Message == "" {
				d.Message = text()
			}
		case "error":
			if isStr && d.Message == "" { // {"error":"text"}
				if v := text(); isToken(v) {
					d.Code = v
				} else {
					d.Message = v
				}
			}
		case "retry_after":
			if secs, err := strconv.ParseFloat(text(), 64); err == nil {
				if dur, ok := secondsToDuration(secs); ok {
					d.RetryAfter, d.HasRetryAfter = dur, true
				}
			}
		}
	}
}

func (s *scanner) array(depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	s.pos++ // '['
	if s.peek() == ']' {
		s.pos++
		return true
	}
	for {
		switch s.peek() {
		case '{':
			if !s.object(ctxOther, depth+1) {
				return false
			}
		case '[':
			if !s.array(depth + 1) {
				return false
			}
		case '"', '\'':
			if c := s.peek(); c == '\'' && !s.lenient {
				return false
			}
			if _, ok := s.str(); !ok {
				return false
			}
		default:
			if !s.literal() {
				return false
			}
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// str scans a JSON string at s.pos (or, lenient, a single-quoted Python
// one) and returns its raw contents (escapes intact, quotes stripped).
func (s *scanner) str() ([]byte, bool) {
	quote := s.buf[s.pos]
	s.pos++ // opening quote
	start := s.pos
	for s.pos < len(s.buf) {
		switch c := s.buf[s.pos]; {
		case c == quote:
			v := s.buf[start:s.pos]
			s.pos++
			return v, true
		case c == '\\':
			s.pos += 2
		case c < 0x20:
			return nil, false
		default:
			s.pos++
		}
	}
	return nil, false
}

// literal scans a number, true, false or null.
func (s *scanner) literal() bool {
	start := s.pos
	for s.pos < len(s.buf) {
		c := s.buf[s.pos]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E' {
			s.pos++
			continue
		}
		break
	}
	if s.lenient {
		for s.pos < len(s.buf) && (s.buf[s.pos] >= 'A' && s.buf[s.pos] <= 'Z' || s.buf[s.pos] >= 'a' && s.buf[s.pos] <= 'z') {
			s.pos++
		}
		switch string(s.buf[start:s.pos]) {
		case "None", "True", "False":
			return true
		}
	}
	switch lit := string(s.buf[start:s.pos]); lit {
	case "":
		return false
	case "true", "false", "null":
		return true
	default:
		_, err := strconv.ParseFloat(lit, 64)
		return err == nil
	}
}
