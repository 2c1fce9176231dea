package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triagehq/triage/dev/soak"
	"github.com/triagehq/triage/internal/work"
)

// TestSoakReportFromResults writes the report of saved runs without running
// them.
func TestSoakReportFromResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := soak.Record{Command: "triage-local soak --runs 2", Options: soak.Options{Items: 3}, Runs: []*soak.Result{
		{Seed: 1, Items: 3, Settled: true, ByState: map[work.State]int{work.Done: 2, work.Deadletter: 1}},
		{Seed: 2, Items: 3, Settled: true, ByState: map[work.State]int{work.Done: 2, work.Queued: 1},
			Violations: []soak.Violation{{Kind: soak.ViolationStuck, Items: []string{"item-0003 (queued notify)"}}}},
	}}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	from, report, notes := filepath.Join(dir, "results.json"), filepath.Join(dir, "reliability.md"), filepath.Join(dir, "notes.md")
	if err := os.WriteFile(from, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("item-0003 was traced to a lost response.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := runCmd(t, "soak", "--from", from, "--report", report, "--notes", notes); o.code != exitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"triage-local soak --runs 2", "2 seeded runs of 3 items: 1 items lost", "item-0003 (queued notify)",
		"triage-local soak --items 3 --seed 2", "## Findings\n\nitem-0003 was traced to a lost response."} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// TestSoakFreshSeeds: --fresh draws the seeds itself, so it refuses a
// --seed; a report of fresh-seed runs says so and lists each run's seed.
func TestSoakFreshSeeds(t *testing.T) {
	t.Parallel()
	if o := runCmd(t, "soak", "--fresh", "--seed", "3"); o.code != exitUsage || !strings.Contains(o.stderr, "--fresh") {
		t.Fatalf("--fresh with --seed: exit %d: %s", o.code, o.stderr)
	}
	dir := t.TempDir()
	rec := soak.Record{Command: "triage-local soak --fresh --runs 2 --items 3", Options: soak.Options{Items: 3, Seed: 91}, Fresh: true,
		Runs: []*soak.Result{
			{Seed: 91, Items: 3, Settled: true, ByState: map[work.State]int{work.Done: 3}},
			{Seed: 1234567, Items: 3, Settled: true, ByState: map[work.State]int{work.Done: 3}},
		}}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	from, report := filepath.Join(dir, "results.json"), filepath.Join(dir, "reliability.md")
	if err := os.WriteFile(from, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if o := runCmd(t, "soak", "--from", from, "--report", report); o.code != exitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 runs on fresh random seeds of 3 items", "| 1234567 |", "| 91 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
