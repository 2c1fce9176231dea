package scheduler_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/work"
)

// TestQuotaGateProbesOncePerWaitPeriod: a provider's exhausted quota opens
// its breaker at 09:00 and lasts until 12:00. While its gate is closed one
// probe per wait period reaches the provider — 09:05, 09:10, 09:20, 09:40,
// then on the hour (policy.Profile.QuotaProbeAt: each failed probe reopens
// the breaker until the next), not one per 5-minute breaker window; the
// probe is the scheduler's released waiter or an arriving caller, whichever
// comes first; a caller arriving in between is refused
// without calling; no other waiter goes until a probe succeeds, and the
// ramp releases them from the next run. Time is the injected clock, one
// scheduler run a minute, a caller arriving half a minute after each run.
func TestQuotaGateProbesOncePerWaitPeriod(t *testing.T) {
	t.Parallel()
	b := setupGates(t)
	ctx := context.Background()
	const svc = "api.llm.example"
	g := gates.New(gates.Quota, svc)
	quotaEnds := t0.Add(3 * time.Hour)
	exhausted := &failure.HTTPError{Provider: failure.OpenAI, Op: "chat", Status: 429,
		Body: []byte(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)}
	// The stage's side: its breaker over the same store, uncached.
	stage := &breaker.Breakers{Store: b.breakers, Clock: b.clock, Stage: work.LLM, CacheTTL: -1}
	var calls, intoQuota, refused int
	var probesAt []time.Time
	call := func(token string) {
		t.Helper()
		tk, err := stage.AllowProbe(ctx, svc, token)
		if err != nil {
			if !errors.Is(err, failure.ErrWaiting) {
				t.Fatalf("allow: %v", err)
			}
			if behind, _ := gates.Of(err); behind != g {
				t.Fatalf("a refused call waits behind %q, want %q", behind, g)
			}
			refused++
			return
		}
		calls++
		var answer error
		if now := b.clock.Now(); now.Before(quotaEnds) {
			intoQuota++
			answer = exhausted
			if tk.Probe {
				probesAt = append(probesAt, now)
			}
		}
		_ = stage.Done(ctx, tk, answer)
	}
	call("") // the call that meets the quota opens the breaker
	b.park(t, g, 20)

	released := 0
	for range 3*60 + 3 {
		b.clock.Advance(time.Minute)
		b.run(t, "r")
		for _, e := range b.sqs.take() {
			if token := attr(e, gates.AttrProbe); token != "" {
				call(token)
				continue
			}
			if b.clock.Now().Before(quotaEnds) {
				t.Fatalf("%s: a waiter released while the quota is exhausted", b.clock.Now().Format(time.TimeOnly))
			}
			released++
		}
		b.clock.Advance(30 * time.Second)
		call("")
		b.clock.Advance(-30 * time.Second)
	}

	var at []string
	for _, p := range probesAt {
		at = append(at, p.Format("15:04"))
	}
	t.Logf("%d calls into the exhausted quota, probes at %v; %d callers refused; %d waiters released after it", intoQuota, at, refused, released)
	want := []string{"09:05", "09:10", "09:20", "09:40", "10:00", "11:00"}
	if len(at) != len(want) {
		t.Fatalf("probes into the exhausted quota at %v, want %v: one per wait period", at, want)
	}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("probes into the exhausted quota at %v, want %v: one per wait period", at, want)
		}
	}
	if intoQuota != 1+len(want) {
		t.Errorf("%d calls into the exhausted quota, want %d: the call that met it and the probes", intoQuota, 1+len(want))
	}
	if r, _ := b.breakers.Get(ctx, svc); r.State != breaker.Closed || !r.ClosedAt.Equal(quotaEnds) {
		t.Errorf("breaker %s closed at %s, want closed by the 12:00 probe", r.State, r.ClosedAt.Format(time.TimeOnly))
	}
	if released == 0 {
		t.Error("no waiter released after the quota returned")
	}
}

// TestModelsGateWaitsOutAQuotaProvidersPeriod: a model chain's gate whose
// provider's quota is exhausted releases its probe when the provider's
// breaker says so — after two failed probes, at the end of the quota's wait
// period (09:20, policy.Profile.QuotaProbeAt), not at the next 5-minute
// window (09:15).
func TestModelsGateWaitsOutAQuotaProvidersPeriod(t *testing.T) {
	t.Parallel()
	b := setupGates(t)
	ctx := context.Background()
	b.sched.Checkers[gates.Models] = scheduler.Models{Store: b.models, Breakers: b.breakers}
	const svc = "llm:openai"
	exhausted := &failure.HTTPError{Provider: failure.OpenAI, Op: "chat", Status: 429,
		Body: []byte(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)}
	stage := &breaker.Breakers{Store: b.breakers, Clock: b.clock, Stage: work.LLM, CacheTTL: -1}
	tk, err := stage.Allow(ctx, svc)
	if err != nil {
		t.Fatal(err)
	}
	_ = stage.Done(ctx, tk, exhausted)
	// Two probes find the quota still exhausted, at 09:05 and 09:10.
	for range 2 {
		b.clock.Advance(5 * time.Minute)
		tk, err := stage.Allow(ctx, svc)
		if err != nil || !tk.Probe {
			t.Fatalf("%s: %+v, %v; want the probe", b.clock.Now().Format(time.TimeOnly), tk, err)
		}
		_ = stage.Done(ctx, tk, exhausted)
	}
	g := gates.New(gates.Models, "a,b")
	b.park(t, g, 3)
	b.clock.Advance(5 * time.Minute)
	if res := b.run(t, "r1"); res.Probes != 0 || len(b.sqs.take()) != 0 {
		t.Fatalf("09:15: %+v, want nobody released", res)
	}
	if r, _ := b.breakers.Get(ctx, svc); r.State != breaker.Open || !r.OpenUntil.Equal(t0.Add(20*time.Minute)) {
		t.Fatalf("breaker %s until %s; want open until 09:20", r.State, r.OpenUntil.Format(time.TimeOnly))
	}
	b.clock.Advance(4 * time.Minute)
	if res := b.run(t, "r2"); res.Probes != 0 {
		t.Fatalf("09:19: %+v, want nobody released", res)
	}
	b.clock.Advance(time.Minute)
	res := b.run(t, "r3")
	if sent := b.sqs.take(); res.Probes != 1 || len(sent) != 1 || attr(sent[0], gates.AttrProbe) == "" {
		t.Fatalf("09:20: %+v, sent %d; want the period's probe released", res, len(sent))
	}
}
