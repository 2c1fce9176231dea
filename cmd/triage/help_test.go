package main

import (
	"bytes"
	"os/user"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEachHelpListsItsOwnFlags: a command's --help lists the connection
// flags and the flags of the tables and queues it uses, not those of every
// resource of the stack.
func TestEachHelpListsItsOwnFlags(t *testing.T) {
	flagRE := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	tests := []struct {
		args       []string
		has, lacks []string
	}{
		{[]string{"submit"}, []string{"fetch-queue", "stack", "endpoint", "dry-run"},
			[]string{"items-table", "errorlog-table", "audit-table", "budget-table", "bodies-table", "llm-queue", "fetch-dlq", "wait", "index-shards"}},
		{[]string{"items", "list"}, []string{"items-table", "index-shards", "state", "limit", "all"},
			[]string{"fetch-queue", "fetch-dlq", "errorlog-table", "audit-table", "budget-table", "wait"}},
		{[]string{"items", "get"}, []string{"items-table", "errorlog-table", "audit-table", "bodies-bucket"},
			[]string{"fetch-queue", "fetch-dlq", "budget-table", "wait"}},
		{[]string{"items", "replay"}, []string{"items-table", "fetch-queue", "notify-dlq"}, []string{"audit-table", "budget-table"}},
		{[]string{"dlq", "list"}, []string{"fetch-dlq", "llm-dlq", "notify-dlq", "wait"}, []string{"audit-table", "budget-table"}},
		{[]string{"report", "errors"}, []string{"errorlog-table", "budget-table"}, []string{"fetch-queue", "fetch-dlq", "audit-table", "wait"}},
		{[]string{"report", "unknown"}, []string{"errorlog-table", "since", "until", "json"}, []string{"fetch-queue", "fetch-dlq", "audit-table", "wait"}},
		{[]string{"rules", "test"}, []string{"errorlog-table", "retry-profile", "since", "json"}, []string{"items-table", "fetch-queue", "budget-table"}},
		{[]string{"rules", "check"}, []string{"json"}, []string{"errorlog-table", "stack", "items-table"}},
		{[]string{"backtest"}, []string{"errorlog-table"}, []string{"items-table", "fetch-queue", "budget-table"}},
		{[]string{"console"}, []string{"items-table", "errorlog-table", "audit-table", "budget-table", "fetch-dlq", "models-table"}, nil},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			old := flagOutput
			flagOutput = &errb
			defer func() { flagOutput = old }()
			if code := run(append(tc.args, "--help"), strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("exit %d\n%s", code, errb.String())
			}
			var flags []string
			for _, m := range flagRE.FindAllStringSubmatch(errb.String(), -1) {
				flags = append(flags, m[1])
			}
			for _, f := range tc.has {
				if !slices.Contains(flags, f) {
					t.Errorf("--help lacks -%s: %v", f, flags)
				}
			}
			for _, f := range tc.lacks {
				if slices.Contains(flags, f) {
					t.Errorf("--help lists -%s, which %s does not use", f, strings.Join(tc.args, " "))
				}
			}
		})
	}
}

// TestTheConsoleActsAsItsOperator: without $TRIAGE_OPERATOR or $USER the
// operator is the OS account, never "cli", and the console records it as
// console:<operator>.
func TestTheConsoleActsAsItsOperator(t *testing.T) {
	t.Setenv("TRIAGE_OPERATOR", "")
	t.Setenv("USER", "")
	t.Setenv("USERNAME", "")
	u, err := user.Current()
	if err != nil || u.Username == "" {
		t.Skipf("no OS account to compare with: %v", err)
	}
	if got := whoAmI(); got != u.Username {
		t.Fatalf("whoAmI() = %q, want the OS account %q", got, u.Username)
	}
	t.Setenv("TRIAGE_OPERATOR", "ana")
	if got := consoleBy(whoAmI()); got != "console:ana" {
		t.Fatalf("consoleBy = %q, want console:ana", got)
	}
}
