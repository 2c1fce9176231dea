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
	e, ok := find[*Error](err)
	if !ok || !e.Class.Valid() {
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
		if h, ok := find[*HTTPError](inner); ok {
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
	if _, ok := find[*PanicError](err); ok {
		return Of(InternalBug, "recovered panic"), true
	}
	if _, ok := find[runtime.Error](err); ok {
		return Of(InternalBug, "runtime error"), true
	}
	return Classification{}, false
}

func classifyHTTP(err error) (Classification, bool) {
	h, ok := find[*HTTPError](err)
	if !ok {
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
				// A code that only says "bad request" (Bedrock's
				// ValidationException) is refined by a definite phrase:
				// "Input is too long for requested model." is TOKEN_LIMIT.
				if c == ClientError && d.Message != "" {
					if ph, ok := matchPhrase(ProviderPhrases, d.Message); ok {
						return Of(ph.Class, reason(p, " code ", code, " message mentions \""+ph.Fragment+"\"", status)), true
					}
				}
				return Of(clientClass(p, c), reason(p, " code ", code, "", status)), true
			}
		}
		if d.Message != "" {
			if ph, ok := matchPhrase(ProviderPhrases, d.Message); ok {
				return Of(ph.Class, reason(p, " message mentions \"", ph.Fragment, "\"", status)), true
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
		return Of(clientClass(p, c), string(p)+" HTTP "+strconv.Itoa(status)), true
	}
	switch {
	case status >= 500:
		return Of(UpstreamUnavailable, string(p)+" HTTP "+strconv.Itoa(status)), true
	case status >= 400:
		return Of(clientClass(p, ClientError), string(p)+" HTTP "+strconv.Itoa(status)), true
	}
	return Classification{}, false
}

// clientClass keeps CLIENT_ERROR for model providers only. CLIENT_ERROR
// counts against a model's health, so a 4xx from anyone else must not be
// one: from AWS it is a request we built wrong (INTERNAL_BUG, like
// ValidationException), from a webhook or article host a payload or input it
// rejects (SCHEMA_INVALID).
func clientClass(p Provider, c Class) Class {
	if c != ClientError || p.IsModel() {
		return c
	}
	if p == AWS {
		return InternalBug
	}
	return SchemaInvalid
}

// reason returns provider+what+subject+detail, then " (HTTP status)" when
// there was a status, built in one allocation: it runs on every
// classification of an upstream error.
func reason(p Provider, what, subject, detail string, status int) string {
	var buf [128]byte
	b := append(buf[:0], p...)
	b = append(b, what...)
	b = append(b, subject...)
	b = append(b, detail...)
	if status != 0 {
		b = append(b, " (HTTP "...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, ')')
	}
	return string(b)
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

// statusCoder is satisfied by the AWS SDK's response errors and HTTPError.
type statusCoder interface {
	HTTPStatusCode() int
}

// find is errors.As without the allocation: it returns the first error in
// err's tree that is a T, walking Unwrap() error and Unwrap() []error depth
// first and honouring As methods, exactly as errors.As does. errors.As takes
// its target as an any, so every call heap-allocates the target variable;
// with a dozen calls per classification that was most of Classify's
// allocations.
func find[T any](err error) (T, bool) {
	for err != nil {
		if t, ok := err.(T); ok {
			return t, true
		}
		if x, ok := err.(interface{ As(any) bool }); ok {
			var t T
			if x.As(&t) {
				return t, true
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if t, ok := find[T](e); ok {
					return t, true
				}
			}
			err = nil
		default:
			err = nil
		}
	}
	var zero T
	return zero, false
}

// has reports whether err's tree holds a T.
func has[T any](err error) bool {
	_, ok := find[T](err)
	return ok
}

func classifyAPI(err error) (Classification, bool) {
	ce, ok := find[coder](err)
	if !ok {
		return Classification{}, false
	}
	code := ce.ErrorCode()
	p := AWS
	if own, ok := find[*CodeError](err); ok {
		p = own.Provider
	} else {
		p = awsProvider(err)
	}
	status := 0
	if sc, ok := find[statusCoder](err); ok {
		status = sc.HTTPStatusCode()
	}
	d := detail{Code: code}
	if me, ok := find[interface{ ErrorMessage() string }](err); ok {
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

// awsProvider tells Bedrock runtime apart from the AWS data plane by the
// SDK operation's service, since its codes speak about the model.
func awsProvider(err error) Provider {
	if op, ok := find[*smithy.OperationError](err); ok && lastIndexFoldASCII(op.Service(), "BEDROCK") >= 0 {
		return Bedrock
	}
	return AWS
}

// classifyStatusCoder handles SDK response errors that carry a status but no
// code (a bare *awshttp.ResponseError).
func classifyStatusCoder(err error) (Classification, bool) {
	sc, ok := find[statusCoder](err)
	if !ok || sc.HTTPStatusCode() == 0 {
		return Classification{}, false
	}
	p := awsProvider(err)
	c, ok := classifyDetail(p, sc.HTTPStatusCode(), detail{}, false)
	if ok {
		c.Provider, c.Status = p, sc.HTTPStatusCode()
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
	errno, ok := find[syscall.Errno](err)
	if !ok {
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
	switch {
	case has[*tls.CertificateVerificationError](err), has[x509.UnknownAuthorityError](err),
		has[x509.CertificateInvalidError](err), has[x509.HostnameError](err):
		return Of(AuthDenied, "tls certificate verification failed"), true
	case has[tls.RecordHeaderError](err):
		return Of(InternalBug, "tls record header: the endpoint does not speak TLS"), true
	case has[tls.AlertError](err):
		return Of(NetworkTimeout, "tls alert during handshake"), true
	}
	return Classification{}, false
}

func classifyNet(err error) (Classification, bool) {
	if has[*net.DNSError](err) {
		return Of(NetworkTimeout, "dns lookup failed"), true
	}
	if ne, ok := find[net.Error](err); ok {
		if ne.Timeout() {
			return Of(NetworkTimeout, "network timeout"), true
		}
		return Of(NetworkTimeout, "network error"), true
	}
	if op, ok := find[*net.OpError](err); ok {
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
	if has[*json.SyntaxError](err) {
		return Of(ResponseInvalid, "model output is not valid JSON"), true
	}
	if typ, ok := find[*json.UnmarshalTypeError](err); ok {
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
