package policy_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/internal/policy"
)

// TestBlame: the blame table's verdicts under the standard profile (N = 3,
// at most 5 probes per item), as a literal table of evidence.
func TestBlame(t *testing.T) {
	t.Parallel()
	p := policy.Standard()
	tests := map[string]struct {
		e    policy.Evidence
		want policy.Blame
		row  int
	}{
		"first failure":                          {policy.Evidence{Same: 1}, policy.BlameUpstream, 3},
		"first failure, upstream answered":       {policy.Evidence{Same: 1, Answered: true}, policy.BlameUpstream, 3},
		"second in a row, upstream answered":     {policy.Evidence{Same: 2, Answered: true, Probes: 1}, policy.BlameUpstream, 3},
		"third in a row, upstream answered":      {policy.Evidence{Same: 3, Answered: true, Probes: 1}, policy.BlameItem, 1},
		"third in a row, no answer since":        {policy.Evidence{Same: 3, Probes: 2}, policy.BlameUpstream, 3},
		"fifth in a row, no answer since":        {policy.Evidence{Same: 5, Probes: 2}, policy.BlameUpstream, 3},
		"fourth failed probe, no answer since":   {policy.Evidence{Same: 5, Probes: 4}, policy.BlameUpstream, 3},
		"fifth failed probe, no answer since":    {policy.Evidence{Same: 6, Probes: 5}, policy.BlameItem, 2},
		"fifth failed probe of a changing class": {policy.Evidence{Same: 1, Probes: 5}, policy.BlameItem, 2},
		"judged before":                          {policy.Evidence{Judged: true, Same: 4}, policy.BlameItem, 0},
		"judged before, first of a new run":      {policy.Evidence{Judged: true, Same: 1}, policy.BlameItem, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, rule := p.Blame(tc.e)
			if got != tc.want || rule.Evidence != policy.Blames[tc.row].Evidence {
				t.Errorf("Blame(%+v) = %s by %q, want %s by row %d", tc.e, got, rule.Evidence, tc.want, tc.row)
			}
		})
	}
}

// TestBlameRespectsTheProfile: N and the probe cap are the profile's.
func TestBlameRespectsTheProfile(t *testing.T) {
	t.Parallel()
	p := policy.Standard()
	p.Probing.SameFailures, p.Probing.MaxProbes = 2, 2
	if got, _ := p.Blame(policy.Evidence{Same: 2, Answered: true}); got != policy.BlameItem {
		t.Errorf("N = 2: second failure with an answer since is %s", got)
	}
	if got, _ := p.Blame(policy.Evidence{Same: 1, Probes: 1}); got != policy.BlameUpstream {
		t.Errorf("cap 2: first failed probe is %s", got)
	}
	if got, _ := p.Blame(policy.Evidence{Same: 2, Probes: 2}); got != policy.BlameItem {
		t.Errorf("cap 2: second failed probe is %s", got)
	}
}

// TestProbeInterval is the schedule of a breaker whose probes keep failing:
// the base window, then doubling per failed probe in a row, capped.
func TestProbeInterval(t *testing.T) {
	t.Parallel()
	std := policy.Standard().Probing
	batch, _ := policy.Lookup("daily-batch")
	tests := []struct {
		name    string
		pr      policy.Probing
		base    time.Duration
		reopens int
		want    time.Duration
	}{
		{"tripped from closed", std, 5 * time.Minute, 0, 5 * time.Minute},
		{"first failed probe: the base, so a short outage is found as soon as before", std, 5 * time.Minute, 1, 5 * time.Minute},
		{"second doubles", std, 5 * time.Minute, 2, 10 * time.Minute},
		{"third reaches the cap", std, 5 * time.Minute, 3, 15 * time.Minute},
		{"and stays there", std, 5 * time.Minute, 40, 15 * time.Minute},
		{"a compressed base compresses the schedule", std, 3 * time.Second, 4, 9 * time.Second},
		{"daily-batch", batch.Probing, 5 * time.Minute, 5, 80 * time.Minute},
		{"daily-batch caps at 2 h", batch.Probing, 5 * time.Minute, 7, 2 * time.Hour},
		{"zero value is the defaults", policy.Probing{}, 5 * time.Minute, 2, 10 * time.Minute},
		{"no base", std, 0, 3, 0},
	}
	for _, tc := range tests {
		if got := tc.pr.Interval(tc.base, tc.reopens); got != tc.want {
			t.Errorf("%s: Interval(%s, %d) = %s, want %s", tc.name, tc.base, tc.reopens, got, tc.want)
		}
	}
}

// TestProbingValidate: a profile's probing must make sense.
func TestProbingValidate(t *testing.T) {
	t.Parallel()
	for name, pr := range map[string]policy.Probing{
		"negative N":         {SameFailures: -1},
		"negative cap":       {MaxProbes: -1},
		"shrinking windows":  {IntervalMultiplier: 0.5},
		"cap below the base": {MaxInterval: 0.5},
	} {
		p := policy.Standard()
		p.Probing = pr
		if err := p.Validate(); err == nil {
			t.Errorf("%s: %+v validated", name, pr)
		}
	}
	for _, name := range policy.Profiles() {
		p, _ := policy.Lookup(name)
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
