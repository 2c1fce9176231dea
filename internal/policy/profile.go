package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// Policy is what a profile does with one class of failure.
type Policy struct {
	// Retryable is false for classes that dead-letter on the first failure.
	Retryable bool
	// Counts is false for classes that wait without spending an attempt
	// (BUDGET_EXCEEDED); such classes never dead-letter.
	Counts bool
	// MaxAttempts is the number of attempts a stage gets for this class,
	// counting the first. The failure of attempt MaxAttempts dead-letters.
	// Zero means unlimited.
	MaxAttempts int
	// Backoff is the schedule between attempts; nil for non-retryable classes
	// and for waits.
	Backoff Backoff
	// Breaker is what the failure tells its upstream's circuit breaker.
	Breaker BreakerEffect
	// Congests is true for a class that is the upstream's congestion (a rate
	// limit, a 5xx, a timeout): met by a record a gate's ramp released, it
	// tells that gate's ramp to slow down.
	Congests bool
	// BackBehindGate is true for a class that, met by a record a gate's ramp
	// released, is the ramp's failure, not the item's (RATE_LIMITED: the
	// ramp released faster than the upstream takes): the record goes back
	// behind the gate without spending an attempt.
	BackBehindGate bool
	// SkipsProvider is true for a class that says an llm provider can serve
	// no model now (a revoked key, the provider's exhausted quota): the
	// fallback chain goes on to the next provider's entries in the same
	// invocation, without spending the item's attempt on it.
	SkipsProvider bool
	// Escalates is true for a class the fallback chain retries once, at
	// once, on its escalation entry (a larger-context or differently
	// moderated model) before the decision is applied.
	Escalates bool

	// desc is Backoff.String() computed once, for descOf, the backoff it was
	// computed from. Formatting a description costs more than the rest of a
	// decision, so the shipped profiles precompute it; a policy built by hand,
	// or one whose Backoff was replaced since, no longer matches descOf and
	// formats afresh.
	desc   string
	descOf Backoff
}

// describe precomputes pol's backoff description. Only the shipped schedule
// types are cached: they are comparable, so description's equality check
// cannot panic.
func describe(pol Policy) Policy {
	switch pol.Backoff.(type) {
	case Exponential, Fixed, Linear:
		pol.desc, pol.descOf = pol.Backoff.String(), pol.Backoff
	}
	return pol
}

// description returns Backoff.String(), precomputed when it still applies.
func (pol *Policy) description() string {
	if pol.descOf != nil && pol.descOf == pol.Backoff {
		return pol.desc
	}
	return pol.Backoff.String()
}

// Profile is a retry policy table: one Policy per class, optionally
// overridden per stage, plus the limits on upstream-requested delays. A stage
// function selects its profile by name (the PROFILE environment variable).
type Profile struct {
	// Name selects the profile.
	Name string
	// Description says what the profile is for.
	Description string
	// Policies holds one policy per class. A class missing from the table
	// gets Unknown's policy.
	Policies map[work.Class]Policy
	// Stages overrides Policies for one stage, class by class.
	Stages map[work.Stage]map[work.Class]Policy
	// RequestedCap caps a delay an upstream asked for (Retry-After) before it
	// is compared with the backoff: effective = max(backoff, min(requested,
	// RequestedCap)). Zero means requests are ignored.
	RequestedCap time.Duration
	// ProviderQuotaWait is how long a provider's exhausted quota
	// (insufficient_quota, HTTP 402) waits before the next try.
	ProviderQuotaWait time.Duration
	// BudgetRecheck bounds the wait for our own daily budget: zero waits
	// until the budget resets at the next 00:00 UTC; a positive value waits
	// at most that long before trying again, so that items resume soon
	// after an operator raises the cap (a try that finds the budget still
	// spent waits again and spends no attempt).
	BudgetRecheck time.Duration
	// Probing tells an item's failure from its upstream's and paces the
	// probes of a breaker that keeps failing them (Blame, Probing.Interval);
	// zero fields are its defaults.
	Probing Probing
}

