package policy_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// testBundle is a fixed clock and the shipped profiles, fresh per test.
type testBundle struct {
	now         time.Time
	standard    *policy.Profile
	dailyBatch  *policy.Profile
	predictions *policy.Profile
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	lookup := func(name string) *policy.Profile {
		t.Helper()
		p, err := policy.Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", name, err)
		}
		return p
	}
	return &testBundle{
		now:         time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		standard:    lookup("standard"),
		dailyBatch:  lookup("daily-batch"),
		predictions: lookup("predictions"),
	}
}

// constRand returns a Rand that always draws r.
func constRand(r float64) func() float64 { return func() float64 { return r } }

// justBelowOne is the largest float64 below 1, the top of [0, 1).
var justBelowOne = math.Nextafter(1, 0)

func secs(s ...float64) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, v := range s {
		out[i] = time.Duration(v * float64(time.Second))
	}
	return out
}

// designLimits is the attempts column of docs/design.md "Error classes and retry profiles"; 0 is ∞ and
// 1 is permanent.
var designLimits = map[work.Class]int{
	work.RateLimited:         5,
	work.BudgetExceeded:      0,
	work.NetworkTimeout:      5,
	work.UpstreamUnavailable: 5,
	work.Conflict:            5,
	work.ResponseInvalid:     3,
	work.ActionFailed:        3,
	work.SchemaInvalid:       1,
	work.AuthDenied:          1,
	work.NotFound:            1,
	work.ContentPolicy:       1,
	work.TokenLimit:          1,
	work.ClientError:         1,
	work.InternalBug:         1,
	work.Unknown:             5,
}

