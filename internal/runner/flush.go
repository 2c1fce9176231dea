package runner

import (
	"context"
	"iter"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/redact"
)

// maxBatchEntries is SQS's limit on entries per batch call.
const maxBatchEntries = 10

// finish makes the batch's outcomes durable and reports the records to
// keep: successes are forwarded (SendMessageBatch) before they are
// acknowledged — a failed forward keeps the record —, and every kept record
// gets its decided visibility (ChangeMessageVisibilityBatch).
func (b *batch) finish() events.SQSEventResponse {
	ctx, cancel := b.finishing()
	defer cancel()
	b.forward(ctx)
	b.changeVisibility(ctx)
	var resp events.SQSEventResponse
	counts := map[string]int{}
	for i, o := range b.outcomes {
		counts[o.kind]++
		if !o.ack {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: b.records[i].MessageId})
		}
	}
	attrs := []any{"records", len(b.records), "kept", len(resp.BatchItemFailures)}
	for k, n := range counts {
		attrs = append(attrs, "n_"+k, n)
	}
	b.log.Info("batch done", attrs...)
	if b.r.AfterBatch != nil {
		b.r.AfterBatch(ctx, b.log)
	}
	return resp
}

func (b *batch) forward(ctx context.Context) {
	for chunk := range b.batches(func(o outcome) bool { return o.forward != nil }) {
		entries := make([]sqstypes.SendMessageBatchRequestEntry, len(chunk))
		for j, i := range chunk {
			entries[j] = sqstypes.SendMessageBatchRequestEntry{
				Id:          aws.String(strconv.Itoa(i)),
				MessageBody: aws.String(b.outcomes[i].forward.Encode()),
			}
		}
		out, err := b.r.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(b.r.NextQueueURL), Entries: entries})
		if err != nil {
			b.log.Error("forward to the next stage failed; records kept for redelivery", "records", len(chunk),
				"error", redact.String(err.Error()))
			for _, i := range chunk {
				b.keep(i, "forward_failed")
			}
			continue
		}
		for _, f := range out.Failed {
			i, err := strconv.Atoi(aws.ToString(f.Id))
			if err != nil || i < 0 || i >= len(b.outcomes) {
				continue
			}
			b.log.Error("forward to the next stage failed for a record; kept for redelivery",
				"message_id", b.records[i].MessageId, "code", aws.ToString(f.Code))
			b.keep(i, "forward_failed")
		}
	}
}

// batches yields the indexes of the outcomes that match, in SQS batch
// requests' sizes (maxBatchEntries).
func (b *batch) batches(match func(outcome) bool) iter.Seq[[]int] {
	var idx []int
	for i, o := range b.outcomes {
		if match(o) {
			idx = append(idx, i)
		}
	}
	return slices.Chunk(idx, maxBatchEntries)
}

// keep turns an acknowledged outcome into a kept one whose redelivery will
// complete it (a duplicate-of-finished-work that re-forwards). It backs off
// on the record's receive count (policy.Holding.Unrecorded), as every
// outcome not yet durable does, so a send outage does not spend the redrive
// backstop's receives: the backstop's message of an item already queued at
// the next stage would be superseded, and the item left with no message.
func (b *batch) keep(i int, kind string) {
	b.outcomes[i] = outcome{visibility: b.r.unrecordedHold(receiveCount(b.records[i])), kind: kind}
}

func (b *batch) changeVisibility(ctx context.Context) {
	for chunk := range b.batches(func(o outcome) bool { return !o.ack }) {
		entries := make([]sqstypes.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for j, i := range chunk {
			entries[j] = sqstypes.ChangeMessageVisibilityBatchRequestEntry{
				Id:                aws.String(strconv.Itoa(i)),
				ReceiptHandle:     aws.String(b.records[i].ReceiptHandle),
				VisibilityTimeout: visibilitySeconds(b.outcomes[i].visibility),
			}
		}
		out, err := b.r.SQS.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{
			QueueUrl: aws.String(b.r.QueueURL), Entries: entries,
		})
		// A failed visibility change loses nothing: the record reappears
		// after the queue's default visibility instead of the decided delay.
		if err != nil {
			b.log.Error("visibility change failed; records reappear after the queue default", "records", len(chunk),
				"error", redact.String(err.Error()))
			b.r.metrics().Count(MetricVisibilityErrors, b.r.Stage, "", len(chunk))
			continue
		}
		for _, f := range out.Failed {
			// Ids and codes only: an entry's message can quote its receipt
			// handle.
			attrs := []any{"entry", aws.ToString(f.Id), "code", aws.ToString(f.Code), "sender_fault", f.SenderFault}
			if i, err := strconv.Atoi(aws.ToString(f.Id)); err == nil && i >= 0 && i < len(b.records) {
				attrs = append(attrs, "message_id", b.records[i].MessageId)
			}
			b.log.Warn("visibility change failed for a record; it reappears after the queue default", attrs...)
			b.r.metrics().Count(MetricVisibilityErrors, b.r.Stage, "", 1)
		}
	}
}

// Accessors applying defaults.

func (r *Runner) concurrency() int {
	return orDefault(r.Concurrency, DefaultConcurrency)
}

func (r *Runner) safetyMargin() time.Duration {
	return orDefault(r.SafetyMargin, DefaultSafetyMargin)
}

func (r *Runner) minRecordTime() time.Duration {
	return orDefault(r.MinRecordTime, DefaultMinRecordTime)
}

func (r *Runner) resendDelay() time.Duration {
	return orDefault(r.ResendDelay, DefaultResendDelay)
}

// unrecordedHold is how long a record whose outcome is not yet durable
// stays in its queue: policy.Holding.Unrecorded on its receive count rc,
// never less than resendDelay.
func (r *Runner) unrecordedHold(rc int) time.Duration {
	return max(r.holding().Unrecorded(rc, r.rand()()), r.resendDelay())
}

// orDefault is v when it is set (positive), else def.
func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
