package conf_test

import (
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/telemetry"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestReaderCollectsEveryError(t *testing.T) {
	t.Parallel()
	r := conf.New(env(map[string]string{"N": "x", "D": "-1s", "B": "maybe", "P": "0", "O": "-2h"}))
	r.Required("MISSING")
	r.Int("N", 1)
	r.TestOverride("D")
	r.Bool("B", true)
	r.PositiveInt("P", 1)
	r.TestOverride("O")
	err := r.Err("test")
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"test configuration", "MISSING is required", `N="x"`, `D="-1s"`, `B="maybe"`, `P="0"`, `O="-2h"`} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

func TestReaderValuesAndDefaults(t *testing.T) {
	t.Parallel()
	r := conf.New(env(map[string]string{"S": " v ", "N": "3", "D": "90s", "B": "false", "O": "61m"}))
	tests := []struct {
		name      string
		got, want any
	}{
		{"string trimmed", r.String("S"), "v"},
		{"required", r.Required("S"), "v"},
		{"int", r.Int("N", 7), 3},
		{"int default", r.Int("UNSET", 7), 7},
		{"positive int default", r.PositiveInt("UNSET", 0), 0},
		{"override in seconds", r.TestOverride("D"), 90 * time.Second},
		{"bool", r.Bool("B", true), false},
		{"bool default", r.Bool("UNSET", true), true},
		{"override", r.TestOverride("O"), 61 * time.Minute},
		{"override unset", r.TestOverride("UNSET"), time.Duration(0)},
		{"overrides set", len(r.Overrides()), 2},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if err := r.Err("test"); err != nil {
		t.Fatalf("valid values: %v", err)
	}
}

// The namespace is METRICS_NAMESPACE, trimmed, or the default.
func TestProcessNamespace(t *testing.T) {
	t.Parallel()
	kv := map[string]string{}
	if got := conf.New(env(kv)).Process().MetricsNamespace; got != telemetry.DefaultNamespace {
		t.Fatalf("unset: %q", got)
	}
	kv["METRICS_NAMESPACE"] = " triage/prod "
	if got := conf.New(env(kv)).Process().MetricsNamespace; got != "triage/prod" {
		t.Fatalf("set: %q", got)
	}
	kv["LOG_LEVEL"], kv["AWS_LAMBDA_FUNCTION_NAME"] = "debug", "triage-LLMFunc"
	if p := conf.New(env(kv)).Process(); p.LogLevel != "debug" || p.FunctionName != "triage-LLMFunc" {
		t.Fatalf("process %+v", p)
	}
}

// TestProcessRules: the rules' parameter and the bundled file's place are
// read with the rest of the process; a parameter name that is no SSM path
// fails the start.
func TestProcessRules(t *testing.T) {
	t.Parallel()
	r := conf.New(env(map[string]string{"CLASSIFICATION_RULES_PARAMETER": " /triage/rules ", "LAMBDA_TASK_ROOT": "/var/task"}))
	if p := r.Process(); p.RulesParameter != "/triage/rules" || p.RulesFile != "/var/task/rules.yaml" || r.Err("x") != nil {
		t.Errorf("process %+v, %v", p, r.Err("x"))
	}
	if p := conf.New(env(map[string]string{})).Process(); p.RulesParameter != "" || p.RulesFile != "" {
		t.Errorf("outside a function: %+v", p)
	}
	r = conf.New(env(map[string]string{"CLASSIFICATION_RULES_PARAMETER": "triage-rules"}))
	r.Process()
	if err := r.Err("fetch"); err == nil || !strings.Contains(err.Error(), "CLASSIFICATION_RULES_PARAMETER") {
		t.Errorf("a name without '/': %v", err)
	}
}
