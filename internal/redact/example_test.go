package redact_test

import (
	"fmt"

	"github.com/triagehq/triage/internal/redact"
)

func ExampleTerminal() {
	fmt.Println(redact.Terminal("story-000123"))
	fmt.Println(redact.Terminal("\x1b]0;owned\x07 bidi \u202eoverride, bad \xff"))
	// Output:
	// story-000123
	// \x1b]0;owned\a bidi \u202eoverride, bad \xff
}
