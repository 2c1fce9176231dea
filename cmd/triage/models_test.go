package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/work"
)

func TestHealthCommandsUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{[]string{"models"}, 2, "missing subcommand"},
		{[]string{"models", "frobnicate"}, 2, `unknown models subcommand "frobnicate"`},
		{[]string{"models", "enable"}, 2, "exactly one MODEL"},
		{[]string{"models", "disable", "a", "b"}, 2, "exactly one MODEL"},
		{[]string{"models", "list", "extra"}, 2, "takes no arguments"},
		{[]string{"models", "list", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"models", "list", "--timeout", "soon"}, 2, "invalid value"},
		{[]string{"models", "list", "--models-table=", "--stack="}, 2, "no table: pass --models-table"},
		{[]string{"models", "list", "--models-table=t", "--endpoint", "ftp://x"}, 2, "not an http(s) URL"},
		{[]string{"models", "list", "--models-table=t", "--timeout=0s"}, 2, "--timeout must be positive"},
		{[]string{"models", "--help"}, 0, ""},
		{[]string{"breakers"}, 2, "missing subcommand"},
		{[]string{"breakers", "reset"}, 2, "exactly one SERVICE"},
		{[]string{"breakers", "open", "x"}, 2, `unknown breakers subcommand "open"`},
		{[]string{"breakers", "list", "--breakers-table=", "--stack="}, 2, "no table: pass --breakers-table"},
		{[]string{"breakers", "-h"}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(tc.args...)
			if code != tc.wantCode || !strings.Contains(stderr, tc.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.wantCode, tc.wantErr)
			}
			if stdout != "" {
				t.Fatalf("stdout %q, want nothing on a usage error", stdout)
			}
		})
	}
}

func TestParseInterspersedHealthFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, wantPos []string }{
		{[]string{"disable", "gpt-4o", "--reason", "maintenance", "--json"}, []string{"disable", "gpt-4o"}},
		{[]string{"--json", "list"}, []string{"list"}},
		{[]string{"list", "--", "--odd-name"}, []string{"list", "--odd-name"}},
	} {
		fs := newFlagSet("models", modelsSynopsis)
		conn := addHealthFlags(fs, func(string) string { return "" })
		reason := fs.String("reason", "", "")
		pos, err := parseInterspersed(fs, tc.args)
		if err != nil || strings.Join(pos, " ") != strings.Join(tc.wantPos, " ") {
			t.Fatalf("%v: positional %v, %v; want %v", tc.args, pos, err, tc.wantPos)
		}
		if tc.args[0] == "disable" && (*reason != "maintenance" || !conn.json) {
			t.Fatalf("flags after the positional arguments were lost: reason %q json %t", *reason, conn.json)
		}
	}
}

