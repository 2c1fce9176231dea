package failure

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
	"data_inspection_failed":               ContentPolicy,  // Alibaba DashScope (Qwen) moderation, OpenAI-compatible spelling
	"DataInspectionFailed":                 ContentPolicy,  // DashScope's native InternalError.Algo.DataInspectionFailed
	"Arrearage":                            BudgetExceeded, // Alibaba Cloud (DashScope): the account's payment is overdue

	// The error names of the SDKs that stand for more than a status
	// (LiteLLM raises these on the provider's words; see CodeStatuses for
	// the ones that stand for a status alone).
	"ContextWindowExceededError":  TokenLimit,
	"ContentPolicyViolationError": ContentPolicy,
	"BudgetExceededError":         BudgetExceeded, // LiteLLM proxy: a key's or team's budget

	// Slack incoming webhooks answer with bare tokens.
	"invalid_payload":      SchemaInvalid,
	"no_text":              SchemaInvalid,
	"too_many_attachments": SchemaInvalid,
	// the Web API's (chat.postMessage answers 200 with ok:false): a message
	// it cannot take
	"invalid_blocks":                    SchemaInvalid,
	"msg_blocks_too_long":               SchemaInvalid,
	"invalid_blocks_format":             SchemaInvalid,
	"msg_too_long":                      SchemaInvalid,
	"invalid_attachments":               SchemaInvalid,
	"invalid_arguments":                 SchemaInvalid,
	"invalid_token":                     AuthDenied,
	"invalid_auth":                      AuthDenied, // Slack's Web API: the token is wrong, revoked or lacks a scope
	"not_authed":                        AuthDenied,
	"account_inactive":                  AuthDenied,
	"token_revoked":                     AuthDenied,
	"token_expired":                     AuthDenied,
	"missing_scope":                     AuthDenied,
	"no_permission":                     AuthDenied,
	"not_in_channel":                    AuthDenied, // the bot was never invited: an operator adds it
	"restricted_action":                 AuthDenied,
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
	// a push registration the platform dropped: the device is gone (FCM's
	// legacy NotRegistered comes in a 200's results, which decides nothing;
	// in a text it is a word of UpstreamWords)
	"UNREGISTERED": NotFound, // FCM v1's errorCode
	"Unregistered": NotFound, // APNs' reason, with its 410
	"ratelimited":  RateLimited,
	"rate_limited": RateLimited,
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

	// S3 and the S3-compatible stores (MinIO, Cloudflare R2, Backblaze B2,
	// IBM COS, DigitalOcean Spaces, Wasabi), whichever SDK prints them: an
	// object or a bucket that is not there is gone (a body past its
	// retention, a source's document), whoever asked
	"NoSuchKey":                  NotFound,
	"NoSuchBucket":               NotFound,
	"NoSuchVersion":              NotFound,
	"NoSuchUpload":               NotFound,
	"InvalidAccessKeyId":         AuthDenied,
	"AccountProblem":             AuthDenied,
	"AllAccessDisabled":          AuthDenied,
	"RequestTimeTooSkewed":       AuthDenied,  // the signer's clock: an operator fixes it
	"PermanentRedirect":          InternalBug, // the bucket is in another region than the endpoint
	"XMinioServerNotInitialized": UpstreamUnavailable,
	"XMinioStorageFull":          UpstreamUnavailable,
	"OperationAborted":           Conflict, // a conflicting operation on the bucket is in progress

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
	"InvalidParameter":                                    InternalBug, // SNS, SES and the query protocols' common error
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
	"InvalidAction":                                       InternalBug, // the query protocols: an action the service does not have (a client's misspelling)
}, AWSThrottleCodes, RateLimited)

// BedrockCodes override AWSCodes for Bedrock runtime, where the codes speak
// about the model rather than our deployment.
var BedrockCodes = map[string]Class{
	"ValidationException":       ClientError, // bad parameters for this model; refined by ProviderPhrases ("Input is too long")
	"ResourceNotFoundException": ClientError, // unknown model id
	"ModelErrorException":       UpstreamUnavailable,
}

