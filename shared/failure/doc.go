// Package failure turns every error triage meets into a stable class.
//
// One classifier serves every stage, and every form the evidence takes: a
// typed error (*HTTPError, the AWS SDK's smithy.APIError, net and TLS
// errors), an *Evidence the CLI builds from a status, a code, a body and
// text, or nothing but an error's text. All of it is weighed as one body of
// evidence, and the most specific evidence wins:
//
//  1. errors triage raised itself (*Error, or its text "CLASS: reason"),
//     recovered panics and runtime errors (INTERNAL_BUG);
//  2. a specific error code — a provider's (OpenAI, Azure OpenAI,
//     Anthropic, Bedrock, Slack- and Discord-style webhooks) or AWS's
//     (every throttling code the SDK knows, DynamoDB, SQS, KMS, STS) — from
//     the body, a header, the SDK's error or the text; a definite phrase of
//     the message refines it (a ValidationException whose message says the
//     input is too long is TOKEN_LIMIT);
//  3. a transport error that arrived without an HTTP answer (context
//     deadlines, syscall errnos, TLS and x509, net.Error, http2);
//  4. definite phrases of the provider's message, then of the whole text
//     ("exceeded your current quota" is BUDGET_EXCEEDED whatever the
//     status);
//  5. a transport error after an answer (a timeout while reading a 200's
//     body), then Go's, Python's, curl's and Node's transport strings in
//     the text;
//  6. a generic code (invalid_request_error, ValidationException,
//     bad_request), then the status table — a 2xx decides nothing;
//  7. JSON errors of model output, weak words of the text, UNKNOWN.
//
// The text is read for the same evidence the types carry: HTTPError's own
// rendering, the AWS SDK's "operation error Service: Op, https response
// error StatusCode: N, RequestID: …, api error Code: message", botocore's
// "An error occurred (Code) when calling the Op operation", Go clients'
// `METHOD "url": STATUS {body}`, labelled codes and statuses, the provider
// of a URL's host, and JSON bodies embedded in the text. A property test
// holds the text path to the typed one: Classify(errors.New(err.Error()))
// classifies every typed case alike.
//
// Every table is an exported variable, so a team can read exactly what
// triage does with a given code or phrase.
//
// A Classification carries the class's traits (retryable, counts toward
// attempts, model-specific), the delay the upstream asked for (Retry-After in
// all its forms, see ParseRequested) and the reason the rule matched. The
// reason never contains upstream message text, so it is safe to log as is.
//
// The package is pure: no clock, no randomness, no AWS calls. Absolute
// Retry-After times are resolved later by the decision, which has a clock.
package failure
