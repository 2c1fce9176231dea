package main

import (
	"errors"
	"strings"
	"testing"
)

// TestPrintErrorEscapesTerminalControls: a command's error can quote an
// item id or a store's answer; an escape sequence in it (OSC 52 writes the
// clipboard) or a carriage return must not reach the operator's terminal
// raw, while the error's own line breaks stay.
func TestPrintErrorEscapesTerminalControls(t *testing.T) {
	var b strings.Builder
	printError(&b, "dlq", errors.New("no dead letter matches evil\x1b]52;c;cm0gLXJmIH4=\x07\rok\nsecond line"))
	got := b.String()
	if strings.ContainsAny(got, "\x1b\x07\r") || !strings.HasPrefix(got, "triage dlq: no dead letter matches evil") ||
		strings.Count(got, "\n") != 2 || !strings.HasSuffix(got, "\nsecond line\n") {
		t.Fatalf("printError wrote %q", got)
	}
}
