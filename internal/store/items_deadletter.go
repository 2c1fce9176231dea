package store

import (
	"time"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// DeadLetterReplay is the replay lineage a dead letter of it carries: its
// replay count, the notes of its replays, and whether its last dead letter
// was escalated.
func (it Item) DeadLetterReplay() deadletter.Replay {
	out := deadletter.Replay{Count: it.ReplayCount}
	for _, r := range it.Replays {
		out.Notes = append(out.Notes, deadletter.Note{At: r.At, By: r.By, Text: r.Note})
	}
	if it.DeadLetter != nil {
		out.Escalated = it.DeadLetter.Escalated
	}
	return out
}

// Escalates is the policy's judgement (policy.Escalated) on a failure of it
// at stage.
func (it Item) Escalates(stage work.Stage, cl failure.Classification) bool {
	prior := policy.Replayed{Replays: it.ReplayCount}
	if dl := it.DeadLetter; dl != nil {
		prior.Stage, prior.Class = dl.Stage, dl.Class
	}
	return policy.Escalated(prior, stage, cl)
}

// RecordedDeadLetter is the dead letter an item failed at its stage records
// and has not yet handed to the stage's DLQ (docs/design.md "Dead letters"):
// rebuilt from its last_error without calling the upstream again, built
// through deadletter.Build (redacted as every dead letter is), with the
// dead_letter_id of the failure — its stage's attempts and its replay count
// — so a copy sent again is a duplicate consumers drop. messageID and
// receiveCount name the message that completes the hand-off.
func (it Item) RecordedDeadLetter(messageID string, receiveCount int) deadletter.Payload {
	le := it.LastError
	if le == nil {
		le = &LastError{Component: it.Stage, ErrorClass: work.Unknown, Error: "no last_error recorded"}
	}
	cl := failure.Of(le.ErrorClass, "recorded failure")
	cl.Code = le.ErrorCode
	attempts := make(map[work.Stage]int, len(work.Stages()))
	for _, s := range work.Stages() {
		attempts[s] = it.Attempts[s]
	}
	in := deadletter.Input{
		ItemID: it.ID, CorrelationID: it.CorrelationID, Stage: it.Stage, Err: &recordedError{text: le.Error},
		Failure: cl, Decision: "hand-off completed by a later delivery", Attempts: attempts,
		FirstFailureAt: it.FirstFailureAt, LastFailureAt: it.LastFailureAt, MessageID: messageID,
		ReceiveCount: receiveCount, Details: le.Details, Replay: it.DeadLetterReplay(),
	}
	if it.Escalates(it.Stage, cl) {
		in.Replay.Escalated = true
	}
	return deadletter.Build(in)
}

// DeadLetterRefOf is the reference to p that confirming its hand-off
// (MarkDeadLettered) records on the item, at at.
func DeadLetterRefOf(p deadletter.Payload, at time.Time) DeadLetterRef {
	return DeadLetterRef{ID: p.SanitizedContext.DeadLetterID, Stage: p.Stage, Class: p.ErrorClass, At: at,
		Escalated: p.Replay.Escalated, Attempt: p.Attempts[p.Stage], Replay: p.Replay.Count}
}

// recordedError is an error rebuilt from a stored last_error.
type recordedError struct{ text string }

func (e *recordedError) Error() string { return e.text }
