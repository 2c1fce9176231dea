package failure

import "net/http"

// Rule tables. Classification reads structure first — codes, then statuses —
// and text last. Every table here is data: to teach triage a new provider
// code, add a row.

// ProviderCodes maps the error codes and types that model providers and
// webhooks put in their bodies to a class. Only definite codes are here;
// generic types such as "invalid_request_error" are decided by the message
// phrases and the status.
var ProviderCodes = map[string]Class{
	// OpenAI / Azure OpenAI (error.code, error.type)
	"rate_limit_exceeded":                  RateLimited,
	"requests":                             RateLimited, // OpenAI error.type for request-rate limits
	"tokens":                               RateLimited, // OpenAI error.type for token-rate limits
	"insufficient_quota":                   BudgetExceeded,
	"billing_hard_limit_reached":           BudgetExceeded,
	"billing_not_active":                   BudgetExceeded,
	"organization_spend_limit_exceeded":    BudgetExceeded, // OpenAI hard spend limit, HTTP 429
	"project_spend_limit_exceeded":         BudgetExceeded, // OpenAI hard spend limit, HTTP 429
	"enforced_spend_limit_reached":         BudgetExceeded, // Anthropic error.details.error_code on a 429 rate_limit_error
	"context_length_exceeded":              TokenLimit,
	"string_above_max_length":              TokenLimit,
	"content_policy_violation":             ContentPolicy,
	"content_filter":                       ContentPolicy, // Azure
	"ResponsibleAIPolicyViolation":         ContentPolicy, // Azure innererror.code
	"jailbreak":                            ContentPolicy, // Azure prompt shields
	"invalid_api_key":                      AuthDenied,
	"invalid_authentication":               AuthDenied,
	"authentication_error":                 AuthDenied, // Anthropic type
	"permission_error":                     AuthDenied, // Anthropic type
	"unsupported_country_region_territory": AuthDenied,
	"model_not_found":                      ClientError, // the model name is wrong: a model-specific failure
	"DeploymentNotFound":                   ClientError, // Azure: the deployment (model) does not exist
	"OperationNotSupported":                ClientError, // Azure: the model does not support the operation
	"not_found_error":                      ClientError, // Anthropic type (model or endpoint)
	"server_error":                         UpstreamUnavailable,
	"internal_error":                       UpstreamUnavailable,
	"api_error":                            UpstreamUnavailable, // Anthropic type
	"overloaded_error":                     UpstreamUnavailable, // Anthropic 529
	"engine_overloaded":                    UpstreamUnavailable,
	"service_unavailable":                  UpstreamUnavailable,
	"timeout":                              NetworkTimeout,
	"request_timeout":                      NetworkTimeout,
	"rate_limit_error":                     RateLimited,    // Anthropic type
	"request_too_large":                    TokenLimit,     // Anthropic 413
	"billing_error":                        BudgetExceeded, // Anthropic 402
	"invalid_prompt":                       ContentPolicy,  // OpenAI usage-policy refusals of the prompt
	"moderation_blocked":                   ContentPolicy,
	"model_decommissioned":                 ClientError,    // Groq: a retired model
	"RESOURCE_EXHAUSTED":                   RateLimited,    // Google (Gemini's OpenAI-compatible endpoint)
	"PERMISSION_DENIED":                    AuthDenied,     // Google
	"UNAUTHENTICATED":                      AuthDenied,     // Google
	"DEADLINE_EXCEEDED":                    NetworkTimeout, // Google

	// Slack incoming webhooks answer with bare tokens.
	"invalid_payload":                   SchemaInvalid,
	"no_text":                           SchemaInvalid,
	"too_many_attachments":              SchemaInvalid,
	"invalid_token":                     AuthDenied,
	"action_prohibited":                 AuthDenied,
	"posting_to_general_channel_denied": AuthDenied,
	"no_service":                        NotFound,
	"no_service_id":                     NotFound,
	"no_team":                           NotFound,
	"team_disabled":                     NotFound,
	"invalid_team":                      NotFound,
	"channel_not_found":                 NotFound,
	"channel_is_archived":               NotFound,
	"user_not_found":                    NotFound,
	"rollup_error":                      UpstreamUnavailable,
	"ratelimited":                       RateLimited,
	"rate_limited":                      RateLimited,
}

