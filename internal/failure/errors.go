package failure

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// Provider names the upstream that produced an error: any name. A name
// KnownProviders holds says the upstream's role and, for a model endpoint,
// the dialect its answers and errors are read in; any other name is
// accepted too, and judged by the rest of the evidence and by the stage
// (docs/design.md "The role of the upstream"). The constants below are the
// names triage's own clients use.
type Provider string

const (
	// OpenAI is api.openai.com or any OpenAI-compatible chat-completions server.
	OpenAI Provider = "openai"
	// Azure is Azure OpenAI.
	Azure Provider = "azure"
	// Anthropic is the Anthropic Messages API.
	Anthropic Provider = "anthropic"
	// Bedrock is Amazon Bedrock runtime.
	Bedrock Provider = "bedrock"
	// Webhook is a notification receiver (Slack, Discord, a customer endpoint).
	Webhook Provider = "webhook"
	// AWS is an AWS data-plane service (DynamoDB, SQS, KMS, STS, SSM).
	AWS Provider = "aws"
	// HTTP is any other HTTP upstream, such as an article host; its role
	// is the stage's.
	HTTP Provider = "http"
)

// Providers lists the names triage's own clients and stages use, one per
// dialect and role: openai, azure, anthropic, bedrock, webhook, aws, http
// and gemini (last: fuzz seeds index this list). Any other name is a
// Provider too (ParseProvider).
func Providers() []Provider {
	return []Provider{OpenAI, Azure, Anthropic, Bedrock, Webhook, AWS, HTTP, Gemini}
}

// MaxProviderName bounds a provider's name.
const MaxProviderName = 64

// ParseProvider returns the provider named s, trimmed and in lower case;
// the empty string is HTTP. Any name is accepted — an unknown one is judged
// by the rest of the evidence — except one longer than MaxProviderName or
// holding characters no name has (control characters, quotes, ':').
func ParseProvider(s string) (Provider, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return HTTP, nil
	}
	if len(s) > MaxProviderName {
		return "", fmt.Errorf("provider name is %d bytes, at most %d", len(s), MaxProviderName)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\'' || c == ':' || c == '\\' {
			return "", fmt.Errorf("provider %q: a name is letters, digits and '-', '_', '.', '/', ' '", s)
		}
	}
	return Provider(s), nil
}

// IsModel reports whether p's name says it serves models (KnownProviders),
// so that its 4xx responses count against the model's health. An unknown
// name is a model endpoint only at the llm stage (RoleOf).
func (p Provider) IsModel() bool { return p.Role() == RoleModel }

// MaxBodyBytes bounds the response body an HTTPError keeps. Provider error
// bodies are a few hundred bytes; anything longer is an HTML error page.
const MaxBodyBytes = 16 << 10

// HTTPError is what triage's HTTP clients return for a response they did not
// accept (any non-2xx). It keeps what classification needs — status, headers
// for Retry-After, a bounded body for the provider's error code — and never the
// request, so a prompt or an API key cannot leak through it.
type HTTPError struct {
	// Provider is who answered; a known name selects the dialect.
	Provider Provider
	// Stage is the stage that made the call: the upstream's role when the
	// provider's name does not say it (RoleOf). The stages set it.
	Stage work.Stage
	// Op names the call, such as "chat.completions" or "GET article"; when
	// it is empty, Error names the stage's (so that the text says the
	// role).
	Op string
	// Status is the HTTP status code.
	Status int
	// Header holds the response headers.
	Header http.Header
	// Body is the start of the response body, at most MaxBodyBytes.
	Body []byte
}

// Error reports the provider, operation, status and the provider's error code
// and message when the body has them. The message may contain upstream text,
// so it is redacted before it reaches a log or a dead letter.
func (e *HTTPError) Error() string {
	msg := string(e.Provider)
	if op := cmp.Or(e.Op, stageOp[e.Stage]); op != "" {
		msg += " " + op
	}
	msg += ": HTTP " + strconv.Itoa(e.Status)
	d, ok := parseBody(e.Provider, e.Body)
	code := d.bestCode()
	if code == "" {
		// Bedrock and the AWS REST protocols name the error in a header;
		// a header that holds no code's characters is not repeated.
		if h := truncate(headerCode(e.Header), maxCodeLen); codeLike(h) {
			code = h
		}
	}
	if code != "" {
		msg += " " + code
	}
	switch {
	case ok && d.Message != "":
		msg += ": " + truncate(d.Message, 300)
	case !ok && len(e.Body) > 0:
		msg += ": " + truncate(string(e.Body), 300)
	}
	return msg
}

