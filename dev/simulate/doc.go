// Package simulate is triage's policy simulator: a virtual-clock
// discrete-event simulation that runs triage's real classifier, retry
// profiles, stage runner and circuit breakers over a modelled SQS, Lambda
// and DynamoDB, compares them with baselines on the same seeded workload,
// and measures upstream calls per completed item, wasted calls, recoverable
// items that still failed, completion times, AWS requests and dollars, DLQ
// precision, and the load on every DynamoDB key. `triage simulate` and `make simulate` run
// it; docs/simulation.md is its report. Backtest, the other half of the
// package, replays a recorded error log through a profile; TestRules
// weighs an operator's classification rules against it (`triage rules
// test`).
//
// # What runs
//
// For triage's policies every stage is the real runner.Runner — Handle,
// unchanged — with store.Memory as its item store and error log (the same
// rules as DynamoDB, bodies included), the simulated SQS as its
// runner.Queues, the virtual clock as its Clock, a seeded Rand, and its Work
// wrapped in breaker.Guard with the shared breakers of internal/gates/breaker, and
// for llm and notify in runner.WithBodies. The Work is a simulated upstream
// call that returns what the real clients return (answers.go), so
// failure.Classify and policy.Profile.Decide make every decision; the llm
// stage's also asks a health.Tracker and charges a budget.Pocket, as the
// fallback chain and the budget do. One runner per event-source slot stands
// for one warm Lambda instance; each has its own breaker and model-health
// cache and budget pocket over shared stores. Parked waits are re-enqueued
// by the real scheduler.Scheduler (cmd/scheduler's work) over
// store.Memory's parked store and gates: it probes open breakers through a
// parked waiter and releases each gate's waiters in its ramp
// (docs/design.md "Waits and parking").
//
// # What is measured
//
// Every AWS request the DynamoDB, S3 and SQS code would make is counted and
// priced (usage.go): triage's state item is sized by the real encoder
// (sizes.go), a body goes to a sibling item or S3 by the real threshold
// rule, and index writes are billed. Each DynamoDB request's units are also
// added to every key it touches, per second (keyload.go), against a
// partition's limits; and each stage's event source mapping scales as
// Lambda's does for standard queues, within the account's concurrency.
// Scale runs (scale.go, `triage simulate --scale`) put a scenario's
// workload through triage at a given rate to find the hottest key.
//
// The baselines — naive SQS redrive and in-process SDK-style retries — are
// modelled here (baseline.go); they are not triage's code.
//
// # The workload
//
// A Scenario (scenarios/*.json) gives the items, their arrivals, each
// stage's infrastructure, and its faults: a seeded mix and per-item scripts
// decided per (item, call number) by the fakes' own fakes.Plan — the same
// semantics as dev/fakes, so a scenario can be posted to the fakes of the
// local stack — plus windows (an outage, an exhausted quota) during which
// every call to one upstream fails, an upstream's rate limit (a token
// bucket that answers 429 beyond it) and the llm stage's daily budget
// (counted in calls). Call latencies are a pure function of
// (seed, stage, item, call number). Every policy therefore meets the same
// faults for the same item and call, and a run is deterministic for its
// seed.
//
// # Time
//
// Events — an arrival, an event-source poll, the end of an invocation, a
// scheduler tick — are processed in virtual-time order (ties in creation
// order); every loop is bounded by Scenario.Horizon and Scenario.MaxEvents.
// An invocation runs its whole batch when it starts: the runner runs with
// Concurrency 1, so records go one after another in a fixed order, and the
// lane clock (clock.go) models the deployed in-batch concurrency by placing
// each record on the lane that frees first and adding every upstream call
// and AWS request's latency to that lane. The invocation lasts until its
// slowest lane; its store writes take effect at once, its SQS requests when
// it ends. Virtual time starts at Epoch, in the future, because the runner
// derives real contexts from the invocation's virtual deadline.
//
// # Limits of the model
//
// Another invocation may see a breaker change up to one batch's duration
// early (batches run whole); a call cut off by the invocation's deadline
// counts against the breaker, where the real runner's cancelled context
// makes it neutral. Without a chain, model health is simulated for its
// DynamoDB requests only (a disabled model does not stop calls); a scenario
// whose llm stage names a chain (StageConfig.Chain) runs the real
// fallback.Chain, one breaker per provider, each provider answering in its
// own wire format (providers.go), and there a disabled model stays disabled
// (the recovery function is not simulated). The daily budget's cap binds
// only where a scenario sets one (Scenario.Budget). Queues deliver in
// visibility order, which standard queues only roughly do; the event source
// mapping's empty receives are not billed; S3 never throttles.
package simulate
