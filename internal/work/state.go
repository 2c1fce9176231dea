package work

// Status is how far an item got through the pipeline. It only moves forward
// (a full-restart replay resets it to Received).
type Status string

const (
	// Received is a new item: nothing has run yet.
	Received Status = "received"
	// Fetched means the fetch stage stored the source text.
	Fetched Status = "fetched"
	// Enriched means the llm stage stored the enrichment.
	Enriched Status = "enriched"
	// Notified means the webhook accepted the delivery: the item is complete.
	Notified Status = "notified"
)

// Statuses lists every status in pipeline order.
func Statuses() []Status { return []Status{Received, Fetched, Enriched, Notified} }

// StatusAfter is the status an item reaches when stage succeeds.
func StatusAfter(s Stage) Status {
	switch s {
	case Fetch:
		return Fetched
	case LLM:
		return Enriched
	case Notify:
		return Notified
	}
	return Received
}

// Progress is the percentage of stages done for status.
func (s Status) Progress() int {
	for i, st := range Statuses() {
		if st == s {
			return i * 100 / (len(Statuses()) - 1)
		}
	}
	return 0
}

// State is where an item is in its current stage's queue.
type State string

const (
	// Queued means a message for the item's stage is on (or on its way to)
	// the stage queue.
	Queued State = "queued"
	// Working means a stage invocation holds the item's lease.
	Working State = "working"
	// Retryable means the last attempt failed (or waited) and the item will
	// run again at its NotBefore, through SQS visibility or the scheduler.
	Retryable State = "retryable"
	// Failed means the stage failed for good and the hand-off of the dead
	// letter to the DLQ is not yet confirmed. A redelivery completes it.
	Failed State = "failed"
	// Deadletter means the item's dead letter is on the stage DLQ, waiting
	// for an operator.
	Deadletter State = "deadletter"
	// Done means every stage succeeded.
	Done State = "done"
)

// States lists every state.
func States() []State { return []State{Queued, Working, Retryable, Failed, Deadletter, Done} }

// Transitions is the state machine: the states each state may move to. The
// stores (internal/store) enforce it in DynamoDB with ConditionExpressions
// built from this table, so code and data cannot disagree.
//
//	queued     → working                      (claim)
//	retryable  → working                      (claim once due)
//	working    → working                      (lease takeover after a crash)
//	working    → queued | done                (success: next stage, or the end)
//	working    → retryable                    (retry, wait, park, lease release)
//	working    → failed                       (dead-letter decided)
//	failed     → deadletter                   (DLQ hand-off confirmed)
//	deadletter → queued                       (operator replay)
//	failed     → queued                       (operator replay before the hand-off completed)
//	queued     → queued                       (operator replay of a message the queue's backstop moved)
//	retryable  → queued                       (operator replay of a message the queue's backstop moved)
//
// A replay may also take a working item whose lease has expired (a crash
// loop the backstop ended): working → queued is already in the table.
var Transitions = map[State][]State{
	Queued:     {Working, Queued},
	Retryable:  {Working, Queued},
	Working:    {Working, Queued, Done, Retryable, Failed},
	Failed:     {Deadletter, Queued},
	Deadletter: {Queued},
	Done:       {},
}

// CanTransition reports whether Transitions allows from → to.
func CanTransition(from, to State) bool {
	for _, s := range Transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// EnrichmentStatus is the failure lifecycle of an item (docs/design.md
// "Item state"): absent before anything ran, pending while it has failures
// that will be retried, success after its most recent stage succeeded,
// permanent_failure once it is dead-lettered.
type EnrichmentStatus string

const (
	// EnrichmentNone is the absent value: never failed, nothing finished yet.
	EnrichmentNone EnrichmentStatus = ""
	// EnrichmentPending means the item failed and will be retried.
	EnrichmentPending EnrichmentStatus = "pending"
	// EnrichmentSuccess means the item's latest stage succeeded.
	EnrichmentSuccess EnrichmentStatus = "success"
	// EnrichmentPermanentFailure means the item is dead-lettered.
	EnrichmentPermanentFailure EnrichmentStatus = "permanent_failure"
)
