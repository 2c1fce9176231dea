package failure_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// designDefaults is the table of docs/design.md "Defaults by role", written
// out here independently of defaults.go: a status, then the class for a
// model endpoint, a source, a webhook, AWS and an unknown upstream.
var designDefaults = map[int][5]work.Class{
	400: {ce, si, si, ib, si}, 405: {ce, si, si, ib, si}, 406: {ce, si, si, ib, si}, 411: {ce, si, si, ib, si},
	412: {ce, si, si, ib, si}, 414: {ce, si, si, ib, si}, 418: {ce, si, si, ib, si}, 421: {ce, si, si, ib, si},
	422: {ce, si, si, ib, si}, 426: {ce, si, si, ib, si}, 428: {ce, si, si, ib, si}, 431: {ce, si, si, ib, si},
	444: {ce, si, si, ib, si}, 498: {ce, si, si, ib, si},
	401: {ad, ad, ad, ad, ad}, 403: {ad, ad, ad, ad, ad}, 407: {ad, ad, ad, ad, ad}, 511: {ad, ad, ad, ad, ad},
	402: {be, be, be, be, be},
	404: {ce, nf, nf, nf, nf}, 410: {ce, nf, nf, nf, nf},
	301: {ib, nf, nf, ib, nf}, 302: {ib, nf, nf, ib, nf}, 307: {ib, nf, nf, ib, nf}, 308: {ib, nf, nf, ib, nf},
	408: {nt, nt, nt, nt, nt}, 499: {nt, nt, nt, nt, nt}, 522: {nt, nt, nt, nt, nt}, 524: {nt, nt, nt, nt, nt},
	598: {nt, nt, nt, nt, nt}, 599: {nt, nt, nt, nt, nt},
	409: {cf, cf, cf, cf, cf},
	413: {tl, si, si, ib, si},
	429: {rl, rl, rl, rl, rl},
	451: {cp, cp, cp, cp, cp},
	424: {uu, uu, uu, uu, uu}, 425: {uu, uu, uu, uu, uu},
	500: {uu, uu, uu, uu, uu}, 502: {uu, uu, uu, uu, uu}, 503: {uu, uu, uu, uu, uu}, 504: {uu, uu, uu, uu, uu},
	507: {uu, uu, uu, uu, uu}, 509: {uu, uu, uu, uu, uu}, 520: {uu, uu, uu, uu, uu}, 529: {uu, uu, uu, uu, uu},
	530: {uu, uu, uu, uu, uu}, 550: {uu, uu, uu, uu, uu},
	501: {ce, si, si, ib, si}, 505: {ce, si, si, ib, si},
}

const (
	rl = work.RateLimited
	be = work.BudgetExceeded
	nt = work.NetworkTimeout
	uu = work.UpstreamUnavailable
	cf = work.Conflict
	si = work.SchemaInvalid
	ad = work.AuthDenied
	nf = work.NotFound
	cp = work.ContentPolicy
	tl = work.TokenLimit
	ce = work.ClientError
	ib = work.InternalBug
)

// roleErr is an HTTP answer with no body from an upstream of role r, as
// the stages and the CLI describe one: a model endpoint named by a vendor
// triage knows only by name, an article host at fetch, a webhook at
// notify, AWS, and an upstream nothing names.
func roleErr(r failure.Role, status int) error {
	switch r {
	case failure.RoleModel:
		return &failure.HTTPError{Provider: "groq", Status: status}
	case failure.RoleSource:
		return &failure.HTTPError{Provider: failure.HTTP, Stage: work.Fetch, Op: "GET article", Status: status}
	case failure.RoleWebhook:
		return &failure.HTTPError{Provider: "slack", Stage: work.Notify, Status: status}
	case failure.RoleAWS:
		return &failure.Evidence{Provider: failure.AWS, Status: status}
	}
	return &failure.Evidence{Provider: "acme", Status: status}
}

