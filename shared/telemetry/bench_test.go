package telemetry_test

import (
	"io"
	"testing"

	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/telemetry"
)

// BenchmarkEMFCount is the cost of one counter increment.
func BenchmarkEMFCount(b *testing.B) {
	e := telemetry.NewEMF(io.Discard, "triage", clock.NewStub(t0))
	b.ReportAllocs()
	for b.Loop() {
		e.Count(stage.MetricFailures, pipeline.LLM, failure.RateLimited, 1)
	}
}

// BenchmarkEMFBatch is one batch of ten records' counters and its flush:
// the per-invocation cost of the metrics.
func BenchmarkEMFBatch(b *testing.B) {
	e := telemetry.NewEMF(io.Discard, "triage", clock.NewStub(t0))
	b.ReportAllocs()
	for b.Loop() {
		for range 7 {
			e.Count(stage.MetricSuccesses, pipeline.LLM, "", 1)
		}
		for range 3 {
			e.Count(stage.MetricFailures, pipeline.LLM, failure.RateLimited, 1)
			e.Count(stage.MetricRetries, pipeline.LLM, failure.RateLimited, 1)
		}
		if err := e.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
