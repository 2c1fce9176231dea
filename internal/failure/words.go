package failure

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// Meaning is a class and the words that say it.
type Meaning struct {
	// Class is what the words mean.
	Class work.Class
	// Name names the meaning ("rate", "money", "quota", "length", …): the
	// key TranslatedWords add their words under.
	Name string
	// Words are lowercase fragments; a space matches any run of
	// whitespace, and case is ignored.
	Words []string
}

// ModelWords are what the words of a model endpoint's 4xx mean when no
// code or definite phrase decided (docs/design.md "Defaults by role"): they
// refine the endpoint's default, CLIENT_ERROR, before its status does. They
// are grouped by meaning, and the meanings are weighed in this order — the
// first that any word of the provider's message (then of the error's text)
// says wins:
//
//   - a request the endpoint does not accept (an unsupported parameter or
//     value, a model that is not there): its words would otherwise read as
//     another meaning's ("safety_settings", "not found or your project does
//     not have access"), so they stop the search and leave the status to
//     decide;
//   - the rate: requests or tokens per minute, concurrency, capacity;
//   - money: credit, billing, balance, payment;
//   - a quota: a spent budget, unless it resets within minutes (period);
//   - the context window or the input's length;
//   - a parameter named without saying more ("max_tokens", "completion
//     tokens"): a request the endpoint does not accept unless the words
//     before it said the input is too long — "too many tokens … or a
//     smaller max_tokens value" is a length, "max_tokens is too large" a
//     parameter;
//   - the key, the credentials, the permission to use the model;
//   - safety, moderation, a policy block;
//   - a model that is still loading or warming up: the endpoint is there
//     but not serving yet (UPSTREAM_UNAVAILABLE).
//
// They are broad on purpose, for wordings nobody listed: at a model
// endpoint a 4xx that mentions a quota is about a quota. They are read
// only from a model endpoint's 4xx (or a failure with no status) other
// than 402 and 451, whose statuses say more, never from a source's or a
// webhook's (UpstreamWords are theirs). TranslatedWords add the words of
// other languages to the same meanings.
var ModelWords = []Meaning{
	{work.ClientError, "request", []string{
		"unsupported parameter", "unsupported value", "unknown parameter", "unrecognized request argument",
		"unrecognized parameter", "invalid parameter", "invalid value", "invalid type", "extra inputs are not permitted",
		"extra fields not permitted", "additional properties are not allowed", "is not supported with this model",
		"is not supported by this model", "not supported for this model", "does not support", "must be one of",
		"field required", "missing required", "is required", "invalid json", "could not parse", "malformed",
		"failed to parse the request", "request body",
		"missing parameter", "required parameter", "parameter is missing", "parameters are missing", // "Missing Parameters"
		"not found", "does not exist", "doesn't exist", "doesn't support", "no such model", "unknown model", "model not available",
		"invalid model", "permitted models", "model is not supported",
		"identifier is invalid", "not a valid model", "model id is invalid", "model name is invalid", // Bedrock: "The provided model identifier is invalid."
		// a model the provider retired (Groq's model_decommissioned, OpenAI's
		// and Anthropic's deprecations): not there any more, as above
		"decommissioned", "no longer supported", "has been deprecated", "reached end of life",
		// a request with more items than the endpoint takes at once — a
		// batch's size, an array parameter's length (Gemini's "at most 100
		// requests can be in one batch", OpenAI's "Invalid 'input': array
		// too long", Azure's "Too many inputs"): its shape, not the rate
		// and not an input too long for the model
		"in one batch", "batch size", "too many inputs", "max number of inputs", "maximum number of inputs",
		"array too long", "array with maximum length",
		// an input file the endpoint cannot decode (Whisper's "The audio file
		// could not be decoded or its format is not supported", Deepgram's
		// "failed to process audio: corrupt or unsupported data", OpenAI's
		// "You uploaded an unsupported image"): the same bytes every time
		"could not be decoded", "format is not supported", "unsupported data", "unsupported image",
		"unsupported audio", "invalid file format", "unsupported file format", "failed to process audio",
	}},
	{work.RateLimited, "rate", []string{
		"rate limit", "rate-limit", "rate_limit", "ratelimit", "too many requests", "too many concurrent",
		"concurrency", "concurrent requests", "requests per minute", "tokens per minute", "per minute", "per second",
		"requests per min", "tokens per min", "max rpm", "max tpm", "rpm limit", "tpm limit", "rpm:", "tpm:",
		"throttl", "slow down", "capacity exceeded", "capacity_exceeded", "out of capacity", // Groq's 498 capacity_exceeded
		"over capacity", "at capacity", "request limit", "requests limit",
		"please wait before trying again", // Bedrock's ThrottlingException; its 503 ServiceUnavailableException says it too
		"request rate", "too quickly",     // DashScope: "Request rate increased too quickly"
		"/ minute", "/minute", "/ second", "/second", // Cohere: "a Trial key, which is limited to 10 API calls / minute"
		"enqueued token", "enqueued request", "in flight", "in-flight", // a limit on work queued or in flight (OpenAI Batch's "Enqueued token limit reached"): it clears as the work ends
	}},
	{work.BudgetExceeded, "money", []string{
		"credit", "billing", "insufficient balance", "account balance", "your balance", "balance is",
		"balance too low", "negative balance", "payment", "insufficient funds", "spending limit", "spend limit",
		"budget", "top up", "top-up", "prepaid", "paid plan", "usage limit", "free tier", "trial key", "trial limit",
		"arrear", "overdue", "good standing",
	}},
	{work.BudgetExceeded, "quota", []string{"quota", "free allocation", "used up your"}},
	// a router with every deployment of the model cooling down (LiteLLM's
	// "No deployments available for selected model, Try again in 5
	// seconds"): a rate, after money and quotas, since the router says the
	// same of a deployment whose budget is spent ("No deployments available
	// - crossed budget")
	{work.RateLimited, "cooldown", []string{"no deployments available"}},
	{work.TokenLimit, "length", []string{
		"context length", "context_length", "context window", "context size", "context limit", "maximum context",
		"max context", "too many tokens", "too many input tokens", "token limit", "tokens limit", "input token count",
		"maximum number of tokens", "maximum allowed number of tokens", "prompt is too long", "input is too long",
		"prompt too long", "input too long", "too long for", "string too long", "is too long", "are too long",
		"longer than the model", "exceed context", "exceeds context", "maximum input length",
		"input length", "input tokens exceed", "tokens exceed", "tokens exceeds", "exceeds token", "exceeds the token",
		"reduce the length", "reduce your prompt", "reduce the prompt", "shorten", "payload size exceeds",
		"request payload size", "request entity too large", "payload too large", "request too large",
		"input too large", "prompt too large", "`inputs` tokens", "length limit exceeded", "maximum length",
		"exceeds max length", "exceeds the max length", "exceeds maximum length", "prompt_limit", // Zhipu; a relay's code
		"tokens per request", "tokens too long", "context overflow", "context the overflows", "overflows the context",
		"sequence length", "too large for the model", "must have less than", "must have fewer than",
		"token count of", "maximum model length", "longer than the maximum", // vLLM: "is longer than the maximum model length of 16384"
		"max allowed tokens", "maximum allowed tokens", "number of tokens in the", "input tokens (", // Voyage: "The max allowed tokens per submitted batch is 120000"; IBM BAM: "input tokens (35000) … must be < 4096"
		// an uploaded file over the endpoint's size limit (Whisper's "Maximum
		// content size limit (26214400) exceeded", a compatible server's
		// "Audio file exceeds maximum allowed size (104857600 bytes)")
		"content size limit", "file size limit", "exceeds maximum allowed size", "exceeds the maximum allowed size",
		"file is too large", "file too large",
	}},
	{work.ClientError, "parameter", []string{
		"max_tokens", "max_completion_tokens", "max_output_tokens", "maxoutputtokens", "maximum tokens you requested",
		"completion tokens",
		// the sampling parameters a model may not take ("invalid temperature:
		// only 1 is allowed for this model")
		"temperature", "top_p", "top_k", "presence_penalty", "frequency_penalty", "response_format", "tool_choice",
		"logprobs", "allowed for this model",
	}},
	{work.AuthDenied, "key", []string{
		"api key", "api_key", "apikey", "api-key", "authentication", "authenticate", "unauthenticated",
		"unauthorized", "unauthorised", "not authorized", "not authorised", "permission", "access denied",
		"access is denied", "forbidden", "credential", "invalid token", "token is invalid", "invalid bearer",
		"bearer token", "token has expired", "token expired", "expired token", "access token", "auth token",
		"api token", "api-token", "api_token", // Cohere: "invalid api token"; Replicate, Hugging Face: "Invalid API token"
		// an app id with no grant for the model or the function (iFlytek
		// Spark's 11200 AppIdNoAuthError, "该appId没有相关功能的授权"),
		// Redis-style NOAUTH: an operator grants it
		"noauth", "没有相关功能的授权",
		"has been disabled", "account is disabled", "account disabled", "deactivated", "suspended", "banned",
		// an organisation or account the provider restricted (Groq's 400
		// organization_restricted): an operator takes it up with the provider
		"has been restricted", "organization is restricted", "account is restricted", "organization_restricted", "account_restricted",
		"organization restricted", "account restricted",
		"not have access", "no access to", "not allowed to access", "must be verified", "not verified",
		"country", "location is not supported", "region is not supported", "unsupported region",
		"not available in your", "not available in this region",
	}},
	{work.ContentPolicy, "policy", []string{
		"content policy", "content_policy", "content filter", "content_filter", "content management",
		"content moderation", "moderation", "moderated", "filtered words", "safety system", "safety filter", "safety reason", "safety polic",
		"safety guideline", "safety concern", "for safety", "unsafe", "harmful", "flagged", "usage polic",
		"violat", "prohibited", "response was blocked", "prompt was blocked", "blocked due to", "blocked by the",
		"blocked by our", "output blocked", "input blocked", "request was blocked", "guardrail", "jailbreak",
		"prompt shield", "responsible ai", "inappropriate", "refused", "refusal", "sexual", "self-harm",
		"hate speech", "recitation", "nsfw", "exists risk", "blocked for reason", "reason: safety", "blocked by safety", "content risk", "sensitive content", "data inspection",
		"sensitive word", "sensitive_word", "sensitive information detected",
		// Gemini's prompt block by any reason, OTHER and BLOCKLIST included,
		// as google-genai's repr ("block_reason=<BlockedReason.OTHER: 'OTHER'>")
		// and protobuf's text format ("block_reason: OTHER") print it
		"blockedreason.", "block_reason: other", "blockreason: other", "blocklist",
	}},
	{work.UpstreamUnavailable, "loading", []string{
		"currently loading", "is loading", "still loading", "loading model", "being loaded", "not ready yet",
		"is not ready", "not yet ready", "warming up", "warm up", "warm-up", "cold start", "is starting up",
		"scaled to zero",
		"not yet deployed", "being deployed", "still deploying", "is initializing", "is initialising", // an endpoint still deploying (Hugging Face's Inference Endpoints)
	}},
	// a model server that fell over under the request's load — out of GPU
	// memory, its runner process gone: the upstream failing, not the
	// request (Replicate's "CUDA out of memory", Ollama's "llama runner
	// exited")
	{work.UpstreamUnavailable, "crash", []string{
		"cuda out of memory", "cuda error: out of memory", "outofmemoryerror", "runner exited", "runner process has terminated",
		"runner process no longer running",
		// a model too large for the memory the host has free (Ollama's "model
		// requires more system memory (5.9 GiB) than is available (2.3 GiB)",
		// llama.cpp's and vLLM's "insufficient memory"): the server cannot
		// serve until memory frees
		"more system memory", "requires more memory", "not enough memory", "insufficient memory", "failed to allocate memory",
		"fatalworkerexception", "worker died", "worker crashed", "worker process died", "actor died unexpectedly", // cog's, Ray's (vLLM, Ray Serve) worker gone
		// a prediction's process killed for its memory (cog on Replicate:
		// "It might have run out of memory? (exitcode -9)", a container
		// OOMKilled)
		"run out of memory", "ran out of memory", "oomkilled", "oom killed", "oom-killed",
	}},
	// the endpoint's own label for a request it refused, before its reason
	// (Cohere's "invalid request: …"): read last, so a reason any meaning
	// above names — a length, a key, a rate — says more
	{work.ClientError, "refused", []string{"invalid request:"}},
}

