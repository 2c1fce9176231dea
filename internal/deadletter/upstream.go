package deadletter

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/work"
)

// MaxUpstreamMessageBytes bounds the provider's own error message kept in a
// dead letter, last_error, the error log and log lines.
const MaxUpstreamMessageBytes = 300

// maxUpstreamCodeBytes bounds a provider's error code or type.
const maxUpstreamCodeBytes = 100

// Upstream is what an upstream's error answer may leave behind: its
// status, its error code and type, and its own message — read from the
// fields that hold them (error.message, message, error_description,
// detail, <Message>), redacted and bounded. Nothing else of the body
// survives: a body can echo the request, the prompt included.
type Upstream struct {
	Provider failure.Provider
	Op       string
	Status   int
	Code     string
	Type     string
	Message  string
}

// UpstreamOf reads h's answer: the code, type and message its body holds
// in the fields providers put them in (OpenAI, Azure, Anthropic, Gemini
// and Google APIs, AWS JSON and XML, Discord, Slack's bare tokens, and the
// generic {"error": "…"}, {"message": "…"}, {"errors": [{…}]}), and a code
// from the AWS error-type headers when the body has none. A body in no
// such shape (an HTML page, prose) gives no message.
func UpstreamOf(h *failure.HTTPError) Upstream {
	u := Upstream{Provider: h.Provider, Op: h.Op, Status: h.Status}
	body := bytes.TrimSpace(bytes.TrimPrefix(h.Body, []byte("\xef\xbb\xbf"))) // a UTF-8 byte-order mark is not the body's
	if len(body) > failure.MaxBodyBytes {
		body = body[:failure.MaxBodyBytes]
	}
	switch {
	case len(body) > 0 && body[0] == '{':
		var doc map[string]any
		if json.Unmarshal(body, &doc) == nil {
			u.fromJSON(doc)
		}
	case len(body) > 0 && body[0] == '<' && !isHTML(body):
		u.fromXML(body)
	case isBareCode(body):
		u.Code = string(body) // Slack's incoming webhooks: "channel_not_found"
	}
	if u.Code == "" {
		u.Code = headerCode(h.Header)
	}
	u.Code = bound(u.Code, maxUpstreamCodeBytes)
	u.Type = bound(u.Type, maxUpstreamCodeBytes)
	if u.Message != "" {
		u.Message = work.Ellipsis(redact.String(strings.TrimSpace(u.Message)), MaxUpstreamMessageBytes-len("…"))
	}
	return u
}

// String renders u as an error's text: "openai chat.completions: HTTP 429
// rate_limit_exceeded: Rate limit reached for …".
func (u Upstream) String() string {
	var b strings.Builder
	b.WriteString(string(u.Provider))
	if u.Op != "" {
		b.WriteString(" " + u.Op)
	}
	b.WriteString(": HTTP " + strconv.Itoa(u.Status))
	switch {
	case u.Code != "":
		b.WriteString(" " + u.Code)
	case u.Type != "":
		b.WriteString(" " + u.Type)
	}
	if u.Message != "" {
		b.WriteString(": " + u.Message)
	}
	return b.String()
}

// fromJSON reads a JSON error document.
func (u *Upstream) fromJSON(doc map[string]any) {
	obj, inner := doc, false
	switch e := doc["error"].(type) {
	case map[string]any:
		obj, inner = e, true
	case string:
		// {"error": "invalid_grant", "error_description": "…"} (OAuth) or
		// {"error": "Not found"}.
		if isBareCode([]byte(e)) {
			u.Code = e
		} else {
			u.Message = e
		}
	}
	if errs, ok := doc["errors"].([]any); ok && len(errs) > 0 && !inner {
		if first, ok := errs[0].(map[string]any); ok {
			obj, inner = first, true
		}
	}
	keys := []string{"message", "Message", "error_description", "detail", "title", "msg", "errorMessage"}
	if u.Message == "" {
		u.Message = firstString(obj, keys...)
	}
	if u.Message == "" && inner {
		u.Message = firstString(doc, keys...)
	}
	codes := []string{"code", "Code", "error_code", "errorCode", "status", "__type"}
	if u.Code == "" {
		u.Code = firstCode(obj, codes...)
	}
	if u.Code == "" && inner {
		u.Code = firstCode(doc, codes...)
	}
	if i := strings.LastIndexByte(u.Code, '#'); i >= 0 { // AWS "ns#ThrottlingException"
		u.Code = u.Code[i+1:]
	}
	if t := firstString(obj, "type"); t != "error" && isBareCode([]byte(t)) { // "error" is Anthropic's envelope
		u.Type = t
	}
}

