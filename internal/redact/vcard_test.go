package redact

import (
	"strings"
	"testing"
)

// A vCard's personal lines go; its structure and other properties stay.
func TestVCard(t *testing.T) {
	in := "parse error at line 6\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:Lena Hoffmann\r\nN:Hoffmann;Lena;;;\r\n" +
		"item1.ADR;TYPE=home:;;Hauptstr. 5;Berlin;;10115;DE\r\nTEL;TYPE=cell:+49 151 4760 4573\r\nX-FOO:1\r\nEND:VCARD\nFN:not a card"
	out := String(in)
	for _, gone := range []string{"Lena", "Hauptstr", "4760"} {
		if strings.Contains(out, gone) {
			t.Errorf("%q survives: %q", gone, out)
		}
	}
	for _, kept := range []string{"VERSION:4.0", "X-FOO:1", "END:VCARD", "FN:not a card", "line 6"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q lost: %q", kept, out)
		}
	}
}
