package redact_test

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/shared/redact"
)

// familyCase is one member of a family of shapes the redactor must handle:
// what goes in, the strings that must not survive, the facts that must.
type familyCase struct {
	name, in string
	gone     []string
	kept     []string
}

// checkFamilies redacts each case's input with redact.String and fails
// for every string of gone that survived and every fact of kept lost.
func checkFamilies(t *testing.T, cases []familyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := redact.String(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Errorf("%q survived:\n%s", g, out)
				}
			}
			for _, k := range c.kept {
				if !strings.Contains(out, k) {
					t.Errorf("fact %q lost:\n%s", k, out)
				}
			}
		})
	}
}
