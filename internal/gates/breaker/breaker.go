package breaker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// State is where a breaker is.
type State string

const (
	// Closed lets every call through and counts consecutive failures.
	Closed State = "closed"
	// Open refuses every call until OpenUntil, after which one caller may
	// take the probe lease.
	Open State = "open"
	// HalfOpen is a probe in flight: its holder calls the upstream, everyone
	// else waits.
	HalfOpen State = "half_open"
)

// Defaults of the breaker rules: the thresholds are the policy's
// (policy.BreakerTrip; docs/design.md "Circuit breakers").
const (
	// DefaultThreshold is how many consecutive outage failures open a
	// breaker.
	DefaultThreshold = policy.BreakerFailures
	// DefaultOpenFor is how long a breaker stays open before a probe,
	// which its callers wait out.
	DefaultOpenFor = policy.BreakerOpenFor
	// DefaultQuotaOpenFor is how long a breaker stays open after the
	// provider answered that its quota is exhausted, when the answer asks
	// for no longer: as long as for an outage. Its waiters are parked, so
	// a short window costs one probe per window, and a quota restored
	// (credit added, a plan raised) is found within minutes.
	DefaultQuotaOpenFor = DefaultOpenFor
	// DefaultProbeLease bounds a probe: after it, another caller may take
	// the lease over (its holder is presumed dead). It exceeds the LLM
	// client's 60 s timeout.
	DefaultProbeLease = 2 * time.Minute
	// DefaultCacheTTL is how long Breakers trusts its in-process copy of a
	// breaker.
	DefaultCacheTTL = 2 * time.Second
)

// Who closed a breaker (Record.ClosedBy) when it was not a probe.
const (
	// ByOperator marks `triage breakers reset`.
	ByOperator = "operator"
)

// ErrNotFound is returned by Store.Get and Store.Reset for a service with no
// breaker record: it has never failed, and is closed.
var ErrNotFound = errors.New("breaker not found")

// ErrConflict is what every lost conditional write matches (errors.Is);
// the concrete error is a *ConflictError carrying the record as it was.
var ErrConflict = errors.New("breaker conditional write conflict")

// ConflictError is a transition whose condition failed. Current is the
// record the condition saw (nil when the service has no record).
type ConflictError struct {
	// Service and Op name the breaker and the transition.
	Service, Op string
	// Current is the record as the failed condition saw it.
	Current *Record
}

// Error names the transition and the state it met.
func (e *ConflictError) Error() string {
	if e.Current == nil {
		return fmt.Sprintf("breaker %s: %s: no record", e.Service, e.Op)
	}
	return fmt.Sprintf("breaker %s: %s: breaker is %s", e.Service, e.Op, e.Current.State)
}

// Is matches ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Record is one service's breaker.
type Record struct {
	// Service is the upstream (the table's key), e.g. "api.openai.com".
	Service string `json:"service"`
	// State is Closed, Open or HalfOpen.
	State State `json:"state"`
	// ConsecutiveFailures counts outage failures since the last success
	// while closed.
	ConsecutiveFailures int `json:"consecutive_failures"`
	// OpenedAt is when the breaker last opened (or reopened after a failed
	// probe); OpenUntil is when it may be probed.
	OpenedAt  time.Time `json:"opened_at,omitzero"`
	OpenUntil time.Time `json:"open_until,omitzero"`
	// ProbeOwner and ProbeUntil are the probe lease while half-open.
	ProbeOwner string    `json:"probe_owner,omitempty"`
	ProbeUntil time.Time `json:"probe_until,omitzero"`
	// ClosedAt is when the breaker last closed; ClosedBy the probe owner or
	// ByOperator.
	ClosedAt time.Time `json:"closed_at,omitzero"`
	ClosedBy string    `json:"closed_by,omitempty"`
	// DrainingUntil and DrainingGate: the scheduler is releasing the
	// waiters of DrainingGate onto this (closed) breaker's service in a
	// ramp; until then new callers queue behind that gate instead of
	// competing with the ramp (see Breakers.Allow).
	DrainingUntil time.Time  `json:"draining_until,omitzero"`
	DrainingGate  gates.Name `json:"draining_gate,omitempty"`
	// LastFailureAt and LastErrorType describe the last outage failure.
	LastFailureAt time.Time  `json:"last_failure_at,omitzero"`
	LastErrorType work.Class `json:"last_error_type,omitempty"`
	// Opens counts how often the breaker opened, probes that failed included.
	Opens int `json:"opens"`
	// Reopens counts the probes that failed in a row since the breaker last
	// closed: each grows its next open window (policy.Probing.Interval).
	Reopens int `json:"reopens,omitempty"`
	// Generation numbers the breaker's windows: every transition that opens
	// or closes it (a trip, a failed probe, a successful probe, an
	// operator's reset) starts a new one. A call's outcome counts only in
	// the window it started in (as sony/gobreaker's generation), so a
	// failure of a call made before a trip-and-close cycle does not count
	// toward the next trip.
	Generation int64 `json:"generation"`
	// UpdatedAt is the time of the last write.
	UpdatedAt time.Time `json:"updated_at,omitzero"`

	openedBy string
}

