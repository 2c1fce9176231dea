package failure

import (
	"errors"
	"strings"

	"github.com/triagehq/triage/internal/work"
)

// ActionMarker is the line an action task's model must end its answer with:
//
//	ACTION_OUTCOME: success
//	ACTION_OUTCOME: failed | <reason>
const ActionMarker = "ACTION_OUTCOME:"

// ActionInstruction is appended to an action task's system prompt so that the
// model reports whether it carried the action out.
const ActionInstruction = "After completing the task, end your answer with exactly one line: " +
	"\"ACTION_OUTCOME: success\" if the action was carried out, or " +
	"\"ACTION_OUTCOME: failed | <short reason>\" if it was not."

// MaxActionReason bounds the reason kept from a failed marker.
const MaxActionReason = 200

// Outcome is a parsed ACTION_OUTCOME marker.
type Outcome struct {
	// Success is true for "ACTION_OUTCOME: success".
	Success bool
	// Reason is the text after "failed |", trimmed and bounded.
	Reason string
}

// ParseActionOutcome finds the last ACTION_OUTCOME marker in text (the model
// may quote the instruction before answering). found is false when there is
// no marker; err is non-nil for a marker that is neither success nor failed.
// The marker may sit on its own line or inside a JSON string, where its line
// ends at a quote or an escaped newline.
func ParseActionOutcome(text string) (o Outcome, found bool, err error) {
	i := lastIndexFoldASCII(text, ActionMarker)
	if i < 0 {
		return Outcome{}, false, nil
	}
	rest := text[i+len(ActionMarker):]
	if end := strings.IndexAny(rest, "\n\r\""); end >= 0 {
		rest = rest[:end]
	}
	if end := strings.Index(rest, `\n`); end >= 0 {
		rest = rest[:end]
	}
	verdict, reason, _ := strings.Cut(rest, "|")
	switch strings.ToLower(strings.TrimSpace(verdict)) {
	case "success", "succeeded":
		return Outcome{Success: true}, true, nil
	case "failed", "failure":
		reason = strings.TrimSpace(reason)
		if reason == "" {
			reason = "no reason given"
		}
		return Outcome{Reason: truncate(reason, MaxActionReason)}, true, nil
	}
	return Outcome{}, true, New(work.ResponseInvalid, "ACTION_OUTCOME marker is neither success nor failed")
}

// ActionError judges an action task's answer: nil for success, ACTION_FAILED
// with the model's reason for failed, RESPONSE_INVALID when the marker is
// missing or malformed.
func ActionError(text string) error {
	o, found, err := ParseActionOutcome(text)
	switch {
	case err != nil:
		return err
	case !found:
		return New(work.ResponseInvalid, "action answer has no ACTION_OUTCOME marker")
	case !o.Success:
		// The model's reason is model output: it rides in the cause, which
		// is redacted before it is stored, not in Reason, which is logged as is.
		return &Error{Class: work.ActionFailed, Reason: actionFailedReason, Err: errors.New(o.Reason)}
	}
	return nil
}

// actionFailedReason is the Reason of an ACTION_FAILED error; the model's
// own reason is its cause.
const actionFailedReason = "action reported failed"

// ActionReason returns the model's reason from an ACTION_FAILED error in
// err's chain (ActionError's): model output, not yet redacted. ok is false
// when err carries none.
func ActionReason(err error) (reason string, ok bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		fe, isErr := e.(*Error)
		if isErr && fe.Class == work.ActionFailed && fe.Err != nil {
			return fe.Err.Error(), true
		}
	}
	return "", false
}

// ActionReasonFromText returns the model's reason from the recorded text of
// an ACTION_FAILED error (a stored last_error), as ActionError wrote it.
func ActionReasonFromText(text string) (reason string, ok bool) {
	_, after, found := strings.Cut(text, actionFailedReason+": ")
	return after, found
}

// lastIndexFoldASCII returns the index of the last occurrence in s of marker
// (upper-case ASCII), ignoring ASCII case, or -1. Searching strings.ToUpper(s)
// instead would be wrong: upper-casing changes the byte length of some runes
// ("ı" → "I", "ɐ" → "Ɐ") and of invalid UTF-8, so an index into it is not an
// index into s — it misreads the verdict or slices past the end.
func lastIndexFoldASCII(s, marker string) int {
	n := len(marker)
outer:
	for i := len(s) - n; i >= 0; i-- {
		for j := 0; j < n; j++ {
			c := s[i+j]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c != marker[j] {
				continue outer
			}
		}
		return i
	}
	return -1
}