// AWSThrottleCodes are the throttling codes the AWS SDK for Go v2 retries as
// throttles (aws/retry.DefaultThrottleErrorCodes), plus service-specific ones.
var AWSThrottleCodes = []string{
	"Throttling",
	"ThrottlingException",
	"ThrottledException",
	"RequestThrottledException",
	"TooManyRequestsException",
	"ProvisionedThroughputExceededException",
	"TransactionInProgressException",
	"RequestLimitExceeded",
	"BandwidthLimitExceeded",
	"LimitExceededException",
	"RequestThrottled",
	"SlowDown",
	"PriorRequestNotComplete",
	"EC2ThrottledException",
	"KMSThrottlingException",        // KMS
	"KMS.ThrottlingException",       // KMS via SQS/DynamoDB SSE
	"ServiceQuotaExceededException", // Bedrock: over the account's tokens-per-minute quota
	"AWS.SimpleQueueService.RequestThrottled",
	"OverLimit",       // SQS: in-flight or batch limits
	"ThrottlingError", // DynamoDB: a batch statement's or a cancelled transaction's reason
}

// AWSCodes maps AWS data-plane error codes (DynamoDB, SQS, KMS, STS, SSM,
// Secrets Manager, Bedrock) to classes. Throttling codes come from
// AWSThrottleCodes.
var AWSCodes = mergeCodes(map[string]Class{
	// transient
	"RequestTimeout":                       NetworkTimeout,
	"RequestTimeoutException":              NetworkTimeout,
	"DependencyTimeoutException":           NetworkTimeout, // KMS
	"ModelTimeoutException":                NetworkTimeout, // Bedrock
	"InternalServerError":                  UpstreamUnavailable,
	"InternalServerException":              UpstreamUnavailable,
	"InternalFailure":                      UpstreamUnavailable,
	"InternalError":                        UpstreamUnavailable,
	"ServiceUnavailable":                   UpstreamUnavailable,
	"ServiceUnavailableException":          UpstreamUnavailable,
	"KMSInternalException":                 UpstreamUnavailable,
	"KMS.KMSInternalException":             UpstreamUnavailable,
	"IDPCommunicationError":                UpstreamUnavailable, // STS
	"ModelNotReadyException":               UpstreamUnavailable, // Bedrock: model is being loaded
	"ModelErrorException":                  UpstreamUnavailable, // Bedrock: the model failed serving the request
	"ModelStreamErrorException":            UpstreamUnavailable,
	"AWS.SimpleQueueService.InternalError": UpstreamUnavailable,

	// lost races
	"ConditionalCheckFailedException":           Conflict,
	"TransactionConflictException":              Conflict,
	"TransactionCanceledException":              Conflict,
	"ReceiptHandleIsInvalid":                    Conflict, // SQS: the message moved on since we received it
	"MessageNotInflight":                        Conflict,
	"AWS.SimpleQueueService.MessageNotInflight": Conflict,
	"ConcurrentModificationException":           Conflict,
	"TransactionConflict":                       Conflict, // a TransactionCanceledException's reason
	"ConditionalCheckFailed":                    Conflict, // a TransactionCanceledException's reason

	// credentials and permissions
	"AccessDenied":                         AuthDenied,
	"AccessDeniedException":                AuthDenied,
	"UnrecognizedClientException":          AuthDenied,
	"InvalidClientTokenId":                 AuthDenied,
	"InvalidSignatureException":            AuthDenied,
	"SignatureDoesNotMatch":                AuthDenied,
	"IncompleteSignature":                  AuthDenied,
	"MissingAuthenticationToken":           AuthDenied,
	"ExpiredToken":                         AuthDenied,
	"ExpiredTokenException":                AuthDenied,
	"RequestExpired":                       AuthDenied,
	"KMSAccessDeniedException":             AuthDenied,
	"KMS.AccessDeniedException":            AuthDenied,
	"KMS.DisabledException":                AuthDenied,
	"DisabledException":                    AuthDenied,
	"KMSDisabledException":                 AuthDenied,
	"InvalidIdentityToken":                 AuthDenied,
	"InvalidAuthorizationMessageException": AuthDenied,
	"NotAuthorized":                        AuthDenied,
	"OptInRequired":                        AuthDenied,
	"AuthFailure":                          AuthDenied,
	"UnauthorizedOperation":                AuthDenied,

	// our input
	"InvalidMessageContents":                   SchemaInvalid, // SQS
	"ItemCollectionSizeLimitExceededException": SchemaInvalid,

	// deployment defects: a table, queue, key or parameter that should exist
	"ResourceNotFoundException":                           InternalBug,
	"QueueDoesNotExist":                                   InternalBug,
	"AWS.SimpleQueueService.NonExistentQueue":             InternalBug,
	"NonExistentQueue":                                    InternalBug,
	"KMSNotFoundException":                                InternalBug,
	"KMS.NotFoundException":                               InternalBug,
	"NotFoundException":                                   InternalBug,
	"KMSInvalidStateException":                            InternalBug,
	"KMS.KMSInvalidStateException":                        InternalBug,
	"ParameterNotFound":                                   InternalBug, // SSM
	"DecryptionFailure":                                   InternalBug, // Secrets Manager
	"RegionDisabledException":                             InternalBug,
	"InvalidParameterValue":                               InternalBug,
	"InvalidParameterCombination":                         InternalBug,
	"MissingParameter":                                    InternalBug,
	"ValidationException":                                 InternalBug, // our request was malformed
	"SerializationException":                              InternalBug,
	"InvalidAddress":                                      InternalBug,
	"AWS.SimpleQueueService.BatchEntryIdsNotDistinct":     InternalBug,
	"BatchEntryIdsNotDistinct":                            InternalBug,
	"TooManyEntriesInBatchRequest":                        InternalBug,
	"AWS.SimpleQueueService.TooManyEntriesInBatchRequest": InternalBug,
	"BatchRequestTooLong":                                 InternalBug,
	"UnsupportedOperation":                                InternalBug,
}, AWSThrottleCodes, RateLimited)

