package fakes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Bedrock Runtime Converse dialect of the fake LLM: POST
// /model/{modelId}/converse where the AWS SDK's endpoint override
// (BaseEndpoint, AWS_ENDPOINT_URL_BEDROCK_RUNTIME) points, SigV4-signed.
// Answers are the Converse JSON; exceptions are shaped as the service sends
// them (restJson1): the code in the X-Amzn-Errortype header, the message in
// a {"message": …} body, the status of the exception, x-amzn-RequestId.

// bedrockErrorNamespace follows the code in X-Amzn-Errortype, as the service
// sends it; the SDK strips it.
const bedrockErrorNamespace = ":http://internal.amazon.com/coral/com.amazon.bedrock/"

// converseRequest is the part of a Converse request the fake reads.
type converseRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	System json.RawMessage `json:"system"`
}

func (l *LLM) parseBedrock(c *llmCall, r *http.Request, body []byte) {
	// SigV4 signs with the caller's AWS credentials; the fake checks that a
	// signature is there, not its value (it has no secret to check it with).
	auth := r.Header.Get("Authorization")
	if strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") && strings.Contains(auth, "Credential=") && strings.Contains(auth, "Signature=") {
		c.presented = "sigv4"
	}
	c.authOK = c.presented != ""
	c.model = r.PathValue("modelId")
	if c.bad != nil {
		return
	}
	var req converseRequest
	if err := json.Unmarshal(body, &req); err != nil {
		c.bad = &badRequest{status: http.StatusBadRequest, message: "Malformed input request, please reformat your input and try again."}
		return
	}
	c.messages = len(req.Messages)
	if !c.addSystem(req.System, "", "Malformed input request: ") {
		return
	}
	for i, m := range req.Messages {
		text, err := textOf(m.Content, "")
		if err != nil {
			c.bad = &badRequest{status: http.StatusBadRequest, message: fmt.Sprintf("Malformed input request: messages.%d.content: %v", i, err)}
			return
		}
		c.p.add(m.Role, text)
	}
	if len(req.Messages) == 0 {
		c.bad = &badRequest{status: http.StatusBadRequest, message: "A conversation must start with a user message. Try again with a conversation that starts with a user message."}
	}
}

// bedrockError answers one Bedrock Runtime exception.
func bedrockError(w http.ResponseWriter, d Decision, status int, code, message string) {
	w.Header().Set("x-amzn-RequestId", requestIDUUID(d))
	w.Header().Set("X-Amzn-Errortype", code+bedrockErrorNamespace)
	writeJSON(w, status, map[string]string{"message": message})
}

// bedrockBadCode is the exception of a request the fake rejects itself.
func bedrockBadCode(int) string { return "ValidationException" }

// failBedrock answers an error fault with the Bedrock Runtime exception the
// service sends for it (messages as the service words them).
func (l *LLM) failBedrock(w http.ResponseWriter, d Decision, c llmCall, fault Fault) {
	switch fault {
	case FaultRateLimit:
		bedrockError(w, d, http.StatusTooManyRequests, "ThrottlingException", "Too many requests, please wait before trying again.")
	case FaultQuota:
		bedrockError(w, d, http.StatusBadRequest, "ServiceQuotaExceededException", "Your request exceeds the service quota "+
			"for your account. You can view your quotas at Viewing service quotas. You can resubmit your request later.")
	case FaultServerError:
		bedrockError(w, d, http.StatusInternalServerError, "InternalServerException", "An internal server error occurred. Retry your request.")
	case FaultUnavailable:
		bedrockError(w, d, http.StatusServiceUnavailable, "ServiceUnavailableException", "Bedrock is unable to process your request.")
	case FaultModelTimeout:
		bedrockError(w, d, http.StatusRequestTimeout, "ModelTimeoutException", "Model has timed out in processing the request. Try your request again.")
	case FaultModelNotReady:
		bedrockError(w, d, http.StatusTooManyRequests, "ModelNotReadyException", "Model is not ready for inference. Wait and try your request again.")
	case FaultModelError:
		bedrockError(w, d, http.StatusFailedDependency, "ModelErrorException", "The system encountered an unexpected error during processing. Try your request again.")
	case FaultContextLength:
		bedrockError(w, d, http.StatusBadRequest, "ValidationException", "Input is too long for requested model.")
	case FaultAuth:
		if c.presented == "" {
			bedrockError(w, d, http.StatusForbidden, "MissingAuthenticationTokenException", "Missing Authentication Token")
			return
		}
		bedrockError(w, d, http.StatusForbidden, "AccessDeniedException", "You don't have access to the model with the specified model ID.")
	case FaultModelNotFound:
		bedrockError(w, d, http.StatusBadRequest, "ValidationException", "The provided model identifier is invalid.")
	default:
		bedrockError(w, d, http.StatusInternalServerError, "InternalServerException", "fake LLM: fault "+string(fault)+" has no Bedrock answer")
	}
}

type converseResponse struct {
	Output struct {
		Message struct {
			Role    string             `json:"role"`
			Content []converseTextPart `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason string `json:"stopReason"`
	Usage      struct {
		InputTokens  int `json:"inputTokens"`
		OutputTokens int `json:"outputTokens"`
		TotalTokens  int `json:"totalTokens"`
	} `json:"usage"`
	Metrics struct {
		LatencyMs int `json:"latencyMs"`
	} `json:"metrics"`
}

type converseTextPart struct {
	Text string `json:"text"`
}

// completeBedrock answers a 200 ConverseResponse: stopReason end_turn,
// max_tokens, content_filtered or guardrail_intervened (with the blocked
// message a guardrail answers). A model's refusal carries no stop reason of
// its own on Bedrock: it is a plain-text answer.
func (l *LLM) completeBedrock(w http.ResponseWriter, d Decision, a answerText, in, out int) {
	var r converseResponse
	r.Output.Message.Role = "assistant"
	r.Output.Message.Content = []converseTextPart{}
	text := a.content
	r.StopReason = "end_turn"
	switch a.stop {
	case stopMaxTokens:
		r.StopReason = "max_tokens"
	case stopFilter:
		r.StopReason = "content_filtered"
	case stopGuardrail:
		r.StopReason = "guardrail_intervened"
	case stopRefusal:
		text = a.refusal
	}
	if text != "" {
		r.Output.Message.Content = append(r.Output.Message.Content, converseTextPart{Text: text})
	}
	r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.TotalTokens = in, out, in+out
	r.Metrics.LatencyMs = 42
	w.Header().Set("x-amzn-RequestId", requestIDUUID(d))
	writeJSON(w, http.StatusOK, r)
}
