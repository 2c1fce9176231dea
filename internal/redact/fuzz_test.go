package redact_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/redact"
)

// Secrets planted after the fuzzed text. Each is preceded by a newline or a
// space so that it stands on its own whatever the fuzzer puts before it;
// each tail is what must not survive.
var fuzzPlants = []struct{ lead, tail string }{
	{" sk-proj-", "Fz9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz"},
	{" sk-ant-api03-", "Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXc"},
	{" ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"},
	{"\nAuthorization: Bearer ", "opaqueTOKEN0123456789abcdefXYZ"},
	{" AKIA", "IOSFODNN7EXAMPLE"},
	{" mail ", "jane.doe.fuzz@example.com"},
}

func FuzzString(f *testing.F) {
	for _, family := range []string{"secrets-in-context", "records"} {
		for _, tc := range plantedCases(f, family) {
			f.Add(tc.in)
		}
	}
	for _, s := range survivors {
		f.Add(s)
	}
	f.Add("")
	f.Add("password=\"")
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Add("Cookie: a=1;")
	f.Add("\xff\xfe token: \xc3")
	f.Fuzz(func(t *testing.T, s string) {
		out := redact.String(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out:\n in %q\nout %q", s, out)
		}
		if again := redact.String(out); again != out {
			t.Fatalf("not idempotent:\n   in %q\n once %q\ntwice %q", s, out, again)
		}
		for _, p := range fuzzPlants {
			if strings.Contains(s, p.tail) {
				continue
			}
			in := s + p.lead + p.tail
			if got := redact.String(in); strings.Contains(got, p.tail) {
				t.Fatalf("planted %q survived:\n in %q\nout %q", p.tail, in, got)
			}
		}
	})
}

func FuzzJSON(f *testing.F) {
	for _, family := range []string{"secrets-in-context", "records"} {
		for _, tc := range plantedCases(f, family) {
			f.Add([]byte(tc.in))
		}
	}
	f.Add([]byte(`{"api_key":"abc","messages":[{"role":"user","content":"hi"}],"body":"{\"token\":\"x\"}"}`))
	f.Add([]byte(`[1, 2.5e10, "x", null, true, {"a": {"b": []}}]`))
	f.Add([]byte(`{"card":4111111111111111,"s":"\ud83d\ude00\u2028"}`))
	f.Add([]byte(`"\u0073k-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2G"`))
	f.Add([]byte(`{"a":`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in := append([]byte(nil), b...)
		out := redact.JSON(b)
		if string(in) != string(b) {
			t.Fatalf("input modified")
		}
		if json.Valid(b) && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\n in %q\nout %q", b, out)
		}
		if utf8.Valid(b) && !utf8.Valid(out) {
			t.Fatalf("valid UTF-8 in, invalid out:\n in %q\nout %q", b, out)
		}
		if again := redact.JSON(out); string(again) != string(out) {
			t.Fatalf("not idempotent:\n   in %q\n once %q\ntwice %q", b, out, again)
		}
		// A secret planted in a JSON document does not survive either.
		if json.Valid(b) && !strings.Contains(string(b), fuzzPlants[0].tail) {
			doc := []byte(`{"fuzz":` + string(b) + `,"note":"` + strings.TrimSpace(fuzzPlants[0].lead) + fuzzPlants[0].tail + `"}`)
			if got := redact.JSON(doc); strings.Contains(string(got), fuzzPlants[0].tail) {
				t.Fatalf("planted key survived:\n in %q\nout %q", doc, got)
			}
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			_ = redact.Value(v)
		}
	})
}
