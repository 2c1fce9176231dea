// Package deadletter is the dead letter, whole: the payload triage puts on a
// stage's dead-letter queue — everything an on-call operator needs to decide
// and replay (class, stage, attempts per stage, failure times, the redacted
// error chain and a sanitized context) and nothing they must not see (no
// secrets, tokens, API keys, full prompts or raw PII, no upstream body) —
// the message attributes it is sent with (Payload.Attributes), and the
// reading of what a dead-letter queue holds (Read: a payload, a backstop's
// envelope, or neither). The stage runner's hand-off (internal/runner) and
// operator replay (internal/replay) use it; neither defines the format.
//
// It also owns what of a failure may leave a stage anywhere: ErrorText
// renders an error chain with every upstream answer reduced to its status,
// error code and type and its own message (Upstream, read from the fields
// providers put it in, redacted, at most MaxUpstreamMessageBytes), never
// its body, which can echo the request. last_error, the error log, the
// runner's log lines and notices use it as the dead letter does.
package deadletter

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/work"
)

// Limits on the payload. SQS accepts messages up to 256 KiB; a dead letter
// stays far below so that replay lineage and notes can grow.
const (
	// MaxStackBytes bounds last_stack.
	MaxStackBytes = 8 << 10
	// MaxPayloadBytes bounds the encoded payload (the SQS message limit).
	MaxPayloadBytes = 256 << 10
	// MaxDetailBytes bounds each sanitized_context detail value.
	MaxDetailBytes = 512
	// MaxNotes bounds replay notes kept in the payload (the newest win; the
	// item keeps the full history).
	MaxNotes = 20
	// MaxBodyBytes bounds message.body, the redacted body of a message
	// that named no usable item.
	MaxBodyBytes = 8 << 10
)

// Payload is the dead-letter message body. Field names are the contract of
// docs/design.md "Dead letters"; operators and the redrive function read them.
type Payload struct {
	ErrorClass       work.Class         `json:"error_class"`
	Stage            work.Stage         `json:"stage"`
	ItemID           string             `json:"item_id"`
	CorrelationID    string             `json:"correlation_id"`
	Attempts         map[work.Stage]int `json:"attempts"`
	FirstFailureAt   time.Time          `json:"first_failure_at"`
	LastFailureAt    time.Time          `json:"last_failure_at"`
	LastStack        string             `json:"last_stack"`
	SanitizedContext Context            `json:"sanitized_context"`
	Replay           Replay             `json:"replay"`
	// Message is set for the dead letter of a message rather than of an
	// item: a malformed body, an envelope naming an item that does not
	// exist, an item spec that conflicts with its item. Such a dead letter
	// is never replayed (there is nothing to resume); an operator reads the
	// body, fixes it and resubmits it (triage submit), or resolves it.
	Message *Message `json:"message,omitempty"`
}

