package simulate_test

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/simulate"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/rules"
	"github.com/triagehq/triage/internal/work"
)

// TestRulesHandComputed weighs a rules file against a hand-made log: the
// first rule that matches decides, each rule's effect is grouped by
// recorded and new class and decision, and what no rule matches is only
// counted.
func TestRulesHandComputed(t *testing.T) {
	t.Parallel()
	set, err := rules.Parse("rules.yaml", []byte(`version: 1
rules:
  - name: acme-slowdown
    provider: acme
    code: E_SLOWDOWN
    class: RATE_LIMITED
    delay: 30s
  - name: any-418
    status: 418
    class: UPSTREAM_UNAVAILABLE
  - name: teapot-at-llm
    stage: llm
    status: 418
    class: CONTENT_POLICY
  - name: overloaded-again
    pattern: (?i)overloaded
    class: UPSTREAM_UNAVAILABLE
  - name: never
    stage: notify
    pattern: no such failure
    class: AUTH_DENIED
`))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"
	log := []simulate.LoggedFailure{
		// acme's code, which only the recorded provider names: a permanent
		// client error becomes a rate limit with the rule's delay.
		{ItemID: "a1", Stage: work.LLM, Class: work.ClientError, Attempt: 1, Provider: "acme", Status: 400, Code: "E_SLOWDOWN",
			Message: "acme chat: HTTP 400 E_SLOWDOWN: tenant t-1 over its rate"},
		{ItemID: "a2", Stage: work.LLM, Class: work.ClientError, Attempt: 2, Provider: "acme", Status: 400, Code: "E_SLOWDOWN",
			Message: "acme chat: HTTP 400 E_SLOWDOWN: tenant t-2 over its rate " + key},
		// The 5th attempt of a rate limit is the last: dead-lettered, spent.
		{ItemID: "a3", Stage: work.LLM, Class: work.ClientError, Attempt: 5, Provider: "acme", Status: 400, Code: "E_SLOWDOWN",
			Message: "acme chat: HTTP 400 E_SLOWDOWN: tenant t-3 over its rate"},
		// Two rules match a 418 at llm: the first in the file decides.
		{ItemID: "b1", Stage: work.LLM, Class: work.ClientError, Attempt: 1, Message: "openai chat: HTTP 418 teapot: I am a teapot"},
		// A rule that gives the class the failure had: matched, not
		// reclassified, the decision unchanged.
		{ItemID: "c1", Stage: work.Notify, Class: work.UpstreamUnavailable, Attempt: 1, Message: "webhook POST: HTTP 503: overloaded"},
		// Matched by no rule: counted, not listed.
		{ItemID: "d1", Stage: work.Fetch, Class: work.NotFound, Attempt: 1, Message: "source GET: HTTP 404: gone"},
	}
	for i := range log {
		log[i].OccurredAt = t0.Add(time.Duration(i) * time.Minute)
	}
	profile, err := policy.Lookup("standard")
	if err != nil {
		t.Fatal(err)
	}
	got := simulate.TestRules(set, log, profile)
	want := simulate.RulesTest{Source: "rules.yaml", Profile: "standard", Failures: 6, Matched: 5, Unmatched: 1, Rules: []simulate.RuleEffect{
		{Rule: "acme-slowdown", Line: 3, Class: work.RateLimited, Matched: 3, Reclassified: 3, DecisionChanged: 3,
			Changes: []simulate.RuleChange{
				{From: work.ClientError, To: work.RateLimited, Before: "dead-letter (permanent)", After: "retry ≤30s, 5 attempts", Count: 2},
				{From: work.ClientError, To: work.RateLimited, Before: "dead-letter (permanent)", After: "dead-letter (5 attempts spent)", Count: 1},
			},
			Samples: []string{"acme chat: HTTP 400 E_SLOWDOWN: tenant t-1 over its rate", "acme chat: HTTP 400 E_SLOWDOWN: tenant t-2 over its rate [REDACTED:openai-key]",
				"acme chat: HTTP 400 E_SLOWDOWN: tenant t-3 over its rate"}},
		{Rule: "any-418", Line: 8, Class: work.UpstreamUnavailable, Matched: 1, Reclassified: 1, DecisionChanged: 1,
			Changes: []simulate.RuleChange{{From: work.ClientError, To: work.UpstreamUnavailable, Before: "dead-letter (permanent)", After: "retry ≤1s, 5 attempts", Count: 1}},
			Samples: []string{"openai chat: HTTP 418 teapot: I am a teapot"}},
		{Rule: "teapot-at-llm", Line: 11, Class: work.ContentPolicy, Changes: []simulate.RuleChange{}, Samples: []string{}},
		{Rule: "overloaded-again", Line: 15, Class: work.UpstreamUnavailable, Matched: 1,
			Changes: []simulate.RuleChange{{From: work.UpstreamUnavailable, To: work.UpstreamUnavailable, Before: "retry ≤1s, 5 attempts", After: "retry ≤1s, 5 attempts", Count: 1}},
			Samples: []string{"webhook POST: HTTP 503: overloaded"}},
		{Rule: "never", Line: 18, Class: work.AuthDenied, Changes: []simulate.RuleChange{}, Samples: []string{}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rules test:\n got %+v\nwant %+v", got, want)
	}
	for _, r := range got.Rules {
		for _, s := range r.Samples {
			if strings.Contains(s, key) {
				t.Errorf("rule %s: a sample holds the key: %s", r.Rule, s)
			}
		}
	}
}

func TestDecisionSummary(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for want, d := range map[string]policy.Decision{
		"retry ≤1m0s, 5 attempts":          policy.Retry{Max: time.Minute, MaxAttempts: 5},
		"retry ≤250ms, unlimited attempts": policy.Retry{Max: 250 * time.Millisecond},
		"wait, no attempt spent":           policy.Wait{Until: now.Add(time.Hour)},
		"dead-letter (permanent)":          policy.DeadLetter{MaxAttempts: 1},
		"dead-letter (3 attempts spent)":   policy.DeadLetter{Exhausted: true, MaxAttempts: 3},
	} {
		if got := simulate.DecisionSummary(d); got != want {
			t.Errorf("DecisionSummary(%+v) = %q, want %q", d, got, want)
		}
	}
}

// TestRulesOnTheLogDecideAsTheFunction: a failure recorded as the stage
// records it (its redacted text, provider, status and code) is decided by
// the same rule as the live failure in a function that loaded the file —
// except a pattern over the answer's body alone, which the log never
// keeps (docs/design.md "Operator rules").
func TestRulesOnTheLogDecideAsTheFunction(t *testing.T) {
	t.Parallel()
	set, err := rules.Parse("rules.yaml", []byte(`version: 1
rules:
  - name: acme-slowdown
    provider: acme
    code: E_SLOWDOWN
    class: RATE_LIMITED
  - name: gateway-rotating
    stage: llm
    status: 409
    pattern: (?i)upstream (is )?rotating
    class: UPSTREAM_UNAVAILABLE
  - name: hook-maintenance
    stage: notify
    status: 5xx
    class: UPSTREAM_UNAVAILABLE
    delay: 5m
  - name: bodies-trace-field
    pattern: '"trace_hint"'
    class: NETWORK_TIMEOUT
  - name: sdk-text
    pattern: FrobnicatorWedged
    class: UPSTREAM_UNAVAILABLE
`))
	if err != nil {
		t.Fatal(err)
	}
	profile, _ := policy.Lookup("standard")
	httpErr := func(p failure.Provider, st work.Stage, status int, body string) error {
		return &failure.HTTPError{Provider: p, Stage: st, Status: status, Header: http.Header{}, Body: []byte(body)}
	}
	for name, tc := range map[string]struct {
		stage    work.Stage
		err      error
		want     string // the rule that decides, live and from the log
		onlyLive bool   // the live failure matches, the logged one cannot
	}{
		"an unknown provider's code": {work.LLM, httpErr("acme", work.LLM, 400, `{"error":{"code":"E_SLOWDOWN","message":"slow down"}}`), "acme-slowdown", false},
		"a gateway's words":          {work.LLM, httpErr("gateway", work.LLM, 409, `{"error":{"message":"upstream is rotating"}}`), "gateway-rotating", false},
		"a webhook's 503":            {work.Notify, httpErr(failure.Webhook, work.Notify, 503, `maintenance`), "hook-maintenance", false},
		"an SDK's text":              {work.Fetch, fmt.Errorf("source: %w", errors.New("operation error S3: GetObject, api error FrobnicatorWedged: x")), "sdk-text", false},
		"no rule":                    {work.LLM, httpErr(failure.OpenAI, work.LLM, 418, `{"error":{"message":"teapot"}}`), "", false},
		"a field of the body alone":  {work.LLM, httpErr("acme", work.LLM, 400, `{"error":{"message":"bad"},"trace_hint":"x"}`), "bodies-trace-field", true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			live := *set
			live.Stage = tc.stage
			cl := failure.ClassifyWith(&live, tc.err)
			if got := strings.TrimPrefix(cl.Reason, "rule "); tc.want != "" && got != tc.want || tc.want == "" && strings.HasPrefix(cl.Reason, "rule ") {
				t.Fatalf("live: %q, want rule %q", cl.Reason, tc.want)
			}
			plain := failure.Classify(tc.err)
			logged := simulate.LoggedFailure{ItemID: "i", Stage: tc.stage, Class: plain.Class, Attempt: 1, OccurredAt: time.Now(),
				Message: deadletter.ErrorText(tc.err), Provider: plain.Provider, Status: plain.Status, Code: plain.Code}
			rep := simulate.TestRules(set, []simulate.LoggedFailure{logged}, profile)
			var decided string
			for _, r := range rep.Rules {
				if r.Matched > 0 {
					decided = r.Rule
				}
			}
			want := tc.want
			if tc.onlyLive {
				want = ""
			}
			if decided != want {
				t.Errorf("from the log (%q): rule %q, want %q", logged.Message, decided, want)
			}
		})
	}
}