// AnswerWords are the words of a model endpoint's failure with no status
// that say its answer could not be used — empty, cut short, not the JSON
// that was asked for — as a client that read it reports it:
// RESPONSE_INVALID, like the answer itself judged (docs/design.md
// "Defaults by role"). They are read before ModelWords, whose "malformed"
// and "could not parse" speak of a request, and never from a status: a 4xx
// is the endpoint refusing the request, not an answer.
var AnswerWords = Meaning{work.ResponseInvalid, "answer", []string{
	"empty stream", "empty response", "no finish_reason", "malformed sse", "malformed response",
	"response as json", "not valid json", "expecting value: line", "unterminated string in json",
	"unexpected end of json", "parse error at line", "syntax error while parsing value", "jsondecodeerror",
	"unterminated string starting at", "error decoding json", // Python's json module, and the logs around it
	"without finish_reason", "without a finish reason", "structured output as json", "output as json",
	// an answer cut at its length limit, as the SDKs' parse helpers say it
	// (openai-python's LengthFinishReasonError "Could not parse response
	// content as the length limit was reached"), and an answer with no
	// text part (google-generativeai's `response.text` quick accessor)
	"could not parse response content", "length limit was reached", "lengthfinishreasonerror",
	"quick accessor", "response is not simple text",
	// Gemini's finish reason MALFORMED_FUNCTION_CALL as its CLI words it:
	// the model's tool call could not be used (a retry may make a valid one)
	"malformed function call", "malformed_function_call",
	// a client's parser of the answer (LangChain's OutputParserException,
	// "did not output … json") and the JSON decoders' own words: Python's
	// json, Go's encoding/json, JavaScript's JSON.parse, Jackson, serde
	"outputparserexception", "output parser", "invalid json output", "did not output", "json format as expected",
	// LangChain's agent parsers on the model's text, raised bare as a
	// ValueError ("Could not parse LLM output: …", "Parsing LLM output
	// produced both a final answer and a parse-able action", "Invalid
	// Format: Missing 'Action:' after 'Thought:'")
	"could not parse llm output", "parsing llm output", "missing 'action:'", "missing 'action input:'",
	"expecting ',' delimiter", "expecting ':' delimiter", "expecting property name", "invalid control character at",
	"extra data: line", "looking for beginning of value", "after top-level value", "in json at position",
	"is not valid json", "unexpected end-of-input", "unrecognized token", "eof while parsing",
	"expected value at line", "trailing characters at line",
	// JavaScript engines' JSON.parse beyond V8's "in JSON at position": V8's
	// "Unexpected non-whitespace character after JSON at position 4659",
	// Firefox's "JSON.parse: unexpected character at line 1 column 1 of the
	// JSON data", JavaScriptCore's "JSON Parse error: Unexpected identifier"
	"after json at position", "of the json data", "json parse error",
	// a structured-output library that gave up on answers failing the
	// response model's validation (instructor's InstructorRetryException,
	// pydantic-ai's "Exceeded maximum retries (1) for output validation";
	// retriedValidation reads instructor's log line)
	"instructorretryexception", "for output validation", "for result validation",
	// the Vercel AI SDK's errors about an answer (NoObjectGeneratedError,
	// TypeValidationError, JSONParseError, NoContentGeneratedError,
	// EmptyResponseBodyError, InvalidResponseDataError)
	"no object generated", "did not match schema", "type validation failed", "ai_jsonparseerror",
	"no content generated", "empty response body", "invalid response data",
	// a log's field for an answer cut at its length or left empty
	// ("summarize_empty_response model=… finish_reason=length")
	"did not respond with valid json", "cannot get the response text",
	"empty_response", "empty_completion", "empty completion", "finish_reason=length", "finish_reason: length",
	"finish_reason='length'", "finish_reason=max_tokens", "stop_reason=max_tokens", "stop_reason: max_tokens",
}}

