package budget_test

import (
	"testing"

	"github.com/triagehq/triage/internal/gates/budget"
)

// FuzzParseUSD: whatever ParseUSD accepts is non-negative and survives a
// round trip through String exactly — no float drift, ever.
func FuzzParseUSD(f *testing.F) {
	for _, s := range []string{"5", "0.003", "12.50", "$1", ".5", "5.", "0.000001", "999999999.999999", "", "-1", "1e3", "0.0000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := budget.ParseUSD(s)
		if err != nil {
			return
		}
		if m < 0 {
			t.Fatalf("ParseUSD(%q) = %d, negative", s, m)
		}
		back, err := budget.ParseUSD(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseUSD(%q) = %d; String %q parses to %d, %v", s, m, m.String(), back, err)
		}
	})
}
