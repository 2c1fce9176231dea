// Package breaker is a circuit breaker per upstream service (each model
// provider of the llm chain, "llm:bedrock"; each webhook host; each article
// host) whose state lives in
// DynamoDB, so that every Lambda instance of every stage sees one breaker
// (closed → open after 5 consecutive failures → half-open after
// 5 minutes with a single probe → closed on its success).
//
// # States and transitions
//
// Every transition is one conditional UpdateItem (dynamo.go); the Memory
// twin applies the same rules. A breaker's generation numbers its windows:
// every trip, reopen and close starts a new one, and a call's outcome counts
// only in the window it started in (the Ticket carries it), as
// sony/gobreaker's generation does — a failure of a call that started
// before a trip-and-close cycle says nothing about the new window.
//
//	count     closed → closed       ADD consecutive_failures 1
//	          IF (state absent OR state = closed) AND generation = :gen AND (count absent OR count < threshold-1)
//	trip      closed → open         ADD consecutive_failures 1, opens 1, generation 1; SET state = open, open_until = now+OpenFor
//	          IF (state absent OR state = closed) AND generation = :gen AND NOT (count absent OR count < threshold-1)
//	quota     closed → open         the trip with threshold 1 and open_until = now+QuotaOpenFor (a provider's exhausted quota)
//	reset     closed → closed       SET consecutive_failures = 0
//	          IF state = closed AND consecutive_failures > 0 AND generation = :gen
//	probe     open → half_open      SET state = half_open, probe_owner = :me, probe_until = now+ProbeLease
//	          IF (state = open AND open_until <= now) OR (state = half_open AND probe_until <= now)
//	close     half_open → closed    SET state = closed, consecutive_failures = 0; ADD generation 1; REMOVE reopens
//	          IF state = half_open AND probe_owner = :me
//	reopen    half_open → open      SET state = open, open_until = now+window; ADD opens 1, reopens 1, generation 1
//	          IF state = half_open AND probe_owner = :me
//	release   half_open → open      SET state = open, open_until = now (the next caller may probe)
//	          IF state = half_open AND probe_owner = :me
//	drain     closed → closed       SET draining_until, draining_gate   IF state = closed
//	operator  any → closed          ADD generation 1; REMOVE reopens   IF attribute_exists(service)   (triage breakers reset)
//
// The probe's holder is either a caller that found the breaker past
// open_until, or a waiter the scheduler released as the probe when every
// waiter of the breaker's gate was parked (internal/scheduler): the scheduler
// takes the lease and the waiter presents it (AllowProbe). A failed probe is
// the system's attempt, not the item's: Done returns a wait behind the
// breaker's gate, and the item parks again without spending an attempt; the
// breaker reopens for a window that grows with each probe that failed in a
// row (policy.Probing.Interval) — for an exhausted quota, until the quota's
// next probe time (policy.Profile.QuotaProbeAt: one probe per wait period,
// whoever makes it). So does the failure that trips the breaker, and one
// that ends after it opened: they are the outage's.
//
// Unless it is the item's: an outage failure is first judged on the item's
// run of such failures (Ticket.Suspect) and the breaker's record (when a
// probe last closed it) by the decision table's blame rows
// (policy.Profile.Blame, docs/design.md "A failure that follows one item"). A
// failure that follows one item — a poison prompt the provider always
// fails, one item's 403 — counts for nothing, releases a probe's lease for
// another waiter, and goes back to the item's stage to be judged by its
// class.
//
// While the scheduler releases a gate's waiters in a ramp, it marks the
// service as draining (drain): a new caller queues behind the gate instead
// of competing with the backlog (a wait behind the draining gate), while a
// released caller goes ahead (AllowReleased). The ramp paces the drain; the
// runner tells the gate of the congestion released calls meet.
//
// "Half-open" is reached lazily: an open breaker whose open_until has passed
// lets exactly one caller win the probe lease (the conditional write above);
// everyone else keeps waiting. A probe whose holder died expires after
// ProbeLease and can be taken over.
//
// # What counts
//
// What a failure tells a breaker is the decision table's breaker column
// (policy.Profile.Breaker, docs/design.md "The decision table"); Done reads
// it for the classification the failure carries. Only an outage trips a
// breaker: NETWORK_TIMEOUT and UPSTREAM_UNAVAILABLE, and in the llm stage
// AUTH_DENIED too (a provider whose key was revoked). RATE_LIMITED does not: a 429 is the service answering and
// asking this caller to slow down — a quota, which the retry policy honours
// per item through Retry-After — not an outage; opening a fleet-wide breaker
// on it would stop all traffic for five minutes when the provider asked for
// seconds, and a burst of 429s from one noisy item would punish every other.
// A 429 neither counts nor resets the count, and a probe that gets one closes
// the breaker (the service is reachable). Errors that say nothing about the
// service (a closed gate, our own deadline, a bad input, our own bug) are
// neutral; any other answer (a 4xx, invalid model output) is the service
// working, and resets the count. A provider's exhausted quota
// (BUDGET_EXCEEDED from the provider, not triage's own budget) opens the
// breaker at once, for as long as the answer asked and at least
// QuotaOpenFor (as long as for an outage): every caller would get the same
// answer, and a probe per window finds the quota restored.
//
// A failure joins the shared count when it is part of a streak on the
// process that saw it: the streak's first failure is written with its
// second, each later one at once. One process alone counts exactly as the
// table above says; an outage fails every call, so every process's streak
// counts and the breaker opens within the number of processes plus three
// failures (instead of five: at 10,000 calls a second a fraction of a
// second); a provider's sporadic failures
// spread over a fleet, each followed by a success on its own process,
// write nothing — at 10,000 calls a second with 3% of them 5xx, counting
// each would make the service's key the hottest of the system.
//
// # Cost
//
// Breakers caches each service's record for CacheTTL (2 s), so the closed
// path costs no DynamoDB read per call, and a success writes only when the
// cached count is non-zero. While a breaker is open callers get its state
// (a *policy.Closed: open until it may be probed), without calling the
// upstream; the policy decides their wait, which spends no attempt.
package breaker
