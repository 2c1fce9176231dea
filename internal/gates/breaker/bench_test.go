package breaker_test

import (
	"context"
	"testing"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates/breaker"
)

// BenchmarkClosedPath is the per-call cost of a guarded call to a healthy
// service: Allow and Done served from the cache (no store access).
func BenchmarkClosedPath(b *testing.B) {
	ctx := context.Background()
	br := &breaker.Breakers{Store: breaker.NewMemory(), Clock: clock.NewStub(t0)}
	b.ReportAllocs()
	for b.Loop() {
		t, err := br.Allow(ctx, "api.openai.com")
		if err != nil {
			b.Fatal(err)
		}
		br.Done(ctx, t, nil)
	}
}

// BenchmarkOpenPath is the cost of refusing a call while the breaker is
// open (from the cache).
func BenchmarkOpenPath(b *testing.B) {
	ctx := context.Background()
	br := &breaker.Breakers{Store: breaker.NewMemory(), Clock: clock.NewStub(t0)}
	for range breaker.DefaultThreshold {
		t, _ := br.Allow(ctx, "api.openai.com")
		br.Done(ctx, t, unavailable)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := br.Allow(ctx, "api.openai.com"); err == nil {
			b.Fatal("allowed while open")
		}
	}
}
