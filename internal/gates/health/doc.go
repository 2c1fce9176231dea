// Package health keeps each model's health in DynamoDB so that every Lambda
// instance of the llm stage takes a bad model out of rotation at once
// (model-specific failure classification and automated recovery). A model
// is keyed as the chain names it, "provider:model" (internal/gates/fallback.Entry):
// the same model at two providers has two records.
//
// # What counts
//
// Only model-specific failures count: the classes whose
// work.Class.ModelSpecific is true (RESPONSE_INVALID, CLIENT_ERROR). A
// rate limit, a timeout or a 5xx says something about the provider, not the
// model; Tracker logs them and writes nothing. A model-specific failure
// joins the shared count when it is part of a streak on the instance that
// saw it that is also most of the instance's calls of the model: its last
// two calls failed and more than half of its last 10 did. Then the run
// since its last success is written, and each later failure at once.
// Isolated failures spread over many instances, and the pairs and triples
// a model answering 15% of its calls badly makes at volume, never reach
// the model's key. A broken model fails every call, so every instance's
// streak counts: it is disabled within the number of instances plus three
// failures (plus four on an instance whose last 10 calls succeeded). A streak
// counts distinct items: an item that fails again within the model's
// current streak (its retries, on any instance) is a repeat of its own
// failure and writes nothing, so a poison item retried on every model
// disables none of them; the record keeps the streak's items in a string
// set, streak_items, that a success, a recovery and an enable remove. A
// success resets the shared count to zero: the count is of consecutive
// failures across every llm instance, so a success reads the record when
// this process's view of it may be stale (older than the cache TTL, 5 s),
// and writes only when the count is not zero. A healthy model costs at most
// one read per instance every 5 s and no write, whatever the rate of
// successes, and a model failing 2.5% of 10,000 calls a second a few writes
// a second: its key is not hot (docs/scale.md).
//
// # Transitions
//
// Every change is one conditional UpdateItem; the condition expressions are
// in dynamo.go and the Memory twin applies the same rules:
//
//	failure (count)     ADD consecutive_failures 1, streak_items {item}
//	                    if the item is not in streak_items and the failure is not the disabling one:
//	                    (count absent OR count < threshold-1) OR disabled = true
//	failure (disable)   ADD consecutive_failures 1, SET disabled = true, disabled_at, disabled_by = "auto"
//	                    if NOT (count absent OR count < threshold-1) AND (disabled absent OR disabled = false)
//	success             SET consecutive_failures = 0
//	                    if count > 0 AND disabled = false
//	recover             SET disabled = false, consecutive_failures = ResetTo (2), recovered_at
//	                    if disabled = true AND disabled_by = "auto" AND last_failure_at <= now - Cooldown
//	enable / disable    operator overrides (triage models enable|disable)
//
// The two failure updates partition the states, so exactly one of them
// applies to any record: the failure that makes the count reach the
// threshold is the one that disables the model, in the same atomic update,
// and concurrent writers produce exactly one disable event. Both carry the
// write's token in a string set (write_tokens) guarded by NOT contains, so an
// SDK retry of a write that was applied but whose response was lost is
// recognised instead of counted twice.
//
// # Recovery
//
// Recover (run by cmd/recovery every 30 minutes) re-enables every
// auto-disabled model whose last failure is at least Cooldown (1 h) old, with
// the count set to ResetTo (2): three more model-specific failures disable it
// again. Models an operator disabled stay disabled until an operator enables
// them.
package health
