package failure

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triagehq/triage/internal/work"
)

// The error's text, read when the typed errors leave the answer open. What
// reaches a classifier as text — a wrapped string, a log line, a stored
// last_error, `triage classify` input — comes in the shapes below, and each
// one says where its status and code are:
//
//	triage          openai chat.completions: HTTP 429 insufficient_quota: You exceeded…
//	                RATE_LIMITED: chat completion: …           (a class triage decided)
//	AWS SDK Go v2   operation error DynamoDB: PutItem, exceeded maximum number of attempts, 3,
//	                https response error StatusCode: 400, RequestID: …, api error ThrottlingException: …
//	botocore        An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 4): …
//	AWS SDK Go v1   ProvisionedThroughputExceededException: …\n\tstatus code: 400, request id: …
//	Java, JS, Rust  … (Service: DynamoDb, Status Code: 400, …)   ThrottlingException: …   Service(ProvisionedThroughputExceeded(…))
//	openai-go,      POST "https://api.openai.com/v1/chat/completions": 429 Too Many Requests {"error":{…}}
//	anthropic-go
//	go-openai       error, status code: 429, status: 429 Too Many Requests, message: …
//	Python SDKs     Error code: 429 - {'error': {'message': …, 'type': 'insufficient_quota', …}}
//	Node SDKs       429 You exceeded your current quota…   Error: 529 {"type":"error",…}
//	net/http        Post "https://…": dial tcp: lookup api.openai.com: no such host
//
// Codes are taken from the places these formats put them, from a JSON (or
// Python-literal) body inside the text, and from any word of the text that
// is an AWS code (CamelCase, in the tables) or a provider code with an
// underscore ("insufficient_quota"). Go's own error strings (net, tls,
// x509, http2, context, encoding/json) are TextPhrases.

// textEvidence is what an error's text says.
type textEvidence struct {
	own      *Classification // triage's own class, or a Go panic, named in the text
	provider Provider
	stage    work.Stage // from the operation or a "stage" label the text names
	status   int
	codes    [maxCodes]string
	n        int
	message  string
	detail   detail // the body found in the text
	bodyOK   bool
	model    bool // the text holds a body only a model API writes
	// smtp is an SMTP reply code at a line's start (smtpLineReply) in a
	// text that named no status: a mailer's reply when the provider is a
	// mailer (evidence.merge).
	smtp int
	// reply is the SMTP reply code read as an HTTP status (SMTPReplies).
	reply int
}

func (t *textEvidence) addCode(c string) {
	if c == "" || t.n == len(t.codes) {
		return
	}
	for _, x := range t.codes[:t.n] {
		if x == c {
			return
		}
	}
	t.codes[t.n] = c
	t.n++
}

// lazyRegexp compiles expr at its first use. Compiled at start, the
// expressions below would be most of what the package costs a function's
// cold start, and a function whose items all succeed never reads a
// failure's text.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	// reOperation is the AWS SDK for Go v2's OperationError.
	reOperation = lazyRegexp(`operation error ([A-Za-z0-9 ._-]{1,60}): (\w{1,80}),`)
	// reBotocore is botocore's ClientError (Python, the AWS CLI).
	reBotocore = lazyRegexp(`An error occurred \(([\w.#:-]{1,100})\)(?:[^\n]{0,300}?when calling the (\w{1,80}) operation)?`)
	// reAPIError is smithy's GenericAPIError: "api error Code: message".
	reAPIError = lazyRegexp(`api error ([\w.#-]{1,100}): ?([^\n]*)`)
	// reTypedAfterRequestID is the SDK's typed errors after its response
	// error: "RequestID: abc, ConditionalCheckFailedException: message";
	// S3's response error has its host id between them ("RequestID: abc,
	// HostID: def, NoSuchKey: message"), and a host id with no error after
	// it is none ("HostID: , canceled").
	reTypedAfterRequestID = lazyRegexp(`RequestID: [^,\s]*, (?:HostID: [^,\s]*, )?([A-Z][\w.]{2,100}): ?([^\n]*)`)
	// reCodeLabel is a labelled code: Java v1 "Error Code: X", a header
	// "x-amzn-ErrorType: X", an XML <Code>X</Code>.
	reCodeLabel = lazyRegexp(`(?i)(?:error[ _]?code|x-amzn-errortype|errortype)["']?\s*[:=]\s*["']?([A-Za-z][\w.]{1,100})|<Code>([^<]{1,100})</Code>`)
	// reStatusLabel is a labelled status: "StatusCode: 400", "status code: 429",
	// "Status Code: 400", "status_code=503", "Error code: 429", "HTTP 503",
	// "HTTP:401", "HTTP/1.1 502"; a log's "code=400", "err=503",
	// "error_message=403".
	reStatusLabel = lazyRegexp(`(?i)(?:status[ _]?code|error[ _]?code|http[ _]status|"?http[ _]code"?|"?status"?)["']?\s*[:=]?\s*([1-5]\d\d)\b|\bhttp(?:/[\d.]+)?[ :]([1-5]\d\d)\b|\bhttp/[\d.]+" ([1-5]\d\d)\b|\b(?:code|error|err|error_?message|error_?msg)=([45]\d\d)\b`)
	// reStatusLead is an error status leading the text or its error part:
	// "429 You exceeded…", "Error: 529 {…}", "API Error (529 …", "ChatGPT
	// error 429:", `POST "…": 429 Too Many Requests`, "Encountered 429,",
	// "resulted in a `400 Bad Request` response", "'503 Service Unavailable'",
	// Elixir's "{:error, {:http_error, 400, …}}", "Client error - 404 when
	// posting", "…/items- 404 error"; go-github's and go-gitlab's
	// "POST https://api.github.com/repos/o/r/hooks: 422 Validation Failed
	// […]", an HTTP method and its URL before the status; openai-python
	// 0.x's APIError, its status between the body and the body's dict
	// ("… } 413 {'error': …"); an error page's heading, CloudFront's
	// "<H1>504 ERROR</H1>".
	reStatusLead = lazyRegexp(`(?i)(?:^|error[:\s(,-]{1,3}|\(|\[|": |\} |<h1>|(?:encountered|received|got|returned|response):? |\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) https?://[^\s"]+: )([45]\d\d)(?:[\s:),\]]|$)|[\x60'"]([45]\d\d) [A-Z][a-z]+|[\s-]([45]\d\d) error\b|\): ([45]\d\d)\s+[A-Z][a-z]|\b([45]\d\d) (?:status code|client error|server error)\b|[(（][a-z][\w .-]{0,30} ([45]\d\d)[)）]`)
	// reStatusProse is a status written in prose a few words after a word
	// that says so: "Request failed with status code 503", "Request failed
	// with code 503", "Response status code does not indicate success:
	// 503", "Server returned HTTP response code: 429", "Request returned
	// failure 404", "returned code 400", "Bad response status for read:
	// 522", "statuscode_reason, 429" — an error status (4xx, 5xx), at most
	// 30 bytes after the word with no digit or line break between.
	// "failed(302)", "failed (503)": a status in parentheses glued to the
	// word, as log lines write it.
	reStatusProse = lazyRegexp(`(?i)(?:status|response code|failure|returned|failed with|error code)[^\d\n]{0,30}?\b([45]\d\d)\b()|failed ?\(()([345]\d\d)\)`)
	// reHost is a URL's host.
	reHost = lazyRegexp(`https?://([A-Za-z0-9.-]{1,253})`)
	// reStage is a log line's stage label: stage=llm, "stage": "fetch",
	// stage: notify.
	reStage = lazyRegexp(`(?i)\bstage["']?\s*[:=]\s*["']?(fetch|llm|notify)\b`)
)

