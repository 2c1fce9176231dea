// Package work holds the plain types every layer of triage shares, as
// values and tables with no behaviour beyond reading them:
//
//   - the stages an item flows through (fetch → llm → notify) and the
//     envelope that carries an item between their queues (pipeline.go);
//   - the error classes and their traits, the table of docs/design.md
//     "Error classes and retry profiles" (class.go): the classifier
//     (internal/failure) turns an error into one, the policy decides on it;
//   - an item's status, its state and the Transitions table of the state
//     machine (docs/design.md "Item state"), and its enrichment status
//     (state.go): the stores persist them and build their conditions from
//     the table;
//   - the work result: Output, what a stage's work returns, and the
//     records it carries — the document, the enrichment, the webhook's
//     delivery, a body's reference (result.go); the item store keeps them;
//   - Prefix and Ellipsis, which cut text to a byte budget (a DynamoDB
//     attribute, a log field, a prompt) without splitting a UTF-8
//     character (textcut.go).
//
// It imports nothing of triage's.
package work

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Stage is one step of the pipeline. Each stage is a Lambda function consuming
// its own SQS queue and owning its own dead-letter queue and attempt budget.
type Stage string

const (
	// Fetch downloads the item's source document.
	Fetch Stage = "fetch"
	// LLM enriches the fetched text through a chat-completions model.
	LLM Stage = "llm"
	// Notify delivers the enrichment to the item's webhook.
	Notify Stage = "notify"
)

// Stages lists every stage in pipeline order.
func Stages() []Stage { return []Stage{Fetch, LLM, Notify} }

// ParseStage returns the Stage named s, or an error naming the valid stages.
func ParseStage(s string) (Stage, error) {
	if st := Stage(s); slices.Contains(Stages(), st) {
		return st, nil
	}
	return "", fmt.Errorf("unknown stage %q (want one of fetch, llm, notify)", s)
}

// Valid reports whether s is one of Stages.
func (s Stage) Valid() bool {
	_, err := ParseStage(string(s))
	return err == nil
}

// Next returns the stage after s; ok is false for the last stage.
func (s Stage) Next() (next Stage, ok bool) {
	switch s {
	case Fetch:
		return LLM, true
	case LLM:
		return Notify, true
	}
	return "", false
}

// Index is the 0-based position of s in Stages, or -1 for an unknown stage.
func (s Stage) Index() int {
	for i, st := range Stages() {
		if st == s {
			return i
		}
	}
	return -1
}

// Envelope is the body of every stage-queue message. It carries references
// only: the item itself (text, enrichment, failure state) lives in DynamoDB, so
// an envelope is small, holds no secrets and can be replayed verbatim.
type Envelope struct {
	// ItemID identifies the item in the Items table.
	ItemID string `json:"item_id"`
	// Stage is the stage this message is for; it must match the queue.
	Stage Stage `json:"stage"`
	// CorrelationID follows the item through every stage, log line and dead letter.
	CorrelationID string `json:"correlation_id"`
	// Replay is set when an operator re-enqueued the item from a dead letter.
	Replay *Replay `json:"replay,omitempty"`
}

// Replay is the lineage an operator replay attaches to an envelope.
type Replay struct {
	// Count is the item's replay count after this replay (1 for the first).
	Count int `json:"count"`
	// Note is the operator's remediation note.
	Note string `json:"note,omitempty"`
	// By names who replayed (an IAM principal or $USER).
	By string `json:"by,omitempty"`
	// At is when the replay was issued.
	At time.Time `json:"at"`
	// FromDeadLetter is the DLQ message id the replay came from, if any.
	FromDeadLetter string `json:"from_dead_letter,omitempty"`
	// Mode is from_failed_stage or full_restart.
	Mode string `json:"mode,omitempty"`
}

// MaxItemIDLen bounds item ids; DynamoDB keys allow 2048 bytes, but ids this long
// are a sign of a producer bug and would bloat every log line.
const MaxItemIDLen = 256

