package failure

import (
	"net/http"
	"strconv"
	"strings"
)

// Evidence is a failure known by what was seen of it rather than by a
// client's typed error: an HTTP answer (status, headers, body), an error
// code, the error's text — any mix of them, as a line of `triage classify`,
// a log line or a stored last_error gives it. It is an error, so Classify
// reads it like any other, and its parts are weighed exactly as the typed
// errors' are: the most specific evidence wins (docs/design.md "Classifying
// a failure").
type Evidence struct {
	// Provider is who answered; empty when unknown, and then the text may
	// tell (a URL's host, "operation error Bedrock Runtime: …").
	Provider Provider
	// Status is the HTTP status, or zero.
	Status int
	// Header holds the response headers (Retry-After, x-amzn-ErrorType).
	Header http.Header
	// Body is the response body, at most MaxBodyBytes of it.
	Body []byte
	// Code is an error code known apart from the body: an SDK's ErrorCode,
	// a webhook's answer token.
	Code string
	// Text is the error's text as a client, an SDK or a log printed it.
	Text string
}

// Error returns the evidence as text: the HTTP answer in HTTPError's form,
// the code, then Text.
func (e *Evidence) Error() string {
	var parts []string
	p := e.Provider
	if p == "" {
		p = HTTP
	}
	switch {
	case e.Status != 0:
		parts = append(parts, (&HTTPError{Provider: p, Status: e.Status, Header: e.Header, Body: e.Body}).Error())
	case len(e.Body) > 0:
		parts = append(parts, string(p)+" answered: "+truncate(string(e.Body), 300))
	}
	if e.Code != "" {
		parts = append(parts, string(p)+" code "+truncate(e.Code, maxCodeLen))
	}
	if e.Text != "" {
		parts = append(parts, e.Text)
	}
	if len(parts) == 0 {
		return string(p) + ": no evidence"
	}
	return strings.Join(parts, ": ")
}

// maxCodes bounds the code candidates one failure offers.
const maxCodes = 8

// evidence is everything an error tree says about an upstream failure:
// who answered, the status, the codes from most to least specific, the
// provider's message, and the answer's headers and body for the delay it
// asked for.
type evidence struct {
	provider Provider // "" while unknown
	status   int
	codes    [maxCodes]string
	n        int
	message  string

	header   http.Header
	body     detail
	bodyOK   bool
	upstream bool // an HTTP answer, an API error or an Evidence was found
}

// typed reads the typed errors in err's tree: an *Evidence, an *HTTPError,
// an API error's code and message (smithy.APIError, *CodeError), a response
// error's status.
func (ev *evidence) typed(err error) {
	if e, ok := find[*Evidence](err); ok {
		ev.upstream = true
		ev.provider = e.Provider
		ev.addCode(e.Code)
		if e.Status != 0 || len(e.Body) > 0 || e.Header != nil {
			ev.answer(e.Provider, e.Status, e.Header, e.Body)
		}
	}
	if h, ok := find[*HTTPError](err); ok {
		ev.answer(h.Provider, h.Status, h.Header, h.Body)
	}
	if ce, ok := find[coder](err); ok {
		ev.upstream = true
		if ev.provider == "" {
			if own, ok := find[*CodeError](err); ok {
				ev.provider = own.Provider
			} else {
				ev.provider = awsProvider(err)
			}
		}
		ev.addCode(ce.ErrorCode())
		if me, ok := find[interface{ ErrorMessage() string }](err); ok && ev.message == "" {
			ev.message = me.ErrorMessage()
		}
	}
	if ev.status == 0 {
		if sc, ok := find[statusCoder](err); ok && sc.HTTPStatusCode() != 0 {
			ev.upstream = true
			ev.status = sc.HTTPStatusCode()
			if ev.provider == "" {
				ev.provider = awsProvider(err)
			}
		}
	}
}

// answer records an HTTP answer: its status, the codes of its body (then
// the x-amzn-ErrorType header's), its message.
func (ev *evidence) answer(p Provider, status int, h http.Header, body []byte) {
	ev.upstream = true
	if ev.provider == "" {
		ev.provider = p
	}
	if ev.status == 0 {
		ev.status = status
	}
	if ev.header == nil {
		ev.header = h
	}
	d, ok := parseBody(p, body)
	if ok && !ev.bodyOK {
		ev.body, ev.bodyOK = d, true
	}
	ev.addCode(d.InnerCode)
	ev.addCode(d.Code)
	ev.addCode(headerCode(h))
	ev.addCode(d.Type)
	if ev.message == "" {
		ev.message = d.Message
	}
}

// merge adds what the error's text says to what the typed errors said: the
// text fills gaps, it never overrides a typed provider or status (except a
// 2xx, which decides nothing).
func (ev *evidence) merge(t *textEvidence) {
	if ev.provider == "" || ev.provider == HTTP && t.provider != "" {
		ev.provider = t.provider
	}
	if t.status != 0 && (ev.status == 0 || ev.status >= 200 && ev.status < 300 && t.status >= 400) {
		ev.status = t.status
	}
	for _, c := range t.codes[:t.n] {
		ev.addCode(c)
	}
	if ev.message == "" {
		ev.message = t.message
	}
}

// addCode appends a code candidate once. A code that is an HTTP status
// (Azure's "429", a body's "code": 400) stands in for a missing status.
func (ev *evidence) addCode(c string) {
	if c == "" || ev.n == len(ev.codes) {
		return
	}
	if ev.status == 0 {
		if s, ok := statusCode(c); ok {
			ev.status = s
		}
	}
	for _, x := range ev.codes[:ev.n] {
		if x == c {
			return
		}
	}
	ev.codes[ev.n] = c
	ev.n++
}

