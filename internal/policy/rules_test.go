package policy_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// TestDecideCountsOnce: whether a failure spends an attempt is the
// decision's, for every class and the gate rules: retries and dead letters
// do, waits do not.
func TestDecideCountsOnce(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 18, 30, 0, 0, time.UTC)
	p := policy.Standard()
	released := gates.New(gates.Breaker, "api.openai.com")
	budgetDay := gates.New(gates.Budget, "2026-05-01")
	tests := map[string]struct {
		p          *policy.Profile
		in         policy.Input
		wantCounts bool
		want       policy.Decision
	}{
		"a retry counts": {p: p, in: policy.Input{Stage: work.Fetch, Failure: failure.Of(work.NetworkTimeout, "t"), Attempt: 1, Now: now},
			wantCounts: true},
		"a permanent failure counts": {p: p, in: policy.Input{Stage: work.Fetch, Failure: failure.Of(work.NotFound, "t"), Attempt: 1, Now: now},
			wantCounts: true, want: policy.DeadLetter{Attempt: 1, MaxAttempts: 1, Class: work.NotFound}},
		"a budget wait does not": {p: p, in: policy.Input{Stage: work.LLM, Failure: failure.Classification{Class: work.BudgetExceeded, SelfImposed: true},
			Attempt: 1, Now: now, Gate: budgetDay},
			want: policy.Wait{Until: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC), Class: work.BudgetExceeded, Gate: budgetDay,
				Why: "daily budget resets at 00:00 UTC"}},
		"a released record's rate limit goes back behind its gate, spending nothing": {p: p,
			in: policy.Input{Stage: work.LLM, Failure: failure.Of(work.RateLimited, "t"), Attempt: 5, Now: now, Released: released},
			want: policy.Wait{Until: now.Add(time.Second), Class: work.RateLimited, Gate: released, Park: true, MaxAttempts: 5,
				Why: "released by breaker:api.openai.com into the upstream's rate limit: back behind the gate, the ramp's attempt, not the item's"}},
		"the same rate limit unreleased dead-letters at the limit": {p: p,
			in:         policy.Input{Stage: work.LLM, Failure: failure.Of(work.RateLimited, "t"), Attempt: 5, Now: now},
			wantCounts: true, want: policy.DeadLetter{Exhausted: true, Attempt: 5, MaxAttempts: 5, Class: work.RateLimited}},
		"a released record's timeout is its own": {p: p,
			in:         policy.Input{Stage: work.LLM, Failure: failure.Of(work.NetworkTimeout, "t"), Attempt: 5, Now: now, Released: released},
			wantCounts: true, want: policy.DeadLetter{Exhausted: true, Attempt: 5, MaxAttempts: 5, Class: work.NetworkTimeout}},
		"a budget recheck waits for a due time, not the day's gate": {p: func() *policy.Profile {
			q := policy.Standard()
			q.BudgetRecheck = 10 * time.Minute
			return q
		}(), in: policy.Input{Stage: work.LLM, Failure: failure.Classification{Class: work.BudgetExceeded, SelfImposed: true},
			Attempt: 1, Now: now, Gate: budgetDay},
			want: policy.Wait{Until: now.Add(10 * time.Minute), Class: work.BudgetExceeded, Gate: gates.DueName,
				Why: "daily budget spent; checking again in 10m0s (it resets at 00:00 UTC)"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tc.in.Rand = func() float64 { return 1 }
			d := tc.p.Decide(tc.in)
			if d.Counts() != tc.wantCounts {
				t.Errorf("Counts() = %v, want %v (%#v)", d.Counts(), tc.wantCounts, d)
			}
			if tc.want != nil && d != tc.want {
				t.Errorf("decision = %#v\nwant       %#v", d, tc.want)
			}
		})
	}
}

// TestSelfImposedLimitsTouchNoUpstream: triage's own budget refusal tells
// no breaker anything and puts no provider out, whatever its class's row
// says for a provider's quota.
func TestSelfImposedLimitsTouchNoUpstream(t *testing.T) {
	t.Parallel()
	p := policy.Standard()
	own := failure.Classification{Class: work.BudgetExceeded, SelfImposed: true}
	provider := failure.Of(work.BudgetExceeded, "insufficient_quota")
	if got := p.Breaker(work.LLM, own); got != policy.Silent {
		t.Errorf("own budget: breaker %s, want silent", got)
	}
	if got := p.Breaker(work.LLM, provider); got != policy.Opens {
		t.Errorf("provider quota: breaker %s, want opens", got)
	}
	if p.SkipsProvider(own) || !p.SkipsProvider(provider) || !p.SkipsProvider(failure.Of(work.AuthDenied, "t")) {
		t.Error("SkipsProvider: own budget must not, a provider's quota and a revoked key must")
	}
	if got := p.Breaker(work.Fetch, failure.Of(work.AuthDenied, "t")); got != policy.Answered {
		t.Errorf("a host's 401: breaker %s, want answered", got)
	}
}
