package failure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/internal/work"
)

// Classification is what one failure means. Class, Retryable, Counts and
// ModelSpecific come from the class's traits; the rest is the evidence.
type Classification struct {
	// Class is the stable identifier.
	Class work.Class `json:"class"`
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
	// Default marks a classification that nothing but a status read by the
	// upstream's role decided, or that nothing decided at all (UNKNOWN):
	// the failures a report of unrecognised failures groups.
	Default bool `json:"default,omitempty"`
}

// Of returns a Classification of class c with its traits and reason.
func Of(c work.Class, reason string) Classification {
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
		return Of(work.InternalBug, "classify called with a nil error")
	}
	for _, r := range cs {
		if c, ok := r.Classify(err); ok {
			return c
		}
	}
	return Of(work.Unknown, "no rule matched")
}

// DefaultRules are the rules Classify uses: errors triage raised itself,
// panics and runtime errors, then every upstream failure, weighed as one body
// of evidence (see classifyUpstream and docs/design.md "Classifying a
// failure"): a provider or AWS code, then a definite phrase of the message or
// the error text, then a transport error, then the HTTP status, then the
// error's text.
var DefaultRules = Classifier{
	RuleFunc(classifyOwn),
	RuleFunc(classifyPanic),
	RuleFunc(classifyUpstream),
}

// Classify returns the Classification err carries (see Mark), or classifies
// err when it carries none: the operator's rule first, when one is
// installed (SetOperatorRule), then DefaultRules. A class triage raised
// around a marked failure (an *Error wrapping it) is what the rules decide
// for the whole chain, so it wins.
func Classify(err error) Classification {
	if c, ok := carried(err); ok {
		return c
	}
	if err != nil {
		if c, ok := classifyOperator(err); ok {
			return c
		}
	}
	return DefaultRules.Classify(err)
}

// ClassifyWith classifies err with r in front of DefaultRules, exactly as
// Classify does with r installed, without installing it: for a process
// that weighs rules it has not deployed (`triage classify --rules`,
// `triage rules test`) while other goroutines classify with the installed
// one. A nil r is DefaultRules alone.
func ClassifyWith(r Rule, err error) Classification {
	if err != nil && r != nil {
		if c, ok := classifyRule(r, err); ok {
			return c
		}
	}
	return DefaultRules.Classify(err)
}

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
		var ev evidence
		ev.typed(inner)
		if ev.upstream {
			c.Provider, c.Status, c.Code = ev.provider, ev.answeredStatus(), ev.bestCode()
			if c.Requested.IsZero() {
				c.Requested = ev.requested()
			}
		}
	}
	return c, true
}

func classifyPanic(err error) (Classification, bool) {
	if _, ok := find[*PanicError](err); ok {
		return Of(work.InternalBug, "recovered panic"), true
	}
	if _, ok := find[runtime.Error](err); ok {
		return Of(work.InternalBug, "runtime error"), true
	}
	return Classification{}, false
}