// Policy returns the policy for class in stage: the stage override, else
// the profile's, else Unknown's.
func (p *Profile) Policy(stage work.Stage, class work.Class) Policy {
	if over, ok := p.Stages[stage][class]; ok {
		return over
	}
	if pol, ok := p.Policies[class]; ok {
		return pol
	}
	return p.Policies[work.Unknown]
}

// Validate reports the first inconsistency in p: a class without a policy,
// a retryable policy without a backoff, a counting policy without a
// (positive) limit, a policy or override for a class or stage that does not
// exist (a typo that would silently do nothing), a negative RequestedCap, or
// a ProviderQuotaWait that is not positive (a provider-quota wait would end
// at once and spin).
func (p *Profile) Validate() error {
	if p.Name == "" {
		return fmt.Errorf("profile has no name")
	}
	check := func(where string, c work.Class, pol Policy) error {
		switch {
		case !c.Valid():
			return fmt.Errorf("profile %s: policy%s for unknown class %q", p.Name, where, c)
		case pol.MaxAttempts < 0:
			return fmt.Errorf("profile %s: %s%s has a negative attempt limit", p.Name, c, where)
		case pol.Retryable && pol.Counts && pol.Backoff == nil:
			return fmt.Errorf("profile %s: %s%s retries without a backoff", p.Name, c, where)
		case pol.Retryable && pol.Counts && pol.MaxAttempts == 0:
			return fmt.Errorf("profile %s: %s%s counts attempts but has no limit", p.Name, c, where)
		case !pol.Retryable && pol.MaxAttempts > 1:
			return fmt.Errorf("profile %s: %s%s is not retryable but allows %d attempts", p.Name, c, where, pol.MaxAttempts)
		case pol.Breaker != "" && !slices.Contains(BreakerEffects(), pol.Breaker):
			return fmt.Errorf("profile %s: %s%s has an unknown breaker effect %q", p.Name, c, where, pol.Breaker)
		}
		return nil
	}
	if p.RequestedCap < 0 {
		return fmt.Errorf("profile %s: negative RequestedCap %s", p.Name, p.RequestedCap)
	}
	if p.BudgetRecheck < 0 {
		return fmt.Errorf("profile %s: BudgetRecheck %s must not be negative", p.Name, p.BudgetRecheck)
	}
	if p.ProviderQuotaWait <= 0 {
		return fmt.Errorf("profile %s: ProviderQuotaWait %s must be positive", p.Name, p.ProviderQuotaWait)
	}
	if pr := p.Probing; pr.SameFailures < 0 || pr.MaxProbes < 0 || (pr.MaxInterval != 0 && pr.MaxInterval < 1) ||
		(pr.IntervalMultiplier != 0 && pr.IntervalMultiplier < 1) {
		return fmt.Errorf("profile %s: probing %+v: counts must not be negative, the multiplier and the cap at least 1", p.Name, pr)
	}
	for _, c := range work.Classes() {
		pol, ok := p.Policies[c]
		if !ok {
			return fmt.Errorf("profile %s: no policy for %s", p.Name, c)
		}
		if err := check("", c, pol); err != nil {
			return err
		}
	}
	// Maps iterate in random order; sort so the same profile always reports
	// the same first error.
	for _, c := range slices.Sorted(maps.Keys(p.Policies)) {
		if !c.Valid() {
			return check("", c, p.Policies[c])
		}
	}
	for _, st := range slices.Sorted(maps.Keys(p.Stages)) {
		if !st.Valid() {
			return fmt.Errorf("profile %s: override for unknown stage %q", p.Name, st)
		}
		over := p.Stages[st]
		for _, c := range slices.Sorted(maps.Keys(over)) {
			if err := check(" in stage "+string(st), c, over[c]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Standard is the default profile (docs/design.md "Error classes and retry profiles"): full-jitter
// exponential backoff, 1s × 2^(attempt−1) capped at 60 s; Retry-After honoured
// up to 5 minutes; 5 attempts per stage, 3 for RESPONSE_INVALID, ACTION_FAILED
// every 2 minutes 3 times; permanent classes dead-letter at once;
// BUDGET_EXCEEDED waits without counting.
func Standard() *Profile {
	backoff := Exponential{Initial: time.Second, Multiplier: 2, Max: time.Minute, Jitter: FullJitter}
	return withStages(&Profile{
		Name:              "standard",
		Description:       "full-jitter exponential 1s×2 ≤60s, Retry-After honoured up to 5 min",
		Policies:          basePolicies(backoff, nil),
		RequestedCap:      5 * time.Minute,
		ProviderQuotaWait: time.Hour,
		Probing: Probing{SameFailures: DefaultSameFailures, MaxProbes: DefaultMaxProbes, IntervalMultiplier: DefaultIntervalMultiplier,
			MaxInterval: DefaultMaxInterval},
	})
}

// DailyBatch is the profile of a once-a-day batch job: a rate
// limit cools down for 24 h, network and server failures and bad output for
// 12 h. Waits this long exceed SQS's 12-hour visibility limit and are parked
// for the scheduler.
func DailyBatch() *Profile {
	cool12 := Fixed{Interval: 12 * time.Hour}
	return withStages(&Profile{
		Name:        "daily-batch",
		Description: "cooldowns: rate limit 24h, network/server/parse/unknown 12h",
		Policies: basePolicies(cool12, map[work.Class]Backoff{
			work.RateLimited: Fixed{Interval: 24 * time.Hour},
		}),
		RequestedCap:      24 * time.Hour,
		ProviderQuotaWait: 24 * time.Hour,
		// A batch that waits hours anyway probes a failing upstream less
		// often: at most every 24 base windows (2 hours at 5 minutes).
		Probing: Probing{SameFailures: DefaultSameFailures, MaxProbes: DefaultMaxProbes, IntervalMultiplier: DefaultIntervalMultiplier,
			MaxInterval: 24},
	})
}

// Predictions is the error-type-aware profile: rate limits wait
// a fixed 60 s, timeouts back off linearly 5 s..30 s, bad output 5/10/20 s,
// server errors exponentially with ±30% jitter.
func Predictions() *Profile {
	return withStages(&Profile{
		Name:        "predictions",
		Description: "rate limit 60s fixed, timeout linear 5s..30s, parse 5/10/20s, server exponential ±30%",
		Policies: basePolicies(Exponential{Initial: time.Second, Multiplier: 2, Max: time.Minute, Jitter: ProportionalJitter, Fraction: 0.3},
			map[work.Class]Backoff{
				work.RateLimited:     Fixed{Interval: time.Minute},
				work.NetworkTimeout:  Linear{Initial: 5 * time.Second, Step: 5 * time.Second, Max: 30 * time.Second},
				work.ResponseInvalid: Exponential{Initial: 5 * time.Second, Multiplier: 2, Max: 20 * time.Second},
			}),
		RequestedCap:      5 * time.Minute,
		ProviderQuotaWait: time.Hour,
		Probing: Probing{SameFailures: DefaultSameFailures, MaxProbes: DefaultMaxProbes, IntervalMultiplier: DefaultIntervalMultiplier,
			MaxInterval: DefaultMaxInterval},
	})
}

// classTable is the decision table every profile starts from, one row per
// class in the order of work.Classes (docs/design.md "The decision
// table"). Its retryable and counts columns are the classes' traits
// (work.Class.Traits), which basePolicies copies: what a class means is
// the classifier's, what is done about it the policy's. A nil Backoff on a
// counting row takes the profile's schedule.
var classTable = []struct {
	class work.Class
	Policy
}{
	{work.RateLimited, Policy{MaxAttempts: DefaultMaxAttempts, Breaker: Throttles, Congests: true, BackBehindGate: true}},
	{work.BudgetExceeded, Policy{Breaker: Opens, SkipsProvider: true}},
	{work.NetworkTimeout, Policy{MaxAttempts: DefaultMaxAttempts, Breaker: Trips, Congests: true}},
	{work.UpstreamUnavailable, Policy{MaxAttempts: DefaultMaxAttempts, Breaker: Trips, Congests: true}},
	{work.Conflict, Policy{MaxAttempts: DefaultMaxAttempts, Breaker: Answered}},
	{work.ResponseInvalid, Policy{MaxAttempts: 3, Breaker: Answered}},
	{work.ActionFailed, Policy{MaxAttempts: 3, Backoff: Fixed{Interval: 2 * time.Minute}, Breaker: Answered}},
	{work.SchemaInvalid, Policy{MaxAttempts: 1, Breaker: Silent}},
	{work.AuthDenied, Policy{MaxAttempts: 1, Breaker: Answered, SkipsProvider: true}},
	{work.NotFound, Policy{MaxAttempts: 1, Breaker: Answered}},
	{work.ContentPolicy, Policy{MaxAttempts: 1, Breaker: Answered, Escalates: true}},
	{work.TokenLimit, Policy{MaxAttempts: 1, Breaker: Answered, Escalates: true}},
	{work.ClientError, Policy{MaxAttempts: 1, Breaker: Answered}},
	{work.InternalBug, Policy{MaxAttempts: 1, Breaker: Silent}},
	{work.Unknown, Policy{MaxAttempts: DefaultMaxAttempts, Breaker: Silent}},
}

// stageTable overrides classTable for one stage. An llm provider's
// breaker also trips on AUTH_DENIED: a provider whose key was revoked is
// skipped by every item — one probe per open window asks it again —
// instead of costing each item a call. (A host's 401 is one article's or
// one webhook's, not the host's outage.)
var stageTable = map[work.Stage]map[work.Class]func(Policy) Policy{
	work.LLM: {
		work.AuthDenied: func(p Policy) Policy { p.Breaker = Trips; return p },
	},
}

// basePolicies builds a profile's class table from classTable and the
// classes' traits, its counting rows on schedule def unless over names the
// class.
func basePolicies(def Backoff, over map[work.Class]Backoff) map[work.Class]Policy {
	out := make(map[work.Class]Policy, len(classTable))
	for _, row := range classTable {
		pol := row.Policy
		tr := row.class.Traits()
		pol.Retryable, pol.Counts = tr.Retryable, tr.Counts
		if pol.Counts && pol.Backoff == nil {
			pol.Backoff = def
			if b, ok := over[row.class]; ok {
				pol.Backoff = b
			}
		}
		if pol.Backoff != nil {
			pol = describe(pol)
		}
		out[row.class] = pol
	}
	return out
}

// stagePolicies applies stageTable to a profile's class table.
func stagePolicies(base map[work.Class]Policy) map[work.Stage]map[work.Class]Policy {
	out := map[work.Stage]map[work.Class]Policy{}
	for st, rows := range stageTable {
		out[st] = map[work.Class]Policy{}
		for c, f := range rows {
			out[st][c] = f(base[c])
		}
	}
	return out
}

// DefaultMaxAttempts is the per-stage attempt budget of retryable classes,
// counting the first attempt (docs/design.md "Error classes and retry profiles").
const DefaultMaxAttempts = 5

// withStages adds stageTable's overrides to a shipped profile.
func withStages(p *Profile) *Profile {
	p.Stages = stagePolicies(p.Policies)
	return p
}

var builtins = []func() *Profile{Standard, DailyBatch, Predictions}

// Profiles lists the names of the shipped profiles.
func Profiles() []string {
	out := make([]string, len(builtins))
	for i, f := range builtins {
		out[i] = f().Name
	}
	return out
}

// Lookup returns a fresh copy of the shipped profile called name; the empty
// name is "standard".
func Lookup(name string) (*Profile, error) {
	if name == "" {
		name = "standard"
	}
	for _, f := range builtins {
		if p := f(); p.Name == name {
			return p, nil
		}
	}
	names := Profiles()
	slices.Sort(names)
	return nil, fmt.Errorf("unknown retry profile %q (want one of %s)", name, strings.Join(names, ", "))
}
