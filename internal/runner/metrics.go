package runner

import (
	"log/slog"
	"math/rand/v2"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/telemetry"
)

// Metric names the runner counts.
const (
	MetricSuccesses     = "Successes"
	MetricFailures      = "Failures"
	MetricRetries       = "Retries"
	MetricWaits         = "Waits"
	MetricParked        = "Parked"
	MetricDeadLetters   = "DeadLetters"
	MetricEscalations   = "Escalations"
	MetricDuplicates    = "Duplicates"
	MetricStoreErrors   = "StoreErrors"
	MetricDLQSendErrors = "DLQSendErrors"
	// MetricCreated counts items the first stage created from a producer's
	// spec.
	MetricCreated = "Created"
	// MetricUnknownFields counts messages carrying fields this version
	// does not know (accepted; each name is logged once per process).
	MetricUnknownFields = "UnknownFields"
	// MetricNoticeSendErrors counts owner notices the runner could not
	// enqueue (package notice).
	MetricNoticeSendErrors = "NoticeSendErrors"
	// MetricVisibilityErrors counts kept records whose visibility change
	// SQS refused (the call, or the record's entry): each comes back after
	// the queue's default visibility instead of its decided hold.
	MetricVisibilityErrors = "VisibilityErrors"
)

// Metrics receives the runner's counters. Class is empty for counters that
// are not about a failure.
type Metrics = telemetry.Counter

func (r *Runner) metrics() Metrics { return telemetry.CounterOr(r.Metrics) }

func (r *Runner) profile() *policy.Profile {
	if r.Profile == nil {
		return policy.Standard()
	}
	return r.Profile
}

// holding is the runner's configuration of how records wait.
func (r *Runner) holding() policy.Holding {
	return policy.Holding{MaxVisibility: r.MaxVisibility, ParkAfter: r.ParkAfter, ParkAfterReceives: r.ParkAfterReceives,
		BackstopReceives: r.BackstopReceives, StoreOutageTolerance: r.StoreOutageTolerance}
}

// rand returns the injected random source, or math/rand/v2's.
func (r *Runner) rand() func() float64 {
	if r.Rand == nil {
		return rand.Float64
	}
	return r.Rand
}

func (r *Runner) logger() *slog.Logger {
	return telemetry.Or(r.Log)
}