// isHTML reports whether body is an HTML page, which holds no error fields.
func isHTML(body []byte) bool {
	head := body[:min(len(body), 16)]
	return bytes.HasPrefix(bytes.ToLower(head), []byte("<html")) || bytes.HasPrefix(bytes.ToLower(head), []byte("<!doctype"))
}

// fromXML reads an AWS XML error: <Error><Code>…</Code><Message>…</Message>.
func (u *Upstream) fromXML(body []byte) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var name string
	for range 256 {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name = t.Name.Local
		case xml.CharData:
			v := strings.TrimSpace(string(t))
			switch {
			case v == "":
			case name == "Code" && u.Code == "":
				u.Code = v
			case name == "Message" && u.Message == "":
				u.Message = v
			}
		case xml.EndElement:
			name = ""
		}
	}
}

// firstString returns the first of keys whose value in obj is a non-empty
// string.
func firstString(obj map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// firstCode is firstString for codes: a code written as a word first
// (Google's "status": "RESOURCE_EXHAUSTED" before its "code": 429), then
// one written as a number (Discord's 10015).
func firstCode(obj map[string]any, keys ...string) string {
	for _, k := range keys {
		if v, ok := obj[k].(string); ok && v != "" && isBareCode([]byte(v)) {
			return v
		}
	}
	for _, k := range keys {
		if v, ok := obj[k].(float64); ok && k != "status" {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ""
}

// isBareCode reports whether b is an error code: letters, digits and
// "_.#:-", one word.
func isBareCode(b []byte) bool {
	if len(b) == 0 || len(b) > maxUpstreamCodeBytes {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '#' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// headerCode reads the AWS error code headers: x-amzn-ErrorType
// ("ThrottlingException:http://…") and x-amzn-query-error ("Code;Sender").
func headerCode(h http.Header) string {
	if v := h.Get("X-Amzn-Errortype"); v != "" {
		if i := strings.IndexByte(v, ':'); i >= 0 {
			v = v[:i]
		}
		if isBareCode([]byte(v)) {
			return v
		}
	}
	if v := h.Get("X-Amzn-Query-Error"); v != "" {
		if i := strings.IndexByte(v, ';'); i >= 0 {
			v = v[:i]
		}
		if isBareCode([]byte(v)) {
			return v
		}
	}
	return ""
}

func bound(s string, n int) string {
	if len(s) > n {
		return work.Prefix(s, n)
	}
	return s
}

// ErrorText returns err's text as it may leave a stage — in a dead letter,
// last_error, the error log, a log line or a notice: every upstream answer
// in the chain (*failure.HTTPError) rendered by its status, code and own
// message (Upstream) instead of its body, and the whole redacted
// (internal/redact). A nil err gives "".
func ErrorText(err error) string {
	if err == nil {
		return ""
	}
	return redact.String(withoutBodies(err, err.Error()))
}

// withoutBodies returns s, text rendered from err, with every upstream
// answer of err's tree rendered by Upstream instead of by its body.
func withoutBodies(err error, s string) string {
	for _, h := range httpErrors(err) {
		if raw := h.Error(); raw != "" {
			s = strings.ReplaceAll(s, raw, UpstreamOf(h).String())
		}
	}
	return s
}

// httpErrors returns the *failure.HTTPError values in err's tree, at most
// eight.
func httpErrors(err error) []*failure.HTTPError {
	var out []*failure.HTTPError
	var walk func(e error, depth int)
	walk = func(e error, depth int) {
		if e == nil || depth > 32 || len(out) >= 8 {
			return
		}
		if h, ok := e.(*failure.HTTPError); ok {
			out = append(out, h)
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x, depth+1)
			}
		default:
			walk(errors.Unwrap(e), depth+1)
		}
	}
	walk(err, 0)
	return out
}
