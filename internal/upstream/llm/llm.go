package llm

import (
	"context"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// DefaultTimeout bounds one Complete call when Config.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// MaxResponseBytes bounds the answer envelope a client reads. A larger 2xx
// body is RESPONSE_INVALID: no enrichment is anywhere near it.
const MaxResponseBytes = 4 << 20

// DefaultMaxTokens is the output cap sent when Request.MaxTokens is zero to
// a dialect that requires one (Anthropic's max_tokens); an enrichment is a
// few hundred tokens.
const DefaultMaxTokens = 1024

// UserAgent is sent with every HTTP request.
const UserAgent = "triage/1.0 (+https://github.com/triagehq/triage)"

// Header names the clients send so that upstream logs (and the fault
// injecting fakes, which key their plans on the item id) can tie a request
// to an item.
const (
	// HeaderItemID carries Request.ItemID.
	HeaderItemID = "X-Triage-Item-Id"
	// HeaderCorrelationID carries Request.CorrelationID.
	HeaderCorrelationID = "X-Correlation-Id"
)

// Message roles.
const (
	// RoleSystem is the instructions.
	RoleSystem = "system"
	// RoleUser is the input.
	RoleUser = "user"
	// RoleAssistant is a model answer.
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	// Role is RoleSystem, RoleUser or RoleAssistant.
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// Request is one completion.
type Request struct {
	// Model is the model (OpenAI, Anthropic), deployment (Azure) or model id
	// (Bedrock). Required.
	Model string
	// Messages is the conversation. At least one is required. System
	// messages go where the dialect wants them (Anthropic's and Bedrock's
	// top-level system field).
	Messages []Message
	// JSONObject asks for one JSON object where the dialect can enforce it
	// (OpenAI's response_format json_object); elsewhere the prompt says so.
	JSONObject bool
	// Temperature is sent when non-nil (a pointer, so that 0 can be sent).
	Temperature *float64
	// MaxTokens caps the answer; zero leaves the provider's default, or
	// DefaultMaxTokens where the dialect requires a cap.
	MaxTokens int
	// ItemID and CorrelationID are sent as HeaderItemID and
	// HeaderCorrelationID when non-empty.
	ItemID, CorrelationID string
}

// Stop is why the model stopped, normalised across dialects. CheckStop
// judges it.
type Stop string

// Stops. The provider's own spelling stays in Response.StopReason.
const (
	// StopEnd is a natural end: OpenAI "stop" (TGI "eos_token"), Anthropic and Bedrock
	// "end_turn" and "stop_sequence", Gemini "STOP", or a server that sent
	// no reason.
	StopEnd Stop = "end"
	// StopMaxTokens is an answer cut off at the output token limit: OpenAI
	// "length", Anthropic and Bedrock "max_tokens", Gemini "MAX_TOKENS".
	StopMaxTokens Stop = "max_tokens"
	// StopContentFilter is an answer a provider filter stopped: OpenAI and
	// Azure "content_filter", Bedrock "content_filtered", Gemini "SAFETY",
	// "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
	// "IMAGE_SAFETY".
	StopContentFilter Stop = "content_filter"
	// StopRefusal is the model declining: Anthropic "refusal", or an OpenAI
	// message whose refusal is set and content empty.
	StopRefusal Stop = "refusal"
	// StopGuardrail is a Bedrock guardrail intervening
	// ("guardrail_intervened").
	StopGuardrail Stop = "guardrail"
	// StopToolUse is a tool call (OpenAI "tool_calls" and "function_call",
	// Anthropic and Bedrock "tool_use", Gemini "MALFORMED_FUNCTION_CALL",
	// "UNEXPECTED_TOOL_CALL"); triage offers no tool.
	StopToolUse Stop = "tool_use"
	// StopContextWindow is input and output filling the model's context
	// window ("model_context_window_exceeded").
	StopContextWindow Stop = "context_window"
	// StopPromptBlocked is a prompt the provider refused to answer: Gemini's
	// promptFeedback.blockReason with no candidates.
	StopPromptBlocked Stop = "prompt_blocked"
	// StopUnavailable is an answer the provider stopped for want of
	// capacity: DeepSeek's "insufficient_system_resource".
	StopUnavailable Stop = "unavailable"
	// StopOther is any other reason (Anthropic "pause_turn", Bedrock
	// "malformed_model_output", Gemini "OTHER", a value added after this
	// code).
	StopOther Stop = "other"
)

// Usage is the token usage a provider reported for one call.
type Usage struct {
	// InputTokens counts the prompt, cached or not; OutputTokens the answer.
	InputTokens, OutputTokens int
	// Reported is false when the answer carried no usage; the budget then
	// charges its flat estimate.
	Reported bool
}

// Response is an answer a client received.
type Response struct {
	// Provider is the dialect that answered.
	Provider failure.Provider
	// Content is the answer's text (the first choice's content, or the
	// text blocks joined). It may be empty; judging it is ParseEnrichment's
	// job.
	Content string
	// Stop is the normalised stop reason; StopReason the provider's own
	// value ("" when it sent none).
	Stop       Stop
	StopReason string
	// Model is the model the upstream says answered, which may be more
	// specific than Request.Model ("gpt-4o-2024-08-06" for "gpt-4o").
	Model string
	// RequestID is the upstream's request id (x-request-id,
	// apim-request-id, request-id, x-amzn-requestid), or the answer's id
	// when there is none.
	RequestID string
	// Usage is the reported token usage.
	Usage Usage
}

// Completer makes one model call; every dialect's client implements it.
// Complete returns the decoded answer, whatever its stop reason — Judge
// decides whether it is usable, and its Usage is what the call cost either
// way — or the error of a call that brought no answer: a non-2xx status, a
// transport failure, a malformed envelope, an error object or stream error
// event in a 2xx, an invalid Request (INTERNAL_BUG).
type Completer interface {
	Complete(ctx context.Context, req Request) (Response, error)
	// Provider names the dialect, for errors and the budget.
	Provider() failure.Provider
}

// Config configures a client.
type Config struct {
	// Provider names the model endpoint, and its dialect
	// (failure.Provider.Dialect) selects the client: failure.OpenAI (the
	// default, and every OpenAI-compatible endpoint: groq, mistral, vllm,
	// a name triage does not know, …), failure.Azure, failure.Anthropic,
	// failure.Bedrock or failure.Gemini (the Gemini API and Vertex AI). The
	// client reports the name given.
	Provider failure.Provider
	// BaseURL is the API root: "https://api.openai.com/v1" (the client
	// POSTs to BaseURL + "/chat/completions"), an Azure resource's
	// "https://NAME.openai.azure.com/openai" (deployments/<model>/… is
	// added per request, api-version defaulting to DefaultAzureAPIVersion)
	// or a full deployment URL, "https://api.anthropic.com" (+
	// "/v1/messages"), DefaultGeminiBaseURL or a Vertex AI publisher's root
	// (+ "/models/<model>:generateContent"). Required except for Bedrock,
	// where it overrides the SDK's endpoint (a VPC endpoint, a local fake),
	// and Gemini, where it defaults to DefaultGeminiBaseURL. A query string
	// is kept.
	BaseURL string
	// APIKey authenticates the HTTP dialects: "Authorization: Bearer"
	// (OpenAI), "api-key" (Azure), "x-api-key" (Anthropic),
	// "x-goog-api-key" (Gemini, Vertex AI). Empty sends none
	// (local fakes). It is scrubbed from any error body kept. Bedrock
	// ignores it: it signs with AWS credentials.
	APIKey string
	// Timeout bounds each Complete call through its context. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// HTTPClient sends the requests. Nil means a client with 5 s dial and
	// TLS handshake timeouts (HTTP dialects) or the AWS config's client
	// (Bedrock). Redirects are never followed.
	HTTPClient *http.Client
	// AWS is the SDK configuration Bedrock uses: region and credentials
	// (the function's role). Required for Bedrock, ignored otherwise.
	AWS *aws.Config
}

// NewCompleter returns the client of cfg.Provider's dialect; a name triage
// does not know is an OpenAI-compatible endpoint (docs/design.md
// "Dialects"). A provider that is not a model endpoint (a webhook, AWS) or
// an invalid configuration is an INTERNAL_BUG (a deployment's
// configuration).
func NewCompleter(cfg Config) (Completer, error) {
	if r := cfg.Provider.Role(); r != failure.RoleModel && r != failure.RoleUnknown || cfg.Provider == failure.HTTP {
		return nil, failure.New(work.InternalBug, "llm provider %q is not a model endpoint", truncateString(string(cfg.Provider), 40))
	}
	switch cfg.Provider.Dialect() {
	case failure.Anthropic:
		return NewAnthropic(cfg)
	case failure.Bedrock:
		return NewBedrock(cfg)
	case failure.Gemini:
		return NewGemini(cfg)
	}
	return New(cfg)
}

func timeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}