// MaxReplayNoteLen and MaxReplayRefLen bound an envelope's replay lineage
// (its note; who replayed, the dead letter it came from and its mode): the
// item store's bounds of the replay record whose last one a replay's
// envelope carries (store.MaxNoteBytes, store.MaxByBytes, store.MaxRefBytes).
const (
	MaxReplayNoteLen = 2048
	MaxReplayRefLen  = 256
)

// ErrEnvelope is the sentinel every envelope decoding error wraps.
var ErrEnvelope = errors.New("invalid envelope")

// DecodeEnvelope parses and validates a message body; see Decode. Fields it
// does not know are ignored.
func DecodeEnvelope(body string, want Stage) (Envelope, error) {
	env, _, err := Decode(body, want)
	return env, err
}

// envelopeFields are the top-level fields of an Envelope.
var envelopeFields = map[string]bool{"item_id": true, "stage": true, "correlation_id": true, "replay": true}

// Decode parses and validates a message body and returns the names of the
// top-level fields it does not know, sorted. Unknown fields are accepted: a
// producer or stage one version ahead must not turn every message into a
// dead letter (the runner counts and logs them). want, when non-empty, is
// the stage of the consuming queue.
func Decode(body string, want Stage) (Envelope, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &top); err != nil {
		return Envelope{}, nil, fmt.Errorf("%w: %v", ErrEnvelope, err)
	}
	var unknown []string
	for k := range top {
		if !envelopeFields[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	var env Envelope
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		return Envelope{}, unknown, fmt.Errorf("%w: %v", ErrEnvelope, err)
	}
	switch {
	case top == nil:
		return Envelope{}, unknown, fmt.Errorf("%w: not a JSON object", ErrEnvelope)
	case env.ItemID == "":
		return Envelope{}, unknown, fmt.Errorf("%w: item_id is required", ErrEnvelope)
	case len(env.ItemID) > MaxItemIDLen:
		return Envelope{}, unknown, fmt.Errorf("%w: item_id longer than %d bytes", ErrEnvelope, MaxItemIDLen)
	case !env.Stage.Valid():
		return Envelope{}, unknown, fmt.Errorf("%w: stage %q is not fetch, llm or notify", ErrEnvelope, env.Stage)
	case want != "" && env.Stage != want:
		return Envelope{}, unknown, fmt.Errorf("%w: stage %q delivered to the %s queue", ErrEnvelope, env.Stage, want)
	case env.CorrelationID == "":
		return Envelope{}, unknown, fmt.Errorf("%w: correlation_id is required", ErrEnvelope)
	case len(env.CorrelationID) > MaxItemIDLen:
		// A spec's bound (docs/design.md "Putting work in"): as long as an
		// item id, since an absent one is the item id. The envelope carries
		// it to the next queue, so a longer one could fail a whole forward.
		return Envelope{}, unknown, fmt.Errorf("%w: correlation_id longer than %d bytes", ErrEnvelope, MaxItemIDLen)
	case env.Replay != nil && len(env.Replay.Note) > MaxReplayNoteLen:
		// The envelope carries its replay lineage to the next queue too.
		return Envelope{}, unknown, fmt.Errorf("%w: replay.note longer than %d bytes", ErrEnvelope, MaxReplayNoteLen)
	case env.Replay != nil && max(len(env.Replay.By), len(env.Replay.FromDeadLetter), len(env.Replay.Mode)) > MaxReplayRefLen:
		return Envelope{}, unknown, fmt.Errorf("%w: replay.by, replay.from_dead_letter or replay.mode longer than %d bytes",
			ErrEnvelope, MaxReplayRefLen)
	}
	return env, unknown, nil
}

// Encode returns the JSON body for env.
func (env Envelope) Encode() string {
	// Envelope holds only strings, ints and a UTC time: Marshal cannot fail.
	b, _ := json.Marshal(env)
	return string(b)
}
