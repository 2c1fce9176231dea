package failure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/aws/smithy-go"
)

// Classification is what one failure means. Class, Retryable, Counts and
// ModelSpecific come from the class's traits; the rest is the evidence.
type Classification struct {
	// Class is the stable identifier.
	Class Class `json:"class"`
	// Retryable is false for failures no retry can fix.
	Retryable bool `json:"retryable"`
	// Counts is false for failures that wait without spending an attempt.
	Counts bool `json:"counts"`
	// ModelSpecific is true when the failure counts against the model.
	ModelSpecific bool `json:"model_specific"`
	// Requested is the delay the upstream asked for (Retry-After and kin).
	Requested Requested `json:"-"`
	// SelfImposed marks triage's own limits (the daily budget cap), which wait
	// until they reset rather than for a provider's quota window.
	SelfImposed bool `json:"self_imposed,omitempty"`
	// Reason says which rule matched and on what, e.g. "openai code
	// insufficient_quota (HTTP 429)". It never contains upstream message text.
	Reason string `json:"reason"`
	// Provider is the upstream that failed, when known.
	Provider Provider `json:"provider,omitempty"`
	// Status is the upstream HTTP status, when there was one.
	Status int `json:"status,omitempty"`
	// Code is the provider or AWS error code, when there was one.
	Code string `json:"code,omitempty"`
}

// Of returns a Classification of class c with its traits and reason.
func Of(c Class, reason string) Classification {
	t := c.Traits()
	return Classification{Class: c, Retryable: t.Retryable, Counts: t.Counts, ModelSpecific: t.ModelSpecific, Reason: reason}
}

// Rule classifies the errors it recognises; ok is false for the rest.
type Rule interface {
	Classify(err error) (c Classification, ok bool)
}

// RuleFunc adapts a function to Rule.
type RuleFunc func(err error) (Classification, bool)

// Classify calls f.
func (f RuleFunc) Classify(err error) (Classification, bool) { return f(err) }

// Classifier is an ordered list of rules; the first definite answer wins.
// A failure nothing recognises is Unknown (retryable, counting).
type Classifier []Rule

// Classify runs the rules in order. A nil error is an INTERNAL_BUG: nothing
// that succeeded should be classified.
func (cs Classifier) Classify(err error) Classification {
	if err == nil {
		return Of(InternalBug, "classify called with a nil error")
	}
	for _, r := range cs {
		if c, ok := r.Classify(err); ok {
			return c
		}
	}
	return Of(Unknown, "no rule matched")
}

// DefaultRules are the rules Classify uses, structure first, text last:
// errors triage raised itself, panics, HTTP responses (provider body, then
// status), AWS API error codes, context deadlines, syscall errors, TLS, net
// timeouts, truncated bodies, JSON errors of model output, and finally the
// text of the error.
var DefaultRules = Classifier{
	RuleFunc(classifyOwn),
	RuleFunc(classifyPanic),
	RuleFunc(classifyHTTP),
	RuleFunc(classifyAPI),
	RuleFunc(classifyStatusCoder),
	RuleFunc(classifyContext),
	RuleFunc(classifySyscall),
	RuleFunc(classifyTLS),
	RuleFunc(classifyNet),
	RuleFunc(classifyEOF),
	RuleFunc(classifyJSON),
	RuleFunc(classifyText),
}

// Classify classifies err with DefaultRules.
func Classify(err error) Classification { return DefaultRules.Classify(err) }

func classifyOwn(err error) (Classification, bool) {
	var e *Error
	if !errors.As(err, &e) || !e.Class.Valid() {
		return Classification{}, false
	}
	c := Of(e.Class, e.Reason)
	c.SelfImposed = e.SelfImposed
	if e.RetryAfter > 0 {
		c.Requested = Requested{Delay: e.RetryAfter, Source: "triage"}
	}
	// A known class raised around an upstream error keeps the upstream's
	// evidence (status, code, Retry-After) for the dead letter.
	if inner := e.Err; inner != nil {
		var h *HTTPError
		if errors.As(inner, &h) {
			c.Provider, c.Status = h.Provider, h.Status
			if d, ok := parseBody(h.Provider, h.Body); ok {
				c.Code = d.bestCode()
			}
			if c.Requested.IsZero() {
				c.Requested, _ = ParseRequested(h.Status, h.Header, h.Body)
			}
		}
	}
	return c, true
}

func classifyPanic(err error) (Classification, bool) {
	var p *PanicError
	if errors.As(err, &p) {
		return Of(InternalBug, "recovered panic"), true
	}
	var re runtime.Error
	if errors.As(err, &re) {
		return Of(InternalBug, "runtime error"), true
	}
	return Classification{}, false
}