// GoogleCodes maps Google's error vocabulary to classes: the google.rpc.Code
// names the Gemini API and Vertex AI put in error.status, the reasons of
// google.rpc.ErrorInfo in error.details, and the reasons of Google's older
// JSON errors (error.errors[].reason). The generic ones (INVALID_ARGUMENT,
// FAILED_PRECONDITION, OUT_OF_RANGE) are in GenericCodes too: the words and
// the status say more. NOT_FOUND and UNIMPLEMENTED are statuses in words
// (CodeStatuses), read by the upstream's role. Following AIP-194,
// UNAVAILABLE is retried; RESOURCE_EXHAUSTED is a limit whose period
// decides between a rate and a spent quota (evidence.period).
var GoogleCodes = map[string]Class{
	"RESOURCE_EXHAUSTED":  RateLimited,
	"UNAVAILABLE":         UpstreamUnavailable,
	"INTERNAL":            UpstreamUnavailable,
	"UNKNOWN":             UpstreamUnavailable,
	"DATA_LOSS":           UpstreamUnavailable,
	"DEADLINE_EXCEEDED":   NetworkTimeout,
	"CANCELLED":           NetworkTimeout,
	"ABORTED":             Conflict,
	"ALREADY_EXISTS":      Conflict,
	"UNAUTHENTICATED":     AuthDenied,
	"PERMISSION_DENIED":   AuthDenied,
	"INVALID_ARGUMENT":    ClientError,
	"FAILED_PRECONDITION": ClientError,
	"OUT_OF_RANGE":        ClientError,

	// google.rpc.ErrorInfo reasons
	"API_KEY_INVALID":                 AuthDenied,
	"API_KEY_EXPIRED":                 AuthDenied,
	"API_KEY_SERVICE_BLOCKED":         AuthDenied,
	"API_KEY_HTTP_REFERRER_BLOCKED":   AuthDenied,
	"API_KEY_IP_ADDRESS_BLOCKED":      AuthDenied,
	"API_KEY_ANDROID_APP_BLOCKED":     AuthDenied,
	"API_KEY_IOS_APP_BLOCKED":         AuthDenied,
	"SERVICE_DISABLED":                AuthDenied, // the API is not enabled for the project
	"ACCESS_TOKEN_EXPIRED":            AuthDenied,
	"ACCESS_TOKEN_SCOPE_INSUFFICIENT": AuthDenied,
	"ACCOUNT_STATE_INVALID":           AuthDenied,
	"CONSUMER_SUSPENDED":              AuthDenied,
	"CONSUMER_INVALID":                AuthDenied,
	"USER_PROJECT_DENIED":             AuthDenied,
	"IAM_PERMISSION_DENIED":           AuthDenied,
	"CREDENTIALS_MISSING":             AuthDenied,
	"BILLING_DISABLED":                BudgetExceeded,
	"RATE_LIMIT_EXCEEDED":             RateLimited,

	// Google's older JSON errors
	"rateLimitExceeded":     RateLimited,
	"userRateLimitExceeded": RateLimited,
	"quotaExceeded":         BudgetExceeded,
	"dailyLimitExceeded":    BudgetExceeded,
	"keyInvalid":            AuthDenied,
	"keyExpired":            AuthDenied,
	"backendError":          UpstreamUnavailable,
}

// CodeStatuses are codes that stand for an HTTP status and say no more:
// Google's status names (with the statuses Google documents for them) and
// the error names the OpenAI-style SDKs raise for a status ("RateLimitError"
// is any 429, an exhausted quota included). They fill a status the
// evidence lacks, which the upstream's role then reads (RoleDefaults).
var CodeStatuses = map[string]int{
	"INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "OUT_OF_RANGE": 400, "UNAUTHENTICATED": 401,
	"PERMISSION_DENIED": 403, "NOT_FOUND": 404, "ABORTED": 409, "ALREADY_EXISTS": 409, "RESOURCE_EXHAUSTED": 429,
	"CANCELLED": 499, "UNKNOWN": 500, "INTERNAL": 500, "DATA_LOSS": 500, "UNIMPLEMENTED": 501, "UNAVAILABLE": 503,
	"DEADLINE_EXCEEDED": 504,

	"BadRequestError": 400, "AuthenticationError": 401, "PermissionDeniedError": 403, "NotFoundError": 404,
	"ConflictError": 409, "UnprocessableEntityError": 422, "RateLimitError": 429, "InternalServerError": 500,
	"BadGatewayError": 502, "ServiceUnavailableError": 503, "OverloadedError": 529,
	"GatewayTimeoutError": 504, "APITimeoutError": 408,

	// HTTP reasons as the SDKs name their errors (webex-js-sdk's
	// BadGateway, .NET's HttpStatusCode names)
	"BadGateway": 502, "GatewayTimeout": 504, "TooManyRequests": 429, "UnprocessableEntity": 422,
	"PayloadTooLarge": 413, "RequestEntityTooLarge": 413,
}

