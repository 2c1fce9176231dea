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
// twin applies the same rules:
//
//	count     closed → closed       ADD consecutive_failures 1
//	          IF (state absent OR state = closed) AND (count absent OR count < threshold-1)
//	trip      closed → open         ADD consecutive_failures 1, opens 1; SET state = open, open_until = now+OpenFor
//	          IF (state absent OR state = closed) AND NOT (count absent OR count < threshold-1)
//	reset     closed → closed       SET consecutive_failures = 0
//	          IF state = closed AND consecutive_failures > 0
//	probe     open → half_open      SET state = half_open, probe_owner = :me, probe_until = now+ProbeLease
//	          IF (state = open AND open_until <= now) OR (state = half_open AND probe_until <= now)
//	close     half_open → closed    SET state = closed, consecutive_failures = 0
//	          IF state = half_open AND probe_owner = :me
//	reopen    half_open → open      SET state = open, open_until = now+OpenFor; ADD opens 1
//	          IF state = half_open AND probe_owner = :me
//	release   half_open → open      SET state = open, open_until = now (the next caller may probe)
//	          IF state = half_open AND probe_owner = :me
//	operator  any → closed          IF attribute_exists(service)   (triage breakers reset)
//
// "Half-open" is reached lazily: an open breaker whose open_until has passed
// lets exactly one caller win the probe lease (the conditional write above);
// everyone else keeps waiting. A probe whose holder died expires after
// ProbeLease and can be taken over.
//
// # What counts
//
// Only an outage trips a breaker: NETWORK_TIMEOUT and UPSTREAM_UNAVAILABLE
// (DefaultTrips). RATE_LIMITED does not: a 429 is the service answering and
// asking this caller to slow down — a quota, which the retry policy honours
// per item through Retry-After — not an outage; opening a fleet-wide breaker
// on it would stop all traffic for five minutes when the provider asked for
// seconds, and a burst of 429s from one noisy item would punish every other.
// A 429 neither counts nor resets the count, and a probe that gets one closes
// the breaker (the service is reachable). Errors that say nothing about the
// service (a closed gate, our own deadline, a bad input, our own bug) are
// neutral; any other answer (a 4xx, invalid model output) is the service
// working, and resets the count.
//
// # Cost
//
// Breakers caches each service's record for CacheTTL (2 s), so the closed
// path costs no DynamoDB read per call, and a success writes only when the
// cached count is non-zero. While a breaker is open callers get a
// *failure.WaitError until it may be probed, without calling the upstream:
// the stage runner releases the item without spending an attempt.
package breaker