// Message is the body of a message that named no usable item, redacted
// (internal/redact, structure kept for JSON) and cut to MaxBodyBytes.
type Message struct {
	// Body is the redacted body, at most MaxBodyBytes.
	Body string `json:"body"`
	// Bytes and SHA256 (first 16 hex digits) describe the original body.
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
	// Truncated is set when Body was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// Context is operational context safe to share: ids, statuses, codes, hashes.
type Context struct {
	// DeadLetterID identifies this dead-letter event (item, stage, attempt,
	// replay); duplicates of one event carry the same id, so consumers
	// deduplicate on it.
	DeadLetterID string `json:"dead_letter_id"`
	// Reason is the classification rule that matched.
	Reason string `json:"reason"`
	// Decision says why the item stopped: permanent class or exhausted attempts.
	Decision string `json:"decision"`
	// Retryable is the class's trait: true means a replay may succeed once the
	// upstream recovers.
	Retryable bool `json:"retryable"`
	// MessageID is the SQS message that failed.
	MessageID string `json:"message_id,omitempty"`
	// ReceiveCount is its ApproximateReceiveCount.
	ReceiveCount int `json:"receive_count,omitempty"`
	// Provider, UpstreamStatus, UpstreamCode, UpstreamType and RequestID
	// describe the upstream response, when there was one.
	Provider       string `json:"provider,omitempty"`
	UpstreamStatus int    `json:"upstream_status,omitempty"`
	UpstreamCode   string `json:"upstream_code,omitempty"`
	UpstreamType   string `json:"upstream_type,omitempty"`
	RequestID      string `json:"request_id,omitempty"`
	// UpstreamMessage is the provider's own error message (its message
	// field), redacted, at most MaxUpstreamMessageBytes — never its body.
	UpstreamMessage string `json:"upstream_message,omitempty"`
	// Error is the error chain's text (ErrorText: upstream answers by their
	// status, code and message, never their bodies), redacted, at most
	// 1 KiB.
	Error string `json:"error"`
	// ErrorType is the Go type of the outermost meaningful error.
	ErrorType string `json:"error_type"`
	// Input describes the stage input by size and hash, never by content.
	Input *InputRef `json:"input,omitempty"`
	// Details are redacted key/value context (model, host, ...).
	Details map[string]string `json:"details,omitempty"`
}

// InputRef identifies an input without revealing it.
type InputRef struct {
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"` // first 16 hex digits
}

// Replay is the item's replay lineage as of this dead letter.
type Replay struct {
	Count     int    `json:"count"`
	Notes     []Note `json:"notes"`
	Escalated bool   `json:"escalated"`
}

// Note is one operator note on a replay or an annotation.
type Note struct {
	At   time.Time `json:"at"`
	By   string    `json:"by,omitempty"`
	Text string    `json:"text"`
}

// Input is what Build needs. Err and Failure describe the failure; the rest
// is the item's context.
type Input struct {
	ItemID         string
	CorrelationID  string
	Stage          work.Stage
	Err            error
	Failure        failure.Classification
	Decision       string
	Attempts       map[work.Stage]int
	FirstFailureAt time.Time
	LastFailureAt  time.Time
	MessageID      string
	ReceiveCount   int
	// InputText is the stage input (article text, prompt); only its size and
	// a hash reach the payload.
	InputText string
	// Input is the stage input's size and hash when the text itself is not
	// at hand (a body the item refers to); InputText wins when both are set.
	Input *InputRef
	// Body, when set, is the body of a message that named no usable item:
	// it reaches the payload redacted and bounded (Payload.Message).
	Body    string
	Details map[string]string
	Replay  Replay
}

// Build assembles a payload through redaction. It never fails: what cannot
// be made safe is dropped, and the result always encodes under
// MaxPayloadBytes.
func Build(in Input) Payload {
	details := map[string]string{}
	for k, v := range failure.Details(in.Err) {
		details[k] = v
	}
	maps.Copy(details, in.Details)
	ctx := Context{
		Reason:         in.Failure.Reason,
		Decision:       in.Decision,
		Retryable:      in.Failure.Retryable,
		MessageID:      in.MessageID,
		ReceiveCount:   in.ReceiveCount,
		Provider:       string(in.Failure.Provider),
		UpstreamStatus: in.Failure.Status,
		UpstreamCode:   redact.String(in.Failure.Code),
		Error:          truncate(ErrorText(in.Err), 1024),
		ErrorType:      ErrorType(in.Err),
		Details:        sanitizeDetails(details),
	}
	if rid, ok := details["request_id"]; ok {
		ctx.RequestID = redact.String(rid)
		delete(ctx.Details, "request_id")
	}
	var h *failure.HTTPError
	if errors.As(in.Err, &h) {
		if ctx.RequestID == "" {
			ctx.RequestID = redact.String(h.RequestID())
		}
		u := UpstreamOf(h)
		if ctx.UpstreamCode == "" {
			ctx.UpstreamCode = redact.String(u.Code)
		}
		ctx.UpstreamType, ctx.UpstreamMessage = redact.String(u.Type), u.Message
	}
	if in.InputText != "" {
		sum := sha256.Sum256([]byte(in.InputText))
		ctx.Input = &InputRef{Bytes: len(in.InputText), SHA256: hex.EncodeToString(sum[:8])}
	} else if in.Input != nil {
		ref := *in.Input
		ref.SHA256 = truncateHex(ref.SHA256, 16)
		ctx.Input = &ref
	}
	attempts := map[work.Stage]int{}
	for _, s := range work.Stages() {
		attempts[s] = in.Attempts[s]
	}
	p := Payload{
		ErrorClass:       in.Failure.Class,
		Stage:            in.Stage,
		ItemID:           in.ItemID,
		CorrelationID:    in.CorrelationID,
		Attempts:         attempts,
		FirstFailureAt:   in.FirstFailureAt.UTC(),
		LastFailureAt:    in.LastFailureAt.UTC(),
		LastStack:        Stack(in.Err),
		SanitizedContext: ctx,
		Replay:           sanitizeReplay(in.Replay),
	}
	p.SanitizedContext.DeadLetterID = ID(in.ItemID, in.Stage, attempts[in.Stage], in.Replay.Count)
	if in.Body != "" {
		p.Message = messageOf(in.Body)
		p.SanitizedContext.DeadLetterID = messageEventID(in.Stage, in.MessageID)
	}
	return p
}

// messageOf redacts and bounds a message body.
func messageOf(body string) *Message {
	sum := sha256.Sum256([]byte(body))
	m := &Message{Body: string(redact.JSON([]byte(body))), Bytes: len(body), SHA256: hex.EncodeToString(sum[:8])}
	if len(m.Body) > MaxBodyBytes {
		m.Body, m.Truncated = truncate(m.Body, MaxBodyBytes), true
	}
	return m
}

// ID is the deterministic id of one dead-letter event: an item's failure at
// a stage, on an attempt, in a replay generation.
func ID(itemID string, stage work.Stage, attempt, replay int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d", itemID, stage, attempt, replay))
	return hex.EncodeToString(sum[:12])
}

// messageEventID is the id of a message's dead letter (Input.Body set): the
// event is the message's rejection, whatever item it names, so it never
// shares an id with a failure of that item, and each redelivery of the
// message sends the same id again.
func messageEventID(stage work.Stage, messageID string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "message\x00%s\x00%s", stage, messageID))
	return hex.EncodeToString(sum[:12])
}

