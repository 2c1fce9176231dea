// Package stage is the runner: it owns one SQS record's life in a stage
// function (fetch, llm, notify), from its receive to its durable outcome,
// and it acknowledges a record only once that outcome is durable
// (docs/design.md "One record, step by step").
//
// Runner.Handle takes one batch. Each record, at most Concurrency at once,
// is decoded — a pipeline envelope, or on the first stage a producer's item
// spec, whose item the runner creates; a malformed body is dead-lettered
// SCHEMA_INVALID and the batch goes on — and its item is claimed for the
// stage under a lease owned by that delivery. A claim that loses is settled
// by the lost-claim table, without calling the upstream ("Claim conflicts");
// a store that cannot be reached keeps the record, backing off on its
// receive count, with nothing counted ("Waits and parking": "A store that
// cannot be reached"). The claimed item goes to the stage's Work (a panic in
// it is an INTERNAL_BUG of that record alone), and the runner carries out
// what follows:
//
//   - a success is completed on the item and forwarded to the next stage's
//     queue, and acknowledged only after the forward;
//   - a failure is classified and decided by the retry profile (Decide):
//     a retry spends an attempt and waits its backoff; a dead letter marks
//     the item failed, sends the redacted payload to the stage's DLQ, then
//     confirms it on the item and tells the owner when asked, and the record
//     stays until all of that is durable, so that its redelivery completes
//     the hand-off without calling the upstream again ("Dead letters");
//   - a wait — a retry's backoff, a Retry-After, a closed gate such as an
//     open breaker, no usable model, a spent budget or a provider's quota —
//     is one hold, executed in one place: through the record's visibility,
//     or parked for the scheduler when the retry profile's Holding says so
//     ("Waits and parking").
//
// Every failure is appended to the error log. At the end of the batch the
// forwards are sent and each kept record gets its decided visibility;
// records that could not get MinRecordTime before the invocation's deadline
// (less SafetyMargin) are returned at once, unprocessed, with nothing spent.
// Handle never returns an error, since Lambda would then retry the whole
// batch, finished records included.
//
// Start and NewRunner build a stage function's Runner from its environment
// (Env); Work and WithBodies are what a stage plugs in.
package runner
