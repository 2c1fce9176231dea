package policy

import "time"

// Trip is when a shared record of an upstream's health trips, and for how
// long: a circuit breaker opens after Failures consecutive outage failures
// of its service and stays open For before a probe (docs/design.md "Circuit
// breakers"); a model is disabled after Failures consecutive model-specific
// failures and comes back once its last failure is For old (docs/design.md
// "Model health"). Both records take their thresholds in this one shape.
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

// BreakerTrip is a circuit breaker's: 5 outage failures in a row open it
// for BreakerOpenFor; a probe that succeeds closes it clean.
var BreakerTrip = Trip{Failures: 5, For: BreakerOpenFor}

// ModelTrip is model health's: 5 model-specific failures in a row disable
// a model; the recovery function re-enables it once its last failure is an
// hour old, at a count of 2, so three more failures disable it again.
var ModelTrip = Trip{Failures: 5, For: time.Hour, ResetTo: 2}

// OpenAtOnce is the run of failures that opens a breaker for a failure
// whose effect is Opens (an exhausted quota): the first, whatever the
// breaker's Trip.
const OpenAtOnce = 1