// BedrockCodes override AWSCodes for Bedrock runtime, where the codes speak
// about the model rather than our deployment.
var BedrockCodes = map[string]Class{
	"ValidationException":       ClientError, // bad parameters for this model; refined by ProviderPhrases ("Input is too long")
	"ResourceNotFoundException": ClientError, // unknown model id
	"ModelErrorException":       UpstreamUnavailable,
}

// StatusClasses maps HTTP statuses to classes for every provider. Statuses
// whose meaning depends on who answered are in ModelStatusClasses. ClientError
// here means "a 4xx nothing else explains"; it stays CLIENT_ERROR only for a
// model provider: from AWS it is our malformed request (INTERNAL_BUG), from a
// webhook or article host our payload or input (SCHEMA_INVALID), because
// neither says anything about a model.
var StatusClasses = map[int]Class{
	// triage's clients do not follow a redirect of a POST (the body and the
	// signature would go elsewhere), and fetch gives up after 10: the
	// destination has moved, and the URL needs an operator.
	http.StatusMovedPermanently:           NotFound,
	http.StatusFound:                      NotFound,
	http.StatusSeeOther:                   NotFound,
	http.StatusTemporaryRedirect:          NotFound,
	http.StatusPermanentRedirect:          NotFound,
	http.StatusBadRequest:                 ClientError,
	http.StatusUnauthorized:               AuthDenied,
	http.StatusPaymentRequired:            BudgetExceeded,
	http.StatusForbidden:                  AuthDenied,
	http.StatusNotFound:                   NotFound,
	http.StatusMethodNotAllowed:           ClientError,
	http.StatusNotAcceptable:              ClientError,
	http.StatusProxyAuthRequired:          AuthDenied,
	http.StatusRequestTimeout:             NetworkTimeout,
	http.StatusConflict:                   Conflict,
	http.StatusGone:                       NotFound,
	http.StatusRequestEntityTooLarge:      TokenLimit,
	http.StatusUnsupportedMediaType:       ClientError,
	http.StatusUnprocessableEntity:        ClientError,
	http.StatusTooEarly:                   UpstreamUnavailable,
	http.StatusTooManyRequests:            RateLimited,
	http.StatusUnavailableForLegalReasons: ContentPolicy,
	http.StatusInternalServerError:        UpstreamUnavailable,
	http.StatusNotImplemented:             ClientError,
	http.StatusBadGateway:                 UpstreamUnavailable,
	http.StatusServiceUnavailable:         UpstreamUnavailable,
	http.StatusGatewayTimeout:             UpstreamUnavailable,
	http.StatusHTTPVersionNotSupported:    ClientError,
	http.StatusInsufficientStorage:        UpstreamUnavailable,
	424:                                   UpstreamUnavailable, // Bedrock ModelErrorException: failed dependency
	520:                                   UpstreamUnavailable, // Cloudflare: unknown error
	521:                                   UpstreamUnavailable, // Cloudflare: origin down
	522:                                   NetworkTimeout,      // Cloudflare: origin connection timed out
	523:                                   UpstreamUnavailable, // Cloudflare: origin unreachable
	524:                                   NetworkTimeout,      // Cloudflare: origin response timed out
	529:                                   UpstreamUnavailable, // Anthropic: overloaded
	598:                                   NetworkTimeout,      // network read timeout (proxies)
	599:                                   NetworkTimeout,      // network connect timeout (proxies)
}

