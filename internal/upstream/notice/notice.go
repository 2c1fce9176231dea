package notice

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Event is a notice's event type, sent as the body's "event" and the
// X-Triage-Event header.
type Event string

const (
	// Failed: the item is dead-lettered; an operator decides what happens
	// next (a replay may start it again).
	Failed Event = "item.failed"
	// RetryScheduled: a failure that spent an attempt; the item runs again
	// at next_retry_at.
	RetryScheduled Event = "item.retry_scheduled"
)

// MaxReasonBytes bounds a notice's reason.
const MaxReasonBytes = 300

// maxActionReason bounds the model's own reason inside it.
const maxActionReason = failure.MaxActionReason

// Notice is a notice: the message on the notice queue and, with SentAt set,
// the webhook's JSON body.
type Notice struct {
	// Event is the event type.
	Event Event `json:"event"`
	// ID is the notice's idempotency key (FailedKey, RetryScheduledKey),
	// also sent as the Idempotency-Key header.
	ID            string     `json:"notice_id"`
	ItemID        string     `json:"item_id"`
	CorrelationID string     `json:"correlation_id"`
	Kind          store.Kind `json:"kind"`
	// Stage and Class are where and how the item failed.
	Stage work.Stage `json:"stage"`
	Class work.Class `json:"class"`
	// Attempt is the stage's attempt that failed; MaxAttempts what the
	// class allows there.
	Attempt     int `json:"attempt"`
	MaxAttempts int `json:"max_attempts"`
	// Retryable is the class's trait: for item.failed, true means a replay
	// may succeed once the cause is fixed.
	Retryable bool `json:"retryable"`
	// NextRetryAt is when the item runs again (item.retry_scheduled).
	NextRetryAt *time.Time `json:"next_retry_at,omitempty"`
	// Reason says what went wrong, sanitized (see Reason).
	Reason string `json:"reason"`
	// DeadLetterID is the dead letter's id (item.failed), which the
	// operator's DLQ message carries too.
	DeadLetterID string `json:"dead_letter_id,omitempty"`
	// Replays counts the item's operator replays so far.
	Replays int `json:"replays"`
	// OccurredAt is when the failure happened; SentAt the signing time of
	// this attempt (the X-Triage-Timestamp), set by the deliverer.
	OccurredAt time.Time `json:"occurred_at"`
	SentAt     time.Time `json:"sent_at,omitzero"`
}

// FailedKey is the idempotency key of item.failed: one per dead letter of
// the item (a replay starts a new generation of failures).
func FailedKey(itemID string, replays int) string {
	return itemID + ":" + string(Failed) + ":" + strconv.Itoa(replays)
}

// RetryScheduledKey is the idempotency key of item.retry_scheduled: one per
// failed attempt.
func RetryScheduledKey(itemID string, replays int, stage work.Stage, attempt int) string {
	return itemID + ":" + string(RetryScheduled) + ":" + strconv.Itoa(replays) + ":" + string(stage) + ":" + strconv.Itoa(attempt)
}

// ForFailed is item.failed for it, dead-lettered with le.
func ForFailed(it store.Item, le store.LastError, deadLetterID string) Notice {
	n := base(it, le)
	n.Event, n.ID, n.DeadLetterID = Failed, FailedKey(it.ID, it.ReplayCount), deadLetterID
	return n
}

// ForRetryScheduled is item.retry_scheduled for it after le (whose RetryAt
// is the next attempt and RetryCount the attempt that failed).
func ForRetryScheduled(it store.Item, le store.LastError) Notice {
	n := base(it, le)
	n.Event, n.ID = RetryScheduled, RetryScheduledKey(it.ID, it.ReplayCount, le.Component, le.RetryCount)
	if le.RetryAt != nil {
		at := le.RetryAt.UTC()
		n.NextRetryAt = &at
	}
	return n
}

