package health

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// Defaults of the health rules: the thresholds are the policy's
// (policy.ModelTrip; docs/design.md "Model health").
const (
	// DefaultThreshold is how many consecutive model-specific failures
	// disable a model.
	DefaultThreshold = policy.ModelFailures
	// DefaultCooldown is how old a disabled model's last failure must be
	// before Recover re-enables it.
	DefaultCooldown = policy.ModelCooldown
	// DefaultResetTo is the count a recovered model restarts from.
	DefaultResetTo = policy.ModelResetTo
	// DefaultCacheTTL is how long Tracker trusts its in-process view of a
	// model before reading the store again.
	DefaultCacheTTL = 5 * time.Second
)

// Who disabled a model (Model.DisabledBy).
const (
	// ByAuto marks a model disabled by its failures; Recover re-enables it.
	ByAuto = "auto"
	// ByOperator marks a model disabled (or enabled) by an operator; Recover
	// leaves it alone.
	ByOperator = "operator"
	// ByRecovery marks a model re-enabled by Recover (Model.RecoveredBy).
	ByRecovery = "recovery"
)

// ErrNotFound is returned by Store.Get for a model that has no health record
// yet: it has never failed, and counts as healthy.
var ErrNotFound = errors.New("model health not found")

// ErrConflict is returned when a conditional write lost: the record is not
// in the state the write required (Recover on a model that is not due, a
// failure write that kept losing races). Match it with errors.Is.
var ErrConflict = errors.New("model health conditional write conflict")

// Model is one model's health.
type Model struct {
	// Name is the model as the llm stage asks for it (the table's key).
	Name string `json:"model"`
	// ConsecutiveFailures counts model-specific failures since the last
	// success (or since recovery, which restarts it at ResetTo).
	ConsecutiveFailures int `json:"consecutive_failures"`
	// Disabled is true while the chain must skip the model.
	Disabled bool `json:"disabled"`
	// DisabledBy is ByAuto or ByOperator; empty when never disabled.
	DisabledBy string `json:"disabled_by,omitempty"`
	// DisabledAt is when the model was last disabled; zero if never.
	DisabledAt time.Time `json:"disabled_at,omitzero"`
	// DisableReason says why, for operators.
	DisableReason string `json:"disable_reason,omitempty"`
	// RecoveredAt is when the model was last re-enabled; zero if never.
	RecoveredAt time.Time `json:"recovered_at,omitzero"`
	// RecoveredBy is ByRecovery or ByOperator.
	RecoveredBy string `json:"recovered_by,omitempty"`
	// LastFailureAt is the time of the last counted failure; zero if none.
	LastFailureAt time.Time `json:"last_failure_at,omitzero"`
	// LastErrorType is the class of the last counted failure.
	LastErrorType work.Class `json:"last_error_type,omitempty"`
	// LastError is a short, redaction-safe reason for the last counted
	// failure (a classification reason, never upstream text).
	LastError string `json:"last_error,omitempty"`
	// Disables counts the model's automatic disables and Recoveries the
	// re-enables by Recover, over its lifetime (operator overrides are not
	// counted).
	Disables   int `json:"disables"`
	Recoveries int `json:"recoveries"`
	// UpdatedAt is the time of the last write.
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// ExpectedRecovery is when Recover will consider an auto-disabled model due
// (LastFailureAt + cooldown); ok is false for a model that is enabled,
// disabled by an operator, or has no failure time.
func (m Model) ExpectedRecovery(cooldown time.Duration) (t time.Time, ok bool) {
	if !m.Disabled || m.DisabledBy != ByAuto || m.LastFailureAt.IsZero() {
		return time.Time{}, false
	}
	return m.LastFailureAt.Add(cooldown), true
}

// FailureRequest records one model-specific failure.
type FailureRequest struct {
	// Model is the model that failed. Required.
	Model string
	// Class is the failure's class; the store counts whatever it is given
	// (Tracker filters out classes that are not model-specific).
	Class work.Class
	// Reason is a short, redaction-safe explanation, stored as last_error.
	Reason string
	// At is the failure time.
	At time.Time
	// Threshold is the count that disables the model; zero or less means
	// DefaultThreshold.
	Threshold int
	// Item is the item whose call failed: a streak counts distinct items,
	// so an item already in the model's current streak is a repeat of its
	// own failure and is not counted again. Empty counts every failure.
	Item string
	// Token identifies this write so that a retried request is not counted
	// twice; empty means a random one.
	Token string
}

// FailureResult is what a recorded failure did.
type FailureResult struct {
	// Model is the record as the write left it.
	Model Model
	// Disabled is true only for the write that disabled the model: of any
	// number of concurrent failures, exactly one reports it.
	Disabled bool
	// Repeat is true when the item had already failed in the model's
	// current streak: nothing was written.
	Repeat bool
}

// RecoverRequest re-enables one auto-disabled model.
type RecoverRequest struct {
	// Model is the model to recover. Required.
	Model string
	// Now is the recovery time.
	Now time.Time
	// Cooldown: the model's last failure must be at or before Now-Cooldown.
	// Zero or less means DefaultCooldown.
	Cooldown time.Duration
	// ResetTo is the count the model restarts from; zero means
	// DefaultResetTo (2), negative a full reset to zero.
	ResetTo int
}

// Store is where model health lives: *Dynamo in production, *Memory in
// tests and demos. Both apply the same rules (see the package
// documentation) and pass one conformance suite.
type Store interface {
	// Get returns the model's record, or ErrNotFound.
	Get(ctx context.Context, model string) (Model, error)
	// List returns every record, sorted by name.
	List(ctx context.Context) ([]Model, error)
	// RecordFailure counts one failure — unless req.Item is already in the
	// model's current streak (Repeat) — and disables the model in the same
	// atomic update when the count reaches the threshold.
	RecordFailure(ctx context.Context, req FailureRequest) (FailureResult, error)
	// ResetFailures sets the count of an enabled model to zero; changed is
	// false when it was zero already (or the model is disabled or unknown).
	ResetFailures(ctx context.Context, model string, now time.Time) (changed bool, err error)
	// Recover re-enables an auto-disabled model whose cooldown has passed,
	// with the count set to req.ResetTo; ErrConflict when it is not due,
	// not disabled or disabled by an operator; ErrNotFound when unknown.
	Recover(ctx context.Context, req RecoverRequest) (Model, error)
	// SetDisabled is the operator override: disable (DisabledBy ByOperator,
	// kept until an operator enables it) or enable (count reset to zero),
	// creating the record if needed.
	SetDisabled(ctx context.Context, model string, disabled bool, reason string, now time.Time) (Model, error)
}

func threshold(n int) int {
	if n <= 0 {
		return DefaultThreshold
	}
	return n
}

func cooldown(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultCooldown
	}
	return d
}

func resetTo(n int) int {
	switch {
	case n == 0:
		return DefaultResetTo
	case n < 0:
		return 0
	}
	return n
}

// disableReason is the reason stored on an automatic disable.
func disableReason(threshold int, class work.Class) string {
	return "auto-disabled after " + strconv.Itoa(threshold) + " consecutive model-specific failures (last " + string(class) + ")"
}