// ModelStatusClasses override StatusClasses for model providers: a 404 from a
// model API means the model or deployment name is wrong, which says something
// about the model, not about the item.
var ModelStatusClasses = map[int]Class{
	// A model API that redirects means our base URL is wrong (http for
	// https, a moved endpoint): a deployment defect, not the model's.
	http.StatusMovedPermanently:  InternalBug,
	http.StatusFound:             InternalBug,
	http.StatusSeeOther:          InternalBug,
	http.StatusTemporaryRedirect: InternalBug,
	http.StatusPermanentRedirect: InternalBug,
	http.StatusNotFound:          ClientError,
	http.StatusGone:              ClientError, // a retired model
}

// Phrase is a message fragment that decides a class even when the status is
// ambiguous (a 400 that is really a context-length error or an exhausted
// credit balance). Phrases are matched case-insensitively on the provider's
// message before the status table.
type Phrase struct {
	// Fragment is the lowercase text to find.
	Fragment string
	// Class is the class the fragment decides.
	Class Class
}

// GenericCodes say only that the request was bad in some way: the
// provider's message and the HTTP status say more, so these codes decide
// only when nothing else does (Anthropic's invalid_request_error carries
// "prompt is too long" as often as "credit balance is too low"; Bedrock's
// ValidationException "Input is too long for requested model").
var GenericCodes = map[string]bool{
	"invalid_request_error": true, "invalid_request": true, "bad_request": true, "BadRequest": true,
	"BadRequestError": true, "BadRequestException": true, "ValidationException": true, "ValidationError": true,
	"InvalidParameterValue": true, "InvalidParameterException": true, "InvalidRequestException": true,
	"InvalidArgument": true, "INVALID_ARGUMENT": true, "invalid_argument": true,
}

// OverridePhrases are so definite that they beat a rate-limit code: OpenAI
// answers a request larger than the organisation's tokens-per-minute limit
// with a 429 and rate_limit_exceeded, but no wait will ever admit it.
var OverridePhrases = []Phrase{
	{"must be reduced in order to run successfully", TokenLimit},
	{"request too large for", TokenLimit}, // OpenAI, Groq: one request above the tokens-per-minute limit
}

