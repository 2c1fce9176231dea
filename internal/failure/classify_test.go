package failure_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	dynamodbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// Bodies below are the providers' documented error shapes; messages are the
// ones they send (or send today), trimmed only where they name an account.
const (
	openAIRateLimitTokens = `{"error":{"message":"Rate limit reached for gpt-4o in organization org-9Zk2 on tokens per min (TPM): Limit 30000, Used 29541, Requested 1733. Please try again in 2.548s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`
	openAIRateLimitReqs   = `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-9Zk2 on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	openAIQuota           = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	openAISpendLimit      = `{"error":{"message":"You have exceeded the hard limit set for this project. Raise it in the project's limits settings to continue.","type":"requests","param":null,"code":"project_spend_limit_exceeded"}}`
	openAIBadKey          = `{"error":{"message":"Incorrect API key provided: sk-proj-********************************Xq4A. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	openAINoKey           = `{"error":{"message":"You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).","type":"invalid_request_error","param":null,"code":null}}`
	openAIRegion          = `{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported","param":null,"type":"request_forbidden"}}`
	openAIContextLength   = `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
	openAIContextNullCode = `{"error":{"message":"This model's maximum context length is 16385 tokens. However, you requested 17001 tokens (15001 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":null}}`
	openAIPolicy          = `{"error":{"code":"content_policy_violation","message":"Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.","param":null,"type":"invalid_request_error"}}`
	openAIModelNotFound   = "{\"error\":{\"message\":\"The model `gpt-4o-2099` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}"
	openAIUnsupported     = `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`
	openAIServerError     = `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`
	openAIOverloaded      = `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`
	vllmContextLength     = `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`
	cloudflare502         = `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>`

	azureContentFilter = `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"jailbreak":{"filtered":true,"detected":true},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":false,"severity":"safe"}}}}}`
	azure429           = `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}`
	azureNoDeployment  = `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}}`
	azure401           = `{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}`
	azureNotSupported  = `{"error":{"code":"OperationNotSupported","message":"The chatCompletion operation does not work with the specified model, text-embedding-3-large. Please choose different model and try again. You can learn more about which models can be used with each operation here: https://go.microsoft.com/fwlink/?linkid=2197993."}}`

	anthropicTooLong     = `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`
	anthropicCredit      = `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fz"}`
	anthropicSpendLimit  = `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-06-01 at 00:00 UTC."},"request_id":"req_011CZLrUfBVkVHn5T6EqQaf7"}`
	anthropicEnforced    = `{"type":"error","error":{"type":"rate_limit_error","message":"This organization has reached its monthly usage limit for its usage tier. Access resumes on the first day of next month.","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_011CZLrUfBVkVHn5T6EqQaf8"}`
	anthropicAuth        = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CSHoEeqs5C35K2UUqR7G0"}`
	anthropicPermission  = `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."},"request_id":"req_011CSHoEeqs5C35K2UUqR7G1"}`
	anthropicNotFound    = `{"type":"error","error":{"type":"not_found_error","message":"model: claude-sonnet-9-20990101"},"request_id":"req_011CSHoEeqs5C35K2UUqR7G2"}`
	anthropicTooLarge    = `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."},"request_id":"req_011CSHoEeqs5C35K2UUqR7G3"}`
	anthropicRateLimit   = `{"type":"error","error":{"details":null,"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (3f1c) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."},"request_id":"req_011CSHoEeqs5C35K2UUqR7G4"}`
	anthropicAPIError    = `{"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_011CSHoEeqs5C35K2UUqR7G5"}`
	anthropicOverloaded  = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7G6"}`
	anthropicBilling     = `{"type":"error","error":{"type":"billing_error","message":"There is an issue with your payment method. Please update it in Plans & Billing."},"request_id":"req_011CSHoEeqs5C35K2UUqR7G7"}`
	anthropicGatewayTime = `{"type":"error","error":{"type":"timeout_error","message":"Request timed out while processing. Please retry."},"request_id":"req_011CSHoEeqs5C35K2UUqR7G8"}`

	bedrockTooLong = "Input is too long for requested model."
	bedrockBadBody = "Malformed input request: #: extraneous key [top_kk] is not permitted, please reformat your input and try again."

	discordRateLimited  = `{"message": "You are being rate limited.", "retry_after": 64.57, "global": false}`
	discordUnknown      = `{"message": "Unknown Webhook", "code": 10015}`
	discordUnauthorized = `{"message": "401: Unauthorized", "code": 0}`
	discordEmpty        = `{"message": "Cannot send an empty message", "code": 50006}`
)

// bedrockHeader is how Bedrock runtime names the error of a REST-JSON response.
func bedrockHeader(code string) []string {
	return []string{
		"Content-Type", "application/json",
		"X-Amzn-Errortype", code + ":http://internal.amazon.com/coral/com.amazon.bedrock/",
		"X-Amzn-Requestid", "9f1c2b8e-3d4a-4e5f-8a6b-7c8d9e0f1a2b",
	}
}

func bedrockBody(msg string) string { return `{"message":"` + msg + `"}` }

type timeoutError struct{}

func (timeoutError) Error() string {
	return "net/http: request canceled (Client.Timeout exceeded while awaiting headers)"
}
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// truncatedJSON is what json.Unmarshal says about a completion cut off by
// max_tokens.
func truncatedJSON() error {
	var v struct{ Summary string }
	return json.Unmarshal([]byte(`{"summary":"The quarterly results show a 12% rise in`), &v)
}

func wrongTypeJSON() error {
	var v struct {
		Score float64 `json:"score"`
	}
	return json.Unmarshal([]byte(`{"score":"high"}`), &v)
}

// nilMapWrite recovers the runtime error of writing to a nil map the way the
// stage runner does.
func nilMapWrite() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = failure.Recovered(r)
		}
	}()
	var counts map[string]int
	counts["llm"]++
	return nil
}

// rawRuntimeError recovers the same panic but keeps the runtime.Error itself.
func rawRuntimeError() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stage llm: %w", r.(error))
		}
	}()
	var counts map[string]int
	counts["llm"]++
	return nil
}

type classifyCase struct {
	err  error
	want work.Class
	// requested is c.Requested.Resolve(now): zero when the upstream asked for nothing.
	requested time.Duration
	// code is the evidence code Classify records, checked when non-empty.
	code string
	// hidden is upstream text the Reason must not contain, beyond the
	// messages upstreamText finds in the error itself.
	hidden []string
}

