package failure_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/internal/failure"
)

func ExampleClassify() {
	// An OpenAI 429 whose code says the account is out of money: it waits for
	// the quota, it does not burn retries as a rate limit would.
	quota := &failure.HTTPError{
		Provider: failure.OpenAI,
		Op:       "chat.completions",
		Status:   http.StatusTooManyRequests,
		Header:   http.Header{"X-Request-Id": {"req_7c1d"}},
		Body:     []byte(`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`),
	}
	c := failure.Classify(fmt.Errorf("summarize item 42: %w", quota))
	fmt.Printf("%s retryable=%t counts=%t: %s\n", c.Class, c.Retryable, c.Counts, c.Reason)

	// A Bedrock throttle as the AWS SDK returns it.
	throttle := &smithy.OperationError{
		ServiceID:     "Bedrock Runtime",
		OperationName: "InvokeModel",
		Err:           &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Too many requests, please wait before trying again."},
	}
	c = failure.Classify(throttle)
	fmt.Printf("%s retryable=%t counts=%t: %s\n", c.Class, c.Retryable, c.Counts, c.Reason)
	// Output:
	// BUDGET_EXCEEDED retryable=true counts=false: openai code insufficient_quota (HTTP 429)
	// RATE_LIMITED retryable=true counts=true: bedrock code ThrottlingException
}

func ExampleParseRequested() {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	// OpenAI: the token limit is the one exhausted, so its reset wins.
	h := http.Header{}
	h.Set("x-ratelimit-remaining-requests", "499")
	h.Set("x-ratelimit-reset-requests", "6m0s")
	h.Set("x-ratelimit-remaining-tokens", "0")
	h.Set("x-ratelimit-reset-tokens", "1.5s")
	r, _ := failure.ParseRequested(429, h, nil)
	fmt.Println(r.Source, r.Resolve(now))

	// An HTTP-date is absolute; the decision resolves it with its clock.
	h = http.Header{}
	h.Set("Retry-After", "Fri, 01 May 2026 12:02:00 GMT")
	r, _ = failure.ParseRequested(503, h, nil)
	fmt.Println(r.Source, r.Resolve(now))

	// Discord puts seconds in the body.
	r, _ = failure.ParseRequested(429, nil, []byte(`{"message":"You are being rate limited.","retry_after":64.57,"global":false}`))
	fmt.Println(r.Source, r.Resolve(now))

	// Reset headers ride on every response; only a 429 reads them.
	_, ok := failure.ParseRequested(200, http.Header{"X-Ratelimit-Reset-Tokens": {"6m0s"}}, nil)
	fmt.Println(ok)
	// Output:
	// x-ratelimit-reset-tokens 1.5s
	// Retry-After date 2m0s
	// body retry_after 1m4.57s
	// false
}