// classifyUpstream weighs everything err says about a failure, most specific
// evidence first (docs/design.md "Precedence"):
//
//  1. a definite code: the provider's or AWS's error code from a body, a
//     header, an API error or the error text (a phrase so definite that it
//     beats a code comes first: "must be reduced in order to run
//     successfully" is a request no token-rate limit will ever admit);
//  2. a transport error that arrived without an answer;
//  3. a definite phrase of the provider's message or of the error text
//     ("maximum context length", "credit balance is too low");
//  4. a transport error after an answer, then transport strings in the
//     text (TransportPhrases);
//  5. the words of a model endpoint's 4xx (ModelWords), then a generic
//     code (ValidationException, invalid_request_error), then the HTTP
//     status read by the upstream's role (RoleDefaults) — a 2xx decides
//     nothing;
//  6. a JSON error of model output, words of the error text (TextPhrases).
//
// A rate limit or a quota is refined by its period wherever it is decided
// (evidence.period). The error's text is read only when the typed errors
// leave the answer open, so the common cases (an HTTP answer with a code,
// a syscall error) never build it.
func classifyUpstream(err error) (Classification, bool) {
	var ev evidence
	ev.typed(err)
	if c, ok := ev.definite(""); ok {
		return ev.finish(c), true
	}
	transport, hasTransport := classifyTransport(err)
	if hasTransport && !ev.upstream {
		return transport, true
	}
	text := err.Error()
	t := parseText(text)
	if t.own != nil {
		return *t.own, true
	}
	ev.merge(&t)
	if !ev.answered {
		// Delays in prose are read from the text only when no HTTP answer
		// was seen; an answer's message and body say them first.
		ev.text = text
	}
	if c, ok := ev.definite(text); ok {
		return ev.finish(c), true
	}
	if c, ok := ev.phrase(text); ok {
		return ev.finish(c), true
	}
	if hasTransport {
		return ev.finish(transport), true
	}
	if ph, ok := matchPhrase(TransportPhrases, withoutParserEOF(text)); ok && (ph.Class == work.AuthDenied || !(ev.answered && ev.status >= 400) && reasonStatus(text) == 0 && !labelledCode(text)) {
		// An error status — an HTTP answer's (a 500 whose body says
		// "unexpected EOF" is the server's failure, not the connection's;
		// a 200 whose stream died after it is the connection's), or one the
		// text names with its reason phrase
		// ("Failed to connect to OpenRouter API: 404 Not Found {…}") or
		// its label (a log's "code=400 … [details: EOF]") — is an answer
		// the client read: the transport words around it do not decide,
		// the answer does. A certificate's verdict still does.
		return ev.finish(Of(ph.Class, "error text mentions \""+ph.Fragment+"\"")), true
	}
	if ph, ok := curlError(text); ok && !(ev.answered && ev.status >= 400) && reasonStatus(text) == 0 && !labelledCode(text) {
		// libcurl's error number with no message of its own (PHP's
		// "cURL error 28: See http://curl.haxx.se/libcurl/c/libcurl-errors.html"),
		// read as its message would be, under the same guard.
		return ev.finish(Of(ph.Class, "error text names "+ph.Fragment)), true
	}
	if ev.status == 0 && containsAnyFoldASCII(text, URLPhrases) {
		// A URL the client refused before sending: no upstream answered,
		// and the URL is wrong where it was written.
		r := ev.role()
		return ev.finish(Of(urlClass(r), reason(ev.prov(), " client could not use the URL", "", "", 0))), true
	}
	if strings.EqualFold(strings.TrimSpace(text), "EOF") {
		return ev.finish(Of(work.NetworkTimeout, "connection closed mid-response (error text)")), true
	}
	if c, ok := ev.words(text); ok {
		return ev.finish(c), true
	}
	if c, ok := ev.generic(); ok {
		return ev.finish(c), true
	}
	if ev.status == 0 && redirectLoop(text) {
		// A client that stopped following redirects (a loop, or more
		// than it follows) met a redirect it did not follow: the 3xx row
		// of the upstream's role decides.
		r := ev.role()
		if c, ok := DefaultClass(r, 300); ok {
			return ev.finish(Of(c, reason(ev.prov(), " client stopped following redirects", "", defaultSuffix[roleIndex(r)], 0))), true
		}
	}
	if ev.status == 424 && ev.role() == RoleModel {
		// A model's container answering for the endpoint (SageMaker's
		// ModelError, Bedrock's ModelErrorException): its words are read
		// as a failure's with no status ("Your invocation timed out while
		// waiting for a response from container primary"), and with none
		// the 424 row decides.
		if ph, ok := matchPhrase(TextPhrases, withoutQuestions(text)); ok {
			return ev.finish(Of(ph.Class, reason(ev.prov(), " model container's answer mentions \"", ph.Fragment, "\"", ev.status))), true
		}
	}
	if c, ok := ev.statusClass(text); ok {
		return ev.finish(c), true
	}
	if c, ok := classifyJSON(err); ok {
		return ev.finish(c), true
	}
	if ph, ok := matchPhrase(TextPhrases, withoutQuestions(text)); ok {
		return ev.finish(Of(ph.Class, "error text mentions \""+ph.Fragment+"\"")), true
	}
	c := Of(work.Unknown, "no rule matched")
	if ev.status != 0 {
		c = Of(work.Unknown, "HTTP "+strconv.Itoa(ev.status)+" decides nothing")
	}
	c.Default = true
	return ev.finish(c), true
}

// withoutParserEOF is s without serde_json's "EOF while parsing" (a JSON
// document that ended early — "Invalid tool call arguments: EOF while
// parsing an object at line 1 column 23"), whose ": EOF" is the
// document's end, not the connection's.
func withoutParserEOF(s string) string {
	const w = "eof while parsing"
	if indexFoldASCII(s, w) < 0 {
		return s
	}
	var b strings.Builder
	for {
		i := indexFoldASCII(s, w)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString("end while parsing")
		s = s[i+len(w):]
	}
}