func TestBaseSchedules(t *testing.T) {
	t.Parallel()
	b := setup(t)
	standard := secs(1, 2, 4, 8, 16, 32, 60, 60)
	tests := map[string]struct {
		profile *policy.Profile
		class   work.Class
		want    []time.Duration // Base(1), Base(2), …
	}{
		"standard rate limited":         {profile: b.standard, class: work.RateLimited, want: standard},
		"standard network timeout":      {profile: b.standard, class: work.NetworkTimeout, want: standard},
		"standard upstream unavailable": {profile: b.standard, class: work.UpstreamUnavailable, want: standard},
		"standard conflict":             {profile: b.standard, class: work.Conflict, want: standard},
		"standard response invalid":     {profile: b.standard, class: work.ResponseInvalid, want: standard[:3]},
		"standard unknown":              {profile: b.standard, class: work.Unknown, want: standard},
		"standard action failed":        {profile: b.standard, class: work.ActionFailed, want: secs(120, 120, 120)},

		"predictions rate limit fixed 60s":   {profile: b.predictions, class: work.RateLimited, want: secs(60, 60, 60, 60, 60)},
		"predictions timeout linear 5s..30s": {profile: b.predictions, class: work.NetworkTimeout, want: secs(5, 10, 15, 20, 25, 30, 30)},
		"predictions parse 5/10/20s":         {profile: b.predictions, class: work.ResponseInvalid, want: secs(5, 10, 20, 20)},
		"predictions server exponential":     {profile: b.predictions, class: work.UpstreamUnavailable, want: standard},
		"predictions action failed":          {profile: b.predictions, class: work.ActionFailed, want: secs(120, 120, 120)},

		"daily-batch rate limit 24h":    {profile: b.dailyBatch, class: work.RateLimited, want: []time.Duration{24 * time.Hour, 24 * time.Hour, 24 * time.Hour}},
		"daily-batch network 12h":       {profile: b.dailyBatch, class: work.NetworkTimeout, want: []time.Duration{12 * time.Hour, 12 * time.Hour, 12 * time.Hour}},
		"daily-batch server 12h":        {profile: b.dailyBatch, class: work.UpstreamUnavailable, want: []time.Duration{12 * time.Hour, 12 * time.Hour}},
		"daily-batch parse 12h":         {profile: b.dailyBatch, class: work.ResponseInvalid, want: []time.Duration{12 * time.Hour, 12 * time.Hour}},
		"daily-batch unknown 12h":       {profile: b.dailyBatch, class: work.Unknown, want: []time.Duration{12 * time.Hour}},
		"daily-batch action failed 2m":  {profile: b.dailyBatch, class: work.ActionFailed, want: secs(120, 120, 120)},
		"daily-batch conflict 12h":      {profile: b.dailyBatch, class: work.Conflict, want: []time.Duration{12 * time.Hour}},
		"predictions unknown exp. ±30%": {profile: b.predictions, class: work.Unknown, want: standard[:4]},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bo := tc.profile.Policy(work.LLM, tc.class).Backoff
			if bo == nil {
				t.Fatal("no backoff")
			}
			got := make([]time.Duration, len(tc.want))
			for i := range got {
				got[i] = bo.Base(i + 1)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Base(1..%d) = %v, want %v", len(tc.want), got, tc.want)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	type bound struct{ lo, hi time.Duration }
	tests := map[string]struct {
		backoff policy.Backoff
		want    []bound // Bounds(1), Bounds(2), …
	}{
		"standard full jitter from zero": {
			backoff: b.standard.Policy(work.Fetch, work.RateLimited).Backoff,
			want: []bound{
				{0, time.Second}, {0, 2 * time.Second}, {0, 4 * time.Second}, {0, 8 * time.Second},
				{0, 16 * time.Second}, {0, 32 * time.Second}, {0, time.Minute}, {0, time.Minute},
			},
		},
		"predictions server ±30%": {
			backoff: b.predictions.Policy(work.LLM, work.UpstreamUnavailable).Backoff,
			want: []bound{
				{700 * time.Millisecond, 1300 * time.Millisecond},
				{1400 * time.Millisecond, 2600 * time.Millisecond},
				{2800 * time.Millisecond, 5200 * time.Millisecond},
				{5600 * time.Millisecond, 10400 * time.Millisecond},
				{11200 * time.Millisecond, 20800 * time.Millisecond},
				{22400 * time.Millisecond, 41600 * time.Millisecond},
				{42 * time.Second, 78 * time.Second}, // ±30% applies after the 60s cap
			},
		},
		"predictions rate limit has no jitter": {
			backoff: b.predictions.Policy(work.LLM, work.RateLimited).Backoff,
			want:    []bound{{time.Minute, time.Minute}, {time.Minute, time.Minute}},
		},
		"predictions timeout has no jitter": {
			backoff: b.predictions.Policy(work.LLM, work.NetworkTimeout).Backoff,
			want:    []bound{{5 * time.Second, 5 * time.Second}, {10 * time.Second, 10 * time.Second}},
		},
		"predictions parse has no jitter": {
			backoff: b.predictions.Policy(work.LLM, work.ResponseInvalid).Backoff,
			want:    []bound{{5 * time.Second, 5 * time.Second}, {10 * time.Second, 10 * time.Second}, {20 * time.Second, 20 * time.Second}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for i, w := range tc.want {
				lo, hi := tc.backoff.Bounds(i + 1)
				if lo != w.lo || hi != w.hi {
					t.Errorf("Bounds(%d) = [%v, %v], want [%v, %v]", i+1, lo, hi, w.lo, w.hi)
				}
			}
		})
	}
}

func TestBackoffEdges(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		backoff policy.Backoff
		attempt int
		r       float64
		base    time.Duration
		delay   time.Duration
		desc    string
	}{
		"attempt 0 is attempt 1":        {backoff: policy.Exponential{Initial: time.Second, Multiplier: 2, Max: time.Minute}, attempt: 0, r: 0.5, base: time.Second, delay: time.Second, desc: "exponential 1s×2 ≤1m0s"},
		"negative attempt is attempt 1": {backoff: policy.Linear{Initial: 5 * time.Second, Step: 5 * time.Second}, attempt: -3, base: 5 * time.Second, delay: 5 * time.Second, desc: "linear 5s+5s"},
		"multiplier below 1 is 1":       {backoff: policy.Exponential{Initial: 3 * time.Second, Multiplier: 0.5}, attempt: 9, base: 3 * time.Second, delay: 3 * time.Second, desc: "exponential 3s×1"},
		"uncapped exponential saturates": {
			backoff: policy.Exponential{Initial: time.Second, Multiplier: 2}, attempt: 10_000,
			base: time.Duration(math.MaxInt64 / 2), delay: time.Duration(math.MaxInt64 / 2), desc: "exponential 1s×2",
		},
		"capped exponential at a silly attempt": {
			backoff: policy.Exponential{Initial: time.Second, Multiplier: 2, Max: time.Minute, Jitter: policy.FullJitter}, attempt: math.MaxInt32,
			r: 0.25, base: time.Minute, delay: 15 * time.Second, desc: "exponential 1s×2 ≤1m0s full jitter",
		},
		"full jitter r=0 is zero": {
			backoff: policy.Exponential{Initial: time.Second, Multiplier: 2, Max: time.Minute, Jitter: policy.FullJitter}, attempt: 4,
			r: 0, base: 8 * time.Second, delay: 0, desc: "exponential 1s×2 ≤1m0s full jitter",
		},
		"proportional fraction above 1 is 1": {
			backoff: policy.Exponential{Initial: 10 * time.Second, Multiplier: 1, Jitter: policy.ProportionalJitter, Fraction: 7}, attempt: 1,
			r: 0.75, base: 10 * time.Second, delay: 15 * time.Second, desc: "exponential 10s×1 ±100% jitter",
		},
		"proportional NaN fraction is 0": {
			backoff: policy.Exponential{Initial: 10 * time.Second, Multiplier: 1, Jitter: policy.ProportionalJitter, Fraction: math.NaN()}, attempt: 1,
			r: 0.9, base: 10 * time.Second, delay: 10 * time.Second, desc: "exponential 10s×1 ±0% jitter",
		},
		"r above 1 is clamped": {
			backoff: policy.Exponential{Initial: time.Second, Multiplier: 2, Jitter: policy.FullJitter}, attempt: 2,
			r: 1.7, base: 2 * time.Second, delay: 2 * time.Second, desc: "exponential 1s×2 full jitter",
		},
		"negative r is clamped": {
			backoff: policy.Exponential{Initial: time.Second, Multiplier: 2, Jitter: policy.FullJitter}, attempt: 2,
			r: -0.3, base: 2 * time.Second, delay: 0, desc: "exponential 1s×2 full jitter",
		},
		"NaN r is the lower bound": {
			backoff: policy.Exponential{Initial: time.Second, Multiplier: 2, Jitter: policy.ProportionalJitter, Fraction: 0.5}, attempt: 1,
			r: math.NaN(), base: time.Second, delay: 500 * time.Millisecond, desc: "exponential 1s×2 ±50% jitter",
		},
		"fixed ignores attempt and r": {backoff: policy.Fixed{Interval: 2 * time.Minute}, attempt: 77, r: 0.1, base: 2 * time.Minute, delay: 2 * time.Minute, desc: "fixed 2m0s"},
		"linear cap":                  {backoff: policy.Linear{Initial: 5 * time.Second, Step: 5 * time.Second, Max: 30 * time.Second}, attempt: 1000, base: 30 * time.Second, delay: 30 * time.Second, desc: "linear 5s+5s ≤30s"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.backoff.Base(tc.attempt); got != tc.base {
				t.Errorf("Base = %v, want %v", got, tc.base)
			}
			if got := tc.backoff.Delay(tc.attempt, tc.r); got != tc.delay {
				t.Errorf("Delay = %v, want %v", got, tc.delay)
			}
			if got := tc.backoff.String(); got != tc.desc {
				t.Errorf("String = %q, want %q", got, tc.desc)
			}
		})
	}
}

