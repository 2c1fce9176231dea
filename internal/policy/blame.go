package policy

import (
	"strconv"
	"time"
)

// Blame is whose a provider-wide failure is judged to be: the upstream's
// (an outage: the breaker counts it and the item waits behind the breaker,
// spending no attempt) or the item's own (a poison item: the decision
// table judges it by its class, and it stops counting toward the breaker).
type Blame string

const (
	// BlameUpstream is an outage: every caller would fail alike.
	BlameUpstream Blame = "upstream"
	// BlameItem is a failure that follows one item.
	BlameItem Blame = "item"
)

// Evidence is what is known, at the moment a call fails provider-wide (its
// class trips the upstream's breaker: docs/design.md "The decision table"),
// about whose failure it is. The item keeps its run of such failures at one
// upstream (store.Suspect); the upstream's breaker knows when a probe last
// succeeded.
type Evidence struct {
	// Judged is true when an earlier failure of the item, of the same class
	// at the same upstream, was judged the item's own.
	Judged bool
	// Same is this failure's place in the item's run of provider-wide
	// failures of one class at one upstream: 1 for the first.
	Same int
	// Probes counts the failed breaker probes the item served in its run,
	// this one included when the call was a probe.
	Probes int
	// Answered is true when the upstream answered someone else since the
	// run's first failure: a probe that was not this item's closed the
	// breaker after it.
	Answered bool
}

// BlameRule is one row of the blame table, the decision data of "whose
// failure is it" (docs/design.md "Circuit breakers", "A failure that
// follows one item"): the first row whose evidence holds decides.
type BlameRule struct {
	// Evidence says when the row applies.
	Evidence string `json:"evidence"`
	// Blame is the verdict.
	Blame Blame `json:"blame"`
	// Item is what happens to the item; Breaker what the breaker is told.
	Item    string `json:"item"`
	Breaker string `json:"breaker"`

	applies func(Probing, Evidence) bool
}

// Probing is a profile's constants for telling an item's failure from its
// upstream's, and for pacing the probes of a breaker that keeps failing
// them. The zero value of a field is its Default.
type Probing struct {
	// SameFailures (N) judges a failure the item's own at its Nth
	// provider-wide failure of one class in a row at one upstream, when the
	// upstream answered someone else since the first of them.
	SameFailures int `json:"same_failures"`
	// MaxProbes bounds how often one item serves as a breaker's probe: its
	// MaxProbes-th failed probe is judged its own, whatever else is known.
	MaxProbes int `json:"max_probes"`
	// IntervalMultiplier grows a breaker's open window with each probe
	// that fails in a row after the first (the breaker's base window ×
	// multiplier^(reopens−1)), up to MaxInterval times the base window. The
	// first failed probe reopens for the base window, so a short outage is
	// found over as soon as without backoff. The cap is a multiple of the
	// base, not a duration, so that a base compressed for a test or a demo
	// compresses the whole schedule.
	IntervalMultiplier float64 `json:"interval_multiplier"`
	MaxInterval        float64 `json:"max_interval"`
}

// Defaults of Probing (the standard profile's).
const (
	// DefaultSameFailures is N: a poison item that made the breaker wait
	// twice is judged at its third such failure once another item's probe
	// showed the upstream answers — one more than the least that tells a
	// pattern from a coincidence, so an item that was unlucky in two
	// windows of a flapping upstream keeps its attempts.
	DefaultSameFailures = 3
	// DefaultMaxProbes: an item is the probe at most five times (five open
	// windows, backed off: 50 minutes at the breakers' 5-minute base)
	// before its failure is judged its own. The scheduler prefers
	// waiters that served fewer, so in a gate of many waiters no item comes
	// near it; an item that reaches it has tested the upstream alone for
	// that long — nobody else was waiting on the upstream, or every caller
	// would have probed it.
	DefaultMaxProbes = 5
	// DefaultIntervalMultiplier doubles a failing breaker's window per
	// failed probe in a row.
	DefaultIntervalMultiplier = 2.0
	// DefaultMaxInterval caps that window at three base windows (15 min at
	// the breakers' 5): an outage over is found at most that long after it
	// ended, and a long one costs four probes an hour instead of twelve.
	DefaultMaxInterval = 3.0
)