func classifyHTTP(err error) (Classification, bool) {
	var h *HTTPError
	if !errors.As(err, &h) {
		return Classification{}, false
	}
	d, parsed := parseBody(h.Provider, h.Body)
	if hc := headerCode(h.Header); hc != "" && d.Code == "" {
		d.Code, parsed = hc, true
	}
	c, ok := classifyDetail(h.Provider, h.Status, d, parsed)
	if !ok {
		c = Of(Unknown, "HTTP "+strconv.Itoa(h.Status)+" not in the status table")
	}
	c.Provider, c.Status, c.Code = h.Provider, h.Status, d.bestCode()
	c.Requested = requested(h, d)
	return c, true
}

// requested reads the upstream's requested delay from an HTTPError whose body
// is already parsed.
func requested(h *HTTPError, d detail) Requested {
	if r, ok := parseRetryAfterHeaders(h.Header); ok {
		return r
	}
	if d.HasRetryAfter {
		return Requested{Delay: d.RetryAfter, Source: "body retry_after"}
	}
	if h.Status == 429 {
		r, _ := parseResetHeaders(h.Header)
		return r
	}
	return Requested{}
}

// classifyDetail decides a class from a provider's code, message and status:
// a definite code first, then a definite phrase in the message, then the
// status table.
func classifyDetail(p Provider, status int, d detail, parsed bool) (Classification, bool) {
	if parsed {
		for _, code := range d.codes() {
			if code == "" {
				continue
			}
			if c, ok := codeClass(p, code); ok {
				return Of(c, string(p)+" code "+code+statusSuffix(status)), true
			}
		}
		if d.Message != "" {
			if ph, ok := matchPhrase(ProviderPhrases, d.Message); ok {
				return Of(ph.Class, string(p)+" message mentions \""+ph.Fragment+"\""+statusSuffix(status)), true
			}
		}
	}
	if status == 0 {
		return Classification{}, false
	}
	if p.IsModel() {
		if c, ok := ModelStatusClasses[status]; ok {
			return Of(c, string(p)+" HTTP "+strconv.Itoa(status)), true
		}
	}
	if c, ok := StatusClasses[status]; ok {
		return Of(c, string(p)+" HTTP "+strconv.Itoa(status)), true
	}
	switch {
	case status >= 500:
		return Of(UpstreamUnavailable, string(p)+" HTTP "+strconv.Itoa(status)), true
	case status >= 400:
		return Of(ClientError, string(p)+" HTTP "+strconv.Itoa(status)), true
	}
	return Classification{}, false
}

func statusSuffix(status int) string {
	if status == 0 {
		return ""
	}
	return " (HTTP " + strconv.Itoa(status) + ")"
}

// codeClass looks a code up in the provider's table, then the shared ones.
func codeClass(p Provider, code string) (Class, bool) {
	if p == Bedrock {
		if c, ok := BedrockCodes[code]; ok {
			return c, true
		}
	}
	if c, ok := ProviderCodes[code]; ok {
		return c, true
	}
	if c, ok := AWSCodes[code]; ok {
		return c, true
	}
	return "", false
}

// coder is satisfied by smithy.APIError and CodeError.
type coder interface {
	ErrorCode() string
}

func classifyAPI(err error) (Classification, bool) {
	var ce coder
	if !errors.As(err, &ce) {
		return Classification{}, false
	}
	code := ce.ErrorCode()
	p := AWS
	var own *CodeError
	if errors.As(err, &own) {
		p = own.Provider
	} else {
		var op *smithy.OperationError
		if errors.As(err, &op) && strings.Contains(strings.ToLower(op.Service()), "bedrock") {
			p = Bedrock
		}
	}
	status := 0
	var sc interface{ HTTPStatusCode() int }
	if errors.As(err, &sc) {
		status = sc.HTTPStatusCode()
	}
	d := detail{Code: code}
	var me interface{ ErrorMessage() string }
	if errors.As(err, &me) {
		d.Message = me.ErrorMessage()
	}
	c, ok := classifyDetail(p, status, d, true)
	if !ok {
		return Classification{}, false
	}
	if code == "TransactionCanceledException" && d.Message != "" {
		// Cancellation reasons other than a condition or a conflict (a
		// throttle, a validation error) mean something else.
		switch msg := strings.ToLower(d.Message); {
		case strings.Contains(msg, "throttl"), strings.Contains(msg, "provisionedthroughputexceeded"):
			c = Of(RateLimited, "aws code "+code+" (throttled)")
		case strings.Contains(msg, "validationerror"):
			c = Of(InternalBug, "aws code "+code+" (validation)")
		}
	}
	c.Provider, c.Status, c.Code = p, status, code
	return c, true
}

