package failure

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// Facts are what a failure says about itself, read the way the classifier
// reads it: the upstream (its name, dialect and role), the stage, the HTTP
// status, the codes from most to least specific, the provider's own
// message, the answer's body and the error's text. An operator rule
// matches on them (docs/design.md "Operator rules"), and a report of the
// failures nothing recognised fingerprints them.
//
// Message, Body and Text are the upstream's words, unredacted: they may
// hold anything an upstream echoed. Redact them before they reach a log, a
// report or a dead letter.
type Facts struct {
	// Provider is who answered, as named ("" when nothing names it).
	Provider Provider `json:"provider,omitempty"`
	// Dialect is the wire format its bodies are read in: one of Dialects
	// for a model endpoint (OpenAI for one whose name is unknown), "" for
	// any other upstream.
	Dialect Provider `json:"dialect,omitempty"`
	// Role is the upstream's role (RoleOf).
	Role Role `json:"role"`
	// Stage is the stage that met the failure, "" when unknown.
	Stage work.Stage `json:"stage,omitempty"`
	// Status is the HTTP status, or zero.
	Status int `json:"status,omitempty"`
	// Codes are the error codes, most specific first (at most 8, each at
	// most 100 bytes).
	Codes []string `json:"codes,omitempty"`
	// Message is the provider's own message, at most MaxFactsMessage bytes.
	Message string `json:"message,omitempty"`
	// Body is the answer's body, at most MaxFactsText bytes.
	Body string `json:"body,omitempty"`
	// Text is the error's text, at most MaxFactsText bytes.
	Text string `json:"text,omitempty"`
}

// Bounds of Facts' free text.
const (
	MaxFactsMessage = 1 << 10
	MaxFactsText    = 16 << 10
)

// FactsOf returns what err says about itself (see Facts); the zero Facts
// (RoleUnknown) for nil. It costs what a classification that reads the
// error's text costs, so a caller that only needs the class calls
// Classify.
func FactsOf(err error) Facts {
	if err == nil {
		return Facts{Role: RoleUnknown}
	}
	var ev evidence
	text := ev.read(err)
	f := Facts{Provider: ev.provider, Role: ev.role(), Stage: ev.stage, Status: ev.status,
		Message: cut(ev.message, MaxFactsMessage), Body: cut(string(ev.raw), MaxFactsText), Text: cut(text, MaxFactsText)}
	if f.Role == RoleModel {
		f.Dialect = ev.provider.Dialect()
		if f.Dialect == "" {
			f.Dialect = OpenAI
		}
	}
	for _, c := range ev.codes[:ev.n] {
		f.Codes = append(f.Codes, truncate(c, maxCodeLen))
	}
	return f
}

// cut bounds s to n bytes on a rune boundary, without a marker: Facts are
// matched, and a marker would be matched too.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// operatorRule holds the rule SetOperatorRule installed.
var operatorRule atomic.Pointer[ruleBox]

type ruleBox struct{ r Rule }

// SetOperatorRule puts r in front of the built-in tables for every
// classification in the process — Classify, Mark and everything
// that calls them (docs/design.md "Operator rules", "Precedence": order 0)
// — and returns the rule it replaces; nil removes it. r is usually a
// Classifier of an operator's rules, each matching FactsOf(err).
//
// Concurrency: the swap is atomic, so it is safe to call while failures
// are classified, but a process sets its rules once, at start, before the
// first failure is classified (functions in main, before lambda.Start;
// `triage classify` before its first line). A failure marked before a swap
// keeps the classification it carries, so rules changed mid-flight would
// give one failure two readings. r is called from many goroutines at once
// and must be safe for that.
//
// A classification r makes is checked and completed: an invalid class is
// no match; the traits are the class's (a rule cannot make AUTH_DENIED
// retryable); the reason names the rule ("rule NAME", see ByRule); the
// provider, status and code are the failure's; the requested delay is the
// rule's, or else the one the upstream asked for. It is never a Default.
func SetOperatorRule(r Rule) (previous Rule) {
	var box *ruleBox
	if r != nil {
		box = &ruleBox{r}
	}
	if old := operatorRule.Swap(box); old != nil {
		return old.r
	}
	return nil
}

// OperatorRule returns the rule SetOperatorRule installed, or nil.
func OperatorRule() Rule {
	if b := operatorRule.Load(); b != nil {
		return b.r
	}
	return nil
}

// ByRule is the classification an operator rule named name makes: class c
// with its traits, the reason "rule NAME", and delay, when positive, as the
// delay asked for (capped by the profile like any other).
func ByRule(name string, c work.Class, delay time.Duration) Classification {
	cl := Of(c, "rule "+name)
	if delay > 0 {
		cl.Requested = Requested{Delay: min(delay, MaxRequestedDelay), Source: "rule " + name}
	}
	return cl
}

// classifyOperator asks the operator's rule, if one is installed.
func classifyOperator(err error) (Classification, bool) {
	b := operatorRule.Load()
	if b == nil {
		return Classification{}, false
	}
	return classifyRule(b.r, err)
}

// classifyRule asks r, and checks and completes what it answers (see
// SetOperatorRule).
func classifyRule(r Rule, err error) (Classification, bool) {
	c, ok := r.Classify(err)
	if !ok || !c.Class.Valid() {
		return Classification{}, false
	}
	out := Of(c.Class, c.Reason)
	if !strings.HasPrefix(out.Reason, "rule ") {
		out.Reason = "rule " + strings.TrimSpace(out.Reason)
	}
	out.SelfImposed = c.SelfImposed
	var ev evidence
	text := ev.read(err)
	if !ev.answered {
		ev.text = text
	}
	out = ev.finish(out)
	if !c.Requested.IsZero() {
		out.Requested = c.Requested
	}
	return out, true
}
