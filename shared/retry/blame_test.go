package retry_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/shared/retry"
)

// TestBlame: the blame table's verdicts under the standard profile (N = 3,
// at most 5 probes per item), as a literal table of evidence.
func TestBlame(t *testing.T) {
	t.Parallel()
	p := retry.Standard()
	tests := map[string]struct {
		e    retry.Evidence
		want retry.Blame
		row  int
	}{
		"first failure":                          {retry.Evidence{Same: 1}, retry.BlameUpstream, 3},
		"first failure, upstream answered":       {retry.Evidence{Same: 1, Answered: true}, retry.BlameUpstream, 3},
		"second in a row, upstream answered":     {retry.Evidence{Same: 2, Answered: true, Probes: 1}, retry.BlameUpstream, 3},
		"third in a row, upstream answered":      {retry.Evidence{Same: 3, Answered: true, Probes: 1}, retry.BlameItem, 1},
		"third in a row, no answer since":        {retry.Evidence{Same: 3, Probes: 2}, retry.BlameUpstream, 3},
		"fifth in a row, no answer since":        {retry.Evidence{Same: 5, Probes: 2}, retry.BlameUpstream, 3},
		"fourth failed probe, no answer since":   {retry.Evidence{Same: 5, Probes: 4}, retry.BlameUpstream, 3},
		"fifth failed probe, no answer since":    {retry.Evidence{Same: 6, Probes: 5}, retry.BlameItem, 2},
		"fifth failed probe of a changing class": {retry.Evidence{Same: 1, Probes: 5}, retry.BlameItem, 2},
		"judged before":                          {retry.Evidence{Judged: true, Same: 4}, retry.BlameItem, 0},
		"judged before, first of a new run":      {retry.Evidence{Judged: true, Same: 1}, retry.BlameItem, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, rule := p.Blame(tc.e)
			if got != tc.want || rule.Evidence != retry.Blames[tc.row].Evidence {
				t.Errorf("Blame(%+v) = %s by %q, want %s by row %d", tc.e, got, rule.Evidence, tc.want, tc.row)
			}
		})
	}
}

// TestBlameRespectsTheProfile: N and the probe cap are the profile's.
func TestBlameRespectsTheProfile(t *testing.T) {
	t.Parallel()
	p := retry.Standard()
	p.Probing.SameFailures, p.Probing.MaxProbes = 2, 2
	if got, _ := p.Blame(retry.Evidence{Same: 2, Answered: true}); got != retry.BlameItem {
		t.Errorf("N = 2: second failure with an answer since is %s", got)
	}
	if got, _ := p.Blame(retry.Evidence{Same: 1, Probes: 1}); got != retry.BlameUpstream {
		t.Errorf("cap 2: first failed probe is %s", got)
	}
	if got, _ := p.Blame(retry.Evidence{Same: 2, Probes: 2}); got != retry.BlameItem {
		t.Errorf("cap 2: second failed probe is %s", got)
	}
}

// TestProbeInterval is the schedule of a breaker whose probes keep failing:
// the base window, then doubling per failed probe in a row, capped.
func TestProbeInterval(t *testing.T) {
	t.Parallel()
	std := retry.Standard().Probing
	batch, _ := retry.Lookup("daily-batch")
	tests := []struct {
		name    string
		pr      retry.Probing
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
		{"zero value is the defaults", retry.Probing{}, 5 * time.Minute, 2, 10 * time.Minute},
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
	for name, pr := range map[string]retry.Probing{
		"negative N":         {SameFailures: -1},
		"negative cap":       {MaxProbes: -1},
		"shrinking windows":  {IntervalMultiplier: 0.5},
		"cap below the base": {MaxInterval: 0.5},
	} {
		p := retry.Standard()
		p.Probing = pr
		if err := p.Validate(); err == nil {
			t.Errorf("%s: %+v validated", name, pr)
		}
	}
	for _, name := range retry.Profiles() {
		p, _ := retry.Lookup(name)
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
