package runner

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// onLostClaim executes what the lost-claim table (policy.LostClaims) says of a
// delivery whose claim lost, from the item as the claim found it. Nothing
// here calls the upstream or spends an attempt.
func (b *batch) onLostClaim(ctx context.Context, log *slog.Logger, msg events.SQSMessage, env work.Envelope, cur *store.Item) outcome {
	r := b.r
	now := b.now()
	rule := policy.LostClaimOutcome(r.lostClaim(msg, cur, now))
	if cur != nil {
		log = log.With("item_state", string(cur.State), "item_stage", string(cur.Stage))
	}
	if rule.Duplicate {
		r.metrics().Count(MetricDuplicates, r.Stage, "", 1)
	}
	o := outcome{ack: true, kind: rule.Kind}
	switch rule.Action {
	case policy.DeadLetterMessage:
		return b.deadLetterMessage(msg, failure.New(work.SchemaInvalid, "%s", rule.Why), env.CorrelationID)
	case policy.ResendDeadLetter:
		return b.resendDeadLetter(ctx, log, msg, env, *cur)
	case policy.Renotice:
		return b.renotice(ctx, log, msg, *cur)
	case policy.Reforward:
		next, _ := r.Stage.Next()
		o.forward = &work.Envelope{ItemID: cur.ID, Stage: next, CorrelationID: cur.CorrelationID, Replay: env.Replay}
	case policy.KeepUntilLease:
		o = outcome{visibility: cur.LeaseUntil.Sub(now) + time.Second, kind: rule.Kind}
	case policy.KeepUntilDue:
		o = outcome{visibility: min(max(cur.NotBefore.Sub(now), 0), r.holding().Visibility()), kind: rule.Kind}
	case policy.KeepBriefly:
		d := r.unrecordedHold(receiveCount(msg))
		log.Warn(rule.Why, "visibility_ms", d.Milliseconds())
		return outcome{visibility: d, kind: rule.Kind}
	}
	if rule.LostClaim == policy.EarlierStage {
		log.Warn(rule.Why)
	} else {
		log.Info(rule.Why, "outcome", o.kind)
	}
	return o
}

// lostClaim names the situation a lost claim found (see policy.LostClaim).
func (r *Runner) lostClaim(msg events.SQSMessage, cur *store.Item, now time.Time) policy.LostClaim {
	switch {
	case cur == nil:
		return policy.ItemMissing
	case cur.Stage != r.Stage && cur.Stage.Index() < r.Stage.Index():
		return policy.EarlierStage
	case cur.Stage != r.Stage:
		if next, ok := r.Stage.Next(); ok && cur.Stage == next && cur.State == work.Queued {
			return policy.NextStageQueued
		}
		return policy.LaterStage
	}
	switch cur.State {
	case work.Done, work.Deadletter:
		if cur.State == work.Deadletter && cur.Carrier == msg.MessageId && r.Notices != nil {
			return policy.DeadLetteredCarried
		}
		return policy.Finished
	case work.Failed:
		if cur.Carrier != msg.MessageId {
			return policy.FailedOther
		}
		return policy.FailedCarried
	case work.Working:
		// A lease owner is "<message id>#<receipt digest>": a live lease
		// held by another delivery of this very message (its visibility
		// ran out first) is waited out.
		if holder, _, _ := strings.Cut(cur.LeaseOwner, "#"); holder != msg.MessageId {
			return policy.WorkingOther
		}
		return policy.WorkingCarried
	case work.Queued, work.Retryable:
		// Only the message that carries the item waits. A parked item has
		// no carrier (Park clears it): any message may end its wait once
		// due, so one that comes a moment early — the scheduler's, sent on
		// another host's clock — waits for it. Only a wait longer than the
		// runner holds through visibility belongs to the scheduler: its
		// parked record is still there, since the scheduler releases a due
		// wait only once due.
		if cur.Carrier != "" && cur.Carrier != msg.MessageId {
			return policy.CoolingOther
		}
		if cur.Carrier == "" && r.holding().Parked(max(cur.NotBefore.Sub(now), 0)) {
			return policy.ParkedLater
		}
		return policy.Cooling
	}
	return policy.Unexpected
}
