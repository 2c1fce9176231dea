package redact

import (
	"math/rand"
	"regexp"
	"testing"
)

// TestFindEmailIsTheExpression: findEmail finds what the expression it
// replaced found, on generated texts of e-mail-ish bytes.
func TestFindEmailIsTheExpression(t *testing.T) {
	re := regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`)
	alphabet := "ab.Z9@-_%+ .c1@m\n"
	r := rand.New(rand.NewSource(7))
	cases := []string{"jane@example.com", "a@b.co", "x@y.c", "ops+alerts@mail.example.co.uk.", "@@a@b.cd",
		"a@b.com2", "a@b.co-uk", "mail me at j.doe@example.org, please", "a@-.io", "a.b@c.d.ef_"}
	for range 20000 {
		b := make([]byte, r.Intn(24))
		for j := range b {
			b[j] = alphabet[r.Intn(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want := re.FindStringIndex(s)
		got := findEmail(s, 0)
		switch {
		case want == nil && got == nil:
		case want == nil || got == nil || want[0] != got[0] || want[1] != got[1]:
			t.Fatalf("%q: findEmail %v, the expression %v", s, got, want)
		}
	}
}