// answerWords is AnswerWords as a phrase table.
var answerWords = sync.OnceValue(func() []Phrase {
	out := make([]Phrase, len(AnswerWords.Words))
	for i, w := range AnswerWords.Words {
		out[i] = Phrase{w, AnswerWords.Class}
	}
	return out
})

// policyWords are ModelWords' moderation words (their TranslatedWords
// included), read beside AnswerWords: a client's words for an answer it
// did not get that also say the answer was blocked are a block.
var policyWords = sync.OnceValue(func() []Phrase {
	var out []Phrase
	for _, ph := range modelWords() {
		if ph.Class == work.ContentPolicy {
			out = append(out, ph)
		}
	}
	return out
})

// TranslatedWords are ModelWords in other languages, by the Name of the
// meaning they join: the words providers write in Chinese (Simplified and
// Traditional), Japanese, Spanish, Portuguese, German and French for a
// balance, a quota and a rate, and in Chinese and Japanese for an input
// too long, a moderation block and (in Chinese) a credential refused (Zhipu's "系统检测到输入或生成内容可能包含不安全或敏感内容"). Only the letters of ASCII fold, so a word
// with an accent matches as written (lowercase).
var TranslatedWords = []struct {
	// Lang is the language's code (BCP 47).
	Lang string
	// Meaning is the Name of the ModelWords meaning the words join.
	Meaning string
	Words   []string
}{
	{"zh", "money", []string{"余额不足", "餘額不足", "额度不足", "額度不足", "余额", "餘額", "欠费", "欠費", "充值", "资源包", "資源包"}},
	{"zh", "quota", []string{"配额", "配額", "额度已用", "額度已用", "用量已用尽", "用量已用盡"}},
	{"zh", "rate", []string{"请求过于频繁", "請求過於頻繁", "过于频繁", "過於頻繁", "频繁", "頻繁", "频率限制", "頻率限制", "速率限制", "限流", "并发", "並發", // 并发超限: concurrency over the limit
		"请求过多", "請求過多"}},
	{"zh", "length", []string{"过长", "過長", "超长", "超長", "超过最大长度", "超過最大長度", "超出最大长度", "上下文长度", "上下文長度"}},
	{"ja", "length", []string{"長すぎ", "最大長", "コンテキスト長"}},
	{"zh", "policy", []string{"敏感内容", "敏感信息", "敏感词", "敏感詞", "不安全内容", "不安全或敏感", "违规", "違規", "违禁", "違禁", "内容安全", "內容安全", "内容审核", "內容審核", "审核未通过", "審核未通過"}},
	// a credential or a permission refused, a model endpoint's and a
	// receiver's alike: WeCom's "验证企业微信机器人凭证失败" (verifying the bot's
	// credential failed), "鉴权失败", "无权限"
	{"zh", "key", []string{"凭证", "憑證", "鉴权", "鑒權", "认证失败", "認證失敗", "无权限", "無權限", "没有权限", "沒有權限", "权限不足", "權限不足"}},
	{"ja", "money", []string{"残高", "クレジット", "支払い"}},
	{"ja", "quota", []string{"クォータ", "割り当て", "利用上限"}},
	{"ja", "rate", []string{"レート制限", "リクエストが多すぎ", "リクエスト数の上限", "リクエスト制限", "頻繁"}},
	{"ja", "policy", []string{"不適切", "ポリシー違反"}},
	{"es", "money", []string{"saldo insuficiente", "sin saldo", "crédito insuficiente", "créditos insuficientes", "fondos insuficientes", "facturación"}},
	{"es", "quota", []string{"cuota"}},
	{"es", "rate", []string{"demasiadas solicitudes", "límite de solicitudes", "límite de tasa", "límite de velocidad"}},
	{"pt", "money", []string{"saldo insuficiente", "sem saldo", "créditos insuficientes", "crédito insuficiente", "faturamento", "pagamento"}},
	{"pt", "quota", []string{"cota excedida", "cota esgotada", "limite de uso"}},
	{"pt", "rate", []string{"muitas requisições", "muitas solicitações", "limite de requisições", "limite de taxa"}},
	{"de", "money", []string{"guthaben", "zahlung", "abrechnung", "kontostand"}},
	{"de", "quota", []string{"kontingent", "quote überschritten", "nutzungslimit"}},
	{"de", "rate", []string{"zu viele anfragen", "ratenlimit", "anfragelimit", "anfragen pro minute"}},
	{"fr", "money", []string{"solde insuffisant", "crédit insuffisant", "crédits insuffisants", "paiement", "facturation"}},
	{"fr", "quota", []string{"quota dépassé", "quota épuisé"}},
	{"fr", "rate", []string{"trop de requêtes", "trop de demandes", "limite de débit", "limite de requêtes"}},
}