func base(it store.Item, le store.LastError) Notice {
	kind := it.Kind
	if kind == "" {
		kind = store.KindStory
	}
	corr := it.CorrelationID
	if corr == "" {
		corr = le.CorrelationID
	}
	return Notice{
		ItemID: it.ID, CorrelationID: corr, Kind: kind, Stage: le.Component, Class: le.ErrorClass,
		Attempt: le.RetryCount, MaxAttempts: le.MaxRetries, Retryable: le.Retryable, Reason: Reason(le),
		Replays: it.ReplayCount, OccurredAt: le.FailedAt.UTC(),
	}
}

// what tells the owner what a class means, in words that name no internals.
var what = map[work.Class]string{
	work.RateLimited:         "the upstream service asked us to slow down",
	work.BudgetExceeded:      "a spending limit was reached",
	work.NetworkTimeout:      "the upstream service did not answer in time, or the connection failed",
	work.UpstreamUnavailable: "the upstream service was unavailable",
	work.Conflict:            "the upstream service reported a conflicting request",
	work.ResponseInvalid:     "the model's answer could not be used",
	work.ActionFailed:        "the model reported that the action failed",
	work.SchemaInvalid:       "the item's input could not be processed",
	work.AuthDenied:          "the upstream service refused our credentials",
	work.NotFound:            "the source or the destination does not exist",
	work.ContentPolicy:       "the model provider's content policy blocked the request",
	work.TokenLimit:          "the input is too large for the model",
	work.ClientError:         "the model provider rejected the request",
	work.InternalBug:         "an internal error in triage",
	work.Unknown:             "an unrecognised failure",
}

// Reason is a notice's reason: what the class means, the upstream's HTTP
// status and error code when there was one, and for ACTION_FAILED the
// model's own reason — redacted, at most MaxReasonBytes. It never carries
// upstream message text (an error body can echo the request, the prompt
// included) or a URL (a webhook URL can hold a token).
func Reason(le store.LastError) string {
	s, ok := what[le.ErrorClass]
	if !ok {
		s = "failure " + string(le.ErrorClass)
	}
	var ev []string
	if st := le.Details["upstream_status"]; st != "" {
		if _, err := strconv.Atoi(st); err == nil {
			ev = append(ev, "HTTP "+st)
		}
	}
	if code := le.ErrorCode; code != "" && len(code) <= 64 && !strings.ContainsAny(code, " /:") {
		ev = append(ev, "code "+code)
	}
	if len(ev) > 0 {
		s += " (" + strings.Join(ev, ", ") + ")"
	}
	if le.ErrorClass == work.ActionFailed {
		if r, ok := failure.ActionReasonFromText(le.Error); ok && strings.TrimSpace(r) != "" {
			s += ": " + work.Ellipsis(strings.TrimSpace(r), maxActionReason)
		}
	}
	return work.Ellipsis(redact.String(s), MaxReasonBytes)
}

// Encode returns the queue message body: n without SentAt.
func (n Notice) Encode() (string, error) {
	n.SentAt = time.Time{}
	b, err := json.Marshal(n)
	if err != nil {
		return "", fmt.Errorf("encode notice %s: %w", n.ID, err)
	}
	return string(b), nil
}

// ErrMalformed matches a queue message that is not a notice.
var ErrMalformed = errors.New("not a triage notice")

// Decode reads a queue message body.
func Decode(body string) (Notice, error) {
	var n Notice
	if err := json.Unmarshal([]byte(body), &n); err != nil {
		return Notice{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	switch {
	case n.Event != Failed && n.Event != RetryScheduled:
		return Notice{}, fmt.Errorf("%w: event %q", ErrMalformed, work.Ellipsis(string(n.Event), 40))
	case n.ID == "" || n.ItemID == "" || len(n.ItemID) > work.MaxItemIDLen:
		return Notice{}, fmt.Errorf("%w: notice_id or item_id missing", ErrMalformed)
	case !strings.HasPrefix(n.ID, n.ItemID+":"):
		return Notice{}, fmt.Errorf("%w: notice_id does not name the item", ErrMalformed)
	}
	return n, nil
}
