package demo

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// claims are what a phase says happened, each checked against the stack:
// the demo prints every one with its verdict, and a phase whose claim does
// not hold makes the demo fail — a demo that only prints would show a
// story the code no longer tells.
type claims struct {
	w      io.Writer
	phase  string
	failed []string
}

func newClaims(w io.Writer, phase string) *claims { return &claims{w: w, phase: phase} }

// that checks one claim: ok, and what it says.
func (c *claims) that(ok bool, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	mark := "✓"
	if !ok {
		mark = "✗"
		c.failed = append(c.failed, text)
	}
	fmt.Fprintf(c.w, "  %s %s\n", mark, text)
}

// err is nil when every claim held, else one error naming the phase and
// the claims that did not.
func (c *claims) err() error {
	if len(c.failed) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: %s", c.phase, ErrClaim, strings.Join(c.failed, "; "))
}

// ErrClaim is the error of a demo whose phase did not show what it says.
var ErrClaim = errors.New("the demo's claim does not hold")
