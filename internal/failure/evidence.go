package failure

import (
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/triagehq/triage/internal/work"
)

// Evidence is a failure known by what was seen of it rather than by a
// client's typed error: an HTTP answer (status, headers, body), an error
// code, the error's text — any mix of them, as a line of `triage classify`,
// a log line or a stored last_error gives it. It is an error, so Classify
// reads it like any other, and its parts are weighed exactly as the typed
// errors' are: the most specific evidence wins (docs/design.md "Classifying
// a failure").
type Evidence struct {
	// Provider is who answered: any name. A known one selects its dialect
	// (KnownProviders); an unknown one is judged by the rest of the
	// evidence and by Stage. Empty when unknown, and then the text may tell
	// (a URL's host, "operation error Bedrock Runtime: …").
	Provider Provider
	// Stage is the stage that met the failure, "" when unknown: the role of
	// the upstream when the provider's name does not say it (RoleOf).
	Stage work.Stage
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
		parts = append(parts, (&HTTPError{Provider: p, Stage: e.Stage, Status: e.Status, Header: e.Header, Body: e.Body}).Error())
	case len(e.Body) > 0:
		who := string(p)
		if op := stageOp[e.Stage]; op != "" {
			who += " " + op
		}
		parts = append(parts, who+" answered: "+truncate(string(e.Body), 300))
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
	stage    work.Stage
	status   int
	codes    [maxCodes]string
	n        int
	message  string
	text     string    // the text delays in prose are read from: Evidence.Text, or the error's when no answer was seen
	model    bool      // an answer or error body only a model API writes
	answered bool      // an HTTP answer (a status or a body) was seen
	raw      []byte    // the answer's body
	said     string    // the message the typed errors gave, before the text's
	req      Requested // requested, once computed (reqOK)
	reqOK    bool

	header   http.Header
	body     detail
	bodyOK   bool
	upstream bool // an HTTP answer, an API error or an Evidence was found
	reply    int  // the SMTP reply code status was read from (SMTPReplies), or 0
	// answered2xx is the 2xx the answer carried when its body's error code
	// stands in for it (status is then that code): the evidence reports
	// the status as answered, the judgement reads the code.
	answered2xx int
	// plainBody says the message is an answer's body that is no document
	// (plain text, HTML), read as its own message.
	plainBody bool
}

