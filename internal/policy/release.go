package policy

import "time"

// DLQReleaseCall bounds one ChangeMessageVisibilityBatch call that makes
// visible again up to ten DLQ messages a replay, a resolve or a listing held
// while it read its DLQs. Each call has its own bound: a slow or failed
// call leaves its own messages to their visibility timeout, never the
// calls after it.
const DLQReleaseCall = 5 * time.Second

// OutlivingWrite bounds one store or queue call that outlives its caller's
// cancellation so that an outcome is not lost — a breaker's verdict or a
// probe's release, a notice's settle in the ledger, a notice's visibility
// change — so that a store or queue that hangs cannot hold the invocation.
const OutlivingWrite = 5 * time.Second

// UndeadlinedBatch bounds a batch's bookkeeping writes and its last SQS
// calls when the invocation has no deadline (tests, local tools); in Lambda
// they end just before the invocation's deadline.
const UndeadlinedBatch = 30 * time.Second
