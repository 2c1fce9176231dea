package failure_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestFamiliesOfRoundTwentyThree holds members of the families holdout
// round 23 showed (cmd/triage/testdata/corpus/README.md) — a status glued
// to "HTTP:", an overload in its noun — in wordings other than the round's.
func TestFamiliesOfRoundTwentyThree(t *testing.T) {
	t.Parallel()
	evidenceClasses(t, map[string]evidenceCase{
		"HTTP:429 before a Chinese word": {failure.Evidence{Provider: "qianfan", Stage: work.LLM, Text: "调用失败 HTTP:429错误，请稍后"}, rl},
		"HTTP:503 in an English log":     {failure.Evidence{Provider: "webhook", Stage: work.Notify, Text: "delivery failed, HTTP:503 from receiver"}, uu},
		"an overload in its noun":        {failure.Evidence{Provider: "gateway", Stage: work.LLM, Text: "upstream overload: please retry the request later"}, uu},
		"a code named for the overload":  {failure.Evidence{Provider: "relay", Stage: work.LLM, Text: "server_overload: capacity reached"}, uu},
	})
}

// TestAPortAfterHTTPColonIsNoStatus: "http:5000" is a port, not a 500.
func TestAPortAfterHTTPColonIsNoStatus(t *testing.T) {
	t.Parallel()
	if c := failure.Classify(&failure.Evidence{Stage: work.Fetch, Text: "dial failed for http:5000/feed"}); c.Status != 0 {
		t.Fatalf("status %d (%s), want none", c.Status, c.Reason)
	}
}

// TestATruncatedBodysLengthIsNoStatus: an HTTPError prints a long body cut,
// with its length — "…(450 bytes)" —, which is a size, never a status: a
// 2xx answer keeps its status, a text names none.
func TestATruncatedBodysLengthIsNoStatus(t *testing.T) {
	t.Parallel()
	body := []byte("<html>" + strings.Repeat("x", 444))
	if c := failure.Classify(&failure.HTTPError{Provider: "bedrock", Op: "invoke", Status: 200, Body: body}); c.Status != 200 {
		t.Errorf("a 200 whose %d-byte body was cut: status %d (%s), want 200", len(body), c.Status, c.Reason)
	}
	if c := failure.Classify(errors.New("webhook: upstream said <html>…(503 bytes)")); c.Status != 0 {
		t.Errorf("a text whose body was cut: status %d (%s), want none", c.Status, c.Reason)
	}
}

// TestA2xxWhoseBodyNamesTheStatusKeepsTheAnsweredStatus: a receiver's 200
// whose body reports the real status (Teams' "… returned HTTP error 429")
// is judged by that status and reported as the 200 it answered.
func TestA2xxWhoseBodyNamesTheStatusKeepsTheAnsweredStatus(t *testing.T) {
	t.Parallel()
	c := failure.Classify(&failure.HTTPError{Provider: "teams", Op: "post", Status: 200,
		Body: []byte("Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0")})
	if c.Class != rl || c.Status != 200 {
		t.Fatalf("got %s status %d (%s), want %s status 200", c.Class, c.Status, c.Reason, rl)
	}
}