// curlError finds libcurl's error number in s after "curl error " (any
// case) or the CLI's "curl: (", and returns the phrase it stands for.
func curlError(s string) (Phrase, bool) {
	for _, marker := range [...]string{"curl error ", "curl: ("} {
		for i := range foldIndexes(s, marker) {
			rest := s[i+len(marker):]
			n, j := 0, 0
			for j < len(rest) && j < 3 && isDigitByte(rest[j]) {
				n = n*10 + int(rest[j]-'0')
				j++
			}
			if j == 0 || j < len(rest) && isDigitByte(rest[j]) {
				continue
			}
			if c, ok := CurlErrors[n]; ok {
				return Phrase{"curl's error " + strconv.Itoa(n), c}, true
			}
		}
	}
	return Phrase{}, false
}

// RedirectPhrases are a client's words for a redirect it stopped
// following: requests' TooManyRedirects ("Exceeded 30 redirects"), Go's
// "stopped after 10 redirects", curl's "Maximum (50) redirects followed",
// the JDK's "Server redirected too many times", Chromium's
// ERR_TOO_MANY_REDIRECTS. They are read only from a text that says
// "redirect".
var RedirectPhrases = []string{
	"too many redirect", "toomanyredirect", "too_many_redirect", "redirected too many", "redirects followed",
	"redirections exceeded", "redirects exceeded", "maximum number of redirect", "redirect loop",
}

// redirectLoop reports whether s holds a client's verdict that it stopped
// following redirects (RedirectPhrases, or "stopped after"/"exceeded" and
// "redirects").
func redirectLoop(s string) bool {
	if !containsFoldASCII(s, "redirect") {
		return false
	}
	return containsAnyFoldASCII(s, RedirectPhrases) || containsFoldASCII(s, "redirects") && (containsFoldASCII(s, "stopped after") || containsFoldASCII(s, "exceeded"))
}

