package replay

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// DeadLetter is one DLQ message as an operator sees it.
type DeadLetter struct {
	// DLQ is the stage whose dead-letter queue holds the message.
	DLQ work.Stage `json:"dlq"`
	// MessageID is the SQS message id (kept when SQS's redrive moves one).
	MessageID string `json:"message_id"`
	// Kind says whether it is a triage payload, a backstop message or
	// neither.
	Kind deadletter.Kind `json:"kind"`
	// ItemID is the item the message names (empty if unreadable).
	ItemID string `json:"item_id,omitempty"`
	// DeadLetterID identifies the dead-letter event (triage payloads only).
	DeadLetterID string `json:"dead_letter_id,omitempty"`
	// Class is the payload's class; for a backstop message, its item's last
	// failure class (empty if the item never failed).
	Class work.Class `json:"error_class,omitempty"`
	// Stage is where the item failed.
	Stage work.Stage `json:"stage,omitempty"`
	// FailedAt is the last failure; for a backstop message, its item's last
	// failure, else when the message was first sent.
	FailedAt time.Time `json:"failed_at,omitzero"`
	// SentAt is when the message was first sent (to the stage queue for a
	// backstop message: SQS keeps the timestamp when it moves one).
	SentAt time.Time `json:"sent_at,omitzero"`
	// ReceiveCount is its ApproximateReceiveCount, this run's receive
	// included.
	ReceiveCount int `json:"receive_count,omitempty"`
	// Payload is the triage payload; Envelope the backstop message's body.
	Payload  *deadletter.Payload `json:"payload,omitempty"`
	Envelope *work.Envelope      `json:"envelope,omitempty"`
	// Status says what a replay would do with it now (replayable,
	// duplicate: …, skipped: …), when its item was read.
	Status string `json:"status,omitempty"`

	body       string
	receipt    string
	attributes map[string]sqstypes.MessageAttributeValue
	// spec is the item spec a message on the fetch DLQ holds (Kind
	// backstop or spec): the producer's submission, or a Scheduler run.
	spec *intake.Spec
}

// Retryable reports whether the dead letter's class may succeed on a
// replay once its cause is fixed: the payload's verdict, else the class's;
// a backstop message of an item that never failed counts as retryable (it
// was a crash loop).
func (dl DeadLetter) Retryable() bool {
	switch {
	case dl.Payload != nil:
		return dl.Payload.SanitizedContext.Retryable
	case dl.Class != "":
		return dl.Class.Traits().Retryable
	}
	return dl.Kind == deadletter.KindBackstop
}

// Body returns the raw message body.
func (dl DeadLetter) Body() string { return dl.body }

// parseMessage reads one DLQ message.
func parseMessage(m sqstypes.Message, dlq work.Stage) DeadLetter {
	dl := DeadLetter{
		DLQ: dlq, MessageID: aws.ToString(m.MessageId), body: aws.ToString(m.Body),
		receipt: aws.ToString(m.ReceiptHandle), attributes: m.MessageAttributes,
	}
	if ms, err := strconv.ParseInt(m.Attributes[string(sqstypes.MessageSystemAttributeNameSentTimestamp)], 10, 64); err == nil {
		dl.SentAt = time.UnixMilli(ms).UTC()
	}
	dl.ReceiveCount, _ = strconv.Atoi(m.Attributes[string(sqstypes.MessageSystemAttributeNameApproximateReceiveCount)])
	dl.Kind, dl.Payload, dl.Envelope = deadletter.Read(dl.body)
	switch p, env := dl.Payload, dl.Envelope; {
	case p != nil:
		dl.ItemID, dl.DeadLetterID, dl.Class, dl.Stage = p.ItemID, p.SanitizedContext.DeadLetterID, p.ErrorClass, p.Stage
		dl.FailedAt = p.LastFailureAt
	case env != nil:
		dl.ItemID, dl.Stage, dl.FailedAt = env.ItemID, env.Stage, dl.SentAt
	case dlq == work.Fetch && intake.IsSpec(dl.body):
		spec, _, err := intake.Decode(dl.body)
		if err != nil {
			break // a spec the fetch stage would refuse: unreadable, never sent again
		}
		dl.spec, dl.ItemID, dl.Stage, dl.FailedAt = &spec, spec.ItemID, work.Fetch, dl.SentAt
		dl.Kind = deadletter.KindSpec
		if m.Attributes[string(sqstypes.MessageSystemAttributeNameDeadLetterQueueSourceArn)] != "" {
			// Moved by the fetch queue's RedrivePolicy: a submission the fetch
			// stage never got past creating its item or claiming it (a store
			// outage longer than its tolerance).
			dl.Kind = deadletter.KindBackstop
			dl.Envelope = &work.Envelope{ItemID: spec.ItemID, Stage: work.Fetch, CorrelationID: spec.CorrelationID}
		}
	}
	return dl
}

