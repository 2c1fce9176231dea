package simulate

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/rules"
	"github.com/triagehq/triage/internal/work"
)

// MaxRuleSamples bounds the samples of one rule's effect.
const MaxRuleSamples = 3

// RulesTest is what an operator's rules file would have changed over a
// recorded error log (`triage rules test`): per rule, the failures it
// would have decided and how.
type RulesTest struct {
	// Source names the rules file; Profile the retry profile the decisions
	// are made by.
	Source  string `json:"source"`
	Profile string `json:"profile"`
	// Failures counts the recorded failures read; Matched those a rule
	// matches, Unmatched those no rule matches (not listed).
	Failures  int `json:"failures"`
	Matched   int `json:"matched"`
	Unmatched int `json:"unmatched"`
	// Rules are the file's rules, in file order, each with its effect.
	Rules []RuleEffect `json:"rules"`
}

// RuleEffect is what one rule would have changed.
type RuleEffect struct {
	// Rule and Line name the rule; Class is the class it gives.
	Rule  string     `json:"rule"`
	Line  int        `json:"line"`
	Class work.Class `json:"class"`
	// Matched counts the failures whose first matching rule it is (the
	// rule that would decide them); Reclassified those whose class it
	// changes; DecisionChanged those whose decision it changes.
	Matched         int `json:"matched"`
	Reclassified    int `json:"reclassified"`
	DecisionChanged int `json:"decision_changed"`
	// Changes group the failures it matches by recorded class and decision
	// and the rule's class and decision, most failures first.
	Changes []RuleChange `json:"changes"`
	// Samples are up to MaxRuleSamples distinct texts of failures it
	// matches, redacted once more (report.Sample).
	Samples []string `json:"samples"`
}

// RuleChange is one way a rule changes recorded failures.
type RuleChange struct {
	// From is the recorded class, To the rule's.
	From work.Class `json:"from_class"`
	To   work.Class `json:"to_class"`
	// Before and After are the decisions the profile makes for From and
	// for the rule's classification (DecisionSummary).
	Before string `json:"before"`
	After  string `json:"after"`
	// Count counts the failures.
	Count int `json:"count"`
}

// TestRules weighs set's rules against log as the functions would have
// (docs/design.md "Operator rules"): each failure as the log kept it — its
// provider, stage, status, code and text (store.LogEntry.Evidence) — is
// matched by the rules in file order, and the first that matches
// decides it (failure.ClassifyWith). The decision before is the profile's
// for the recorded class at the recorded attempt, with no delay asked
// for (the error log keeps the class, not the upstream's Retry-After); the
// decision after is the profile's for the rule's classification, its
// delay included. Decisions are jitter-free (the largest delay).
func TestRules(set *rules.Set, log []LoggedFailure, profile *policy.Profile) RulesTest {
	out := RulesTest{Failures: len(log), Profile: profile.Name}
	if set == nil {
		return out
	}
	out.Source = set.Source
	type key struct {
		from, to      work.Class
		before, after string
	}
	counts := make([]map[key]int, len(set.Rules))
	out.Rules = make([]RuleEffect, len(set.Rules))
	for i, r := range set.Rules {
		out.Rules[i] = RuleEffect{Rule: r.Name, Line: r.Line, Class: r.Class, Changes: []RuleChange{}, Samples: []string{}}
		counts[i] = map[key]int{}
	}
	byStage := *set
	for _, f := range log {
		err := f.entry().Evidence()
		byStage.Stage = f.Stage
		r := byStage.Match(failure.FactsOf(err))
		if r == nil {
			out.Unmatched++
			continue
		}
		i := slices.IndexFunc(set.Rules, func(x rules.Rule) bool { return x.Name == r.Name })
		out.Matched++
		now := f.OccurredAt
		attempt := max(f.Attempt, 1)
		before := DecisionSummary(profile.Decide(policy.Input{Stage: f.Stage, Failure: failure.Of(f.Class, "recorded"), Attempt: attempt, Now: now}))
		cl := failure.ClassifyWith(&byStage, err)
		after := DecisionSummary(profile.Decide(policy.Input{Stage: f.Stage, Failure: cl, Attempt: attempt, Now: now}))
		e := &out.Rules[i]
		e.Matched++
		if cl.Class != f.Class {
			e.Reclassified++
		}
		if before != after {
			e.DecisionChanged++
		}
		counts[i][key{f.Class, cl.Class, before, after}]++
		if s := report.Sample(f.Message); len(e.Samples) < MaxRuleSamples && s != "" && !slices.Contains(e.Samples, s) {
			e.Samples = append(e.Samples, s)
		}
	}
	for i := range out.Rules {
		for k, n := range counts[i] {
			out.Rules[i].Changes = append(out.Rules[i].Changes, RuleChange{From: k.from, To: k.to, Before: k.before, After: k.after, Count: n})
		}
		slices.SortFunc(out.Rules[i].Changes, func(a, b RuleChange) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.From, b.From), cmp.Compare(a.Before, b.Before), cmp.Compare(a.After, b.After))
		})
	}
	return out
}

// DecisionSummary is a decision in a few words, without the attempt it
// was made at, so that failures at different attempts and times group:
// "retry ≤30s, 5 attempts", "wait, no attempt spent", "dead-letter
// (permanent)", "dead-letter (5 attempts spent)".
func DecisionSummary(d policy.Decision) string {
	switch d := d.(type) {
	case policy.Retry:
		return fmt.Sprintf("retry ≤%s, %s", d.Max.Round(time.Millisecond), attempts(d.MaxAttempts))
	case policy.Wait:
		// A wait lasts until its limit resets (the budget's day, a quota's
		// window): its length depends on when the failure happened.
		return "wait, no attempt spent"
	case policy.DeadLetter:
		if d.Exhausted {
			return fmt.Sprintf("dead-letter (%d attempts spent)", d.MaxAttempts)
		}
		return "dead-letter (permanent)"
	}
	return "-"
}

func attempts(n int) string {
	switch n {
	case 0:
		return "unlimited attempts"
	case 1:
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
