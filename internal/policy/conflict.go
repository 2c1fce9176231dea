package policy

// Conflict is what a delivery finds when its claim of an item loses
// (docs/design.md "Claim conflicts"): the item as the claim returned it,
// seen from the delivery's stage and message.
type Conflict string

const (
	// ItemMissing: the envelope names an item that does not exist.
	ItemMissing Conflict = "item missing"
	// EarlierStage: the item is at an earlier stage (a full-restart replay
	// moved it back after the message was queued).
	EarlierStage Conflict = "at an earlier stage"
	// NextStageQueued: the item is queued for the next stage: the forward
	// may be what was lost.
	NextStageQueued Conflict = "queued for the next stage"
	// LaterStage: the item is further on.
	LaterStage Conflict = "at a later stage"
	// Finished: the item is done or dead-lettered at this stage.
	Finished Conflict = "done or dead-lettered"
	// DeadLetteredCarried: dead-lettered at this stage by this message,
	// and its owner is told of dead letters: the notice may be what was
	// lost.
	DeadLetteredCarried Conflict = "dead-lettered by this message"
	// FailedCarried: failed at this stage by this message; the hand-off
	// of its dead letter is pending.
	FailedCarried Conflict = "failed, carried by this message"
	// FailedOther: failed at this stage, carried by another message.
	FailedOther Conflict = "failed, carried by another message"
	// WorkingOther: working under another message's lease.
	WorkingOther Conflict = "working under another message"
	// WorkingCarried: working under an earlier delivery of this message.
	WorkingCarried Conflict = "working under this message's earlier delivery"
	// CoolingOther: retryable, carried by another message.
	CoolingOther Conflict = "cooling down, carried by another message"
	// Cooling: retryable, carried by this message, or parked and due
	// within what the runner holds through visibility.
	Cooling Conflict = "cooling down"
	// ParkedLater: parked (no carrier) and due later than the runner
	// holds through visibility: the parked record holds the wait.
	ParkedLater Conflict = "parked, due later"
	// Unexpected: any other state.
	Unexpected Conflict = "unexpected"
)

// ConflictAction is what the runner does with a delivery whose claim lost.
// None of them calls the upstream or spends an attempt.
type ConflictAction string

const (
	// Acknowledge deletes the message.
	Acknowledge ConflictAction = "acknowledge"
	// Reforward sends the item's envelope to the next stage again, then
	// acknowledges (the next stage's claim absorbs a duplicate).
	Reforward ConflictAction = "reforward"
	// DeadLetterMessage dead-letters the message as SCHEMA_INVALID.
	DeadLetterMessage ConflictAction = "dead-letter the message"
	// ResendDeadLetter rebuilds the dead letter from last_error and sends
	// it.
	ResendDeadLetter ConflictAction = "resend the dead letter"
	// Renotice enqueues the owner's item.failed notice again (its
	// idempotency key absorbs a duplicate), then acknowledges.
	Renotice ConflictAction = "resend the owner's notice"
	// KeepUntilLease keeps the message until the other lease ends.
	KeepUntilLease ConflictAction = "keep until the lease ends"
	// KeepUntilDue keeps the message until the item's not_before.
	KeepUntilDue ConflictAction = "keep until not_before"
	// KeepBriefly keeps the message for the runner's resend delay.
	KeepBriefly ConflictAction = "keep briefly"
)

// ConflictRule is one row of the conflict table.
type ConflictRule struct {
	// Conflict is the situation.
	Conflict Conflict `json:"conflict"`
	// Action is what the runner does.
	Action ConflictAction `json:"action"`
	// Kind names the outcome in logs and tests.
	Kind string `json:"kind"`
	// Duplicate counts the delivery as a duplicate (the Duplicates metric).
	Duplicate bool `json:"duplicate"`
	// Why is the log line.
	Why string `json:"why"`
}

// Conflicts is the conflict table, one row per Conflict.
var Conflicts = []ConflictRule{
	{ItemMissing, DeadLetterMessage, "dead_letter", false, "envelope names an item that does not exist"},
	{EarlierStage, Acknowledge, "stale", false, "stale message: the item is at an earlier stage; acknowledged"},
	{NextStageQueued, Reforward, "duplicate_reforward", true, "duplicate of finished work; forwarded again, acknowledged without calling the upstream"},
	{LaterStage, Acknowledge, "duplicate", true, "duplicate of finished work; acknowledged without calling the upstream"},
	{Finished, Acknowledge, "duplicate", true, "duplicate delivery; the item's outcome is already durable"},
	{DeadLetteredCarried, Renotice, "duplicate_renotice", false, "redelivery of the dead-lettering record: the owner's notice enqueued again"},
	{FailedCarried, ResendDeadLetter, "dead_letter", false, "completing a pending DLQ hand-off"},
	{FailedOther, Acknowledge, "duplicate", false, "duplicate delivery of a failed item; its carrier completes the hand-off"},
	{WorkingOther, Acknowledge, "duplicate", true, "duplicate delivery while another invocation holds the item; acknowledged"},
	{WorkingCarried, KeepUntilLease, "lease_wait", false, "this message's earlier delivery holds the item; kept until its lease ends"},
	{CoolingOther, Acknowledge, "duplicate", true, "duplicate delivery during a cooldown; acknowledged"},
	{Cooling, KeepUntilDue, "cooldown", false, "item cooling down; kept until not_before"},
	{ParkedLater, Acknowledge, "parked_duplicate", false, "item is parked; the scheduler will re-enqueue it"},
	{Unexpected, KeepBriefly, "conflict", false, "claim lost for an unexpected state; record returned to the queue"},
}

// ConflictOutcome returns the rule for c; an unknown situation is
// Unexpected's.
func ConflictOutcome(c Conflict) ConflictRule {
	for _, r := range Conflicts {
		if r.Conflict == c {
			return r
		}
	}
	return Conflicts[len(Conflicts)-1]
}