func classifyCases(now time.Time) map[string]classifyCase {
	return map[string]classifyCase{
		// OpenAI
		"openai 429 rate_limit_exceeded tokens exhausted": {
			err: httpErr(failure.OpenAI, 429, openAIRateLimitTokens,
				"X-Request-Id", "req_8f2a",
				"X-Ratelimit-Limit-Requests", "500", "X-Ratelimit-Remaining-Requests", "499", "X-Ratelimit-Reset-Requests", "120ms",
				"X-Ratelimit-Limit-Tokens", "30000", "X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "2.548s"),
			want: work.RateLimited, requested: 2548 * time.Millisecond, code: "rate_limit_exceeded",
		},
		"openai 429 rate_limit_exceeded requests exhausted picks the exhausted limit": {
			err: httpErr(failure.OpenAI, 429, openAIRateLimitReqs,
				"X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "120ms",
				"X-Ratelimit-Remaining-Tokens", "150000", "X-Ratelimit-Reset-Tokens", "6m0s"),
			want: work.RateLimited, requested: 120 * time.Millisecond,
		},
		"openai-compatible 429 retry-after-ms beats Retry-After": {
			err:  httpErr(failure.OpenAI, 429, openAIRateLimitTokens, "Retry-After-Ms", "1500", "Retry-After", "2"),
			want: work.RateLimited, requested: 1500 * time.Millisecond,
		},
		"openai 429 insufficient_quota": {
			err:  httpErr(failure.OpenAI, 429, openAIQuota, "X-Request-Id", "req_1"),
			want: work.BudgetExceeded, code: "insufficient_quota",
		},
		"openai 429 project_spend_limit_exceeded": {
			err:  httpErr(failure.OpenAI, 429, openAISpendLimit),
			want: work.BudgetExceeded, code: "project_spend_limit_exceeded",
		},
		"openai 401 invalid_api_key": {
			err:  httpErr(failure.OpenAI, 401, openAIBadKey),
			want: work.AuthDenied, code: "invalid_api_key", hidden: []string{"sk-proj-"},
		},
		"openai 401 missing key with null code": {
			err:  httpErr(failure.OpenAI, 401, openAINoKey),
			want: work.AuthDenied,
		},
		"openai 403 unsupported region": {
			err:  httpErr(failure.OpenAI, 403, openAIRegion),
			want: work.AuthDenied,
		},
		"openai 400 context_length_exceeded": {
			err:  httpErr(failure.OpenAI, 400, openAIContextLength),
			want: work.TokenLimit, code: "context_length_exceeded",
		},
		"openai 400 maximum context length with null code": {
			err:  httpErr(failure.OpenAI, 400, openAIContextNullCode),
			want: work.TokenLimit,
		},
		"openai 400 content_policy_violation": {
			err:  httpErr(failure.OpenAI, 400, openAIPolicy),
			want: work.ContentPolicy,
		},
		"openai 404 model_not_found": {
			err:  httpErr(failure.OpenAI, 404, openAIModelNotFound),
			want: work.ClientError, code: "model_not_found",
		},
		"openai 400 unsupported_parameter": {
			err:  httpErr(failure.OpenAI, 400, openAIUnsupported),
			want: work.ClientError,
		},
		"openai 500 server_error with null code": {
			err:  httpErr(failure.OpenAI, 500, openAIServerError),
			want: work.UpstreamUnavailable, code: "server_error",
		},
		"openai 503 engine overloaded": {
			err:  httpErr(failure.OpenAI, 503, openAIOverloaded),
			want: work.UpstreamUnavailable,
		},
		"openai 502 cloudflare html page": {
			err:  httpErr(failure.OpenAI, 502, cloudflare502, "Content-Type", "text/html"),
			want: work.UpstreamUnavailable,
		},
		"openai-compatible vllm 400 context length in a flat body": {
			err:  httpErr(failure.OpenAI, 400, vllmContextLength),
			want: work.TokenLimit,
		},

		// Azure OpenAI
		"azure 400 content_filter with ResponsibleAIPolicyViolation": {
			err:  httpErr(failure.Azure, 400, azureContentFilter, "Apim-Request-Id", "b2c3"),
			want: work.ContentPolicy, code: "ResponsibleAIPolicyViolation",
		},
		"azure 429 code 429 with Retry-After": {
			err:  httpErr(failure.Azure, 429, azure429, "Retry-After", "6", "X-Ratelimit-Remaining-Tokens", "0"),
			want: work.RateLimited, requested: 6 * time.Second, code: "429",
		},
		"azure 404 DeploymentNotFound": {
			err:  httpErr(failure.Azure, 404, azureNoDeployment),
			want: work.ClientError, code: "DeploymentNotFound",
		},
		"azure 401 invalid subscription key": {
			err:  httpErr(failure.Azure, 401, azure401),
			want: work.AuthDenied,
		},
		"azure 400 OperationNotSupported": {
			err:  httpErr(failure.Azure, 400, azureNotSupported),
			want: work.ClientError,
		},

		// Anthropic
		"anthropic 400 prompt is too long": {
			err:  httpErr(failure.Anthropic, 400, anthropicTooLong),
			want: work.TokenLimit, code: "invalid_request_error",
		},
		"anthropic 400 credit balance is too low": {
			err:  httpErr(failure.Anthropic, 400, anthropicCredit),
			want: work.BudgetExceeded,
		},
		"anthropic 400 specified API usage limits": {
			err:  httpErr(failure.Anthropic, 400, anthropicSpendLimit),
			want: work.BudgetExceeded,
		},
		"anthropic 400 workspace API usage limits": {
			err:  httpErr(failure.Anthropic, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified workspace API usage limits. You will regain access on 2026-06-01 at 00:00 UTC."}}`),
			want: work.BudgetExceeded,
		},
		"anthropic 429 enforced_spend_limit_reached": {
			err:  httpErr(failure.Anthropic, 429, anthropicEnforced),
			want: work.BudgetExceeded, code: "enforced_spend_limit_reached",
		},
		"anthropic 402 billing_error": {
			err:  httpErr(failure.Anthropic, 402, anthropicBilling),
			want: work.BudgetExceeded,
		},
		"anthropic 401 authentication_error": {
			err:  httpErr(failure.Anthropic, 401, anthropicAuth, "Request-Id", "req_1"),
			want: work.AuthDenied, code: "authentication_error",
		},
		"anthropic 403 permission_error": {
			err:  httpErr(failure.Anthropic, 403, anthropicPermission),
			want: work.AuthDenied,
		},
		"anthropic 404 not_found_error": {
			err:  httpErr(failure.Anthropic, 404, anthropicNotFound),
			want: work.ClientError, code: "not_found_error",
		},
		"anthropic 413 request_too_large": {
			err:  httpErr(failure.Anthropic, 413, anthropicTooLarge),
			want: work.TokenLimit,
		},
		"anthropic 429 rate_limit_error with retry-after": {
			err: httpErr(failure.Anthropic, 429, anthropicRateLimit, "Retry-After", "20",
				"Anthropic-Ratelimit-Input-Tokens-Limit", "50000", "Anthropic-Ratelimit-Input-Tokens-Remaining", "0",
				"Anthropic-Ratelimit-Input-Tokens-Reset", now.Add(40*time.Second).Format(time.RFC3339)),
			want: work.RateLimited, requested: 20 * time.Second, code: "rate_limit_error",
		},
		"anthropic 429 rate_limit_error with only reset timestamps": {
			err: httpErr(failure.Anthropic, 429, anthropicRateLimit,
				"Anthropic-Ratelimit-Requests-Remaining", "0", "Anthropic-Ratelimit-Requests-Reset", now.Add(45*time.Second).Format(time.RFC3339),
				"Anthropic-Ratelimit-Tokens-Remaining", "12000", "Anthropic-Ratelimit-Tokens-Reset", now.Add(5*time.Minute).Format(time.RFC3339)),
			want: work.RateLimited, requested: 45 * time.Second,
		},
		"anthropic 500 api_error": {
			err:  httpErr(failure.Anthropic, 500, anthropicAPIError),
			want: work.UpstreamUnavailable,
		},
		"anthropic 529 overloaded_error": {
			err:  httpErr(failure.Anthropic, 529, anthropicOverloaded),
			want: work.UpstreamUnavailable, code: "overloaded_error",
		},
		"anthropic 504 timeout_error": {
			err:  httpErr(failure.Anthropic, 504, anthropicGatewayTime),
			want: work.UpstreamUnavailable,
		},

		// Bedrock over HTTP: the code in x-amzn-ErrorType, or in the body.
		"bedrock http 429 ThrottlingException": {
			err:  httpErr(failure.Bedrock, 429, bedrockBody("Too many requests, please wait before trying again."), bedrockHeader("ThrottlingException")...),
			want: work.RateLimited, code: "ThrottlingException",
		},
		"bedrock http 400 ServiceQuotaExceededException": {
			err:  httpErr(failure.Bedrock, 400, bedrockBody("Your request exceeds the service quota for your account. You can view your quotas at Viewing service quotas. You can resubmit your request later."), bedrockHeader("ServiceQuotaExceededException")...),
			want: work.RateLimited,
		},
		"bedrock http 408 ModelTimeoutException": {
			err:  httpErr(failure.Bedrock, 408, bedrockBody("Model has timed out in processing the request. Try your request again."), bedrockHeader("ModelTimeoutException")...),
			want: work.NetworkTimeout,
		},
		"bedrock http 429 ModelNotReadyException": {
			err:  httpErr(failure.Bedrock, 429, bedrockBody("Model is not ready to serve inference requests. The AWS SDK will automatically retry the operation."), bedrockHeader("ModelNotReadyException")...),
			want: work.UpstreamUnavailable,
		},
		"bedrock http 424 ModelErrorException": {
			err:  httpErr(failure.Bedrock, 424, bedrockBody("The model returned the following errors: Error in the model container."), bedrockHeader("ModelErrorException")...),
			want: work.UpstreamUnavailable,
		},
		"bedrock http 400 ValidationException input too long": {
			err:  httpErr(failure.Bedrock, 400, bedrockBody(bedrockTooLong), bedrockHeader("ValidationException")...),
			want: work.TokenLimit, code: "ValidationException",
		},
		"bedrock http 400 ValidationException in the JSON body": {
			err:  httpErr(failure.Bedrock, 400, `{"__type":"com.amazon.bedrock.runtime#ValidationException","message":"`+bedrockBadBody+`"}`),
			want: work.ClientError, code: "ValidationException",
		},
		"bedrock http 403 AccessDeniedException": {
			err:  httpErr(failure.Bedrock, 403, bedrockBody("You don't have access to the model with the specified model ID."), bedrockHeader("AccessDeniedException")...),
			want: work.AuthDenied,
		},
		"bedrock http 404 ResourceNotFoundException": {
			err:  httpErr(failure.Bedrock, 404, `{"Message":"Could not resolve the foundation model from the provided model identifier."}`, bedrockHeader("ResourceNotFoundException")...),
			want: work.ClientError, code: "ResourceNotFoundException",
		},

		// Bedrock through the SDK.
		"bedrock sdk ThrottlingException": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 429, apiErr("ThrottlingException", "Too many requests, please wait before trying again.")),
			want: work.RateLimited,
		},
		"bedrock sdk ServiceQuotaExceededException": {
			err:  sdkErr("Bedrock Runtime", "Converse", 400, apiErr("ServiceQuotaExceededException", "Your request exceeds the service quota for your account.")),
			want: work.RateLimited,
		},
		"bedrock sdk ModelTimeoutException": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 408, apiErr("ModelTimeoutException", "Model has timed out in processing the request.")),
			want: work.NetworkTimeout,
		},
		"bedrock sdk ModelNotReadyException": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 429, apiErr("ModelNotReadyException", "Model is not ready to serve inference requests.")),
			want: work.UpstreamUnavailable,
		},
		"bedrock sdk ModelErrorException": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 424, apiErr("ModelErrorException", "The model returned the following errors: Error in the model container.")),
			want: work.UpstreamUnavailable,
		},
		"bedrock sdk ValidationException input too long": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 400, apiErr("ValidationException", bedrockTooLong)),
			want: work.TokenLimit,
		},
		"bedrock sdk ValidationException prompt too long for claude": {
			err:  sdkErr("Bedrock Runtime", "Converse", 400, apiErr("ValidationException", "prompt is too long: 215000 tokens > 200000 maximum")),
			want: work.TokenLimit,
		},
		"bedrock sdk ValidationException other": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 400, apiErr("ValidationException", bedrockBadBody)),
			want: work.ClientError, code: "ValidationException",
		},
		"bedrock sdk AccessDeniedException": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 403, apiErr("AccessDeniedException", "You don't have access to the model with the specified model ID.")),
			want: work.AuthDenied,
		},
		"bedrock sdk ResourceNotFoundException": {
			err:  sdkErr("Bedrock Runtime", "InvokeModel", 404, apiErr("ResourceNotFoundException", "Could not resolve the foundation model from the provided model identifier.")),
			want: work.ClientError,
		},

		// AWS data plane.
		"dynamodb ConditionalCheckFailedException (typed)": {
			err:  sdkErr("DynamoDB", "UpdateItem", 400, &dynamodbtypes.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}),
			want: work.Conflict, code: "ConditionalCheckFailedException",
		},
		"dynamodb TransactionConflictException": {
			err:  sdkErr("DynamoDB", "UpdateItem", 400, apiErr("TransactionConflictException", "Transaction is ongoing for the item")),
			want: work.Conflict,
		},
		"dynamodb TransactionCanceledException for a condition": {
			err:  sdkErr("DynamoDB", "TransactWriteItems", 400, apiErr("TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]")),
			want: work.Conflict,
		},
		"dynamodb TransactionCanceledException for a throttle": {
			err:  sdkErr("DynamoDB", "TransactWriteItems", 400, apiErr("TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ThrottlingError]")),
			want: work.RateLimited,
		},
		"dynamodb ProvisionedThroughputExceededException (typed)": {
			err:  sdkErr("DynamoDB", "PutItem", 400, &dynamodbtypes.ProvisionedThroughputExceededException{Message: aws.String("The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")}),
			want: work.RateLimited,
		},
		"dynamodb InternalServerError": {
			err:  sdkErr("DynamoDB", "GetItem", 500, apiErr("InternalServerError", "Internal server error")),
			want: work.UpstreamUnavailable,
		},
		"dynamodb ResourceNotFoundException is a deployment bug": {
			err:  sdkErr("DynamoDB", "GetItem", 400, &dynamodbtypes.ResourceNotFoundException{Message: aws.String("Requested resource not found")}),
			want: work.InternalBug,
		},
		"sqs QueueDoesNotExist (typed)": {
			err:  sdkErr("SQS", "SendMessage", 400, &sqstypes.QueueDoesNotExist{Message: aws.String("The specified queue does not exist.")}),
			want: work.InternalBug, code: "QueueDoesNotExist",
		},
		"sqs AWS.SimpleQueueService.NonExistentQueue": {
			err:  sdkErr("SQS", "GetQueueUrl", 400, apiErr("AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist for this wsdl version.")),
			want: work.InternalBug,
		},
		"sqs query protocol NonExistentQueue header over HTTP": {
			err:  httpErr(failure.AWS, 400, `<?xml version="1.0"?><ErrorResponse><Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code></Error></ErrorResponse>`, "X-Amzn-Query-Error", "AWS.SimpleQueueService.NonExistentQueue;Sender"),
			want: work.InternalBug, code: "AWS.SimpleQueueService.NonExistentQueue",
		},
		"sqs ReceiptHandleIsInvalid": {
			err:  sdkErr("SQS", "ChangeMessageVisibility", 400, &sqstypes.ReceiptHandleIsInvalid{Message: aws.String(`The input receipt handle "AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a" is not a valid receipt handle.`)}),
			want: work.Conflict,
		},
		"kms AccessDeniedException": {
			err:  sdkErr("KMS", "Decrypt", 400, apiErr("AccessDeniedException", "User: arn:aws:sts::123456789012:assumed-role/triage-llm/triage-llm is not authorized to perform: kms:Decrypt on resource: arn:aws:kms:us-east-1:123456789012:key/1234abcd")),
			want: work.AuthDenied,
		},
		"kms KMSThrottlingException": {
			err:  sdkErr("KMS", "Decrypt", 400, apiErr("KMSThrottlingException", "You have exceeded the rate at which you can call KMS. Reduce the frequency of your calls.")),
			want: work.RateLimited,
		},
		"kms DisabledException": {
			err:  sdkErr("KMS", "Decrypt", 400, apiErr("DisabledException", "arn:aws:kms:us-east-1:123456789012:key/1234abcd is disabled.")),
			want: work.AuthDenied,
		},
		"sts ExpiredToken": {
			err:  sdkErr("STS", "AssumeRole", 400, apiErr("ExpiredToken", "The security token included in the request is expired")),
			want: work.AuthDenied,
		},
		"sts InvalidClientTokenId": {
			err:  sdkErr("STS", "GetCallerIdentity", 403, apiErr("InvalidClientTokenId", "The security token included in the request is invalid.")),
			want: work.AuthDenied,
		},
		"aws ResponseError with only a 503": {
			err:  sdkErr("DynamoDB", "Query", 0, responseErr(503, errors.New("failed to decode response body"))),
			want: work.UpstreamUnavailable,
		},
		"aws ResponseError with only a 400 is our request, not a model's": {
			err:  sdkErr("SQS", "SendMessage", 0, responseErr(400, errors.New("failed to decode response body"))),
			want: work.InternalBug,
		},

		// Go transport errors.
		"net read ECONNRESET": {
			err:  &url.Error{Op: "Post", URL: "https://api.openai.com/v1/chat/completions", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}},
			want: work.NetworkTimeout,
		},
		"net dial ECONNREFUSED": {
			err:  &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)},
			want: work.NetworkTimeout,
		},
		"net write EPIPE": {
			err:  &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)},
			want: work.NetworkTimeout,
		},
		"url error wrapping context deadline": {
			err:  &url.Error{Op: "Post", URL: "https://api.anthropic.com/v1/messages", Err: context.DeadlineExceeded},
			want: work.NetworkTimeout,
		},
		"net error timeout": {
			err:  &url.Error{Op: "Get", URL: "https://example.com/article", Err: timeoutError{}},
			want: work.NetworkTimeout,
		},
		"net read i/o timeout": {
			err:  &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded},
			want: work.NetworkTimeout,
		},
		"dns no such host": {
			err:  &url.Error{Op: "Post", URL: "https://hooks.slack.com/services/T0/B0/x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "hooks.slack.com", IsNotFound: true}}},
			want: work.NetworkTimeout,
		},
		"unexpected EOF reading the body": {
			err:  fmt.Errorf("read response body: %w", io.ErrUnexpectedEOF),
			want: work.NetworkTimeout,
		},
		"x509 unknown authority": {
			err:  &url.Error{Op: "Get", URL: "https://internal.example/api", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}},
			want: work.AuthDenied,
		},
		"tls record header on a plain-HTTP port": {
			err:  &url.Error{Op: "Get", URL: "https://localhost:80/", Err: tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}},
			want: work.InternalBug,
		},
		// A *url.Error is a net.Error whatever it wraps: what it wraps
		// decides, as its text does for `triage classify`.
		"url error of a redirect loop (fetch's client follows 10)": {
			err:  fmt.Errorf("GET article: %w", &url.Error{Op: "Get", URL: "https://example.com", Err: errors.New("stopped after 10 redirects")}),
			want: work.NotFound,
		},
		"url error of a plain-HTTP answer to TLS": {
			err:  &url.Error{Op: "Post", URL: "https://api.example.com", Err: errors.New("http: server gave HTTP response to HTTPS client")},
			want: work.InternalBug,
		},
		"url error of a body cut short": {
			err:  &url.Error{Op: "Post", URL: "https://api.example.com", Err: io.ErrUnexpectedEOF},
			want: work.NetworkTimeout,
		},

		// Model output.
		"json syntax error of truncated output": {
			err:  fmt.Errorf("decode completion: %w", truncatedJSON()),
			want: work.ResponseInvalid,
		},
		"json type error of output": {
			err:  fmt.Errorf("decode completion: %w", wrongTypeJSON()),
			want: work.ResponseInvalid,
		},
		"own RESPONSE_INVALID": {
			err:  failure.New(work.ResponseInvalid, "model returned an empty completion"),
			want: work.ResponseInvalid,
		},
		"action outcome failed": {
			err:    failure.ActionError("I opened the ticket form.\nACTION_OUTCOME: failed | the submit button stayed disabled"),
			want:   work.ActionFailed,
			hidden: []string{"submit button stayed disabled"},
		},
		"action outcome missing marker": {
			err:  failure.ActionError("Done — posted the summary to the channel."),
			want: work.ResponseInvalid,
		},
		"action outcome malformed verdict": {
			err:  failure.ActionError("ACTION_OUTCOME: partially"),
			want: work.ResponseInvalid,
		},

		// Webhooks and article hosts.
		"slack 400 invalid_payload": {
			err:  httpErr(failure.Webhook, 400, "invalid_payload", "Content-Type", "text/html"),
			want: work.SchemaInvalid, code: "invalid_payload",
		},
		"slack 400 no_text": {
			err:  httpErr(failure.Webhook, 400, "no_text"),
			want: work.SchemaInvalid,
		},
		"slack 403 invalid_token": {
			err:  httpErr(failure.Webhook, 403, "invalid_token"),
			want: work.AuthDenied,
		},
		"slack 404 channel_not_found": {
			err:  httpErr(failure.Webhook, 404, "channel_not_found"),
			want: work.NotFound,
		},
		"slack 410 channel_is_archived": {
			err:  httpErr(failure.Webhook, 410, "channel_is_archived"),
			want: work.NotFound,
		},
		"slack 403 action_prohibited": {
			err:  httpErr(failure.Webhook, 403, "action_prohibited"),
			want: work.AuthDenied,
		},
		"slack 500 rollup_error": {
			err:  httpErr(failure.Webhook, 500, "rollup_error"),
			want: work.UpstreamUnavailable,
		},
		"slack 429 with Retry-After": {
			err:  httpErr(failure.Webhook, 429, "rate_limited", "Retry-After", "30"),
			want: work.RateLimited, requested: 30 * time.Second,
		},
		"slack code without a response": {
			err:  &failure.CodeError{Provider: failure.Webhook, Code: "channel_not_found", Message: "Value passed for channel was invalid."},
			want: work.NotFound,
		},
		"discord 429 retry_after in the body": {
			err:  httpErr(failure.Webhook, 429, discordRateLimited, "X-Ratelimit-Scope", "user"),
			want: work.RateLimited, requested: 64570 * time.Millisecond,
		},
		"discord 404 Unknown Webhook": {
			err:  httpErr(failure.Webhook, 404, discordUnknown),
			want: work.NotFound,
		},
		"discord 401 Unauthorized": {
			err:  httpErr(failure.Webhook, 401, discordUnauthorized),
			want: work.AuthDenied,
		},
		"discord 400 empty message is our payload": {
			err:  httpErr(failure.Webhook, 400, discordEmpty),
			want: work.SchemaInvalid,
		},
		"webhook 500": {
			err:  httpErr(failure.Webhook, 500, "Internal Server Error"),
			want: work.UpstreamUnavailable,
		},
		"webhook 502 html": {
			err:  httpErr(failure.Webhook, 502, cloudflare502),
			want: work.UpstreamUnavailable,
		},
		"webhook 503 with Retry-After": {
			err:  httpErr(failure.Webhook, 503, "Service Unavailable", "Retry-After", "120"),
			want: work.UpstreamUnavailable, requested: 2 * time.Minute,
		},
		"webhook 308 redirect triage does not follow": {
			err:  httpErr(failure.Webhook, 308, "", "Location", "https://hooks.example.com/new"),
			want: work.NotFound,
		},
		"openai 301 redirect means a wrong base URL": {
			err:  httpErr(failure.OpenAI, 301, "", "Location", "https://api.openai.com/v1/chat/completions"),
			want: work.InternalBug,
		},
		"webhook 410 Gone": {
			err:  httpErr(failure.Webhook, 410, ""),
			want: work.NotFound,
		},
		"article host 404": {
			err:  httpErr(failure.HTTP, 404, "<!doctype html><title>Page not found</title>"),
			want: work.NotFound,
		},
		"article host 451": {
			err:  httpErr(failure.HTTP, 451, "Unavailable For Legal Reasons"),
			want: work.ContentPolicy,
		},
		"article host 522 cloudflare origin timeout": {
			err:  httpErr(failure.HTTP, 522, ""),
			want: work.NetworkTimeout,
		},

		// Triage's own errors, panics and plain text.
		"recovered panic": {
			err:  failure.Recovered("boom"),
			want: work.InternalBug,
		},
		"recovered nil map write": {
			err:  nilMapWrite(),
			want: work.InternalBug,
		},
		"raw runtime error": {
			err:  rawRuntimeError(),
			want: work.InternalBug,
		},
		"wrapped SCHEMA_INVALID beats the json error inside": {
			err:  failure.Wrap(work.SchemaInvalid, truncatedJSON(), "decode envelope"),
			want: work.SchemaInvalid,
		},
		"own RATE_LIMITED around an upstream keeps its Retry-After": {
			err:  failure.Wrap(work.RateLimited, httpErr(failure.OpenAI, 429, openAIRateLimitTokens, "Retry-After", "7"), "chat completion"),
			want: work.RateLimited, requested: 7 * time.Second, code: "rate_limit_exceeded",
		},
		"own budget cap": {
			err:  &failure.Error{Class: work.BudgetExceeded, Reason: "daily budget spent", SelfImposed: true},
			want: work.BudgetExceeded,
		},
		"context canceled": {
			err:  fmt.Errorf("invoke: %w", context.Canceled),
			want: work.Unknown,
		},
		"nothing recognisable": {
			err:  errors.New("something odd"),
			want: work.Unknown,
		},
		"text rate limit": {
			err:  errors.New("rate limit exceeded, please slow down"),
			want: work.RateLimited,
		},
		"text insufficient quota": {
			err:  errors.New("openai: 429 Too Many Requests: insufficient_quota"),
			want: work.BudgetExceeded,
		},
		"text spend limit": {
			err:  errors.New("claude: You've hit your monthly spend limit · raise it at claude.ai/settings/usage"),
			want: work.BudgetExceeded,
		},
		"text connection refused": {
			err:  errors.New("dial tcp 10.0.3.7:443: connect: connection refused"),
			want: work.NetworkTimeout,
		},
		"text envoy upstream connect error": {
			err:  errors.New("upstream connect error or disconnect/reset before headers. reset reason: overflow"),
			want: work.UpstreamUnavailable,
		},
		"nil error": {
			err:  nil,
			want: work.InternalBug,
		},
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for name, tc := range classifyCases(b.now) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := failure.Classify(tc.err)
			if c.Class != tc.want {
				t.Fatalf("class = %s (%s), want %s", c.Class, c.Reason, tc.want)
			}
			checkTraits(t, c)
			if got := c.Requested.Resolve(b.now); got != tc.requested {
				t.Errorf("requested = %v (%+v), want %v", got, c.Requested, tc.requested)
			}
			if tc.code != "" && c.Code != tc.code {
				t.Errorf("code = %q, want %q", c.Code, tc.code)
			}
			if c.Reason == "" {
				t.Error("empty reason")
			}
			for _, s := range append(upstreamText(tc.err), tc.hidden...) {
				if strings.Contains(c.Reason, s) {
					t.Errorf("reason %q leaks upstream text %q", c.Reason, s)
				}
			}
		})
	}
}