// ProviderPhrases are high-precision fragments of providers' and AWS's
// documented messages. They decide before the HTTP status: a 400 that says
// "maximum context length", a 429 that says "credit balance is too low".
// Order matters; the first match wins, so money comes before rate.
var ProviderPhrases = []Phrase{
	{"credit balance is too low", BudgetExceeded}, // Anthropic, HTTP 400
	{"api usage limits", BudgetExceeded},          // Anthropic spend limit, HTTP 400: "You have reached your specified (workspace) API usage limits"
	{"spend limit", BudgetExceeded},
	{"exceeded your current quota", BudgetExceeded},
	{"insufficient_quota", BudgetExceeded},
	{"billing hard limit", BudgetExceeded},
	{"insufficient credits", BudgetExceeded},                     // OpenRouter, HTTP 402
	{"insufficient balance", BudgetExceeded},                     // DeepSeek, HTTP 402
	{"must be reduced in order to run successfully", TokenLimit}, // OpenAI: a request larger than the tokens-per-minute limit
	{"request too large for", TokenLimit},                        // OpenAI, Groq: the same
	{"maximum context length", TokenLimit},                       // OpenAI, vLLM, Mistral
	{"context_length_exceeded", TokenLimit},
	{"prompt is too long", TokenLimit}, // Anthropic
	{"input is too long", TokenLimit},  // Bedrock
	{"too many input tokens", TokenLimit},
	{"context window", TokenLimit},
	{"exceed context limit", TokenLimit},                 // Anthropic: "input length and `max_tokens` exceed context limit"
	{"exceeds the maximum number of tokens", TokenLimit}, // Gemini: "The input token count (…) exceeds the maximum number of tokens allowed"
	{"exceeds the available context size", TokenLimit},   // llama.cpp, Ollama
	{"reduce the length of the messages", TokenLimit},    // OpenAI, Groq
	{"content management policy", ContentPolicy},         // Azure
	{"content filtering policy", ContentPolicy},          // Anthropic: "Output blocked by content filtering policy"
	{"blocked by content filtering", ContentPolicy},
	{"responsibleaipolicyviolation", ContentPolicy},
	{"content_policy_violation", ContentPolicy},
	{"safety system", ContentPolicy}, // OpenAI images/moderation
	{"flagged as potentially violating", ContentPolicy},
	{"invalid api key", AuthDenied},
	{"incorrect api key", AuthDenied},
	{"invalid x-api-key", AuthDenied},
	{"api key not valid", AuthDenied}, // Google
	{"didn't provide an api key", AuthDenied},
	{"no api key provided", AuthDenied},
	{"invalid subscription key", AuthDenied},                          // Azure
	{"security token included in the request is invalid", AuthDenied}, // AWS UnrecognizedClient, InvalidClientTokenId
	{"security token included in the request is expired", AuthDenied}, // AWS ExpiredToken
	{"signature we calculated does not match", AuthDenied},
	{"is not authorized to perform", AuthDenied},                               // IAM
	{"does not exist or you do not have access", ClientError},                  // OpenAI model_not_found: the model name is wrong for this key
	{"the model: `", ClientError},                                              // OpenAI's older "The model: `gpt-4` does not exist"
	{"encountered an unexpected error during processing", UpstreamUnavailable}, // Bedrock InternalServerException
	{"operation is not recognized by the service", InternalBug},                // Bedrock: the runtime's operation sent to another endpoint
	{"receipt handle has expired", Conflict},                                   // SQS InvalidParameterValue: the message moved on
	{"not available for visibility timeout change", Conflict},                  // SQS: received again or deleted since
	{"for parameter receipthandle is invalid", Conflict},
	{"one or more parameter values were invalid", InternalBug}, // DynamoDB ValidationException: a request we built
	{"item size has exceeded the maximum allowed size", InternalBug},
	{"conditional request failed", Conflict}, // DynamoDB
	{"rate limit reached", RateLimited},
	{"rate limit exceeded", RateLimited},
	{"too many requests", RateLimited},
	{"you are being rate limited", RateLimited},      // Discord
	{"please wait before trying again", RateLimited}, // Bedrock: "Too many tokens, please wait before trying again."
	{"request rate is too high", RateLimited},
	{"throughput exceeds the current capacity", RateLimited}, // DynamoDB on-demand
	{"provisioned throughput", RateLimited},
	{"rate exceeded", RateLimited},          // AWS Throttling
	{"request limit exceeded", RateLimited}, // EC2 RequestLimitExceeded
	{"has been throttled", RateLimited},
	{"resource has been exhausted", RateLimited}, // Gemini RESOURCE_EXHAUSTED, HTTP 429
	{"resource exhausted", RateLimited},
	{"overloaded", UpstreamUnavailable},
}