// withItem fills what a backstop message learns from its item.
func (dl DeadLetter) withItem(it *store.Item) DeadLetter {
	if dl.Kind != deadletter.KindBackstop || it == nil {
		return dl
	}
	dl.Class = it.FailureClass()
	if !it.LastFailureAt.IsZero() {
		dl.FailedAt = it.LastFailureAt
	}
	return dl
}

// plan is what a replay does with one selected dead letter.
type plan struct {
	action Action // Replayed (replay now), Resent, Duplicate or Skipped
	reason string
	from   []work.State
	// resubmit sends the message's own body, an item spec, to the fetch
	// queue (Resent), where the fetch stage creates the item or judges the
	// spec against it.
	resubmit bool
	// handOff completes a failed item's pending dead-letter hand-off
	// (HandedOff): the dead letter the item records goes to the stage's DLQ
	// and is confirmed on the item before the message is deleted.
	handOff bool
}

// CurrentDeadLetterID is the dead_letter_id the payload of it's current
// failure carries (deadletter.ID over its stage's attempts and its replay
// count), for an item in deadletter or failed.
func CurrentDeadLetterID(it store.Item) string {
	return deadletter.ID(it.ID, it.Stage, it.Attempts[it.Stage], it.ReplayCount)
}

// backstopFrom are the states a backstop message resumes its item from:
// store.BackstopStates but failed and deadletter. A dead-lettered item's
// dead letter is on its DLQ, an operator's to judge (docs/design.md "Waits
// and parking"); a raw envelope of it is a stale copy, never a replay. A
// failed item's dead letter is decided: its hand-off is completed
// (plan.handOff), never resumed with fresh attempts.
func backstopFrom() []work.State {
	return slices.DeleteFunc(store.BackstopStates(), func(s work.State) bool { return s == work.Deadletter || s == work.Failed })
}