// modelWords is ModelWords as one phrase table, built on first use and
// indexed like the other phrase tables (indexOf).
var modelWords = sync.OnceValue(func() []Phrase { return withTranslations(ModelWords) })

// withTranslations is meanings as one phrase table, in order, each
// meaning's TranslatedWords after its own: a model and a receiver write a
// rate in their own language alike (WeChat's "操作过于频繁，可稍后再试").
func withTranslations(meanings []Meaning) []Phrase {
	var out []Phrase
	for _, m := range meanings {
		for _, w := range m.Words {
			out = append(out, Phrase{w, m.Class})
		}
		for _, t := range TranslatedWords {
			if t.Meaning != m.Name {
				continue
			}
			for _, w := range t.Words {
				out = append(out, Phrase{w, m.Class})
			}
		}
	}
	return out
}

// UpstreamWords are what the words of a source's or a webhook's 4xx mean
// when no code or definite phrase decided: they refine the role's generic
// default (SCHEMA_INVALID, docs/design.md "Defaults by role") and say what
// a failure with no status is. The meanings are weighed in this order, the
// first that any word of the message (then of the error's text) says
// wins: the rate, a permission or credential the receiver refuses (an
// operator fixes it: AUTH_DENIED), a destination that is not there or no
// longer is (NOT_FOUND), a payload it cannot take (SCHEMA_INVALID), the
// receiver's own system failing (UPSTREAM_UNAVAILABLE). They
// are read from a 4xx whose default is the generic one and from a 409
// (Dropbox answers every endpoint's error with 409: "path/not_found");
// from a 404 or 410 only a permission's words are read (Notion hides a
// page not shared with the integration behind a 404: an operator shares
// it); a 401, 403 or 429 says as much alone, and they are never read from
// a 5xx or a model endpoint's answer.
var UpstreamWords = []Meaning{
	// an account out of money (moneySpent) or on a plan without the
	// feature: a top-up or an upgrade lifts it, not a wait of minutes
	// (Vonage's "You do not have enough credit", Pushbullet's
	// pushbullet_pro_required)
	{work.BudgetExceeded, "money", append(slices.Clip(moneySpent),
		"pro is required", "pro_required", "requires a paid plan",
		"current balance is", // Vonage: "Your current balance is 30, but that costs 50."
	)},
	{work.RateLimited, "rate", []string{
		"rate limit", "rate-limit", "ratelimit", "rate_limit", "too many requests", "slow down", "throttl",
		"reduce your request rate", "too_many_requests", "too_many_write", "too fast", "per minute", "per second",
		"frequen", "freq out of", "freq limit", // "api freq out of limit", "too frequently", a frequency limit
		"too many concurrent", "concurrency limit", "concurrent requests", "concurrent request limit", // a limit on requests in flight
		"flood",                            // Telegram's "Flood control exceeded", FLOOD_WAIT
		"rate-overlimit", "rate overlimit", // WhatsApp's error frame (Baileys' Boom "rate-overlimit", code 429 in the frame)
		"limit exceeded", "limit reached", "exceeded the limit", // "Daily user sending limit exceeded": read by its period
		"exceeded current limit", "exceeded its limit", "exceeded your limit", "exceeded limit", "over the limit",
		"reached the limit", "reached your limit", "reached its limit", // archive.org: "You have already reached the limit of active Save Page Now sessions"
		"per hour", "per day", "per month", "messages per", "emails per", "requests per", // "only 10 messages per day"
		"quota", // a limit: read by its period (a daily one is spent)
	}},
	// named as ModelWords' meaning of a key, whose TranslatedWords it shares
	{work.AuthDenied, "key", []string{
		"not authorized", "not authorised", "unauthorized", "unauthorised", "permission", "forbidden",
		"access denied", "missing access", "no rights", "not enough rights", "not allowed to", "invalid token",
		"token expired", "token has expired", "token revoked", "has been revoked", "invalid api key",
		"authentication", "credentials", "was blocked by the user", "was kicked", "not a member",
		"token is invalid", "key is invalid", "bad credentials", "not verified", "verified sender", // SendGrid: "does not match a verified Sender Identity"
		"unverified", "not authenticated", "unauthenticated", // a sender domain not authenticated
		"shared with your integration", "not shared with", "do not have access", "don't have access",
		"access token", "access_token", "token invalid", // Feishu, WeCom, Lark: "incoming webhook access token invalid"
		// a credential the request did not carry, and its codes written
		// joined (Kaizala's errorCode "InvalidToken" under "AuthException")
		"token missing", "missing token", "token is missing", "invalidtoken", "authexception",
		"username or password", "invalid username", "invalid login", "login failed", // a mailer's login refused
		"could not authenticate", "unable to authenticate", "failed to authenticate", // Opsgenie: "Could not authenticate"
		"authorized recipients", "not in allowed list", // a sandbox's or a test number's allowed recipients (Mailgun, WhatsApp)
		// a mailer's sandbox or an account not yet approved, until an operator
		// verifies a domain: Resend's "You can only send testing emails to
		// your own email address … please verify a domain", Postmark's
		// "While your account is pending approval …"
		"testing emails", "verify a domain", "verify your domain", "pending approval", "not yet activated",
		// a mailer's account whose sending is paused or disabled (SES's
		// MessageRejected "Sending paused for this account", SESv2's "the
		// account's ability to send email is currently paused"): an operator
		// takes it up with the provider
		"sending paused", "sending is paused", "sending is disabled", "send email is currently paused",
		// a source that refuses automated readers: a bot wall's challenge,
		// its robots.txt — an operator arranges access, no retry passes
		"cloudflare challenge", "challengeerror", "disallowed by robots", "robots.txt",
		// a challenge page's own words, as a client printed or extracted it
		// (Cloudflare's "Just a moment... Verify you are human", "Checking
		// your browser before accessing", "Attention Required!"; a CAPTCHA;
		// Google's "unusual traffic from your computer network")
		"verify you are human", "checking your browser", "enable javascript and cookies to continue",
		"review the security of your connection", "attention required!", "captcha", "are you a robot",
		"unusual traffic from your computer network",
		// a site that says it blocked the reader (Cloudflare's block page
		// "Sorry, you have been blocked", CloudFront's WAF "Request
		// blocked.", a reader's "Fetch blocked by site")
		"you have been blocked", "request blocked", "blocked by site", "blocked by the site", "blocked by the website",
		"blocked by website",
		"denied",                                                                           // Office 365's SendAsDenied, "request denied"
		"invalid webhook token",                                                            // Discord's 50027
		"sign not match", "signature mismatch", "signature does not match", "invalid sign", // a signing secret
		"sign match fail", "signature match fail", "signature verification fail", "signature validation fail",
		"signature check fail", "signature verify fail", "signature invalid", "bad signature", "wrong signature",
	}},
	{work.NotFound, "gone", []string{
		"not found", "not_found", "not be found", "unknown webhook", "unknown channel", "unknown user", "unknown guild",
		"no such", "does not exist", "doesn't exist", "no longer exists", "archived", "has been deleted",
		"was deleted", "has been removed",
		"inactive recipient", "marked as inactive", "suppressed", "hard bounce", // a recipient the sender no longer reaches
		"incapable of receiving", // WhatsApp's (#131026): a number that cannot receive the message
		"message undeliverable",  // WhatsApp's 131026 by its title: the recipient cannot receive it
		// a receiver id that names no one the bot may message: Viber's
		// "Bad receiver ID" (999), receiverNotRegistered (5) and
		// notSubscribed / receiverNotSubscribed (6), Twilio's "unsubscribed
		// recipient" — a recipient's credential refused is a permission's,
		// read first
		"bad receiver", "invalid receiver", "unknown receiver", "receiver not found", "receivernotsubscribed",
		"notsubscribed", "not subscribed", "unsubscribed recipient", "user unsubscribed",
		// a webhook's address that names no hook (WeCom's 93000 "invalid
		// webhook url", Mattermost's "Invalid webhook"); a hook's token
		// refused is a permission's, read first
		"invalid webhook", "webhook url is invalid", "webhook url is not valid",
		// a push registration the platform dropped: APNs' Unregistered,
		// FCM's UNREGISTERED and NotRegistered, Ably's expired registration
		"registration expired", "registration has expired", "registration is no longer valid",
		"registration no longer valid", "not_registered", "not-registered", "notregistered", "registration token is not registered",
		"device token is inactive", "device is no longer registered",
	}},
	{work.SchemaInvalid, "payload", []string{
		"is required", "are required", "required field", "missing required", "cannot be empty", "must not be empty",
		"missing parameter", "required parameter", "parameter is missing", "parameters are missing", // Vonage's "Missing Parameters"
		"missing field", "missing argument", "required argument",
		"unexpected argument", "unknown argument", "unexpected field", "unknown field", "unrecognized field", // a field the receiver does not take (Zulip's "Unexpected arguments: is_private")
		"unexpected parameter", "unknown parameter", "unrecognized parameter",
		"invalid payload", "malformed", "invalid json", "could not parse", "invalid form body", "or fewer in length",
		"unable to parse", "failed to parse", "must be less than", "allowed schemas", "too long",
		"can't parse", "cannot parse", "bad request:", // Telegram: "Bad Request: can't parse entities"
		"not a valid", "is not valid", // Twilio: "The 'To' number … is not a valid phone number"
		// a payload a flow or a card's schema refused (Teams Workflows, Power
		// Automate, Logic Apps, Adaptive Cards): "The result must be a valid
		// array", "request is missing or invalid", "Property 'type' must be
		// 'AdaptiveCard'"
		"must be a valid", "missing or invalid", "invalid or missing", "serializationexception",
		// a field left blank, in the validators' words (Rails' "can't be
		// blank", Bean Validation's "must not be blank", PagerDuty's
		// "Description is missing or blank" under its status "invalid
		// event")
		"missing or blank", "can't be blank", "cannot be blank", "must not be blank", "may not be blank", "invalid event",
		// a body or a part of it the receiver refused as a whole (LINE's "A
		// message (messages[2]) in the request body is invalid", its details'
		// "must be non-empty text", "The request body has 2 error(s)")
		"body is invalid", "request body has", "must be non-empty", "must be a non-empty",
	}},
	// the receiver's own system failing, whatever status it answered with
	// (DingTalk's 400 "system.error" "未知的系统错误", WeChat's errcode -1
	// "system busy", "系统繁忙"): the receiver failing, not the payload —
	// read last, so a payload's or a permission's words say more
	{work.UpstreamUnavailable, "server", []string{
		"system error", "system.error", "system_error", "system busy", "system is busy", "server busy", "server is busy",
		"internal error", "internal_error", "internal server error",
		"系统错误", "系統錯誤", "系统繁忙", "系統繁忙", "服务繁忙", "服務繁忙", "服务器错误", "伺服器錯誤", "内部错误", "內部錯誤",
	}},
}