// TestClassifyCaseCount keeps the table honest: it is the evidence that the
// classifier knows the providers' documented failures.
func TestClassifyCaseCount(t *testing.T) {
	t.Parallel()
	if n := len(classifyCases(setup(t).now)); n < 60 {
		t.Errorf("%d classification cases, want at least 60", n)
	}
}

func TestClassifyEvidence(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err      error
		provider failure.Provider
		status   int
		code     string
		self     bool
	}{
		"http error": {
			err:      fmt.Errorf("llm: %w", httpErr(failure.Anthropic, 529, anthropicOverloaded)),
			provider: failure.Anthropic, status: 529, code: "overloaded_error",
		},
		"bedrock through the sdk": {
			err:      sdkErr("Bedrock Runtime", "Converse", 429, apiErr("ThrottlingException", "Too many requests")),
			provider: failure.Bedrock, status: 429, code: "ThrottlingException",
		},
		"dynamodb through the sdk": {
			err:      sdkErr("DynamoDB", "PutItem", 400, apiErr("ConditionalCheckFailedException", "The conditional request failed")),
			provider: failure.AWS, status: 400, code: "ConditionalCheckFailedException",
		},
		"own budget": {
			err:      &failure.Error{Class: work.BudgetExceeded, Reason: "daily budget spent", SelfImposed: true},
			provider: "", self: true,
		},
		"own error around an http error": {
			err:      failure.Wrap(work.ResponseInvalid, httpErr(failure.OpenAI, 200, `{"error":{"code":"server_error"}}`), "streamed error"),
			provider: failure.OpenAI, status: 200, code: "server_error",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := failure.Classify(tc.err)
			if c.Provider != tc.provider || c.Status != tc.status || c.Code != tc.code || c.SelfImposed != tc.self {
				t.Errorf("evidence = {%s %d %q self=%v}, want {%s %d %q self=%v}",
					c.Provider, c.Status, c.Code, c.SelfImposed, tc.provider, tc.status, tc.code, tc.self)
			}
		})
	}
}