// TestCLIHelperProcess is not a test: it is the triage command, run by
// cliProcess in a child process with its own environment and exit code.
func TestCLIHelperProcess(t *testing.T) {
	if os.Getenv("TRIAGE_CLI_HELPER") != "1" {
		t.Skip("helper process for the CLI tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// cliProcess runs triage args in a child process with env.
func cliProcess(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^TestCLIHelperProcess$", "--"}, args...)...)
	cmd.Env = append(env, "TRIAGE_CLI_HELPER=1", "AWS_EC2_METADATA_DISABLED=true")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatalf("run triage %v: %v", args, err)
	}
	return 0, out.String(), errb.String()
}

// TestHealthCommandsMoto runs models and breakers against a stack in a
// local moto, by table flag and by --stack, in a child process with moto's
// environment.
func TestHealthCommandsMoto(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	lenv := localtest.Stack(t, nil)
	st := lenv.Stack
	db := dynamodb.NewFromConfig(lenv.AWS)
	models := &health.Dynamo{DB: db, Table: st.Outputs["ModelsTableName"]}
	breakers := &breaker.Dynamo{DB: db, Table: st.Outputs["BreakersTableName"]}
	now := time.Now()
	for range 5 {
		if _, err := models.RecordFailure(ctx, health.FailureRequest{Model: "bad-model", Class: work.ResponseInvalid, Reason: "not JSON", At: now}); err != nil {
			t.Fatal(err)
		}
		if _, err := breakers.RecordFailure(ctx, breaker.FailureRequest{Service: "api.example", Class: work.UpstreamUnavailable, At: now}); err != nil {
			t.Fatal(err)
		}
		// A provider-wide outage of Bedrock: its breaker opens.
		if _, err := breakers.RecordFailure(ctx, breaker.FailureRequest{Service: fallback.Service(failure.Bedrock), Class: work.UpstreamUnavailable, At: now}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := models.RecordFailure(ctx, health.FailureRequest{Model: "good-model", Class: work.ClientError, At: now}); err != nil {
		t.Fatal(err)
	}
	for range health.DefaultThreshold {
		if _, err := models.RecordFailure(ctx, health.FailureRequest{Model: "bedrock:amazon.nova-lite-v1:0", Class: work.ResponseInvalid, At: now}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := models.RecordFailure(ctx, health.FailureRequest{Model: "openai:gpt-4o-mini", Class: work.ResponseInvalid, At: now}); err != nil {
		t.Fatal(err)
	}
	env := lenv.Environ()
	byTable := []string{"--models-table", models.Table, "--breakers-table", breakers.Table}
	byStack := []string{"--models-table=", "--breakers-table=", "--stack", st.Name}

	for name, flags := range map[string][]string{"by table": byTable, "by stack": byStack} {
		code, out, errOut := cliProcess(t, env, append([]string{"models", "list"}, flags...)...)
		if code != 0 || !strings.Contains(out, "bad-model") || !strings.Contains(out, "disabled (auto)") ||
			!strings.Contains(out, "good-model") || !strings.Contains(out, "RESPONSE_INVALID") {
			t.Fatalf("%s: models list exit %d:\n%s%s", name, code, out, errOut)
		}
		// Per provider: Bedrock's breaker is open and one of its models
		// disabled; OpenAI's breaker is closed.
		providers := out[strings.Index(out, "PROVIDER"):]
		if !strings.Contains(providers, "bedrock") || !strings.Contains(providers, "open (skipped by every item)") ||
			!strings.Contains(providers, "1 (1 disabled)") || !strings.Contains(providers, "openai") || strings.Contains(providers, "anthropic") {
			t.Fatalf("%s: the providers table:\n%s", name, out)
		}
		t.Logf("triage models list (%s):\n%s", name, out)
	}
	code, out, errOut := cliProcess(t, env, append([]string{"models", "list", "--json"}, byTable...)...)
	var report struct {
		Models    []health.Model `json:"models"`
		Providers []struct {
			Provider string         `json:"provider"`
			Breaker  breaker.Record `json:"breaker"`
			Models   int            `json:"models"`
			Disabled int            `json:"disabled"`
		} `json:"providers"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &report) != nil || len(report.Models) != 4 || !report.Models[0].Disabled ||
		report.Models[0].ConsecutiveFailures != 5 || len(report.Providers) != 2 || report.Providers[0].Provider != "openai" ||
		report.Providers[1].Breaker.State != breaker.Open || report.Providers[1].Disabled != 1 {
		t.Fatalf("models list --json exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut = cliProcess(t, env, "models", "list", "--models-table", models.Table, "--breakers-table=", "--stack=")
	if code != 0 || strings.Contains(out, "PROVIDER") || !strings.Contains(out, "bedrock:amazon.nova-lite-v1:0") {
		t.Fatalf("models list without the breakers table: exit %d: %s%s", code, out, errOut)
	}

	code, out, errOut = cliProcess(t, env, append([]string{"models", "disable", "good-model", "--reason", "maintenance", "--json"}, byTable...)...)
	var m health.Model
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || !m.Disabled || m.DisabledBy != health.ByOperator || m.DisableReason != "maintenance" {
		t.Fatalf("models disable exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut = cliProcess(t, env, append([]string{"models", "enable", "bad-model"}, byStack...)...)
	if code != 0 || !strings.Contains(out, "bad-model") || !strings.Contains(out, "enabled") {
		t.Fatalf("models enable exit %d: %s%s", code, out, errOut)
	}
	if got, _ := models.Get(ctx, "bad-model"); got.Disabled || got.ConsecutiveFailures != 0 {
		t.Fatalf("after enable: %+v", got)
	}

	code, out, errOut = cliProcess(t, env, append([]string{"breakers", "list"}, byStack...)...)
	if code != 0 || !strings.Contains(out, "api.example") || !strings.Contains(out, "open") {
		t.Fatalf("breakers list exit %d: %s%s", code, out, errOut)
	}
	t.Logf("triage breakers list:\n%s", out)
	code, out, errOut = cliProcess(t, env, append([]string{"breakers", "reset", "api.example", "--json"}, byTable...)...)
	var r breaker.Record
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.State != breaker.Closed || r.ClosedBy != breaker.ByOperator {
		t.Fatalf("breakers reset exit %d: %s%s", code, out, errOut)
	}
	code, _, errOut = cliProcess(t, env, append([]string{"breakers", "reset", "never.seen"}, byTable...)...)
	if code != 1 || !strings.Contains(errOut, "breaker not found") {
		t.Fatalf("reset of an unknown breaker: exit %d, %q; want 1", code, errOut)
	}
	code, _, errOut = cliProcess(t, env, "models", "list", "--stack", "no-such-stack", "--models-table=")
	if code != 1 || !strings.Contains(errOut, "no-such-stack") {
		t.Fatalf("unknown stack: exit %d, %q; want 1", code, errOut)
	}
}

// TestHealthCommandsUnreachable: an endpoint nobody listens on is exit 1,
// with the cause on stderr.
func TestHealthCommandsUnreachable(t *testing.T) {
	t.Parallel()
	env := moto.Environ("http://127.0.0.1:1", os.Environ())
	for _, args := range [][]string{
		{"models", "list", "--models-table", "t"},
		{"breakers", "list", "--breakers-table", "t", "--endpoint", "http://127.0.0.1:1"},
		{"models", "disable", "m", "--stack", "s", "--models-table="},
	} {
		code, out, errOut := cliProcess(t, env, append(args, "--timeout", "10s")...)
		if code != 1 || out != "" || !strings.Contains(errOut, "127.0.0.1:1") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want 1 and the endpoint named", args, code, out, errOut)
		}
	}
}

// TestModelsListOnAFreshStack: before any model has failed there is no
// health record, and `models list --stack` still shows the deployed chain
// in order — its escalation model too — and the breaker of each of its
// providers.
func TestModelsListOnAFreshStack(t *testing.T) {
	t.Parallel()
	lenv := localtest.Stack(t, map[string]string{
		"LLMModels":          "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0,gpt-4o-mini",
		"LLMEscalationModel": "openai:gpt-4o",
	})
	code, out, errOut := cliProcess(t, lenv.Environ(), "models", "list", "--stack", lenv.Stack.Name, "--models-table=", "--breakers-table=")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if want := "chain (stack " + lenv.Stack.Name + "): bedrock:anthropic.claude-3-5-haiku-20241022-v1:0 → openai:gpt-4o-mini; escalation openai:gpt-4o"; !strings.Contains(out, want) {
		t.Errorf("models list lacks %q:\n%s", want, out)
	}
	for _, want := range []string{
		`bedrock:anthropic.claude-3-5-haiku-20241022-v1:0\s+1\s+enabled \(no failure recorded\)`,
		`openai:gpt-4o-mini\s+2\s+enabled \(no failure recorded\)`, `openai:gpt-4o\s+escalation\s+enabled`,
		`(?s)PROVIDER.*openai\s+closed\s.*\s2\n`, `(?s)PROVIDER.*bedrock\s+closed\s.*\s1\n`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("models list does not match %s:\n%s", want, out)
		}
	}
	code, out, errOut = cliProcess(t, lenv.Environ(), "models", "list", "--stack", lenv.Stack.Name, "--models-table=", "--breakers-table=", "--json")
	var report struct {
		Chain      []string `json:"chain"`
		Escalation string   `json:"escalation"`
		Providers  []struct {
			Provider string `json:"provider"`
		} `json:"providers"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &report) != nil || len(report.Chain) != 2 || report.Escalation != "openai:gpt-4o" ||
		len(report.Providers) != 2 {
		t.Fatalf("models list --json exit %d: %s%s", code, out, errOut)
	}
}

// TestModelsDisableRefusesAModelNobodyRuns: health records are keyed by the
// chain's provider:model names, and disabling a name no chain entry carries
// and no record holds (a typo, or the bare model name the LLMModels
// parameter allows) would write a record nothing reads, and say
// "disabled" while the model goes on serving. With --stack the deployed
// chain is known: such a name is refused, and nothing is written.
func TestModelsDisableRefusesAModelNobodyRuns(t *testing.T) {
	t.Parallel()
	lenv := localtest.Stack(t, map[string]string{"LLMModels": "gpt-4o-mini,bedrock:amazon.nova-lite-v1:0"})
	st := lenv.Stack
	models := &health.Dynamo{DB: dynamodb.NewFromConfig(lenv.AWS), Table: st.Outputs["ModelsTableName"]}
	if _, err := models.RecordFailure(t.Context(), health.FailureRequest{Model: "openai:gpt-3.5-turbo", Class: work.ResponseInvalid, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--stack", st.Name, "--models-table=", "--breakers-table="}
	for _, name := range []string{"gpt-4o-mini", "openai:gpt-4o-mni"} {
		code, out, errOut := cliProcess(t, lenv.Environ(), append([]string{"models", "disable", name, "--reason", "garbage answers"}, flags...)...)
		if code != 2 || !strings.Contains(errOut, "openai:gpt-4o-mini") {
			t.Errorf("models disable %s: exit %d, want 2 naming the chain\n%s%s", name, code, out, errOut)
		}
		if _, err := models.Get(t.Context(), name); !errors.Is(err, health.ErrNotFound) {
			t.Errorf("models disable %s wrote a record: %v", name, err)
		}
	}
	// The chain's names, and a model with a record, are taken.
	for _, name := range []string{"openai:gpt-4o-mini", "openai:gpt-3.5-turbo"} {
		if code, out, errOut := cliProcess(t, lenv.Environ(), append([]string{"models", "disable", name}, flags...)...); code != 0 {
			t.Errorf("models disable %s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
}