// upstreamWords is UpstreamWords as one phrase table (withTranslations).
var upstreamWords = sync.OnceValue(func() []Phrase { return withTranslations(UpstreamWords) })

// quotaLike reports whether a class decided by code or fragment (a code,
// a phrase) is a limit whose period decides it: a rate limit, or a quota
// that is not money (insufficient_quota, a credit balance and a spend
// limit are money whatever the period).
func quotaLike(c work.Class, what string) bool {
	switch c {
	case work.RateLimited:
		return true
	case work.BudgetExceeded:
		return containsFoldASCII(what, "quota") && !containsFoldASCII(what, "insufficient_quota")
	}
	return false
}

// periodLong are the words of a quota that no wait of minutes lifts
// (longPeriod finds them).
var periodLong = []string{"day", "daily", "month", "week"}

// longPeriod reports whether s holds one of periodLong, in any case. It
// runs on every rate limit a classification refines, so it first looks,
// with IndexByte, for the letters that end the words (y, k) or for
// "onth", which most texts lack; then it checks the letters before each
// y, k and h.
func longPeriod(s string) bool {
	if strings.IndexByte(s, 'y') < 0 && strings.IndexByte(s, 'Y') < 0 && strings.IndexByte(s, 'k') < 0 &&
		strings.IndexByte(s, 'K') < 0 && !strings.Contains(s, "onth") && !strings.Contains(s, "ONTH") {
		return false
	}
	for _, c := range [...]byte{'y', 'Y', 'h', 'H', 'k', 'K'} {
		for from := 0; from < len(s); {
			i := strings.IndexByte(s[from:], c)
			if i < 0 {
				break
			}
			if periodEndsAt(s, from+i+1) {
				return true
			}
			from += i + 1
		}
	}
	return false
}

