package runner

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// deadLetter records the permanent failure (state failed), hands the payload
// to the DLQ, then confirms the hand-off (state deadletter). If the DLQ send
// or the confirmation fails the record stays in its queue: the item is
// failed, and the next delivery completes the hand-off without calling the
// upstream again.
func (rec *record) deadLetter(ctx context.Context, log *slog.Logger, werr error, cl failure.Classification,
	d policy.DeadLetter, le store.LastError, entry store.LogEntry, susp *store.Suspect) outcome {
	b, r := rec.b, rec.b.r
	now := b.now()
	n, err := r.Items.Fail(ctx, store.FailRequest{
		ItemID: rec.item.ID, Stage: r.Stage, Owner: rec.owner, Now: now, PrevAttempts: rec.item.Attempts[r.Stage],
		Counts: d.Counts(), Next: work.Failed, LastError: le, Suspect: susp,
	})
	if err != nil {
		return rec.unrecorded(log, err, "the dead letter")
	}
	entry.Attempt = n
	rec.appendLog(ctx, log, entry)
	attempts := cloneAttempts(rec.item.Attempts)
	attempts[r.Stage] = n
	first := rec.item.FirstFailureAt
	if first.IsZero() {
		first = now
	}
	in := deadletter.Input{
		ItemID: rec.item.ID, CorrelationID: rec.env.CorrelationID, Stage: r.Stage, Err: werr, Failure: cl,
		Decision: d.Reason(), Attempts: attempts, FirstFailureAt: first, LastFailureAt: now,
		MessageID: rec.msg.MessageId, ReceiveCount: rec.rc, Replay: rec.item.DeadLetterReplay(),
	}
	if d := rec.item.Document; d != nil && r.Stage != work.Fetch {
		// The claimed item carries the document's reference (its text is
		// a body the work read); its size and hash are what the payload
		// keeps either way.
		in.InputText = d.Text
		if d.Text == "" && d.SHA256 != "" {
			in.Input = &deadletter.InputRef{Bytes: d.Bytes, SHA256: d.SHA256}
		}
	}
	if rec.item.Escalates(r.Stage, cl) {
		in.Replay.Escalated = true
	}
	p := deadletter.Build(in)
	le.RetryCount = n
	return b.noticeFailed(ctx, log, rec.msg, rec.item, le, p, b.handOff(ctx, log, p, rec.msg, true))
}

// handOff sends a dead letter and confirms it on the item (when there is
// one). Only a durable send acknowledges the record.
func (b *batch) handOff(ctx context.Context, log *slog.Logger, p deadletter.Payload, msg events.SQSMessage, hasItem bool) outcome {
	r := b.r
	body, err := p.Marshal()
	if err != nil {
		// A fault of ours that the next delivery meets again: kept, backing
		// off on its receive count, so the backstop's receives are spent over
		// minutes of logs, not seconds.
		d := r.unrecordedHold(receiveCount(msg))
		log.Error("encoding the dead letter failed; record returned to the queue", "encode_error", err.Error(),
			"visibility_ms", d.Milliseconds())
		return outcome{visibility: d, kind: "dlq_unavailable"}
	}
	_, err = r.SQS.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:          aws.String(r.DLQURL),
		MessageBody:       aws.String(string(body)),
		MessageAttributes: p.Attributes(),
	})
	if err != nil {
		// Kept, backing off on its receive count like any outcome not yet
		// durable, so a DLQ outage does not spend the backstop's receives.
		d := r.unrecordedHold(receiveCount(msg))
		log.Error("DLQ send failed; record stays in the queue", "send_error", redact.String(err.Error()),
			"visibility_ms", d.Milliseconds())
		r.metrics().Count(MetricDLQSendErrors, r.Stage, p.ErrorClass, 1)
		return outcome{visibility: d, kind: "dlq_unavailable"}
	}
	r.metrics().Count(MetricDeadLetters, r.Stage, p.ErrorClass, 1)
	if p.Replay.Escalated {
		// Counted where the escalated dead letter becomes durable, so one
		// completed by a later delivery counts too, and only once.
		r.metrics().Count(MetricEscalations, r.Stage, p.ErrorClass, 1)
		log.Error("ESCALATION: a replayed item failed again with the same non-retryable class; engineering review needed",
			"replays", p.Replay.Count)
	}
	// The caller's logger carries the class and the classifier's reason;
	// the decision gets its own key, so no line holds a key twice.
	log.Error("dead-lettered", "attempts", p.Attempts[r.Stage],
		"dead_letter_id", p.SanitizedContext.DeadLetterID, "decision", p.SanitizedContext.Decision)
	if hasItem {
		err := r.Items.MarkDeadLettered(ctx, p.ItemID, r.Stage, store.DeadLetterRefOf(p, b.now()), b.now())
		switch {
		case errors.Is(err, store.ErrConflict):
			// The item is no longer failed with this failure (an operator
			// replayed it, or a confirmation of the same dead letter came
			// first): nothing is left to settle.
			log.Warn("the item moved on before its DLQ hand-off was confirmed; nothing to confirm", "store_error", redact.String(err.Error()))
		case err != nil:
			// The dead letter is durable but the item still says failed:
			// the record stays, and its redelivery (the item failed,
			// carried by this message) sends the same dead letter again —
			// a duplicate of one dead_letter_id, which consumers drop —
			// and confirms it under the same condition. Every dead letter's
			// item ends deadletter (docs/design.md "Dead letters").
			r.metrics().Count(MetricStoreErrors, r.Stage, p.ErrorClass, 1)
			log.Error("confirming the DLQ hand-off on the item failed; record kept, its redelivery confirms it",
				"store_error", redact.String(err.Error()))
			return outcome{visibility: r.unrecordedHold(receiveCount(msg)), kind: "deadletter_unconfirmed"}
		}
	}
	return outcome{ack: true, kind: "dead_letter"}
}