// reason returns provider+what+subject+detail, then " (HTTP status)" when
// there was a status, built in one allocation: it runs on every
// classification of an upstream error. The provider's name is bounded
// (MaxProviderName): any name is accepted, and a reason is logged.
func reason(p Provider, what, subject, detail string, status int) string {
	var buf [128]byte
	b := append(buf[:0], cut(string(p), MaxProviderName)...)
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

// codeClass looks a code up in the tables: Bedrock's first when AWS
// codes speak about a model (awsModel), then the providers', AWS's and
// Google's. Codes arrive spelt several ways: an event stream's
// "throttlingException", amazonka's and the Rust SDK's
// "ProvisionedThroughputExceeded", the .NET SDK's
// "QueueDoesNotExistException"; each is tried in the tables' spelling too.
func codeClass(awsModel bool, code string) (work.Class, bool) {
	if c, ok := codeSpellings(awsModel, code); ok {
		return c, true
	}
	// Alibaba Cloud's dotted codes say the most at their end:
	// "InternalError.Algo.DataInspectionFailed" is DashScope's moderation.
	// An SDK's error name after its package ("litellm.InternalServerError")
	// stands for a status only (CodeStatuses), which the role reads. A
	// lowercase end is a field of a message, not a code: Google's field
	// violation "BatchEmbedContentsRequest.requests: at most 100 requests
	// can be in one batch" names the request's field, whose name is also
	// OpenAI's type for a rate ("requests").
	if i := strings.LastIndexByte(code, '.'); i > 0 && i+1 < len(code) && !lowerWord(code[i+1:]) {
		if _, status := CodeStatuses[code[i+1:]]; !status {
			return codeSpellings(awsModel, code[i+1:])
		}
	}
	return "", false
}

// codeSpellings looks code up in the spellings codeClass reads.
func codeSpellings(awsModel bool, code string) (work.Class, bool) {
	if c, ok := lookupCode(awsModel, code); ok || code == "" {
		return c, ok
	}
	if camel := camelCode(code); camel {
		if b := code[0]; b >= 'a' && b <= 'z' {
			var buf [maxCodeLen]byte
			if len(code) > len(buf) {
				return "", false
			}
			up := append(buf[:0], code...)
			up[0] = b - ('a' - 'A')
			if c, ok := lookupCode(awsModel, string(up)); ok {
				return c, true
			}
			code = string(up)
		}
		if base, ok := strings.CutSuffix(code, "Exception"); ok {
			if c, ok := lookupCode(awsModel, base); ok { // the .NET and Java SDKs' QueueDoesNotExistException
				return c, true
			}
		} else if c, ok := lookupCode(awsModel, code+"Exception"); ok {
			return c, true
		}
	}
	return modelNotFound(code)
}

// notFoundSpellings are how a code says "not found" or "does not exist".
var notFoundSpellings = [...]string{"notfound", "not_found", "not-found", "doesnotexist", "does_not_exist", "notexist", "not_exist"}

// modelNotFound reads a code no table lists that names a model and says it
// is not there — ModelNotFound, ModelNotFoundError, a provider's
// Model.NotExist — as model_not_found is read: CLIENT_ERROR, a code only
// model APIs send. It runs only after every table missed.
func modelNotFound(code string) (work.Class, bool) {
	if len(code) < 13 || !containsFoldASCII(code, "model") {
		return "", false
	}
	return work.ClientError, notFoundCode(code)
}

// notFoundCode reports whether code says "not found" in one of
// notFoundSpellings, in any case.
func notFoundCode(code string) bool {
	return containsAnyFoldASCII(code, notFoundSpellings[:])
}

func lookupCode(awsModel bool, code string) (work.Class, bool) {
	if awsModel {
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
	if c, ok := GoogleCodes[code]; ok { // no Google code is spelt like another table's
		return c, true
	}
	if code != "" && code[0] >= 'a' && code[0] <= 'z' {
		for _, s := range GoogleReasonSuffixes {
			if len(code) > len(s.Suffix) && strings.HasSuffix(code, s.Suffix) {
				return s.Class, true
			}
		}
	}
	return "", false
}

// camelCode reports whether code is spelt like an AWS code: letters and
// digits (and '.'), an upper-case letter after the first byte, no '_'.
// lowerWord reports whether s is all lowercase ASCII letters.
func lowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

func camelCode(code string) bool {
	upper := false
	for i := 0; i < len(code); i++ {
		switch c := code[i]; {
		case c >= 'A' && c <= 'Z':
			upper = upper || i > 0
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.':
		default:
			return false
		}
	}
	return upper
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

// awsProvider tells Bedrock runtime apart from the AWS data plane by the
// SDK operation's service, since its codes speak about the model.
func awsProvider(err error) Provider {
	if op, ok := find[*smithy.OperationError](err); ok && lastIndexFoldASCII(op.Service(), "BEDROCK") >= 0 {
		return Bedrock
	}
	return AWS
}

// classifyTransport reads the typed errors of a failed connection or call:
// context deadlines, syscall errnos, TLS and x509, net errors, a body cut
// short.
func classifyTransport(err error) (Classification, bool) {
	for _, rule := range [...]func(error) (Classification, bool){classifyContext, classifySyscall, classifyTLS, classifyNet, classifyEOF} {
		if c, ok := rule(err); ok {
			return c, true
		}
	}
	return Classification{}, false
}

func classifyContext(err error) (Classification, bool) {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Of(work.NetworkTimeout, "context deadline exceeded"), true
	case errors.Is(err, context.Canceled):
		return Of(work.Unknown, "context canceled"), true
	}
	return Classification{}, false
}

// SyscallClasses maps errno values from the network stack to classes.
var SyscallClasses = map[syscall.Errno]work.Class{
	syscall.ECONNRESET:    work.NetworkTimeout,
	syscall.ECONNREFUSED:  work.NetworkTimeout,
	syscall.ECONNABORTED:  work.NetworkTimeout,
	syscall.EPIPE:         work.NetworkTimeout,
	syscall.ETIMEDOUT:     work.NetworkTimeout,
	syscall.EHOSTUNREACH:  work.NetworkTimeout,
	syscall.ENETUNREACH:   work.NetworkTimeout,
	syscall.ENETDOWN:      work.NetworkTimeout,
	syscall.EHOSTDOWN:     work.NetworkTimeout,
	syscall.EADDRNOTAVAIL: work.NetworkTimeout,
	syscall.EMFILE:        work.InternalBug, // we leak descriptors
	syscall.ENFILE:        work.InternalBug,
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
		return Of(work.AuthDenied, "tls certificate verification failed"), true
	case has[tls.RecordHeaderError](err):
		return Of(work.InternalBug, "tls record header: the endpoint does not speak TLS"), true
	case has[tls.AlertError](err):
		return Of(work.NetworkTimeout, "tls alert during handshake"), true
	}
	return Classification{}, false
}

func classifyNet(err error) (Classification, bool) {
	if has[*net.DNSError](err) {
		return Of(work.NetworkTimeout, "dns lookup failed"), true
	}
	if ne, ok := find[net.Error](err); ok {
		if ue, wraps := ne.(*url.Error); wraps && !ue.Timeout() {
			// A *url.Error is a net.Error whatever it wraps (a redirect
			// loop, a plain-HTTP answer): what it wraps decides.
			return classifyNet(ue.Err)
		}
		if ne.Timeout() {
			return Of(work.NetworkTimeout, "network timeout"), true
		}
		return Of(work.NetworkTimeout, "network error"), true
	}
	if op, ok := find[*net.OpError](err); ok {
		return Of(work.NetworkTimeout, "network "+op.Op+" failed"), true
	}
	return Classification{}, false
}

func classifyEOF(err error) (Classification, bool) {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return Of(work.NetworkTimeout, "connection closed mid-response"), true
	}
	return Classification{}, false
}

