package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
)

// TestPolicyShow: the table names every class, the llm stage's override,
// the holding rule and the lost-claim table; --json carries the same rows.
func TestPolicyShow(t *testing.T) {
	code, text, errOut := runCLI("policy", "show")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"profile standard", "RATE_LIMITED", "UNKNOWN", "AUTH_DENIED           llm", "throttles", "fixed 2m0s",
		"parked for the scheduler", "resend the dead letter",
		"STATUS", "WEBHOOK", "404, 410", "CLIENT_ERROR", "other 4xx",
		"whose failure", "the item's 3rd provider-wide failure", "the item's 5th failed probe", "at most ×3 (15m0s at the breakers' 5m0s)",
		"notice    5         exponential 30s×3 ≤15m0s ±20% jitter", "producer  4         exponential 200ms×2 ≤5s full jitter",
		"SCHEMA_INVALID is permanent: no retry can succeed", "its dead letter is escalated", "given up 2 receives short of the redrive backstop",
		"disabled after 5 model-specific failures", "a breaker opens after 5 outage failures in a row (an exhausted quota's first) for 5m0s", "could not be made durable comes back after 2s", "draining mark lasts 2 scheduler intervals", "delayed at most 15m0s",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	code, out, errOut := runCLI("policy", "show", "--profile", "daily-batch", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var v policyView
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("--json output: %v", err)
	}
	p, _ := policy.Lookup("daily-batch")
	if v.Profile != "daily-batch" || len(v.Classes) != len(p.Rows()) || len(v.LostClaims) != len(policy.LostClaims) ||
		len(v.RoleDefaults) != len(failure.RoleDefaults) ||
		len(v.Blame) != len(policy.Blames) || v.Probing.MaxInterval != 24 || v.Probing.SameFailures != policy.DefaultSameFailures {
		t.Errorf("--json: profile %q, %d rows, %d conflicts, %d role defaults, %d blame rows, probing %+v", v.Profile, len(v.Classes), len(v.LostClaims),
			len(v.RoleDefaults), len(v.Blame), v.Probing)
	}
	if len(v.Calls) != len(policy.CallRows()) || v.Calls[0].MaxAttempts != policy.DefaultNoticeAttempts ||
		v.Outputs.NoticeGiveUpMargin != policy.NoticeGiveUpMargin || v.Outputs.DrainIntervals != policy.DrainIntervals {
		t.Errorf("--json: deliveries %+v, outputs %+v", v.Calls, v.Outputs)
	}
	for _, row := range v.RoleDefaults {
		if row.Statuses == "" || len(row.Classes) != len(failure.Roles()) {
			t.Errorf("--json: role default %+v", row)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"policy"}, 2},
		{[]string{"policy", "list"}, 2},
		{[]string{"policy", "show", "--profile", "aggressive"}, 2},
		{[]string{"policy", "show", "extra"}, 2},
	} {
		if code, _, _ := runCLI(tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
	}
}
