package stage

import (
	"io"
	"log/slog"
	"math/rand/v2"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
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
)

// Metrics receives the runner's counters. Class is empty for counters that
// are not about a failure.
type Metrics interface {
	Count(name string, stage pipeline.Stage, class failure.Class, n int)
}

type noMetrics struct{}

func (noMetrics) Count(string, pipeline.Stage, failure.Class, int) {}

func (r *Runner) metrics() Metrics {
	if r.Metrics == nil {
		return noMetrics{}
	}
	return r.Metrics
}

func (r *Runner) profile() *retry.Profile {
	if r.Profile == nil {
		return retry.Standard()
	}
	return r.Profile
}

// holding is the runner's configuration of how records wait.
func (r *Runner) holding() retry.Holding {
	return retry.Holding{MaxVisibility: r.MaxVisibility, ParkAfter: r.ParkAfter, ParkAfterReceives: r.ParkAfterReceives,
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
	if r.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return r.Log
}