// classifyJSON: JSON errors that reach the classifier come from model
// output; our own envelope decoding raises SCHEMA_INVALID explicitly.
func classifyJSON(err error) (Classification, bool) {
	if has[*json.SyntaxError](err) {
		return Of(work.ResponseInvalid, "model output is not valid JSON"), true
	}
	if typ, ok := find[*json.UnmarshalTypeError](err); ok {
		return Of(work.ResponseInvalid, "model output has the wrong JSON type for "+typ.Field), true
	}
	return Classification{}, false
}

// matchPhrase finds the first phrase in s, ignoring ASCII case and how
// whitespace runs (a message wrapped by a terminal or a pretty-printer
// still says what it says).
func matchPhrase(phrases []Phrase, s string) (Phrase, bool) {
	var buf [1024]byte
	norm := normalizeASCII(s, buf[:])
	if ix := indexOf(phrases); ix != nil {
		if i := ix.first(norm); i >= 0 {
			return phrases[i], true
		}
		return Phrase{}, false
	}
	for _, ph := range phrases {
		if strings.Contains(norm, ph.Fragment) {
			return ph, true
		}
	}
	return Phrase{}, false
}

// phraseIndex finds which phrases of a table occur in a text in one pass
// over it: the phrases indexed by their first two bytes. A table of a few
// hundred phrases is then one scan, not a few hundred.
type phraseIndex struct {
	phrases []Phrase
	pairs   [1 << 16]uint16 // index into lists; 0 means none
	lists   [][]uint16      // phrase indices, ascending
	short   []uint16        // phrases under two bytes
}

var (
	phraseIndexOnce sync.Once
	phraseIndexes   []*phraseIndex
)

// indexOf returns the index of a phrase table the classifier searches
// often (ProviderPhrases, TransportPhrases, TextPhrases, ModelWords,
// UpstreamWords), built on first use, or nil for another slice.
func indexOf(phrases []Phrase) *phraseIndex {
	phraseIndexOnce.Do(func() {
		for _, t := range [][]Phrase{ProviderPhrases, TransportPhrases, TextPhrases, modelWords(), upstreamWords()} {
			phraseIndexes = append(phraseIndexes, newPhraseIndex(t))
		}
	})
	if len(phrases) == 0 {
		return nil
	}
	for _, ix := range phraseIndexes {
		if len(ix.phrases) == len(phrases) && &ix.phrases[0] == &phrases[0] {
			return ix
		}
	}
	return nil
}

func newPhraseIndex(phrases []Phrase) *phraseIndex {
	ix := &phraseIndex{phrases: phrases, lists: [][]uint16{nil}}
	if len(phrases) >= 1<<16 {
		return nil
	}
	for i, ph := range phrases {
		f := ph.Fragment
		if len(f) < 2 {
			ix.short = append(ix.short, uint16(i))
			continue
		}
		k := uint16(f[0])<<8 | uint16(f[1])
		if ix.pairs[k] == 0 {
			ix.pairs[k] = uint16(len(ix.lists))
			ix.lists = append(ix.lists, nil)
		}
		ix.lists[ix.pairs[k]] = append(ix.lists[ix.pairs[k]], uint16(i))
	}
	return ix
}

