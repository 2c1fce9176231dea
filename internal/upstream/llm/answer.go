package llm

import (
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// stopOf maps a provider's stop reason to a Stop. The tables are the
// providers' documented values; anything else is StopOther.
var (
	// OpenAI chat.completions finish_reason, and what OpenAI-compatible
	// servers add: Hugging Face TGI ends with "eos_token" or
	// "stop_sequence", DeepSeek stops with "insufficient_system_resource"
	// when its inference system runs short.
	openAIStops = map[string]Stop{
		"": StopEnd, "stop": StopEnd, "length": StopMaxTokens, "content_filter": StopContentFilter,
		"tool_calls": StopToolUse, "function_call": StopToolUse,
		"eos_token": StopEnd, "stop_sequence": StopEnd, "insufficient_system_resource": StopUnavailable,
	}
	// Anthropic Messages stop_reason.
	anthropicStops = map[string]Stop{
		"": StopEnd, "end_turn": StopEnd, "stop_sequence": StopEnd, "max_tokens": StopMaxTokens,
		"refusal": StopRefusal, "tool_use": StopToolUse, "model_context_window_exceeded": StopContextWindow,
	}
	// Bedrock Converse stopReason (types.StopReason).
	bedrockStops = map[string]Stop{
		"": StopEnd, "end_turn": StopEnd, "stop_sequence": StopEnd, "max_tokens": StopMaxTokens,
		"guardrail_intervened": StopGuardrail, "content_filtered": StopContentFilter, "tool_use": StopToolUse,
		"model_context_window_exceeded": StopContextWindow,
	}
)

func stopOf(table map[string]Stop, reason string) Stop {
	if s, ok := table[reason]; ok {
		return s
	}
	return StopOther
}

// CheckStop judges an answer by why it stopped, the same way for every
// dialect: nil for StopEnd, and otherwise
//
//	StopMaxTokens      RESPONSE_INVALID  the answer was cut off
//	StopContentFilter  CONTENT_POLICY    a provider filter stopped it
//	StopRefusal        CONTENT_POLICY    the model declined
//	StopGuardrail      CONTENT_POLICY    a Bedrock guardrail intervened
//	StopContextWindow  TOKEN_LIMIT       input and output overflow the context window
//	StopPromptBlocked  CONTENT_POLICY    the provider blocked the prompt
//	StopToolUse        RESPONSE_INVALID  a tool call; none was offered
//	StopUnavailable    UPSTREAM_UNAVAILABLE  the provider ran short of capacity mid-answer
//	StopOther          RESPONSE_INVALID  an unexpected stop reason
//
// The reasons name the stop reason, never the answer's text.
func CheckStop(r Response) error {
	why := " (" + string(r.Provider) + " stop reason " + quoteShort(r.StopReason) + ")"
	switch r.Stop {
	case StopEnd, "":
		return nil
	case StopMaxTokens:
		return failure.New(work.ResponseInvalid, "answer cut off at the token limit%s", why)
	case StopContentFilter:
		return failure.New(work.ContentPolicy, "answer stopped by the provider's content filter%s", why)
	case StopRefusal:
		return failure.New(work.ContentPolicy, "model refused the request%s", why)
	case StopGuardrail:
		return failure.New(work.ContentPolicy, "a guardrail intervened%s", why)
	case StopContextWindow:
		return failure.New(work.TokenLimit, "input and answer exceed the model's context window%s", why)
	case StopPromptBlocked:
		return failure.New(work.ContentPolicy, "the provider blocked the prompt%s", why)
	case StopToolUse:
		return failure.New(work.ResponseInvalid, "model asked to call a tool, and none was offered%s", why)
	case StopUnavailable:
		return failure.New(work.UpstreamUnavailable, "the provider stopped the answer for want of capacity%s", why)
	}
	return failure.New(work.ResponseInvalid, "unexpected stop reason%s", why)
}

// Judge is the llm stage's whole judgement of an answer that arrived:
// CheckStop, then ParseEnrichment of its content for an item of kind.
func Judge(kind store.Kind, r Response) (work.Enrichment, error) {
	if err := CheckStop(r); err != nil {
		return work.Enrichment{}, err
	}
	return ParseEnrichment(kind, r.Content)
}

func quoteShort(s string) string {
	if s == "" {
		return "none"
	}
	return "\"" + truncateString(s, 40) + "\""
}