// typed reads the typed errors in err's tree: an *Evidence, an *HTTPError,
// an API error's code and message (smithy.APIError, *CodeError), a response
// error's status.
func (ev *evidence) typed(err error) {
	if e, ok := find[*Evidence](err); ok {
		ev.upstream = true
		ev.provider = e.Provider
		ev.stage = e.Stage
		ev.text = e.Text
		ev.addCode(e.Code)
		if e.Status != 0 || len(e.Body) > 0 || e.Header != nil {
			ev.answer(e.Provider, e.Status, e.Header, e.Body)
		}
	}
	if h, ok := find[*HTTPError](err); ok {
		if ev.stage == "" {
			ev.stage = h.Stage
		}
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
	ev.said = ev.message
}

// answer records an HTTP answer: its status, the codes of its body (then
// the x-amzn-ErrorType header's), its message.
func (ev *evidence) answer(p Provider, status int, h http.Header, body []byte) {
	ev.upstream = true
	ev.answered = ev.answered || status != 0 || len(body) > 0
	if ev.raw == nil {
		ev.raw = body
	}
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
	ev.model = ev.model || d.Model
	ev.addCode(d.InnerCode)
	ev.addCode(d.Code)
	ev.addCode(headerCode(h))
	ev.addCode(d.Status)
	ev.addCode(d.Type)
	if ev.message == "" {
		ev.message = d.Message
		// A body that is no document is its own message: a delay in it is
		// the body's, whichever parser read it.
		ev.plainBody = d.Message != "" && !d.JSON
	}
}

// read gathers what err says: its typed errors, then its text, which it
// returns.
func (ev *evidence) read(err error) string {
	ev.typed(err)
	text := err.Error()
	t := parseText(text)
	ev.merge(&t)
	return text
}

// merge adds what the error's text says to what the typed errors said: the
// text fills gaps, it never overrides a typed provider or status (except a
// 2xx, which decides nothing).
func (ev *evidence) merge(t *textEvidence) {
	if ev.provider == "" || ev.provider == HTTP && t.provider != "" {
		ev.provider = t.provider
	}
	if ev.stage == "" {
		ev.stage = t.stage
	}
	ev.model = ev.model || t.model
	if t.status != 0 && (ev.status == 0 || ev.status >= 200 && ev.status < 300 && t.status >= 400) {
		if ev.status != 0 && ev.answered2xx == 0 {
			// A 2xx whose body reports the real status (Teams' 200 "…
			// HTTP error 429"): judged by that status, reported as answered.
			ev.answered2xx = ev.status
		}
		ev.status, ev.reply = t.status, t.reply
		if h, ok := SMTPReplies[ev.status]; ok && ev.provider.Mailer() {
			ev.reply, ev.status = ev.status, h // a mailer's reply code, not an HTTP status
		}
	} else if t.smtp != 0 && ev.status == 0 && ev.provider.Mailer() {
		ev.reply, ev.status = t.smtp, SMTPReplies[t.smtp]
	}
	for _, c := range t.codes[:t.n] {
		ev.addCode(c)
	}
	if ev.message == "" {
		ev.message = t.message
	}
	if !ev.answered && !ev.bodyOK && t.bodyOK {
		ev.body, ev.bodyOK = t.detail, true
	}
}

// addCode appends a code candidate once. A code that is an HTTP status
// (Azure's "429", a body's "code": 400) stands in for a missing status or
// a 2xx.
func (ev *evidence) addCode(c string) {
	if c == "" || ev.n == len(ev.codes) {
		return
	}
	if ev.status == 0 {
		if s, ok := statusCode(c); ok {
			ev.status = s
		} else if s, ok := CodeStatuses[c]; ok {
			ev.status = s
		}
	} else if ev.status >= 200 && ev.status < 300 {
		// A 2xx whose error object's code is an error status (a gateway's
		// 200 carrying {"error": {"code": 429, …}}) failed with that status.
		if s, ok := statusCode(c); ok {
			ev.answered2xx, ev.status = ev.status, s
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

// prov is the provider the reasons name: HTTP while unknown.
func (ev *evidence) prov() Provider {
	if ev.provider == "" {
		return HTTP
	}
	return ev.provider
}

// role is the role of the upstream (RoleOf).
func (ev *evidence) role() Role { return RoleOf(ev.provider, ev.stage, ev.model) }

// awsModel reports whether AWS-style codes speak about a model: Bedrock's,
// or those of a model endpoint whose name says nothing (at the llm stage,
// an AWS code comes from Bedrock or a proxy in front of it).
func (ev *evidence) awsModel() bool {
	d := ev.provider.Dialect()
	return d == Bedrock || d == "" && ev.role() == RoleModel
}

// bestCode is the most specific code, bounded, for the Classification: a
// word code before a number.
func (ev *evidence) bestCode() string {
	for _, c := range ev.codes[:ev.n] {
		if !numericCode(c) {
			return truncate(c, maxCodeLen)
		}
	}
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
	awsModel := ev.awsModel()
	for i, code := range ev.codes[:ev.n] {
		if GenericCodes[code] || WeakCodes[code] && ev.status >= 300 || ServerTypeCodes[code] && ev.status >= 400 && ev.status < 500 {
			continue
		}
		if code == "UNKNOWN" && ev.wrapsAnswer(awsModel, i) {
			continue
		}
		c, ok := codeClass(awsModel, code)
		if !ok {
			continue
		}
		if c == work.InternalBug && ev.awsDefectElsewhere(code) {
			if ev.role() == RoleModel && notFoundCode(code) {
				// A model provider's code that the model or the endpoint
				// is not there (Volcengine Ark's
				// InvalidEndpointOrModel.NotFound), with or without its
				// 404: the model endpoint's 404 row, CLIENT_ERROR.
				return Of(work.ClientError, reason(p, " code ", code, " (a model or endpoint that is not there)", ev.status)), true
			}
			continue
		}
		if code == "TransactionCanceledException" && msg != "" {
			// Cancellation reasons other than a condition or a conflict (a
			// throttle, a validation error) mean something else.
			switch lower := strings.ToLower(msg); {
			case strings.Contains(lower, "throttl"), strings.Contains(lower, "provisionedthroughputexceeded"):
				return Of(work.RateLimited, reason(p, " code ", code, " (throttled)", ev.status)), true
			case strings.Contains(lower, "validationerror"):
				return Of(work.InternalBug, reason(p, " code ", code, " (validation)", ev.status)), true
			}
		}
		// A rate limit that no wait lifts (a request larger than the
		// tokens-per-minute limit) is not one, and neither is a rate's or
		// a permission's code whose message says money.
		if c == work.RateLimited || c == work.AuthDenied {
			if ph, ok := overridePhrase(msg, text); ok {
				return Of(ph.Class, reason(p, " code ", code, " message mentions \""+ph.Fragment+"\"", ev.status)), true
			}
		}
		// A server's code (InternalServerError) whose message says money
		// is a spent budget too: the definite phrase beats the status it
		// stands for.
		if c == work.UpstreamUnavailable {
			if ph, ok := moneyPhrase(msg, text); ok {
				return Of(ph.Class, reason(p, " code ", code, " message mentions \""+ph.Fragment+"\"", ev.status)), true
			}
		}
		// gRPC's UNAVAILABLE (and UNKNOWN, INTERNAL) carries the
		// transport's own failures: "transport is closing", "connection
		// refused" say which — also under google-api-core's names for them
		// when no HTTP answer was seen. Quoted in an HTTP answer with a
		// server error's status (LocalAI's 500 "rpc error: code =
		// Unavailable desc = error reading from server: EOF"), they are the
		// upstream's failure behind the server that answered, which the
		// status decides.
		if c == work.UpstreamUnavailable && (GoogleCodes[code] != "" && !(ev.answered && ev.status >= 500) || apiCoreServerError(code) && !ev.answered) {
			for _, s := range [2]string{msg, text} {
				if ph, ok := matchPhrase(TransportPhrases, s); ok && s != "" {
					return Of(ph.Class, reason(p, " code ", code, " message mentions \""+ph.Fragment+"\"", ev.status)), true
				}
			}
		}
		// A code that only says "bad request" for this model (an unknown
		// parameter) is refined by a definite phrase.
		if c == work.ClientError && msg != "" {
			if ph, ok := matchPhrase(ProviderPhrases, msg); ok {
				return Of(ph.Class, reason(p, " code ", code, " message mentions \""+ph.Fragment+"\"", ev.status)), true
			}
		}
		cl := Of(ev.codeClass(c), reason(p, " code ", code, "", ev.status))
		if quotaLike(c, code) {
			cl = ev.period(cl, msg, text)
		}
		return cl, true
	}
	return Classification{}, false
}

// apiCoreServerError reports whether code is one of APICoreServerErrors
// in any spelling the codes are read in (service_unavailable).
func apiCoreServerError(code string) bool {
	for name := range APICoreServerErrors {
		if strings.EqualFold(strings.ReplaceAll(code, "_", ""), name) {
			return true
		}
	}
	return false
}

// wrapsAnswer reports whether gRPC's UNKNOWN, the i-th code, wraps an
// answer that says more: UNKNOWN is what a server returns for an error
// that carries no gRPC status (a plugin's call to an object store that
// answered "StatusCode=403, ErrorCode=AccessDenied"), so an error status,
// or a code the tables read, inside its desc decides instead.
func (ev *evidence) wrapsAnswer(awsModel bool, i int) bool {
	if ev.status >= 400 && ev.status != CodeStatuses["UNKNOWN"] { // not the 500 UNKNOWN stands for
		return true
	}
	for _, c := range ev.codes[i+1 : ev.n] {
		if _, ok := codeClass(awsModel, c); ok && !GenericCodes[c] {
			return true
		}
	}
	return false
}

// awsDefectElsewhere reports whether code is one of AWS's deployment
// defects (a table, a queue, a parameter that should exist) said by an
// upstream that is not AWS: GCS's "NotFoundException: 404 gs://…" is a
// document that is not there, which the source's status and words say, and
// a model provider's "InvalidEndpointOrModel.NotFound" a model that is not
// there, which the model endpoint's 404 says (Bedrock's own codes are
// BedrockCodes, read before); the code decides nothing there.
func (ev *evidence) awsDefectElsewhere(code string) bool {
	if r := ev.role(); r != RoleSource && r != RoleWebhook && r != RoleModel {
		return false
	}
	if _, provider := ProviderCodes[code]; provider {
		return false
	}
	// In every spelling codeClass reads: an SDK's exception after its
	// package (discord.errors.NotFound), with or without "Exception".
	if i := strings.LastIndexByte(code, '.'); i > 0 && i+1 < len(code) {
		code = code[i+1:]
	}
	if code != "" && code[0] >= 'a' && code[0] <= 'z' { // lowerCamel, as codeSpellings reads it
		code = string(code[0]-('a'-'A')) + code[1:]
	}
	base := strings.TrimSuffix(code, "Exception")
	return AWSCodes[base] == work.InternalBug || AWSCodes[base+"Exception"] == work.InternalBug
}

// codeClass applies the upstream's role to a class a code decided:
// CLIENT_ERROR is a model endpoint's alone (it counts against the model's
// health), so from AWS it is a request triage built wrong (INTERNAL_BUG),
// from a source or a webhook an input or payload it rejects
// (SCHEMA_INVALID). A code that only model APIs send (model_not_found,
// DeploymentNotFound) names a model even when nothing says who answered.
func (ev *evidence) codeClass(c work.Class) work.Class {
	if c != work.ClientError {
		return c
	}
	switch ev.role() {
	case RoleModel, RoleUnknown:
		return work.ClientError
	case RoleAWS:
		return work.InternalBug
	}
	return work.SchemaInvalid
}

// overridePhrase finds an OverridePhrase in the message or the text.
func overridePhrase(msg, text string) (Phrase, bool) {
	if ph, ok := matchPhraseFold(OverridePhrases, msg); ok {
		return ph, true
	}
	if text != "" && text != msg {
		if ph, ok := matchPhraseFold(OverridePhrases, text); ok {
			return ph, true
		}
	}
	return moneyPhrase(msg, text)
}

// moneyPhrase finds a MoneyOverridePhrase in the provider's message, or in
// the text when there is none (a gRPC status printed whole).
func moneyPhrase(msg, text string) (Phrase, bool) {
	s := msg
	if s == "" {
		s = text
	}
	if s != "" && moneyHint(s) {
		return matchPhraseFold(MoneyOverridePhrases, s)
	}
	return Phrase{}, false
}

// moneyHint reports whether s may hold one of MoneyOverridePhrases: one of
// their rarer pieces ("Insufficient balance", "Please recharge",
// "credits", "purchase", "resource package"), in any case, found before
// any phrase is compared.
func moneyHint(s string) bool {
	return containsAnyFoldASCII(s, []string{"alance", "echarge", "redit", "urchase", "ackage"})
}

// phrase decides on a definite phrase of the provider's message, then of
// the error's whole text.
func (ev *evidence) phrase(text string) (Classification, bool) {
	p := ev.prov()
	if ev.message != "" {
		if ph, ok := matchPhrase(ProviderPhrases, withoutQuestions(ev.message)); ok {
			return ev.phraseClass(ph, reason(p, " message mentions \"", ph.Fragment, "\"", ev.status), text), true
		}
	}
	if ph, ok := matchPhrase(ProviderPhrases, withoutQuestions(text)); ok {
		return ev.phraseClass(ph, reason(p, " error text mentions \"", ph.Fragment, "\"", ev.status), text), true
	}
	return Classification{}, false
}

// phraseClass is the classification a phrase decides, a quota's refined
// by its period.
func (ev *evidence) phraseClass(ph Phrase, why, text string) Classification {
	cl := Of(ev.codeClass(ph.Class), why)
	if quotaLike(ph.Class, ph.Fragment) {
		cl = ev.period(cl, ev.message, text)
	}
	return cl
}

// words decides on the words of a 4xx, or of a failure with no status, by
// the upstream's role: a model endpoint's (ModelWords: the context window,
// safety, the key, money, a quota, the rate, a model still loading), a
// source's or a webhook's (UpstreamWords: the rate, a permission, a
// destination that is gone). The same words mean other things from other
// upstreams, and AWS's failures have codes.
func (ev *evidence) words(text string) (Classification, bool) {
	switch r := ev.role(); r {
	case RoleModel:
		return ev.modelWords(text)
	case RoleSource, RoleWebhook:
		return ev.upstreamWords(r, text)
	case RoleAWS:
		// AWS answers some throttling with 403 (SQS's RequestThrottled,
		// "Request is throttled"): the rate's words decide before the 403
		// row, as they do for a source's 403.
		if ev.status == 403 || ev.status == 0 {
			for _, s := range [2]string{ev.message, text} {
				if s != "" && (containsFoldASCII(s, "throttl") || containsFoldASCII(s, "rate exceeded")) {
					return Of(work.RateLimited, reason(ev.prov(), " AWS's message says it is throttled", "", "", ev.status)), true
				}
			}
		}
	}
	return Classification{}, false
}

// failedBody reports whether the answer's body reports a failure beside a
// 2xx: a non-zero numeric code (errcode, code, errno; a body's own status
// when it has no code) with a message — {"errcode":310000,"errmsg":"sign
// not match"}, Viber's {"status":6,"status_message":"notSubscribed"}. A zero code
// ({"errcode":0,"errmsg":"ok"}) is a success.
func (ev *evidence) failedBody() bool {
	c := ev.body.Code
	if c == "" {
		c = ev.body.Status // Viber's {"status": 999, "status_message": "Bad receiver ID"}
	}
	c = strings.TrimPrefix(c, "-")
	if !ev.bodyOK || ev.body.Message == "" || !numericCode(c) {
		return false
	}
	return strings.TrimLeft(c, "0") != ""
}

// withoutQuestions returns t without the questions a client asks its
// reader about a block ("Check the response.prompt_feedback to see if the
// prompt was blocked"): they say no block happened; a block_reason printed
// after them still does.
func withoutQuestions(t string) string {
	if !containsFoldASCII(t, "was blocked") {
		return t
	}
	for _, q := range [...]string{"if the prompt was blocked", "whether the prompt was blocked",
		"if the response was blocked", "whether the response was blocked"} {
		for {
			k := indexFoldASCII(t, q)
			if k < 0 {
				break
			}
			t = t[:k] + t[k+len(q):]
		}
	}
	return t
}

// sdkErrorNames blanks the SDKs' error names of CodeStatuses
// ("RateLimitError", "AuthenticationError") in a text whose words are read.
var sdkErrorNames = sync.OnceValue(func() *strings.Replacer {
	var names []string
	for name := range CodeStatuses {
		if camelCode(name) && strings.HasSuffix(name, "Error") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	pairs := make([]string, 0, 2*len(names))
	for _, name := range names {
		pairs = append(pairs, name, strings.Repeat(" ", len(name)))
	}
	return strings.NewReplacer(pairs...)
})

// requestJSON are the words that say the JSON a parser refused was the
// request's, not the answer's (Voyage's "The request body is not valid
// JSON", OpenAI's "We could not parse the JSON body of your request",
// OpenAI Batch's input file "line is not parseable as valid JSON").
var requestJSON = [...]string{"request body", "body of your request", "line is not parseable"}

// retriedValidation returns "retries … validation error" when s says a
// client's own retries gave up ("Max retries exceeded", "retries
// exhausted") on a response model's validation (pydantic's "1 validation
// error for StrictModel"): answers that failed the schema asked for, as
// instructor logs it. A validation error alone may be a client's own
// configuration (LangChain's "validation error for ChatOpenAI … api key"),
// and a retry alone a transport's (urllib3's "Max retries exceeded with
// url"), so both must be said; or "".
func retriedValidation(s string) string {
	if !containsAnyFoldASCII(s, []string{"validation error for", "validation errors for"}) ||
		containsFoldASCII(s, "with url") {
		return ""
	}
	if containsAnyFoldASCII(s, []string{"max retries exceeded", "maximum retries exceeded", "retries exhausted", "exceeded maximum retries"}) {
		return "retries … validation error"
	}
	return ""
}

// modelWords decides on the words of a model endpoint's 4xx (ModelWords).
func (ev *evidence) modelWords(text string) (Classification, bool) {
	// A 2xx whose body reports a failure by a non-zero numeric code beside
	// its message (Baidu Qianfan's {"code": 336501, "msg": …}) is read as a
	// failure with no status is, as a receiver's is.
	failed2xx := ev.status >= 200 && ev.status < 300 && ev.failedBody()
	if !failed2xx && ev.status != 0 && (ev.status < 400 || ev.status > 499) ||
		ev.status == 402 || ev.status == 451 { // payment and legal reasons say more than words
		return Classification{}, false
	}
	p := ev.prov()
	if ev.status == 0 {
		// No status: a client that read the answer says it could not use
		// it (AnswerWords) before any word of a request.
		for _, s := range [2]string{ev.message, text} {
			ph, ok := matchPhraseFold(answerWords(), s)
			if f := retriedValidation(s); !ok && f != "" {
				ph, ok = Phrase{f, work.ResponseInvalid}, true
			}
			if ok && s != "" && !containsAnyFoldASCII(s, requestJSON[:]) {
				// An answer withheld for safety is a block, however the
				// client words its absence ("quick accessor … but none were
				// returned … block_reason: SAFETY"): judged as the answer
				// itself would be.
				for _, t := range [2]string{ev.message, text} {
					if pol, ok := matchPhraseFold(policyWords(), withoutQuestions(t)); ok && t != "" {
						return Of(pol.Class, reason(p, " model endpoint's answer: \"", ph.Fragment, "\", \""+pol.Fragment+"\"", 0)), true
					}
				}
				return Of(ph.Class, reason(p, " model endpoint's answer: \"", ph.Fragment, "\"", 0)), true
			}
		}
	}
	words := modelWords()
	for _, s := range [2]string{ev.message, text} {
		if s == "" {
			continue
		}
		if strings.Contains(s, "Error") {
			// An SDK's error name stands for its status (CodeStatuses),
			// which is read; its letters are no words of the message:
			// ElevenLabs' RateLimitError "This request exceeds your quota"
			// is a quota, not "ratelimit".
			s = sdkErrorNames().Replace(s)
		}
		if ph, ok := matchPhrase(words, s); ok {
			// A 424 is the model's container answering for the endpoint
			// (AzureML, SageMaker): read like no status, so its words of a
			// request it does not accept (the container's 404) decide.
			if ph.Class == work.ClientError && ev.status != 0 && ev.status != 424 {
				// A request the endpoint does not accept: the words only
				// keep other meanings from misreading it; the status says
				// the rest (with no status, they say CLIENT_ERROR).
				return Classification{}, false
			}
			if ph.Class == work.TokenLimit && ev.status == 429 && waitWords(s) {
				// Too many tokens within a window, and a wait lifts it
				// ("exceeded the maximum number of tokens allowed within a
				// given time frame. Wait a bit and try again"): a rate.
				return Of(work.RateLimited, reason(p, " model endpoint's message says \"", ph.Fragment, "\" within a window", ev.status)), true
			}
			cl := Of(ph.Class, reason(p, " model endpoint's message says \"", ph.Fragment, "\"", ev.status))
			if quotaLike(ph.Class, ph.Fragment) {
				cl = ev.period(cl, ev.message, text)
			}
			return cl, true
		}
	}
	if ev.status == 0 || ev.status == 424 {
		for _, s := range [2]string{ev.message, text} {
			if f := requestFieldPath(s); f != "" {
				// A validation message that names the request's field by its
				// path ("messages.1.content.0.type: Expected `thinking` …",
				// Bedrock relaying Anthropic's check): a request the
				// endpoint does not accept, whatever words follow.
				return Of(work.ClientError, reason(p, " model endpoint's message names the request's field \"", f, "\"", ev.status)), true
			}
		}
	}
	return Classification{}, false
}

// requestFields are the top-level fields of a model API's request whose
// paths a validation message names ("messages.1.content.0.type: …").
var requestFields = [...]string{"messages.", "tools.", "contents.", "system.", "tool_choice.", "inputs.", "input."}

// requestFieldPath returns the path of a request's field that s names as a
// validation message does — a top-level field of requestFields, then an
// index and any further parts made of letters, digits, '_' and '.',
// followed by ": " ("messages.1.content.0.type: Expected …",
// "tools.0.custom.name: String should match pattern …") — or "".
func requestFieldPath(s string) string {
	for _, field := range requestFields {
		for i := range foldIndexes(s, field) {
			if i > 0 && (isCodeByte(s[i-1]) || s[i-1] == '.') {
				continue
			}
			j := i + len(field)
			if j >= len(s) || s[j] < '0' || s[j] > '9' {
				continue
			}
			for j < len(s) && (isLetter(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '.') {
				j++
			}
			if strings.HasPrefix(s[j:], ": ") {
				return s[i:j]
			}
		}
	}
	return ""
}

// upstreamWords decides on the words of a source's or a webhook's 4xx
// whose default is the generic one, of its 409, or of its failure with no
// status (UpstreamWords); of its 404 or 410 only a permission's words (a
// resource hidden from this credential) and the rate's (an SMTP 550 read as
// 404 says a daily sending quota), of its 403 only the rate's (GitHub
// answers its primary and secondary rate limits with 403) and money's
// (Vonage answers an account out of credit with 403). A rate is read by
// its period.
func (ev *evidence) upstreamWords(r Role, text string) (Classification, bool) {
	permissionOnly, rateOnly := false, false
	switch c, ok := DefaultClass(r, ev.status); {
	case ev.reply >= 400 && ev.reply < 500:
		// A transient SMTP reply (421, 450, 451, 452, 454) is a server
		// not serving now, unless it names the rate or a limit: SES's
		// "454 Throttling failure: Daily message quota exceeded".
		rateOnly = true
	case ev.status == 0, ev.status == 409: // Dropbox's 409 carries every endpoint's error
	case ev.status >= 200 && ev.status < 300 && ev.failedBody():
		// A receiver that answers 200 with its error in the body
		// (DingTalk's and WeCom's errcode, Feishu's code): its words are
		// the answer, as a failure's with no status.
	case ev.status == 404, ev.status == 410:
		// A resource hidden from this credential, or a limit: an SMTP
		// server's 550 (read as 404) says "Daily user sending quota
		// exceeded" as often as "no such user".
		permissionOnly = true
	case ev.status == 403:
		rateOnly = true // GitHub answers its rate limits with 403
	case !ok || c != work.SchemaInvalid || ev.status < 400 || ev.status > 499:
		return Classification{}, false
	}
	who := " source's message says \""
	if r == RoleWebhook {
		who = " webhook's message says \""
	}
	words := upstreamWords()
	for _, s := range [2]string{ev.message, text} {
		if s == "" {
			continue
		}
		if f := lengthLimit(s); f != "" && !rateOnly && !permissionOnly {
			// "Text character limit of 500 exceeded", "The status is over
			// the character limit": the payload's length, which no wait
			// changes, before the rate's "exceeded … limit".
			return Of(work.SchemaInvalid, reason(ev.prov(), who, f, "\"", ev.status)), true
		}
		if f := exceededLimit(s); f != "" {
			// "Exceeded daily email limit for the operation", "limit of
			// 500 messages exceeded": a limit, whatever else the message
			// goes on to say ("If a higher limit is required, …").
			return ev.period(Of(work.RateLimited, reason(ev.prov(), who, f, "\"", ev.status)), ev.message, text), true
		}
		if f := lacksAccess(s); f != "" && !rateOnly {
			// "Anonymous caller does not have storage.objects.get access to
			// the Google Cloud Storage object": a permission the caller
			// lacks, however the service names it.
			return Of(work.AuthDenied, reason(ev.prov(), who, f, "\"", ev.status)), true
		}
		ph, ok := matchPhrase(words, s)
		if ok && (ph.Class == work.NotFound || ph.Class == work.SchemaInvalid) && !rateOnly {
			// A credential refused outranks a destination's or a payload's
			// words: "… is not a valid user, group, or subscribed user key"
			// is the key's verdict, not a malformed value's.
			if f := refusedCredential(s); f != "" {
				return Of(work.AuthDenied, reason(ev.prov(), who, f, "\"", ev.status)), true
			}
		}
		if ok && (!permissionOnly || ph.Class == work.AuthDenied || ph.Class == work.RateLimited) &&
			(!rateOnly || ph.Class == work.RateLimited || ph.Class == work.BudgetExceeded && ev.reply == 0) {
			if ph.Class == work.AuthDenied {
				// A code that says the destination is no longer there
				// (Expo's DeviceNotRegistered) outranks a permission's word
				// of the same answer ("… until you get a token from it and
				// still have its permission"): the device is gone.
				if f := goneCode(ev.message, text); f != "" {
					whose := " source's code "
					if r == RoleWebhook {
						whose = " webhook's code "
					}
					return Of(work.NotFound, reason(ev.prov(), whose, f, " (a destination gone, before a permission's word)", ev.status)), true
				}
			}
			cl := Of(ph.Class, reason(ev.prov(), who, ph.Fragment, "\"", ev.status))
			if ph.Class == work.RateLimited {
				cl = ev.period(cl, ev.message, text)
			}
			return cl, true
		}
		if f := refusedCredential(s); f != "" && !rateOnly {
			return Of(work.AuthDenied, reason(ev.prov(), who, f, "\"", ev.status)), true
		}
	}
	return Classification{}, false
}

// GoneCodeWords are what a receiver's code says of a destination that was
// there and no longer is: a push registration the platform dropped
// (Expo's DeviceNotRegistered, FCM's registration-token-not-registered,
// APNs' Unregistered), a channel archived, a user deleted. Read only inside
// a code — a word joined by '_' or '-', or written in camel case — they
// outrank a permission's word of the same answer (goneCode). A plain "not
// found" is not one of them: a receiver hides what a credential may not
// see behind it (Notion's object_not_found "… shared with your
// integration").
var GoneCodeWords = []string{"notregistered", "not_registered", "not-registered", "unregistered", "archived", "deleted"}

// goneCode returns the first code of msg, then of text, that holds one of
// GoneCodeWords, or "".
func goneCode(msg, text string) string {
	for _, s := range [2]string{msg, text} {
		for _, w := range GoneCodeWords {
			for i := range foldIndexes(s, w) {
				lo, hi := i, i+len(w)
				for lo > 0 && (isCodeByte(s[lo-1]) || s[lo-1] == '-') {
					lo--
				}
				for hi < len(s) && (isCodeByte(s[hi]) || s[hi] == '-') {
					hi++
				}
				if tok := strings.Trim(s[lo:hi], ".-_#"); joinedCode(tok) {
					return tok
				}
			}
		}
	}
	return ""
}

// joinedCode reports whether w is written as a code rather than a word of
// prose: parts joined by '_' or '-', or a capital after its first letter.
func joinedCode(w string) bool {
	if strings.ContainsAny(w, "_-") {
		return len(w) > 1
	}
	for i := 1; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// credentialNouns and credentialKeys are what a receiver calls the secret
// it refused (a bare "key" may be a payload's); credentialVerdicts what it
// says of it.
var (
	credentialNouns = []string{"token", "secret", "password", "credential"}
	credentialKeys  = []string{
		"api key", "user key", "app key", "access key", "auth key", "bot key",
		// the keys a receiver routes or bills by: PagerDuty's routing and
		// integration keys, a service's, a licence's, a subscription's
		"routing key", "integration key", "service key", "license key", "licence key", "subscription key",
		"secret key", "server key", "account key", "client key", "project key", "sending key",
	}
	credentialVerdicts = [...]string{"invalid ", "expired ", "revoked ", "wrong ", "bad ", "incorrect ", "unknown "}
	credentialAll      = slices.Concat(credentialNouns, credentialKeys)
)

// credentialClause is how far (bytes) a verdict's clause runs to the
// credential it names: "not a valid user, group, or subscribed user key".
const credentialClause = 64

// refusedCredential finds a verdict on a credential, with at most one
// qualifying word between them — "invalid recipient token", "expired bot
// token", "wrong user key" — the wording of receivers no phrase names (the bare
// "invalid token" is a phrase); it returns what it found, or "".
//
// It also finds the verdict after the credential — "API KEY is not valid",
// "the routing key is invalid", read loosely ("is not vaild") — and a
// value the receiver says "is not a valid" credential within the same
// clause ("user identifier is not a valid user, group, or subscribed user
// key").
func refusedCredential(s string) string {
	if f := credentialThenVerdict(s); f != "" {
		return f
	}
	if f := notAValidCredential(s); f != "" {
		return f
	}
	for _, v := range credentialVerdicts {
		for i := range foldIndexes(s, v) {
			if i > 0 && isCodeByte(s[i-1]) {
				continue
			}
			rest := s[i+len(v):]
			for _, n := range credentialKeys { // "wrong user key": the noun's own qualifier
				if hasPrefixFoldASCII(rest, n) {
					return strings.TrimSpace(v) + " " + n
				}
			}
			word := 0
			for word < len(rest) && (isCodeByte(rest[word]) || rest[word] == '-') {
				word++
			}
			if word == 0 || word >= len(rest) || rest[word] != ' ' {
				continue
			}
			for _, n := range credentialAll {
				if hasPrefixFoldASCII(rest[word+1:], n) {
					return strings.TrimSpace(v) + " " + rest[:word] + " " + n
				}
			}
		}
	}
	return ""
}

// credentialThenVerdict finds a credential followed, within its clause's
// next three words, by "invalid" or "not" and a spelling of "valid".
func credentialThenVerdict(s string) string {
	for _, n := range credentialAll {
		for i := range foldIndexes(s, n) {
			end := i + len(n)
			if i > 0 && isCodeByte(s[i-1]) || end < len(s) && isCodeByte(s[end]) && s[end] != 's' {
				continue
			}
			rest := s[end:]
			for w := 0; w < 3; w++ {
				word := nextWord(&rest)
				if word == "" {
					break
				}
				if strings.EqualFold(word, "invalid") {
					return n + " invalid"
				}
				if strings.EqualFold(word, "not") {
					if looseValid(nextWord(&rest)) {
						return n + " not valid"
					}
					break
				}
			}
		}
	}
	return ""
}

// nextWord returns the next run of letters after spaces in *s and advances
// *s past it; a clause's end (any other byte) gives "".
func nextWord(s *string) string {
	r := *s
	i := 0
	for i < len(r) && r[i] == ' ' {
		i++
	}
	j := i
	for j < len(r) && (r[j]|0x20 >= 'a' && r[j]|0x20 <= 'z') {
		j++
	}
	*s = r[j:]
	return r[i:j]
}

// looseValid reports whether w is "valid" or a misspelling of it that keeps
// its letters ("vaild", "vlaid"): a receiver's typo says the same.
func looseValid(w string) bool {
	if len(w) < 4 || len(w) > 6 || w[0]|0x20 != 'v' {
		return false
	}
	l := strings.ToLower(w)
	return strings.ContainsRune(l, 'a') && strings.ContainsRune(l, 'l') && strings.ContainsRune(l, 'i') && strings.ContainsRune(l, 'd')
}

// notAValidCredential finds "not a valid" followed, within its clause
// (credentialClause bytes, up to a period or a semicolon), by a credential.
func notAValidCredential(s string) string {
	for i := range foldIndexes(s, "not a valid ") {
		from := i + len("not a valid ")
		clause := s[from:min(len(s), from+credentialClause)]
		if e := strings.IndexAny(clause, ".;\n"); e >= 0 {
			clause = clause[:e]
		}
		for _, n := range credentialAll {
			if containsFoldASCII(clause, n) {
				return "not a valid " + n
			}
		}
	}
	return ""
}

// generic decides on a generic code the tables still know
// (ValidationException: our malformed request to AWS, or a parameter
// Bedrock's model rejects).
func (ev *evidence) generic() (Classification, bool) {
	p := ev.prov()
	awsModel := ev.awsModel()
	for _, code := range ev.codes[:ev.n] {
		if !GenericCodes[code] {
			continue
		}
		if c, ok := codeClass(awsModel, code); ok {
			return Of(ev.codeClass(c), reason(p, " code ", code, "", ev.status)), true
		}
	}
	return Classification{}, false
}

// statusClass decides on the HTTP status, read by the upstream's role
// (RoleDefaults). A 2xx decides nothing: whatever failed after it (a body
// cut short, a stream's error event) says more, and a model's answer is
// judged by the llm stage's client, not here.
func (ev *evidence) statusClass(text string) (Classification, bool) {
	status := ev.status
	if status < 300 || status > 599 {
		return Classification{}, false
	}
	r := ev.role()
	c, ok := DefaultClass(r, status)
	if !ok {
		return Classification{}, false
	}
	cl := Of(c, reason(ev.prov(), " HTTP ", strconv.Itoa(status), defaultSuffix[roleIndex(r)], 0))
	cl.Default = true
	if c == work.RateLimited {
		cl = ev.period(cl, ev.message, text)
	}
	return cl, true
}

// defaultSuffix ends the reason of a status default, by roleIndex.
var defaultSuffix = [5]string{" (model default)", " (source default)", " (webhook default)", " (aws default)", " (unknown default)"}

// finish puts the evidence on c: provider, status, code, requested delay.
func (ev *evidence) finish(c Classification) Classification {
	if !ev.upstream && ev.provider == "" && ev.status == 0 && ev.n == 0 {
		if d, ok := ProseDelay(ev.text); ok && d > 0 {
			c.Requested = Requested{Delay: d, Source: "error text"}
		}
		return c
	}
	c.Provider, c.Status, c.Code = Provider(cut(string(ev.provider), MaxProviderName)), ev.answeredStatus(), ev.bestCode()
	c.Requested = ev.requestedOnce()
	return c
}

// answeredStatus is the status the upstream answered with: a 2xx whose
// body's error code was judged in its place is still reported as the 2xx.
func (ev *evidence) answeredStatus() int {
	if ev.answered2xx != 0 {
		return ev.answered2xx
	}
	return ev.status
}

// requestedOnce is requested, computed once per classification: the period
// of a limit and the classification's delay read it alike.
func (ev *evidence) requestedOnce() Requested {
	if !ev.reqOK {
		ev.req, ev.reqOK = ev.requested(), true
	}
	return ev.req
}

// requested reads the upstream's requested delay from everywhere it is
// given (docs/design.md "Delay hints"): the Retry-After headers, a body
// field, a delay in the prose of the message, the body or the error's
// text, and — for a 429 only — the rate-limit reset headers. An absolute
// time carries the response's Date, the clock it was written by.
func (ev *evidence) requested() Requested {
	r := ev.requestedAt()
	if !r.At.IsZero() {
		r.Date = responseDate(ev.header)
	}
	return r
}

// requestedAt is requested without the response's Date.
//
// Structure first: the exhausted limit's reset header (remaining 0) is read
// before the prose, which says the same in words.
func (ev *evidence) requestedAt() Requested {
	if r, ok := ev.explicitFields(); ok {
		return r
	}
	if ev.status == 429 {
		if r, ok := parseExhaustedReset(ev.header); ok {
			return r
		}
	}
	if r, ok := ev.prose(); ok {
		return r
	}
	if ev.status == 429 {
		r, _ := parseResetHeaders(ev.header)
		return r
	}
	return Requested{}
}

// explicitFields is the delay the Retry-After headers or a body field ask
// for.
func (ev *evidence) explicitFields() (Requested, bool) {
	if r, ok := parseRetryAfterHeaders(ev.header); ok {
		return r, true
	}
	if ev.bodyOK && ev.body.HasRetryAfter {
		return Requested{Delay: ev.body.RetryAfter, Source: "body retry_after"}, true
	}
	// Google's RetryInfo as google-api-core prints it in an exception's
	// text, wherever that text was relayed.
	for _, s := range [...]string{ev.said, ev.text} {
		if d, ok := retryInfoText(s); ok {
			return Requested{Delay: d, Source: "retry_delay"}, true
		}
	}
	if !ev.body.JSON {
		if d, ok := retryInfoText(bytesString(ev.raw)); ok {
			return Requested{Delay: d, Source: "retry_delay"}, true
		}
	}
	return Requested{}, false
}

// prose is a delay written in the prose of the message, the body or the
// error's text (ProseDelay).
func (ev *evidence) prose() (Requested, bool) {
	if d, ok := ProseDelay(ev.said); ok && d > 0 {
		if ev.plainBody && ev.said == ev.message {
			return Requested{Delay: d, Source: "body"}, true
		}
		return Requested{Delay: d, Source: "message"}, true
	}
	if !ev.body.JSON { // a JSON body's words are its message's, read above
		if d, ok := ProseDelay(bytesString(ev.raw)); ok && d > 0 {
			return Requested{Delay: d, Source: "body"}, true
		}
	}
	if d, ok := ProseDelay(ev.text); ok && d > 0 {
		return Requested{Delay: d, Source: "error text"}, true
	}
	return Requested{}, false
}

// bytesString is b as a string without a copy, for reading only: b is an
// answer's body, which nothing writes after it was read.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// foldIndexes yields, left to right, the index in s of every occurrence of
// the lower-case ASCII fragment frag, ignoring ASCII case; an occurrence
// starts after the end of the one before.
func foldIndexes(s, frag string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for from := 0; from < len(s); {
			i := indexFoldASCII(s[from:], frag)
			if i < 0 || !yield(from+i) {
				return
			}
			from += i + len(frag)
		}
	}
}

// indexFoldASCII returns the index of the lower-case ASCII fragment frag in
// s, ignoring ASCII case, or -1.
func indexFoldASCII(s, frag string) int {
	for i := 0; i+len(frag) <= len(s); i++ {
		j := 0
		for j < len(frag) && lowerASCII(s[i+j]) == frag[j] {
			j++
		}
		if j == len(frag) {
			return i
		}
	}
	return -1
}

// waitWords reports whether s says a wait lifts what it refuses: "try
// again", "wait", "time frame", "per minute".
func waitWords(s string) bool {
	return containsAnyFoldASCII(s, []string{"try again", "wait a", "time frame", "timeframe", "per minute", "per min"})
}

// exceededLimit returns the words of s that say a limit or a quota was
// exceeded — "exceeded" (or "exceeds") and "limit" or "quota" within 40
// bytes of each other on a line, in either order, or "out of" followed by
// the limit or the quota it names within the same run of words ("out of
// response count limit", "api freq out of limit", "ran out of quota") — or
// "".
func exceededLimit(s string) string {
	if f := outOfLimit(s); f != "" {
		return f
	}
	for i := range foldIndexes(s, "exceed") {
		lo, hi := max(0, i-40), min(len(s), i+6+40)
		w := s[lo:hi]
		if k := strings.LastIndexByte(s[lo:i], '\n'); k >= 0 {
			w = s[lo+k+1 : hi]
		}
		if k := strings.IndexByte(s[i:hi], '\n'); k >= 0 {
			w = w[:len(w)-(hi-i-k)]
		}
		for _, l := range [...]string{"limit", "quota"} {
			if containsFoldASCII(w, l) {
				return "exceeded … " + l
			}
		}
	}
	return ""
}

// lengthUnits are the words before "limit" that name a payload's length
// or size: a limit on them is the payload's, not the rate's.
var lengthUnits = []string{"character", "characters", "char", "chars", "grapheme", "graphemes", "length", "size", "byte", "bytes"}

// lengthLimit returns "<unit> limit" when s names a limit by a payload's
// length or size ("Text character limit of 500 exceeded", "over the
// character limit", "message size limit exceeded") and says nothing of a
// quota or a rate ("Quota exceeded. The character limit has been reached"
// is an allowance of characters spent), or "".
func lengthLimit(s string) string {
	if containsAnyFoldASCII(s, []string{"quota", "rate limit", "ratelimit", "too many", "per minute", "per hour", "per day", "per month", "daily", "monthly"}) {
		return ""
	}
	for i := range foldIndexes(s, "limit") {
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '-' || s[j-1] == '_') {
			j--
		}
		k := j
		for k > 0 && isLetter(s[k-1]) {
			k--
		}
		if k == j || j == i {
			continue
		}
		for _, u := range lengthUnits {
			if strings.EqualFold(s[k:j], u) {
				return strings.ToLower(u) + " limit"
			}
		}
	}
	return ""
}

// lacksAccess returns "does not have … access" (or "… permission") when s
// says the caller "does not have", "doesn't have" or "has no" and then,
// within 40 bytes of one run of words — a permission's name may hold dots
// and hyphens (storage.objects.get) —, "access" or "permission"; or "".
func lacksAccess(s string) string {
	for _, lead := range [...]string{"does not have ", "doesn't have ", "has no "} {
		for i := range foldIndexes(s, lead) {
			from := i + len(lead)
			end := from
			for end < len(s) && end-from < 40 && (isCodeByte(s[end]) || s[end] == '-' || s[end] == ' ') {
				end++
			}
			for _, w := range [...]string{"access", "permission"} {
				if containsFoldASCII(s[from:end], w) {
					return strings.TrimSpace(lead) + " … " + w
				}
			}
		}
	}
	return ""
}

// outOfLimit returns "out of … limit" (or "… quota") when s says "out of"
// and then, within 40 bytes of nothing but letters, digits and spaces, a
// limit or a quota — or "". Punctuation between them ("out of range:
// limit must be 100") ends the run: the limit is then a value's.
func outOfLimit(s string) string {
	for i := range foldIndexes(s, "out of ") {
		from := i + len("out of ")
		end := from
		for end < len(s) && end-from < 40 && (isCodeByte(s[end]) && s[end] != '.' && s[end] != '#' || s[end] == ' ') {
			end++
		}
		for _, l := range [...]string{"limit", "quota"} {
			if containsFoldASCII(s[from:end], l) {
				return "out of … " + l
			}
		}
	}
	return ""
}
