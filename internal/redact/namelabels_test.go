package redact

import (
	"strings"
	"testing"
)

// Two to four capitalised words after a name label go; a lock holder's
// id, a lower-case word or a single word stay.
func TestLabelledName(t *testing.T) {
	gone := map[string]string{
		"Employee: Olivia Pemberton  NI number":         "Olivia Pemberton",
		`card=x holder="Samuel K. Ortiz"`:               "Samuel K. Ortiz",
		"Kontoinhaber: Maximilian Oberhuber, IBAN":      "Maximilian Oberhuber",
		"does not match buyer 'Lucía Fernández Ortega'": "Lucía Fernández Ortega",
		"payer=Harriet Llewellyn sort_code=20-00-00":    "Harriet Llewellyn",
		"身份证号 x 姓名 王小明":                                 "王小明",
	}
	for in, name := range gone {
		if out := String(in); strings.Contains(out, name) {
			t.Errorf("String(%q) = %q, want %q redacted", in, out, name)
		}
	}
	wantUnchanged(t,
		"lock holder=worker-3 expired",
		"holder: Lambda",
		"buyer acme-corp rejected",
		"payee_id=Acme Corp",
		"placeholder: Some Text",
	)
}