// periodEndsAt reports whether a word of periodLong ends at s[end-1].
func periodEndsAt(s string, end int) bool {
	last := s[end-1] | 0x20
	for _, w := range periodLong {
		if w[len(w)-1] == last && end >= len(w) && hasPrefixFoldASCII(s[end-len(w):end], w) {
			return true
		}
	}
	return false
}

// periodNearLimit reports whether a period of a day or longer (longPeriod)
// stands on the line of the quota or the limit it gives a period to
// ("Daily message quota exceeded", "fewer daily messages, … higher rate
// limits") — not a date on another line of a log record's fields
// ("visitor_seen=<today>" below "visitor_messages_limit=17280").
func periodNearLimit(s string) bool {
	for _, l := range [...]string{"quota", "limit"} {
		for from := 0; from < len(s); {
			i := indexFoldASCII(s[from:], l)
			if i < 0 {
				break
			}
			i += from
			from = i + len(l)
			if longPeriod(lineAt(s, i)) {
				return true
			}
		}
	}
	return false
}

// lineAt returns the line of s that holds the byte at i, without its
// newline.
func lineAt(s string, i int) string {
	ls := strings.LastIndexByte(s[:i], '\n') + 1
	le := strings.IndexByte(s[i:], '\n')
	if le < 0 {
		return s[ls:]
	}
	return s[ls : i+le]
}

