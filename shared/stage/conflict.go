package stage

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

// onConflict decides what a delivery whose claim lost means, from the item
// as the claim found it. Nothing here calls the upstream or spends an attempt.
func (b *batch) onConflict(ctx context.Context, log *slog.Logger, msg events.SQSMessage, env pipeline.Envelope, cur *state.Item) outcome {
	r := b.r
	now := b.now()
	if cur == nil {
		return b.deadLetterMessage(msg, failure.New(failure.SchemaInvalid, "envelope names an item that does not exist"), env.CorrelationID)
	}
	log = log.With("item_state", string(cur.State), "item_stage", string(cur.Stage))
	if cur.Stage != r.Stage {
		if cur.Stage.Index() < r.Stage.Index() {
			// The item was sent back (a full-restart replay) after this
			// message was queued: the message is stale.
			log.Warn("stale message: the item is at an earlier stage; acknowledged")
			return outcome{ack: true, kind: "stale"}
		}
		// A duplicate of finished work. If the item is queued for the next
		// stage, the forward may be what was lost: send it again (the next
		// stage's claim absorbs a duplicate).
		o := outcome{ack: true, kind: "duplicate"}
		if next, ok := r.Stage.Next(); ok && cur.Stage == next && cur.State == state.Queued {
			o.forward = &pipeline.Envelope{ItemID: cur.ID, Stage: next, CorrelationID: cur.CorrelationID, Replay: env.Replay}
			o.kind = "duplicate_reforward"
		}
		r.metrics().Count(MetricDuplicates, r.Stage, "", 1)
		log.Info("duplicate of finished work; acknowledged without calling the upstream", "outcome", o.kind)
		return o
	}
	switch cur.State {
	case state.Done, state.Deadletter:
		if cur.State == state.Deadletter && cur.Carrier == msg.MessageId && r.Notices != nil {
			return b.renotice(ctx, log, msg, *cur)
		}
		r.metrics().Count(MetricDuplicates, r.Stage, "", 1)
		log.Info("duplicate delivery; the item's outcome is already durable")
		return outcome{ack: true, kind: "duplicate"}
	case state.Failed:
		if cur.Carrier != msg.MessageId {
			return outcome{ack: true, kind: "duplicate"}
		}
		return b.resendDeadLetter(ctx, log, msg, env, *cur)
	case state.Working:
		// A live lease held by another delivery of this very message (its
		// visibility ran out first) is waited out; one held by a different
		// message makes this one a duplicate.
		// (A lease owner is "<message id>#<receipt digest>".)
		if holder, _, _ := strings.Cut(cur.LeaseOwner, "#"); holder != msg.MessageId {
			r.metrics().Count(MetricDuplicates, r.Stage, "", 1)
			log.Info("duplicate delivery while another invocation holds the item; acknowledged")
			return outcome{ack: true, kind: "duplicate"}
		}
		return outcome{visibility: cur.LeaseUntil.Sub(now) + time.Second, kind: "lease_wait"}
	case state.Queued, state.Retryable:
		// Cooling down. Only the message that carries the item waits; others
		// are duplicates. A parked item has no carrier (Park clears it): any
		// message may end its wait once due, so one that comes a moment
		// early — the scheduler's, sent on another host's clock — waits for
		// it. Only a wait longer than the runner holds through visibility
		// (ParkAfter) belongs to the scheduler: its parked record is still
		// there, since the scheduler releases a due wait only once due.
		if cur.Carrier != "" && cur.Carrier != msg.MessageId {
			r.metrics().Count(MetricDuplicates, r.Stage, "", 1)
			log.Info("duplicate delivery during a cooldown; acknowledged")
			return outcome{ack: true, kind: "duplicate"}
		}
		wait := max(cur.NotBefore.Sub(now), 0)
		if cur.Carrier == "" && r.holding().Parked(wait) {
			log.Info("item is parked; the scheduler will re-enqueue it")
			return outcome{ack: true, kind: "parked_duplicate"}
		}
		return outcome{visibility: min(wait, r.holding().Visibility()), kind: "cooldown"}
	}
	log.Warn("claim lost for an unexpected state; record returned to the queue")
	return outcome{visibility: r.resendDelay(), kind: "conflict"}
}