// Marshal encodes p, shrinking it (oldest notes, then details, then the
// stack) until it fits MaxPayloadBytes.
func (p Payload) Marshal() ([]byte, error) {
	for range 8 {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode dead letter for %s: %w", p.ItemID, err)
		}
		if len(b) <= MaxPayloadBytes {
			return b, nil
		}
		switch {
		case len(p.Replay.Notes) > 1:
			p.Replay.Notes = p.Replay.Notes[len(p.Replay.Notes)/2:]
		case len(p.SanitizedContext.Details) > 0:
			p.SanitizedContext.Details = nil
		default:
			p.LastStack = truncate(p.LastStack, len(p.LastStack)/2)
		}
	}
	return nil, fmt.Errorf("dead letter for %s does not fit %d bytes", p.ItemID, MaxPayloadBytes)
}

// Parse decodes a triage dead-letter payload. It reports an error for a body
// that is not one (a raw message moved by the queue's redrive backstop).
func Parse(body []byte) (Payload, error) {
	var p Payload
	if err := json.Unmarshal(body, &p); err != nil {
		return Payload{}, fmt.Errorf("not a triage dead letter: %w", err)
	}
	if p.ItemID == "" || p.ErrorClass == "" || !p.Stage.Valid() {
		return Payload{}, errors.New("not a triage dead letter: item_id, error_class or stage missing")
	}
	return p, nil
}

