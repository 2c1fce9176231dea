package termsafe_test

import (
	"fmt"

	"github.com/triagehq/triage/shared/termsafe"
)

func ExampleString() {
	fmt.Println(termsafe.String("story-000123"))
	fmt.Println(termsafe.String("\x1b]0;owned\x07 bidi \u202eoverride, bad \xff"))
	// Output:
	// story-000123
	// \x1b]0;owned\a bidi \u202eoverride, bad \xff
}