// TestJitter draws through Decide with an injected random source: r=0 is the
// lower bound, r just below 1 the upper bound, and any r stays inside Bounds.
func TestJitter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	profiles := []*policy.Profile{b.standard, b.predictions, b.dailyBatch}
	sweep := []float64{0, 1e-9, 0.01, 0.1, 0.25, 1.0 / 3, 0.5, 0.66, 0.75, 0.9, 0.99, 0.999999, justBelowOne}
	src := rand.New(rand.NewPCG(1, 2)) // seeded: the sweep is reproducible
	for range 200 {
		sweep = append(sweep, src.Float64())
	}
	for _, p := range profiles {
		for _, class := range work.Classes() {
			pol := p.Policy(work.LLM, class)
			if !pol.Retryable || !pol.Counts {
				continue
			}
			t.Run(p.Name+" "+string(class), func(t *testing.T) {
				t.Parallel()
				for attempt := 1; attempt < pol.MaxAttempts; attempt++ {
					lo, hi := pol.Backoff.Bounds(attempt)
					decide := func(r float64) policy.Retry {
						t.Helper()
						d := p.Decide(policy.Input{Stage: work.LLM, Failure: failure.Of(class, "test"), Attempt: attempt, Now: b.now, Rand: constRand(r)})
						rt, ok := d.(policy.Retry)
						if !ok {
							t.Fatalf("attempt %d: %T (%s), want Retry", attempt, d, d.Reason())
						}
						if rt.Min != lo || rt.Max != hi {
							t.Fatalf("attempt %d: range [%v, %v], Bounds [%v, %v]", attempt, rt.Min, rt.Max, lo, hi)
						}
						return rt
					}
					if got := decide(0).Delay; got != lo {
						t.Errorf("attempt %d r=0: delay %v, want lower bound %v", attempt, got, lo)
					}
					if got := decide(justBelowOne).Delay; got > hi || hi-got > time.Microsecond {
						t.Errorf("attempt %d r→1: delay %v, want upper bound %v", attempt, got, hi)
					}
					prev := time.Duration(-1)
					for _, r := range slices.Sorted(slices.Values(sweep)) {
						got := decide(r).Delay
						if got < lo || got > hi {
							t.Errorf("attempt %d r=%v: delay %v outside [%v, %v]", attempt, r, got, lo, hi)
						}
						if got < prev {
							t.Errorf("attempt %d r=%v: delay %v below the delay of a smaller r (%v)", attempt, r, got, prev)
						}
						prev = got
					}
				}
			})
		}
	}
}

func TestNilRandUsesUpperBound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := map[string]struct {
		profile *policy.Profile
		class   work.Class
		attempt int
		want    time.Duration
	}{
		"standard full jitter":       {profile: b.standard, class: work.RateLimited, attempt: 3, want: 4 * time.Second},
		"standard at the cap":        {profile: b.standard, class: work.Unknown, attempt: 4, want: 8 * time.Second},
		"predictions ±30%":           {profile: b.predictions, class: work.UpstreamUnavailable, attempt: 1, want: 1300 * time.Millisecond},
		"predictions linear":         {profile: b.predictions, class: work.NetworkTimeout, attempt: 2, want: 10 * time.Second},
		"daily-batch fixed cooldown": {profile: b.dailyBatch, class: work.RateLimited, attempt: 1, want: 24 * time.Hour},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := tc.profile.Decide(policy.Input{Stage: work.Fetch, Failure: failure.Of(tc.class, "t"), Attempt: tc.attempt, Now: b.now})
			if rt, ok := d.(policy.Retry); !ok || rt.Delay != tc.want || rt.Delay != rt.Max {
				t.Errorf("decision = %#v, want Retry with delay %v = Max", d, tc.want)
			}
		})
	}
}

