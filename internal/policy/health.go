package policy

import "time"

// Trip is when a shared record of an upstream's health trips, and for how
// long: a circuit breaker opens after Failures consecutive outage failures
// of its service and stays open For before a probe (docs/design.md "Circuit
// breakers"); a model is disabled after Failures consecutive model-specific
// failures and comes back once its last failure is For old (docs/design.md
// "Model health"). The policy states both records' thresholds in this one
// shape, and `triage policy show` prints them together.
type Trip struct {
	// Failures is the run of consecutive failures that trips the record.
	Failures int
	// For is how long a tripped record stays tripped before it is tried
	// again: a breaker's open window, a disabled model's cooldown.
	For time.Duration
	// ResetTo is the failure count a record that came back restarts from
	// (zero: a clean slate); with Failures, how many more failures trip it
	// again.
	ResetTo int
}

// The trips' numbers (BreakerTrip, ModelTrip), as constants for the stores'
// defaults.
const (
	// BreakerFailures is the run of outage failures that opens a breaker.
	BreakerFailures = 5
	// ModelFailures is the run of model-specific failures that disables a
	// model.
	ModelFailures = 5
	// ModelCooldown is how old a disabled model's last failure must be
	// before the recovery function re-enables it.
	ModelCooldown = time.Hour
	// ModelResetTo is the failure count a re-enabled model restarts from.
	ModelResetTo = 2
)

// BreakerTrip is a circuit breaker's: BreakerFailures outage failures in a
// row open it for BreakerOpenFor; a probe that succeeds closes it clean.
func BreakerTrip() Trip { return Trip{Failures: BreakerFailures, For: BreakerOpenFor} }

// ModelTrip is model health's: ModelFailures model-specific failures in a
// row disable a model; the recovery function re-enables it once its last
// failure is ModelCooldown old, at a count of ModelResetTo, so three more
// failures disable it again.
func ModelTrip() Trip {
	return Trip{Failures: ModelFailures, For: ModelCooldown, ResetTo: ModelResetTo}
}

// OpenAtOnce is the run of failures that opens a breaker for a failure
// whose effect is Opens (an exhausted quota): the first, whatever the
// breaker's Trip.
const OpenAtOnce = 1