// GoogleReasonSuffixes class the reasons of Google's older JSON errors
// (error.errors[].reason) no table lists by how they end: Drive's
// "downloadQuotaExceeded" is a quota, "sharingRateLimitExceeded" a rate.
// They are read from a reason spelt as Google spells them (lowerCamel);
// the first suffix that matches decides.
var GoogleReasonSuffixes = []struct {
	Suffix string
	Class  Class
}{
	{"RateLimitExceeded", RateLimited},
	{"QuotaExceeded", BudgetExceeded},
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
	"InvalidArgument": true, "INVALID_ARGUMENT": true, "invalid_argument": true, "FAILED_PRECONDITION": true,
	"OUT_OF_RANGE": true, "UnprocessableEntityError": true,
}

// WeakCodes are codes some servers put on any error: Anthropic's api_error
// is its 500, but OpenAI-compatible servers (Ollama) type a 404 so. They
// decide only when no error status does (an error event after HTTP 200).
var WeakCodes = map[string]bool{"api_error": true}

// OverridePhrases are so definite that they beat a rate-limit code: OpenAI
// answers a request larger than the organisation's tokens-per-minute limit
// with a 429 and rate_limit_exceeded, but no wait will ever admit it.
var OverridePhrases = []Phrase{
	{"must be reduced in order to run successfully", TokenLimit},
	{"message larger than max", InternalBug}, // gRPC's RESOURCE_EXHAUSTED for a size limit the deployment configures, not a quota
	{"request too large for", TokenLimit},    // OpenAI, Groq: one request above the tokens-per-minute limit
}

