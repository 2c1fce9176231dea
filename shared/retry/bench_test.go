package retry_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/retry"
)

func BenchmarkDecide(b *testing.B) {
	p := retry.Standard()
	in := retry.Input{
		Stage:   pipeline.LLM,
		Failure: failure.Of(failure.RateLimited, "openai code rate_limit_exceeded (HTTP 429)"),
		Attempt: 3,
		Now:     time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC),
		Rand:    func() float64 { return 0.5 },
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := p.Decide(in).(retry.Retry); !ok {
			b.Fatal("not a retry")
		}
	}
}