// deadLetterMessage dead-letters a message that has no usable item: a
// malformed body, an envelope naming an item that does not exist, or an item
// spec that conflicts with its item. The body reaches the DLQ redacted and
// bounded (deadletter.Message), so an operator can see what was wrong, fix
// it and resubmit it. correlationID is the decoded envelope's, when there is
// one; otherwise it is read leniently from the body, like the item id.
func (b *batch) deadLetterMessage(msg events.SQSMessage, err error, correlationID string) outcome {
	ctx, cancel := b.bookkeeping()
	defer cancel()
	now := b.now()
	itemID, lenientCorrelation := lenientIDs(msg.Body)
	if itemID == "" {
		itemID = "message:" + msg.MessageId
	}
	if correlationID == "" {
		correlationID = lenientCorrelation
	}
	cl := failure.Classify(err)
	log := b.log.With("item_id", itemID, "correlation_id", correlationID, "message_id", msg.MessageId,
		"class", string(cl.Class), "reason", cl.Reason)
	b.r.metrics().Count(MetricFailures, b.r.Stage, cl.Class, 1)
	d := policy.Unusable(cl.Class)
	in := deadletter.Input{
		ItemID: itemID, CorrelationID: correlationID, Stage: b.r.Stage, Err: err, Failure: cl,
		Decision: d.Reason(), Attempts: map[work.Stage]int{b.r.Stage: d.Attempt}, FirstFailureAt: now, LastFailureAt: now,
		MessageID: msg.MessageId, ReceiveCount: receiveCount(msg), Body: msg.Body,
	}
	if b.r.ErrorLog != nil {
		if lerr := b.r.ErrorLog.Append(ctx, store.LogEntry{
			ItemID: itemID, Stage: b.r.Stage, Class: cl.Class, Message: work.Ellipsis(deadletter.ErrorText(err), 1024),
			Attempt: d.Attempt, MessageID: msg.MessageId, CorrelationID: correlationID, Decision: in.Decision, Default: cl.Default,
			Provider: cl.Provider, Status: cl.Status, Code: redact.String(cl.Code), OccurredAt: now,
		}); lerr != nil {
			log.Error("error log append failed", "store_error", redact.String(lerr.Error()))
		}
	}
	return b.handOff(ctx, log, deadletter.Build(in), msg, false)
}

// lenientIDs pulls item_id and correlation_id out of a body that failed
// strict decoding — a truncated envelope, a wrong type elsewhere — so the
// dead letter names the item and its trace when it can. It reads the
// top-level keys in order and stops at the first syntax error.
func lenientIDs(body string) (itemID, correlationID string) {
	dec := json.NewDecoder(strings.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		s, ok := v.(string)
		if !ok || len(s) > work.MaxItemIDLen {
			continue
		}
		switch key {
		case "item_id":
			itemID = redact.String(s)
		case "correlation_id":
			correlationID = redact.String(s)
		}
	}
	return itemID, correlationID
}

// resendDeadLetter completes a hand-off left pending by an earlier delivery
// (the item is failed at this stage): the payload is rebuilt from the item's
// last_error, without calling the upstream again.
func (b *batch) resendDeadLetter(ctx context.Context, log *slog.Logger, msg events.SQSMessage, env work.Envelope, it store.Item) outcome {
	le := it.LastError
	if le == nil {
		le = &store.LastError{Component: b.r.Stage, ErrorClass: work.Unknown, Error: "no last_error recorded"}
	}
	p := it.RecordedDeadLetter(msg.MessageId, receiveCount(msg))
	log = log.With("class", string(p.ErrorClass))
	log.Warn("completing a pending DLQ hand-off")
	return b.noticeFailed(ctx, log, msg, it, *le, p, b.handOff(ctx, log, p, msg, true))
}

func cloneAttempts(m map[work.Stage]int) map[work.Stage]int {
	out := make(map[work.Stage]int, len(work.Stages()))
	for _, s := range work.Stages() {
		out[s] = m[s]
	}
	return out
}