// Stack renders err's chain, outermost first, one line per wrapped error
// that adds text, followed by a panic's stack trace; redacted and bounded by
// MaxStackBytes.
func Stack(err error) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	prev := ""
	depth := 0
	for e := err; e != nil && depth < 32; depth++ {
		msg := errorText(e)
		// Print only what this layer adds to the message of its cause.
		line := msg
		if next := errors.Unwrap(e); next != nil {
			line = strings.TrimSuffix(strings.TrimSuffix(msg, errorText(next)), ": ")
		}
		if line != "" && line != prev {
			if b.Len() > 0 {
				b.WriteString("\ncaused by: ")
			}
			fmt.Fprintf(&b, "%s (%s)", line, typeName(e))
			prev = line
		}
		e = errors.Unwrap(e)
	}
	text := withoutBodies(err, b.String())
	var p *failure.PanicError
	if errors.As(err, &p) && len(p.Stack) > 0 {
		text += "\n\n" + string(p.Stack)
	}
	return truncate(redact.String(text), MaxStackBytes)
}

// ErrorType names the Go type of the first error in the chain that is not a
// plain wrapper (fmt.wrapError, DetailError, Classified).
func ErrorType(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch e.(type) {
		case *failure.DetailError, *failure.Classified:
			continue
		}
		name := typeName(e)
		if name == "*fmt.wrapError" || name == "*fmt.wrapErrors" {
			continue
		}
		return name
	}
	if err == nil {
		return ""
	}
	return typeName(err)
}

func typeName(e error) string { return fmt.Sprintf("%T", e) }

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func sanitizeDetails(d map[string]string) map[string]string {
	if len(d) == 0 {
		return nil
	}
	out := redact.Map(d)
	for _, k := range slices.Collect(maps.Keys(out)) {
		out[k] = truncate(out[k], MaxDetailBytes)
	}
	return out
}

func sanitizeReplay(r Replay) Replay {
	notes := r.Notes
	if len(notes) > MaxNotes {
		notes = notes[len(notes)-MaxNotes:]
	}
	out := Replay{Count: r.Count, Escalated: r.Escalated, Notes: make([]Note, 0, len(notes))}
	for _, n := range notes {
		out.Notes = append(out.Notes, Note{At: n.At.UTC(), By: redact.String(n.By), Text: truncate(redact.String(n.Text), 2048)})
	}
	return out
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…[truncated]"
	return work.Prefix(s, n-len(mark)) + mark
}

// truncateHex keeps the first n characters of a hex digest (nothing else is
// ever put there: a longer or non-hex value is dropped).
func truncateHex(s string, n int) string {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Kind is what a message on a stage's dead-letter queue holds.
type Kind string

const (
	// KindTriage is a dead letter triage wrote (a Payload).
	KindTriage Kind = "triage"
	// KindBackstop is a stage envelope the queue's redrive backstop moved
	// after maxReceiveCount receives — or, on the fetch DLQ, an item spec it
	// moved (the redrive reads the system attribute DeadLetterQueueSourceArn
	// to tell).
	KindBackstop Kind = "backstop"
	// KindSpec is an item spec its sender put on the fetch DLQ itself: an
	// EventBridge Scheduler run not delivered in time. It never ran, and is
	// never replayed: an operator submits it again or resolves it.
	KindSpec Kind = "spec"
	// KindUnreadable is none of these; it is never replayed.
	KindUnreadable Kind = "unreadable"
)

// Read reads the body of a message on a dead-letter queue: a triage
// payload, a stage envelope the queue's redrive backstop moved, or neither.
func Read(body string) (Kind, *Payload, *work.Envelope) {
	if p, err := Parse([]byte(body)); err == nil {
		return KindTriage, &p, nil
	}
	if env, err := work.DecodeEnvelope(body, ""); err == nil {
		return KindBackstop, nil, &env
	}
	return KindUnreadable, nil, nil
}

// Attributes are the SQS message attributes a dead letter is sent with,
// so that a queue's consumers can filter without parsing the body.
func (p Payload) Attributes() map[string]sqstypes.MessageAttributeValue {
	attr := func(v string) sqstypes.MessageAttributeValue {
		return sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	return map[string]sqstypes.MessageAttributeValue{
		"error_class":    attr(string(p.ErrorClass)),
		"stage":          attr(string(p.Stage)),
		"item_id":        attr(p.ItemID),
		"dead_letter_id": attr(p.SanitizedContext.DeadLetterID),
	}
}
