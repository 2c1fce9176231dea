package failure

import "strings"

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
	upper := strings.ToUpper(text)
	i := strings.LastIndex(upper, ActionMarker)
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
	return Outcome{}, true, New(ResponseInvalid, "ACTION_OUTCOME marker is neither success nor failed")
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
		return New(ResponseInvalid, "action answer has no ACTION_OUTCOME marker")
	case !o.Success:
		return New(ActionFailed, "action reported failed: %s", o.Reason)
	}
	return nil
}
