package redact_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/redact"
)

// The development corpus (testdata/corpus, README there): secrets, prompts
// and personal data in the shapes the world writes them, each with the
// source of its shape, and plain facts — real log lines and error messages
// an operator needs — from public sources. TestCorpus scores both.

// corpusCase is one line of secrets.jsonl.
type corpusCase struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // secret, prompt or pii
	In      string   `json:"in"`
	Secrets []string `json:"secrets"` // none may survive
	Keep    []string `json:"keep"`    // context that must survive
	Source  string   `json:"source"`
}

// corpusFact is one line of facts.jsonl.
type corpusFact struct {
	Text   string `json:"text"`
	Source string `json:"source"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var x T
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// redactBoth returns what String and, for a JSON document, JSON make of in.
func redactBoth(in string) []string {
	out := []string{redact.String(in)}
	if json.Valid([]byte(in)) {
		out = append(out, string(redact.JSON([]byte(in))))
	}
	return out
}

// minFactsKept is the share of plain facts redaction must leave unchanged.
const minFactsKept = 0.95

func TestCorpus(t *testing.T) {
	t.Parallel()
	cases := readJSONL[corpusCase](t, "testdata/corpus/secrets.jsonl")
	facts := readJSONL[corpusFact](t, "testdata/corpus/facts.jsonl")
	if len(cases) < 90 || len(facts) < 300 {
		t.Fatalf("corpus has %d cases and %d facts, want at least 90 and 300", len(cases), len(facts))
	}
	det := gitleaks(t)
	leaks, kept, keeps := 0, 0, 0
	for _, c := range cases {
		if c.Source == "" || len(c.Secrets) == 0 {
			t.Errorf("%s: every case names its source and what must not survive", c.Name)
		}
		for _, out := range redactBoth(c.In) {
			for _, s := range c.Secrets {
				if strings.Contains(out, s) {
					leaks++
					t.Errorf("%s [%s]: %q survived\n in: %s\nout: %s", c.Name, c.Kind, s, c.In, out)
				}
			}
			for _, k := range c.Keep {
				keeps++
				if strings.Contains(out, k) {
					kept++
				} else {
					t.Logf("%s: lost the fact %q\nout: %s", c.Name, k, out)
				}
			}
			if fs := det.DetectString(out); len(fs) > 0 {
				t.Errorf("%s: gitleaks finds %s (%q) in the redacted output\nout: %s", c.Name, fs[0].RuleID, fs[0].Secret, out)
			}
			if again := redact.String(out); again != out && !json.Valid([]byte(c.In)) {
				t.Errorf("%s: not idempotent\n once: %s\ntwice: %s", c.Name, out, again)
			}
		}
	}
	unchanged := 0
	for _, f := range facts {
		if f.Source == "" {
			t.Errorf("fact without a source: %q", f.Text)
		}
		if redact.String(f.Text) == f.Text {
			unchanged++
		} else {
			t.Logf("fact changed:\n in: %s\nout: %s", f.Text, redact.String(f.Text))
		}
	}
	share := float64(unchanged) / float64(len(facts))
	t.Logf("%d cases: %d leaks, %d of %d context facts kept; %d of %d plain facts unchanged (%.1f%%)",
		len(cases), leaks, kept, keeps, unchanged, len(facts), 100*share)
	if share < minFactsKept {
		t.Errorf("%.1f%% of plain facts kept, want at least %.0f%%", 100*share, 100*minFactsKept)
	}
	if kept*100 < keeps*95 {
		t.Errorf("%d of %d context facts kept in the cases, want at least 95%%", kept, keeps)
	}
}
