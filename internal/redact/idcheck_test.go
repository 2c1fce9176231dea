package redact

import (
	"strings"
	"testing"
)

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
		// stdnum-js' documented examples (hk.hkid, ba.jmbg, uy.cedula,
		// de.svnr, lk.nic); numbers of our own where none is documented
		{"hkid", hkidValid, "G123456A", "G1234560"},
		{"hkid-two-letters", hkidValid, "AB9876543", "AB9876544"},
		{"jmbg", jmbgValid, "0101006500006", "0101006500007"},
		{"uy-ci", uyCIValid, "12345672", "12345673"},
		{"es-nss", esNSSValid, "461234567843", "461234567844"},
		{"rvnr", rvnrValid, "15070649C103", "15070649C102"},
		{"lk-nic-old", lkNICOldValid, "942281632V", "942281632B"},
		{"iran", iranCodeValid, "1234567891", "1234567892"},
		// python-stdnum's au.abn and ar.cuit examples; Belarus's number
		// by its published shape
		{"abn", abnValid, "83914571673", "83914571674"},
		{"cuit", cuitValid, "20267565393", "20267565394"},
		{"by-id", byIDValid, "3120591K004PB7", "3120591K004PX7"},
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

// An identity number goes in its written shape or under its label; the
// same digits with a wrong check digit, or bare where many ids look alike,
// stay.
func TestNationalIDs(t *testing.T) {
	gone := map[string]string{
		"cpf 390.533.447-05 taken":                   "390.533.447-05",
		"source: PESEL 440514 01359":                 "440514 01359",
		"metadata.bsn not allowed (got '111222333')": "111222333",
		"SIN 046 454 286 on file":                    "046 454 286",
		`{"ref":"123 456 782"}`:                      "123 456 782",
		"aadhaar 2341-2341-2346 linked":              "2341-2341-2346",
		"nif_cliente=\"54362315K\"":                  "54362315K",
		"NIE X2482300W":                              "X2482300W",
		"id 360426199101010071 rejected":             "360426199101010071",
		"hetu 131052-308T":                           "131052-308T",
		"NI number: AB 12 34 56 C ok":                "AB 12 34 56 C",
		`{"sin": "046454287"}`:                       "046454287",
	}
	for in, secret := range gone {
		if out := String(in); strings.Contains(out, secret) || !strings.Contains(out, KindNationalID.Marker()) {
			t.Errorf("String(%q) = %q, want %q redacted", in, out, secret)
		}
	}
	kept := []string{
		"order 111222334 shipped",
		"batch 046 454 287 done",
		"took 2341 2341 2347 ms",
		"trace 360426199101010072",
		"ref 54362315L",
		"sin embargo 123456789 filas",
		"id 111222333 from the queue",
		"ts 20261127104003",
	}
	wantUnchanged(t, kept...)
}

// A label's reach ends at its own number: a date after it stays.
func TestNationalIDLabelEndsAtItsNumber(t *testing.T) {
	in := "Nr PESEL: 44051401359, data urodzenia 1944-05-14"
	if out := String(in); !strings.Contains(out, "1944-05-14") || strings.Contains(out, "44051401359") {
		t.Errorf("String(%q) = %q", in, out)
	}
}