// statusCode reports whether c is an HTTP error status written as a code.
func statusCode(c string) (int, bool) {
	if len(c) != 3 || c[0] < '4' || c[0] > '5' {
		return 0, false
	}
	n, err := strconv.Atoi(c)
	return n, err == nil
}

// prov is the provider the tables read: HTTP while unknown.
func (ev *evidence) prov() Provider {
	if ev.provider == "" {
		return HTTP
	}
	return ev.provider
}

// bestCode is the most specific code, bounded, for the Classification.
func (ev *evidence) bestCode() string {
	if ev.n == 0 {
		return ""
	}
	return truncate(ev.codes[0], maxCodeLen)
}

// definite decides on a code that says what happened. Generic codes (a bad
// request of some kind) are left to the phrases and the status. text, when
// not empty, is the error's text, read when the answer had no message.
func (ev *evidence) definite(text string) (Classification, bool) {
	p := ev.prov()
	msg := ev.message
	if msg == "" {
		msg = text
	}
	for _, code := range ev.codes[:ev.n] {
		if GenericCodes[code] {
			continue
		}
		c, ok := codeClass(p, code)
		if !ok {
			continue
		}
		if code == "TransactionCanceledException" && msg != "" {
			// Cancellation reasons other than a condition or a conflict (a
			// throttle, a validation error) mean something else.
			switch lower := strings.ToLower(msg); {
			case strings.Contains(lower, "throttl"), strings.Contains(lower, "provisionedthroughputexceeded"):
				return Of(RateLimited, reason(p, " code ", code, " (throttled)", ev.status)), true
			case strings.Contains(lower, "validationerror"):
				return Of(InternalBug, reason(p, " code ", code, " (validation)", ev.status)), true
			}
		}
		// A rate limit that no wait lifts (a request larger than the
		// tokens-per-minute limit) is not one.
		if c == RateLimited {
			if ph, ok := overridePhrase(msg, text); ok {
				return Of(ph.Class, reason(p, " code ", code, " message mentions \""+ph.Fragment+"\"", ev.status)), true
			}
		}
		// A code that only says "bad request" for this model (an unknown
		// parameter) is refined by a definite phrase.
		if c == ClientError && msg != "" {
			if ph, ok := matchPhrase(ProviderPhrases, msg); ok {
				return Of(ph.Class, reason(p, " code ", code, " message mentions \""+ph.Fragment+"\"", ev.status)), true
			}
		}
		return Of(ev.codeClass(c), reason(p, " code ", code, "", ev.status)), true
	}
	return Classification{}, false
}

// codeClass applies clientClass to a class a code decided. A code that
// only model providers send (model_not_found, DeploymentNotFound) names a
// model even when nothing says who answered.
func (ev *evidence) codeClass(c Class) Class {
	if ev.provider == "" && c == ClientError {
		return ClientError
	}
	return clientClass(ev.prov(), c)
}

// overridePhrase finds an OverridePhrase in the message or the text.
func overridePhrase(msg, text string) (Phrase, bool) {
	if ph, ok := matchPhraseFold(OverridePhrases, msg); ok {
		return ph, true
	}
	if text != "" && text != msg {
		return matchPhraseFold(OverridePhrases, text)
	}
	return Phrase{}, false
}

// phrase decides on a definite phrase of the provider's message, then of
// the error's whole text.
func (ev *evidence) phrase(text string) (Classification, bool) {
	p := ev.prov()
	if ev.message != "" {
		if ph, ok := matchPhrase(ProviderPhrases, ev.message); ok {
			return Of(ph.Class, reason(p, " message mentions \"", ph.Fragment, "\"", ev.status)), true
		}
	}
	if ph, ok := matchPhrase(ProviderPhrases, text); ok {
		return Of(ph.Class, reason(p, " error text mentions \"", ph.Fragment, "\"", ev.status)), true
	}
	return Classification{}, false
}

// generic decides on a generic code the tables still know
// (ValidationException: our malformed request to AWS, or a parameter
// Bedrock's model rejects).
func (ev *evidence) generic() (Classification, bool) {
	p := ev.prov()
	for _, code := range ev.codes[:ev.n] {
		if !GenericCodes[code] {
			continue
		}
		if c, ok := codeClass(p, code); ok {
			return Of(ev.codeClass(c), reason(p, " code ", code, "", ev.status)), true
		}
	}
	return Classification{}, false
}

// statusClass decides on the HTTP status. A 2xx decides nothing: whatever
// failed after it (a body cut short, a stream's error event) says more.
func (ev *evidence) statusClass() (Classification, bool) {
	status, p := ev.status, ev.prov()
	if status == 0 || status >= 200 && status < 300 {
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
	case status >= 500 && status < 600:
		return Of(UpstreamUnavailable, string(p)+" HTTP "+strconv.Itoa(status)), true
	case status >= 400 && status < 500:
		return Of(clientClass(p, ClientError), string(p)+" HTTP "+strconv.Itoa(status)), true
	}
	return Classification{}, false
}

// finish puts the evidence on c: provider, status, code, requested delay.
func (ev *evidence) finish(c Classification) Classification {
	if !ev.upstream && ev.provider == "" && ev.status == 0 && ev.n == 0 {
		return c
	}
	c.Provider, c.Status, c.Code = ev.provider, ev.status, ev.bestCode()
	c.Requested = ev.requested()
	return c
}

// requested reads the upstream's requested delay from the answer's headers
// and body.
func (ev *evidence) requested() Requested {
	if r, ok := parseRetryAfterHeaders(ev.header); ok {
		return r
	}
	if ev.bodyOK && ev.body.HasRetryAfter {
		return Requested{Delay: ev.body.RetryAfter, Source: "body retry_after"}
	}
	if ev.status == 429 {
		r, _ := parseResetHeaders(ev.header)
		return r
	}
	return Requested{}
}
