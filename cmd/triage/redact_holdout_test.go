package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// The redaction holdout (internal/redact/testdata/holdout, README there):
// cases collected from public sources by someone who read only
// docs/design.md, scored once with the redactor frozen. TestRedactHoldout
// scores them as that scorer did — each case alone, its input whole on the
// stdin of `triage redact` (redactAll) — and holds the redactor to the
// targets: no string that must go occurs in any output, gitleaks' detector
// finds nothing in any output, and at least 95% of the facts that must
// stay occur unchanged.

// holdoutCase is one line of a holdout file.
type holdoutCase struct {
	Input   string   `json:"input"`
	Secrets []string `json:"secrets"` // none may occur in the output
	Keep    []string `json:"keep"`    // each should occur unchanged
	Kind    string   `json:"kind"`    // secret, prompt, pii or plain
	Family  string   `json:"family"`
	Source  string   `json:"source"`
}

var (
	holdoutGitleaksOnce sync.Once
	holdoutGitleaks     *detect.Detector
	holdoutGitleaksErr  error
)

// gitleaksDetector is the detector of gitleaks' default configuration, the
// oracle the redaction tests share.
func gitleaksDetector(t *testing.T) *detect.Detector {
	t.Helper()
	holdoutGitleaksOnce.Do(func() {
		logging.Logger = zerolog.Nop()
		holdoutGitleaks, holdoutGitleaksErr = detect.NewDetectorDefaultConfig()
	})
	if holdoutGitleaksErr != nil {
		t.Fatalf("gitleaks default config: %v", holdoutGitleaksErr)
	}
	return holdoutGitleaks
}

func readHoldout(t *testing.T, path string) []holdoutCase {
	t.Helper()
	var out []holdoutCase
	eachLine(t, path, func(n int, line []byte) {
		var c holdoutCase
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, c)
	})
	return out
}

// holdoutScore is the reading of one holdout file.
type holdoutScore struct {
	strings, leaked    int // strings that must go, and those that occurred
	cases, casesLeaked int // cases with something to remove, and those leaking
	facts, kept        int
	gitleaks           int // outputs in which gitleaks finds something
}

func TestRedactHoldout(t *testing.T) {
	t.Parallel()
	for _, file := range []struct {
		name     string
		minCases int
	}{
		{"round1.jsonl", 368},
		{"round1-extra.jsonl", 103},
		{"round2.jsonl", 258},
		{"round3.jsonl", 205},
		{"round4.jsonl", 207},
		{"round5.jsonl", 201},
		{"round7.jsonl", 256},
		{"round8.jsonl", 250},
		{"round9.jsonl", 169},
		{"round10.jsonl", 199},
		{"round11.jsonl", 213},
		{"round13.jsonl", 175},
		{"round15.jsonl", 174},
		{"round16.jsonl", 178},
		{"round19.jsonl", 165},
	} {
		t.Run(file.name, func(t *testing.T) {
			cases := readHoldout(t, "../../internal/redact/testdata/holdout/"+file.name)
			if len(cases) < file.minCases {
				t.Fatalf("%s has %d cases, want %d", file.name, len(cases), file.minCases)
			}
			det := gitleaksDetector(t)
			var sc holdoutScore
			for n, c := range cases {
				out, err := redactAll([]byte(c.Input), false)
				if err != nil {
					t.Errorf("line %d (%s): %v", n+1, c.Family, err)
					continue
				}
				got := string(out)
				if len(c.Secrets) > 0 {
					sc.cases++
				}
				leaked := false
				for _, s := range c.Secrets {
					sc.strings++
					if strings.Contains(got, s) {
						sc.leaked++
						leaked = true
						t.Errorf("line %d (%s, %s): %q leaked\n in: %s\nout: %s", n+1, c.Kind, c.Family, s, c.Input, got)
					}
				}
				if leaked {
					sc.casesLeaked++
				}
				for _, k := range c.Keep {
					sc.facts++
					if strings.Contains(got, k) {
						sc.kept++
					} else {
						t.Logf("line %d (%s): lost the fact %q\nout: %s", n+1, c.Family, k, got)
					}
				}
				if fs := det.DetectString(got); len(fs) > 0 {
					sc.gitleaks++
					t.Errorf("line %d (%s): gitleaks finds %s (%q) in the output\nout: %s", n+1, c.Family, fs[0].RuleID, fs[0].Secret, got)
				}
			}
			t.Logf("%s: %d of %d strings leaked in %d of %d cases; %d of %d facts kept (%.1f%%); gitleaks finds something in %d outputs",
				file.name, sc.leaked, sc.strings, sc.casesLeaked, sc.cases, sc.kept, sc.facts, 100*float64(sc.kept)/float64(sc.facts), sc.gitleaks)
			if sc.kept*100 < sc.facts*95 {
				t.Errorf("%d of %d facts kept, want at least 95%%", sc.kept, sc.facts)
			}
		})
	}
}