// TestDecideRequested: effective delay = max(backoff, min(requested, cap)).
func TestDecideRequested(t *testing.T) {
	t.Parallel()
	b := setup(t)
	noRequests := policy.Standard()
	noRequests.RequestedCap = 0
	tests := map[string]struct {
		profile   *policy.Profile
		class     work.Class
		attempt   int
		r         float64
		requested failure.Requested
		now       time.Time
		// want is Retry.Delay, Min, Max and Requested.
		delay, lo, hi, req time.Duration
	}{
		"requested above the backoff": {
			profile: b.standard, class: work.RateLimited, attempt: 2, r: 0.5,
			requested: failure.Requested{Delay: 30 * time.Second},
			delay:     30 * time.Second, lo: 30 * time.Second, hi: 30 * time.Second, req: 30 * time.Second,
		},
		"requested below the backoff": {
			profile: b.standard, class: work.RateLimited, attempt: 4, r: 0.75,
			requested: failure.Requested{Delay: 3 * time.Second},
			delay:     6 * time.Second, lo: 3 * time.Second, hi: 8 * time.Second, req: 3 * time.Second,
		},
		"requested lifts a low draw": {
			profile: b.standard, class: work.UpstreamUnavailable, attempt: 4, r: 0.1,
			requested: failure.Requested{Delay: 3 * time.Second},
			delay:     3 * time.Second, lo: 3 * time.Second, hi: 8 * time.Second, req: 3 * time.Second,
		},
		"requested above 5 min is capped": {
			profile: b.standard, class: work.RateLimited, attempt: 1, r: 0.5,
			requested: failure.Requested{Delay: 6 * time.Minute},
			delay:     5 * time.Minute, lo: 5 * time.Minute, hi: 5 * time.Minute, req: 5 * time.Minute,
		},
		"requested exactly 5 min": {
			profile: b.standard, class: work.RateLimited, attempt: 1, r: 0.5,
			requested: failure.Requested{Delay: 5 * time.Minute},
			delay:     5 * time.Minute, lo: 5 * time.Minute, hi: 5 * time.Minute, req: 5 * time.Minute,
		},
		"the upstream's maximum is capped": {
			profile: b.standard, class: work.RateLimited, attempt: 1, r: 0,
			requested: failure.Requested{Delay: failure.MaxRequestedDelay},
			delay:     5 * time.Minute, lo: 5 * time.Minute, hi: 5 * time.Minute, req: 5 * time.Minute,
		},
		"HTTP-date resolved against Input.Now": {
			profile: b.standard, class: work.UpstreamUnavailable, attempt: 1, r: 0.5,
			requested: failure.Requested{At: b.now.Add(2 * time.Minute)}, now: b.now,
			delay: 2 * time.Minute, lo: 2 * time.Minute, hi: 2 * time.Minute, req: 2 * time.Minute,
		},
		"HTTP-date resolved against a later Now": {
			profile: b.standard, class: work.UpstreamUnavailable, attempt: 1, r: 0.5,
			requested: failure.Requested{At: b.now.Add(2 * time.Minute)}, now: b.now.Add(90 * time.Second),
			delay: 30 * time.Second, lo: 30 * time.Second, hi: 30 * time.Second, req: 30 * time.Second,
		},
		"HTTP-date far ahead is capped": {
			profile: b.standard, class: work.RateLimited, attempt: 1, r: 0.5,
			requested: failure.Requested{At: b.now.Add(48 * time.Hour)}, now: b.now,
			delay: 5 * time.Minute, lo: 5 * time.Minute, hi: 5 * time.Minute, req: 5 * time.Minute,
		},
		"HTTP-date passed falls back to the backoff": {
			profile: b.standard, class: work.RateLimited, attempt: 3, r: 0.5,
			requested: failure.Requested{At: b.now.Add(-time.Minute)}, now: b.now,
			delay: 2 * time.Second, lo: 0, hi: 4 * time.Second, req: 0,
		},
		"nothing requested": {
			profile: b.standard, class: work.RateLimited, attempt: 3, r: 0.5,
			delay: 2 * time.Second, lo: 0, hi: 4 * time.Second, req: 0,
		},
		"predictions fixed rate limit beats a shorter request": {
			profile: b.predictions, class: work.RateLimited, attempt: 1, r: 0.5,
			requested: failure.Requested{Delay: 20 * time.Second},
			delay:     time.Minute, lo: time.Minute, hi: time.Minute, req: 20 * time.Second,
		},
		"daily-batch caps requests at 24h": {
			profile: b.dailyBatch, class: work.NetworkTimeout, attempt: 1, r: 0.5,
			requested: failure.Requested{Delay: 30 * time.Hour},
			delay:     24 * time.Hour, lo: 24 * time.Hour, hi: 24 * time.Hour, req: 24 * time.Hour,
		},
		"a zero cap ignores requests": {
			profile: noRequests, class: work.RateLimited, attempt: 2, r: 0.5,
			requested: failure.Requested{Delay: time.Minute},
			delay:     time.Second, lo: 0, hi: 2 * time.Second, req: 0,
		},
		"action failed keeps its fixed 2 min over a short request": {
			profile: b.standard, class: work.ActionFailed, attempt: 1, r: 0,
			requested: failure.Requested{Delay: 30 * time.Second},
			delay:     2 * time.Minute, lo: 2 * time.Minute, hi: 2 * time.Minute, req: 30 * time.Second,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			now := tc.now
			if now.IsZero() {
				now = b.now
			}
			f := failure.Of(tc.class, "t")
			f.Requested = tc.requested
			d := tc.profile.Decide(policy.Input{Stage: work.LLM, Failure: f, Attempt: tc.attempt, Now: now, Rand: constRand(tc.r)})
			rt, ok := d.(policy.Retry)
			if !ok {
				t.Fatalf("decision %T (%s), want Retry", d, d.Reason())
			}
			if rt.Delay != tc.delay || rt.Min != tc.lo || rt.Max != tc.hi || rt.Requested != tc.req {
				t.Errorf("got delay %v in [%v, %v] requested %v; want %v in [%v, %v] requested %v",
					rt.Delay, rt.Min, rt.Max, rt.Requested, tc.delay, tc.lo, tc.hi, tc.req)
			}
		})
	}
}

// TestDecideAttemptLimits walks every class of every profile through
// attempts 1..6 against docs/design.md's limits.
func TestDecideAttemptLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, p := range []*policy.Profile{b.standard, b.dailyBatch, b.predictions} {
		for _, class := range work.Classes() {
			limit := designLimits[class]
			t.Run(p.Name+" "+string(class), func(t *testing.T) {
				t.Parallel()
				if got := p.Policy(work.Notify, class).MaxAttempts; got != limit {
					t.Errorf("MaxAttempts = %d, docs/design.md says %d", got, limit)
				}
				for attempt := 1; attempt <= 6; attempt++ {
					d := p.Decide(policy.Input{Stage: work.Notify, Failure: failure.Of(class, "t"), Attempt: attempt, Now: b.now, Rand: constRand(0.5)})
					switch {
					case limit == 0:
						if _, ok := d.(policy.Wait); !ok {
							t.Errorf("attempt %d: %T, want Wait", attempt, d)
						}
					case limit == 1:
						want := policy.DeadLetter{Exhausted: false, Attempt: attempt, MaxAttempts: 1, Class: class}
						if d != want {
							t.Errorf("attempt %d: %#v, want %#v", attempt, d, want)
						}
					case attempt < limit:
						if rt, ok := d.(policy.Retry); !ok || rt.Attempt != attempt || rt.MaxAttempts != limit || rt.Class != class {
							t.Errorf("attempt %d: %#v, want Retry %d of %d", attempt, d, attempt, limit)
						}
					default:
						want := policy.DeadLetter{Exhausted: true, Attempt: attempt, MaxAttempts: limit, Class: class}
						if d != want {
							t.Errorf("attempt %d: %#v, want %#v", attempt, d, want)
						}
					}
				}
			})
		}
	}
}