// asciiWords is s for the expressions above, which read ASCII words in any
// case: (?i) folds case by Unicode's rules, under which the long s ſ
// (U+017F) is an s and the Kelvin sign K (U+212A) a k, so "ſtatus 404"
// would name a status nobody wrote. Each of those runes is replaced by as
// many DEL bytes, which the expressions read as they read the rune (not a
// letter of \w, not a digit, not a space) except that no case folds to
// them; an offset into the result is one into s.
func asciiWords(s string) string {
	if !strings.ContainsAny(s, "\u017f\u212a") {
		return s
	}
	return asciiWordsReplacer.Replace(s)
}

var asciiWordsReplacer = strings.NewReplacer("\u017f", "\x7f\x7f", "\u212a", "\x7f\x7f\x7f")

// bedrockOperations are the Bedrock runtime (and agent runtime) operations
// whose failures speak about a model.
var bedrockOperations = map[string]bool{
	"InvokeModel": true, "InvokeModelWithResponseStream": true, "Converse": true, "ConverseStream": true,
	"InvokeAgent": true, "ApplyGuardrail": true, "InvokeInlineAgent": true, "RetrieveAndGenerate": true,
}

// parseText reads an error's text.
func parseText(s string) textEvidence {
	var t textEvidence
	if c, ok := ownClass(s); ok {
		t.own = &c
		return t
	}
	t.provider = hostProvider(s)
	// The expressions run only when their literal part occurs: the stage
	// runner classifies every failure, and a regexp search costs even when
	// it fails.
	if p, op, status, code, ok := ownHTTP(s); ok {
		if Provider(p).Known() {
			t.provider = Provider(p)
		}
		t.stage = opStage(op)
		t.status = status
		t.addCode(code)
	}
	if i := rpcError(s); i >= 0 {
		// gRPC's status error: "rpc error: code = ResourceExhausted desc = …",
		// in any case ("RPC error: code = unavailable desc = …")
		name := s[i:]
		if j := strings.IndexByte(name, ' '); j > 0 {
			name = name[:j]
		}
		if g := googleName(name); g != "" {
			t.addCode(g)
		} else if g := strings.ToUpper(name); len(name) <= 20 && GoogleCodes[g] != "" {
			t.addCode(g) // one word: Unavailable, Internal, Unknown, Aborted
		}
	}
	if g := grpcJavaCode(s); g != "" {
		t.addCode(g) // grpc-java's "io.grpc.StatusRuntimeException: UNKNOWN: …"
	}
	if containsFoldASCII(s, "status") {
		if g := labelledGoogleStatus(s); g != "" {
			t.addCode(g)
		}
	}
	if t.stage == "" && containsFoldASCII(s, "stage") {
		if m := reStage().FindStringSubmatch(asciiWords(s)); m != nil {
			t.stage = work.Stage(strings.ToLower(m[1]))
		}
	}
	if strings.Contains(s, "operation error ") {
		if m := reOperation().FindStringSubmatch(s); m != nil {
			t.provider = serviceProvider(m[1])
		}
	}
	if t.provider == "" || t.provider == HTTP {
		if svc := sdkService(s); svc != "" {
			t.provider = serviceProvider(svc)
		}
	}
	if strings.Contains(s, "An error occurred (") {
		if m := reBotocore().FindStringSubmatch(s); m != nil {
			t.addCode(afterHash(m[1]))
			if t.provider == "" || t.provider == HTTP {
				t.provider = AWS
			}
			if bedrockOperations[m[2]] {
				t.provider = Bedrock
			}
		}
	}
	if strings.Contains(s, "api error ") {
		if m := reAPIError().FindStringSubmatch(s); m != nil {
			t.addCode(afterHash(m[1]))
			t.message = m[2]
		}
	}
	if strings.Contains(s, "RequestID: ") {
		if m := reTypedAfterRequestID().FindStringSubmatch(s); m != nil && m[1] != "HostID" {
			t.addCode(m[1])
			if t.message == "" {
				t.message = m[2]
			}
		}
	}
	var handler string
	if containsFoldASCII(s, "code") || containsFoldASCII(s, "errortype") {
		for _, m := range reCodeLabel().FindAllStringSubmatchIndex(asciiWords(s), 4) {
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] < 0 {
					continue
				}
				if code := afterHash(s[m[g]:m[g+1]]); handlerLabel(s[:m[0]]) {
					handler = code
				} else {
					t.addCode(code)
				}
			}
		}
	}
	if t.status == 0 || t.status < 300 {
		// A 2xx (Teams answers 200 and reports "returned HTTP error 429"
		// in the body) gives way to an error status the text names.
		if st := textStatus(s); st >= 400 || t.status == 0 {
			smtpText := containsFoldASCII(s, "smtp") || containsFoldASCII(s, "mail")
			if st == 0 {
				// A reply at a line's start with no enhanced status code
				// ("Invalid greeting from server:\n451 ESMTP … too busy")
				// is SMTP's in a text that names SMTP or mail, or from a
				// mailer.
				if t.smtp = smtpLineReply(s); smtpText {
					st = t.smtp
				}
			}
			if h, ok := SMTPReplies[st]; ok && (smtpText || smtpReply(s) == st) {
				t.reply, st = st, h // an SMTP client's reply code, not an HTTP status
			}
			t.status = st
		}
	}
	t.body(s)
	t.words(s)
	// A CloudFormation resource handler's HandlerErrorCode is its mapping
	// of the error its message quotes ("AccessDeniedException: … (…,
	// HandlerErrorCode: NotFound)"): the quoted error's codes come first.
	t.addCode(handler)
	if t.provider == "" && (t.n > 0 && awsCode(t.codes[0]) || strings.Contains(s, "operation error ")) {
		t.provider = AWS
	}
	return t
}

