package telemetry_test

import (
	"io"
	"testing"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// BenchmarkEMFCount is the cost of one counter increment.
func BenchmarkEMFCount(b *testing.B) {
	e := telemetry.NewEMF(io.Discard, "triage", clock.NewStub(t0))
	b.ReportAllocs()
	for b.Loop() {
		e.Count(runner.MetricFailures, work.LLM, work.RateLimited, 1)
	}
}

// BenchmarkEMFBatch is one batch of ten records' counters and its flush:
// the per-invocation cost of the metrics.
func BenchmarkEMFBatch(b *testing.B) {
	e := telemetry.NewEMF(io.Discard, "triage", clock.NewStub(t0))
	b.ReportAllocs()
	for b.Loop() {
		for range 7 {
			e.Count(runner.MetricSuccesses, work.LLM, "", 1)
		}
		for range 3 {
			e.Count(runner.MetricFailures, work.LLM, work.RateLimited, 1)
			e.Count(runner.MetricRetries, work.LLM, work.RateLimited, 1)
		}
		if err := e.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