func TestDecideAttemptEdges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := map[string]struct {
		class   work.Class
		attempt int
		want    policy.Decision
	}{
		"RESPONSE_INVALID retries its 2nd failure": {class: work.ResponseInvalid, attempt: 2,
			want: policy.Retry{Delay: time.Second, Min: 0, Max: 2 * time.Second, Attempt: 2, MaxAttempts: 3, Class: work.ResponseInvalid, Backoff: "exponential 1s×2 ≤1m0s full jitter"}},
		"RESPONSE_INVALID dead-letters at its 3rd": {class: work.ResponseInvalid, attempt: 3,
			want: policy.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: work.ResponseInvalid}},
		"RATE_LIMITED retries its 4th failure": {class: work.RateLimited, attempt: 4,
			want: policy.Retry{Delay: 4 * time.Second, Min: 0, Max: 8 * time.Second, Attempt: 4, MaxAttempts: 5, Class: work.RateLimited, Backoff: "exponential 1s×2 ≤1m0s full jitter"}},
		"RATE_LIMITED dead-letters at its 5th": {class: work.RateLimited, attempt: 5,
			want: policy.DeadLetter{Exhausted: true, Attempt: 5, MaxAttempts: 5, Class: work.RateLimited}},
		"past the limit still dead-letters": {class: work.NetworkTimeout, attempt: 40,
			want: policy.DeadLetter{Exhausted: true, Attempt: 40, MaxAttempts: 5, Class: work.NetworkTimeout}},
		"permanent class at its 1st": {class: work.TokenLimit, attempt: 1,
			want: policy.DeadLetter{Attempt: 1, MaxAttempts: 1, Class: work.TokenLimit}},
		"attempt 0 is the 1st": {class: work.Conflict, attempt: 0,
			want: policy.Retry{Delay: 500 * time.Millisecond, Min: 0, Max: time.Second, Attempt: 1, MaxAttempts: 5, Class: work.Conflict, Backoff: "exponential 1s×2 ≤1m0s full jitter"}},
		"negative attempt is the 1st": {class: work.AuthDenied, attempt: -2,
			want: policy.DeadLetter{Attempt: 1, MaxAttempts: 1, Class: work.AuthDenied}},
		"an unknown class gets UNKNOWN's policy": {class: "NEW_CLASS_FROM_A_LATER_DEPLOY", attempt: 5,
			want: policy.DeadLetter{Exhausted: true, Attempt: 5, MaxAttempts: 5, Class: "NEW_CLASS_FROM_A_LATER_DEPLOY"}},
		"ACTION_FAILED fixed 2 min, 1st": {class: work.ActionFailed, attempt: 1,
			want: policy.Retry{Delay: 2 * time.Minute, Min: 2 * time.Minute, Max: 2 * time.Minute, Attempt: 1, MaxAttempts: 3, Class: work.ActionFailed, Backoff: "fixed 2m0s"}},
		"ACTION_FAILED fixed 2 min, 2nd": {class: work.ActionFailed, attempt: 2,
			want: policy.Retry{Delay: 2 * time.Minute, Min: 2 * time.Minute, Max: 2 * time.Minute, Attempt: 2, MaxAttempts: 3, Class: work.ActionFailed, Backoff: "fixed 2m0s"}},
		"ACTION_FAILED dead-letters at its 3rd": {class: work.ActionFailed, attempt: 3,
			want: policy.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: work.ActionFailed}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := b.standard.Decide(policy.Input{Stage: work.LLM, Failure: failure.Of(tc.class, "t"), Attempt: tc.attempt, Now: b.now, Rand: constRand(0.5)})
			if d != tc.want {
				t.Errorf("decision = %#v\nwant       %#v", d, tc.want)
			}
		})
	}
}

func TestDecideBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	midnight := time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)
	self := failure.Classification{Class: work.BudgetExceeded, SelfImposed: true}
	quota := failure.Of(work.BudgetExceeded, "openai code insufficient_quota (HTTP 429)")
	recheck := policy.Standard()
	recheck.BudgetRecheck = 15 * time.Minute
	withRequest := func(c failure.Classification, r failure.Requested) failure.Classification {
		c.Requested = r
		return c
	}
	tests := map[string]struct {
		profile *policy.Profile
		failure failure.Classification
		now     time.Time
		attempt int
		until   time.Time
		why     string
	}{
		"self-imposed waits for the next UTC midnight": {
			profile: b.standard, failure: self, now: b.now, attempt: 1, until: midnight, why: "daily budget",
		},
		"self-imposed one millisecond before midnight": {
			profile: b.standard, failure: self, now: time.Date(2026, 5, 1, 23, 59, 59, 999_000_000, time.UTC), attempt: 1, until: midnight, why: "daily budget",
		},
		"self-imposed exactly at midnight waits a full day": {
			profile: b.standard, failure: self, now: midnight, attempt: 1, until: midnight.AddDate(0, 0, 1), why: "daily budget",
		},
		"self-imposed in another zone uses UTC midnight": {
			profile: b.standard, failure: self, now: time.Date(2026, 5, 1, 21, 30, 0, 0, time.FixedZone("EDT", -4*3600)), attempt: 1,
			until: time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC), why: "daily budget",
		},
		"self-imposed ignores a requested delay": {
			profile: b.standard, failure: withRequest(self, failure.Requested{Delay: 3 * time.Hour}), now: time.Date(2026, 5, 1, 23, 0, 0, 0, time.UTC), attempt: 1,
			until: midnight, why: "daily budget",
		},
		"self-imposed rechecks after BudgetRecheck when that is sooner": {
			profile: recheck, failure: self, now: b.now, attempt: 1, until: b.now.Add(15 * time.Minute), why: "checking again in 15m0s",
		},
		"self-imposed waits for midnight when it comes before BudgetRecheck": {
			profile: recheck, failure: self, now: time.Date(2026, 5, 1, 23, 50, 0, 0, time.UTC), attempt: 1, until: midnight,
			why: "resets at 00:00 UTC",
		},
		"BudgetRecheck leaves a provider quota alone": {
			profile: recheck, failure: quota, now: b.now, attempt: 1, until: b.now.Add(time.Hour), why: "provider quota",
		},
		"self-imposed never dead-letters": {
			profile: b.standard, failure: self, now: b.now, attempt: 1000, until: midnight, why: "daily budget",
		},
		"provider quota waits an hour": {
			profile: b.standard, failure: quota, now: b.now, attempt: 1, until: b.now.Add(time.Hour), why: "provider quota",
		},
		"provider quota: a shorter request still waits an hour": {
			profile: b.standard, failure: withRequest(quota, failure.Requested{Delay: 10 * time.Minute}), now: b.now, attempt: 1, until: b.now.Add(time.Hour), why: "provider quota",
		},
		"provider quota: a longer request is honoured": {
			profile: b.standard, failure: withRequest(quota, failure.Requested{Delay: 3 * time.Hour}), now: b.now, attempt: 1, until: b.now.Add(3 * time.Hour), why: "provider quota",
		},
		"provider quota: a reset time is resolved against Now": {
			profile: b.predictions, failure: withRequest(quota, failure.Requested{At: b.now.Add(150 * time.Minute)}), now: b.now, attempt: 1, until: b.now.Add(150 * time.Minute), why: "provider quota",
		},
		"provider quota never dead-letters": {
			profile: b.standard, failure: quota, now: b.now, attempt: 1000, until: b.now.Add(time.Hour), why: "provider quota",
		},
		"daily-batch provider quota waits a day": {
			profile: b.dailyBatch, failure: quota, now: b.now, attempt: 3, until: b.now.Add(24 * time.Hour), why: "provider quota",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := tc.profile.Decide(policy.Input{Stage: work.LLM, Failure: tc.failure, Attempt: tc.attempt, Now: tc.now, Rand: constRand(0.5)})
			w, ok := d.(policy.Wait)
			if !ok {
				t.Fatalf("decision %#v, want Wait", d)
			}
			if !w.Until.Equal(tc.until) || w.Class != work.BudgetExceeded || !strings.Contains(w.Why, tc.why) {
				t.Errorf("wait = %+v, want until %v for %q", w, tc.until, tc.why)
			}
			if !w.Until.After(tc.now) {
				t.Errorf("wait until %v is not after now %v: the item would spin", w.Until, tc.now)
			}
		})
	}
}