// handlerLabel reports whether before, the text up to a labelled code,
// ends in "Handler": CloudFormation's "HandlerErrorCode: NotFound".
func handlerLabel(before string) bool {
	const h = "handler"
	return len(before) >= len(h) && strings.EqualFold(before[len(before)-len(h):], h)
}

// rpcError returns where the code name of gRPC's status error starts in
// s ("rpc error: code = " in any case), or -1.
func rpcError(s string) int {
	const lead = "rpc error: code = "
	if i := strings.Index(s, lead); i >= 0 {
		return i + len(lead)
	}
	if !containsFoldASCII(s, "code = ") {
		return -1
	}
	for i := 0; i+len(lead) <= len(s); i++ {
		if s[i] == 'r' || s[i] == 'R' {
			if strings.EqualFold(s[i:i+len(lead)], lead) {
				return i + len(lead)
			}
		}
	}
	return -1
}

// labelledGoogleStatus returns a Google status name written after the word
// "status" in text — "Status ABORTED The operation was aborted", "status:
// UNAVAILABLE", `"status": "RESOURCE_EXHAUSTED"` in a log's repr — or "".
// A label says it is a status, so the names that are also words of prose
// (UNKNOWN, INTERNAL, ABORTED, CANCELLED) are read here too, in capitals.
func labelledGoogleStatus(s string) string {
	for i := range foldIndexes(s, "status") {
		k := i + len("status")
		j := k
		for j < len(s) && j-k < 4 && (s[j] == ' ' || s[j] == ':' || s[j] == '=' || s[j] == '"' || s[j] == '\'') {
			j++
		}
		if j == k {
			continue
		}
		e := j
		for e < len(s) && (s[e] >= 'A' && s[e] <= 'Z' || s[e] == '_') {
			e++
		}
		if e-j >= 4 && (e == len(s) || !isCodeByte(s[e])) && GoogleCodes[s[j:e]] != "" {
			return s[j:e]
		}
	}
	return ""
}

// SMTPReplies are the SMTP reply codes a mail client writes in its error
// ("Net::SMTPFatalError: 554 Message rejected: …", smtplib's
// SMTPDataError(554, …)) that are not the HTTP status of the same number,
// each as the HTTP status that means the same, so the upstream's role reads
// it (docs/design.md "Defaults by role"): a transient 4xx is a server not
// serving now, a 535 a login refused, a 550 a mailbox that is not there, a
// 554 a message refused — whose words then say why. They apply only to a
// text that names SMTP or mail ("Mail cannot be sent", nodemailer's
// "response: '550 …'", an e-mail address).
var SMTPReplies = map[int]int{
	421: 503, 450: 503, 451: 503, 452: 503, 454: 503,
	530: 401, 534: 401, 535: 401,
	550: 404, 551: 404, 552: 413, 553: 400, 554: 400,
}

