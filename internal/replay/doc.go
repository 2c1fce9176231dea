// Package replay is triage's operator replay: it reads the stages'
// dead-letter queues (or the Items table), selects dead letters with a
// filter, and replays each one from the stage that failed (or from fetch, a
// full restart), item by item, with a note and lineage.
//
// For each selected dead letter, in this order:
//
//  1. one conditional UpdateItem (store.Items.Replay) moves the item from
//     deadletter (or failed) back to queued at the target stage, resets that
//     stage's attempts, increments replay_count and appends a replay record
//     (time, note, who, mode, class, dead letter);
//  2. the envelope, with its work.Replay lineage, goes to the stage
//     queue;
//  3. the DLQ message is deleted.
//
// A crash between any two steps loses nothing and replays nothing twice: a
// replay written but not sent is recognised by the next run
// (store.Item.PendingReplay, matched on the dead letter's dead_letter_id or
// its DLQ message id; a replay from item state, which has neither, by any
// DLQ message of its item) and its envelope sent; a message sent but not
// deleted is, on the next run, a duplicate of a replayed dead letter —
// deleted and counted as skipped.
//
// The filter is applied to the payloads triage writes (deadletter.Payload)
// and to raw messages that a queue's own redrive backstop moved after
// maxReceiveCount receives: their body is a pipeline envelope — or, on the
// fetch DLQ, the producer's spec, marked by SQS's DeadLetterQueueSourceArn —
// and their item is not dead-lettered but stuck (queued, retryable, or
// working under an expired lease) or, for a spec, perhaps never created: then
// the spec is submitted again as it was written. An item failed at that
// stage, its dead letter decided but never confirmed on the DLQ, is not
// resumed: the dead letter it records is sent to the stage's DLQ and
// confirmed before the message is deleted. A spec its sender put on
// the DLQ (a Scheduler run) is never sent on its own (docs/design.md "Waits
// and parking"). Messages not selected are released (visibility 0) when
// the run has read their DLQ, untouched, each batch of ten with its own
// time bound (policy.DLQReleaseCall); every message stays invisible while
// the run reads its DLQ, and the run reads each DLQ once, so one run never
// sees a message twice.
//
// Replays from item state (Source "items") need no DLQ message: items in
// deadletter or failed (enrichment_status permanent_failure) are replayed
// by id or by a filter over the Items table's sparse by-listed-state index — the manual
// retry for a permanent failure whose dead letter has expired. Nothing but
// the run sends such a replay, so its envelopes go ten at a time as it
// goes, and those written go even when the run is cancelled; it stops
// writing while its deadline leaves time to send them.
//
// The redrive Lambda takes a Request as its event; the triage CLI calls the
// same Replayer against any endpoint.
package replay
