package store

import (
	"errors"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// Suspect is an item's run of provider-wide failures at one upstream: calls
// whose failure tripped the upstream's breaker, met it opening, or failed
// as its probe, and so made the item wait behind it. It is the item's half
// of the evidence the decision table's blame rows read (policy.Blames,
// docs/design.md "A failure that follows one item"); the breaker's record
// is the other half. A stage's success removes it (Complete), as a replay
// does.
type Suspect struct {
	// Service is the upstream's breaker key ("llm:openai", a host).
	Service string `dynamodbav:"service" json:"service"`
	// Class is the class of the run's failures; Count how many in a row.
	Class work.Class `dynamodbav:"class" json:"class"`
	Count int        `dynamodbav:"count" json:"count"`
	// Probes counts the breaker probes the item served and failed, at this
	// upstream, whatever their class: the scheduler prefers waiters that
	// served fewer, and the decision table bounds them.
	Probes int `dynamodbav:"probes,omitempty" json:"probes,omitempty"`
	// First and Last are the times of the run's first and last failures.
	First time.Time `dynamodbav:"first" json:"first"`
	Last  time.Time `dynamodbav:"last" json:"last"`
	// Judged is true once a failure of the run was judged the item's own:
	// later ones of the class at the upstream are too, and none counts
	// toward the breaker.
	Judged bool `dynamodbav:"judged,omitempty" json:"judged,omitempty"`
}

// MaxServiceBytes bounds a suspect record's service (a breaker key: a
// host name with its port, or "llm:<provider>").
const MaxServiceBytes = 300

// bound cuts the record's strings to their bounds.
func (s Suspect) bound() Suspect {
	s.Service = work.Prefix(s.Service, MaxServiceBytes)
	s.Class = work.Class(work.Prefix(string(s.Class), MaxErrorFieldBytes))
	return s
}

// SuspectError attaches the item's updated suspect record to the outcome of
// its call — the wait a provider-wide failure puts it in, or the failure
// judged its own — so the runner records it with that outcome, in the same
// write. It unwraps to the outcome.
type SuspectError struct {
	Err     error
	Suspect Suspect
}

// Error returns the wrapped error's text.
func (e *SuspectError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *SuspectError) Unwrap() error { return e.Err }

// WithSuspect attaches s to err; nil stays nil.
func WithSuspect(err error, s Suspect) error {
	if err == nil {
		return nil
	}
	return &SuspectError{Err: err, Suspect: s}
}

// SuspectOf returns the suspect record err carries (the outermost), nil
// when it carries none.
func SuspectOf(err error) *Suspect {
	var se *SuspectError
	if errors.As(err, &se) {
		s := se.Suspect
		return &s
	}
	return nil
}