// textStatus is the first error status (4xx, 5xx) the text names, or
// else the first status at all, or 0.
func textStatus(s string) int {
	if !hasStatusDigits(s) {
		return 0
	}
	first := 0
	res := [3]*regexp.Regexp{reStatusLabel(), reStatusLead()}
	if statusWords(s) {
		res[2] = reStatusProse()
	}
	for _, re := range res {
		if re == nil {
			break
		}
		for _, m := range re.FindAllStringSubmatchIndex(asciiWords(s), 8) {
			n, end := 0, 0
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 && m[g+1] > m[g] {
					n, _ = strconv.Atoi(s[m[g]:m[g+1]])
					end = m[g+1]
					break
				}
			}
			if !httpStatus(n) || isSize(s[end:]) {
				continue // "(port 443)", "…(402 bytes)": a number, not a status
			}
			if n >= 400 {
				return n
			}
			if first == 0 {
				first = n
			}
		}
	}
	if n := reasonStatus(s); n != 0 {
		return n
	}
	if n := smtpReply(s); n != 0 {
		return n
	}
	if first == 0 {
		// a redirect not followed, which a client wrote with its reason
		// phrase: no error status said more
		first = reasonStatusOf(s, "3")
	}
	return first
}

// isSize reports whether the text after a number makes it a size: "…(402
// bytes)", the length a truncated body is printed with. A log's next field
// ("status=503 bytes=0", Heroku's router) is no unit of the number.
func isSize(rest string) bool {
	return strings.HasPrefix(rest, " bytes") && !strings.HasPrefix(rest, " bytes=") || strings.HasPrefix(rest, " byte)") || strings.HasPrefix(rest, " B)")
}

// smtpReply is an SMTP server's error reply as a client prints it — a
// 4xx or 5xx code at the start of the text, of a line or after ": ",
// followed by an enhanced status code ("550 5.4.5 Daily user sending
// limit exceeded", "550-5.4.5 …", a multi-line reply's dash) or by the
// dash of a multi-line reply ("550-Requested action not taken: mailbox
// unavailable") — or 0. SMTPReplies then reads it as the HTTP status that
// means the same.
func smtpReply(s string) int {
	for i := 0; i+4 <= len(s); i++ {
		if s[i] != '4' && s[i] != '5' || !isDigitByte(s[i+1]) || !isDigitByte(s[i+2]) {
			continue
		}
		if i > 0 && !(s[i-1] == '\n' || s[i-1] == '=' || s[i-1] == '\'' || s[i-1] == '"' || i >= 2 && s[i-2] == ':' && s[i-1] == ' ') {
			continue // at a line's start, after ": ", "response=" or a quote
		}
		sep := s[i+3]
		if sep != '-' && sep != ' ' {
			continue
		}
		rest := s[i+4:]
		enhanced := len(rest) >= 5 && isDigitByte(rest[0]) && rest[1] == '.' && isDigitByte(rest[2])
		if enhanced || sep == '-' && len(rest) > 0 && rest[0] >= 'A' && rest[0] <= 'Z' {
			return int(s[i]-'0')*100 + int(s[i+1]-'0')*10 + int(s[i+2]-'0')
		}
	}
	return 0
}

// smtpLineReply is an SMTP reply code SMTPReplies reads at the start of
// the text or of a line, followed by a space, a dash or the line's end
// ("451 ESMTP MailEnable Service temporarily refused connection"), or 0.
// With no enhanced status code it says SMTP only in a text that names
// SMTP or mail, or from a mailer.
func smtpLineReply(s string) int {
	for start := 0; start+3 <= len(s); {
		l := s[start:]
		if (l[0] == '4' || l[0] == '5') && isDigitByte(l[1]) && isDigitByte(l[2]) &&
			(len(l) == 3 || l[3] == ' ' || l[3] == '-' || l[3] == '\r' || l[3] == '\n') {
			n := int(l[0]-'0')*100 + int(l[1]-'0')*10 + int(l[2]-'0')
			if _, ok := SMTPReplies[n]; ok {
				return n
			}
		}
		k := strings.IndexByte(l, '\n')
		if k < 0 {
			return 0
		}
		start += k + 1
	}
	return 0
}

// reasonStatus is the first error status written with its own reason
// phrase, whatever stands between them — "400 - Bad Request", "503:
// Service Unavailable", "429 — Too Many Requests", "404 not found",
// aiohttp's "400, message='Bad Request'" — or 0.
// The phrase is the status's as HTTP names it, so a number that only
// happens to stand before words is none.
func reasonStatus(s string) int {
	return reasonStatusOf(s, "45")
}

// reasonStatusOf is reasonStatus for the statuses whose first digit is one
// of lead: "3" reads a redirect written with its reason phrase ("301
// Moved Permanently", "304 Not Modified").
func reasonStatusOf(s, lead string) int {
	for i := 0; i+3 <= len(s); i++ {
		if strings.IndexByte(lead, s[i]) < 0 || i > 0 && isDigitByte(s[i-1]) {
			continue
		}
		if !isDigitByte(s[i+1]) || !isDigitByte(s[i+2]) || i+3 < len(s) && isDigitByte(s[i+3]) {
			continue
		}
		n := int(s[i]-'0')*100 + int(s[i+1]-'0')*10 + int(s[i+2]-'0')
		phrase := http.StatusText(n)
		if phrase == "" {
			continue
		}
		k := i + 3
		// aiohttp's ClientResponseError: "400, message='Bad Request', url=…"
		for _, p := range [...]string{", message='", ", message=\""} {
			if strings.HasPrefix(s[k:], p) {
				k += len(p)
				break
			}
		}
		for k < len(s) && k-i-3 < 8 {
			if c := s[k]; c == ' ' || c == '\t' || c == '-' || c == ':' || c == '=' || c == '>' {
				k++
			} else if strings.HasPrefix(s[k:], "–") || strings.HasPrefix(s[k:], "—") {
				k += len("–")
			} else {
				break
			}
		}
		if k == i+3 {
			continue
		}
		// The phrase as HTTP writes it, or as a class or a constant names
		// it: Ruby's Net::HTTPNotFound, Spring's NOT_FOUND.
		rest := s[k:]
		for _, p := range [...]string{"Net::HTTP", "HTTP"} {
			if r, ok := strings.CutPrefix(rest, p); ok {
				rest = r
				break
			}
		}
		if samePhrase(rest, phrase) {
			return n
		}
	}
	return 0
}