// first returns the index of the first phrase of the table (in table
// order) that norm contains, or -1.
func (ix *phraseIndex) first(norm string) int {
	best := -1
	for _, i := range ix.short {
		if strings.Contains(norm, ix.phrases[i].Fragment) {
			best = int(i)
			break
		}
	}
	for p := 0; p+1 < len(norm); p++ {
		l := ix.pairs[uint16(norm[p])<<8|uint16(norm[p+1])]
		if l == 0 {
			continue
		}
		for _, i := range ix.lists[l] {
			if best >= 0 && int(i) >= best {
				break // the lists ascend: nothing earlier in the table here
			}
			if strings.HasPrefix(norm[p:], ix.phrases[i].Fragment) {
				best = int(i)
				break
			}
		}
	}
	return best
}

// matchPhraseFold is matchPhrase without normalizing s first: cheaper for
// a table of one or two phrases, which it searches by their first byte.
func matchPhraseFold(phrases []Phrase, s string) (Phrase, bool) {
	for _, ph := range phrases {
		if containsFoldASCII(s, ph.Fragment) {
			return ph, true
		}
	}
	return Phrase{}, false
}

// containsAnyFoldASCII reports whether s contains one of frags, as
// containsFoldASCII finds it.
func containsAnyFoldASCII(s string, frags []string) bool {
	for _, frag := range frags {
		if containsFoldASCII(s, frag) {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether s contains the lowercase ASCII
// fragment frag, ignoring ASCII case; a space in frag matches any run of
// whitespace in s. It visits the places where frag's first letter occurs
// in either case, finding each with IndexByte once.
func containsFoldASCII(s, frag string) bool {
	if frag == "" {
		return true
	}
	first, upper := frag[0], frag[0]
	if first >= 'a' && first <= 'z' {
		upper = first - ('a' - 'A')
	}
	next := func(c byte, from int) int {
		if from >= len(s) {
			return -1
		}
		if k := strings.IndexByte(s[from:], c); k >= 0 {
			return from + k
		}
		return -1
	}
	lo, up := next(first, 0), -1
	if upper != first {
		up = next(upper, 0)
	}
	for lo >= 0 || up >= 0 {
		at := lo
		if lo < 0 || up >= 0 && up < lo {
			at = up
			up = next(upper, up+1)
		} else {
			lo = next(first, lo+1)
		}
		if hasPrefixFoldASCII(s[at:], frag) {
			return true
		}
	}
	return false
}

// hasPrefixFoldASCII reports whether s starts with the lowercase ASCII
// fragment frag, ignoring ASCII case; a space in frag matches any run of
// whitespace in s.
func hasPrefixFoldASCII(s, frag string) bool {
	_, ok := foldedPrefix(s, frag)
	return ok
}

// foldedPrefix reports whether s starts with the lowercase ASCII fragment
// frag as hasPrefixFoldASCII reads it; n is how many bytes of s it took.
func foldedPrefix(s, frag string) (n int, ok bool) {
	i := 0
	for k := 0; k < len(frag); k++ {
		if frag[k] == ' ' {
			j := i
			for j < len(s) && isSpace(s[j]) {
				j++
			}
			if j == i {
				return 0, false
			}
			i = j
			continue
		}
		if i >= len(s) || lowerASCII(s[i]) != frag[k] {
			return 0, false
		}
		i++
	}
	return i, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// normalizeASCII returns s with ASCII letters lowered and every run of
// whitespace made one space, in buf when it fits: it runs on every message
// a classification reads, and the phrases are ASCII. The result aliases
// buf, so it must not outlive the caller's use of buf.
func normalizeASCII(s string, buf []byte) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c == '\t' || c == '\n' || c == '\r' || c == ' ' && i+1 < len(s) && isSpace(s[i+1]) {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	var b []byte
	if len(s) <= len(buf) {
		b = buf[:0]
	} else {
		b = make([]byte, 0, len(s))
	}
	b = append(b, s[:i]...)
	space := false
	for ; i < len(s); i++ {
		c := s[i]
		if isSpace(c) {
			if !space {
				b = append(b, ' ')
			}
			space = true
			continue
		}
		space = false
		b = append(b, lowerASCII(c))
	}
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