// decide is the replay's decision table for one dead letter whose item is
// it (nil when it does not exist). now judges a working item's lease.
func decide(dl DeadLetter, it *store.Item, now time.Time) plan {
	if dl.Payload != nil && dl.Payload.Message != nil {
		// The dead letter of a message, not of an item's failure: even when
		// it names an existing item (a conflicting spec), that item's state
		// says nothing about it, and it must never be deleted as a
		// duplicate.
		return plan{action: Skipped, reason: "a message that named no usable item: fix its body and resubmit it (triage submit), or resolve it"}
	}
	switch {
	case dl.Kind == deadletter.KindSpec:
		// Scheduler gave up on delivering the run: its age limit dropped it
		// on purpose, so nothing sends it on an operator's behalf.
		return plan{action: Skipped, reason: "an item spec its sender put on the DLQ (a Scheduler run not delivered in time): " +
			"submit it again (triage submit) if it should still run, or resolve it"}
	case dl.spec != nil && it == nil:
		return plan{action: Resent, resubmit: true, reason: "the item was never created: its spec, moved by the fetch queue's backstop, is submitted again"}
	case dl.spec != nil && len(dl.spec.Differences(*it)) > 0:
		// Another spec holds the id: the fetch stage dead-letters this one
		// as a conflict, naming both values, where an operator sees it.
		return plan{action: Resent, resubmit: true, reason: "the item exists with another spec: submitted again for the fetch stage to judge"}
	case it == nil:
		return plan{action: Skipped, reason: ReasonNoItem}
	}
	if rec, ok := it.PendingReplay(); ok {
		// The replay's own dead letter: its message, or a copy of the same
		// dead letter under another message id (annotate re-publishes one).
		if rec.MessageID == dl.MessageID || (rec.DeadLetterID != "" && rec.DeadLetterID == dl.DeadLetterID) {
			return plan{action: Resent, reason: "replayed by an earlier run, not yet sent"}
		}
		if rec.MessageID == "" {
			// A replay from item state: no DLQ message resends it if its
			// send failed, so this one does before it goes (a duplicate of a
			// sent envelope is absorbed by the stage's claim).
			return plan{action: Resent, reason: "replayed from item state, perhaps not sent"}
		}
		if dl.Kind == deadletter.KindBackstop {
			// The replay's envelope itself, moved by the backstop before a
			// delivery could claim the item: nothing else carries it.
			return plan{action: Resent, reason: "the replay's envelope was moved by the backstop before the item was claimed"}
		}
		return plan{action: Duplicate, reason: fmt.Sprintf("item already replayed to %s", it.Stage)}
	}
	switch dl.Kind {
	case deadletter.KindTriage:
		if it.Stage == dl.Stage && slices.Contains(store.DeadLetterStates(), it.State) && CurrentDeadLetterID(*it) == dl.DeadLetterID {
			return plan{action: Replayed, from: store.DeadLetterStates()}
		}
	case deadletter.KindBackstop:
		if it.Stage == dl.Stage && it.State == work.Failed {
			// The item's dead letter was decided and recorded; only its
			// hand-off to the DLQ was never confirmed. Resuming it would
			// spend fresh attempts on a failure already judged.
			return plan{action: HandedOff, handOff: true,
				reason: "the item's dead letter was decided but never handed to the DLQ: the backstop schedule sends it there"}
		}
		if it.Stage == dl.Stage && slices.Contains(backstopFrom(), it.State) {
			if it.State == work.Working && !it.LeaseUntil.Before(now) {
				return plan{action: Skipped, reason: "a stage invocation holds the item's lease"}
			}
			return plan{action: Replayed, from: backstopFrom()}
		}
	default:
		return plan{action: Skipped, reason: "not a triage dead letter or stage envelope"}
	}
	return plan{action: Duplicate, reason: fmt.Sprintf("superseded: item is %s at %s", it.State, it.Stage)}
}

// status renders a plan for listings.
func (p plan) status() string {
	switch p.action {
	case Replayed:
		return "replayable"
	case Resent, HandedOff:
		return "pending: " + p.reason
	}
	if p.reason == "" {
		return string(p.action)
	}
	return string(p.action) + ": " + p.reason
}

// ClassCount is the number of dead letters of one class.
type ClassCount struct {
	// Class is the class; Count how many dead letters have it.
	Class work.Class `json:"error_class"`
	Count int        `json:"count"`
	// Retryable counts those a replay may fix once the cause is remedied.
	Retryable int `json:"retryable"`
}

// CountByClass groups dead letters by class, largest first (ties by class
// name); unreadable messages and backstop messages of items that never
// failed count under the empty class.
func CountByClass(dls []DeadLetter) []ClassCount {
	idx := map[work.Class]int{}
	var out []ClassCount
	for _, dl := range dls {
		i, ok := idx[dl.Class]
		if !ok {
			i = len(out)
			idx[dl.Class] = i
			out = append(out, ClassCount{Class: dl.Class})
		}
		out[i].Count++
		if dl.Retryable() {
			out[i].Retryable++
		}
	}
	slices.SortFunc(out, func(a, b ClassCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	return out
}
