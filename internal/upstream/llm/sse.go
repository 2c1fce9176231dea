package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// sseEvent is one server-sent event: its name ("" when the stream names
// none) and its data lines joined by "\n".
type sseEvent struct {
	name string
	data []byte
}

// parseSSE splits a text/event-stream body into events (the WHATWG rules
// the SDKs follow: "event:" and "data:" fields, one optional space after the
// colon, a blank line dispatches, comments and other fields are skipped).
// complete is false when the body ends inside an event: a stream cut off.
func parseSSE(body []byte) (events []sseEvent, complete bool) {
	var (
		cur     sseEvent
		hasData bool
	)
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			if hasData {
				events = append(events, cur)
			}
			cur, hasData = sseEvent{}, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			cur.name = string(value)
		case "data":
			if hasData {
				cur.data = append(cur.data, '\n')
			}
			cur.data = append(cur.data, value...)
			hasData = true
		}
	}
	if hasData {
		// A final event without its blank line: keep it, but the stream
		// may have been cut.
		events = append(events, cur)
		return events, false
	}
	return events, true
}

// errorEvent reports whether an event carries an error: an "error" event,
// or data whose JSON has a non-null "error" member or "type":"error" (the
// OpenAI stream's in-band error and Anthropic's error event).
func errorEvent(ev sseEvent) bool {
	if ev.name == "error" {
		return true
	}
	var probe struct {
		Type  string          `json:"type"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(ev.data, &probe) != nil {
		return false
	}
	return probe.Type == "error" || hasErrorObject(probe.Error)
}

// hasErrorObject reports whether raw is a non-null "error" value.
func hasErrorObject(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}

// errStreamCut is the error of a stream that ended before its last event:
// failure.Classify reads io.ErrUnexpectedEOF as the connection closing
// mid-response.
var errStreamCut = io.ErrUnexpectedEOF

// streamCut is the error of r, an answer stream that ended before its last
// event.
func (d *httpDialect) streamCut(r reply) error {
	return r.detail(fmt.Errorf("%s %s: answer stream ended early: %w", d.provider, d.op, errStreamCut))
}