// MoneyOverridePhrases say money under a rate's or a permission's code —
// Z.ai's rate_limit_error "Insufficient balance or no resource package.
// Please recharge.", xAI's PERMISSION_DENIED "doesn't have any credits or
// licenses yet": a spent budget, which waits, not a rate or a refusal.
// They are read only when the message holds one of moneyHints.
var MoneyOverridePhrases = []Phrase{
	{"insufficient balance", BudgetExceeded},
	{"please recharge", BudgetExceeded},
	{"no resource package", BudgetExceeded},
	{"any credits", BudgetExceeded},
	{"out of credits", BudgetExceeded},
	{"no credits", BudgetExceeded},
	{"insufficient credits", BudgetExceeded},
	{"you can purchase", BudgetExceeded},
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
	{"expected maxlength", TokenLimit}, // Bedrock's schema check of the model's input: "Malformed input request: expected maxLength: 42000, actual: 46735"
	// AWS's own length check of the request's content — InvokeModel's whole
	// body, an embedding's inputText — rather than of a parameter
	{"at 'body' failed to satisfy constraint: member must have length", TokenLimit},
	{"at 'inputtext' failed to satisfy constraint: member must have length", TokenLimit},
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
	{"api key not valid", AuthDenied},            // Google
	{"location is not supported", AuthDenied},    // Gemini FAILED_PRECONDITION: "User location is not supported for the API use."
	{"has not been used in project", AuthDenied}, // Google: the API is not enabled for the project
	{"api has not been enabled", AuthDenied},     //
	{"the response was blocked", ContentPolicy},  // Vertex AI
	{"quota exceeded for", RateLimited},          // Vertex AI "Quota exceeded for aiplatform.googleapis.com/…": per minute unless its period says otherwise
	{"temporarily out of capacity", RateLimited}, // Vertex AI 429
	{"didn't provide an api key", AuthDenied},
	{"no api key provided", AuthDenied},
	{"invalid subscription key", AuthDenied},                          // Azure
	{"security token included in the request is invalid", AuthDenied}, // AWS UnrecognizedClient, InvalidClientTokenId
	{"security token included in the request is expired", AuthDenied}, // AWS ExpiredToken
	{"signature we calculated does not match", AuthDenied},
	// S3's documented messages, whoever prints them without the code
	{"the specified key does not exist", NotFound},
	{"the specified bucket does not exist", NotFound},
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
	{"you are being rate limited", RateLimited}, // Discord
	{"request rate is too high", RateLimited},
	{"throughput exceeds the current capacity", RateLimited}, // DynamoDB on-demand
	{"provisioned throughput", RateLimited},
	{"rate exceeded", RateLimited},            // AWS Throttling
	{"reduce your request rate", RateLimited}, // S3 SlowDown, in any SDK's words
	{"slow down", RateLimited},                // S3's 503 Slow Down
	{"request limit exceeded", RateLimited},   // EC2 RequestLimitExceeded
	{"has been throttled", RateLimited},
	{"message larger than max", InternalBug},     // gRPC: a message above the configured size limit ("received message larger than max (N vs. M)")
	{"resource has been exhausted", RateLimited}, // Gemini RESOURCE_EXHAUSTED, HTTP 429
	{"resource exhausted", RateLimited},
	{"overload", UpstreamUnavailable}, // "overloaded", "encountered an overload", system_overload_error
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
	{"self-signed certificate", AuthDenied}, // Node.js
	{"certificate is invalid", AuthDenied},  // any client's terse verdict
	{"invalid certificate", AuthDenied},
	{"self signed certificate", AuthDenied},                // OpenSSL
	{"unable to verify the first certificate", AuthDenied}, // Node.js
	{"certificate has expired", AuthDenied},                // Node.js, OpenSSL
	// a certificate out of its validity period, in each client's words:
	// Node's error code, Chromium's net error name without its "net::"
	// (ERR_CERT_DATE_INVALID, ERR_CERT_AUTHORITY_INVALID), NSS's and
	// Firefox's codes, the JDK's exceptions, webpki's and rustls' variants,
	// and the prose around them ("The certificate expired on …",
	// "Expired SSL Certificate", "certificate is not yet valid")
	{"cert_has_expired", AuthDenied},
	{"cert_not_yet_valid", AuthDenied},
	{"err_cert_", AuthDenied},
	{"sec_error_expired", AuthDenied}, // sec_error_expired_certificate, sec_error_expired_issuer_certificate
	{"sec_error_unknown_issuer", AuthDenied},
	{"sec_error_untrusted", AuthDenied},
	{"sec_error_revoked_certificate", AuthDenied},
	{"ssl_error_bad_cert_domain", AuthDenied},
	{"mozilla_pkix_error_", AuthDenied},
	{"certificateexpiredexception", AuthDenied},
	{"certificatenotyetvalidexception", AuthDenied},
	{"certexpired", AuthDenied},     // webpki, rustls: CertExpired, InvalidCertificate(Expired)
	{"certnotvalidyet", AuthDenied}, // webpki: CertNotValidYet
	{"certificate expired", AuthDenied},
	{"certificate is expired", AuthDenied},
	{"expired certificate", AuthDenied},
	{"expired ssl certificate", AuthDenied},
	{"expired tls certificate", AuthDenied},
	{"certificate is not yet valid", AuthDenied},
	{"certificate not yet valid", AuthDenied},
	{"pkix path building failed", AuthDenied},                  // the JDK: no trust path to the host's certificate
	{"unable to find valid certification path", AuthDenied},    // the JDK
	{"certificate_verify_failed", AuthDenied},                  // Python's ssl, upper case
	{"ssl certificate problem", AuthDenied},                    // curl
	{"peer certificate cannot be authenticated", AuthDenied},   // curl 60 (CURLE_PEER_FAILED_VERIFICATION), older wording
	{"unable to get local issuer certificate", AuthDenied},     // OpenSSL, Node.js
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
	{" enotfound", NetworkTimeout},             // Node.js: getaddrinfo ENOTFOUND — as a word: "ResourceNotFound" holds the letters too
	{"'enotfound", NetworkTimeout},             // code: 'ENOTFOUND'
	{"\"enotfound", NetworkTimeout},
	{"etimedout", NetworkTimeout},
	{"eai_again", NetworkTimeout}, // getaddrinfo: a DNS answer that did not come
	{"eai_noname", NetworkTimeout},
	{"eai_fail", NetworkTimeout},
	{"enetunreach", NetworkTimeout},
	{"ehostunreach", NetworkTimeout},
	{"econnaborted", NetworkTimeout},
	{"esockettimedout", NetworkTimeout},
	{"econnreset", NetworkTimeout},
	{"econnrefused", NetworkTimeout},
	// every client's own words for the same failures, after the certificate
	// phrases above (a wrapper's text around a TLS verdict keeps its
	// verdict): httpx and httpcore, h11, aiohttp, requests and urllib3,
	// undici and Bun, OkHttp, Netty and reactor-netty, the JDK's
	// HttpClient, .NET's HttpClient, reqwest and hyper
	{"invalid peer certificate", AuthDenied},      // rustls
	{"remote certificate is invalid", AuthDenied}, // .NET
	{"peer closed", NetworkTimeout},               // h11, httpx: "peer closed connection without sending complete message body"
	// a peer that closed or dropped the connection, in any client's words
	// ("Remote peer disconnected", "connection closed by peer", "Connection
	// closed by remote host", "disconnected by the remote peer")
	{"peer disconnected", NetworkTimeout},
	{"closed by peer", NetworkTimeout},
	{"closed by the peer", NetworkTimeout},
	{"closed by remote", NetworkTimeout},
	{"closed by the remote", NetworkTimeout},
	{"disconnected by peer", NetworkTimeout},
	{"disconnected by the peer", NetworkTimeout},
	{"disconnected by remote", NetworkTimeout},
	{"disconnected by the remote", NetworkTimeout},
	{"remote host closed", NetworkTimeout},
	{"remote peer closed", NetworkTimeout},
	{"all connection attempts failed", NetworkTimeout},    // httpcore (anyio)
	{"response payload is not completed", NetworkTimeout}, // aiohttp
	{"cannot connect to host", NetworkTimeout},            // aiohttp
	{"connection broken:", NetworkTimeout},                // urllib3: IncompleteRead, InvalidChunkLength
	{"incompleteread", NetworkTimeout},                    // http.client and urllib3: the body was cut short
	{"invalidchunklength", NetworkTimeout},
	{"chunkedencodingerror", NetworkTimeout}, // requests
	// botocore's own HTTP failures (EndpointConnectionError,
	// ConnectionClosedError, ConnectTimeoutError, ReadTimeoutError,
	// ProxyConnectionError): no answer from the endpoint
	{"could not connect to the endpoint url", NetworkTimeout},
	{"endpointconnectionerror", NetworkTimeout},
	{"connection was closed before we received a valid response", NetworkTimeout},
	{"connect timeout on endpoint url", NetworkTimeout},
	{"read timeout on endpoint url", NetworkTimeout},
	{"failed to connect to proxy url", NetworkTimeout},
	{"failed to establish a new connection", NetworkTimeout}, // urllib3
	{"name or service not known", NetworkTimeout},            // getaddrinfo
	{"temporary failure in name resolution", NetworkTimeout},
	{"nodename nor servname provided", NetworkTimeout},
	{"no such host is known", NetworkTimeout}, // .NET, Windows
	// Windows: Go names the Winsock call that failed (net.OpError on
	// Windows), and every runtime prints Winsock's own message for the
	// error (WSAECONNREFUSED, WSAECONNABORTED, WSAENETUNREACH,
	// WSAEHOSTUNREACH, WSATRY_AGAIN, WSANO_RECOVERY, WSANO_DATA)
	{"connectex: ", NetworkTimeout},
	{"wsarecv: ", NetworkTimeout},
	{"wsasend: ", NetworkTimeout},
	{"wsarecvfrom: ", NetworkTimeout},
	{"wsasendto: ", NetworkTimeout},
	{"getaddrinfow: ", NetworkTimeout},
	{"(getaddrinfo: ", NetworkTimeout}, // Ruby's Net::HTTP: "Failed to open TCP connection to …:443 (getaddrinfo: Try again)"
	{"target machine actively refused", NetworkTimeout},
	{"connection was aborted by the software in your host", NetworkTimeout},
	{"attempted to an unreachable", NetworkTimeout}, // network, host
	{"temporary error during hostname resolution", NetworkTimeout},
	{"non-recoverable error occurred during a database lookup", NetworkTimeout},
	{"no data of the requested type was found", NetworkTimeout},
	{"other side closed", NetworkTimeout}, // undici UND_ERR_SOCKET
	{"und_err_socket", NetworkTimeout},
	{"und_err_connect_timeout", NetworkTimeout},
	{"und_err_headers_timeout", NetworkTimeout},
	{"und_err_body_timeout", NetworkTimeout},
	{"typeerror: fetch failed", NetworkTimeout},    // undici: the cause, when printed, says more (above)
	{"<no response> fetch failed", NetworkTimeout}, // ofetch around undici: no answer at all
	{"empty reply from server", NetworkTimeout},    // curl (52): the connection closed with no answer
	{"serverdisconnectederror", NetworkTimeout},    // aiohttp's exception, printed with no message
	{"clientconnectorerror", NetworkTimeout},       // aiohttp
	{"net::err_", NetworkTimeout},                  // Chromium: name not resolved, refused, reset, timed out
	{"mint.transporterror", NetworkTimeout},        // Elixir's Mint: closed, timeout, econnrefused
	{"socket closed", NetworkTimeout},
	{"socket connection was closed unexpectedly", NetworkTimeout}, // Bun
	{"unexpected end of stream", NetworkTimeout},                  // OkHttp
	{"stream was reset", NetworkTimeout},                          // OkHttp HTTP/2
	{"failed to connect to", NetworkTimeout},                      // OkHttp
	{"connection prematurely closed", NetworkTimeout},             // reactor-netty
	{"header parser received no bytes", NetworkTimeout},           // the JDK's HttpClient
	{"eof reached while reading", NetworkTimeout},
	{"response ended prematurely", NetworkTimeout}, // .NET HttpClient
	{"forcibly closed by the remote host", NetworkTimeout},
	{"unable to read data from the transport connection", NetworkTimeout},
	{"did not properly respond after a period of time", NetworkTimeout},
	{"an error occurred while sending the request", NetworkTimeout}, // .NET: no answer was read
	{"connection closed before message completed", NetworkTimeout},  // hyper IncompleteMessage
	{"error trying to connect", NetworkTimeout},                     // hyper, reqwest
	{"failed to lookup address information", NetworkTimeout},
	{"error sending request for url", NetworkTimeout}, // reqwest: no answer was read
	{"http2 error", NetworkTimeout},                   // hyper, reqwest: "http2 error: protocol error: …", a stream or connection the peer reset
	// a TLS handshake the peer or a middlebox cut, with no verdict on the
	// certificate (curl's "(35) OpenSSL SSL_connect: SSL_ERROR_SYSCALL"),
	// HTTP/2 streams and sessions nghttp2 (Node's http2, got, curl) or the
	// AWS SDK for JavaScript's http2 handler closed before an answer
	{"ssl_error_syscall", NetworkTimeout},
	// libcurl's own messages (curl_easy_strerror, in its older "Couldn't"
	// and newer "Could not" wordings, and the CLI's), whatever wraps them:
	// PHP's "cURL error 6: …", a locale's prefix, R's and Rust's bindings.
	// Its certificate verdicts are read above ("ssl certificate
	// problem", "peer certificate …").
	{"could not resolve host", NetworkTimeout}, // CURLE_COULDNT_RESOLVE_HOST, also "Could not resolve hostname"
	{"couldn't resolve host", NetworkTimeout},
	{"could not resolve proxy", NetworkTimeout},
	{"couldn't resolve proxy", NetworkTimeout},
	{"could not connect to server", NetworkTimeout},
	{"couldn't connect to server", NetworkTimeout},
	{"ssl connect error", NetworkTimeout},                         // CURLE_SSL_CONNECT_ERROR: the handshake failed, no verdict on the certificate
	{"failure when receiving data from the peer", NetworkTimeout}, // CURLE_RECV_ERROR
	{"failed sending data to the peer", NetworkTimeout},           // CURLE_SEND_ERROR
	{"server returned nothing", NetworkTimeout},                   // CURLE_GOT_NOTHING
	{"transferred a partial file", NetworkTimeout},                // CURLE_PARTIAL_FILE
	{"timeout was reached", NetworkTimeout},                       // CURLE_OPERATION_TIMEDOUT
	{"weird server reply", NetworkTimeout},                        // CURLE_WEIRD_SERVER_REPLY
	{"error in the http2 framing layer", NetworkTimeout},
	{"stream error in the http/2 framing layer", NetworkTimeout},
	{"quic connection error", NetworkTimeout},
	{"proxy handshake error", NetworkTimeout},
	// TLS alerts and handshakes that end without a verdict on the
	// certificate, as the JDK, .NET and OpenSSL print them (the verdicts —
	// PKIX, "certificate verify failed" — are read above, and an alert
	// about a certificate is one)
	{"alert bad certificate", AuthDenied},
	{"alert unknown ca", AuthDenied},
	{"alert certificate", AuthDenied}, // certificate_expired, certificate_unknown, certificate_revoked
	{"fatal alert: bad_certificate", AuthDenied},
	{"fatal alert: certificate_", AuthDenied},
	{"fatal alert: unknown_ca", AuthDenied},
	{"received fatal alert", NetworkTimeout},                 // the JDK: handshake_failure, protocol_version
	{"remote host terminated the handshake", NetworkTimeout}, // the JDK
	{"sslhandshakeexception", NetworkTimeout},
	{"ssl handshake failed", NetworkTimeout},
	{"the ssl connection could not be established", NetworkTimeout}, // .NET
	{"alert handshake failure", NetworkTimeout},                     // OpenSSL: "sslv3 alert handshake failure"
	{"alert protocol version", NetworkTimeout},
	{"nghttp2_", NetworkTimeout}, // NGHTTP2_PROTOCOL_ERROR, NGHTTP2_INTERNAL_ERROR, NGHTTP2_REFUSED_STREAM
	{"http2 request did not get a response", NetworkTimeout},
	// the Rust AWS SDK and hyper in their Debug renderings, gRPC's
	// transport, Elixir's (ExAws, HTTPoison, Mint) transport atoms
	{"dispatchfailure", NetworkTimeout}, // smithy-rs: the request could not be sent or its answer read
	{"dispatch failure", NetworkTimeout},
	{"connectorerror", NetworkTimeout},
	{"incompletemessage", NetworkTimeout}, // hyper: the connection closed before the message completed
	{"timedout", NetworkTimeout},          // io::ErrorKind::TimedOut, TimedOutError, reqwest's "source: TimedOut"
	{"transport is closing", NetworkTimeout},
	{"error reading from server", NetworkTimeout}, // grpc-go
	{"nxdomain", NetworkTimeout},
	{"http error: :timeout", NetworkTimeout},
	{"{:error, :timeout}", NetworkTimeout},
	{"reason: :timeout", NetworkTimeout},
	{"reason: :closed", NetworkTimeout},
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
	{"overload", UpstreamUnavailable}, // "overloaded", "encountered an overload", system_overload_error
	{"service unavailable", UpstreamUnavailable},
	{"temporarily unavailable", UpstreamUnavailable}, // "Feature temporarily unavailable", "Service temporarily unavailable"
	{"bad gateway", UpstreamUnavailable},
	{"internal server error", UpstreamUnavailable},
	{"internal_error", UpstreamUnavailable},
	{"upstream connect error", UpstreamUnavailable}, // Envoy and service meshes
	{"apiconnectionerror", NetworkTimeout},          // the OpenAI-style SDKs' (and LiteLLM's base case)
	{"connection error", NetworkTimeout},
	{"invalid api key", AuthDenied},
	{"incorrect api key", AuthDenied},
	{"unauthorized", AuthDenied},
	{"forbidden", AuthDenied},
	{"permission denied", AuthDenied},
	{"access denied", AuthDenied},
	{"access was denied", AuthDenied},     // Lambda: "KMS access was denied"
	{"accessdeniedexception", AuthDenied}, // a code glued to its service's name (Lambda's "AccessDeniedExceptionKMS")
	{"expired token", AuthDenied},
	{"token expired", AuthDenied},
	// encoding/json, reading model output
	{"unexpected end of json input", ResponseInvalid},
	{"invalid character", ResponseInvalid},
	{"cannot unmarshal", ResponseInvalid},
	{"invalid json", ResponseInvalid},
	{"json parse", ResponseInvalid},
	{"expecting value: line", ResponseInvalid},            // Python's json: the model answered something else than JSON
	{"unterminated string in json", ResponseInvalid},      // JavaScript's JSON.parse: an answer cut short
	{"syntax error while parsing value", ResponseInvalid}, // nlohmann/json
	{"unexpected token", ResponseInvalid},                 // JavaScript's JSON.parse
	{"version conflict", Conflict},
	{"optimistic lock", Conflict},
	{"conflict", Conflict}, // "Conflict occurred while saving", an SDK's ConflictError, HTTP 409's reason
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