// cjkPeriods and cjkLimits are a day or longer and a limit in Chinese
// (Simplified and Traditional) and Japanese: "该 API 已达今日调用次数限额"
// is a count per day spent (cjkLongPeriod).
var (
	cjkPeriods = []string{"今日", "今天", "每日", "每天", "当日", "當日", "本日", "日调用", "日調用", "日限额", "日限額",
		"本月", "每月", "当月", "當月", "本周", "每周", "本週", "每週"}
	cjkLimits = []string{"限额", "限額", "次数", "次數", "上限", "配额", "配額", "额度", "額度", "用量", "限制"}
)

// cjkLongPeriod reports whether a line of s names a day, a week or a month
// and a limit in Chinese or Japanese words. Their letters are all outside
// ASCII, so a text without the first byte they share (0xE4–0xE9, the
// CJK ideographs' leading bytes in UTF-8) is passed over at once.
func cjkLongPeriod(s string) bool {
	cjk := false
	for i := 0; i < len(s) && !cjk; i++ {
		cjk = s[i] >= 0xE4 && s[i] <= 0xE9
	}
	if !cjk {
		return false
	}
	for _, p := range cjkPeriods {
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], p)
			if i < 0 {
				break
			}
			i += from
			from = i + len(p)
			line := lineAt(s, i)
			for _, l := range cjkLimits {
				if strings.Contains(line, l) {
					return true
				}
			}
		}
	}
	return false
}

// perLongPeriod reports whether s counts something per day, week or month
// ("only 10 messages per day", "7500/month"): a limit named by its period
// alone.
func perLongPeriod(s string) bool {
	return containsAnyFoldASCII(s, []string{"per day", "per week", "per month", "/day", "/month"})
}

// periodShort are the words of a limit that resets within minutes.
var periodShort = []string{"minute", "per min", "second", "per sec", "rpm", "tpm", "rps"}

// period refines a rate limit or a quota by how long it lasts
// (docs/design.md "Defaults by role"): a quota whose limit is 0 (a plan
// that has none) is BUDGET_EXCEEDED; one the upstream asks to retry within
// the hour (Retry-After, a body field, a reset header, prose) is
// RATE_LIMITED; one per day, week or month is BUDGET_EXCEEDED; a quota
// (not a rate) per minute or second is RATE_LIMITED; a quota the upstream
// says is spent, with none of these, is BUDGET_EXCEEDED. A long delay
// alone does not make a rate limit a spent quota: Azure OpenAI asks for
// 86400 seconds on a tokens-per-minute limit. The words are read from the message, Google's quota ids
// and the error's text. Quotas are model endpoints' (or an upstream
// nothing names): a webhook's, a source's or AWS's limit stays a rate.
func (ev *evidence) period(cl Classification, msg, text string) Classification {
	switch ev.role() {
	case RoleWebhook, RoleSource, RoleAWS:
		// Their limits are rates unless their words say a day or longer
		// (SES's "Daily message quota exceeded", ntfy's daily message
		// quota); no delay, no quota word alone makes one a spent budget
		// (a webhook's Retry-After in the wrong unit, Discord's
		// milliseconds, must not).
		// Their message says it, or the error's text when no answer was
		// seen (an SMTP client's line); never an answer's HTML page, whose
		// dates are not the limit's — but an answer with no body of its own
		// (a status and the client's line, "Daily request 200 limit
		// exceeded. Please try again tomorrow." beside its 429) says it
		// only in the text. The words must name the quota or the limit
		// they give a period to.
		srcs := [2]string{msg, ""}
		if (!ev.answered || msg == "" && len(ev.raw) == 0) && text != msg {
			srcs[1] = text
		}
		for _, s := range srcs {
			if s != "" && (periodNearLimit(s) || perLongPeriod(s) || cjkLongPeriod(s)) {
				return ev.reclass(cl, work.BudgetExceeded, "a quota or limit per day or longer")
			}
		}
		return cl
	}
	srcs := [3]string{msg, ev.body.Quota, ""}
	if text != msg {
		srcs[2] = text
	}
	if ev.status == 402 {
		// Payment Required says more than the code beside it (Gemini's
		// RESOURCE_EXHAUSTED for prepaid credits depleted).
		return ev.reclass(cl, work.BudgetExceeded, "payment required")
	}
	for _, s := range srcs {
		if s != "" && containsAnyFoldASCII(s, moneySpent) {
			return ev.reclass(cl, work.BudgetExceeded, "money spent, whichever code came with it")
		}
	}
	zero := false
	for _, s := range srcs {
		zero = zero || limitZero(s) || protoLimitZero(s)
	}
	if zero {
		return ev.reclass(cl, work.BudgetExceeded, "a quota whose limit is 0")
	}
	for _, s := range srcs {
		if s != "" && planHasNone(s) {
			return ev.reclass(cl, work.BudgetExceeded, "a plan that has none")
		}
	}
	if r := ev.requestedOnce(); r.At.IsZero() && r.Delay > 0 && r.Delay < time.Hour {
		return ev.reclass(cl, work.RateLimited, "retry within the hour")
	}
	long, spent := false, false
	for _, s := range srcs {
		if s == "" {
			continue
		}
		long = long || longPeriod(s) || cjkLongPeriod(s)
		if containsFoldASCII(s, "quota") { // q is rare: most texts end here
			spent = spent || containsAnyFoldASCII(s, quotaSpent)
		}
		if containsFoldASCII(s, "continue") { // every allowanceSpent word holds it
			spent = spent || containsAnyFoldASCII(s, allowanceSpent)
		}
	}
	if long {
		return ev.reclass(cl, work.BudgetExceeded, "a quota per day or longer")
	}
	if cl.Class == work.RateLimited && !spent {
		return cl
	}
	short := false
	for _, s := range srcs {
		short = short || s != "" && containsAnyFoldASCII(s, periodShort)
	}
	switch {
	case short:
		return ev.reclass(cl, work.RateLimited, "a limit per minute or second")
	case spent:
		return ev.reclass(cl, work.BudgetExceeded, "a quota spent, with no window that reopens within minutes")
	}
	return cl
}

