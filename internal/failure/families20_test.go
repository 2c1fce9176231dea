package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundTwenty holds members of the families holdout round 20
// showed (cmd/triage/testdata/corpus/README.md), in wordings other than the
// round's, and what the new rules must leave alone.
func TestFamiliesOfRoundTwenty(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		// a receiver's credential or sender refused in words no phrase names
		"an invalid integration key":           {failure.Evidence{Provider: "victorops", Stage: work.Notify, Text: "alert rejected: Invalid integration key"}, ad},
		"a subscription key not valid":         {failure.Evidence{Stage: work.Notify, Text: "send failed: subscription key is not valid for this region"}, ad},
		"a secret key with a typo":             {failure.Evidence{Provider: "textlocal", Stage: work.Notify, Text: `errors: [{code: 3, message: "Secret key not vlaid"}]`}, ad},
		"a value that is not a valid token":    {failure.Evidence{Provider: "gotify", Stage: work.Notify, Status: 400, Body: []byte(`{"error":"the value of 'token' is not a valid application token"}`)}, ad},
		"a sending domain unauthenticated":     {failure.Evidence{Provider: "mailjet", Stage: work.Notify, Status: 400, Body: []byte(`{"message":"Sending domain is unauthenticated: publish its DKIM record"}`)}, ad},
		"a sender not authenticated":           {failure.Evidence{Provider: "mailer", Stage: work.Notify, Text: "rejected: From address not authenticated for this account"}, ad},
		"a phone number stays a payload's":     {failure.Evidence{Provider: "plivo", Stage: work.Notify, Text: "The 'dst' number +15005550001 is not a valid phone number."}, si},
		"a dedup key stays a payload's":        {failure.Evidence{Provider: "pagerduty", Stage: work.Notify, Status: 400, Body: []byte(`{"message":"Invalid dedup key"}`)}, si},
		"an access key in capitals, not valid": {failure.Evidence{Provider: "smsgateway", Stage: work.Notify, Text: "fault 401: ACCESS KEY is not valid, check your account"}, ad},
		// money inside a server error's code, and a day's count in Chinese
		"litellm's 500 that says recharge": {failure.Evidence{Provider: "siliconflow", Stage: work.LLM, Text: "litellm.InternalServerError: InternalServerError: OpenAIException - Insufficient balance, please recharge"}, be},
		"a 503 with a balance phrase":      {failure.Evidence{Provider: "deepseek", Stage: work.LLM, Status: 503, Body: []byte(`{"error":{"message":"Insufficient balance in your account","type":"server_error"}}`)}, be},
		"a 500 about balances is a 500":    {failure.Evidence{Provider: "openai", Stage: work.LLM, Status: 500, Body: []byte(`{"error":{"message":"internal error while checking the balance","type":"server_error"}}`)}, uu},
		"today's calls in a 429":           {failure.Evidence{Provider: "moonshot", Stage: work.LLM, Status: 429, Body: []byte(`{"error":{"message":"您今天的调用次数已达上限","type":"rate_limit_reached_error"}}`)}, be},
		"a month's allowance, Traditional": {failure.Evidence{Provider: "qianfan", Stage: work.LLM, Status: 429, Body: []byte(`{"error":{"message":"本月用量已達上限，請升級方案"}}`)}, be},
		"a busy day is no quota":           {failure.Evidence{Provider: "zhipu", Stage: work.LLM, Status: 429, Body: []byte(`{"error":{"message":"今天服务器繁忙，请稍后重试"}}`)}, rl},
		"a webhook's daily count":          {failure.Evidence{Provider: "wecom", Stage: work.Notify, Status: 429, Body: []byte(`{"message":"机器人每日发送次数已达上限"}`)}, be},
		// a concurrency limit
		"concurrent requests in Chinese":      {failure.Evidence{Provider: "dashscope", Stage: work.LLM, Text: "dashscope: 并发请求数超过限制"}, rl},
		"concurrent connections, Traditional": {failure.Evidence{Provider: "ernie", Stage: work.LLM, Text: "錯誤：並發連線超出上限"}, rl},
		"a hook's concurrent requests":        {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Body: []byte(`{"error":"too many concurrent requests for this hook"}`)}, rl},
		"a scraper's concurrency limit":       {failure.Evidence{Stage: work.Fetch, Status: 400, Body: []byte(`{"detail":"Concurrency limit reached for your plan"}`)}, rl},
		// a required parameter missing
		"a required parameter is missing": {failure.Evidence{Provider: "plivo", Stage: work.Notify, Text: "api error: required parameter 'dst' is missing"}, si},
		"parameters are missing":          {failure.Evidence{Provider: "sinch", Stage: work.Notify, Text: "Sinch: Parameters are missing: to"}, si},
		"a model's missing parameter":     {failure.Evidence{Provider: "cohere", Stage: work.LLM, Text: "cohere: missing parameter: message"}, ce},
		"a missing field at a source":     {failure.Evidence{Stage: work.Fetch, Text: "scrape API refused the job: missing field: url"}, si},
		// a push registration the platform dropped
		"Expo's DeviceNotRegistered":           {failure.Evidence{Provider: "expo", Stage: work.Notify, Text: `DeviceNotRegistered: "ExponentPushToken[xxxx]" is not a registered push notification recipient`}, nf},
		"FCM v1's UNREGISTERED in a text":      {failure.Evidence{Provider: "firebase", Stage: work.Notify, Text: "send: UNREGISTERED: App instance was unregistered from FCM"}, nf},
		"APNs' reason with its 410":            {failure.Evidence{Provider: "apns", Stage: work.Notify, Status: 410, Body: []byte(`{"reason":"Unregistered","timestamp":1700000000000}`)}, nf},
		"a registration that has expired":      {failure.Evidence{Provider: "pusher", Stage: work.Notify, Text: "push failed: the device registration has expired"}, nf},
		"a registration token not registered":  {failure.Evidence{Provider: "firebase", Stage: work.Notify, Text: "messaging/registration-token-not-registered"}, nf},
		"an access token no longer valid":      {failure.Evidence{Provider: "webhook", Stage: work.Notify, Text: "the access token is no longer valid"}, ad},
		"legacy FCM's 200 results decide none": {failure.Evidence{Provider: "fcm", Stage: work.Notify, Status: 200, Body: []byte(`{"success":0,"failure":1,"results":[{"error":"NotRegistered"}]}`)}, failure.Unknown},
	})
}