// TestClassifyBudgetNeverRateLimited pins the invariant that matters most for
// spend: an exhausted quota or credit balance waits for money, it is never a
// rate limit that retries five times and dead-letters.
func TestClassifyBudgetNeverRateLimited(t *testing.T) {
	t.Parallel()
	for name, err := range budgetCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := failure.Classify(err)
			if c.Class == work.RateLimited {
				t.Fatalf("a budget failure classified as RATE_LIMITED (%s)", c.Reason)
			}
			if c.Class != work.BudgetExceeded {
				t.Fatalf("class = %s (%s), want BUDGET_EXCEEDED", c.Class, c.Reason)
			}
			if c.Counts {
				t.Error("a budget wait counts an attempt")
			}
		})
	}
}

// budgetCases are failures that must wait for money, never retry as a rate
// limit.
func budgetCases() map[string]error {
	return map[string]error{
		"openai 429 insufficient_quota":                     httpErr(failure.OpenAI, 429, openAIQuota),
		"openai 429 insufficient_quota with rate headers":   httpErr(failure.OpenAI, 429, openAIQuota, "Retry-After", "20", "X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "1s"),
		"azure 429 insufficient_quota":                      httpErr(failure.Azure, 429, openAIQuota),
		"openai-compatible insufficient_quota as a message": httpErr(failure.OpenAI, 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"error","code":null}}`),
		"anthropic credit balance":                          httpErr(failure.Anthropic, 400, anthropicCredit),
		"anthropic credit balance on a 429":                 httpErr(failure.Anthropic, 429, anthropicCredit),
		"anthropic monthly spend cap on a 429":              httpErr(failure.Anthropic, 429, anthropicEnforced),
		"insufficient_quota code without a response":        &failure.CodeError{Provider: failure.OpenAI, Code: "insufficient_quota"},
		"insufficient_quota in text":                        errors.New("openai: rate limited (429): insufficient_quota"),
		"credit balance in text":                            errors.New("anthropic 429: Your credit balance is too low to access the Anthropic API"),
		"http 402":                                          httpErr(failure.HTTP, 402, "Payment Required"),
	}
}

// TestClassifyNotFoundByProvider pins what a 404 or 410 means: from a model
// provider the model name is wrong (CLIENT_ERROR, counts against the model);
// from a webhook or article host the input or destination is gone
// (NOT_FOUND, says nothing about any model).
func TestClassifyNotFoundByProvider(t *testing.T) {
	t.Parallel()
	for _, p := range failure.Providers() {
		for _, status := range []int{404, 410} {
			t.Run(fmt.Sprintf("%s %d", p, status), func(t *testing.T) {
				t.Parallel()
				c := failure.Classify(httpErr(p, status, ""))
				switch {
				case p.IsModel():
					if c.Class != work.ClientError || !c.ModelSpecific {
						t.Errorf("model provider %d = %s model-specific=%v, want CLIENT_ERROR, model-specific", status, c.Class, c.ModelSpecific)
					}
				default:
					if c.Class != work.NotFound || c.ModelSpecific {
						t.Errorf("%s %d = %s model-specific=%v, want NOT_FOUND, not model-specific", p, status, c.Class, c.ModelSpecific)
					}
				}
			})
		}
	}
}

// TestClassifyModelSpecificOnlyFromModels: a 4xx only counts against a model
// when a model provider answered; a webhook or AWS 4xx never disables one.
func TestClassifyModelSpecificOnlyFromModels(t *testing.T) {
	t.Parallel()
	for _, p := range failure.Providers() {
		for _, status := range []int{400, 405, 406, 415, 418, 422, 501} {
			t.Run(fmt.Sprintf("%s %d", p, status), func(t *testing.T) {
				t.Parallel()
				c := failure.Classify(httpErr(p, status, ""))
				if c.Retryable {
					t.Errorf("%s: a client error is not retryable", c.Class)
				}
				if c.ModelSpecific != p.IsModel() {
					t.Errorf("%s model-specific = %v, want %v", c.Class, c.ModelSpecific, p.IsModel())
				}
			})
		}
	}
}

func TestClassifyAWSThrottleCodes(t *testing.T) {
	t.Parallel()
	for _, service := range []string{"DynamoDB", "SQS", "KMS", "STS", "Bedrock Runtime"} {
		for _, code := range failure.AWSThrottleCodes {
			t.Run(service+" "+code, func(t *testing.T) {
				t.Parallel()
				c := failure.Classify(sdkErr(service, "Call", 400, apiErr(code, "Rate exceeded")))
				if c.Class != work.RateLimited {
					t.Errorf("class = %s (%s), want RATE_LIMITED", c.Class, c.Reason)
				}
				if c.Code != code {
					t.Errorf("code = %q, want %q", c.Code, code)
				}
			})
		}
	}
}

// TestAWSThrottleCodesCoverSDK: every code the SDK itself retries as a
// throttle is one triage treats as RATE_LIMITED.
func TestAWSThrottleCodesCoverSDK(t *testing.T) {
	t.Parallel()
	have := map[string]bool{}
	for _, c := range failure.AWSThrottleCodes {
		have[c] = true
	}
	for code := range awsretry.DefaultThrottleErrorCodes {
		if !have[code] {
			t.Errorf("SDK throttle code %s missing from AWSThrottleCodes", code)
		}
	}
}

// TestClassifyTablesValid: every class a table names is a real class, so a
// typo cannot ship a class no policy knows.
func TestClassifyTablesValid(t *testing.T) {
	t.Parallel()
	check := func(where string, c work.Class) {
		if !c.Valid() {
			t.Errorf("%s maps to invalid class %q", where, c)
		}
	}
	for code, c := range failure.ProviderCodes {
		check("ProviderCodes["+code+"]", c)
	}
	for code, c := range failure.AWSCodes {
		check("AWSCodes["+code+"]", c)
	}
	for code, c := range failure.BedrockCodes {
		check("BedrockCodes["+code+"]", c)
	}
	for code, c := range failure.GoogleCodes {
		check("GoogleCodes["+code+"]", c)
	}
	for i, row := range failure.RoleDefaults {
		for _, r := range failure.Roles() {
			check(fmt.Sprint("RoleDefaults[", i, "] (", row.Label(), ") for ", r), row.Class(r))
		}
	}
	for _, m := range failure.ModelWords {
		check("ModelWords", m.Class)
		for _, w := range m.Words {
			if w != strings.ToLower(w) {
				t.Errorf("model word %q is not lowercase and can never match", w)
			}
		}
	}
	for _, ph := range slices.Concat(failure.ProviderPhrases, failure.OverridePhrases, failure.TransportPhrases, failure.TextPhrases) {
		check("phrase "+ph.Fragment, ph.Class)
		if ph.Fragment != strings.ToLower(ph.Fragment) {
			t.Errorf("phrase %q is not lowercase and can never match", ph.Fragment)
		}
	}
}

func TestClassifierOrder(t *testing.T) {
	t.Parallel()
	first := failure.RuleFunc(func(error) (failure.Classification, bool) { return failure.Of(work.Conflict, "first"), true })
	second := failure.RuleFunc(func(error) (failure.Classification, bool) { return failure.Of(work.InternalBug, "second"), true })
	never := failure.RuleFunc(func(error) (failure.Classification, bool) { return failure.Classification{}, false })
	tests := map[string]struct {
		rules failure.Classifier
		want  work.Class
	}{
		"first definite answer wins": {rules: failure.Classifier{never, first, second}, want: work.Conflict},
		"no rule matches":            {rules: failure.Classifier{never}, want: work.Unknown},
		"no rules":                   {rules: nil, want: work.Unknown},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.rules.Classify(errors.New("x")).Class; got != tc.want {
				t.Errorf("class = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestClassifyTextAgreesWithTyped: an error read only as text — a log line,
// a stored last_error, `triage classify` given the error string — gets the
// class its typed form gets, for every typed case of these tests.
func TestClassifyTextAgreesWithTyped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := map[string]error{}
	for name, tc := range classifyCases(b.now) {
		if tc.err != nil {
			cases[name] = tc.err
		}
	}
	for name, err := range budgetCases() {
		cases["budget: "+name] = err
	}
	for _, p := range failure.Providers() {
		for _, status := range []int{301, 400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 413, 415, 418, 422, 429, 451, 500, 501, 502, 503, 504, 522, 529} {
			cases[fmt.Sprintf("status: %s %d", p, status)] = httpErr(p, status, "")
		}
	}
	for _, service := range []string{"DynamoDB", "SQS", "KMS", "STS", "Bedrock Runtime"} {
		for _, code := range failure.AWSThrottleCodes {
			cases["throttle: "+service+" "+code] = sdkErr(service, "Call", 400, apiErr(code, "Rate exceeded"))
		}
		for code := range failure.AWSCodes {
			cases["aws code: "+service+" "+code] = sdkErr(service, "Call", 400, apiErr(code, "The request failed."))
		}
	}
	for name, err := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			typed := failure.Classify(err)
			text := failure.Classify(errors.New(err.Error()))
			if text.Class != typed.Class {
				t.Errorf("text %q\nclassifies as %s (%s), typed as %s (%s)", err.Error(), text.Class, text.Reason, typed.Class, typed.Reason)
			}
		})
	}
}

// Anthropic's timeout_error is its 504: the API timed out while it
// processed the request (docs/design.md "Error classes and retry
// profiles": a 504 is UPSTREAM_UNAVAILABLE). Its code decides, so a
// stream's error event — which arrives on the 200 the stream began with,
// or as the Anthropic Go SDK's "received error while streaming" text —
// is the same failure as its 504, and the 504 is not a status default.
func TestClassifyAnthropicTimeoutError(t *testing.T) {
	t.Parallel()
	stream := `{"type":"error","error":{"details":null,"type":"timeout_error","message":"Request timed out while processing. Please retry."},"request_id":"req_011CSHoEeqs5C35K2UUqR7G8"}`
	for name, err := range map[string]error{
		"504":                       httpErr(failure.Anthropic, 504, anthropicGatewayTime),
		"a stream's event on a 200": httpErr(failure.Anthropic, 200, stream),
		"the Go SDK's stream text":  fmt.Errorf("anthropic messages: %w", errors.New("received error while streaming: "+stream)),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := failure.Classify(err)
			if c.Class != work.UpstreamUnavailable || c.Default || c.Code != "timeout_error" {
				t.Errorf("= %s code %q default %v (%s), want UPSTREAM_UNAVAILABLE by its code timeout_error", c.Class, c.Code, c.Default, c.Reason)
			}
		})
	}
}

// An AWS error type is written with its namespace and its documentation
// URL around it — x-amzn-ErrorType "com.amazon.coral.service#ThrottlingException",
// a body's "__type" with a ":http://internal.amazon.com/…" after it, as
// Smithy's REST-JSON protocol tests write them — and the code an operator
// sees is its bare name, as the AWS SDKs report it.
func TestClassifyAWSErrorTypeBareName(t *testing.T) {
	t.Parallel()
	const url = ":http://internal.amazon.com/coral/com.amazon.coral.service/"
	for name, tc := range map[string]struct {
		err  error
		want work.Class
	}{
		"header with its namespace": {
			err:  httpErr(failure.Bedrock, 400, bedrockBody("Too many tokens, please wait before trying again."), "X-Amzn-Errortype", "com.amazon.coral.service#ThrottlingException"),
			want: work.RateLimited,
		},
		"header with its namespace and its URL": {
			err:  httpErr(failure.AWS, 400, `{"message":"Rate exceeded"}`, "X-Amzn-Errortype", "com.amazon.coral.service#ThrottlingException"+url),
			want: work.RateLimited,
		},
		"body __type with its URL": {
			err:  httpErr(failure.AWS, 400, `{"__type":"ThrottlingException`+url+`","message":"Rate exceeded"}`),
			want: work.RateLimited,
		},
		"body __type with its namespace and its URL": {
			err:  httpErr(failure.AWS, 400, `{"__type":"com.amazon.coral.service#ThrottlingException`+url+`","message":"Rate exceeded"}`),
			want: work.RateLimited,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := failure.Classify(tc.err)
			if c.Class != tc.want || c.Code != "ThrottlingException" {
				t.Errorf("= %s code %q (%s), want %s code ThrottlingException", c.Class, c.Code, c.Reason, tc.want)
			}
		})
	}
}

// The words the text's expressions look for are ASCII words in any case;
// Unicode's case folding also reads the long s ſ (U+017F) as s and the
// Kelvin sign K (U+212A) as k, so without care "ſtatus 404" names a status
// nobody wrote. Those runes are not the letters the words are made of.
func TestClassifyTextWordsAreASCII(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"GET article: ſtatus 404",
		"POST webhook: delivery failed, ſtatus: 401",
		"send failed: reſponse 503 from relay",
		"upload failed (ſtatus_code=429)",
	} {
		c := failure.Classify(errors.New(text))
		if c.Status != 0 {
			t.Errorf("%q: status %d (%s %s), want none: the text names no status", text, c.Status, c.Class, c.Reason)
		}
	}
	if c := failure.Classify(errors.New("fetch failed: error code: \u212Aey_expired")); c.Code != "" {
		t.Errorf("Kelvin sign: code %q, want none", c.Code)
	}
	// The same words in ASCII still say so.
	if c := failure.Classify(errors.New("GET article: Status 404")); c.Status != 404 || c.Class != work.NotFound {
		t.Errorf("ASCII: %s status %d (%s), want NOT_FOUND 404", c.Class, c.Status, c.Reason)
	}
}

// The AWS SDK for Go v2 writes an S3 error's host id after its request id
// ("RequestID: …, HostID: …, NoSuchKey: …"); the code after them is the
// error's, never "HostID". The strings are a public Go project's test of
// the SDK's S3 GetObject error and the SDK's own S3 response error format.
func TestClassifyS3TextAfterHostID(t *testing.T) {
	t.Parallel()
	for text, tc := range map[string]struct {
		want work.Class
		code string
	}{
		"operation error S3: GetObject, https response error StatusCode: 404, RequestID: 18D0542B0EEDB52A, HostID: dd9025bab4ad464b049177c95eb6ebf374d3b3fd1af9251148b658df7ac2e3e8, NoSuchKey: The specified key does not exist.": {work.NotFound, "NoSuchKey"},
		"operation error S3: PutObject, https response error StatusCode: 0, RequestID: , HostID: , canceled, context canceled":                                                                                                     {work.Unknown, ""},
	} {
		c := failure.Classify(errors.New(text))
		if c.Class != tc.want || c.Code != tc.code {
			t.Errorf("%.60s…: %s code %q (%s), want %s code %q", text, c.Class, c.Code, c.Reason, tc.want, tc.code)
		}
	}
}
