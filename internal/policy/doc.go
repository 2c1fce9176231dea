// Package policy is triage's decision table: everything triage decides about
// a classified failure, as data (docs/design.md "The decision table"), and
// printed by `triage policy show`.
//
// A Profile is a table with one Policy per class — is it retryable, does it
// spend an attempt, how many attempts a stage gets, which Backoff schedule,
// what it tells the upstream's circuit breaker (BreakerEffect), whether it
// slows a gate's ramp, sends a released record back behind its gate, puts an
// llm provider out for the item or escalates — optionally overridden per
// stage, plus the cap on delays an upstream asks for. Three profiles ship:
// "standard" (the default), "daily-batch" and "predictions"; Lookup selects
// one by name. Holding decides how a record waits (SQS visibility or
// parked), and LostClaims what a delivery whose claim lost does. Blames is
// whose a provider-wide failure is — the upstream's, or the item's own (a
// poison item) — judged by Profile.Blame on the evidence the item and the
// breaker keep, and a profile's Probing paces a failing breaker's probes
// (docs/design.md "A failure that follows one item").
//
// Work that is not a stage's has rows of its own (CallRows: an owner's
// notice, a producer's send, the command line's AWS calls), decided by
// CallRow.Decide. The policy's other outputs are here too: the dead-letter
// reason of a message with no usable item (Unusable), escalation
// (Escalated), give-up thresholds (Holding.GivesUpNotice, model health's),
// drain limits (DrainUntil, ReleaseDelay) and the pace of a store's batch
// remainder (BatchRemainder). No other package holds a retry constant: a
// test parses the module for them.
//
// Decide turns one outcome into a Retry, a DeadLetter or a Wait, and the
// decision says whether the failure spent an attempt (Decision.Counts):
// that is decided here once, and the runner and the stores read it. Gates'
// providers (breakers, the model chain) report facts — a Closed gate, its
// state, the time it is known closed until — and Decide decides the wait
// behind it (Profile.Reopens: ProbeWait, NoModelWait, GateWaitFloor).
//
// Schedules are pure: Base is the jitter-free schedule, Bounds the jitter
// range, and Delay draws from it with a random number the caller supplies.
// Decide is a pure function of its Input — stage, classification, the
// attempt that just failed, the gates' states, the time and a random source — so
// every decision can be reproduced from a log line, simulated, or
// backtested.
package policy