// codeLike reports whether s is made of the characters error codes use:
// letters, digits, '_', '.', '#', '-'.
func codeLike(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '#' || c == '-') {
			return false
		}
	}
	return s != ""
}

// RequestID returns the upstream's request id header, if any.
func (e *HTTPError) RequestID() string {
	for _, h := range []string{"x-request-id", "request-id", "x-amzn-requestid", "apim-request-id", "x-ms-request-id", "cf-ray"} {
		if v := e.Header.Get(h); v != "" {
			return v
		}
	}
	return ""
}

// HTTPStatusCode returns the status, matching the method the AWS SDK's
// response errors expose.
func (e *HTTPError) HTTPStatusCode() int { return e.Status }

// CodeError is an upstream failure known only by its code, such as a
// webhook's "channel_not_found" or an SDK error read from a log. It satisfies
// the same ErrorCode interface as smithy.APIError.
type CodeError struct {
	// Provider is who returned the code.
	Provider Provider
	// Code is the provider's error code or type.
	Code string
	// Message is the provider's message, possibly empty.
	Message string
}

// Error returns "provider code: message".
func (e *CodeError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s %s", e.Provider, e.Code)
	}
	return fmt.Sprintf("%s %s: %s", e.Provider, e.Code, e.Message)
}

// ErrorCode returns the code.
func (e *CodeError) ErrorCode() string { return e.Code }

// ErrorMessage returns the message.
func (e *CodeError) ErrorMessage() string { return e.Message }

// Error is a failure whose class triage's own code already knows: an invalid
// envelope, unparseable model output, our own budget cap, a failed action.
// Classify takes its class as given. Match it with errors.As, or errors.Is
// against an *Error whose Class is set (or empty, to match any).
type Error struct {
	// Class is the class this failure has.
	Class work.Class
	// Reason is a short, redaction-safe explanation (no upstream text).
	Reason string
	// Err is the underlying cause, if any.
	Err error
	// RetryAfter is a delay this failure asks for, or zero.
	RetryAfter time.Duration
	// SelfImposed marks a limit triage enforces on itself (the daily budget),
	// as opposed to one an upstream reported.
	SelfImposed bool
}

// New returns an *Error of class c with a formatted reason.
func New(c work.Class, format string, args ...any) *Error {
	return &Error{Class: c, Reason: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error of class c with reason, wrapping err.
func Wrap(c work.Class, err error, reason string) *Error {
	return &Error{Class: c, Reason: reason, Err: err}
}

// Error returns "CLASS: reason: cause".
func (e *Error) Error() string {
	s := string(e.Class)
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches any *Error with the same class, or any *Error when target's class
// is empty.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Class == "" || t.Class == e.Class
}

// PanicError is a recovered panic. It classifies as INTERNAL_BUG.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack at the recover.
	Stack []byte
}

// Recovered builds a PanicError from a recover() value, capturing the stack.
// Call it directly inside the deferred function.
func Recovered(v any) *PanicError {
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// Error returns "panic: value".
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error (a runtime.Error, say).
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// ErrWaiting is the sentinel that WaitError values match with errors.Is.
var ErrWaiting = errors.New("waiting")

// WaitError is not a failure: a gate (an open circuit breaker, no enabled
// model, an item cooldown) says the work cannot start before Until. The stage
// runner returns the record to its queue until then without counting an attempt.
type WaitError struct {
	// Until is the earliest time the work may start.
	Until time.Time
	// Reason says which gate closed, for logs.
	Reason string
}

// Error returns "waiting until T: reason".
func (e *WaitError) Error() string {
	return "waiting until " + e.Until.UTC().Format(time.RFC3339) + ": " + e.Reason
}

// Is matches ErrWaiting.
func (e *WaitError) Is(target error) bool { return target == ErrWaiting }

// truncate bounds s to n bytes on a rune boundary (cut), marked with its
// whole length when it was longer.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cut(s, n) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}
