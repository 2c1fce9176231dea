// Package notice tells an item's owner about its failures: item.failed when
// the item is dead-lettered, item.retry_scheduled when a failure that spent
// an attempt is scheduled for another, each to the item's own webhook as its
// own event type, signed like a delivery and with an idempotency key. The
// owner chooses them in the item's spec (package intake; store.Notices:
// item.failed is on by default for action tasks only).
//
// # Durable, never in the way
//
// The stage runner calls a Sender at two points only: once a dead letter is
// on the DLQ, and once a retry is recorded. The Sender looks at the item's
// choices first — an item that asked for nothing costs no request — and
// enqueues the notice on the notice queue with one SendMessage. A failed
// enqueue of item.failed keeps the runner's record, whose redelivery finds
// the item dead-lettered and enqueues it again (the dead letter itself is
// durable and is not sent again); a failed enqueue of item.retry_scheduled
// is logged and counted, and the retry goes on.
//
// The notify function delivers the queue (Handler) with its own bounded
// retries: each attempt claims the notice in its ledger (package ledger),
// POSTs it, and settles it — delivered, pending until its next attempt (the
// message held through its visibility), or abandoned after a permanent
// refusal or MaxAttempts attempts, logged and counted. Attempts are counted
// in the ledger, not by the message's receive count, and are checked before
// any work, so a notice can never loop, and it never becomes a dead letter.
//
// # Duplicates
//
// Enqueueing is at least once (an SDK retry, a redelivered record). The
// ledger makes the duplicates cheap: a delivered or abandoned notice is
// acknowledged without a POST, and one in flight under another message is
// left to it. The receiver may still see a notice twice when its 2xx was
// lost; the Idempotency-Key, the same on every attempt, lets it drop the
// second: "<item_id>:item.failed:<replays>" (one per dead letter: a replay
// starts a new generation) and
// "<item_id>:item.retry_scheduled:<replays>:<stage>:<attempt>".
//
// # What a notice says
//
// Notice is the body: the event, the item, the stage, the class, the attempt
// and the attempts allowed, the next attempt's time, the dead letter's id,
// and a reason built from the class, the upstream's HTTP status and error
// code, and — for ACTION_FAILED — the model's own reason, redacted. Never
// upstream message text, a URL, a secret or the prompt.
package notice
