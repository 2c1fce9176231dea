package simulate

import (
	"fmt"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/policy"
)

// Kind is how a policy handles a failure.
type Kind string

const (
	// KindTriage is triage itself: the real runner.Runner with a retry
	// profile from internal/policy, over store.Memory and the simulated SQS.
	KindTriage Kind = "triage"
	// KindNaiveRedrive is a handler with no classification: every failure is
	// returned to the queue, which makes it visible again after a fixed
	// visibility timeout, until the queue's redrive policy moves it to the
	// DLQ at its maxReceiveCount.
	KindNaiveRedrive Kind = "naive-redrive"
	// KindSDKRetries retries inside the invocation, like an SDK's built-in
	// retries (status-based: 408, 409, 429, 5xx and transport errors), then
	// sends the item to the DLQ.
	KindSDKRetries Kind = "sdk-retries"
)

// Policy is one way of handling failures that the simulator compares. Only
// KindTriage policies run triage's code; the baselines are modelled here.
type Policy struct {
	// Name identifies the policy in scenarios, flags and reports.
	Name string `json:"name"`
	// Description says what the policy does, for reports.
	Description string `json:"description"`
	// Kind selects the handler.
	Kind Kind `json:"kind"`
	// Profile names the retry profile of a KindTriage policy (policy.Lookup).
	Profile string `json:"profile,omitempty"`
	// Breakers guards every upstream of a KindTriage policy with the shared
	// circuit breakers of internal/gates/breaker, as deployed (docs/design.md "Circuit
	// breakers").
	Breakers bool `json:"breakers,omitempty"`
}

// Parameters of the baselines.
const (
	// NaiveVisibility is the naive baseline's fixed visibility timeout.
	NaiveVisibility = 30 * time.Second
	// NaiveMaxReceives is the naive baseline's redrive maxReceiveCount.
	NaiveMaxReceives = 5
	// NaiveTimeout is the naive baseline's function timeout: Lambda refuses
	// an event source whose queue's visibility timeout is shorter than the
	// function's timeout, so a 30 s visibility means at most 30 s.
	NaiveTimeout = 30 * time.Second
	// SDKRetries is how many times the SDK-retry baseline retries a call
	// inside the invocation.
	SDKRetries = 2
	// SDKBackoff is the SDK-retry baseline's first backoff; retry n waits a
	// uniform draw from [SDKBackoff×2^(n−1), SDKBackoff×2^n]: 100–200 ms,
	// then 200–400 ms.
	SDKBackoff = 100 * time.Millisecond
	// SDKMaxReceives is the SDK-retry baseline queue's redrive
	// maxReceiveCount, a backstop for records an invocation did not reach.
	SDKMaxReceives = 5
	// TriageBackstopReceives is the maxReceiveCount of triage's queues
	// (template.yaml BackstopMaxReceiveCount).
	TriageBackstopReceives = 50
)

var policies = []Policy{
	{Name: "standard", Kind: KindTriage, Profile: "standard", Breakers: true,
		Description: "triage, standard profile: full-jitter exponential 1s×2 ≤60s, Retry-After honoured, circuit breakers"},
	{Name: "predictions", Kind: KindTriage, Profile: "predictions", Breakers: true,
		Description: "triage, predictions profile: per-class schedules, circuit breakers"},
	{Name: "daily-batch", Kind: KindTriage, Profile: "daily-batch", Breakers: true,
		Description: "triage, daily-batch profile: 24 h rate-limit and 12 h network cooldowns, circuit breakers"},
	{Name: "standard-no-breakers", Kind: KindTriage, Profile: "standard",
		Description: "triage, standard profile without circuit breakers (ablation)"},
	{Name: "naive-redrive", Kind: KindNaiveRedrive,
		Description: "no classification: every failure is retried by SQS (30 s visibility) until the 5th receive, then redriven to the DLQ"},
	{Name: "sdk-retries", Kind: KindSDKRetries,
		Description: "2 in-process SDK-style retries (100–400 ms), then the item is sent to the DLQ"},
}

// Policies returns every policy the simulator knows, triage's first.
func Policies() []Policy { return append([]Policy(nil), policies...) }

// LookupPolicy returns the policy called name.
func LookupPolicy(name string) (Policy, error) {
	for _, p := range policies {
		if p.Name == name {
			if p.Kind == KindTriage {
				if _, err := policy.Lookup(p.Profile); err != nil {
					return Policy{}, err
				}
			}
			return p, nil
		}
	}
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = p.Name
	}
	return Policy{}, fmt.Errorf("unknown policy %q (want one of %s)", name, strings.Join(names, ", "))
}