// moneySpent are the words of an account out of money — a receiver's
// (UpstreamWords' money), or a model endpoint's under a code of a rate or a
// quota ("Your prepayment credits are depleted" with Gemini's
// RESOURCE_EXHAUSTED, 429 or 402): a top-up lifts it, not a wait.
var moneySpent = []string{
	"credits are depleted", "credit is depleted", "out of credit", "enough credit", "insufficient credit",
	"insufficient balance", "insufficient funds", "credit balance",
}

// quotaSpent are the words of a quota the upstream says is spent, as
// opposed to a capacity or rate it is short of ("Resource has been
// exhausted (e.g. check quota)", Vertex AI's per-minute "Quota exceeded
// for …" are not): with no window that reopens within minutes, a spent
// quota is a spent budget, whichever code came with it (Gemini's
// RESOURCE_EXHAUSTED, OpenAI's insufficient_quota).
var quotaSpent = []string{"exceeded your current quota"}

// allowanceSpent are the words of a limit the upstream says only an
// upgrade or its staff lift ("You have reached your request limit, email
// … to continue using the API"): spent, like quotaSpent, unless a window
// of minutes is named. Each holds "continue", which period looks for
// first.
var allowanceSpent = []string{"to continue using", "upgrade your plan to continue"}

// planNone are the words of a limit the plan does not include at all —
// the words for `limit: 0` ("Gemini 2.5 Pro Preview doesn't have a free
// quota tier"): no wait lifts it, whatever delay came with it, until the
// plan changes. Each holds "free ", which planHasNone looks for first.
var planNone = []string{
	"n't have a free", "not have a free", "no free quota", "no free tier",
	"not available on the free tier", "not available in the free tier", "not included in the free tier",
}

// planHasNone reports whether s says the plan has no allowance for what
// was asked (planNone).
func planHasNone(s string) bool {
	if !containsFoldASCII(s, "free ") {
		return false
	}
	return containsAnyFoldASCII(s, planNone)
}

// reclass returns cl as class c, its reason saying why, or cl itself when
// it already is c.
func (ev *evidence) reclass(cl Classification, c work.Class, why string) Classification {
	if cl.Class == c {
		return cl
	}
	out := Of(c, cl.Reason+": "+why)
	out.Default = cl.Default
	return out
}

// limitZero reports whether s says a quota's limit is 0 ("limit: 0,",
// "Limit 0"), which no wait lifts. It looks for a lone 0, rare in text,
// and checks for "limit" before it.
func limitZero(s string) bool {
	for from := 0; from < len(s); {
		i := strings.IndexByte(s[from:], '0')
		if i < 0 {
			return false
		}
		k := from + i
		from = k + 1
		if k+1 < len(s) && (isDigitByte(s[k+1]) || s[k+1] == '.') {
			continue
		}
		// Back over what stands between a label and its value: spaces,
		// a colon or an equals sign, quotes ("quota_limit_value": "0").
		j, colon := k, false
		for j > 0 && (s[j-1] == ' ' || s[j-1] == ':' || s[j-1] == '=' || s[j-1] == '"' || s[j-1] == '\'') {
			colon = colon || s[j-1] == ':' || s[j-1] == '='
			j--
		}
		if j == k || !colon && (k-j > 1 || s[k-1] != ' ') {
			continue // "10", "x0", `limit "0"`: not a lone 0 after a label
		}
		label := s[:j]
		if n := len(label); n >= 6 && hasPrefixFoldASCII(label[n-6:], "_value") {
			label = label[:n-6]
		}
		if n := len(label); n >= 5 && hasPrefixFoldASCII(label[n-5:], "limit") {
			return true
		}
	}
	return false
}

// protoLimitZero reports whether s holds Google's ErrorInfo printed in
// protobuf's text format with a quota limit of 0 — `key:
// "quota_limit_value"` and, next, `value: "0"` — as google-api-core's
// exceptions print their details.
func protoLimitZero(s string) bool {
	i := strings.Index(s, `"quota_limit_value"`)
	if i < 0 {
		return false
	}
	rest := s[i+len(`"quota_limit_value"`):]
	j := strings.Index(rest, "value:")
	if j < 0 || j > 40 {
		return false
	}
	v := strings.TrimLeft(rest[j+len("value:"):], " \t")
	return strings.HasPrefix(v, `"0"`)
}
