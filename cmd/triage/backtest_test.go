package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/simulate"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/store"
)

// fakeErrorLog is an ErrorLog table with fixed entries.
type fakeErrorLog struct {
	entries      []store.LogEntry
	since, until time.Time
}

func (f *fakeErrorLog) Between(_ context.Context, since, until time.Time, fn func(store.LogEntry) error) error {
	f.since, f.until = since, until
	for _, e := range f.entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// TestBacktestCommand runs the hand-made error log of dev/simulate
// (see its TestBacktestHandComputed for the figures) from a file, stdin and
// a fake ErrorLog table.
func TestBacktestCommand(t *testing.T) {
	logPath := filepath.Join("..", "..", "dev", "simulate", "testdata", "errorlog.jsonl")
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	exported, err := simulate.ReadFailures(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	table := &fakeErrorLog{}
	for _, f := range exported {
		table.entries = append(table.entries, store.LogEntry{ItemID: f.ItemID, Stage: f.Stage, Class: f.Class, Message: f.Message,
			Attempt: f.Attempt, OccurredAt: f.OccurredAt, Decision: f.Decision, Retryable: f.Retryable})
	}
	now := time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)
	oldSource, oldClock := newErrorLogSource, backtestClock
	t.Cleanup(func() { newErrorLogSource, backtestClock = oldSource, oldClock })
	newErrorLogSource = func(context.Context, *stackFlags) (errorLogSource, error) { return table, nil }
	backtestClock = clock.NewStub(now)
	tests := map[string]struct {
		args  []string
		stdin string
		code  int
		want  []string
	}{
		"file":             {[]string{logPath}, "", 0, []string{"6 retries saved, 1..2 retries added", "CONTENT_POLICY", "TOTAL"}},
		"stdin detail":     {nil, string(raw), 0, []string{"dead-lettered instead of completing", "3 → 4..5"}},
		"json":             {[]string{"--json", "--retry-profile", "predictions", logPath}, "", 0, []string{`"profile": "predictions"`, `"retries_saved": 6`}},
		"table":            {[]string{"--errorlog-table", "ErrorLog", "--since", "24h"}, "", 0, []string{"15 failures of 5 items"}},
		"unknown profile":  {[]string{"--retry-profile", "yolo", logPath}, "", 2, nil},
		"bad since":        {[]string{"--errorlog-table", "ErrorLog", "--since", "last week"}, "", 2, nil},
		"unreadable input": {nil, "{not json", 1, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"backtest"}, tc.args...)
			if name == "stdin detail" {
				args = append(args, "--detail")
			}
			code, out, errOut := runCLIStdin(tc.stdin, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
	if !table.since.Equal(now.Add(-24*time.Hour)) || !table.until.IsZero() {
		t.Errorf("table read from %v until %v, want the last 24 h", table.since, table.until)
	}
}

// TestBacktestReadsAgesAsTheOtherCommands: --since and --until of backtest
// and rules test take what every other command takes — an age in days or
// weeks (the README's `rules test rules.yaml --since 7d`), a date — and
// refuse a negative age, which would read from the future.
func TestBacktestReadsAgesAsTheOtherCommands(t *testing.T) {
	table := &fakeErrorLog{}
	now := time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)
	oldSource, oldClock := newErrorLogSource, backtestClock
	t.Cleanup(func() { newErrorLogSource, backtestClock = oldSource, oldClock })
	newErrorLogSource = func(context.Context, *stackFlags) (errorLogSource, error) { return table, nil }
	backtestClock = clock.NewStub(now)
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rules, []byte("rules:\n  - name: teapot\n    status: 418\n    class: UPSTREAM_UNAVAILABLE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"backtest"}, {"rules", "test", rules}} {
		for _, tc := range []struct {
			since string
			code  int
			want  time.Time
		}{
			{"7d", 0, now.Add(-7 * 24 * time.Hour)},
			{"2w", 0, now.Add(-14 * 24 * time.Hour)},
			{"2026-04-30", 0, time.Date(2026, 4, 30, 0, 0, 0, 0, time.UTC)},
			{"-1h", 2, time.Time{}},
		} {
			table.since = time.Time{}
			args := append(append([]string{}, cmd...), "--errorlog-table", "ErrorLog", "--since", tc.since)
			code, _, errOut := runCLI(args...)
			if code != tc.code || !table.since.Equal(tc.want) {
				t.Errorf("%v: exit %d, read from %v; want exit %d from %v\n%s", args, code, table.since, tc.code, tc.want, errOut)
			}
		}
	}
}
