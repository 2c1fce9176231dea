package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestClassifyLines(t *testing.T) {
	t.Parallel()
	c := classifier{now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }, rand: func() float64 { return 0.5 }}
	tests := map[string]struct {
		in   string
		want classifyOutput
	}{
		"quota is budget, never rate limit": {
			`{"provider":"openai","status":429,"body":"{\"error\":{\"code\":\"insufficient_quota\"}}"}`,
			classifyOutput{Class: "BUDGET_EXCEEDED", Retryable: true, Decision: "wait", DelayMinMS: 3600000, DelayMaxMS: 3600000},
		},
		"rate limit honours Retry-After": {
			`{"provider":"openai","status":429,"headers":{"Retry-After":"20"},"attempt":2}`,
			classifyOutput{Class: "RATE_LIMITED", Retryable: true, Counts: true, RequestedDelayMS: 20000, Decision: "retry", DelayMinMS: 20000, DelayMaxMS: 20000, MaxAttempts: 5},
		},
		"bad output dead-letters at the 3rd": {
			`{"error":"invalid character 'S' looking for beginning of value","attempt":3}`,
			classifyOutput{Class: "RESPONSE_INVALID", Retryable: true, Counts: true, ModelSpecific: true, Decision: "dead_letter", MaxAttempts: 3},
		},
		"malformed input": {
			`{"where":"input","stage":"fetch"}`,
			classifyOutput{Class: "SCHEMA_INVALID", Decision: "dead_letter", MaxAttempts: 1},
		},
		"aws throttle": {
			`{"provider":"aws","code":"ProvisionedThroughputExceededException","stage":"fetch"}`,
			classifyOutput{Class: "RATE_LIMITED", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 0, DelayMaxMS: 1000, MaxAttempts: 5},
		},
		"action marker failed": {
			`{"output":"{}\nACTION_OUTCOME: failed | nope","attempt":1}`,
			classifyOutput{Class: "ACTION_FAILED", Retryable: true, Counts: true, Decision: "retry", DelayMinMS: 120000, DelayMaxMS: 120000, MaxAttempts: 3},
		},
		"not JSON":        {`{"status":`, classifyOutput{Error: "invalid input"}},
		"unknown field":   {`{"stauts":500}`, classifyOutput{Error: "invalid input"}},
		"bad status":      {`{"status":42}`, classifyOutput{Error: "not an HTTP status"}},
		"nothing to say":  {`{"stage":"llm"}`, classifyOutput{Error: "nothing to classify"}},
		"unknown profile": {`{"status":500,"profile":"yolo"}`, classifyOutput{Error: "unknown retry profile"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := c.line([]byte(tc.in))
			if tc.want.Error != "" {
				if !strings.Contains(got.Error, tc.want.Error) {
					t.Fatalf("error = %q, want it to mention %q", got.Error, tc.want.Error)
				}
				return
			}
			if got.Error != "" || got.Reason == "" {
				t.Fatalf("unexpected error %q / empty reason", got.Error)
			}
			got.Reason = ""
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestClassifyStreamKeepsGoingAfterABadLine(t *testing.T) {
	t.Parallel()
	in := "{\"status\":503}\nnot json\n\n{\"status\":404,\"provider\":\"webhook\"}\n"
	var out bytes.Buffer
	if err := runClassify(strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d output lines for 3 input lines: %q", len(lines), out.String())
	}
	var outs [3]classifyOutput
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &outs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if outs[0].Class != "UPSTREAM_UNAVAILABLE" || outs[1].Error == "" || outs[2].Class != "NOT_FOUND" {
		t.Fatalf("outputs = %+v", outs)
	}
	// The bad line says only what went wrong: no zero-valued decision
	// fields that read like an answer.
	var keys map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &keys); err != nil {
		t.Fatal(err)
	}
	if _, ok := keys["error"]; !ok || len(keys) != 1 {
		t.Fatalf("the bad line's fields: %s", lines[1])
	}
}

func TestClassifyTableOfSampleFailures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../events/failures/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample failures: %v", err)
	}
	var out bytes.Buffer
	if err := runClassify(nil, &out, append([]string{"--table"}, files...)); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	for _, want := range []string{"FAILURE", "BUDGET_EXCEEDED", "CONTENT_POLICY", "ACTION_FAILED", "SCHEMA_INVALID", "INTERNAL_BUG"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %s:\n%s", want, table)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		if f := strings.Fields(line); len(f) < 2 || f[1] == "-" {
			t.Errorf("a sample failure did not classify: %s", line)
		}
	}
	if got := strings.Count(table, "\n"); got != len(files)+1 {
		t.Errorf("%d table lines for %d files", got, len(files))
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"nope"}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code := run([]string{"classify", "--bogus"}, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if code := run([]string{"classify", "--help"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Errorf("--help: exit %d, want 0", code)
	}
	if code := run([]string{"classify", "/does/not/exist.json"}, strings.NewReader(""), &out, &errOut); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}
