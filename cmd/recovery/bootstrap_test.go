package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/gates/health"
)

// TestRecoveryBootstrap runs the real recovery function, built as its
// bootstrap, with the environment template.yaml gives RecoveryFunc, against
// a moto stack: on time it leaves a freshly disabled model alone; with its
// clock 61 minutes ahead (RECOVERY_CLOCK_OFFSET, what `make demo` uses) it
// re-enables it with a count of 2 and prints a ModelRecoveries EMF line.
func TestRecoveryBootstrap(t *testing.T) {
	t.Parallel()
	env, served, ctx := lambdatest.Start(t, nil, "RecoveryFunc", "./cmd/recovery")
	svc, fn, vars := served.Service, served.Function, served.Env
	if ev := served.Schedule(t); ev.Schedule != "rate(30 minutes)" {
		t.Fatalf("RecoveryFunc's schedule = %q, want rate(30 minutes)", ev.Schedule)
	}
	ahead := map[string]string{clockOffsetEnv: "61m"}
	maps.Copy(ahead, vars)
	if err := svc.Register(lambda.Function{Name: "RecoveryFuncAhead", Bootstrap: served.Bootstrap, Env: ahead, Timeout: fn.Timeout}); err != nil {
		t.Fatal(err)
	}

	store := &health.Dynamo{DB: dynamodb.NewFromConfig(env.AWS), Table: vars["MODELS_TABLE"]}
	disable(t, store, "bad-model", time.Now())
	event := localtest.Event(t, "recovery/scheduled.json")
	for _, tc := range []struct {
		fn        string
		recovered string
	}{{"RecoveryFunc", ""}, {"RecoveryFuncAhead", "bad-model"}} {
		res := served.Invoke(t, ctx, tc.fn, event)
		var rep health.Report
		if err := json.Unmarshal(res.Payload, &rep); err != nil || strings.Join(rep.Recovered, ",") != tc.recovered {
			t.Fatalf("%s: report %s (%v), want recovered %q\n%s", tc.fn, res.Payload, err, tc.recovered, res.Logs)
		}
		if tc.recovered != "" && !strings.Contains(res.Logs, `"ModelRecoveries":1`) {
			t.Fatalf("%s: no ModelRecoveries EMF line in\n%s", tc.fn, res.Logs)
		}
	}
	m, err := store.Get(ctx, "bad-model")
	if err != nil || m.Disabled || m.ConsecutiveFailures != health.DefaultResetTo {
		t.Fatalf("after the run: %+v, %v", m, err)
	}
}

// TestRulesAtInit runs the real recovery bootstrap with the classification
// rules its configuration names (docs/design.md "Operator rules"): the
// SSM parameter ClassificationRulesParameter gives it, read with the
// template's environment, and the rules.yaml bundled beside the bootstrap.
// Good rules are installed and logged; a bad rule fails the init with its
// source, line and reason.
func TestRulesAtInit(t *testing.T) {
	t.Parallel()
	param := "/" + localtest.UniqueName(t) + "/rules"
	env, served, ctx := lambdatest.Start(t, map[string]string{"ClassificationRulesParameter": param}, "RecoveryFunc", "./cmd/recovery")
	svc, fn, vars := served.Service, served.Function, served.Env
	if vars["CLASSIFICATION_RULES_PARAMETER"] != param {
		t.Fatalf("the template gives CLASSIFICATION_RULES_PARAMETER=%q, want %q", vars["CLASSIFICATION_RULES_PARAMETER"], param)
	}
	params := ssm.NewFromConfig(env.AWS)
	put := func(value string) {
		t.Helper()
		if _, err := params.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String(param), Value: aws.String(value),
			Type: ssmtypes.ParameterTypeString, Overwrite: aws.Bool(true)}); err != nil {
			t.Fatal(err)
		}
	}
	event := localtest.Event(t, "recovery/scheduled.json")
	bundled := filepath.Join(filepath.Dir(served.Bootstrap), "rules.yaml")
	withoutParam := maps.Clone(vars)
	delete(withoutParam, "CLASSIFICATION_RULES_PARAMETER")
	for i, tc := range []struct {
		name    string
		env     map[string]string
		ssm     string
		bundled string
		want    string // in the logs
		fails   bool
	}{
		{name: "good rules from the parameter", env: vars, ssm: "rules:\n  - name: acme\n    code: E_SLOWDOWN\n    class: RATE_LIMITED\n",
			bundled: "rules:\n  - name: bundled\n    code: X\n    class: NOT_FOUND\n  - name: b2\n    code: Y\n    class: NOT_FOUND\n",
			want:    `"rules":1,"source":"ssm:` + param + `"`},
		{name: "a bad rule in the parameter", env: vars, ssm: "rules:\n  - name: acme\n    code: E_SLOWDOWN\n    class: SLOW\n",
			want: `ssm:` + param + `:4: rule \"acme\": class \"SLOW\" is not one of`, fails: true},
		{name: "the bundled file without a parameter", env: withoutParam,
			bundled: "rules:\n  - name: bundled\n    code: X\n    class: NOT_FOUND\n  - name: b2\n    code: Y\n    class: NOT_FOUND\n",
			want:    `"rules":2,"source":"` + bundled + `"`},
		{name: "a bad bundled file", env: withoutParam, bundled: "rules:\n  - name: bundled\n    pattern: '(x'\n    class: NOT_FOUND\n",
			want: bundled + `:3: rule \"bundled\": pattern does not compile`, fails: true},
	} {
		if tc.ssm != "" {
			put(tc.ssm)
		}
		if err := os.WriteFile(bundled, []byte(tc.bundled), 0o644); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("RecoveryRules%d", i)
		if err := svc.Register(lambda.Function{Name: name, Bootstrap: served.Bootstrap, Env: tc.env, Timeout: fn.Timeout}); err != nil {
			t.Fatal(err)
		}
		res, err := svc.Invoke(ctx, name, event)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (res.FunctionError != nil) != tc.fails {
			t.Errorf("%s: function error %v, want failing %v\n%s", tc.name, res.FunctionError, tc.fails, res.Logs)
		}
		if !strings.Contains(res.Logs, tc.want) {
			t.Errorf("%s: logs lack %s\n%s", tc.name, tc.want, res.Logs)
		}
	}
}
