package runner

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
)

// Notices tells an item's owner about its failures (package notice; its
// Sender). The runner calls it at two points only — after a dead letter is
// durable, after a retry is recorded — and it decides from the item's
// notice choices whether to send anything: nothing, and no request, for an
// item that asked for none.
type Notices interface {
	// DeadLettered is called once the item's dead letter is on the DLQ, with
	// the failure as recorded and the dead letter's id. An error keeps the
	// record: its redelivery finds the item dead-lettered and calls again,
	// without sending the dead letter again.
	DeadLettered(ctx context.Context, it store.Item, le store.LastError, deadLetterID string) error
	// RetryScheduled is called once a failure that spent an attempt is
	// recorded with its next attempt (le.RetryAt; le.RetryCount is the
	// attempt that failed). An error is logged and counted; the retry goes
	// on.
	RetryScheduled(ctx context.Context, it store.Item, le store.LastError) error
}

// noticeFailed tells the owner of a dead-lettered item, once the hand-off o
// made the dead letter durable. A failed enqueue keeps the record
// (notice_unsent), visible again after a backoff on its receive count; near
// the queue's redrive backstop the notice is given up, logged and counted,
// so that the backstop never moves the record to the DLQ as a raw message.
func (b *batch) noticeFailed(ctx context.Context, log *slog.Logger, msg events.SQSMessage, it store.Item, le store.LastError,
	p deadletter.Payload, o outcome) outcome {
	r := b.r
	if r.Notices == nil || !o.ack || o.kind != "dead_letter" {
		return o
	}
	err := r.Notices.DeadLettered(ctx, it, le, p.SanitizedContext.DeadLetterID)
	if err == nil {
		return o
	}
	r.metrics().Count(MetricNoticeSendErrors, r.Stage, le.ErrorClass, 1)
	rc := receiveCount(msg)
	if r.holding().GivesUpNotice(rc) {
		log.Error("enqueueing the owner's item.failed notice failed near the redrive backstop; notice abandoned (the dead letter is durable)",
			"error", redact.String(err.Error()))
		return o
	}
	log.Error("enqueueing the owner's item.failed notice failed; record kept, its redelivery enqueues it (the dead letter is durable)",
		"error", redact.String(err.Error()))
	return outcome{visibility: r.unrecordedHold(rc), kind: "notice_unsent"}
}

// renotice is the redelivery of the record that dead-lettered the item (it
// carries the item): the dead letter is durable, so only the owner's notice
// is enqueued again — at least once; the notice's idempotency key and ledger
// absorb a duplicate.
func (b *batch) renotice(ctx context.Context, log *slog.Logger, msg events.SQSMessage, cur store.Item) outcome {
	r := b.r
	le := store.LastError{Component: r.Stage}
	if cur.LastError != nil {
		le = *cur.LastError
	}
	id := ""
	if cur.DeadLetter != nil {
		id = cur.DeadLetter.ID
	}
	p := deadletter.Payload{SanitizedContext: deadletter.Context{DeadLetterID: id}}
	o := b.noticeFailed(ctx, log, msg, cur, le, p, outcome{ack: true, kind: "dead_letter"})
	if o.ack {
		r.metrics().Count(MetricDuplicates, r.Stage, "", 1)
		log.Info("redelivery of the dead-lettering record: the owner's notice enqueued again; acknowledged")
		o.kind = "duplicate_renotice"
	}
	return o
}

// noticeRetry tells the owner that a failure that spent attempt n is
// scheduled for another; a failed enqueue is logged and counted only.
func (rec *record) noticeRetry(ctx context.Context, log *slog.Logger, le store.LastError, n int) {
	r := rec.b.r
	if r.Notices == nil {
		return
	}
	le.RetryCount = n
	if err := r.Notices.RetryScheduled(ctx, rec.item, le); err != nil {
		log.Error("enqueueing the owner's item.retry_scheduled notice failed; the retry goes on", "error", redact.String(err.Error()))
		r.metrics().Count(MetricNoticeSendErrors, r.Stage, le.ErrorClass, 1)
	}
}
