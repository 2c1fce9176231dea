package policy

// LostClaim is what a delivery finds when its claim of an item loses
// (docs/design.md "Claim conflicts"): the item as the claim returned it,
// seen from the delivery's stage and message.
type LostClaim string

const (
	// ItemMissing: the envelope names an item that does not exist.
	ItemMissing LostClaim = "item missing"
	// EarlierStage: the item is at an earlier stage (a full-restart replay
	// moved it back after the message was queued).
	EarlierStage LostClaim = "at an earlier stage"
	// NextStageQueued: the item is queued for the next stage: the forward
	// may be what was lost.
	NextStageQueued LostClaim = "queued for the next stage"
	// LaterStage: the item is further on.
	LaterStage LostClaim = "at a later stage"
	// Finished: the item is done or dead-lettered at this stage.
	Finished LostClaim = "done or dead-lettered"
	// DeadLetteredCarried: dead-lettered at this stage by this message,
	// and its owner is told of dead letters: the notice may be what was
	// lost.
	DeadLetteredCarried LostClaim = "dead-lettered by this message"
	// FailedCarried: failed at this stage by this message; the hand-off
	// of its dead letter is pending.
	FailedCarried LostClaim = "failed, carried by this message"
	// FailedOther: failed at this stage, carried by another message.
	FailedOther LostClaim = "failed, carried by another message"
	// WorkingOther: working under another message's lease.
	WorkingOther LostClaim = "working under another message"
	// WorkingCarried: working under an earlier delivery of this message.
	WorkingCarried LostClaim = "working under this message's earlier delivery"
	// CoolingOther: retryable, carried by another message.
	CoolingOther LostClaim = "cooling down, carried by another message"
	// Cooling: retryable, carried by this message, or parked and due
	// within what the runner holds through visibility.
	Cooling LostClaim = "cooling down"
	// ParkedLater: parked (no carrier) and due later than the runner
	// holds through visibility: the parked record holds the wait.
	ParkedLater LostClaim = "parked, due later"
	// Unexpected: any other state.
	Unexpected LostClaim = "unexpected"
)

// LostClaimAction is what the runner does with a delivery whose claim lost.
// None of them calls the upstream or spends an attempt.
type LostClaimAction string

const (
	// Acknowledge deletes the message.
	Acknowledge LostClaimAction = "acknowledge"
	// Reforward sends the item's envelope to the next stage again, then
	// acknowledges (the next stage's claim absorbs a duplicate).
	Reforward LostClaimAction = "reforward"
	// DeadLetterMessage dead-letters the message as SCHEMA_INVALID.
	DeadLetterMessage LostClaimAction = "dead-letter the message"
	// ResendDeadLetter rebuilds the dead letter from last_error and sends
	// it.
	ResendDeadLetter LostClaimAction = "resend the dead letter"
	// Renotice enqueues the owner's item.failed notice again (its
	// idempotency key absorbs a duplicate), then acknowledges.
	Renotice LostClaimAction = "resend the owner's notice"
	// KeepUntilLease keeps the message until the other lease ends.
	KeepUntilLease LostClaimAction = "keep until the lease ends"
	// KeepUntilDue keeps the message until the item's not_before.
	KeepUntilDue LostClaimAction = "keep until not_before"
	// KeepBriefly keeps the message, backing off on its receive count
	// (Holding.Unrecorded): a state no rule names is a fault of ours that
	// may recur on every delivery.
	KeepBriefly LostClaimAction = "keep, backing off on the receive count"
)

// LostClaimRule is one row of the lost-claim table.
type LostClaimRule struct {
	// LostClaim is the situation.
	LostClaim LostClaim `json:"conflict"`
	// Action is what the runner does.
	Action LostClaimAction `json:"action"`
	// Kind names the outcome in logs and tests.
	Kind string `json:"kind"`
	// Duplicate counts the delivery as a duplicate (the Duplicates metric).
	Duplicate bool `json:"duplicate"`
	// Why is the log line.
	Why string `json:"why"`
}

// LostClaims is the lost-claim table, one row per LostClaim.
var LostClaims = []LostClaimRule{
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

// LostClaimOutcome returns the rule for c; an unknown situation is
// Unexpected's.
func LostClaimOutcome(c LostClaim) LostClaimRule {
	for _, r := range LostClaims {
		if r.LostClaim == c {
			return r
		}
	}
	return LostClaims[len(LostClaims)-1]
}