// samePhrase reports whether s starts with phrase, compared by letters
// alone in any case, with or without the spaces between its words ("Not
// Found", "NOT_FOUND", "NotFound"); the phrase's last letter must end a
// word of s.
func samePhrase(s, phrase string) bool {
	k := 0
	for i := 0; i < len(phrase); i++ {
		c := phrase[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			continue
		}
		for k < len(s) && (s[k] == ' ' || s[k] == '_' || s[k] == '-') {
			k++
		}
		if k >= len(s) || lowerASCII(s[k]) != lowerASCII(c) {
			return false
		}
		k++
	}
	return k == len(s) || !(s[k] >= 'a' && s[k] <= 'z')
}

// statusWords reports whether s holds a word reStatusProse starts from,
// in any case: the expression runs only then.
func statusWords(s string) bool {
	return containsAnyFoldASCII(s, []string{"status", "response code", "failure", "returned", "failed with", "error code", "failed(", "failed ("})
}

// providerName reports whether name can be a provider's name as
// HTTPError.Error writes it: 2 to 40 bytes of lower-case letters, digits,
// '-', '_' and '.', starting with a letter.
func providerName(name string) bool {
	if len(name) < 2 || len(name) > 40 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// ownHTTP parses HTTPError.Error(), "openai chat.completions: HTTP 429
// code: message", anywhere in s: at its start or after ": ", a provider's
// name, an optional operation of up to 80 bytes without ':' or a newline,
// ": HTTP ", the status, an optional code, then ':' or the end. It is the
// expression `(?:^|: )([a-z][a-z0-9._-]{1,39})(?: ([^:\n]{0,80}))?: HTTP ([1-5]\d\d)(?: ([^\s:]{1,100}))?(?::|$)`
// by hand (TestOwnHTTPIsTheExpression): the regexp engine found no literal
// to start from and cost most of a classification. Any name is read (the
// caller keeps it as the provider only when it is known); the operation
// names the stage (opStage).
func ownHTTP(s string) (provider, op string, status int, code string, ok bool) {
	for from := 0; ; {
		h := strings.Index(s[from:], ": HTTP ")
		if h < 0 {
			return "", "", 0, "", false
		}
		h += from
		from = h + 1
		st := strings.LastIndex(s[:h], ": ")
		if st < 0 {
			st = 0
		} else {
			st += 2
		}
		seg := s[st:h]
		if strings.ContainsAny(seg, ":\n") {
			continue
		}
		name, op, hasOp := strings.Cut(seg, " ")
		if !providerName(name) || hasOp && len(op) > 80 {
			continue
		}
		d := h + len(": HTTP ")
		if d+3 > len(s) || s[d] < '1' || s[d] > '5' || !isDigitByte(s[d+1]) || !isDigitByte(s[d+2]) {
			continue
		}
		status = int(s[d]-'0')*100 + int(s[d+1]-'0')*10 + int(s[d+2]-'0')
		rest := s[d+3:]
		if rest == "" || rest[0] == ':' {
			return name, op, status, "", true
		}
		if rest[0] == ' ' {
			c := rest[1:]
			n := 0
			for n < len(c) && n <= 100 && c[n] != ':' && !isSpaceByte(c[n]) {
				n++
			}
			if n >= 1 && n <= 100 && (n == len(c) || c[n] == ':') {
				return name, op, status, c[:n], true
			}
		}
	}
}

// isSpaceByte is RE2's \s: space, \t, \n, \f, \r (and \v is not).
func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// hasStatusDigits reports whether s holds a run of exactly three digits
// starting with 1 to 5, which every status the text expressions find is.
func hasStatusDigits(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if c := s[i]; c >= '1' && c <= '5' && (i == 0 || !isDigitByte(s[i-1])) &&
			isDigitByte(s[i+1]) && isDigitByte(s[i+2]) && (i+3 == len(s) || !isDigitByte(s[i+3])) {
			return true
		}
	}
	return false
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// grpcJavaStatus reports whether before, the text before a status name,
// ends as grpc-java renders a Status ("io.grpc.StatusRuntimeException:
// UNKNOWN: …") or as gRPC core names the status of its last failed
// connection ("failed to connect to all addresses; last error: UNKNOWN:
// ipv4:…"): the name is gRPC's code, not one of triage's classes.
func grpcJavaStatus(before string) bool {
	return strings.HasSuffix(before, "StatusRuntimeException: ") || strings.HasSuffix(before, "StatusException: ") ||
		len(before) >= len("last error: ") && strings.EqualFold(before[len(before)-len("last error: "):], "last error: ")
}

// grpcJavaCode returns the gRPC code grpc-java writes after its status
// exception's name ("io.grpc.StatusRuntimeException: UNKNOWN: …",
// "StatusException: UNAVAILABLE: io exception"), or "".
func grpcJavaCode(s string) string {
	for _, lead := range [...]string{"StatusRuntimeException: ", "StatusException: "} {
		i := strings.Index(s, lead)
		if i < 0 {
			continue
		}
		name := s[i+len(lead):]
		if j := strings.IndexByte(name, ':'); j > 0 && j <= 20 {
			if g := name[:j]; GoogleCodes[g] != "" {
				return g
			}
		}
	}
	return ""
}

// ownClass recognises text triage's own errors produce: "CLASS: reason"
// (an *Error), "panic: …" (a recovered panic), and Go's runtime errors,
// which are always our defect.
func ownClass(s string) (Classification, bool) {
	// A class name starts the text or follows ": ", and ends it or is
	// followed by ':'. The first in the order of Classes wins.
	best := -1
	for at := 0; at < len(s); {
		end := at
		for end < len(s) && (s[end] >= 'A' && s[end] <= 'Z' || s[end] == '_') {
			end++
		}
		if end > at && (end == len(s) || s[end] == ':') && !grpcJavaStatus(s[:at]) {
			if i, ok := classIndex()[s[at:end]]; ok && (best < 0 || i < best) {
				best = i
			}
		}
		next := strings.Index(s[at:], ": ")
		if next < 0 {
			break
		}
		at += next + 2
	}
	if best >= 0 {
		c := work.Classes()[best]
		return Of(c, "error text names class "+string(c)), true
	}
	switch {
	case strings.HasPrefix(s, "panic: "), strings.Contains(s, ": panic: "):
		if upstreamPanic(s) {
			return Classification{}, false
		}
		return Of(work.InternalBug, "recovered panic (error text)"), true
	case strings.Contains(s, "runtime error: "), strings.Contains(s, "assignment to entry in nil map"):
		return Of(work.InternalBug, "runtime error (error text)"), true
	case strings.Contains(s, "' panicked at "), strings.HasPrefix(s, "fatal error: "):
		// Rust's panic ("thread 'main' panicked at …", an unwrap of an
		// error the program did not handle) and Go's fatal runtime error:
		// a program's bug, whatever error it held.
		return Of(work.InternalBug, "panic (error text)"), true
	}
	return Classification{}, false
}

// upstreamPanic reports whether a panic's text is an upstream's error that
// a program panicked with — its message starts with a code of the tables
// ("panic: AccessDeniedException: …"): the answer decides, not the panic.
func upstreamPanic(s string) bool {
	_, msg, _ := strings.Cut(s, "panic: ")
	code, _, ok := strings.Cut(msg, ":")
	if !ok || len(code) < 4 || len(code) > maxCodeLen || strings.ContainsAny(code, " \t\n") {
		return false
	}
	_, known := codeClass(false, code)
	return known
}

// classIndex maps each class name to its place in Classes.
var classIndex = sync.OnceValue(func() map[string]int {
	classes := work.Classes()
	m := make(map[string]int, len(classes))
	for i, c := range classes {
		m[string(c)] = i
	}
	return m
})

// hostProvider names the provider of the first URL in s whose host says.
func hostProvider(s string) Provider {
	if !strings.Contains(s, "://") {
		return ""
	}
	for _, m := range reHost().FindAllStringSubmatch(s, 4) {
		host := strings.ToLower(m[1])
		switch {
		case host == "api.openai.com":
			return OpenAI
		case strings.HasSuffix(host, ".openai.azure.com"), strings.HasSuffix(host, ".cognitiveservices.azure.com"),
			strings.HasSuffix(host, ".services.ai.azure.com"):
			return Azure
		case host == "api.anthropic.com":
			return Anthropic
		case host == "generativelanguage.googleapis.com":
			return Gemini
		case strings.HasSuffix(host, "aiplatform.googleapis.com"):
			return Vertex
		case modelHosts[host] != "":
			return modelHosts[host]
		case strings.HasPrefix(host, "bedrock-runtime.") || strings.HasPrefix(host, "bedrock-agent-runtime.") ||
			strings.HasPrefix(host, "bedrock.") && strings.HasSuffix(host, ".amazonaws.com"):
			return Bedrock
		case host == "hooks.slack.com", host == "discord.com", host == "discordapp.com",
			strings.HasSuffix(host, ".webhook.office.com"), host == "hooks.zapier.com":
			return Webhook
		case strings.HasSuffix(host, ".amazonaws.com"):
			return AWS
		}
	}
	return ""
}

// modelHosts are the API hosts of OpenAI-compatible model vendors.
var modelHosts = map[string]Provider{
	"api.groq.com": "groq", "api.deepseek.com": "deepseek", "api.mistral.ai": "mistral", "api.together.xyz": "together",
	"api.together.ai": "together", "api.fireworks.ai": "fireworks", "openrouter.ai": "openrouter", "api.x.ai": "xai",
	"api.perplexity.ai": "perplexity", "api.cohere.ai": "cohere", "api.cohere.com": "cohere", "api.cerebras.ai": "cerebras",
	"api.sambanova.ai": "sambanova", "api.deepinfra.com": "deepinfra", "integrate.api.nvidia.com": "nvidia",
	"api.moonshot.ai": "moonshot", "api.moonshot.cn": "moonshot", "dashscope.aliyuncs.com": "dashscope",
	"api-inference.huggingface.co": "huggingface", "router.huggingface.co": "huggingface", "api.replicate.com": "replicate",
}

// sdkNamespaces are the places the AWS SDKs name the service an error
// came from: the JavaScript v3 client's package in a stack
// ("@aws-sdk/client-bedrock-runtime/dist-cjs/index.js"), the Java v2
// SDK's package ("software.amazon.awssdk.services.sqs.model.…") and the
// .NET SDK's namespace ("Amazon.BedrockRuntime.Model.ValidationException",
// "Amazon.SQS.AmazonSQSException").
var sdkNamespaces = [...]string{"@aws-sdk/client-", "software.amazon.awssdk.services.", "Amazon."}

// sdkService is the service an AWS SDK's namespace in s names, or "".
func sdkService(s string) string {
	for _, ns := range sdkNamespaces {
		for from := 0; ; {
			i := strings.Index(s[from:], ns)
			if i < 0 {
				break
			}
			i += from
			from = i + len(ns)
			if i > 0 && (isCodeByte(s[i-1]) || s[i-1] == '.') {
				continue
			}
			j := from
			for j < len(s) && (isCodeByte(s[j]) && s[j] != '.' || s[j] == '-') {
				j++
			}
			svc := s[from:j]
			if svc == "" || j >= len(s) || (s[j] != '.' && s[j] != '/') {
				continue
			}
			if ns == "Amazon." && (svc == "Runtime" || svc == "Util" || !(svc[0] >= 'A' && svc[0] <= 'Z')) {
				continue // the SDK's own plumbing (Amazon.Runtime.Internal), or prose
			}
			return svc
		}
	}
	return ""
}

// serviceProvider is Bedrock for a Bedrock service id, AWS otherwise.
func serviceProvider(service string) Provider {
	if lastIndexFoldASCII(service, "BEDROCK") >= 0 {
		return Bedrock
	}
	return AWS
}

// afterHash strips an AWS JSON protocol namespace:
// "com.amazonaws.dynamodb.v20120810#ThrottlingException" → "ThrottlingException";
// and a query protocol's ":http://…" suffix.
func afterHash(code string) string {
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if i := strings.IndexByte(code, ':'); i >= 0 {
		code = code[:i]
	}
	return code
}

// maxBodiesInText bounds the '{' a text is searched from for a body.
const maxBodiesInText = 4

// body reads the first JSON or Python-literal object in s that says
// something (an SDK that prints the body, a Python dict): its codes and its
// message.
func (t *textEvidence) body(s string) {
	from := 0
	for range maxBodiesInText {
		i := strings.IndexByte(s[from:], '{')
		if i < 0 {
			return
		}
		start := from + i
		sc := scanner{buf: []byte(s[start:]), lenient: true}
		sc.object(ctxRoot, 0) // a body cut short still says what it said before the cut
		if sc.d != (detail{}) {
			d := sc.d
			if m := strings.TrimSpace(d.Message); len(m) > 1 && (m[0] == '{' || m[0] == '[') {
				// a proxy's error whose message is the upstream's body
				if inner, ok := parseBodyDepth("", []byte(m), 1); ok {
					d = inner.under(d)
				}
			}
			for _, c := range d.codes() {
				t.addCode(afterHash(c))
			}
			t.addCode(sc.name)
			if t.message == "" {
				t.message = d.Message
			}
			t.detail, t.bodyOK, t.model = d, true, d.Model
			return
		}
		from = start + 1
	}
}

// words adds every word of s that is a code the tables know: an AWS code
// (CamelCase or dotted, as the SDKs of every language print them), a
// provider code with an underscore ("insufficient_quota"), a Google status
// ("RESOURCE_EXHAUSTED"), or the name of an SDK's error ("RateLimitError",
// "openai.AuthenticationError"), which stands for its status.
func (t *textEvidence) words(s string) {
	for i := 0; i < len(s) && t.n < len(t.codes); {
		if !isCodeByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isCodeByte(s[j]) {
			j++
		}
		start := i
		if k := hyphenEnd(s, j); k > j {
			// a code whose parts are joined by '-' (Rocket.Chat's
			// "[error-not-allowed]"): the whole word, when a table knows it
			if hw := s[i:k]; len(hw) <= maxCodeLen && tableCode(hw) {
				t.addCode(hw)
				i = k
				continue
			}
		}
		w := strings.TrimRight(afterHash(s[i:j]), ".")
		i = j
		if len(w) < 6 || len(w) > maxCodeLen {
			continue
		}
		if ambiguousWords[w] {
			continue
		}
		if tableCode(w) {
			t.addCode(w)
			continue
		}
		if c := snakeProviderCode(s[max(0, start-40):start], w); c != "" {
			// An SDK's error class named after the provider's code:
			// Slack::Web::Api::Errors::InvalidBlocks is invalid_blocks.
			t.addCode(c)
			continue
		}
		if g := googleName(w); g != "" {
			t.addCode(g) // gRPC's and google-api-core's ResourceExhausted
			continue
		}
		// "openai.RateLimitError", "litellm.InternalServerError": an SDK's
		// error, which stands for its status (an AWS code of the same name
		// is an AWS code only undotted); StatusCode.RESOURCE_EXHAUSTED
		if k := strings.LastIndexByte(w, '.'); k >= 0 && len(w)-k-1 >= 6 {
			last := w[k+1:]
			if st, ok := CodeStatuses[last]; ok && camelCode(last) {
				if t.status == 0 {
					t.status = st
				}
			} else if tableCode(last) {
				t.addCode(last)
			}
		}
	}
}

// awsCode reports whether code is an AWS code, in any of the spellings
// codeClass reads (an SDK's error name such as RateLimitError is not).
func awsCode(code string) bool {
	if !camelCode(code) {
		return false
	}
	if _, ok := AWSCodes[code]; ok {
		return true
	}
	up := code
	if b := code[0]; b >= 'a' && b <= 'z' {
		up = string(b-('a'-'A')) + code[1:]
	}
	if base, ok := strings.CutSuffix(up, "Exception"); ok {
		_, found := AWSCodes[base]
		_, same := AWSCodes[up]
		return found || same
	}
	_, plain := AWSCodes[up]
	_, exc := AWSCodes[up+"Exception"]
	return plain || exc
}

// ambiguousWords are codes of the tables that are also ordinary words of
// an error's text ("UNKNOWN error"): read in a body's status, not in prose.
var ambiguousWords = map[string]bool{"UNKNOWN": true, "INTERNAL": true, "ABORTED": true, "CANCELLED": true}

// googleName returns the Google status a CamelCase name of two or more
// words spells ("ResourceExhausted" is RESOURCE_EXHAUSTED, as gRPC's
// "rpc error: code = ResourceExhausted" and google-api-core's exceptions
// write it), or "".
func googleName(w string) string {
	if len(w) > 40 || !camelCode(w) || w[0] < 'A' || w[0] > 'Z' || strings.IndexByte(w, '.') >= 0 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' && i > 0 {
			b.WriteByte('_')
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
	}
	g := b.String()
	if _, ok := GoogleCodes[g]; ok && strings.IndexByte(g, '_') > 0 {
		return g
	}
	if _, ok := CodeStatuses[g]; ok && strings.IndexByte(g, '_') > 0 {
		return g
	}
	return ""
}

