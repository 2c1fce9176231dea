// Package ledger keeps an item's audit trail in the Audit table: one record
// per execution of an action task, and one per failure notice told to the
// item's owner. Both expire after Retention (the error log's 30 days)
// through DynamoDB TTL, and `triage items get` reads them back, with the
// error log and the item, as the item's timeline (Timeline).
//
// # Executions
//
// An action task is executed by the llm stage: the model carries the task
// out and reports ACTION_OUTCOME. Work wraps the stage's work and writes one
// Execution per run of an action item — the outcome (success, failed with
// the model's reason, a provider error, nothing askable), the model, the
// duration and the attempt — with one PutItem, after the run and before the
// runner records its outcome. Other kinds cost nothing: no request at all.
// The record's key is the run's start and its delivery, so an SDK retry of
// the put overwrites itself. A failed write is logged; it never changes
// the run's outcome.
//
// # Notices
//
// A notice's record is its delivery ledger (package notice): keyed by the
// notice's idempotency key, claimed with a lease before each POST and
// settled after it, with one conditional UpdateItem each. The ledger is what
// makes the notice's retries bounded whatever the queue does (attempts are
// counted here, not by the message's receive count) and what keeps a
// duplicate message from posting a delivered notice again:
//
//	absent ──claim──▶ sending ──delivered──▶ delivered
//	                    │  ▲
//	          failure,  │  │ claim when due, or when the
//	       attempts left▼  │ holder's lease has run out
//	                  pending
//	sending ──permanent failure, or the last attempt──▶ abandoned
//
// Every write carries a token (last_write), so a write the SDK retried after
// it had been applied is recognised as applied, as in package store.
package ledger
