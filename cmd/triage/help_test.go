package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
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

// TestTheConsoleWarnsWhenNotOnLoopback: a console listening on every
// interface (--addr :PORT, which Go listens on as [::]) is told apart from
// one on loopback: it says that it is exposed before it prints its URL.
func TestTheConsoleWarnsWhenNotOnLoopback(t *testing.T) {
	t.Parallel()
	flags := []string{"--endpoint", "http://127.0.0.1:1", "--region", "us-east-1", "--items-table", "t", "--fetch-queue", "q",
		"--fetch-dlq", "d", "--llm-queue", "q", "--llm-dlq", "d", "--notify-queue", "q", "--notify-dlq", "d"}
	for addr, exposed := range map[string]bool{"127.0.0.1:0": false, "[::1]:0": false, ":0": true, "0.0.0.0:0": true} {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestCLIHelperProcess$", "--", "console", "--addr", addr}, flags...)...)
		cmd.Env = append(os.Environ(), "TRIAGE_CLI_HELPER=1", "AWS_EC2_METADATA_DISABLED=true", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		url, _ := bufio.NewReader(out).ReadString('\n')
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if !strings.Contains(url, "?token=") {
			t.Fatalf("console --addr %s printed %q\nstderr %s", addr, url, errb.String())
		}
		if warned := strings.Contains(errb.String(), "which is not loopback"); warned != exposed {
			t.Errorf("console --addr %s: warned %v, want %v (URL %s)\nstderr %s", addr, warned, exposed, strings.TrimSpace(url), errb.String())
		}
	}
}