// FailureRequest records one outage failure of a closed breaker.
type FailureRequest struct {
	// Service is the upstream. Required.
	Service string
	// Class is the failure's class.
	Class work.Class
	// At is the failure time.
	At time.Time
	// Threshold opens the breaker; zero or less means DefaultThreshold.
	Threshold int
	// OpenFor is how long it stays open; zero or less means DefaultOpenFor.
	OpenFor time.Duration
	// Token identifies the write, so that a retried request that opened the
	// breaker still reports it; empty means a random one.
	Token string
	// Generation is the window the failed call started in (the Generation
	// of the record its Ticket was issued from): a failure from an older
	// window is not counted.
	Generation int64
}

// FailureResult is what a recorded failure did.
type FailureResult struct {
	// Record is the breaker as the write left it (or found it).
	Record Record
	// Counted is false when the breaker was not closed: a failure of a call
	// that started before it opened changes nothing.
	Counted bool
	// Opened is true only for the write that opened the breaker.
	Opened bool
}

// ProbeRequest asks for the probe lease.
type ProbeRequest struct {
	// Service is the upstream. Required.
	Service string
	// Owner identifies the caller; it must be unique per attempt.
	Owner string
	// Now is the time of the request.
	Now time.Time
	// Lease bounds the probe; zero or less means DefaultProbeLease.
	Lease time.Duration
}

// Store is where breakers live: *Dynamo in production, *Memory in tests and
// demos; one conformance suite runs against both. Transitions that lose their
// condition return a *ConflictError.
type Store interface {
	// Get returns the service's breaker, or ErrNotFound.
	Get(ctx context.Context, service string) (Record, error)
	// List returns every breaker, sorted by service.
	List(ctx context.Context) ([]Record, error)
	// RecordFailure counts an outage failure of a closed breaker and opens
	// it, in the same update, when the count reaches the threshold. A
	// breaker that is not closed is left alone (Counted false).
	RecordFailure(ctx context.Context, req FailureRequest) (FailureResult, error)
	// ResetFailures sets a closed breaker's count to zero, if the breaker is
	// still in window generation; changed is false when there was nothing to
	// reset.
	ResetFailures(ctx context.Context, service string, generation int64, now time.Time) (changed bool, err error)
	// AcquireProbe takes the probe lease of an open breaker whose OpenUntil
	// has passed (or of a half-open one whose lease expired): of any number
	// of concurrent callers, exactly one wins.
	AcquireProbe(ctx context.Context, req ProbeRequest) (Record, error)
	// CloseProbe closes the breaker after owner's probe succeeded.
	CloseProbe(ctx context.Context, service, owner string, now time.Time) (Record, error)
	// ReopenProbe opens the breaker for openFor (zero: DefaultOpenFor) after
	// owner's probe failed with class.
	ReopenProbe(ctx context.Context, service, owner string, class work.Class, now time.Time, openFor time.Duration) (Record, error)
	// ReleaseProbe gives owner's lease back without a verdict: the breaker
	// is open and may be probed at once.
	ReleaseProbe(ctx context.Context, service, owner string, now time.Time) (Record, error)
	// Reset closes the breaker whatever its state (the operator's reset);
	// ErrNotFound when the service has no record.
	Reset(ctx context.Context, service string, now time.Time) (Record, error)
	// SetDraining marks a closed breaker's service as draining g's waiters
	// until `until`; a breaker that is not closed (or has no record) is
	// left alone, with a *ConflictError.
	SetDraining(ctx context.Context, service string, g gates.Name, until, now time.Time) error
}

func threshold(n int) int {
	if n <= 0 {
		return DefaultThreshold
	}
	return n
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// GateOf returns the gate that callers refused by r wait behind: the
// service's quota when the provider's exhausted quota opened it
// (LastErrorType BUDGET_EXCEEDED), else its breaker.
func GateOf(r Record) gates.Name {
	if r.LastErrorType == work.BudgetExceeded {
		return gates.New(gates.Quota, r.Service)
	}
	return gates.New(gates.Breaker, r.Service)
}

// AnsweredAt is when r's upstream last answered someone as far as the
// breaker knows: the close of its last successful probe (an operator's
// reset is no answer); zero when none is known.
func AnsweredAt(r Record) time.Time {
	if r.ClosedBy == "" || r.ClosedBy == ByOperator {
		return time.Time{}
	}
	return r.ClosedAt
}

// ProbeDue reports whether r may be probed at now: open past OpenUntil, or
// half-open with an expired probe lease.
func ProbeDue(r Record, now time.Time) bool { return probeDue(r, now) }

// probeDue reports whether r may be probed at now.
func probeDue(r Record, now time.Time) bool {
	switch r.State {
	case Open:
		return !r.OpenUntil.After(now)
	case HalfOpen:
		return !r.ProbeUntil.After(now)
	}
	return false
}