func TestNextUTCMidnight(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in, want time.Time
	}{
		"noon":             {in: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), want: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)},
		"last nanosecond":  {in: time.Date(2026, 5, 1, 23, 59, 59, 999_999_999, time.UTC), want: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)},
		"exactly midnight": {in: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC), want: time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC)},
		"month end":        {in: time.Date(2026, 4, 30, 18, 0, 0, 0, time.UTC), want: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)},
		"year end":         {in: time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC), want: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
		"leap day":         {in: time.Date(2028, 2, 28, 9, 0, 0, 0, time.UTC), want: time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
		"ahead of UTC":     {in: time.Date(2026, 5, 2, 1, 0, 0, 0, time.FixedZone("CEST", 2*3600)), want: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)},
		"behind UTC":       {in: time.Date(2026, 5, 1, 22, 0, 0, 0, time.FixedZone("PDT", -7*3600)), want: time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := policy.NextUTCMidnight(tc.in)
			if !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("NextUTCMidnight(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestStageIndependence: limits are per stage. An override for one stage
// leaves the others alone, and Decide reads only the attempt it is given.
func TestStageIndependence(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := policy.Standard()
	p.Stages = map[work.Stage]map[work.Class]policy.Policy{
		work.LLM: {work.ResponseInvalid: {Retryable: true, Counts: true, MaxAttempts: 6, Backoff: policy.Fixed{Interval: 10 * time.Second}}},
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	decide := func(stage work.Stage, class work.Class, attempt int) policy.Decision {
		return p.Decide(policy.Input{Stage: stage, Failure: failure.Of(class, "t"), Attempt: attempt, Now: b.now, Rand: constRand(0.5)})
	}
	tests := map[string]struct {
		stage   work.Stage
		class   work.Class
		attempt int
		want    policy.Decision
	}{
		"the overridden stage retries past the default limit": {stage: work.LLM, class: work.ResponseInvalid, attempt: 3,
			want: policy.Retry{Delay: 10 * time.Second, Min: 10 * time.Second, Max: 10 * time.Second, Attempt: 3, MaxAttempts: 6, Class: work.ResponseInvalid, Backoff: "fixed 10s"}},
		"the overridden stage dead-letters at its own limit": {stage: work.LLM, class: work.ResponseInvalid, attempt: 6,
			want: policy.DeadLetter{Exhausted: true, Attempt: 6, MaxAttempts: 6, Class: work.ResponseInvalid}},
		"fetch keeps the default limit": {stage: work.Fetch, class: work.ResponseInvalid, attempt: 3,
			want: policy.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: work.ResponseInvalid}},
		"notify keeps the default limit": {stage: work.Notify, class: work.ResponseInvalid, attempt: 3,
			want: policy.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: work.ResponseInvalid}},
		"other classes of the overridden stage keep theirs": {stage: work.LLM, class: work.RateLimited, attempt: 5,
			want: policy.DeadLetter{Exhausted: true, Attempt: 5, MaxAttempts: 5, Class: work.RateLimited}},
		"an unknown stage gets the profile's policy": {stage: "enrich", class: work.ResponseInvalid, attempt: 3,
			want: policy.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: work.ResponseInvalid}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := decide(tc.stage, tc.class, tc.attempt); d != tc.want {
				t.Errorf("decision = %#v\nwant       %#v", d, tc.want)
			}
		})
	}

	// Without overrides, the stage changes nothing: an item that failed
	// fetch four times and llm once is judged on the attempt it is given.
	t.Run("same attempt, same decision in every stage", func(t *testing.T) {
		t.Parallel()
		for _, class := range work.Classes() {
			var first policy.Decision
			for i, st := range work.Stages() {
				d := b.standard.Decide(policy.Input{Stage: st, Failure: failure.Of(class, "t"), Attempt: 2, Now: b.now, Rand: constRand(0.3)})
				if i == 0 {
					first = d
				} else if d != first {
					t.Errorf("%s in %s: %#v, in %s: %#v", class, st, d, work.Stages()[0], first)
				}
			}
		}
	})
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name    string
		want    string
		wantErr bool
	}{
		"standard":         {name: "standard", want: "standard"},
		"daily-batch":      {name: "daily-batch", want: "daily-batch"},
		"predictions":      {name: "predictions", want: "predictions"},
		"empty is default": {name: "", want: "standard"},
		"unknown":          {name: "aggressive", wantErr: true},
		"case matters":     {name: "Standard", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := policy.Lookup(tc.name)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Lookup(%q) = %s, want an error", tc.name, p.Name)
				}
				if !strings.Contains(err.Error(), "daily-batch, predictions, standard") {
					t.Errorf("error %q does not list the profiles", err)
				}
				return
			}
			if err != nil || p.Name != tc.want {
				t.Fatalf("Lookup(%q) = %v, %v; want %s", tc.name, p, err, tc.want)
			}
			if p.Description == "" {
				t.Error("no description")
			}
		})
	}
	t.Run("profiles are fresh copies", func(t *testing.T) {
		t.Parallel()
		a, _ := policy.Lookup("standard")
		a.Policies[work.RateLimited] = policy.Policy{MaxAttempts: 1}
		a.RequestedCap = 0
		b, _ := policy.Lookup("standard")
		if b.Policies[work.RateLimited].MaxAttempts != 5 || b.RequestedCap != 5*time.Minute {
			t.Error("changing one looked-up profile changed the next")
		}
	})
	if got := policy.Profiles(); !slices.Equal(got, []string{"standard", "daily-batch", "predictions"}) {
		t.Errorf("Profiles() = %v", got)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, name := range policy.Profiles() {
		p, _ := policy.Lookup(name)
		if err := p.Validate(); err != nil {
			t.Errorf("shipped profile %s: %v", name, err)
		}
	}
	tests := map[string]struct {
		breakIt func(p *policy.Profile)
		wantErr string
	}{
		"no name": {
			breakIt: func(p *policy.Profile) { p.Name = "" },
			wantErr: "no name",
		},
		"a class without a policy": {
			breakIt: func(p *policy.Profile) { delete(p.Policies, work.Conflict) },
			wantErr: "no policy for CONFLICT",
		},
		"retrying without a backoff": {
			breakIt: func(p *policy.Profile) {
				p.Policies[work.RateLimited] = policy.Policy{Retryable: true, Counts: true, MaxAttempts: 5}
			},
			wantErr: "RATE_LIMITED retries without a backoff",
		},
		"counting without a limit": {
			breakIt: func(p *policy.Profile) {
				p.Policies[work.Unknown] = policy.Policy{Retryable: true, Counts: true, Backoff: policy.Fixed{Interval: time.Second}}
			},
			wantErr: "UNKNOWN counts attempts but has no limit",
		},
		"counting with a negative limit": {
			breakIt: func(p *policy.Profile) {
				p.Policies[work.Unknown] = policy.Policy{Retryable: true, Counts: true, MaxAttempts: -1, Backoff: policy.Fixed{Interval: time.Second}}
			},
			wantErr: "UNKNOWN has a negative attempt limit",
		},
		"a permanent class with attempts": {
			breakIt: func(p *policy.Profile) { p.Policies[work.AuthDenied] = policy.Policy{MaxAttempts: 3} },
			wantErr: "AUTH_DENIED is not retryable but allows 3 attempts",
		},
		"a broken stage override": {
			breakIt: func(p *policy.Profile) {
				p.Stages = map[work.Stage]map[work.Class]policy.Policy{
					work.Notify: {work.RateLimited: {Retryable: true, Counts: true, MaxAttempts: 9}},
				}
			},
			wantErr: "RATE_LIMITED in stage notify retries without a backoff",
		},
		"an override for a stage that does not exist": {
			breakIt: func(p *policy.Profile) {
				p.Stages = map[work.Stage]map[work.Class]policy.Policy{
					"notfiy": {work.RateLimited: {Retryable: true, Counts: true, MaxAttempts: 9, Backoff: policy.Fixed{Interval: time.Second}}},
				}
			},
			wantErr: `unknown stage "notfiy"`,
		},
		"an override for a class that does not exist": {
			breakIt: func(p *policy.Profile) {
				p.Stages = map[work.Stage]map[work.Class]policy.Policy{
					work.LLM: {"RATE_LIMIT": {Retryable: true, Counts: true, MaxAttempts: 9, Backoff: policy.Fixed{Interval: time.Second}}},
				}
			},
			wantErr: `unknown class "RATE_LIMIT"`,
		},
		"a policy for a class that does not exist": {
			breakIt: func(p *policy.Profile) { p.Policies["TIMEOUT"] = policy.Policy{MaxAttempts: 1} },
			wantErr: `unknown class "TIMEOUT"`,
		},
		"a zero provider-quota wait would spin": {
			breakIt: func(p *policy.Profile) { p.ProviderQuotaWait = 0 },
			wantErr: "ProviderQuotaWait",
		},
		"a negative budget recheck": {
			breakIt: func(p *policy.Profile) { p.BudgetRecheck = -time.Minute },
			wantErr: "BudgetRecheck",
		},
		"a negative requested cap": {
			breakIt: func(p *policy.Profile) { p.RequestedCap = -time.Second },
			wantErr: "RequestedCap",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := policy.Standard()
			tc.breakIt(p)
			err := p.Validate()
			if err == nil {
				t.Fatal("Validate passed a broken profile")
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q, want it to mention %q", err, tc.wantErr)
			}
		})
	}
}

