// Package failure turns every error triage meets into a stable class.
//
// One classifier serves every stage. It reads structure first and text last:
//
//  1. errors triage raised itself (*Error carries its class),
//  2. recovered panics and runtime errors (INTERNAL_BUG),
//  3. HTTP responses (*HTTPError): the provider's error code from the body
//     (OpenAI, Azure OpenAI, Anthropic, Bedrock, Slack- and Discord-style
//     webhooks), then definite phrases of the provider's message, then the
//     status table,
//  4. AWS API errors through smithy.APIError's ErrorCode (every throttling code
//     the SDK knows, DynamoDB, SQS, KMS, STS codes),
//  5. context deadlines, syscall errnos, TLS and x509, net.Error, truncated
//     bodies, JSON errors of model output,
//  6. the error's text, as the last resort.
//
// The first definite answer wins. Every table is an exported variable, so a
// team can read exactly what triage does with a given code.
//
// A Classification carries the class's traits (retryable, counts toward
// attempts, model-specific), the delay the upstream asked for (Retry-After in
// all its forms, see ParseRequested) and the reason the rule matched. The
// reason never contains upstream message text, so it is safe to log as is.
//
// The package is pure: no clock, no randomness, no AWS calls. Absolute
// Retry-After times are resolved later by the decision, which has a clock.
package failure
