package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundSeventeen holds members of the families holdout round
// 17 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's, and what the new rules must leave alone.
func TestFamiliesOfRoundSeventeen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"an input over the maximum length":       {failure.Evidence{Provider: "minimax", Stage: work.LLM, Status: 400, Text: "request failed: messages exceeds maximum length of the model"}, tl},
		"an input too long, in Chinese":          {failure.Evidence{Provider: "baichuan", Stage: work.LLM, Status: 400, Text: "请求失败：上下文长度超出限制，请缩短输入"}, tl},
		"an input too long, in Japanese":         {failure.Evidence{Provider: "sakura", Stage: work.LLM, Status: 400, Text: "入力が長すぎます"}, tl},
		"Slack's code after a client's class":    {failure.Evidence{Provider: "slack", Stage: work.Notify, Text: "SlackApiError: token_revoked"}, ad},
		"a sender the mailbox may not send as":   {failure.Evidence{Provider: "smtp", Stage: work.Notify, Text: "550 5.7.60 SMTP; Client does not have permissions to send as this sender"}, ad},
		"a receiver denies the request":          {failure.Evidence{Provider: "feishu", Stage: work.Notify, Text: "bot send failed: request denied by tenant policy"}, ad},
		"a signing secret that does not match":   {failure.Evidence{Provider: "lark", Stage: work.Notify, Text: "webhook: signature mismatch, check the bot's secret"}, ad},
		"a suppressed recipient":                 {failure.Evidence{Provider: "sendgrid", Stage: work.Notify, Text: "delivery skipped: address is suppressed after a hard bounce"}, nf},
		"a field that is not a valid value":      {failure.Evidence{Provider: "vonage", Stage: work.Notify, Text: "send sms: 'from' is not a valid sender id"}, si},
		"a terse certificate verdict":            {failure.Evidence{Stage: work.Fetch, Text: "feed refresh: invalid certificate for feeds.example.org"}, ad},
		"Ruby's DNS failure":                     {failure.Evidence{Stage: work.Fetch, Text: "Failed to open TCP connection to feeds.example.org:443 (getaddrinfo: Name or service not known)"}, nt},
		"transport words inside an answered 5xx": {failure.Evidence{Provider: "localai", Stage: work.LLM, Status: 502, Body: []byte(`{"error":"backend connection reset by peer"}`)}, uu},
	})
}