// tableCode reports whether w is a code the tables know, spelt as a word of
// an error's text.
func tableCode(w string) bool {
	switch {
	case strings.IndexByte(w, '_') >= 0, strings.IndexByte(w, '-') >= 0:
		_, ok := ProviderCodes[w]
		_, google := GoogleCodes[w]
		_, status := CodeStatuses[w]
		return ok || google || status || GenericCodes[w]
	case camelCode(w):
		if _, ok := codeClass(false, w); ok {
			return true
		}
		_, status := CodeStatuses[w]
		return status
	case upperSnake(w):
		_, google := GoogleCodes[w]
		return google
	}
	return false
}

// hyphenEnd returns where the word that ends at j ends when its parts go
// on joined by '-' ("error-not-allowed"), or j.
func hyphenEnd(s string, j int) int {
	k := j
	for k+1 < len(s) && s[k] == '-' && isCodeByte(s[k+1]) {
		k++
		for k < len(s) && isCodeByte(s[k]) {
			k++
		}
	}
	return k
}

func isCodeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '#'
}

// lowerASCII lowers an ASCII capital letter.
func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// snakeProviderCode returns the provider code (ProviderCodes) that the last
// part of an SDK's error class spells in snake case —
// "Slack::Web::Api::Errors::InvalidBlocks" and "slack.errors.ChannelNotFound"
// give invalid_blocks and channel_not_found — or "".
func snakeProviderCode(before, w string) string {
	// The module is the dotted part of the word (slack.errors.NotFound)
	// or, for Ruby's "::", the text just before it.
	path := before
	if k := strings.LastIndexByte(w, '.'); k >= 0 {
		path, w = w[:k+1], w[k+1:]
	}
	if len(w) < 6 || len(w) > 40 || w[0] < 'A' || w[0] > 'Z' || !camelCode(w) ||
		strings.HasSuffix(w, "Error") || strings.HasSuffix(w, "Exception") {
		return ""
	}
	// Only in an SDK's errors module (Errors::, .errors., Exceptions::),
	// and not a generic name that ends as one (ApiError).
	module := strings.TrimRight(path, ".:")
	if len(module) == len(path) {
		return "" // no separator right before the name
	}
	if j := strings.LastIndexAny(module, ".: \t\n"); j >= 0 {
		module = module[j+1:]
	}
	switch strings.ToLower(module) {
	case "errors", "error", "exceptions":
	default:
		return ""
	}
	var buf [48]byte
	b := buf[:0]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b = append(b, '_')
			}
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	if _, ok := ProviderCodes[string(b)]; ok {
		return string(b)
	}
	return ""
}

// httpStatus reports whether n is a status HTTP names, one the common
// servers and proxies answer with (nginx's 499, Cloudflare's 520–530,
// Anthropic's 529), or an SMTP reply SMTPReplies reads.
func httpStatus(n int) bool {
	_, smtp := SMTPReplies[n]
	return http.StatusText(n) != "" || smtp || n == 499 || n >= 520 && n <= 530 || n == 598 || n == 599
}

// labelledCode reports whether s labels an error status "code=",
// "status=", "error=", "err=" or "error_message=" — a log's "code=400 …
// [details: EOF]", a router's "… status=503", apprise's "…, error=400.",
// an Android log's "error_message=403".
func labelledCode(s string) bool {
	for _, label := range [...]string{"code=", "status=", "error=", "err=", "error_message=", "errorMessage=", "error_msg="} {
		if labelled(s, label) {
			return true
		}
	}
	return false
}

func labelled(s, label string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], label)
		if i < 0 {
			return false
		}
		k := from + i + len(label)
		from = k
		if k+3 <= len(s) && (s[k] == '4' || s[k] == '5') && isDigitByte(s[k+1]) && isDigitByte(s[k+2]) && (k+3 == len(s) || !isDigitByte(s[k+3])) {
			return true
		}
	}
	return false
}
