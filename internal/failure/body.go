package failure

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// detail is what a provider's error body says, read by its shape whatever
// the provider (docs/design.md "Dialects"):
//
//	OpenAI, Azure,  {"error":{"message","type","param","code","status","innererror":{"code"}}}
//	Google          {"error":{"code":429,"message","status":"RESOURCE_EXHAUSTED","details":[{"@type","reason","retryDelay","violations":[{"quotaId"}]}]}}
//	                [{"error":{…}}] (a stream's error), a message that is itself a JSON body
//	Anthropic       {"type":"error","error":{"type","message","details":{"error_code"}}}
//	AWS JSON        {"__type":"ns#Code","message"} or header x-amzn-ErrorType
//	vLLM, others    {"object":"error","message","type","code":400}
//	FastAPI         {"detail":"text"} / {"detail":[{"loc","msg","type"}]}
//	lists           {"errors":[{"code","message"}]}
//	Discord         {"message","code":10015,"retry_after":1.5,"global":false}
//	Telegram, OAuth {"ok":false,"error_code":400,"description"} / {"error","error_description"}
//	Slack           plain text token: "channel_not_found"
//	generic         {"error":"text"} / {"code":"x","message":"y"}
type detail struct {
	Code      string // provider error code ("insufficient_quota", "ThrottlingException", "channel_not_found")
	Type      string // provider error type ("rate_limit_error", "invalid_request_error")
	InnerCode string // Azure innererror.code ("ResponsibleAIPolicyViolation"), Anthropic details.error_code, Google ErrorInfo.reason
	Status    string // Google error.status ("RESOURCE_EXHAUSTED")
	Message   string
	// Quota holds the quota ids a Google QuotaFailure names
	// ("GenerateRequestsPerMinutePerProjectPerModel-FreeTier"), bounded:
	// their period says whether a wait lifts the quota.
	Quota string

	RetryAfter    time.Duration // body retry_after (seconds), retry_after_ms, Google RetryInfo.retryDelay
	HasRetryAfter bool
	// Model is true when the body has a shape only a model API writes: a
	// completion (choices, candidates, promptFeedback, stop_reason,
	// stopReason) or Anthropic's error envelope.
	Model bool
	// JSON is true when the body was a JSON document: its words are its
	// message's.
	JSON bool
	// Raw is a gateway's copy of the upstream's own error (OpenRouter's
	// error.metadata.raw), read as a body inside the body.
	Raw string
}

// codes returns the codes from most to least specific.
func (d detail) codes() [4]string { return [4]string{d.InnerCode, d.Code, d.Status, d.Type} }

// bestCode is the most specific non-empty code, for messages.
func (d detail) bestCode() string {
	for _, c := range d.codes() {
		if c != "" && !numericCode(c) {
			return truncate(c, maxCodeLen)
		}
	}
	for _, c := range d.codes() {
		if c != "" {
			return truncate(c, maxCodeLen)
		}
	}
	return ""
}

// numericCode reports whether c is a number (an HTTP status written as a
// code, Discord's 10015): a word code says more.
func numericCode(c string) bool {
	for i := 0; i < len(c); i++ {
		if !isDigitByte(c[i]) {
			return false
		}
	}
	return c != ""
}

// maxCodeLen bounds an error code taken from a body. Providers' codes are
// short identifiers; a body that puts kilobytes in one must not carry them
// into error messages, last_error or dead letters.
const maxCodeLen = 100

// maxScanDepth bounds nesting so a hostile body cannot exhaust the stack.
const maxScanDepth = 64

// maxNestedBodies bounds how deep a message holding a JSON body is read
// (a proxy's error whose message is the upstream's error body).
const maxNestedBodies = 2

// parseBody extracts a detail from an error body. ok is false when the body
// says nothing we recognise.
// utf8BOM is the UTF-8 encoding of U+FEFF.
var utf8BOM = []byte("\xef\xbb\xbf")

func parseBody(p Provider, body []byte) (detail, bool) {
	return parseBodyDepth(p, body, 0)
}

