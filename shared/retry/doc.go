// Package retry decides what happens after a classified failure: retry after
// a delay, dead-letter, or wait without spending an attempt.
//
// Policies are data. A Profile is a table with one Policy per class (is it
// retryable, does it spend an attempt, how many attempts a stage gets, which
// Backoff schedule), optionally overridden per stage, plus the cap on delays
// an upstream asks for. Three profiles ship: "standard" (the default),
// "daily-batch" and "predictions"; Lookup selects one by name.
//
// Schedules are pure: Base is the jitter-free schedule, Bounds the jitter
// range, and Delay draws from it with a random number the caller supplies.
// Decide is a pure function of its Input — stage, classification, the
// attempt that just failed, the time and a random source — so every decision
// can be reproduced from a log line, simulated, or backtested.
package retry
