package policy_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

func ExampleProfile_Decide() {
	p, err := policy.Lookup("standard")
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 5, 1, 18, 30, 0, 0, time.UTC)
	half := func() float64 { return 0.5 } // a fixed draw makes the jitter reproducible

	// A 429 asking for 30 s, on the llm stage's 2nd attempt: the backoff
	// draws 1 s from [0, 2 s], so the upstream's 30 s wins.
	rate := failure.Classify(&failure.HTTPError{
		Provider: failure.OpenAI,
		Status:   http.StatusTooManyRequests,
		Header:   http.Header{"Retry-After": {"30"}},
		Body:     []byte(`{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}}`),
	})
	d := p.Decide(policy.Input{Stage: work.LLM, Failure: rate, Attempt: 2, Now: now, Rand: half})
	if r, ok := d.(policy.Retry); ok {
		fmt.Println("retry in", r.Delay)
	}
	fmt.Println(d.Reason())

	// Unparseable model output for the 3rd time: RESPONSE_INVALID allows 3.
	invalid := failure.Classify(failure.New(work.ResponseInvalid, "completion is not valid JSON"))
	d = p.Decide(policy.Input{Stage: work.LLM, Failure: invalid, Attempt: 3, Now: now, Rand: half})
	fmt.Printf("%T: %s\n", d, d.Reason())

	// Triage's own daily budget is spent: wait for 00:00 UTC, no attempt spent.
	budget := failure.Classify(&failure.Error{Class: work.BudgetExceeded, Reason: "daily budget spent", SelfImposed: true})
	d = p.Decide(policy.Input{Stage: work.LLM, Failure: budget, Attempt: 1, Now: now, Rand: half})
	fmt.Printf("%T: %s\n", d, d.Reason())
	// Output:
	// retry in 30s
	// RATE_LIMITED is retryable: attempt 2 of 5, retry in 30s (exponential 1s×2 ≤1m0s full jitter, upstream asked for 30s)
	// policy.DeadLetter: RESPONSE_INVALID exhausted 3 of 3 attempts
	// policy.Wait: wait until 2026-05-02T00:00:00Z without spending an attempt: daily budget resets at 00:00 UTC
}
