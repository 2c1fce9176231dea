package redact

import "testing"

// Valid numbers are python-stdnum's documented examples; each invalid one
// is a valid one with its last digit or letter moved by one.
func TestIdentityCheckDigits(t *testing.T) {
	cases := []struct {
		name  string
		check func(string) bool
		valid string
		bad   string
	}{
		{"cpf", cpfValid, "39053344705", "39053344706"},
		{"pesel", peselValid, "44051401359", "44051401358"},
		{"bsn", bsnValid, "111222333", "111222334"},
		{"sin", sinValid, "046454286", "046454287"},
		{"tfn", tfnValid, "123456782", "123456783"},
		{"aadhaar", aadhaarValid, "234123412346", "234123412347"},
		{"dni", dniValid, "54362315K", "54362315L"},
		{"nie", dniValid, "X2482300W", "X2482300X"},
		{"cn-ri", cnRIValid, "360426199101010071", "360426199101010072"},
		{"hetu", hetuValid, "131052-308T", "131052-308U"},
		{"nino", ninoValid, "AB123456C", "AB123456E"},
	}
	for _, c := range cases {
		if !c.check(c.valid) {
			t.Errorf("%s: %s should pass", c.name, c.valid)
		}
		if c.check(c.bad) {
			t.Errorf("%s: %s should fail", c.name, c.bad)
		}
	}
}
