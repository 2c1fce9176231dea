package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/work"
)

// corpusCase is one line of a corpus: a `triage classify` input, the class
// the failure has, where it was found, and — for an expectation that was
// corrected rather than met — why.
type corpusCase struct {
	Line   int
	Input  json.RawMessage
	Want   work.Class
	Source string
	Note   string
	// WantDecision, when set, is the decision the line's failure gets at
	// its first attempt in the standard profile: retry, wait or
	// dead-letter (dead_letter, as classify prints it).
	WantDecision string
	// WantDelayMS, when set, is the delay the upstream asked for, in
	// milliseconds (requested_delay_ms): a delay hint must be read too.
	WantDelayMS *int64
}

// readCorpus reads a corpus file: one JSON object per line, the classify
// input's fields plus "want", "source", an optional "note", an optional
// "want_decision" and an optional "want_delay_ms".
func readCorpus(t *testing.T, path string) []corpusCase {
	t.Helper()
	var out []corpusCase
	eachLine(t, path, func(n int, line []byte) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(line, &fields); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		c := corpusCase{Line: n}
		for key, dst := range map[string]*string{"want": (*string)(&c.Want), "source": &c.Source, "note": &c.Note, "want_decision": &c.WantDecision} {
			if raw, ok := fields[key]; ok {
				if err := json.Unmarshal(raw, dst); err != nil {
					t.Fatalf("%s:%d: %s: %v", path, n, key, err)
				}
				delete(fields, key)
			}
		}
		if raw, ok := fields["want_delay_ms"]; ok {
			var ms int64
			if err := json.Unmarshal(raw, &ms); err != nil {
				t.Fatalf("%s:%d: want_delay_ms: %v", path, n, err)
			}
			c.WantDelayMS = &ms
			delete(fields, "want_delay_ms")
		}
		c.WantDecision = strings.ReplaceAll(c.WantDecision, "-", "_")
		switch c.WantDecision {
		case "", "retry", "wait", "dead_letter":
		default:
			t.Fatalf("%s:%d: want_decision %q is not retry, wait or dead-letter", path, n, c.WantDecision)
		}
		if !c.Want.Valid() {
			t.Fatalf("%s:%d: want %q is not a class", path, n, c.Want)
		}
		if !strings.HasPrefix(c.Source, "https://") && !strings.Contains(c.Source, ":") {
			t.Fatalf("%s:%d: source %q names no public source (a URL or repo:path)", path, n, c.Source)
		}
		c.Input, _ = json.Marshal(fields)
		out = append(out, c)
	})
	return out
}

// eachLine calls fn with each line of the file at path (at most
// maxClassifyLine bytes) and its number, from 1, failing t when the file
// cannot be read.
func eachLine(t *testing.T, path string, fn func(n int, line []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxClassifyLine)
	for n := 1; sc.Scan(); n++ {
		fn(n, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// scoreCorpus classifies every case through `triage classify`'s own input
// path and returns the misses.
func scoreCorpus(t *testing.T, cases []corpusCase) (misses []string) {
	t.Helper()
	c := classifier{clock: clock.NewStub(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), rand: func() float64 { return 0.5 }}
	for _, cc := range cases {
		out := c.line(cc.Input)
		if out.Error != "" {
			t.Errorf("line %d (%s): the input does not classify: %s", cc.Line, cc.Source, out.Error)
			continue
		}
		switch {
		case work.Class(out.Class) != cc.Want:
			misses = append(misses, fmt.Sprintf("line %d: got %s (%s), want %s — %s", cc.Line, out.Class, out.Reason, cc.Want, cc.Source))
		case cc.WantDecision != "" && out.Decision != cc.WantDecision:
			misses = append(misses, fmt.Sprintf("line %d: decision %s (%s), want %s — %s", cc.Line, out.Decision, out.Reason, cc.WantDecision, cc.Source))
		case cc.WantDelayMS != nil && out.RequestedDelayMS != *cc.WantDelayMS:
			misses = append(misses, fmt.Sprintf("line %d: requested delay %d ms, want %d ms — %s", cc.Line, out.RequestedDelayMS, *cc.WantDelayMS, cc.Source))
		}
	}
	return misses
}

// corpusTarget is the share of a corpus the classifier must get right.
const corpusTarget = 0.97

// TestCorpus scores the classifier on failures collected from outside the
// project (testdata/corpus/README.md): SDK fixtures and error-code lists,
// provider documentation, public issues quoting real answers. A miss is a
// classifier bug or an expectation corrected with its reason in "note" —
// never a deleted line.
func TestCorpus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		min  int
	}{
		{"failures.jsonl", 150},
		{"holdout.jsonl", 40},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			cases := readCorpus(t, filepath.Join("testdata", "corpus", tc.file))
			if len(cases) < tc.min {
				t.Errorf("%d cases, want at least %d", len(cases), tc.min)
			}
			misses := scoreCorpus(t, cases)
			score := float64(len(cases)-len(misses)) / float64(len(cases))
			t.Logf("%s: %d of %d classified as expected (%.1f%%)", tc.file, len(cases)-len(misses), len(cases), 100*score)
			for _, m := range misses {
				t.Log("miss: " + m)
			}
			if score < corpusTarget {
				t.Errorf("score %.1f%% is below the %.0f%% target", 100*score, 100*corpusTarget)
			}
		})
	}
}
