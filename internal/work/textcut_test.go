package work_test

import (
	"fmt"

	"github.com/triagehq/triage/internal/work"
)

// Cutting "aé€b" (1+2+3+1 bytes) never splits a character; a budget too
// small for anything keeps nothing, and an invalid byte counts as one.
func Example() {
	for _, n := range []int{-1, 0, 2, 4, 6, 7} {
		fmt.Printf("%d: %q %q\n", n, work.Prefix("aé€b", n), work.Ellipsis("aé€b", n))
	}
	fmt.Printf("%q %q\n", work.Prefix("€", 2), work.Prefix("ab\xffcd", 3))
	// Output:
	// -1: "" "…"
	// 0: "" "…"
	// 2: "a" "a…"
	// 4: "aé" "aé…"
	// 6: "aé€" "aé€…"
	// 7: "aé€b" "aé€b"
	// "" "ab\xff"
}