func TestDecisionReasons(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		d    policy.Decision
		want string
	}{
		"retry": {
			d:    policy.Retry{Delay: 1500 * time.Millisecond, Attempt: 2, MaxAttempts: 5, Class: work.RateLimited, Backoff: "exponential 1s×2 ≤1m0s full jitter"},
			want: "RATE_LIMITED is retryable: attempt 2 of 5, retry in 1.5s (exponential 1s×2 ≤1m0s full jitter)",
		},
		"retry with a request": {
			d:    policy.Retry{Delay: 30 * time.Second, Requested: 30 * time.Second, Attempt: 1, MaxAttempts: 5, Class: work.UpstreamUnavailable, Backoff: "fixed 1s"},
			want: "UPSTREAM_UNAVAILABLE is retryable: attempt 1 of 5, retry in 30s (fixed 1s, upstream asked for 30s)",
		},
		"retry rounds to the millisecond": {
			d:    policy.Retry{Delay: 1234567890, Attempt: 1, MaxAttempts: 3, Class: work.ResponseInvalid, Backoff: "fixed 1s"},
			want: "RESPONSE_INVALID is retryable: attempt 1 of 3, retry in 1.235s (fixed 1s)",
		},
		"exhausted": {
			d:    policy.DeadLetter{Exhausted: true, Attempt: 3, MaxAttempts: 3, Class: work.ResponseInvalid},
			want: "RESPONSE_INVALID exhausted 3 of 3 attempts",
		},
		"permanent": {
			d:    policy.DeadLetter{Attempt: 1, MaxAttempts: 1, Class: work.ContentPolicy},
			want: "CONTENT_POLICY is permanent: no retry can succeed",
		},
		"wait": {
			d:    policy.Wait{Until: time.Date(2026, 5, 2, 2, 0, 0, 0, time.FixedZone("CEST", 2*3600)), Class: work.BudgetExceeded, Why: "daily budget resets at 00:00 UTC"},
			want: "wait until 2026-05-02T00:00:00Z without spending an attempt: daily budget resets at 00:00 UTC",
		},
		"wait without why": {
			d:    policy.Wait{Until: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)},
			want: "wait until 2026-05-02T00:00:00Z without spending an attempt",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.d.Reason(); got != tc.want {
				t.Errorf("Reason() = %q\nwant        %q", got, tc.want)
			}
		})
	}
}

