package policy_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

func BenchmarkDecide(b *testing.B) {
	p := policy.Standard()
	in := policy.Input{
		Stage:   work.LLM,
		Failure: failure.Of(work.RateLimited, "openai code rate_limit_exceeded (HTTP 429)"),
		Attempt: 3,
		Now:     time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC),
		Rand:    func() float64 { return 0.5 },
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := p.Decide(in).(policy.Retry); !ok {
			b.Fatal("not a retry")
		}
	}
}
