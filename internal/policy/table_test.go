package policy_test

import (
	"slices"
	"testing"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// TestStandardTable is the standard profile's decision table, as data: a
// change to any decision shows here, and in docs/design.md "The decision
// table", which prints the same rows.
func TestStandardTable(t *testing.T) {
	t.Parallel()
	const exp = "exponential 1s×2 ≤1m0s full jitter"
	want := []policy.Row{
		{Class: work.RateLimited, Retryable: true, Counts: true, MaxAttempts: 5, Backoff: exp, Breaker: policy.Throttles, Congests: true, BackBehindGate: true},
		{Class: work.BudgetExceeded, Retryable: true, Breaker: policy.Opens, SkipsProvider: true},
		{Class: work.NetworkTimeout, Retryable: true, Counts: true, MaxAttempts: 5, Backoff: exp, Breaker: policy.Trips, Congests: true},
		{Class: work.UpstreamUnavailable, Retryable: true, Counts: true, MaxAttempts: 5, Backoff: exp, Breaker: policy.Trips, Congests: true},
		{Class: work.Conflict, Retryable: true, Counts: true, MaxAttempts: 5, Backoff: exp, Breaker: policy.Answered},
		{Class: work.ResponseInvalid, Retryable: true, Counts: true, MaxAttempts: 3, Backoff: exp, ModelSpecific: true, Breaker: policy.Answered},
		{Class: work.ActionFailed, Retryable: true, Counts: true, MaxAttempts: 3, Backoff: "fixed 2m0s", Breaker: policy.Answered},
		{Class: work.SchemaInvalid, MaxAttempts: 1, Breaker: policy.Silent},
		{Class: work.AuthDenied, MaxAttempts: 1, Breaker: policy.Answered, SkipsProvider: true},
		{Class: work.AuthDenied, Stage: work.LLM, MaxAttempts: 1, Breaker: policy.Trips, SkipsProvider: true},
		{Class: work.NotFound, MaxAttempts: 1, Breaker: policy.Answered},
		{Class: work.ContentPolicy, MaxAttempts: 1, Breaker: policy.Answered, Escalates: true},
		{Class: work.TokenLimit, MaxAttempts: 1, Breaker: policy.Answered, Escalates: true},
		{Class: work.ClientError, MaxAttempts: 1, ModelSpecific: true, Breaker: policy.Answered},
		{Class: work.InternalBug, MaxAttempts: 1, Breaker: policy.Silent},
		{Class: work.Unknown, Retryable: true, Counts: true, MaxAttempts: 5, Backoff: exp, Breaker: policy.Silent},
	}
	got := policy.Standard().Rows()
	if !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w policy.Row
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("row %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	}
}

// TestTableAgreesWithTraits: every shipped profile retries exactly the
// classes failure calls retryable, and spends attempts exactly on those it
// says count — the table takes both columns from the traits, stage
// overrides included.
func TestTableAgreesWithTraits(t *testing.T) {
	t.Parallel()
	for _, name := range policy.Profiles() {
		p, _ := policy.Lookup(name)
		for _, r := range p.Rows() {
			tr := r.Class.Traits()
			if r.Retryable != tr.Retryable || r.Counts != tr.Counts {
				t.Errorf("%s %s (stage %q): retryable %v counts %v, traits say %v %v", name, r.Class, r.Stage, r.Retryable, r.Counts,
					tr.Retryable, tr.Counts)
			}
		}
	}
}

// TestConflictTable: one rule per situation, and an unknown one is kept
// briefly, never acknowledged.
func TestConflictTable(t *testing.T) {
	t.Parallel()
	seen := map[policy.LostClaim]bool{}
	for _, r := range policy.LostClaims {
		if seen[r.LostClaim] {
			t.Errorf("two rules for %q", r.LostClaim)
		}
		seen[r.LostClaim] = true
		if r.Kind == "" || r.Why == "" || r.Action == "" {
			t.Errorf("rule %q is incomplete: %+v", r.LostClaim, r)
		}
	}
	if got := policy.LostClaimOutcome("no such situation"); got.Action != policy.KeepBriefly {
		t.Errorf("unknown situation: %+v", got)
	}
	for c, want := range map[policy.LostClaim]policy.LostClaimAction{
		policy.ItemMissing: policy.DeadLetterMessage, policy.FailedCarried: policy.ResendDeadLetter, policy.DeadLetteredCarried: policy.Renotice,
		policy.NextStageQueued: policy.Reforward, policy.WorkingCarried: policy.KeepUntilLease, policy.Cooling: policy.KeepUntilDue,
		policy.ParkedLater: policy.Acknowledge, policy.WorkingOther: policy.Acknowledge,
	} {
		if got := policy.LostClaimOutcome(c).Action; got != want {
			t.Errorf("%s: %s, want %s", c, got, want)
		}
	}
}