// TestRoleDefaultsAreTheDesignTable holds failure.RoleDefaults, and what
// Classify makes of a bare status from each role, to docs/design.md.
func TestRoleDefaultsAreTheDesignTable(t *testing.T) {
	t.Parallel()
	for status, want := range designDefaults {
		for i, r := range failure.Roles() {
			t.Run(fmt.Sprint(r, " ", status), func(t *testing.T) {
				t.Parallel()
				if got, _ := failure.DefaultClass(r, status); got != want[i] {
					t.Errorf("DefaultClass = %s, docs/design.md says %s", got, want[i])
				}
				c := failure.Classify(roleErr(r, status))
				if c.Class != want[i] || !c.Default {
					t.Errorf("Classify = %s (%s) default=%v, want %s, a default", c.Class, c.Reason, c.Default, want[i])
				}
				if c.ModelSpecific && r != failure.RoleModel {
					t.Errorf("%s from a %s upstream is model-specific", c.Class, r)
				}
			})
		}
	}
	// A 2xx decides nothing, from anyone.
	for _, r := range failure.Roles() {
		if c := failure.Classify(roleErr(r, 200)); c.Class != work.Unknown || !c.Default {
			t.Errorf("%s 200: %s default=%v", r, c.Class, c.Default)
		}
	}
}

func TestRoleOf(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		p      failure.Provider
		stage  work.Stage
		shaped bool
		want   failure.Role
	}{
		"a vendor's name says it":             {p: "deepseek", want: failure.RoleModel},
		"vertex at fetch is still a model":    {p: "vertex_ai", stage: work.Fetch, want: failure.RoleModel},
		"a webhook's name beats the stage":    {p: "discord", stage: work.LLM, want: failure.RoleWebhook},
		"aws at the llm stage is aws":         {p: failure.AWS, stage: work.LLM, want: failure.RoleAWS},
		"an unknown name at llm is a model":   {p: "acme-llm", stage: work.LLM, want: failure.RoleModel},
		"an unknown name at fetch a source":   {p: "acme-cdn", stage: work.Fetch, want: failure.RoleSource},
		"http at notify is a webhook":         {p: failure.HTTP, stage: work.Notify, want: failure.RoleWebhook},
		"an answer's shape, with no stage":    {p: "acme", shaped: true, want: failure.RoleModel},
		"nothing says":                        {p: "acme", want: failure.RoleUnknown},
		"no name at all, at the llm stage":    {stage: work.LLM, want: failure.RoleModel},
		"names fold: Together_AI is together": {p: "Together_AI", want: failure.RoleModel},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := failure.RoleOf(tc.p, tc.stage, tc.shaped); got != tc.want {
				t.Errorf("RoleOf(%q, %q, %v) = %s, want %s", tc.p, tc.stage, tc.shaped, got, tc.want)
			}
		})
	}
}

