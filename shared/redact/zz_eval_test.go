//go:build redeval

package redact_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/triagehq/triage/shared/redact"
)

func TestEvalTrufflehog(t *testing.T) {
	b, err := os.ReadFile("/tmp/redwork/th_cases.json")
	if err != nil {
		t.Skip(err)
	}
	var cases []struct {
		Detector string   `json:"detector"`
		In       string   `json:"in"`
		Secrets  []string `json:"secrets"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	leaks := 0
	var lines []string
	for _, c := range cases {
		out := redact.String(c.In)
		for _, s := range c.Secrets {
			if strings.Contains(out, s) {
				leaks++
				lines = append(lines, fmt.Sprintf("%s\t%q\t%q", c.Detector, s, out))
				break
			}
		}
	}
	sort.Strings(lines)
	os.WriteFile("/tmp/redwork/th_leaks.txt", []byte(strings.Join(lines, "\n")), 0o644)
	t.Logf("%d of %d cases leak", leaks, len(cases))
}

func TestEvalFacts(t *testing.T) {
	b, err := os.ReadFile("/tmp/redwork/facts_corpus.json")
	if err != nil {
		t.Skip(err)
	}
	var facts []struct {
		Text   string `json:"text"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal(b, &facts); err != nil {
		t.Fatal(err)
	}
	bt, _ := os.ReadFile("/tmp/redwork/beats_facts.txt")
	for _, l := range strings.Split(string(bt), "\n") {
		if l != "" && !strings.HasPrefix(l, "#source") {
			facts = append(facts, struct {
				Text   string `json:"text"`
				Source string `json:"source"`
			}{l, "beats"})
		}
	}
	changed := 0
	var lines []string
	for _, f := range facts {
		out := redact.String(f.Text)
		if out != f.Text {
			changed++
			lines = append(lines, fmt.Sprintf("IN  %s\nOUT %s\n", f.Text, out))
		}
	}
	os.WriteFile("/tmp/redwork/facts_changed.txt", []byte(strings.Join(lines, "\n")), 0o644)
	t.Logf("%d of %d facts changed (%.1f%% kept)", changed, len(facts), 100*float64(len(facts)-changed)/float64(len(facts)))
}

func TestEvalCorpus(t *testing.T) {
	b, err := os.ReadFile("/tmp/redwork/corpus.json")
	if err != nil {
		t.Skip(err)
	}
	var cases []struct {
		Name, Kind, In string
		Secrets, Keep  []string
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	leaks, lost := 0, 0
	for _, c := range cases {
		out := redact.String(c.In)
		for _, s := range c.Secrets {
			if strings.Contains(out, s) {
				leaks++
				t.Logf("LEAK %s [%s]: %q\n   out: %s", c.Name, c.Kind, s, out)
				break
			}
		}
		for _, k := range c.Keep {
			if !strings.Contains(out, k) {
				lost++
				t.Logf("LOST %s: %q\n   out: %s", c.Name, k, out)
				break
			}
		}
	}
	t.Logf("%d of %d leak, %d lost a fact", leaks, len(cases), lost)
}