// classifyStatusCoder handles SDK response errors that carry a status but no
// code (a bare *awshttp.ResponseError).
func classifyStatusCoder(err error) (Classification, bool) {
	var sc interface{ HTTPStatusCode() int }
	if !errors.As(err, &sc) || sc.HTTPStatusCode() == 0 {
		return Classification{}, false
	}
	c, ok := classifyDetail(AWS, sc.HTTPStatusCode(), detail{}, false)
	if ok {
		c.Provider, c.Status = AWS, sc.HTTPStatusCode()
	}
	return c, ok
}

func classifyContext(err error) (Classification, bool) {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Of(NetworkTimeout, "context deadline exceeded"), true
	case errors.Is(err, context.Canceled):
		return Of(Unknown, "context canceled"), true
	}
	return Classification{}, false
}

// SyscallClasses maps errno values from the network stack to classes.
var SyscallClasses = map[syscall.Errno]Class{
	syscall.ECONNRESET:    NetworkTimeout,
	syscall.ECONNREFUSED:  NetworkTimeout,
	syscall.ECONNABORTED:  NetworkTimeout,
	syscall.EPIPE:         NetworkTimeout,
	syscall.ETIMEDOUT:     NetworkTimeout,
	syscall.EHOSTUNREACH:  NetworkTimeout,
	syscall.ENETUNREACH:   NetworkTimeout,
	syscall.ENETDOWN:      NetworkTimeout,
	syscall.EHOSTDOWN:     NetworkTimeout,
	syscall.EADDRNOTAVAIL: NetworkTimeout,
	syscall.EMFILE:        InternalBug, // we leak descriptors
	syscall.ENFILE:        InternalBug,
}

func classifySyscall(err error) (Classification, bool) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return Classification{}, false
	}
	if c, ok := SyscallClasses[errno]; ok {
		return Of(c, "syscall "+errnoName(errno)), true
	}
	return Classification{}, false
}

func errnoName(e syscall.Errno) string {
	switch e {
	case syscall.ECONNRESET:
		return "ECONNRESET"
	case syscall.ECONNREFUSED:
		return "ECONNREFUSED"
	case syscall.EPIPE:
		return "EPIPE"
	case syscall.ETIMEDOUT:
		return "ETIMEDOUT"
	case syscall.ECONNABORTED:
		return "ECONNABORTED"
	}
	return e.Error()
}

// classifyTLS: certificate verification failures need an operator (a wrong
// CA bundle, an expired certificate on the upstream) and are AUTH_DENIED;
// other handshake failures are transport noise.
func classifyTLS(err error) (Classification, bool) {
	var (
		unknownAuthority x509.UnknownAuthorityError
		invalid          x509.CertificateInvalidError
		hostname         x509.HostnameError
		verify           *tls.CertificateVerificationError
		record           tls.RecordHeaderError
		alert            tls.AlertError
	)
	switch {
	case errors.As(err, &verify), errors.As(err, &unknownAuthority),
		errors.As(err, &invalid), errors.As(err, &hostname):
		return Of(AuthDenied, "tls certificate verification failed"), true
	case errors.As(err, &record):
		return Of(InternalBug, "tls record header: the endpoint does not speak TLS"), true
	case errors.As(err, &alert):
		return Of(NetworkTimeout, "tls alert during handshake"), true
	}
	return Classification{}, false
}

func classifyNet(err error) (Classification, bool) {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return Of(NetworkTimeout, "dns lookup failed"), true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return Of(NetworkTimeout, "network timeout"), true
		}
		return Of(NetworkTimeout, "network error"), true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return Of(NetworkTimeout, "network "+op.Op+" failed"), true
	}
	return Classification{}, false
}

func classifyEOF(err error) (Classification, bool) {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return Of(NetworkTimeout, "connection closed mid-response"), true
	}
	return Classification{}, false
}

// classifyJSON: JSON errors that reach the classifier come from model
// output; our own envelope decoding raises SCHEMA_INVALID explicitly.
func classifyJSON(err error) (Classification, bool) {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return Of(ResponseInvalid, "model output is not valid JSON"), true
	case errors.As(err, &typ):
		return Of(ResponseInvalid, "model output has the wrong JSON type for "+typ.Field), true
	}
	return Classification{}, false
}

func classifyText(err error) (Classification, bool) {
	if ph, ok := matchPhrase(TextPhrases, err.Error()); ok {
		return Of(ph.Class, "error text mentions \""+ph.Fragment+"\""), true
	}
	return Classification{}, false
}

// matchPhrase finds the first phrase in s, case-insensitively.
func matchPhrase(phrases []Phrase, s string) (Phrase, bool) {
	lower := strings.ToLower(s)
	for _, ph := range phrases {
		if strings.Contains(lower, ph.Fragment) {
			return ph, true
		}
	}
	return Phrase{}, false
}