// TestModelWordsRefineA4xx: at a model endpoint the words of a 4xx with no
// code triage knows say what it is; the same words from a webhook leave
// the webhook's default. The messages are providers' own (sources in
// cmd/triage/testdata/corpus).
func TestModelWordsRefineA4xx(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		status int
		msg    string
		want   work.Class
	}{
		"cohere: too many tokens":           {400, "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 5000. Try using a shorter prompt", tl},
		"cerebras: current length":          {400, "Please reduce the length of the messages or completion. Current length is 9000 while limit is 8192", tl},
		"tgi: inputs tokens":                {422, "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`", tl},
		"payload size":                      {400, "Request payload size exceeds the limit: 20971520 bytes.", tl},
		"a key nobody worded so":            {400, "The API key you supplied has been revoked.", ad},
		"region":                            {400, "Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.", be},
		"a suspended account":               {403, "Your organization has been suspended for violating our terms.", ad},
		"moderation":                        {400, "Input was flagged by our moderation endpoint.", cp},
		"unsafe content":                    {400, "Request blocked: the prompt was classified as unsafe.", cp},
		"credits":                           {400, "You have run out of credits. Please top up to continue.", be},
		"a monthly quota":                   {429, "Monthly quota exceeded for this API key.", be},
		"a per-minute quota":                {429, "Quota exceeded: requests per minute for this key.", rl},
		"concurrency":                       {429, "Too many concurrent requests for this model.", rl},
		"capacity":                          {429, "Service tier capacity exceeded for this model.", rl},
		"a parameter keeps its 400":         {400, "Invalid value for 'safety_settings[0].threshold': expected one of BLOCK_NONE", ce},
		"max_tokens is a parameter":         {400, "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-opus-4", ce},
		"a parameter keeps a 429 a rate":    {429, "Unsupported parameter 'top_k' is ignored; you are over your rate", rl},
		"402 is money whatever it says":     {402, "This request requires more credits, or fewer max_tokens.", be},
		"nothing known: the model's 4xx":    {422, "Unprocessable request.", ce},
		"a 5xx is not refined by its words": {503, "Quota service unavailable", uu},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := failure.Classify(modelAnswer(tc.status, tc.msg))
			if c.Class != tc.want {
				t.Errorf("class = %s (%s), want %s", c.Class, c.Reason, tc.want)
			}
			if strings.Contains(c.Reason, tc.msg) {
				t.Errorf("reason %q holds the message", c.Reason)
			}
			// A webhook's answer with the same words gets its own default.
			w := failure.Classify(&failure.HTTPError{Provider: failure.Webhook, Stage: work.Notify, Status: tc.status,
				Body: []byte(`{"message":` + quote(tc.msg) + `}`)})
			if def, _ := failure.DefaultClass(failure.RoleWebhook, tc.status); w.ModelSpecific || w.Class == work.ClientError ||
				w.Class != def && w.Default {
				t.Errorf("webhook: %s (%s), its default is %s", w.Class, w.Reason, def)
			}
		})
	}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// modelAnswer is the answer of a model endpoint triage knows only by name
// ("acme"), msg in its error body; with status 0, msg is a failure's text
// with no answer.
func modelAnswer(status int, msg string) error {
	if status == 0 {
		return &failure.Evidence{Provider: "acme", Stage: work.LLM, Text: msg}
	}
	body := `{"error":{"message":` + quote(msg) + `,"type":"invalid_request_error"}}`
	return &failure.HTTPError{Provider: "acme", Stage: work.LLM, Status: status, Body: []byte(body)}
}

// TestQuotaPeriod: a rate limit or quota is read by how long it lasts
// (docs/design.md "Defaults by role"): retried within the hour it is
// RATE_LIMITED, per day or with a limit of 0 BUDGET_EXCEEDED; money stays
// money whatever it says about time.
func TestQuotaPeriod(t *testing.T) {
	t.Parallel()
	geminiFree := `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.0-flash\nPlease retry in 21.3s.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"21s"}]}}`
	geminiZero := strings.Replace(geminiFree, "limit: 10", "limit: 0", 1)
	geminiDay := `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}`
	groqDay := `{"error":{"message":"Rate limit reached for model ` + "`llama-3.3-70b-versatile`" + ` in organization ` + "`org_0`" + ` service tier ` + "`on_demand`" + ` on tokens per day (TPD): Limit 100000, Used 97050, Requested 3619. Please try again in 9m38.016s.","type":"tokens","code":"rate_limit_exceeded"}}`
	for name, tc := range map[string]struct {
		err       error
		want      work.Class
		requested time.Duration
	}{
		"gemini free tier per minute: retry in 21s": {httpErr(failure.Gemini, 429, geminiFree), rl, 21 * time.Second},
		"gemini limit 0: the plan has none":         {httpErr(failure.Gemini, 429, geminiZero), be, 21 * time.Second},
		"gemini per day":                            {httpErr(failure.Gemini, 429, geminiDay), be, 0},
		"groq per day, back in 9m38s":               {httpErr("groq", 429, groqDay), rl, 9*time.Minute + 38016*time.Millisecond},
		"openrouter free models per day": {httpErr("openrouter", 429,
			`{"error":{"message":"Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day","code":429}}`), be, 0},
		"vertex per minute": {errors.New("google.api_core.exceptions.ResourceExhausted: 429 Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-pro. Please submit a quota increase request."), rl, 0},
		"openai insufficient_quota is money, Retry-After or not": {httpErr(failure.OpenAI, 429, openAIQuota, "Retry-After", "20"), be, 20 * time.Second},
		"a plain 429 stays a rate limit":                         {httpErr("acme", 429, ""), rl, 0},
		"gemini quota spent, no window reopens": {httpErr(failure.Gemini, 429,
			`{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}`), be, 0},
		"vertex capacity is no spent quota": {httpErr(failure.Vertex, 429,
			`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`), rl, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := failure.Classify(tc.err)
			if c.Class != tc.want {
				t.Errorf("class = %s (%s), want %s", c.Class, c.Reason, tc.want)
			}
			if got := c.Requested.Resolve(time.Time{}); got != tc.requested {
				t.Errorf("requested = %v (%s), want %v", got, c.Requested.Source, tc.requested)
			}
		})
	}
}