func parseBodyDepth(p Provider, body []byte, depth int) (detail, bool) {
	// A UTF-8 byte-order mark (some stacks start every body with one) is
	// not the body's first character.
	b := bytes.TrimSpace(bytes.TrimPrefix(body, utf8BOM))
	if len(b) > MaxBodyBytes {
		b = b[:MaxBodyBytes]
	}
	var d detail
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		// The scanner holds the detail by value: a pointer to a local would
		// move it to the heap on every classification.
		s := scanner{buf: b}
		if s.root() {
			d = s.d
			d.JSON = d != (detail{})
			if depth < maxNestedBodies {
				if m := strings.TrimSpace(d.Message); len(m) > 1 && (m[0] == '{' || m[0] == '[') {
					if inner, ok := parseBodyDepth(p, []byte(m), depth+1); ok {
						d = inner.under(d)
					}
				}
				// A gateway's generic message ("Provider returned error")
				// over the upstream's own answer: the upstream's says more.
				if raw := strings.TrimSpace(d.Raw); raw != "" {
					d.Raw = ""
					if inner, ok := parseBodyDepth(p, []byte(raw), depth+1); ok && inner.Message != "" {
						d = inner.under(d)
					}
				}
			}
			return d, d != (detail{})
		}
		// A half-parsed body is not evidence: d stays empty.
		if b[0] == '[' {
			return detail{}, false
		}
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

// under returns d (a body found inside outer's message) with the slots it
// leaves empty filled from outer.
func (d detail) under(outer detail) detail {
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&d.Code, outer.Code)
	fill(&d.Type, outer.Type)
	fill(&d.InnerCode, outer.InnerCode)
	fill(&d.Status, outer.Status)
	fill(&d.Quota, outer.Quota)
	if !d.HasRetryAfter {
		d.RetryAfter, d.HasRetryAfter = outer.RetryAfter, outer.HasRetryAfter
	}
	d.Model = d.Model || outer.Model
	d.JSON = d.JSON || outer.JSON
	return d
}

// headerCode reads the AWS error code from response headers, as
// x-amzn-ErrorType "ThrottlingException:http://internal.amazon.com/..." or
// the query protocol's x-amzn-query-error "AWS.SimpleQueueService.X;Sender",
// or an event stream's exception frame, whose ":exception-type" header
// names the exception ("serviceUnavailableException", "throttlingException")
// whatever status the stream began with.
func headerCode(h http.Header) string {
	if v := header(h, ":exception-type"); v != "" {
		return v
	}
	if v := header(h, "X-Amzn-Errortype"); v != "" {
		return awsErrorType(v)
	}
	if v := header(h, "X-Amzn-Query-Error"); v != "" {
		if i := strings.IndexByte(v, ';'); i >= 0 {
			v = v[:i]
		}
		return v
	}
	return ""
}

// awsErrorType is the bare name of an AWS error type as the x-amzn-ErrorType
// header or a body's "__type" writes it, with its namespace before a '#' and
// its documentation URL after a ':' ("com.amazon.coral.service#ThrottlingException:http://internal.amazon.com/…"):
// what comes before the first ':', after its last '#'.
func awsErrorType(v string) string {
	if i := strings.IndexByte(v, ':'); i >= 0 {
		v = v[:i]
	}
	if i := strings.LastIndexByte(v, '#'); i >= 0 {
		v = v[i+1:]
	}
	return v
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
	ctxRoot      = iota // the top-level object
	ctxError            // the object under "error"
	ctxInner            // the object under "error.innererror" or "error.details"
	ctxDetail           // an element of Google's "error.details" or "error.errors"
	ctxViolation        // an element of a QuotaFailure's "violations"
	ctxFirst            // the first element of "errors" or "detail": fills what is empty
	ctxChoice           // the first element of an answer's "choices"
	ctxMeta             // the object under "error.metadata" (OpenRouter)
	ctxInfoMeta         // a Google ErrorInfo's "metadata": its quota's id and limit
	ctxResponse         // a Responses API object under "response" (a stream's "response.failed" event): its "error" is the error
	ctxOther            // anything else: scanned, not recorded
)

// maxQuota bounds detail.Quota.
const maxQuota = 240