// WithDefaults returns pr with its zero fields set to the Defaults.
func (pr Probing) WithDefaults() Probing {
	if pr.SameFailures <= 0 {
		pr.SameFailures = DefaultSameFailures
	}
	if pr.MaxProbes <= 0 {
		pr.MaxProbes = DefaultMaxProbes
	}
	if pr.IntervalMultiplier < 1 {
		pr.IntervalMultiplier = DefaultIntervalMultiplier
	}
	if pr.MaxInterval < 1 {
		pr.MaxInterval = DefaultMaxInterval
	}
	return pr
}

// Interval is how long a breaker stays open after its reopens-th failed
// probe in a row (1 for the first): base × multiplier^(reopens−1), at most
// base × MaxInterval. reopens 0 — the breaker tripped from closed — and 1
// are base: 5, 5, 10, 15, 15 … minutes at the standard profile's numbers.
func (pr Probing) Interval(base time.Duration, reopens int) time.Duration {
	pr = pr.WithDefaults()
	if base <= 0 || reopens <= 1 {
		return base
	}
	most := time.Duration(float64(base) * pr.MaxInterval)
	return Exponential{Initial: base, Multiplier: pr.IntervalMultiplier, Max: most}.Base(reopens)
}

// Blames is the blame table, in the order its rows are tried.
var Blames = []BlameRule{
	{
		Evidence: "an earlier failure of the item, of this class at this upstream, was judged its own",
		Blame:    BlameItem, Item: "judged by its class (a retry spends an attempt, AUTH_DENIED is dead-lettered)",
		Breaker: "not counted; a probe's lease is released for another waiter",
		applies: func(_ Probing, e Evidence) bool { return e.Judged },
	},
	{
		Evidence: "the item's Nth provider-wide failure of this class in a row at this upstream, and the upstream answered someone else since the first",
		Blame:    BlameItem, Item: "judged by its class",
		Breaker: "not counted; a probe's lease is released for another waiter",
		applies: func(pr Probing, e Evidence) bool { return e.Same >= pr.SameFailures && e.Answered },
	},
	{
		Evidence: "the item's last allowed failed probe (it serves as the probe at most the cap's times)",
		Blame:    BlameItem, Item: "judged by its class",
		Breaker: "not counted; the probe's lease is released for another waiter",
		applies: func(pr Probing, e Evidence) bool { return e.Probes >= pr.MaxProbes },
	},
	{
		Evidence: "anything else: every caller may be failing alike",
		Blame:    BlameUpstream, Item: "waits behind the breaker's gate, no attempt spent; the probe rotates to another waiter",
		Breaker: "counted (trips; a failed probe reopens it for base × multiplier^(reopens−1), at most base × the cap)",
		applies: func(Probing, Evidence) bool { return true },
	},
}

// Blame judges a provider-wide failure by the first row of Blames whose
// evidence holds under p's Probing.
func (p *Profile) Blame(e Evidence) (Blame, BlameRule) {
	pr := p.Probing.WithDefaults()
	for _, r := range Blames {
		if r.applies(pr, e) {
			return r.Blame, r
		}
	}
	last := Blames[len(Blames)-1]
	return last.Blame, last
}

// Describe spells the rule's evidence with pr's numbers, for `triage policy
// show`.
func (r BlameRule) Describe(pr Probing) string {
	pr = pr.WithDefaults()
	switch r.Evidence {
	case Blames[1].Evidence:
		return "the item's " + ordinal(pr.SameFailures) + " provider-wide failure of this class in a row at this upstream, " +
			"and the upstream answered someone else since the first"
	case Blames[2].Evidence:
		return "the item's " + ordinal(pr.MaxProbes) + " failed probe (no item serves as the probe more than " +
			strconv.Itoa(pr.MaxProbes) + " times)"
	}
	return r.Evidence
}

func ordinal(n int) string {
	s := strconv.Itoa(n)
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return s + "th"
	case n%10 == 1:
		return s + "st"
	case n%10 == 2:
		return s + "nd"
	case n%10 == 3:
		return s + "rd"
	}
	return s + "th"
}
