package failure

import "github.com/triagehq/triage/internal/work"

// Rule tables. Classification reads structure first — codes, then statuses —
// and text last. Every table here is data: to teach triage a new provider
// code, add a row.

// ProviderCodes maps the error codes and types that model providers and
// webhooks put in their bodies to a class. Only definite codes are here;
// generic types such as "invalid_request_error" are decided by the message
// phrases and the status.
var ProviderCodes = map[string]work.Class{
	// OpenAI / Azure OpenAI (error.code, error.type)
	"rate_limit_exceeded":                  work.RateLimited,
	"requests":                             work.RateLimited, // OpenAI error.type for request-rate limits
	"tokens":                               work.RateLimited, // OpenAI error.type for token-rate limits
	"insufficient_quota":                   work.BudgetExceeded,
	"billing_hard_limit_reached":           work.BudgetExceeded,
	"billing_not_active":                   work.BudgetExceeded,
	"organization_spend_limit_exceeded":    work.BudgetExceeded, // OpenAI hard spend limit, HTTP 429
	"project_spend_limit_exceeded":         work.BudgetExceeded, // OpenAI hard spend limit, HTTP 429
	"enforced_spend_limit_reached":         work.BudgetExceeded, // Anthropic error.details.error_code on a 429 rate_limit_error
	"context_length_exceeded":              work.TokenLimit,
	"string_above_max_length":              work.TokenLimit,
	"content_policy_violation":             work.ContentPolicy,
	"content_filter":                       work.ContentPolicy, // Azure
	"ResponsibleAIPolicyViolation":         work.ContentPolicy, // Azure innererror.code
	"jailbreak":                            work.ContentPolicy, // Azure prompt shields
	"invalid_api_key":                      work.AuthDenied,
	"invalid_authentication":               work.AuthDenied,
	"authentication_error":                 work.AuthDenied, // Anthropic type
	"permission_error":                     work.AuthDenied, // Anthropic type
	"unsupported_country_region_territory": work.AuthDenied,
	"model_not_found":                      work.ClientError, // the model name is wrong: a model-specific failure
	"DeploymentNotFound":                   work.ClientError, // Azure: the deployment (model) does not exist
	"OperationNotSupported":                work.ClientError, // Azure: the model does not support the operation
	"not_found_error":                      work.ClientError, // Anthropic type (model or endpoint)
	"invalid_json_line":                    work.ClientError, // OpenAI Batch: a line of the input file that is not JSON
	"server_error":                         work.UpstreamUnavailable,
	"internal_error":                       work.UpstreamUnavailable,
	"api_error":                            work.UpstreamUnavailable, // Anthropic type
	"overloaded_error":                     work.UpstreamUnavailable, // Anthropic 529
	"timeout_error":                        work.UpstreamUnavailable, // Anthropic 504: timed out while processing
	"engine_overloaded":                    work.UpstreamUnavailable,
	"service_unavailable":                  work.UpstreamUnavailable,
	"timeout":                              work.NetworkTimeout,
	"request_timeout":                      work.NetworkTimeout,
	"rate_limit_error":                     work.RateLimited,    // Anthropic type
	"request_too_large":                    work.TokenLimit,     // Anthropic 413
	"billing_error":                        work.BudgetExceeded, // Anthropic 402
	"invalid_prompt":                       work.ContentPolicy,  // OpenAI usage-policy refusals of the prompt
	"moderation_blocked":                   work.ContentPolicy,
	"model_decommissioned":                 work.ClientError,    // Groq: a retired model
	"data_inspection_failed":               work.ContentPolicy,  // Alibaba DashScope (Qwen) moderation, OpenAI-compatible spelling
	"DataInspectionFailed":                 work.ContentPolicy,  // DashScope's native InternalError.Algo.DataInspectionFailed
	"Arrearage":                            work.BudgetExceeded, // Alibaba Cloud (DashScope): the account's payment is overdue

	// The error names of the SDKs that stand for more than a status
	// (LiteLLM raises these on the provider's words; see CodeStatuses for
	// the ones that stand for a status alone).
	"ContextWindowExceededError":  work.TokenLimit,
	"ContentPolicyViolationError": work.ContentPolicy,
	"BudgetExceededError":         work.BudgetExceeded, // LiteLLM proxy: a key's or team's budget

	// Slack incoming webhooks answer with bare tokens.
	"invalid_payload":      work.SchemaInvalid,
	"no_text":              work.SchemaInvalid,
	"too_many_attachments": work.SchemaInvalid,
	// the Web API's (chat.postMessage answers 200 with ok:false): a message
	// it cannot take
	"invalid_blocks":                    work.SchemaInvalid,
	"msg_blocks_too_long":               work.SchemaInvalid,
	"invalid_blocks_format":             work.SchemaInvalid,
	"msg_too_long":                      work.SchemaInvalid,
	"invalid_attachments":               work.SchemaInvalid,
	"invalid_arguments":                 work.SchemaInvalid,
	"invalid_token":                     work.AuthDenied,
	"invalid_auth":                      work.AuthDenied, // Slack's Web API: the token is wrong, revoked or lacks a scope
	"not_authed":                        work.AuthDenied,
	"account_inactive":                  work.AuthDenied,
	"token_revoked":                     work.AuthDenied,
	"token_expired":                     work.AuthDenied,
	"missing_scope":                     work.AuthDenied,
	"no_permission":                     work.AuthDenied,
	"not_in_channel":                    work.AuthDenied, // the bot was never invited: an operator adds it
	"restricted_action":                 work.AuthDenied,
	"action_prohibited":                 work.AuthDenied,
	"posting_to_general_channel_denied": work.AuthDenied,
	"no_service":                        work.NotFound,
	"no_service_id":                     work.NotFound,
	"no_team":                           work.NotFound,
	"team_disabled":                     work.NotFound,
	"invalid_team":                      work.NotFound,
	"channel_not_found":                 work.NotFound,
	"channel_is_archived":               work.NotFound,
	"user_not_found":                    work.NotFound,
	"rollup_error":                      work.UpstreamUnavailable,
	// a push registration the platform dropped: the device is gone (FCM's
	// legacy NotRegistered comes in a 200's results, which decides nothing;
	// in a text it is a word of UpstreamWords)
	"UNREGISTERED": work.NotFound, // FCM v1's errorCode
	"Unregistered": work.NotFound, // APNs' reason, with its 410
	// the push services' other documented refusals (APNs' reasons, FCM's
	// legacy and v1 error codes): a rate of messages to a device or a
	// topic; a provider credential or a sender an operator fixes, or a
	// topic the credential may not push to
	"DeviceMessageRateExceeded":    work.RateLimited, // FCM legacy
	"DEVICE_MESSAGE_RATE_EXCEEDED": work.RateLimited,
	"TopicsMessageRateExceeded":    work.RateLimited,
	"TOPICS_MESSAGE_RATE_EXCEEDED": work.RateLimited,
	"MessageRateExceeded":          work.RateLimited, // FCM's messageRateExceeded
	"TooManyProviderTokenUpdates":  work.RateLimited, // APNs
	"TopicDisallowed":              work.AuthDenied,  // APNs: the key or certificate may not push to this topic
	"BadCertificate":               work.AuthDenied,
	"BadCertificateEnvironment":    work.AuthDenied,
	"ExpiredProviderToken":         work.AuthDenied,
	"InvalidProviderToken":         work.AuthDenied,
	"MissingProviderToken":         work.AuthDenied,
	"UnrelatedKeyIdInToken":        work.AuthDenied,
	"MismatchSenderId":             work.AuthDenied, // FCM legacy; v1's SENDER_ID_MISMATCH
	"SENDER_ID_MISMATCH":           work.AuthDenied,
	"THIRD_PARTY_AUTH_ERROR":       work.AuthDenied, // FCM v1: the APNs or web push credential refused
	"InvalidApnsCredential":        work.AuthDenied,
	"ratelimited":                  work.RateLimited,
	"rate_limited":                 work.RateLimited,
	// Databricks' error_code for every limit of its APIs (a token bucket, a
	// number of active runs): a rate, which clears as calls and runs end
	"REQUEST_LIMIT_EXCEEDED": work.RateLimited,
	// Rocket.Chat's error types (Meteor's "Message [error-type]", the REST
	// answer's errorType): a bot's permission or its second factor an
	// operator fixes, a room that is not there, the rate
	"error-not-allowed":        work.AuthDenied,
	"error-action-not-allowed": work.AuthDenied,
	"error-not-authorized":     work.AuthDenied,
	"totp-required":            work.AuthDenied,
	"totp-invalid":             work.AuthDenied,
	"error-room-not-found":     work.NotFound,
	"error-invalid-room":       work.NotFound,
	"error-too-many-requests":  work.RateLimited,
	// SES's codes for an account or a configuration set whose sending is
	// paused (a reputation review, an operator's switch): no retry passes
	// until an operator takes it up with AWS
	"AccountSendingPausedException":          work.AuthDenied,
	"SendingPausedException":                 work.AuthDenied, // SESv2
	"ConfigurationSetSendingPausedException": work.AuthDenied,
	// Azure Resource Manager's and Azure API Management's codes for a
	// request without a usable subscription or token, or a principal
	// without the role (Bing Search, Azure AI services behind them): an
	// operator fixes the key, the subscription or the role assignment
	"MissingSubscription":              work.AuthDenied,
	"InvalidAuthenticationToken":       work.AuthDenied,
	"InvalidAuthenticationTokenTenant": work.AuthDenied,
	"ExpiredAuthenticationToken":       work.AuthDenied,
	"AuthorizationFailed":              work.AuthDenied,
	"LinkedAuthorizationFailed":        work.AuthDenied,
	// the Stack Exchange API's error_name values, whose error_id (402, 502,
	// …) is no HTTP status (the API answers them with 400): the rate, a
	// key or token an operator fixes, the service down for a while
	"throttle_violation":       work.RateLimited,
	"access_token_required":    work.AuthDenied,
	"invalid_access_token":     work.AuthDenied,
	"access_token_compromised": work.AuthDenied,
	"key_required":             work.AuthDenied,
	"temporarily_unavailable":  work.UpstreamUnavailable,
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
var AWSCodes = mergeCodes(map[string]work.Class{
	// transient
	"RequestTimeout":                       work.NetworkTimeout,
	"RequestTimeoutException":              work.NetworkTimeout,
	"DependencyTimeoutException":           work.NetworkTimeout, // KMS
	"ModelTimeoutException":                work.NetworkTimeout, // Bedrock
	"InternalServerError":                  work.UpstreamUnavailable,
	"InternalServerException":              work.UpstreamUnavailable,
	"InternalFailure":                      work.UpstreamUnavailable,
	"InternalError":                        work.UpstreamUnavailable,
	"ServiceUnavailable":                   work.UpstreamUnavailable,
	"ServiceUnavailableException":          work.UpstreamUnavailable,
	"KMSInternalException":                 work.UpstreamUnavailable,
	"KMS.KMSInternalException":             work.UpstreamUnavailable,
	"IDPCommunicationError":                work.UpstreamUnavailable, // STS
	"ModelNotReadyException":               work.UpstreamUnavailable, // Bedrock: model is being loaded
	"ModelStreamErrorException":            work.UpstreamUnavailable,
	"AWS.SimpleQueueService.InternalError": work.UpstreamUnavailable,

	// lost races
	"ConditionalCheckFailedException":           work.Conflict,
	"TransactionConflictException":              work.Conflict,
	"TransactionCanceledException":              work.Conflict,
	"ReceiptHandleIsInvalid":                    work.Conflict, // SQS: the message moved on since we received it
	"MessageNotInflight":                        work.Conflict,
	"AWS.SimpleQueueService.MessageNotInflight": work.Conflict,
	"ConcurrentModificationException":           work.Conflict,
	"TooManyUpdates":                            work.Conflict, // SSM: concurrent updates of a resource that takes one at a time
	"ResourceConflictException":                 work.Conflict, // Lambda: an update of the function is in progress
	"TransactionConflict":                       work.Conflict, // a TransactionCanceledException's reason
	"ConditionalCheckFailed":                    work.Conflict, // a TransactionCanceledException's reason

	// credentials and permissions
	"AccessDenied":                         work.AuthDenied,
	"AccessDeniedException":                work.AuthDenied,
	"UnrecognizedClientException":          work.AuthDenied,
	"InvalidClientTokenId":                 work.AuthDenied,
	"InvalidSignatureException":            work.AuthDenied,
	"SignatureDoesNotMatch":                work.AuthDenied,
	"IncompleteSignature":                  work.AuthDenied,
	"MissingAuthenticationToken":           work.AuthDenied,
	"ExpiredToken":                         work.AuthDenied,
	"ExpiredTokenException":                work.AuthDenied,
	"RequestExpired":                       work.AuthDenied,
	"KMSAccessDeniedException":             work.AuthDenied,
	"KMS.AccessDeniedException":            work.AuthDenied,
	"KMS.DisabledException":                work.AuthDenied,
	"DisabledException":                    work.AuthDenied,
	"KMSDisabledException":                 work.AuthDenied,
	"InvalidIdentityToken":                 work.AuthDenied,
	"InvalidAuthorizationMessageException": work.AuthDenied,
	"NotAuthorized":                        work.AuthDenied,
	"OptInRequired":                        work.AuthDenied,
	"AuthFailure":                          work.AuthDenied,
	"UnauthorizedOperation":                work.AuthDenied,

	// S3 and the S3-compatible stores (MinIO, Cloudflare R2, Backblaze B2,
	// IBM COS, DigitalOcean Spaces, Wasabi), whichever SDK prints them: an
	// object or a bucket that is not there is gone (a body past its
	// retention, a source's document), whoever asked
	"NoSuchKey":                  work.NotFound,
	"NoSuchBucket":               work.NotFound,
	"NoSuchVersion":              work.NotFound,
	"NoSuchUpload":               work.NotFound,
	"InvalidAccessKeyId":         work.AuthDenied,
	"AccountProblem":             work.AuthDenied,
	"AllAccessDisabled":          work.AuthDenied,
	"RequestTimeTooSkewed":       work.AuthDenied,  // the signer's clock: an operator fixes it
	"PermanentRedirect":          work.InternalBug, // the bucket is in another region than the endpoint
	"XMinioServerNotInitialized": work.UpstreamUnavailable,
	"XMinioStorageFull":          work.UpstreamUnavailable,
	"OperationAborted":           work.Conflict, // a conflicting operation on the bucket is in progress

	// our input
	"InvalidMessageContents":                   work.SchemaInvalid, // SQS
	"ItemCollectionSizeLimitExceededException": work.SchemaInvalid,

	// deployment defects: a table, queue, key or parameter that should exist
	"ResourceNotFoundException":               work.InternalBug,
	"QueueDoesNotExist":                       work.InternalBug,
	"AWS.SimpleQueueService.NonExistentQueue": work.InternalBug,
	"NonExistentQueue":                        work.InternalBug,
	"KMSNotFoundException":                    work.InternalBug,
	"KMS.NotFoundException":                   work.InternalBug,
	"NotFoundException":                       work.InternalBug,
	"KMSInvalidStateException":                work.InternalBug,
	"KMS.KMSInvalidStateException":            work.InternalBug,
	// KMS refusing what the deployment gave it to decrypt or sign with: a
	// configured secret that is not its ciphertext, another key's, a key
	// not made for the operation
	"InvalidCiphertextException":                          work.InternalBug,
	"IncorrectKeyException":                               work.InternalBug,
	"InvalidKeyUsageException":                            work.InternalBug,
	"ParameterNotFound":                                   work.InternalBug, // SSM
	"DecryptionFailure":                                   work.InternalBug, // Secrets Manager
	"RegionDisabledException":                             work.InternalBug,
	"InvalidParameter":                                    work.InternalBug, // SNS, SES and the query protocols' common error
	"InvalidParameterValue":                               work.InternalBug,
	"InvalidParameterCombination":                         work.InternalBug,
	"MissingParameter":                                    work.InternalBug,
	"ValidationException":                                 work.InternalBug, // our request was malformed
	"SerializationException":                              work.InternalBug,
	"InvalidAddress":                                      work.InternalBug,
	"AWS.SimpleQueueService.BatchEntryIdsNotDistinct":     work.InternalBug,
	"BatchEntryIdsNotDistinct":                            work.InternalBug,
	"TooManyEntriesInBatchRequest":                        work.InternalBug,
	"AWS.SimpleQueueService.TooManyEntriesInBatchRequest": work.InternalBug,
	"BatchRequestTooLong":                                 work.InternalBug,
	"UnsupportedOperation":                                work.InternalBug,
	"InvalidAction":                                       work.InternalBug, // the query protocols: an action the service does not have (a client's misspelling)
}, AWSThrottleCodes, work.RateLimited)

// BedrockCodes override AWSCodes for Bedrock runtime, where the codes speak
// about the model rather than our deployment.
var BedrockCodes = map[string]work.Class{
	"ValidationException":       work.ClientError, // bad parameters for this model; refined by ProviderPhrases ("Input is too long")
	"ResourceNotFoundException": work.ClientError, // unknown model id
}

// APICoreServerErrors are google-api-core's exception names for gRPC's
// server statuses, which it prints with the HTTP number it gives each
// ("ServiceUnavailable: 503 GOAWAY" is gRPC's UNAVAILABLE): with no HTTP
// answer, a transport's words in their message refine them as they refine
// the gRPC code (evidence.definite).
var APICoreServerErrors = map[string]string{
	"ServiceUnavailable":  "UNAVAILABLE",
	"InternalServerError": "INTERNAL",
	"Unknown":             "UNKNOWN",
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
var GoogleCodes = map[string]work.Class{
	"RESOURCE_EXHAUSTED":  work.RateLimited,
	"UNAVAILABLE":         work.UpstreamUnavailable,
	"INTERNAL":            work.UpstreamUnavailable,
	"UNKNOWN":             work.UpstreamUnavailable,
	"DATA_LOSS":           work.UpstreamUnavailable,
	"DEADLINE_EXCEEDED":   work.NetworkTimeout,
	"CANCELLED":           work.NetworkTimeout,
	"ABORTED":             work.Conflict,
	"ALREADY_EXISTS":      work.Conflict,
	"UNAUTHENTICATED":     work.AuthDenied,
	"PERMISSION_DENIED":   work.AuthDenied,
	"INVALID_ARGUMENT":    work.ClientError,
	"FAILED_PRECONDITION": work.ClientError,
	"OUT_OF_RANGE":        work.ClientError,

	// google.rpc.ErrorInfo reasons
	"API_KEY_INVALID":                 work.AuthDenied,
	"API_KEY_EXPIRED":                 work.AuthDenied,
	"API_KEY_SERVICE_BLOCKED":         work.AuthDenied,
	"API_KEY_HTTP_REFERRER_BLOCKED":   work.AuthDenied,
	"API_KEY_IP_ADDRESS_BLOCKED":      work.AuthDenied,
	"API_KEY_ANDROID_APP_BLOCKED":     work.AuthDenied,
	"API_KEY_IOS_APP_BLOCKED":         work.AuthDenied,
	"SERVICE_DISABLED":                work.AuthDenied, // the API is not enabled for the project
	"ACCESS_TOKEN_EXPIRED":            work.AuthDenied,
	"ACCESS_TOKEN_SCOPE_INSUFFICIENT": work.AuthDenied,
	"ACCOUNT_STATE_INVALID":           work.AuthDenied,
	"CONSUMER_SUSPENDED":              work.AuthDenied,
	"CONSUMER_INVALID":                work.AuthDenied,
	"USER_PROJECT_DENIED":             work.AuthDenied,
	"IAM_PERMISSION_DENIED":           work.AuthDenied,
	"CREDENTIALS_MISSING":             work.AuthDenied,
	"BILLING_DISABLED":                work.BudgetExceeded,
	"INSUFFICIENT_G1_CREDITS_BALANCE": work.BudgetExceeded, // Gemini's Google AI credits spent, under RESOURCE_EXHAUSTED
	"RATE_LIMIT_EXCEEDED":             work.RateLimited,

	// Google's older JSON errors
	"rateLimitExceeded":     work.RateLimited,
	"userRateLimitExceeded": work.RateLimited,
	"quotaExceeded":         work.BudgetExceeded,
	"dailyLimitExceeded":    work.BudgetExceeded,
	"keyInvalid":            work.AuthDenied,
	"keyExpired":            work.AuthDenied,
	"backendError":          work.UpstreamUnavailable,
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

	// the model's container answering for the endpoint (Bedrock's
	// ModelErrorException, SageMaker's ModelError, each a 424): its words
	// decide as a failure's with no status, and with none the 424 row
	"ModelErrorException": 424, "ModelError": 424,

	// Vercel's error codes for a deployment's function, each with the
	// status Vercel documents for it ("An error occurred with your
	// deployment\n\nFUNCTION_INVOCATION_TIMEOUT" is its 504 page)
	"FUNCTION_INVOCATION_TIMEOUT": 504, "EDGE_FUNCTION_INVOCATION_TIMEOUT": 504,
	"INTERNAL_FUNCTION_INVOCATION_TIMEOUT": 504, "MIDDLEWARE_INVOCATION_TIMEOUT": 504,
	"FUNCTION_INVOCATION_FAILED": 500, "EDGE_FUNCTION_INVOCATION_FAILED": 500, "MIDDLEWARE_INVOCATION_FAILED": 500,
	"NO_RESPONSE_FROM_FUNCTION": 502, "FUNCTION_THROTTLED": 503, "DEPLOYMENT_PAUSED": 503,
	"DEPLOYMENT_NOT_FOUND": 404, "DEPLOYMENT_DELETED": 410,
}

// GoogleReasonSuffixes class the reasons of Google's older JSON errors
// (error.errors[].reason) no table lists by how they end: Drive's
// "downloadQuotaExceeded" is a quota, "sharingRateLimitExceeded" a rate.
// They are read from a reason spelt as Google spells them (lowerCamel);
// the first suffix that matches decides.
var GoogleReasonSuffixes = []struct {
	Suffix string
	Class  work.Class
}{
	{"RateLimitExceeded", work.RateLimited},
	{"QuotaExceeded", work.BudgetExceeded},
}

// Phrase is a message fragment that decides a class even when the status is
// ambiguous (a 400 that is really a context-length error or an exhausted
// credit balance). Phrases are matched case-insensitively on the provider's
// message before the status table.
type Phrase struct {
	// Fragment is the lowercase text to find.
	Fragment string
	// Class is the class the fragment decides.
	Class work.Class
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

// ServerTypeCodes are types a provider puts on its own failures that it
// also puts on a request it refused: OpenAI types Whisper's 413 "Maximum
// content size limit (26214400) exceeded" server_error. Under a 4xx the
// status and the words decide; under a 5xx or with no status they do.
var ServerTypeCodes = map[string]bool{"server_error": true}

// OverridePhrases are so definite that they beat a rate-limit code: OpenAI
// answers a request larger than the organisation's tokens-per-minute limit
// with a 429 and rate_limit_exceeded, but no wait will ever admit it.
var OverridePhrases = []Phrase{
	{"must be reduced in order to run successfully", work.TokenLimit},
	{"message larger than max", work.InternalBug}, // gRPC's RESOURCE_EXHAUSTED for a size limit the deployment configures, not a quota
	{"request too large for", work.TokenLimit},    // OpenAI, Groq: one request above the tokens-per-minute limit
	// a Google ErrorInfo reason naming a credits balance spent
	// (INSUFFICIENT_G1_CREDITS_BALANCE), read in a body or a text the
	// reason could not be parsed from
	{"_credits_balance", work.BudgetExceeded},
}

// MoneyOverridePhrases say money under a rate's or a permission's code —
// Z.ai's rate_limit_error "Insufficient balance or no resource package.
// Please recharge.", xAI's PERMISSION_DENIED "doesn't have any credits or
// licenses yet": a spent budget, which waits, not a rate or a refusal.
// They are read only when the message holds one of moneyHints.
var MoneyOverridePhrases = []Phrase{
	{"insufficient balance", work.BudgetExceeded},
	{"please recharge", work.BudgetExceeded},
	{"no resource package", work.BudgetExceeded},
	{"any credits", work.BudgetExceeded},
	{"out of credits", work.BudgetExceeded},
	{"no credits", work.BudgetExceeded},
	{"insufficient credits", work.BudgetExceeded},
	{"you can purchase", work.BudgetExceeded},
	// a balance or credits short of the request's price (Stability's gRPC
	// PERMISSION_DENIED "Your organization does not have enough balance to
	// request this action")
	{"enough balance", work.BudgetExceeded},
	{"enough credits", work.BudgetExceeded},
}

// ProviderPhrases are high-precision fragments of providers' and AWS's
// documented messages. They decide before the HTTP status: a 400 that says
// "maximum context length", a 429 that says "credit balance is too low".
// Order matters; the first match wins, so money comes before rate.
var ProviderPhrases = []Phrase{
	{"credit balance is too low", work.BudgetExceeded}, // Anthropic, HTTP 400
	{"api usage limits", work.BudgetExceeded},          // Anthropic spend limit, HTTP 400: "You have reached your specified (workspace) API usage limits"
	{"spend limit", work.BudgetExceeded},
	{"exceeded your current quota", work.BudgetExceeded},
	{"insufficient_quota", work.BudgetExceeded},
	{"billing hard limit", work.BudgetExceeded},
	{"insufficient credits", work.BudgetExceeded},                     // OpenRouter, HTTP 402
	{"insufficient balance", work.BudgetExceeded},                     // DeepSeek, HTTP 402
	{"must be reduced in order to run successfully", work.TokenLimit}, // OpenAI: a request larger than the tokens-per-minute limit
	{"request too large for", work.TokenLimit},                        // OpenAI, Groq: the same
	{"maximum context length", work.TokenLimit},                       // OpenAI, vLLM, Mistral
	{"context_length_exceeded", work.TokenLimit},
	{"prompt is too long", work.TokenLimit}, // Anthropic
	{"input is too long", work.TokenLimit},  // Bedrock
	{"expected maxlength", work.TokenLimit}, // Bedrock's schema check of the model's input: "Malformed input request: expected maxLength: 42000, actual: 46735"
	// AWS's own length check of the request's content — InvokeModel's whole
	// body, an embedding's inputText — rather than of a parameter
	{"at 'body' failed to satisfy constraint: member must have length", work.TokenLimit},
	{"at 'inputtext' failed to satisfy constraint: member must have length", work.TokenLimit},
	{"too many input tokens", work.TokenLimit},
	{"context window", work.TokenLimit},
	{"exceed context limit", work.TokenLimit},                 // Anthropic: "input length and `max_tokens` exceed context limit"
	{"exceeds the maximum number of tokens", work.TokenLimit}, // Gemini: "The input token count (…) exceeds the maximum number of tokens allowed"
	{"exceeds the available context size", work.TokenLimit},   // llama.cpp, Ollama
	{"reduce the length of the messages", work.TokenLimit},    // OpenAI, Groq
	{"content management policy", work.ContentPolicy},         // Azure
	{"content filtering policy", work.ContentPolicy},          // Anthropic: "Output blocked by content filtering policy"
	{"blocked by content filtering", work.ContentPolicy},
	{"responsibleaipolicyviolation", work.ContentPolicy},
	{"content_policy_violation", work.ContentPolicy},
	{"safety system", work.ContentPolicy}, // OpenAI images/moderation
	{"flagged as potentially violating", work.ContentPolicy},
	{"contains filtered words", work.ContentPolicy}, // Stability on Bedrock: "One or more prompts contains filtered words."
	{"request moderated", work.ContentPolicy},       // Black Forest Labs' result status
	{"content moderated", work.ContentPolicy},
	{"invalid api key", work.AuthDenied},
	{"incorrect api key", work.AuthDenied},
	{"invalid x-api-key", work.AuthDenied},
	{"api key not valid", work.AuthDenied},            // Google
	{"location is not supported", work.AuthDenied},    // Gemini FAILED_PRECONDITION: "User location is not supported for the API use."
	{"has not been used in project", work.AuthDenied}, // Google: the API is not enabled for the project
	{"api has not been enabled", work.AuthDenied},     //
	{"the response was blocked", work.ContentPolicy},  // Vertex AI
	{"quota exceeded for", work.RateLimited},          // Vertex AI "Quota exceeded for aiplatform.googleapis.com/…": per minute unless its period says otherwise
	{"temporarily out of capacity", work.RateLimited}, // Vertex AI 429
	{"didn't provide an api key", work.AuthDenied},
	{"no api key provided", work.AuthDenied},
	{"invalid subscription key", work.AuthDenied},                          // Azure
	{"security token included in the request is invalid", work.AuthDenied}, // AWS UnrecognizedClient, InvalidClientTokenId
	{"security token included in the request is expired", work.AuthDenied}, // AWS ExpiredToken
	{"signature we calculated does not match", work.AuthDenied},
	// Cloudflare's error pages for an origin that failed it, by their words
	// when no status came with them (a client that printed the page's
	// middle): each the class of its status's row — 520, 521, 523 an
	// origin failing, 522 and 524 its connection timing out
	{"web server is returning an unknown error", work.UpstreamUnavailable}, // 520
	{"web server is not returning a connection", work.UpstreamUnavailable}, // 521
	{"your web server is not responding", work.UpstreamUnavailable},        // 521
	{"origin is unreachable", work.UpstreamUnavailable},                    // 523
	{"origin web server timed out", work.NetworkTimeout},                   // 524: "The origin web server timed out responding to this request."
	{"and the origin web server timed out", work.NetworkTimeout},           // 522: "The initial connection between Cloudflare's network and the origin web server timed out."
	// a chat robot's keyword check: the message lacks the keyword its
	// security settings require (Feishu's and Lark's 19024 "Key Words Not
	// Found", DingTalk's 310000 "keywords not in content") — a payload the
	// robot cannot take, whatever "not found" says
	{"key words not found", work.SchemaInvalid},
	{"keywords not found", work.SchemaInvalid},
	{"keyword not found", work.SchemaInvalid},
	{"keywords not in content", work.SchemaInvalid},
	{"keyword not in content", work.SchemaInvalid},
	{"关键词不匹配", work.SchemaInvalid},
	{"关键字不匹配", work.SchemaInvalid},
	// S3's documented messages, whoever prints them without the code, and
	// a bucket's in the words clients that drop "specified" print
	// (Mountpoint's "The bucket does not exist")
	{"the specified key does not exist", work.NotFound},
	{"bucket does not exist", work.NotFound},
	{"is not authorized to perform", work.AuthDenied},                               // IAM
	{"does not exist or you do not have access", work.ClientError},                  // OpenAI model_not_found: the model name is wrong for this key
	{"the model: `", work.ClientError},                                              // OpenAI's older "The model: `gpt-4` does not exist"
	{"encountered an unexpected error during processing", work.UpstreamUnavailable}, // Bedrock InternalServerException
	{"operation is not recognized by the service", work.InternalBug},                // Bedrock: the runtime's operation sent to another endpoint
	{"receipt handle has expired", work.Conflict},                                   // SQS InvalidParameterValue: the message moved on
	{"not available for visibility timeout change", work.Conflict},                  // SQS: received again or deleted since
	{"for parameter receipthandle is invalid", work.Conflict},
	{"one or more parameter values were invalid", work.InternalBug}, // DynamoDB ValidationException: a request we built
	{"one or more parameters are invalid", work.ClientError},        // SQS InvalidParameterValue (a message above its size limit): a request refused, read by the role
	{"item size has exceeded the maximum allowed size", work.InternalBug},
	{"find the specified secret", work.InternalBug}, // Secrets Manager's ResourceNotFoundException without its code: "Secrets Manager can't find the specified secret."
	{"conditional request failed", work.Conflict},   // DynamoDB
	{"rate limit reached", work.RateLimited},
	{"rate limit exceeded", work.RateLimited},
	{"too many requests", work.RateLimited},
	{"you are being rate limited", work.RateLimited}, // Discord
	{"request rate is too high", work.RateLimited},
	{"throughput exceeds the current capacity", work.RateLimited}, // DynamoDB on-demand
	{"provisioned throughput", work.RateLimited},
	{"rate exceeded", work.RateLimited},            // AWS Throttling
	{"reduce your request rate", work.RateLimited}, // S3 SlowDown, in any SDK's words
	{"slow down", work.RateLimited},                // S3's 503 Slow Down
	{"request limit exceeded", work.RateLimited},   // EC2 RequestLimitExceeded
	{"has been throttled", work.RateLimited},
	{"message larger than max", work.InternalBug},     // gRPC: a message above the configured size limit ("received message larger than max (N vs. M)")
	{"resource has been exhausted", work.RateLimited}, // Gemini RESOURCE_EXHAUSTED, HTTP 429
	{"resource exhausted", work.RateLimited},
	{"overload", work.UpstreamUnavailable}, // "overloaded", "encountered an overload", system_overload_error
}

// CurlErrors are libcurl's error numbers (CURLcode) a client prints without
// its message — PHP's "cURL error 28: See …", the CLI's "curl: (28)",
// pycurl's "(28, ”)" — and what each means: a connection that failed or
// was cut, NETWORK_TIMEOUT, as TransportPhrases read its message; a peer
// certificate that failed verification, AUTH_DENIED. A number not listed
// (22, the HTTP error curl was asked to fail on) decides nothing.
var CurlErrors = map[int]work.Class{
	5:  work.NetworkTimeout, // CURLE_COULDNT_RESOLVE_PROXY
	6:  work.NetworkTimeout, // CURLE_COULDNT_RESOLVE_HOST
	7:  work.NetworkTimeout, // CURLE_COULDNT_CONNECT
	16: work.NetworkTimeout, // CURLE_HTTP2
	18: work.NetworkTimeout, // CURLE_PARTIAL_FILE
	28: work.NetworkTimeout, // CURLE_OPERATION_TIMEDOUT
	35: work.NetworkTimeout, // CURLE_SSL_CONNECT_ERROR
	52: work.NetworkTimeout, // CURLE_GOT_NOTHING
	55: work.NetworkTimeout, // CURLE_SEND_ERROR
	56: work.NetworkTimeout, // CURLE_RECV_ERROR
	60: work.AuthDenied,     // CURLE_PEER_FAILED_VERIFICATION
	92: work.NetworkTimeout, // CURLE_HTTP2_STREAM
	95: work.NetworkTimeout, // CURLE_HTTP3
	96: work.NetworkTimeout, // CURLE_QUIC_CONNECT_ERROR
}

// URLPhrases are a client's words for a URL it could not use, said
// before any request left: Go's "unsupported protocol scheme", requests'
// MissingSchema ("No scheme supplied") and InvalidSchema ("No connection
// adapters were found"), .NET's UriFormatException ("Invalid URI: The
// format of the URI could not be determined"), the JDK's
// MalformedURLException ("no protocol"), Node's ERR_INVALID_URL, the url
// crate's "relative URL without a base". No upstream answered: the URL
// is wrong where it was written (urlClass).
var URLPhrases = []string{
	"unsupported protocol scheme", "no scheme supplied", "no connection adapters were found", "invalid uri:",
	"uriformatexception", "malformedurlexception", "no protocol:", "err_invalid_url", "invalid url:",
	"relative url without a base", "invalid url '",
}

// urlClass is the class of a URL a client could not use, by the
// upstream it was meant for: a source's URL is the item's (a bad input,
// SCHEMA_INVALID); a receiver's, a model endpoint's or anything else's is
// the deployment's configuration (INTERNAL_BUG).
func urlClass(r Role) work.Class {
	if r == RoleSource {
		return work.SchemaInvalid
	}
	return work.InternalBug
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
	{"x509: ", work.AuthDenied}, // unknown authority, expired, wrong host
	{"failed to verify certificate", work.AuthDenied},
	{"self-signed certificate", work.AuthDenied}, // Node.js
	{"certificate is invalid", work.AuthDenied},  // any client's terse verdict
	{"invalid certificate", work.AuthDenied},
	{"self signed certificate", work.AuthDenied},                // OpenSSL
	{"unable to verify the first certificate", work.AuthDenied}, // Node.js
	{"certificate has expired", work.AuthDenied},                // Node.js, OpenSSL
	// a certificate out of its validity period, in each client's words:
	// Node's error code, Chromium's net error name without its "net::"
	// (ERR_CERT_DATE_INVALID, ERR_CERT_AUTHORITY_INVALID), NSS's and
	// Firefox's codes, the JDK's exceptions, webpki's and rustls' variants,
	// and the prose around them ("The certificate expired on …",
	// "Expired SSL Certificate", "certificate is not yet valid")
	{"cert_has_expired", work.AuthDenied},
	{"cert_not_yet_valid", work.AuthDenied},
	{"err_cert_", work.AuthDenied},
	{"sec_error_expired", work.AuthDenied}, // sec_error_expired_certificate, sec_error_expired_issuer_certificate
	{"sec_error_unknown_issuer", work.AuthDenied},
	{"sec_error_untrusted", work.AuthDenied},
	{"sec_error_revoked_certificate", work.AuthDenied},
	{"ssl_error_bad_cert_domain", work.AuthDenied},
	{"mozilla_pkix_error_", work.AuthDenied},
	{"certificateexpiredexception", work.AuthDenied},
	{"certificatenotyetvalidexception", work.AuthDenied},
	{"certexpired", work.AuthDenied},     // webpki, rustls: CertExpired, InvalidCertificate(Expired)
	{"certnotvalidyet", work.AuthDenied}, // webpki: CertNotValidYet
	{"certificate expired", work.AuthDenied},
	{"certificate is expired", work.AuthDenied},
	{"expired certificate", work.AuthDenied},
	{"expired ssl certificate", work.AuthDenied},
	{"expired tls certificate", work.AuthDenied},
	{"certificate is not yet valid", work.AuthDenied},
	{"certificate not yet valid", work.AuthDenied},
	{"pkix path building failed", work.AuthDenied},                  // the JDK: no trust path to the host's certificate
	{"unable to find valid certification path", work.AuthDenied},    // the JDK
	{"certificate_verify_failed", work.AuthDenied},                  // Python's ssl, upper case
	{"ssl certificate problem", work.AuthDenied},                    // curl
	{"peer certificate cannot be authenticated", work.AuthDenied},   // curl 60 (CURLE_PEER_FAILED_VERIFICATION), older wording
	{"unable to get local issuer certificate", work.AuthDenied},     // OpenSSL, Node.js
	{"does not look like a tls handshake", work.InternalBug},        // an https URL to a plain-HTTP port
	{"server gave http response to https client", work.InternalBug}, // the same, seen by net/http
	{"tls handshake timeout", work.NetworkTimeout},
	{"remote error: tls", work.NetworkTimeout},
	// net/http's HTTP/2 transport: the connection or the stream failed
	{"http2: ", work.NetworkTimeout}, // GOAWAY, client connection lost, timeout awaiting response headers
	{"stream error: stream id", work.NetworkTimeout},
	// the AWS SDKs' own failures
	{"failed to get rate limit token", work.RateLimited}, // Go v2: its client-side retry token bucket is empty; it refills with time
	{"retry quota exceeded", work.RateLimited},
	{"failed to retrieve credentials", work.AuthDenied},
	{"failed to refresh cached credentials", work.AuthDenied},
	{"no ec2 imds role found", work.AuthDenied},
	{"nocredentialproviders", work.AuthDenied},
	{"unable to locate credentials", work.AuthDenied},
	// net, context, io
	{"client.timeout exceeded", work.NetworkTimeout},
	{"context deadline exceeded", work.NetworkTimeout},
	{"i/o timeout", work.NetworkTimeout},
	{"connection reset by peer", work.NetworkTimeout},
	{"connection refused", work.NetworkTimeout},
	{"broken pipe", work.NetworkTimeout},
	{"no such host", work.NetworkTimeout},
	{"server misbehaving", work.NetworkTimeout}, // a DNS server's failure
	{"network is unreachable", work.NetworkTimeout},
	{"no route to host", work.NetworkTimeout},
	{"use of closed network connection", work.NetworkTimeout},
	{"server closed idle connection", work.NetworkTimeout},
	{"socket hang up", work.NetworkTimeout}, // Node.js
	{"unexpected eof", work.NetworkTimeout},
	{": eof", work.NetworkTimeout}, // `Post "…": EOF`: the connection closed before an answer
	// Python (httpx, requests, urllib3, ssl), curl and Node.js spell the same failures
	{"certificate verify failed", work.AuthDenied},
	{"server disconnected", work.NetworkTimeout},
	{"remote end closed connection", work.NetworkTimeout},
	{"connection was reset", work.NetworkTimeout},
	{"connection aborted", work.NetworkTimeout},
	{"eof occurred in violation of protocol", work.NetworkTimeout},
	{"was not closed cleanly", work.NetworkTimeout}, // curl: an HTTP/2 stream reset
	{" enotfound", work.NetworkTimeout},             // Node.js: getaddrinfo ENOTFOUND — as a word: "ResourceNotFound" holds the letters too
	{"'enotfound", work.NetworkTimeout},             // code: 'ENOTFOUND'
	{"\"enotfound", work.NetworkTimeout},
	{"etimedout", work.NetworkTimeout},
	{"eai_again", work.NetworkTimeout}, // getaddrinfo: a DNS answer that did not come
	{"eai_noname", work.NetworkTimeout},
	{"eai_fail", work.NetworkTimeout},
	{"enetunreach", work.NetworkTimeout},
	{"ehostunreach", work.NetworkTimeout},
	{"econnaborted", work.NetworkTimeout},
	{"esockettimedout", work.NetworkTimeout},
	{"econnreset", work.NetworkTimeout},
	{"econnrefused", work.NetworkTimeout},
	// every client's own words for the same failures, after the certificate
	// phrases above (a wrapper's text around a TLS verdict keeps its
	// verdict): httpx and httpcore, h11, aiohttp, requests and urllib3,
	// undici and Bun, OkHttp, Netty and reactor-netty, the JDK's
	// HttpClient, .NET's HttpClient, reqwest and hyper
	{"invalid peer certificate", work.AuthDenied},      // rustls
	{"remote certificate is invalid", work.AuthDenied}, // .NET
	// .NET Framework's WebException (HttpWebRequest, WebClient, PowerShell's
	// Invoke-RestMethod): its certificate verdict first, then the connection
	// it closed, in English and in the German and French of its localized
	// messages ("The underlying connection was closed: An unexpected error
	// occurred on a send", "… The connection was closed unexpectedly",
	// "… Could not establish secure channel for SSL/TLS") — no answer was read
	{"could not establish trust relationship", work.AuthDenied},
	{"underlying connection was closed", work.NetworkTimeout},
	{"zugrunde liegende verbindung wurde geschlossen", work.NetworkTimeout},
	{"connexion sous-jacente a été fermée", work.NetworkTimeout},
	{"the remote name could not be resolved", work.NetworkTimeout},
	// WinHTTP's errors by name, and as "<call>: <code>" with their numbers
	// (ERROR_WINHTTP_TIMEOUT 12002, _NAME_NOT_RESOLVED 12007,
	// _CANNOT_CONNECT 12029, _CONNECTION_ERROR 12030); its certificate
	// errors (12044, 12175) are no transport failure
	{"error_winhttp_timeout", work.NetworkTimeout},
	{"error_winhttp_name_not_resolved", work.NetworkTimeout},
	{"error_winhttp_cannot_connect", work.NetworkTimeout},
	{"error_winhttp_connection_error", work.NetworkTimeout},
	{"winhttpsendrequest: 12002", work.NetworkTimeout},
	{"winhttpsendrequest: 12007", work.NetworkTimeout},
	{"winhttpsendrequest: 12029", work.NetworkTimeout},
	{"winhttpsendrequest: 12030", work.NetworkTimeout},
	{"winhttpreceiveresponse: 12002", work.NetworkTimeout},
	{"winhttpreceiveresponse: 12030", work.NetworkTimeout},
	{"peer closed", work.NetworkTimeout}, // h11, httpx: "peer closed connection without sending complete message body"
	// a peer that closed or dropped the connection, in any client's words
	// ("Remote peer disconnected", "connection closed by peer", "Connection
	// closed by remote host", "disconnected by the remote peer")
	{"peer disconnected", work.NetworkTimeout},
	{"closed by peer", work.NetworkTimeout},
	{"closed by the peer", work.NetworkTimeout},
	{"closed by remote", work.NetworkTimeout},
	{"closed by the remote", work.NetworkTimeout},
	{"disconnected by peer", work.NetworkTimeout},
	{"disconnected by the peer", work.NetworkTimeout},
	{"disconnected by remote", work.NetworkTimeout},
	{"disconnected by the remote", work.NetworkTimeout},
	{"remote host closed", work.NetworkTimeout},
	{"remote peer closed", work.NetworkTimeout},
	{"all connection attempts failed", work.NetworkTimeout},    // httpcore (anyio)
	{"response payload is not completed", work.NetworkTimeout}, // aiohttp
	{"cannot connect to host", work.NetworkTimeout},            // aiohttp
	{"connection broken:", work.NetworkTimeout},                // urllib3: IncompleteRead, InvalidChunkLength
	{"incompleteread", work.NetworkTimeout},                    // http.client and urllib3: the body was cut short
	{"invalidchunklength", work.NetworkTimeout},
	{"chunkedencodingerror", work.NetworkTimeout}, // requests
	// botocore's own HTTP failures (EndpointConnectionError,
	// ConnectionClosedError, ConnectTimeoutError, ReadTimeoutError,
	// ProxyConnectionError): no answer from the endpoint
	{"could not connect to the endpoint url", work.NetworkTimeout},
	{"endpointconnectionerror", work.NetworkTimeout},
	{"connection was closed before we received a valid response", work.NetworkTimeout},
	{"connect timeout on endpoint url", work.NetworkTimeout},
	{"read timeout on endpoint url", work.NetworkTimeout},
	{"failed to connect to proxy url", work.NetworkTimeout},
	{"failed to establish a new connection", work.NetworkTimeout}, // urllib3
	{"name or service not known", work.NetworkTimeout},            // getaddrinfo
	{"temporary failure in name resolution", work.NetworkTimeout},
	{"nodename nor servname provided", work.NetworkTimeout},
	{"no such host is known", work.NetworkTimeout}, // .NET, Windows
	// Windows: Go names the Winsock call that failed (net.OpError on
	// Windows), and every runtime prints Winsock's own message for the
	// error (WSAECONNREFUSED, WSAECONNABORTED, WSAENETUNREACH,
	// WSAEHOSTUNREACH, WSATRY_AGAIN, WSANO_RECOVERY, WSANO_DATA)
	{"connectex: ", work.NetworkTimeout},
	{"wsarecv: ", work.NetworkTimeout},
	{"wsasend: ", work.NetworkTimeout},
	{"wsarecvfrom: ", work.NetworkTimeout},
	{"wsasendto: ", work.NetworkTimeout},
	{"getaddrinfow: ", work.NetworkTimeout},
	{"(getaddrinfo: ", work.NetworkTimeout}, // Ruby's Net::HTTP: "Failed to open TCP connection to …:443 (getaddrinfo: Try again)"
	// a host or a service the client could not reach, in its prose
	// (Snowflake's external function "Remote service cannot be reached",
	// Chromium's page "This site can't be reached")
	{"cannot be reached", work.NetworkTimeout},
	{"can not be reached", work.NetworkTimeout},
	{"can't be reached", work.NetworkTimeout},
	{"can’t be reached", work.NetworkTimeout}, // Chromium's typographic apostrophe
	{"could not be reached", work.NetworkTimeout},
	{"target machine actively refused", work.NetworkTimeout},
	{"connection was aborted by the software in your host", work.NetworkTimeout},
	{"attempted to an unreachable", work.NetworkTimeout}, // network, host
	{"temporary error during hostname resolution", work.NetworkTimeout},
	{"non-recoverable error occurred during a database lookup", work.NetworkTimeout},
	{"no data of the requested type was found", work.NetworkTimeout},
	{"other side closed", work.NetworkTimeout}, // undici UND_ERR_SOCKET
	{"und_err_socket", work.NetworkTimeout},
	{"und_err_connect_timeout", work.NetworkTimeout},
	{"und_err_headers_timeout", work.NetworkTimeout},
	{"und_err_body_timeout", work.NetworkTimeout},
	{"typeerror: fetch failed", work.NetworkTimeout},    // undici: the cause, when printed, says more (above)
	{"<no response> fetch failed", work.NetworkTimeout}, // ofetch around undici: no answer at all
	{"empty reply from server", work.NetworkTimeout},    // curl (52): the connection closed with no answer
	{"serverdisconnectederror", work.NetworkTimeout},    // aiohttp's exception, printed with no message
	{"clientconnectorerror", work.NetworkTimeout},       // aiohttp
	{"net::err_", work.NetworkTimeout},                  // Chromium: name not resolved, refused, reset, timed out
	// Apple's URL loading system (URLSession, AFNetworking, SDWebImage):
	// its errors name their domain and a negative code, often with a
	// description in the device's language ("请求超时。"); its certificate
	// verdicts say "certificate", which the rows above read first.
	{"certificate for this server", work.AuthDenied}, // -1201 to -1204 in English: invalid, expired, unknown root, not yet valid
	{"nsurlerrordomain code=-1201", work.AuthDenied},
	{"nsurlerrordomain code=-1202", work.AuthDenied},
	{"nsurlerrordomain code=-1203", work.AuthDenied},
	{"nsurlerrordomain code=-1204", work.AuthDenied},
	{"nsurlerrordomain error -1201", work.AuthDenied},
	{"nsurlerrordomain error -1202", work.AuthDenied},
	{"nsurlerrordomain error -1203", work.AuthDenied},
	{"nsurlerrordomain error -1204", work.AuthDenied},
	{"nsurlerrordomain", work.NetworkTimeout},
	{"kcferrordomaincfnetwork", work.NetworkTimeout},
	{"the network connection was lost", work.NetworkTimeout},
	{"internet connection appears to be offline", work.NetworkTimeout},
	{"a server with the specified hostname could not be found", work.NetworkTimeout},
	{"mint.transporterror", work.NetworkTimeout}, // Elixir's Mint: closed, timeout, econnrefused
	{"socket closed", work.NetworkTimeout},
	{"socket connection was closed unexpectedly", work.NetworkTimeout}, // Bun
	{"unexpected end of stream", work.NetworkTimeout},                  // OkHttp
	{"stream was reset", work.NetworkTimeout},                          // OkHttp HTTP/2
	{"failed to connect to", work.NetworkTimeout},                      // OkHttp
	{"connection prematurely closed", work.NetworkTimeout},             // reactor-netty
	{"header parser received no bytes", work.NetworkTimeout},           // the JDK's HttpClient
	{"eof reached while reading", work.NetworkTimeout},
	{"response ended prematurely", work.NetworkTimeout}, // .NET HttpClient
	{"forcibly closed by the remote host", work.NetworkTimeout},
	{"unable to read data from the transport connection", work.NetworkTimeout},
	{"did not properly respond after a period of time", work.NetworkTimeout},
	{"an error occurred while sending the request", work.NetworkTimeout}, // .NET: no answer was read
	{"connection closed before message completed", work.NetworkTimeout},  // hyper IncompleteMessage
	{"error trying to connect", work.NetworkTimeout},                     // hyper, reqwest
	{"failed to lookup address information", work.NetworkTimeout},
	{"error sending request for url", work.NetworkTimeout}, // reqwest: no answer was read
	{"http2 error", work.NetworkTimeout},                   // hyper, reqwest: "http2 error: protocol error: …", a stream or connection the peer reset
	// hyper's own table of errors (hyper::Error's descriptions, 0.12 to
	// 1.x, and its Debug kinds): the connection closed or failed before
	// the message or its body was whole
	{"parsed http message from remote is incomplete", work.NetworkTimeout}, // 0.12's Incomplete
	{"error reading a body from connection", work.NetworkTimeout},
	{"error writing a body to connection", work.NetworkTimeout},
	{"http2 general error", work.NetworkTimeout},
	{"kind: incomplete", work.NetworkTimeout}, // Debug: Error { kind: Incomplete, … }, kind: IncompleteMessage
	{"hyper::error(io", work.NetworkTimeout},  // Debug: hyper::Error(Io, Os { … })
	{"hyper::error(body", work.NetworkTimeout},
	{"hyper::error(channelclosed", work.NetworkTimeout},
	// h2's table of reasons (RFC 9113's error codes in h2's words), which
	// its errors print after "stream error received:", "connection error
	// detected:" or "protocol error:": a stream or a connection the peer or
	// the client reset
	{"stream error received: ", work.NetworkTimeout},
	{"stream error detected: ", work.NetworkTimeout},
	{"connection error received: ", work.NetworkTimeout},
	{"connection error detected: ", work.NetworkTimeout},
	{"unspecific protocol error detected", work.NetworkTimeout},    // PROTOCOL_ERROR
	{"unexpected internal error encountered", work.NetworkTimeout}, // INTERNAL_ERROR
	{"flow-control protocol violated", work.NetworkTimeout},        // FLOW_CONTROL_ERROR
	{"settings ack not received in timely manner", work.NetworkTimeout},
	{"received frame when stream half-closed", work.NetworkTimeout},
	{"refused stream before processing any application logic", work.NetworkTimeout},
	{"unable to maintain the header compression context", work.NetworkTimeout},
	{"detected excessive load generating behavior", work.NetworkTimeout}, // ENHANCE_YOUR_CALM: the peer closed the connection
	// a TLS handshake the peer or a middlebox cut, with no verdict on the
	// certificate (curl's "(35) OpenSSL SSL_connect: SSL_ERROR_SYSCALL"),
	// HTTP/2 streams and sessions nghttp2 (Node's http2, got, curl) or the
	// AWS SDK for JavaScript's http2 handler closed before an answer
	{"ssl_error_syscall", work.NetworkTimeout},
	// libcurl's own messages (curl_easy_strerror, in its older "Couldn't"
	// and newer "Could not" wordings, and the CLI's), whatever wraps them:
	// PHP's "cURL error 6: …", a locale's prefix, R's and Rust's bindings.
	// Its certificate verdicts are read above ("ssl certificate
	// problem", "peer certificate …").
	{"could not resolve host", work.NetworkTimeout}, // CURLE_COULDNT_RESOLVE_HOST, also "Could not resolve hostname"
	{"couldn't resolve host", work.NetworkTimeout},
	{"could not resolve proxy", work.NetworkTimeout},
	{"couldn't resolve proxy", work.NetworkTimeout},
	{"could not connect to server", work.NetworkTimeout},
	{"couldn't connect to server", work.NetworkTimeout},
	{"ssl connect error", work.NetworkTimeout},                         // CURLE_SSL_CONNECT_ERROR: the handshake failed, no verdict on the certificate
	{"failure when receiving data from the peer", work.NetworkTimeout}, // CURLE_RECV_ERROR
	{"failed sending data to the peer", work.NetworkTimeout},           // CURLE_SEND_ERROR
	{"server returned nothing", work.NetworkTimeout},                   // CURLE_GOT_NOTHING
	{"transferred a partial file", work.NetworkTimeout},                // CURLE_PARTIAL_FILE
	{"timeout was reached", work.NetworkTimeout},                       // CURLE_OPERATION_TIMEDOUT
	{"weird server reply", work.NetworkTimeout},                        // CURLE_WEIRD_SERVER_REPLY
	{"error in the http2 framing layer", work.NetworkTimeout},
	{"stream error in the http/2 framing layer", work.NetworkTimeout},
	{"quic connection error", work.NetworkTimeout},
	// a QUIC connection closed or idle before an answer: quiche's and
	// curl's "QUIC connection is draining", quic-go's idle and handshake
	// timeouts, gQUIC's and Chromium's error names for them
	{"quic connection is draining", work.NetworkTimeout},
	{"no recent network activity", work.NetworkTimeout},
	{"handshake did not complete in time", work.NetworkTimeout},
	{"quic_network_idle_timeout", work.NetworkTimeout},
	{"quic_handshake_timeout", work.NetworkTimeout},
	{"proxy handshake error", work.NetworkTimeout},
	// TLS alerts and handshakes that end without a verdict on the
	// certificate, as the JDK, .NET and OpenSSL print them (the verdicts —
	// PKIX, "certificate verify failed" — are read above, and an alert
	// about a certificate is one)
	{"alert bad certificate", work.AuthDenied},
	{"alert unknown ca", work.AuthDenied},
	{"alert certificate", work.AuthDenied}, // certificate_expired, certificate_unknown, certificate_revoked
	{"fatal alert: bad_certificate", work.AuthDenied},
	{"fatal alert: certificate_", work.AuthDenied},
	{"fatal alert: unknown_ca", work.AuthDenied},
	// the same alerts as Erlang's ssl names them in its tls_alert tuple
	// ({tls_alert,{bad_certificate,…}}, Elixir's {:tls_alert, {:unknown_ca, …}})
	{"bad_certificate", work.AuthDenied},
	{"unknown_ca", work.AuthDenied},
	{"certificate_expired", work.AuthDenied},
	{"certificate_unknown", work.AuthDenied},
	{"certificate_revoked", work.AuthDenied},
	{"received fatal alert", work.NetworkTimeout},                 // the JDK: handshake_failure, protocol_version
	{"remote host terminated the handshake", work.NetworkTimeout}, // the JDK
	{"sslhandshakeexception", work.NetworkTimeout},
	{"ssl handshake failed", work.NetworkTimeout},
	{"the ssl connection could not be established", work.NetworkTimeout}, // .NET
	{"alert handshake failure", work.NetworkTimeout},                     // OpenSSL: "sslv3 alert handshake failure"
	{"alert protocol version", work.NetworkTimeout},
	// Dart's dart:io (HandshakeException: "Handshake error in client (OS
	// Error: …)", "Connection terminated during handshake") and Erlang's
	// ssl, whose other alerts ({tls_alert,"unexpected message"},
	// handshake_failure) say nothing of the certificate
	{"handshakeexception", work.NetworkTimeout},
	{"connection terminated during handshake", work.NetworkTimeout},
	{"tls_alert", work.NetworkTimeout},
	{"nghttp2_", work.NetworkTimeout}, // NGHTTP2_PROTOCOL_ERROR, NGHTTP2_INTERNAL_ERROR, NGHTTP2_REFUSED_STREAM
	{"http2 request did not get a response", work.NetworkTimeout},
	// the Rust AWS SDK and hyper in their Debug renderings, gRPC's
	// transport, Elixir's (ExAws, HTTPoison, Mint) transport atoms
	{"dispatchfailure", work.NetworkTimeout}, // smithy-rs: the request could not be sent or its answer read
	{"dispatch failure", work.NetworkTimeout},
	{"connectorerror", work.NetworkTimeout},
	{"incompletemessage", work.NetworkTimeout}, // hyper: the connection closed before the message completed
	{"timedout", work.NetworkTimeout},          // io::ErrorKind::TimedOut, TimedOutError, reqwest's "source: TimedOut"
	{"transport is closing", work.NetworkTimeout},
	{"error reading from server", work.NetworkTimeout}, // grpc-go
	// gRPC's transports in their own words, under any status they report
	// them with (UNAVAILABLE, INTERNAL, UNKNOWN): grpc-go's stream reset and
	// GOAWAY, grpc-java's Netty and OkHttp transports ("Received Rst
	// Stream", "Rst Stream"), gRPC core's (Python, Ruby, C++, PHP; printed
	// by google-api-core as "503 …") — and HTTP/2's GOAWAY in any client's
	// words (Vert.x's "Connection was closed (GOAWAY error code = 1)")
	{"rst_stream", work.NetworkTimeout}, // "stream terminated by RST_STREAM with error code: INTERNAL_ERROR"
	{"rst stream", work.NetworkTimeout},
	{"goaway", work.NetworkTimeout},
	{"failed to connect to all addresses", work.NetworkTimeout},
	{"transport closed", work.NetworkTimeout},
	{"handshake shutdown", work.NetworkTimeout},
	{"keepalive failed", work.NetworkTimeout},
	{"reset by remote peer", work.NetworkTimeout}, // urllib3-future over HTTP/2: "Stream 1 was reset by remote peer. Reason: 0x1."
	{"reset by the remote peer", work.NetworkTimeout},
	{"network closed for unknown reason", work.NetworkTimeout},
	// undici's fetch: the body's stream cut ("TypeError: terminated") and
	// the bare "fetch failed" a wrapper prints after its own words
	{"typeerror: terminated", work.NetworkTimeout},
	{": fetch failed", work.NetworkTimeout},
	{"und_err_res_content_length_mismatch", work.NetworkTimeout},
	{"und_err_closed", work.NetworkTimeout},
	{"und_err_destroyed", work.NetworkTimeout},
	{"nxdomain", work.NetworkTimeout},
	{"http error: :timeout", work.NetworkTimeout},
	{"{:error, :timeout}", work.NetworkTimeout},
	{"reason: :timeout", work.NetworkTimeout},
	{"reason: :closed", work.NetworkTimeout},
	// Erlang's httpc, whose connect failure is a tuple naming the address
	// and the socket's reason ({failed_connect,[{to_address,…},{inet,[inet],
	// econnrefused}]}), and HTTPoison's exception, whose message is
	// hackney's transport atom (":closed", ":econnrefused", ":nxdomain")
	{"{failed_connect,", work.NetworkTimeout},
	{"{:failed_connect,", work.NetworkTimeout},
	{"(httpoison.error) :", work.NetworkTimeout},
}

// TextPhrases are the last resort: words of providers' and people's error
// text for errors that carry no structure (a wrapped string, a log line),
// read after everything else, the status included. Order matters; the
// first match wins.
var TextPhrases = []Phrase{
	{"insufficient_quota", work.BudgetExceeded},
	// Tencent Cloud's codes of money spent, whatever their namespace: a
	// prepaid resource pack used up (UnsupportedOperation.PkgExhausted),
	// an account in arrears (ResourceUnavailable.InArrears)
	{".pkgexhausted", work.BudgetExceeded},
	{".inarrears", work.BudgetExceeded},
	{"credit balance is too low", work.BudgetExceeded},
	// an account's balance run out, in any upstream's words (Jina's "Account
	// balance not enough to run this query, please recharge")
	{"insufficient balance", work.BudgetExceeded},
	{"insufficient account balance", work.BudgetExceeded},
	{"balance not enough", work.BudgetExceeded},
	{"balance is not enough", work.BudgetExceeded},
	{"balance is insufficient", work.BudgetExceeded},
	{"please recharge", work.BudgetExceeded},
	{"exceeded your current quota", work.BudgetExceeded},
	{"budget exceeded", work.BudgetExceeded},
	{"api usage limits", work.BudgetExceeded},
	{"spend limit", work.BudgetExceeded},
	{"context_length_exceeded", work.TokenLimit},
	{"maximum context length", work.TokenLimit},
	{"prompt is too long", work.TokenLimit},
	{"content_policy_violation", work.ContentPolicy},
	{"content_filter", work.ContentPolicy},
	{"content policy", work.ContentPolicy},
	{"rate limit", work.RateLimited},
	{"rate_limit", work.RateLimited},
	{"ratelimit", work.RateLimited},
	{"too many requests", work.RateLimited},
	{"throttl", work.RateLimited},
	{"flood control", work.RateLimited}, // VK's error 9, Telegram's "Flood control exceeded"
	// a credential the upstream does not know (Kakao's "this access token
	// does not exist"): an operator issues a new one
	{"token does not exist", work.AuthDenied},
	{"token doesn't exist", work.AuthDenied},
	{"slow down", work.RateLimited},
	{"timed out", work.NetworkTimeout},
	{"timeout", work.NetworkTimeout},
	{"deadline exceeded", work.NetworkTimeout},
	{"connection reset", work.NetworkTimeout},
	{"connection closed", work.NetworkTimeout},
	{"tls handshake", work.NetworkTimeout},
	{"overload", work.UpstreamUnavailable}, // "overloaded", "encountered an overload", system_overload_error
	{"service unavailable", work.UpstreamUnavailable},
	{"temporarily unavailable", work.UpstreamUnavailable}, // "Feature temporarily unavailable", "Service temporarily unavailable"
	// an overload in a busy server's words (DeepSeek's "The server is
	// busy. Please try again later.", "服务器繁忙"), and a service down for
	// maintenance: the upstream not serving for a while, when no status
	// said more (a 429 that says its server is busy stays a rate)
	{"server is busy", work.UpstreamUnavailable},
	{"server busy", work.UpstreamUnavailable},
	{"servers are busy", work.UpstreamUnavailable},
	{"服务器繁忙", work.UpstreamUnavailable},
	{"伺服器繁忙", work.UpstreamUnavailable},
	{"too busy", work.UpstreamUnavailable}, // MediaWiki's "Search is currently too busy. Please try again later."
	// a service that says it is not serving now, in a front door's or a
	// web server's page (Azure Front Door's "Our services aren't available
	// right now", IIS's "The service is unavailable.")
	{"available right now", work.UpstreamUnavailable},
	{"service is unavailable", work.UpstreamUnavailable},
	{"service is currently unavailable", work.UpstreamUnavailable},
	// a proxy or load balancer with no healthy instance of the site behind
	// it (Fly.io's "could not find a good candidate within 90 attempts at
	// load balancing", Envoy's "no healthy upstream")
	{"attempts at load balancing", work.UpstreamUnavailable},
	{"no healthy upstream", work.UpstreamUnavailable},
	{"no healthy instances", work.UpstreamUnavailable},
	// an API gateway's own words for the service behind it failing, as Kong
	// answers its 502, 503 and 504 ("An invalid response was received from
	// the upstream server", "failure to get a peer from the ring-balancer",
	// "The upstream server is timing out") and nginx logs "no live
	// upstreams": each its status's row
	{"invalid response was received from the upstream", work.UpstreamUnavailable},
	{"upstream server is currently unavailable", work.UpstreamUnavailable},
	{"failure to get a peer from the ring-balancer", work.UpstreamUnavailable},
	{"upstream server is timing out", work.UpstreamUnavailable},
	{"no live upstreams", work.UpstreamUnavailable},
	{"under maintenance", work.UpstreamUnavailable},
	{"down for maintenance", work.UpstreamUnavailable},
	{"undergoing maintenance", work.UpstreamUnavailable},
	{"scheduled maintenance", work.UpstreamUnavailable},
	{"maintenance mode", work.UpstreamUnavailable},
	{"bad gateway", work.UpstreamUnavailable},
	{"internal server error", work.UpstreamUnavailable},
	{"internal_error", work.UpstreamUnavailable},
	{"upstream connect error", work.UpstreamUnavailable}, // Envoy and service meshes
	{"apiconnectionerror", work.NetworkTimeout},          // the OpenAI-style SDKs' (and LiteLLM's base case)
	{"connection error", work.NetworkTimeout},
	{"invalid api key", work.AuthDenied},
	{"incorrect api key", work.AuthDenied},
	{"unauthorized", work.AuthDenied},
	{"forbidden", work.AuthDenied},
	{"permission denied", work.AuthDenied},
	{"access denied", work.AuthDenied},
	{"access was denied", work.AuthDenied},     // Lambda: "KMS access was denied"
	{"accessdeniedexception", work.AuthDenied}, // a code glued to its service's name (Lambda's "AccessDeniedExceptionKMS")
	{"expired token", work.AuthDenied},
	{"token expired", work.AuthDenied},
	// encoding/json, reading model output
	{"unexpected end of json input", work.ResponseInvalid},
	{"invalid character", work.ResponseInvalid},
	{"cannot unmarshal", work.ResponseInvalid},
	{"invalid json", work.ResponseInvalid},
	{"json parse", work.ResponseInvalid},
	{"expecting value: line", work.ResponseInvalid},            // Python's json: the model answered something else than JSON
	{"unterminated string in json", work.ResponseInvalid},      // JavaScript's JSON.parse: an answer cut short
	{"syntax error while parsing value", work.ResponseInvalid}, // nlohmann/json
	{"unexpected token", work.ResponseInvalid},                 // JavaScript's JSON.parse
	{"version conflict", work.Conflict},
	{"optimistic lock", work.Conflict},
	{"conflict", work.Conflict}, // "Conflict occurred while saving", an SDK's ConflictError, HTTP 409's reason
	{"conditional request failed", work.Conflict},
	{"nil pointer dereference", work.InternalBug},
	{"index out of range", work.InternalBug},
	{"invariant", work.InternalBug},
	{"not found", work.NotFound},
}

func mergeCodes(m map[string]work.Class, codes []string, c work.Class) map[string]work.Class {
	for _, code := range codes {
		m[code] = c
	}
	return m
}
