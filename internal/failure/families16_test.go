package failure_test

import (
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundSixteen holds members of the families holdout round
// 16 showed (cmd/triage/testdata/corpus/README.md), in wordings other than
// the round's, and what the new rules must leave alone.
func TestFamiliesOfRoundSixteen(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"a model id the endpoint refuses":    {failure.Evidence{Provider: "bedrock", Stage: work.LLM, Text: "ValidationException: The model ID is invalid for on-demand throughput"}, ce},
		"not a valid model":                  {failure.Evidence{Provider: "novita", Stage: work.LLM, Text: "error: 'qwen-9000' is not a valid model name"}, ce},
		"Go on Windows, refused":             {failure.Evidence{Stage: work.Fetch, Text: "Get https://feeds.example.org/rss: dial tcp 203.0.113.9:443: connectex: No connection could be made because the target machine actively refused it."}, nt},
		"Go on Windows, reset while reading": {failure.Evidence{Stage: work.Notify, Text: "post hook: read tcp 10.1.1.2:50412->203.0.113.9:443: wsarecv: The specified network name is no longer available."}, nt},
		".NET on Windows, DNS has no answer": {failure.Evidence{Stage: work.Fetch, Text: "System.Net.Sockets.SocketException (11002): This is usually a temporary error during hostname resolution and means that the local server did not receive a response from an authoritative server."}, nt},
		"Python on Windows, unreachable":     {failure.Evidence{Stage: work.Fetch, Text: "[WinError 10051] A socket operation was attempted to an unreachable network"}, nt},
		"a rate in Chinese at a receiver":    {failure.Evidence{Provider: "dingtalk", Stage: work.Notify, Text: "send failed: 发送太频繁，请稍后重试"}, rl},
		"a rate in Japanese at a receiver":   {failure.Evidence{Provider: "line", Stage: work.Notify, Text: "送信に失敗しました: リクエストが多すぎます"}, rl},
		"an expired bot token":               {failure.Evidence{Provider: "telegram", Stage: work.Notify, Text: "notify: expired bot token for chat 4411"}, ad},
		"a wrong user key":                   {failure.Evidence{Provider: "pushbullet", Stage: work.Notify, Text: "could not push: wrong user key"}, ad},
		// Left alone: a token of JSON is not a credential, and a qualifier
		// must be one word.
		"a JSON token is no credential": {failure.Evidence{Provider: "webhook", Stage: work.Notify, Status: 400, Text: "Unexpected token < in JSON at position 0"}, si},
	})
}
