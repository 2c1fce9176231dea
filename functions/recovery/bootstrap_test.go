package main

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/infra/local/lambda"
	"github.com/triagehq/triage/infra/local/lambda/lambdatest"
	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/health"
)

// TestRecoveryBootstrap runs the real recovery function, built as its
// bootstrap, with the environment template.yaml gives RecoveryFunc, against
// a moto stack: on time it leaves a freshly disabled model alone; with its
// clock 61 minutes ahead (RECOVERY_CLOCK_OFFSET, what `make demo` uses) it
// re-enables it with a count of 2 and prints a ModelRecoveries EMF line.
func TestRecoveryBootstrap(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	served := lambdatest.Serve(t, env, "RecoveryFunc", "./functions/recovery")
	svc, fn, vars := served.Service, served.Function, served.Env
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if len(fn.Events) != 1 || fn.Events[0].Schedule != "rate(30 minutes)" {
		t.Fatalf("RecoveryFunc events = %+v, want one rate(30 minutes) schedule", fn.Events)
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
		res, err := svc.Invoke(ctx, tc.fn, event)
		if err != nil || res.FunctionError != nil {
			t.Fatalf("%s: %v %v\n%s", tc.fn, err, res.FunctionError, res.Logs)
		}
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
