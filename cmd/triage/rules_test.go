package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/simulate"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

const testRules = `version: 1
rules:
  - name: acme-slowdown
    provider: acme
    code: E_SLOWDOWN
    class: RATE_LIMITED
    delay: 30s
  - name: never
    stage: notify
    pattern: no such failure
    class: AUTH_DENIED
`

// TestRulesCommands: rules check and rules test, from an export and from
// the ErrorLog table (a fake), as a table and as JSON; a bad rules file is
// refused with its line and reason.
func TestRulesCommands(t *testing.T) {
	dir := t.TempDir()
	good, bad, export := filepath.Join(dir, "rules.yaml"), filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "log.jsonl")
	writeFile(t, good, testRules)
	writeFile(t, bad, "version: 1\nrules:\n  - name: x\n    pattern: '(unclosed'\n    class: RATE_LIMITED\n")
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"
	entries := []store.LogEntry{
		{ItemID: "a1", Stage: work.LLM, Class: work.ClientError, Attempt: 1, Provider: "acme", Status: 400, Code: "E_SLOWDOWN",
			Message: "acme chat: HTTP 400 E_SLOWDOWN: tenant over its rate " + key},
		{ItemID: "b1", Stage: work.Fetch, Class: work.NotFound, Attempt: 1, Message: "source GET: HTTP 404: gone"},
	}
	var lines []string
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := range entries {
		entries[i].OccurredAt = now.Add(-time.Hour)
		b, _ := json.Marshal(simulate.FromLogEntry(entries[i]))
		lines = append(lines, string(b))
	}
	writeFile(t, export, strings.Join(lines, "\n")+"\n")
	table := &fakeErrorLog{entries: entries}
	oldSource, oldClock := newErrorLogSource, backtestClock
	t.Cleanup(func() { newErrorLogSource, backtestClock = oldSource, oldClock })
	newErrorLogSource = func(context.Context, *stackFlags) (errorLogSource, error) { return table, nil }
	backtestClock = clock.NewStub(now)

	tableOut := []string{
		"against 2 recorded failures (profile standard): 1 failure matched by a rule, 1 failure by none (not listed)",
		"rule acme-slowdown (line 3) → RATE_LIMITED: 1 failure, 1 reclassified, 1 decision changes",
		"CLIENT_ERROR  RATE_LIMITED  dead-letter (permanent)  retry ≤30s, 5 attempts",
		"sample: acme chat: HTTP 400 E_SLOWDOWN: tenant over its rate [REDACTED:openai-key]",
		"rule never (line 8) → AUTH_DENIED: matches no recorded failure",
	}
	for name, tc := range map[string]struct {
		args       []string
		stdin      string
		code       int
		want, lack []string
	}{
		"check":            {[]string{"check", good}, "", 0, []string{"acme-slowdown", "RATE_LIMITED", "30s", "2 rules, all valid"}, nil},
		"check a bad file": {[]string{"check", bad}, "", 1, nil, nil},
		"test an export":   {[]string{"test", good, export}, "", 0, tableOut, []string{key, "source GET"}},
		"test stdin":       {[]string{"test", good}, strings.Join(lines, "\n"), 0, tableOut, []string{key}},
		"test the table":   {[]string{"test", good, "--errorlog-table", "ErrorLog", "--since", "24h"}, "", 0, tableOut, []string{key}},
		"test as JSON":     {[]string{"test", "--json", good, export}, "", 0, []string{`"matched": 1`, `"unmatched": 1`, `"after": "retry ≤30s, 5 attempts"`}, []string{key}},
		"test a bad file":  {[]string{"test", bad, export}, "", 1, nil, nil},
		"no rules file":    {[]string{"test"}, "", 2, nil, nil},
		"unknown profile":  {[]string{"test", good, "--retry-profile", "yolo", export}, "", 2, nil, nil},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLIStdin(tc.stdin, append([]string{"rules"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tc.lack {
				if strings.Contains(out, s) {
					t.Errorf("output holds %q:\n%s", s, out)
				}
			}
			if tc.code == 1 && !strings.Contains(errOut, `bad.yaml:4: rule "x": pattern`) {
				t.Errorf("a bad file's error %q does not name its line and reason", errOut)
			}
		})
	}
	if !table.since.Equal(now.Add(-24 * time.Hour)) {
		t.Errorf("table read from %v, want the last 24 h", table.since)
	}
}