// addQuota adds what names a quota (its id, its limit) to d.Quota, within
// maxQuota.
func (d *detail) addQuota(v string) {
	if v == "" || len(d.Quota)+len(v) >= maxQuota {
		return
	}
	if d.Quota != "" {
		d.Quota += " "
	}
	d.Quota += v
}

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

// root scans a body: an object, or an array whose first element is one
// (Google's streaming endpoints answer an error as [{"error":{…}}]).
func (s *scanner) root() bool {
	if s.peek() != '[' {
		return s.object(ctxRoot, 0)
	}
	s.pos++
	return s.object(ctxRoot, 1)
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
		case ctx == ctxRoot && string(key) == "response":
			child = ctxResponse
		case ctx == ctxResponse && string(key) == "error":
			child = ctxError
		case ctx == ctxError && (string(key) == "innererror" || string(key) == "details"):
			child = ctxInner
		case ctx == ctxError && string(key) == "metadata":
			child = ctxMeta
		case ctx == ctxDetail && string(key) == "metadata":
			child = ctxInfoMeta
		case ctx == ctxRoot && string(key) == "detail":
			child = ctxFirst
		case ctx == ctxRoot && (string(key) == "promptFeedback" || string(key) == "usageMetadata"):
			s.d.Model = true
		}
		return s.object(child, depth+1)
	}
	if c == '[' {
		elem := ctxOther
		switch {
		case ctx == ctxError && (string(key) == "details" || string(key) == "errors"):
			elem = ctxDetail
		case ctx == ctxDetail && string(key) == "violations":
			elem = ctxViolation
		case ctx == ctxRoot && (string(key) == "errors" || string(key) == "detail"):
			elem = ctxFirst
		case ctx == ctxRoot && string(key) == "choices":
			s.d.Model = true
			elem = ctxChoice
		case ctx == ctxRoot && string(key) == "candidates":
			s.d.Model = true
		}
		return s.array(elem, depth+1)
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
	if ctx == ctxOther || ctx == ctxResponse {
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
	switch string(key) {
	case "retry_after", "retryAfter", "retry_after_seconds", "retryAfterSeconds": // retryAfterSeconds: signal-cli
		if ctx != ctxViolation {
			if secs, err := strconv.ParseFloat(strings.TrimSuffix(text(), "s"), 64); err == nil {
				if dur, ok := secondsToDuration(secs); ok && !d.HasRetryAfter {
					d.RetryAfter, d.HasRetryAfter = dur, true
				}
			}
		}
		return
	case "retry_after_ms", "retryAfterMs":
		if ms, err := strconv.ParseFloat(text(), 64); err == nil {
			if dur, ok := secondsToDuration(ms / 1000); ok && !d.HasRetryAfter {
				d.RetryAfter, d.HasRetryAfter = dur, true
			}
		}
		return
	case "retryDelay": // google.rpc.RetryInfo
		if dur, ok := googleDuration(text()); ok && !d.HasRetryAfter {
			d.RetryAfter, d.HasRetryAfter = dur, true
		}
		return
	}
	switch ctx {
	case ctxInner:
		// Anthropic's details.error_code tells a monthly spend cap apart
		// from a rate limit that shares its type, rate_limit_error.
		if string(key) == "code" || string(key) == "error_code" {
			if v := text(); v != "" {
				d.InnerCode = v
			}
		}
	case ctxDetail:
		// google.rpc.ErrorInfo.reason ("API_KEY_INVALID",
		// "RATE_LIMIT_EXCEEDED"), or a legacy Google error's reason
		// ("rateLimitExceeded", "dailyLimitExceeded").
		if string(key) == "reason" && d.InnerCode == "" {
			d.InnerCode = text()
		}
	case ctxMeta:
		if string(key) == "raw" && isStr {
			d.Raw = text()
		}
	case ctxChoice:
		// An answer given with an error status (Azure AI Foundry answers
		// an output its content filter blocked with HTTP 400 and a
		// chat.completion): its finish reason is the code.
		if string(key) == "finish_reason" && d.InnerCode == "" {
			d.InnerCode = text()
		}
	case ctxViolation:
		if string(key) == "quotaId" || string(key) == "quotaMetric" {
			d.addQuota(text())
		}
	case ctxInfoMeta:
		// google.rpc.ErrorInfo's metadata names the quota too, and its
		// limit: "quota_limit_value": "0" is a plan that has none.
		switch string(key) {
		case "quota_limit", "quota_metric":
			d.addQuota(text())
		case "quota_limit_value":
			if v := text(); v != "" {
				d.addQuota("limit_value: " + v)
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
		case "status", "Status":
			if v := text(); codeLike(v) {
				d.Status = v
			}
		case "error_code", "errorCode":
			if d.Code == "" {
				d.Code = text()
			}
		case "param":
			if isStr {
				d.paramStatus(text())
			}
		}
	case ctxFirst:
		switch string(key) {
		case "code", "error_code":
			if d.Code == "" {
				d.Code = text()
			}
		case "type":
			if d.Type == "" {
				d.Type = text()
			}
		case "message", "msg":
			if d.Message == "" {
				d.Message = text()
			}
		}
	case ctxRoot:
		switch string(key) {
		case "__type": // AWS JSON protocol: "com.amazonaws.dynamodb.v20120810#ThrottlingException"
			v := awsErrorType(text())
			if d.Code == "" {
				d.Code = v
			}
		case "code", "Code", "error_code", "errorCode", "errcode", "errCode", "errno", "err_code", "errorType":
			if d.Code == "" {
				d.Code = text()
			}
		case "status":
			// {"status": 429} or {"status": "RESOURCE_EXHAUSTED"}, never
			// {"status": "error"}.
			if v := text(); d.Status == "" && (numericCode(v) || codeLike(v) && upperSnake(v)) {
				d.Status = v
			}
		case "name":
			if s.lenient && isStr {
				s.name = truncate(text(), maxCodeLen)
			}
		case "type":
			switch v := text(); {
			case v == "error": // Anthropic's envelope says "type":"error"
				d.Model = true
			case d.Type == "":
				d.Type = v
			}
		case "message", "Message", "msg", "errmsg", "error_msg", "status_message":
			// Zulip's and many Chinese platforms' {"code", "msg"}, Viber's
			// {"status": 6, "status_message": "notSubscribed"}
			if d.Message == "" {
				d.Message = text()
			}
		case "param":
			if isStr {
				d.paramStatus(text())
			}
		case "detail", "description", "error_description":
			// FastAPI's {"detail": "text"}, Telegram's {"ok": false,
			// "error_code": 400, "description": "…"}, OAuth's
			// error_description.
			if isStr && d.Message == "" {
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
		case "stop_reason", "stopReason":
			d.Model = true
		}
	}
}

// paramStatus reads an OpenAI-shaped error's param that is an HTTP error
// status as the status: the one-api family of relays (one-api, new-api)
// put the upstream's status there ({"type":"upstream_error","param":"524",
// "code":"bad_response_status_code"}); no parameter is named 524.
func (d *detail) paramStatus(v string) {
	if _, ok := statusCode(v); ok && d.Status == "" {
		d.Status = v
	}
}

// upperSnake reports whether v is written LIKE_THIS: Google's status
// names.
func upperSnake(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return len(v) > 2
}

// array scans [...] at s.pos. Objects in it are read in context elem
// (ctxFirst: only the first one).
func (s *scanner) array(elem, depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	s.pos++ // '['
	if s.peek() == ']' {
		s.pos++
		return true
	}
	for n := 0; ; n++ {
		switch s.peek() {
		case '{':
			ctx := elem
			if (elem == ctxFirst || elem == ctxChoice) && n > 0 {
				ctx = ctxOther
			}
			if !s.object(ctx, depth+1) {
				return false
			}
		case '[':
			if !s.array(ctxOther, depth+1) {
				return false
			}
		case '"', '\'':
			if c := s.peek(); c == '\'' && !s.lenient {
				return false
			}
			v, ok := s.str()
			if !ok {
				return false
			}
			// {"detail": ["text"]}, {"errors": ["text"]}
			if elem == ctxFirst && n == 0 && s.d.Message == "" && bytes.IndexByte(v, '\\') < 0 {
				s.d.Message = string(v)
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
