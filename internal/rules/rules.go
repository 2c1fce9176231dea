package rules

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// Rule is one rule of a file: what it matches and what it says. A field
// that is empty matches every failure; the fields given must all match,
// and a field with several values matches any of them.
type Rule struct {
	// Name names the rule in every classification it makes ("rule
	// NAME"): letters, digits, '.', '_' and '-', unique in its file.
	Name string
	// Line is the rule's line in its file (1-based).
	Line int
	// Description is the operator's note; it decides nothing.
	Description string
	// Providers are the upstreams' names, folded (case, '-', '_', '.',
	// '/' and spaces do not matter): "together-ai" is "TogetherAI".
	Providers []string
	// Stages are the stages that met the failure.
	Stages []work.Stage
	// Statuses are HTTP statuses and ranges ("4xx" is 400–499).
	Statuses []failure.StatusRange
	// Codes are error codes, matched against every code of the failure
	// (failure.Facts.Codes), ignoring case.
	Codes []string
	// Pattern is a regular expression (RE2) matched against the
	// provider's message, the answer's body and the error's text.
	Pattern *regexp.Regexp
	// Class is the class a failure the rule matches has.
	Class work.Class
	// Delay, when positive, is the delay to wait, as an upstream's
	// Retry-After would ask (the retry profile caps it).
	Delay time.Duration
}

// Matches reports whether f is a failure r matches.
func (r *Rule) Matches(f failure.Facts) bool {
	if len(r.Providers) > 0 && !slices.Contains(r.Providers, fold(string(f.Provider))) {
		return false
	}
	if len(r.Stages) > 0 && !slices.Contains(r.Stages, f.Stage) {
		return false
	}
	if len(r.Statuses) > 0 {
		found := false
		for _, sr := range r.Statuses {
			found = found || f.Status >= sr.From && f.Status <= sr.To
		}
		if !found {
			return false
		}
	}
	if len(r.Codes) > 0 {
		found := false
		for _, want := range r.Codes {
			for _, c := range f.Codes {
				found = found || strings.EqualFold(c, want)
			}
		}
		if !found {
			return false
		}
	}
	if r.Pattern != nil && !r.Pattern.MatchString(f.Message) && !r.Pattern.MatchString(f.Body) && !r.Pattern.MatchString(f.Text) {
		return false
	}
	return true
}

// Set is a file's rules in file order: a failure.Rule whose first rule
// that matches decides. The zero Set matches nothing.
type Set struct {
	// Rules are the rules, in file order.
	Rules []Rule
	// Source names where the rules were read from (a path, "ssm:NAME").
	Source string
	// Stage is the stage of the process that classifies: a failure whose
	// facts name no stage (an AWS SDK's error, triage's own) was met
	// there, and a rule's stages match it. Empty in a process of no
	// stage (the CLI, which takes each failure's stage from its input).
	Stage work.Stage
}

// Len is the number of rules; a nil Set has none.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Rules)
}

// Match returns the first rule that matches f, or nil. A failure that
// names no stage was met at s.Stage.
func (s *Set) Match(f failure.Facts) *Rule {
	if s.Len() == 0 {
		return nil
	}
	if f.Stage == "" {
		f.Stage = s.Stage
	}
	for i := range s.Rules {
		if s.Rules[i].Matches(f) {
			return &s.Rules[i]
		}
	}
	return nil
}

// Classify is the classification of err by its first rule that matches:
// the rule's class and delay, the reason naming it (failure.ByRule); ok is
// false when no rule matches. It reads err's facts once (failure.FactsOf),
// and only when s has rules.
func (s *Set) Classify(err error) (failure.Classification, bool) {
	if s.Len() == 0 || err == nil {
		return failure.Classification{}, false
	}
	r := s.Match(failure.FactsOf(err))
	if r == nil {
		return failure.Classification{}, false
	}
	return failure.ByRule(r.Name, r.Class, r.Delay), true
}

// fold is a provider's name as KnownProviders folds it: ASCII lower case,
// without '-', '_', '.', '/' or spaces.
func fold(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c == '-' || c == '_' || c == '.' || c == '/' || c == ' ':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
