package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/simulate"
)

// tinyScenario writes a small scenario for the CLI tests.
func tinyScenario(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.json")
	body := `{"name":"tiny","seed":3,"items":200,"arrival":{"rate_per_second":20},
	  "stages":{"llm":{"mix":{"rates":{"rate_limit":0.05,"content_policy":0.02,"always:invalid_json":0.02}}}},
	  "windows":[{"kind":"outage","stage":"llm","start":"3s","duration":"20s"}]}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSimulateCommand(t *testing.T) {
	t.Parallel()
	path := tinyScenario(t)
	tests := map[string]struct {
		args  []string
		code  int
		check func(t *testing.T, out string)
	}{
		"table": {[]string{"--policies", "standard,naive-redrive"}, 0, func(t *testing.T, out string) {
			for _, s := range []string{"standard", "naive-redrive", "calls/done", "0 retries of permanent classes"} {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		}},
		"json": {[]string{"--policies", "sdk-retries", "--json", "--items", "50", "--seed", "9"}, 0, func(t *testing.T, out string) {
			var rs []simulate.Result
			if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 || rs[0].Items != 50 || rs[0].Seed != 9 {
				t.Fatalf("JSON %v: %.300s", err, out)
			}
		}},
		"terminal": {[]string{"--policies", "standard,predictions", "--terminal"}, 0, func(t *testing.T, out string) {
			sc := bufio.NewScanner(strings.NewReader(out))
			lines := 0
			for sc.Scan() {
				var d terminalDoc
				if err := json.Unmarshal(sc.Bytes(), &d); err != nil || len(d.Items) != 200 || d.Scenario != "tiny" {
					t.Fatalf("line %d: %v %.200s", lines, err, sc.Text())
				}
				lines++
			}
			if lines != 2 {
				t.Fatalf("%d lines, want one per policy", lines)
			}
		}},
		"unknown policy":    {[]string{"--policies", "yolo"}, 2, nil},
		"json and terminal": {[]string{"--json", "--terminal"}, 2, nil},
		"bad seed":          {[]string{"--seed", "x"}, 2, nil},
		"stray argument":    {[]string{"extra"}, 2, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(append([]string{"simulate", "--scenario", path}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			if tc.check != nil {
				tc.check(t, out)
			}
		})
	}
}

// quiet is the quick poison scenario (300 items).
const quiet = "../../scenarios/poison-quiet.json"

// TestSimulatePoison runs a poison scenario with and without its poison
// item and prints its outcome and the targets.
func TestSimulatePoison(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI("simulate", "--poison", quiet)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{"poison-quiet: item-000150 deadletter llm/UPSTREAM_UNAVAILABLE", "met    the poison item is dead-lettered"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "MISSED") {
		t.Errorf("a target missed:\n%s", out)
	}
	if code, _, _ := runCLI("simulate", "--poison", "../../scenarios/outage-1h.json"); code == 0 {
		t.Error("a scenario without poison items was accepted")
	}
}

func TestSimulateWritesTheReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc, img := filepath.Join(dir, "docs", "simulation.md"), filepath.Join(dir, "docs", "img")
	if err := os.MkdirAll(filepath.Dir(doc), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("simulate", "--scenario", tinyScenario(t), "--policies", "standard,naive-redrive",
		"--doc", doc, "--img", img, "--sensitivity", "500", "--sensitivity-items", "100", "--poison", quiet); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"](img/simulation-completion.png)", "| 500 |", "## Targets", "## Poison items", "| `poison-quiet` | 300 |",
		"### Targets (poison items)"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(img, "*.png"))
	if len(pngs) != 4 {
		t.Fatalf("%d plots written, want 4", len(pngs))
	}
}
