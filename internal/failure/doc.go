// Package failure turns every error triage meets into a stable class (a
// work.Class: the classes and their traits are the leaf's, which every
// layer reads; this package owns the classifier that chooses one).
//
// One classifier serves every stage, and every form the evidence takes: a
// typed error (*HTTPError, the AWS SDK's smithy.APIError, net and TLS
// errors), an *Evidence the CLI builds from a provider, a stage, a status,
// a code, a body and text, or nothing but an error's text. It reasons from
// structure first and from lists second (docs/design.md "Classifying a
// failure"): the role of the upstream (Role, RoleOf: a model endpoint, a
// source, a webhook, AWS — from the provider's name, else the stage, else
// an answer's shape), its wire format (Dialects; any provider name is
// accepted, an unknown one read as OpenAI-compatible at a model endpoint),
// the status, the codes and the words. All of it is weighed as one body of
// evidence, and the most specific evidence wins:
//
//  0. an operator's rule (SetOperatorRule), matching FactsOf(err);
//  1. errors triage raised itself (*Error, or its text "CLASS: reason"),
//     recovered panics and runtime errors (INTERNAL_BUG);
//  2. a specific error code — a provider's (OpenAI and the
//     OpenAI-compatible, Azure OpenAI, Anthropic, Bedrock, Slack- and
//     Discord-style webhooks), Google's (GoogleCodes: google.rpc status
//     names, ErrorInfo reasons) or AWS's — from the body, a header, the
//     SDK's error or the text; a definite phrase of the message refines it
//     (a ValidationException whose message says the input is too long is
//     TOKEN_LIMIT);
//  3. a transport error that arrived without an HTTP answer (context
//     deadlines, syscall errnos, TLS and x509, net.Error, http2);
//  4. definite phrases of the provider's message, then of the whole text
//     ("exceeded your current quota" is BUDGET_EXCEEDED whatever the
//     status);
//  5. a transport error after an answer (a timeout while reading a 200's
//     body), then the transport strings of Go, curl and the common HTTP
//     clients of Python, Node, the JVM, .NET and Rust in the text
//     (TransportPhrases);
//  6. a model's answer, judged by the llm stage's client (internal/upstream/llm), which
//     raises 1's error or an HTTPError with the error object;
//  7. the words of a 4xx by the upstream's role (a model endpoint's
//     ModelWords with their TranslatedWords, a source's or a webhook's
//     UpstreamWords), a generic code
//     (invalid_request_error, ValidationException, INVALID_ARGUMENT), then
//     the status read by the upstream's role (RoleDefaults) — a 2xx
//     decides nothing;
//  8. JSON errors of model output, weak words of the text, UNKNOWN.
//
// A rate limit or a quota is then read by its period (a quota per minute
// or retried within the hour is RATE_LIMITED, one per day or spent is
// BUDGET_EXCEEDED). A classification that only a status default or nothing
// decided is marked Default.
//
// The text is read for the same evidence the types carry: HTTPError's own
// rendering (any provider's name; its operation names the stage), the AWS
// SDK's "operation error Service: Op, https response error StatusCode: N,
// RequestID: …, api error Code: message", botocore's "An error occurred
// (Code) when calling the Op operation", gRPC's "rpc error: code = X desc =
// …", Go clients' `METHOD "url": STATUS {body}`, the Python and JavaScript
// SDKs' "Error code: 429 - {…}", "429 {…}" and error names, labelled codes
// and statuses, a status written in a sentence ("Request failed with status
// code 503", "Server returned HTTP response code: 429"), the provider of a URL's host, and JSON (or Python-literal)
// bodies embedded in the text. A property test holds the text path to the
// typed one: Classify(errors.New(err.Error())) classifies every typed case
// alike. Delays are read from headers, body fields and prose
// (ProseDelay, docs/design.md "Delay hints").
//
// Every table is an exported variable, so a team can read exactly what
// triage does with a given code, phrase or status.
//
// A Classification carries the class's traits (retryable, counts toward
// attempts, model-specific), the delay the upstream asked for (Retry-After in
// all its forms, see ParseRequested) and the reason the rule matched. The
// reason never contains upstream message text, so it is safe to log as is.
//
// The package is pure: no clock, no randomness, no AWS calls. Absolute
// Retry-After times are resolved later by the decision, which has a clock.
package failure
