// Package llm is triage's model client: one Completer interface over five
// wire dialects — OpenAI chat completions (and every OpenAI-compatible
// endpoint), Azure OpenAI, the Anthropic Messages API, the Amazon Bedrock
// Runtime Converse API and Google's generateContent (the Gemini API and
// Vertex AI) — plus the enrichment prompt and the judgement of the model's
// answer. NewCompleter picks the client by the provider's dialect.
//
// # One judgement, whatever the dialect
//
// Every client maps its provider's answer onto the same Response — the text,
// a Stop normalised from the provider's own stop reason, the reported token
// usage — and its failures onto errors failure.Classify reads:
//
//   - a non-2xx answer is a *failure.HTTPError (OpenAI, Azure, Anthropic,
//     Gemini; its Stage is the llm stage) or
//     the AWS SDK's typed exception inside a *smithy.OperationError
//     (Bedrock: ThrottlingException, ModelTimeoutException, …);
//   - a transport failure keeps net.Error, syscall errnos and context errors
//     in its chain;
//   - a 2xx that is not an answer — a malformed envelope, an error object or
//     a text/event-stream error event after HTTP 200 — is RESPONSE_INVALID,
//     or an *HTTPError carrying the error object so its code is classified;
//   - a 2xx whose stop reason makes the answer unusable is judged by
//     CheckStop, the same function for every dialect: cut off at the token
//     limit (length, max_tokens) is RESPONSE_INVALID, a refusal, a content
//     filter or a guardrail intervention is CONTENT_POLICY, a context window
//     exceeded is TOKEN_LIMIT, a tool call (none is offered) or an unknown
//     stop reason is RESPONSE_INVALID.
//
// The text of a usable answer then goes through ParseEnrichment: empty, not
// JSON, the wrong schema, or an action's ACTION_OUTCOME marker; Judge does
// both. JudgeRecorded runs a dialect's real client over a recorded HTTP
// response and judges it, so `triage classify` reaches exactly the decision
// the llm stage reaches (no copy of the rules).
//
// The clients never retry (the Bedrock client turns the SDK's retryer off):
// the stage's queue is the one retry owner. Neither API keys nor messages
// ever appear in an error; the Bedrock client signs with the function's role
// (SigV4) and holds no key.
package llm
