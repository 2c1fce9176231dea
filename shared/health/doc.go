// Package health keeps each model's health in DynamoDB so that every Lambda
// instance of the llm stage takes a bad model out of rotation at once
// (model-specific failure classification and automated recovery). A model
// is keyed as the chain names it, "provider:model" (shared/fallback.Entry):
// the same model at two providers has two records.
//
// # What counts
//
// Only model-specific failures count: the classes whose
// failure.Class.ModelSpecific is true (RESPONSE_INVALID, CLIENT_ERROR). A
// rate limit, a timeout or a 5xx says something about the provider, not the
// model; Tracker logs them and writes nothing. A success resets the shared
// count to zero: the count is of consecutive failures across every llm
// instance, so a success reads the record unless this process already knows
// the count is not zero, and writes only when it is not (a healthy model
// costs a read per success, no write).
//
// # Transitions
//
// Every change is one conditional UpdateItem; the condition expressions are
// in dynamo.go and the Memory twin applies the same rules:
//
//	failure (count)     ADD consecutive_failures 1
//	                    if the failure is not the disabling one:
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
// Recover (run by functions/recovery every 30 minutes) re-enables every
// auto-disabled model whose last failure is at least Cooldown (1 h) old, with
// the count set to ResetTo (2): three more model-specific failures disable it
// again. Models an operator disabled stay disabled until an operator enables
// them.
package health