func TestProseDelay(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]time.Duration{
		"Please try again in 59.977s. Visit https://x":                     59977 * time.Millisecond,
		"Please try again in 644ms.":                                       644 * time.Millisecond,
		"Please retry after 2 seconds":                                     2 * time.Second,
		"Please retry after 6 seconds. Please go here: https://aka.ms/oai": 6 * time.Second,
		"try again in 1m30s":                                               90 * time.Second,
		"Please try again in 2m59.56s.":                                    2*time.Minute + 59560*time.Millisecond,
		"retry in 1 minute":                                                time.Minute,
		"wait 0.5 hours":                                                   30 * time.Minute,
		"Please retry in 35.577423945s.":                                   35577 * time.Millisecond,
		"quota resets in 2 minutes and 30 seconds":                         150 * time.Second,
		"available in 3 hrs":                                               3 * time.Hour,
		"RETRY AFTER 30.":                                                  30 * time.Second,
		"please wait at least 5 sec":                                       5 * time.Second,
		"Retry-After: 12":                                                  12 * time.Second,
		"try again in 400 days":                                            failure.MaxRequestedDelay,
		"Pause requests, wait up to one minute, and try again.":            time.Minute,
		"Please retry in an hour":                                          time.Hour,
		"wait ten seconds":                                                 10 * time.Second,
		"Too many requests, wait a minute":                                 time.Minute,
		"Too many requests. Try waiting 2 minutes before submitting again": 2 * time.Minute,
		"Rate limit hit; please try waiting about 30 seconds":              30 * time.Second,
	} {
		if got, ok := failure.ProseDelay(s); !ok || got != want {
			t.Errorf("ProseDelay(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{
		"Please wait before trying again.", "retry after 3 attempts", "try again later", "awaiting 5s",
		"retry after 2026-05-01T00:00:00Z", "available in 2 regions", "waiting 5s", "",
		"rate limited; waiting 32 seconds before retrying",
		"API Error (429) · Retrying in 32 seconds… (attempt 7/10)",
		"Retrying langchain_google_genai.chat_models._achat_with_retry in 2.0 seconds as it raised ResourceExhausted",
		"try again in " + strings.Repeat("9", 40) + "s",
		// Control bytes are not the phrase's punctuation: folding case
		// (| 0x20) would read \r as '-' and \x1a as ':'.
		"please retry\rafter\x1a 5s", "retry\rafter: 5",
		// A number followed by a word in any script is a count of
		// something, not bare seconds: "500 µs" is not 500 s.
		"try again in 500 µs", "retry after 5 分钟",
		// A unit is a whole word: a letter in any script after its
		// prefix makes it another word ("2 mé", "5 sé", "3 hé").
		"retry in 2 mé", "try again in 5 sécondes", "wait 3 hé", "retry after 1 dí",
		// A comma between digits groups them: not "1" ending a clause.
		"Please retry after 1,800 seconds",
		// A number in words is read only before its unit.
		"wait a moment", "try again in a few minutes", "retry after one.", "wait one more time",
	} {
		if got, ok := failure.ProseDelay(s); ok {
			t.Errorf("ProseDelay(%q) = %v, want none", s, got)
		}
	}
}

// TestErrorBodiesByShape: an unknown provider's error is read as well as a
// known one's, whatever its shape (docs/design.md "Dialects").
func TestErrorBodiesByShape(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		status    int
		body      string
		want      work.Class
		code      string
		requested time.Duration
	}{
		"google error with RetryInfo": {429, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`,
			rl, "RESOURCE_EXHAUSTED", 3 * time.Second},
		"google ErrorInfo reason": {400, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`,
			ad, "API_KEY_INVALID", 0},
		"a stream's error array": {503, `[{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}]`, uu, "UNAVAILABLE", 0},
		"a proxy's error around the upstream's body": {429, `{"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n","code":429,"status":"Too Many Requests"}}`,
			rl, "RESOURCE_EXHAUSTED", 0},
		"fastapi detail":          {401, `{"detail":"Invalid authentication credentials"}`, ad, "", 0},
		"fastapi validation list": {422, `{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]}`, ce, "value_error.missing", 0},
		"an errors list":          {403, `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}],"messages":[],"result":null}`, ad, "10000", 0},
		"vllm's flat error": {400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}`,
			tl, "BadRequestError", 0},
		"mistral's rate_limited type": {429, `{"object":"error","message":"Rate limit exceeded","type":"rate_limited","param":null,"code":"1300","raw_status_code":429}`, rl, "rate_limited", 0},
		"a generic type on a 404":     {404, `{"error":{"message":"model \"llama3\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, ce, "api_error", 0},
		"retry_after_ms":              {429, `{"error":{"message":"slow down","retry_after_ms":1500}}`, rl, "", 1500 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := &failure.HTTPError{Provider: "acme", Stage: work.LLM, Status: tc.status, Body: []byte(tc.body)}
			c := failure.Classify(err)
			if c.Class != tc.want || c.Code != tc.code {
				t.Errorf("class %s code %q (%s), want %s code %q", c.Class, c.Code, c.Reason, tc.want, tc.code)
			}
			if got := c.Requested.Resolve(time.Time{}); got != tc.requested {
				t.Errorf("requested = %v, want %v", got, tc.requested)
			}
			if text := failure.Classify(errors.New(err.Error())); text.Class != c.Class {
				t.Errorf("as text (%q): %s (%s)", err.Error(), text.Class, text.Reason)
			}
		})
	}
}

// TestErrorsInText: the SDKs' and clients' printed errors say what their
// typed errors do.
func TestErrorsInText(t *testing.T) {
	t.Parallel()
	classifiesAs(t, errors.New, map[string]work.Class{
		"Error code: 429 - {'error': {'message': 'Rate limit reached for model `llama3-70b-8192` in organization `org_0` on tokens per minute (TPM): Limit 7000, Used 0, Requested ~12903. Please try again in 50.597142857s.', 'type': 'tokens', 'code': 'rate_limit_exceeded'}}": rl,
		`Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}`:                                                                                                                 rl,
		"openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided', 'type': 'invalid_request_error', 'code': 'invalid_api_key'}}":                                                                                                           ad,
		"litellm.RateLimitError: RateLimitError: GroqException - You exceeded your current quota, please check your plan and billing details.":                                                                                                                                     be,
		"openai.RateLimitError: Error code: 429": rl,
		"rpc error: code = ResourceExhausted desc = Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: textembedding-gecko.":                   rl,
		"rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing\"":                                                                                          uu,
		"google.api_core.exceptions.PermissionDenied: 403 Permission denied on resource project my-project.":                                                                                        ad,
		"API error occurred: Status 429 Content-Type application/json Body \n{\"object\":\"error\",\"message\":\"Rate limit exceeded\",\"type\":\"rate_limited\",\"param\":null,\"code\":\"1300\"}": rl,
		"402 Insufficient Balance":  be,
		"an UNKNOWN error occurred": work.Unknown,
	})
}

// TestModelWordsWithoutAStatus: a model endpoint's words decide when no
// status does, the shield's (a model that is not there) included.
func TestModelWordsWithoutAStatus(t *testing.T) {
	t.Parallel()
	classifiesAs(t, func(text string) error { return &failure.Evidence{Provider: "ollama", Text: text} }, map[string]work.Class{
		"ollama._types.ResponseError: model 'llama2' not found, try pulling it first": ce,
		"The API key you supplied has been revoked.":                                  ad,
		"Input was flagged by our moderation endpoint.":                               cp,
	})
}

// TestStageIsEvidence: the stage that met a failure says the role of an
// upstream its name does not, typed and as text alike.
func TestStageIsEvidence(t *testing.T) {
	t.Parallel()
	for _, st := range []work.Stage{work.Fetch, work.LLM, work.Notify, ""} {
		for _, p := range []failure.Provider{"acme", failure.HTTP} {
			for _, status := range []int{400, 404, 413, 422, 301, 501} {
				err := &failure.HTTPError{Provider: p, Stage: st, Status: status}
				typed := failure.Classify(err)
				want, _ := failure.DefaultClass(failure.RoleOf(p, st, false), status)
				if typed.Class != want {
					t.Errorf("%s at %q, %d: %s, want %s", p, st, status, typed.Class, want)
				}
				if text := failure.Classify(errors.New(err.Error())); text.Class != typed.Class {
					t.Errorf("%q: text %s, typed %s", err.Error(), text.Class, typed.Class)
				}
				ev := &failure.Evidence{Provider: p, Stage: st, Status: status}
				if c := failure.Classify(ev); c.Class != want {
					t.Errorf("evidence %s at %q, %d: %s, want %s", p, st, status, c.Class, want)
				}
			}
		}
	}
}

// TestFactsOf: the facts an operator rule matches are the classifier's.
func TestFactsOf(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("enrich: %w", &failure.HTTPError{Provider: "acme", Stage: work.LLM, Op: "chat.completions", Status: 429,
		Body: []byte(`{"error":{"code":"E_SLOWDOWN","message":"slow down please","type":"throttle"}}`)})
	f := failure.FactsOf(err)
	if f.Provider != "acme" || f.Dialect != failure.OpenAI || f.Role != failure.RoleModel || f.Stage != work.LLM || f.Status != 429 ||
		len(f.Codes) != 2 || f.Codes[0] != "E_SLOWDOWN" || f.Codes[1] != "throttle" || f.Message != "slow down please" ||
		!strings.Contains(f.Body, "E_SLOWDOWN") || f.Text != err.Error() {
		t.Errorf("facts = %+v", f)
	}
	text := failure.FactsOf(errors.New("operation error DynamoDB: PutItem, https response error StatusCode: 400, RequestID: R, api error ThrottlingException: Rate exceeded"))
	if text.Provider != failure.AWS || text.Role != failure.RoleAWS || text.Status != 400 || len(text.Codes) == 0 || text.Codes[0] != "ThrottlingException" {
		t.Errorf("facts of a text = %+v", text)
	}
	if f := failure.FactsOf(nil); f.Role != failure.RoleUnknown || f.Text != "" {
		t.Errorf("facts of nil = %+v", f)
	}
	long := failure.FactsOf(errors.New(strings.Repeat("é", failure.MaxFactsText)))
	if len(long.Text) > failure.MaxFactsText || !strings.HasSuffix(long.Text, "é") {
		t.Errorf("a long text is not cut on a rune boundary within the bound: %d bytes", len(long.Text))
	}
}

// operatorProvider is the provider only TestOperatorRule's rule matches,
// so the rule it installs changes nothing for the tests running beside it.
const operatorProvider = "operator-test-acme"

// TestOperatorRule: a rule installed with SetOperatorRule decides before
// the tables, for Classify, a marked failure and a wrapped one alike; what it decides is
// checked and completed.
func TestOperatorRule(t *testing.T) {
	rule := failure.RuleFunc(func(err error) (failure.Classification, bool) {
		f := failure.FactsOf(err)
		if f.Provider != operatorProvider {
			return failure.Classification{}, false
		}
		for _, c := range f.Codes {
			switch c {
			case "E_SLOWDOWN":
				c := failure.ByRule("acme-slowdown", work.RateLimited, 90*time.Second)
				c.Retryable = false // a rule cannot change a class's traits
				return c, true
			case "E_BOGUS":
				return failure.Classification{Class: "BOGUS", Reason: "rule bogus"}, true
			case "E_UNNAMED":
				return failure.Classification{Class: work.AuthDenied, Reason: "unnamed"}, true
			}
		}
		return failure.Classification{}, false
	})
	prev := failure.SetOperatorRule(rule)
	t.Cleanup(func() { failure.SetOperatorRule(prev) })
	if failure.OperatorRule() == nil {
		t.Fatal("OperatorRule() is nil after SetOperatorRule")
	}
	body := func(code string) []byte { return []byte(`{"error":{"code":"` + code + `","message":"x"}}`) }
	slow := &failure.HTTPError{Provider: operatorProvider, Stage: work.LLM, Status: 400, Body: body("E_SLOWDOWN"),
		Header: http.Header{"Retry-After": {"5"}}}
	for name, c := range map[string]failure.Classification{
		"Classify": failure.Classify(slow), "Mark": failure.Classify(failure.Mark(slow)), "wrapped": failure.Classify(fmt.Errorf("w: %w", slow)),
	} {
		if c.Class != work.RateLimited || !c.Retryable || !c.Counts || c.Reason != "rule acme-slowdown" || c.Default ||
			c.Provider != operatorProvider || c.Status != 400 || c.Code != "E_SLOWDOWN" || c.Requested.Delay != 90*time.Second {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if c := failure.Classify(&failure.HTTPError{Provider: operatorProvider, Status: 400, Body: body("E_BOGUS")}); c.Reason == "rule bogus" {
		t.Errorf("a rule's invalid class was taken: %+v", c)
	}
	if c := failure.Classify(&failure.HTTPError{Provider: operatorProvider, Status: 400, Body: body("E_UNNAMED")}); c.Class != work.AuthDenied ||
		c.Reason != "rule unnamed" {
		t.Errorf("a rule's reason does not name it: %+v", c)
	}
	// Everything else goes on to the tables.
	if c := failure.Classify(httpErr(failure.OpenAI, 429, openAIQuota)); c.Class != work.BudgetExceeded || strings.HasPrefix(c.Reason, "rule ") {
		t.Errorf("a failure no rule matches: %+v", c)
	}
	// ClassifyWith weighs the rule it is given, not the one installed, and
	// completes its answer alike.
	if c := failure.ClassifyWith(nil, slow); c.Reason == "rule acme-slowdown" {
		t.Errorf("ClassifyWith(nil) used the installed rule: %+v", c)
	}
	failure.SetOperatorRule(nil)
	if c := failure.ClassifyWith(rule, slow); c.Reason != "rule acme-slowdown" || !c.Retryable || c.Status != 400 || c.Requested.Delay != 90*time.Second {
		t.Errorf("ClassifyWith(rule): %+v", c)
	}
	if failure.OperatorRule() != nil {
		t.Error("ClassifyWith installed its rule")
	}
}

// TestLongDelayStaysARate: a delay alone, however long, does not make a
// rate limit a spent quota (Azure OpenAI asks for 86400 seconds on a
// tokens-per-minute limit; the holdout corpus expects RATE_LIMITED), while
// a limit per day does.
func TestLongDelayStaysARate(t *testing.T) {
	t.Parallel()
	azure := `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-05-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 86400 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}`
	for name, tc := range map[string]struct {
		err   error
		want  work.Class
		delay time.Duration
	}{
		"azure asks for a day":          {httpErr(failure.Azure, 429, azure), rl, 24 * time.Hour},
		"azure asks for seconds":        {httpErr(failure.Azure, 429, strings.Replace(azure, "86400", "7", 1)), rl, 7 * time.Second},
		"a Retry-After of two hours":    {httpErr("acme", 429, "", "Retry-After", "7200"), rl, 2 * time.Hour},
		"a limit per day, said in text": {httpErr("acme", 429, `{"error":{"message":"Daily request limit reached."}}`), be, 0},
	} {
		c := failure.Classify(tc.err)
		if c.Class != tc.want || c.Requested.Resolve(time.Time{}) != tc.delay {
			t.Errorf("%s: %s (%s) asking %v, want %s asking %v", name, c.Class, c.Reason, c.Requested.Resolve(time.Time{}), tc.want, tc.delay)
		}
	}
}