// TestDecidePure: the same input gives the same decision, and Decide draws
// at most one random number.
func TestDecidePure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	draws := 0
	counting := func() float64 { draws++; return 0.42 }
	in := policy.Input{Stage: work.LLM, Failure: failure.Of(work.UpstreamUnavailable, "t"), Attempt: 3, Now: b.now, Rand: counting}
	first := b.predictions.Decide(in)
	for range 10 {
		if d := b.predictions.Decide(in); d != first {
			t.Fatalf("decision changed: %#v then %#v", first, d)
		}
	}
	if draws != 11 {
		t.Errorf("%d draws for 11 decisions", draws)
	}
	draws = 0
	b.predictions.Decide(policy.Input{Stage: work.LLM, Failure: failure.Of(work.NotFound, "t"), Attempt: 1, Now: b.now, Rand: counting})
	b.predictions.Decide(policy.Input{Stage: work.LLM, Failure: failure.Classification{Class: work.BudgetExceeded, SelfImposed: true}, Attempt: 1, Now: b.now, Rand: counting})
	if draws != 0 {
		t.Errorf("dead letters and waits drew %d random numbers", draws)
	}
}

// steps is a hand-written schedule that is not comparable (it holds a
// slice), as a team's own Backoff may be.
type steps []time.Duration

func (s steps) Base(attempt int) time.Duration {
	return s[min(max(attempt, 1), len(s))-1]
}
func (s steps) Bounds(attempt int) (lo, hi time.Duration)  { return s.Base(attempt), s.Base(attempt) }
func (s steps) Delay(attempt int, _ float64) time.Duration { return s.Base(attempt) }
func (s steps) String() string                             { return "steps" }

// TestBackoffDescription: the description Decide reports is always the
// schedule's own String(), whether precomputed, replaced or hand-written.
func TestBackoffDescription(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, p := range []*policy.Profile{b.standard, b.dailyBatch, b.predictions} {
		for _, class := range work.Classes() {
			pol := p.Policy(work.LLM, class)
			if !pol.Retryable || !pol.Counts {
				continue
			}
			d := p.Decide(policy.Input{Stage: work.LLM, Failure: failure.Of(class, "t"), Attempt: 1, Now: b.now})
			if rt, ok := d.(policy.Retry); !ok || rt.Backoff != pol.Backoff.String() {
				t.Errorf("%s %s: %#v, want backoff %q", p.Name, class, d, pol.Backoff.String())
			}
		}
	}
	tests := map[string]struct {
		backoff policy.Backoff
		want    string
	}{
		"replaced by another type":          {backoff: policy.Fixed{Interval: 7 * time.Second}, want: "fixed 7s"},
		"replaced by the same type":         {backoff: policy.Exponential{Initial: 2 * time.Second, Multiplier: 3, Max: time.Minute, Jitter: policy.FullJitter}, want: "exponential 2s×3 ≤1m0s full jitter"},
		"replaced by a non-comparable type": {backoff: steps{time.Second, 5 * time.Second}, want: "steps"},
		"replaced by an equal value":        {backoff: policy.Exponential{Initial: time.Second, Multiplier: 2, Max: time.Minute, Jitter: policy.FullJitter}, want: "exponential 1s×2 ≤1m0s full jitter"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := policy.Standard()
			pol := p.Policies[work.RateLimited]
			pol.Backoff = tc.backoff
			p.Policies[work.RateLimited] = pol
			d := p.Decide(policy.Input{Stage: work.LLM, Failure: failure.Of(work.RateLimited, "t"), Attempt: 2, Now: b.now})
			if rt, ok := d.(policy.Retry); !ok || rt.Backoff != tc.want {
				t.Errorf("decision %#v, want backoff %q", d, tc.want)
			}
		})
	}
}
