package ledger

import (
	"errors"
	"fmt"
	"time"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Retention is how long a record is kept: the error log's retention, so an
// item's timeline has the same reach for failures, executions and notices.
const Retention = store.ErrorLogRetention

// MaxReasonBytes bounds an execution's reason and a notice's last error.
const MaxReasonBytes = 512

// Outcome is how one execution of an action task ended.
type Outcome string

const (
	// OutcomeSuccess: the model carried the action out (ACTION_OUTCOME:
	// success).
	OutcomeSuccess Outcome = "success"
	// OutcomeFailed: the model reported "ACTION_OUTCOME: failed | reason"
	// (ACTION_FAILED); Reason holds the model's reason, redacted.
	OutcomeFailed Outcome = "failed"
	// OutcomeError: the execution failed before the model could report — a
	// provider error, an invalid answer, a budget refusal; Class says which.
	OutcomeError Outcome = "error"
	// OutcomeWait: no model could be asked (every provider out, a closed
	// gate); nothing was executed and no attempt was spent.
	OutcomeWait Outcome = "wait"
)

// Execution is one run of an action task.
type Execution struct {
	ItemID        string
	CorrelationID string
	// Stage is the stage that executed it (llm).
	Stage work.Stage
	// Attempt is the attempt this run spent, or would have spent: the
	// stage's attempts before it plus one.
	Attempt int
	// Delivery is the SQS delivery that ran it ("<message id>#<receive
	// count>", the lease owner); with StartedAt it keys the record.
	Delivery  string
	StartedAt time.Time
	Duration  time.Duration
	Outcome   Outcome
	// Class is the failure's class; empty on success.
	Class work.Class
	// Reason is the model's reason for a failed action, or the failure's
	// classification rule and upstream status for an error; redacted,
	// at most MaxReasonBytes. Never upstream message text or the prompt.
	Reason string
	// Model is the chain entry that answered, or the last one asked
	// ("provider:model"); empty when none was.
	Model string
	// UpstreamStatus is the provider's HTTP status of a failed call.
	UpstreamStatus int
}

// NoticeState is where a notice's delivery stands.
type NoticeState string

const (
	// NoticeSending: a delivery holds the notice's lease and is posting it.
	NoticeSending NoticeState = "sending"
	// NoticePending: an attempt failed and another is due at NotBefore.
	NoticePending NoticeState = "pending"
	// NoticeDelivered: the webhook answered 2xx. Final.
	NoticeDelivered NoticeState = "delivered"
	// NoticeAbandoned: the webhook refused it for good, or its attempts
	// ran out; logged and counted, never dead-lettered. Final.
	NoticeAbandoned NoticeState = "abandoned"
)

// Final reports whether s is delivered or abandoned.
func (s NoticeState) Final() bool { return s == NoticeDelivered || s == NoticeAbandoned }

// Notice is a notice's delivery record.
type Notice struct {
	ItemID string
	// Key is the notice's idempotency key (its id).
	Key string
	// Event is the notice's event type (item.failed, item.retry_scheduled).
	Event string
	// Stage, Class and Attempt are the failure the notice tells of.
	Stage   work.Stage
	Class   work.Class
	Attempt int
	State   NoticeState
	// Attempts counts the delivery attempts claimed so far.
	Attempts int
	// FirstAt is the first claim; LastAt the latest write.
	FirstAt, LastAt time.Time
	// Status is the webhook's last HTTP status (0: none).
	Status int
	// LastClass and LastError describe the last failed attempt (redacted).
	LastClass work.Class
	LastError string
	// NotBefore is when a pending notice is due.
	NotBefore time.Time
	// Carrier is the SQS message id of the delivery that last held the
	// notice; LeaseOwner and LeaseUntil the lease of a sending one.
	Carrier    string
	LeaseOwner string
	LeaseUntil time.Time
	LastWrite  string
}

// NoticeClaim asks for a notice's lease before an attempt.
type NoticeClaim struct {
	ItemID, Key, Event string
	Stage              work.Stage
	Class              work.Class
	Attempt            int
	// Owner is the delivery ("<message id>#<receive count>"); Carrier its
	// message id.
	Owner, Carrier string
	Now            time.Time
	LeaseFor       time.Duration
}

// NoticeSettle records an attempt's outcome.
type NoticeSettle struct {
	ItemID, Key string
	Owner       string
	Now         time.Time
	// State is NoticeDelivered, NoticePending or NoticeAbandoned.
	State NoticeState
	// Status is the webhook's HTTP status, 0 when there was none.
	Status int
	// Class and Error describe a failed attempt (Error redacted).
	Class work.Class
	Error string
	// NotBefore is when a pending notice is due.
	NotBefore time.Time
}

// ErrBusy matches a *ClaimError: the notice is not claimable now.
var ErrBusy = errors.New("notice not claimable")

// ClaimError is a claim that did not win. Current is the notice as it was.
type ClaimError struct {
	Current Notice
}

// Error describes the notice's position.
func (e *ClaimError) Error() string {
	return fmt.Sprintf("claim notice %s: it is %s (attempts %d)", e.Current.Key, e.Current.State, e.Current.Attempts)
}

// Is matches ErrBusy.
func (e *ClaimError) Is(target error) bool { return target == ErrBusy }

// ErrLeaseLost is a settle whose lease another delivery took over.
var ErrLeaseLost = errors.New("notice lease lost")

// Entry is one record of an item's trail: exactly one field is set.
type Entry struct {
	Execution *Execution
	Notice    *Notice
}

// At is the entry's time: an execution's start, a notice's first claim.
func (e Entry) At() time.Time {
	if e.Execution != nil {
		return e.Execution.StartedAt
	}
	if e.Notice != nil {
		return e.Notice.FirstAt
	}
	return time.Time{}
}