// TransportPhrases are the error strings of a failed connection or call,
// as Go's net, crypto/tls, crypto/x509, net/http (HTTP/2 included) and
// context packages, the AWS SDKs and Node.js print them. They weigh like the
// typed transport errors they come from: after the codes and the definite
// phrases, before the status (a wrapper's "code: 500" around a certificate
// failure is no answer from the upstream). Order matters; the first match
// wins.
var TransportPhrases = []Phrase{
	// crypto/tls and crypto/x509: an operator fixes the trust
	{"x509: ", AuthDenied}, // unknown authority, expired, wrong host
	{"failed to verify certificate", AuthDenied},
	{"self-signed certificate", AuthDenied},                    // Node.js
	{"self signed certificate", AuthDenied},                    // OpenSSL
	{"unable to verify the first certificate", AuthDenied},     // Node.js
	{"certificate has expired", AuthDenied},                    // Node.js, OpenSSL
	{"does not look like a tls handshake", InternalBug},        // an https URL to a plain-HTTP port
	{"server gave http response to https client", InternalBug}, // the same, seen by net/http
	{"tls handshake timeout", NetworkTimeout},
	{"remote error: tls", NetworkTimeout},
	// net/http's HTTP/2 transport: the connection or the stream failed
	{"http2: ", NetworkTimeout}, // GOAWAY, client connection lost, timeout awaiting response headers
	{"stream error: stream id", NetworkTimeout},
	// the AWS SDKs' own failures
	{"failed to get rate limit token", RateLimited}, // Go v2: its client-side retry token bucket is empty; it refills with time
	{"retry quota exceeded", RateLimited},
	{"failed to retrieve credentials", AuthDenied},
	{"failed to refresh cached credentials", AuthDenied},
	{"no ec2 imds role found", AuthDenied},
	{"nocredentialproviders", AuthDenied},
	{"unable to locate credentials", AuthDenied},
	// net, context, io
	{"client.timeout exceeded", NetworkTimeout},
	{"context deadline exceeded", NetworkTimeout},
	{"i/o timeout", NetworkTimeout},
	{"connection reset by peer", NetworkTimeout},
	{"connection refused", NetworkTimeout},
	{"broken pipe", NetworkTimeout},
	{"no such host", NetworkTimeout},
	{"server misbehaving", NetworkTimeout}, // a DNS server's failure
	{"network is unreachable", NetworkTimeout},
	{"no route to host", NetworkTimeout},
	{"use of closed network connection", NetworkTimeout},
	{"server closed idle connection", NetworkTimeout},
	{"socket hang up", NetworkTimeout}, // Node.js
	{"unexpected eof", NetworkTimeout},
	{": eof", NetworkTimeout}, // `Post "…": EOF`: the connection closed before an answer
	// Python (httpx, requests, urllib3, ssl), curl and Node.js spell the same failures
	{"certificate verify failed", AuthDenied},
	{"server disconnected", NetworkTimeout},
	{"remote end closed connection", NetworkTimeout},
	{"connection was reset", NetworkTimeout},
	{"connection aborted", NetworkTimeout},
	{"eof occurred in violation of protocol", NetworkTimeout},
	{"was not closed cleanly", NetworkTimeout}, // curl: an HTTP/2 stream reset
	{"enotfound", NetworkTimeout},              // Node.js: getaddrinfo ENOTFOUND
	{"etimedout", NetworkTimeout},
	{"econnreset", NetworkTimeout},
	{"econnrefused", NetworkTimeout},
}

// TextPhrases are the last resort: words of providers' and people's error
// text for errors that carry no structure (a wrapped string, a log line),
// read after everything else, the status included. Order matters; the
// first match wins.
var TextPhrases = []Phrase{
	{"insufficient_quota", BudgetExceeded},
	{"credit balance is too low", BudgetExceeded},
	{"exceeded your current quota", BudgetExceeded},
	{"budget exceeded", BudgetExceeded},
	{"api usage limits", BudgetExceeded},
	{"spend limit", BudgetExceeded},
	{"context_length_exceeded", TokenLimit},
	{"maximum context length", TokenLimit},
	{"prompt is too long", TokenLimit},
	{"content_policy_violation", ContentPolicy},
	{"content_filter", ContentPolicy},
	{"content policy", ContentPolicy},
	{"rate limit", RateLimited},
	{"rate_limit", RateLimited},
	{"ratelimit", RateLimited},
	{"too many requests", RateLimited},
	{"throttl", RateLimited},
	{"slow down", RateLimited},
	{"timed out", NetworkTimeout},
	{"timeout", NetworkTimeout},
	{"deadline exceeded", NetworkTimeout},
	{"connection reset", NetworkTimeout},
	{"connection closed", NetworkTimeout},
	{"tls handshake", NetworkTimeout},
	{"overloaded", UpstreamUnavailable},
	{"service unavailable", UpstreamUnavailable},
	{"bad gateway", UpstreamUnavailable},
	{"internal server error", UpstreamUnavailable},
	{"internal_error", UpstreamUnavailable},
	{"upstream connect error", UpstreamUnavailable}, // Envoy and service meshes
	{"invalid api key", AuthDenied},
	{"incorrect api key", AuthDenied},
	{"unauthorized", AuthDenied},
	{"forbidden", AuthDenied},
	{"permission denied", AuthDenied},
	{"access denied", AuthDenied},
	{"expired token", AuthDenied},
	{"token expired", AuthDenied},
	// encoding/json, reading model output
	{"unexpected end of json input", ResponseInvalid},
	{"invalid character", ResponseInvalid},
	{"cannot unmarshal", ResponseInvalid},
	{"invalid json", ResponseInvalid},
	{"json parse", ResponseInvalid},
	{"version conflict", Conflict},
	{"optimistic lock", Conflict},
	{"conditional request failed", Conflict},
	{"nil pointer dereference", InternalBug},
	{"index out of range", InternalBug},
	{"invariant", InternalBug},
	{"not found", NotFound},
}

func mergeCodes(m map[string]Class, codes []string, c Class) map[string]Class {
	for _, code := range codes {
		m[code] = c
	}
	return m
}
