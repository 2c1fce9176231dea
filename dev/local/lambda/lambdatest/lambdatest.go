// Package lambdatest builds bootstrap binaries for tests that run functions
// through the local Lambda service (package lambda).
package lambdatest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/template"
)

// TestFunction is the import path of the test bootstrap: one aws-lambda-go
// function whose behaviour the event chooses (echo, log, sleep, exit,
// panic, fail, big responses, SQS batches with per-record failures); see
// its package documentation.
const TestFunction = "github.com/triagehq/triage/dev/local/lambda/testdata/fn"

// BuildTimeout bounds one build.
const BuildTimeout = 3 * time.Minute

// Build compiles the main package pkg (an import path, or a path relative
// to the module root such as "./cmd/fetch") for this machine, as the
// Makefile's `bootstraps` target does (-tags lambda.norpc, CGO_ENABLED=0),
// into t's temporary directory, and returns the path of the "bootstrap"
// binary. The binary lives as long as t: build once in a parent test and
// share it with parallel subtests. The go build cache makes repeated
// builds cheap.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	root, err := localtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("lambdatest: the go command is needed to build %s: %v", pkg, err)
	}
	out := filepath.Join(t.TempDir(), "bootstrap")
	ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "build", "-tags", "lambda.norpc", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("lambdatest: go build %s: %v\n%s", pkg, err, stderr.Bytes())
	}
	return out
}

// Served is a function of the stack served by a local Lambda service.
type Served struct {
	// Service runs the function; it is closed when the test ends.
	Service *lambda.Service
	// Function is the function's template entry; Env the environment
	// template.yaml gives it in the stack; Bootstrap the built binary.
	Function  template.Function
	Env       map[string]string
	Bootstrap string
}

// Serve builds pkg's bootstrap and registers it in a new local Lambda
// service as logicalID, with the environment and timeout template.yaml
// gives logicalID in env's stack: a bootstrap test's setup.
func Serve(t testing.TB, env *localtest.Env, logicalID, pkg string) Served {
	t.Helper()
	s := Served{Bootstrap: Build(t, pkg), Service: lambda.New(lambda.Options{BaseEnv: env.Environ()})}
	t.Cleanup(func() { _ = s.Service.Close() })
	s.Function, s.Env = env.Function(t, logicalID)
	if err := s.Service.Register(lambda.Function{Name: logicalID, Bootstrap: s.Bootstrap, Env: s.Env, Timeout: s.Function.Timeout}); err != nil {
		t.Fatal(err)
	}
	return s
}

// StartTimeout bounds a bootstrap test's invocations (Start's context).
const StartTimeout = time.Minute

// Start is a bootstrap test's whole setup: a new stack (params as
// localtest.Stack takes them) with pkg built and served in it as
// logicalID, and a context that ends with the test or after StartTimeout.
func Start(t testing.TB, params map[string]string, logicalID, pkg string) (*localtest.Env, Served, context.Context) {
	t.Helper()
	env := localtest.Stack(t, params)
	served := Serve(t, env, logicalID, pkg)
	ctx, cancel := context.WithTimeout(t.Context(), StartTimeout)
	t.Cleanup(cancel)
	return env, served, ctx
}

// Schedule returns the function's one event, failing t unless the
// template gives it exactly one, an EventBridge schedule.
func (s Served) Schedule(t testing.TB) template.Event {
	t.Helper()
	if len(s.Function.Events) != 1 || s.Function.Events[0].Type != template.EventSchedule {
		t.Fatalf("%s events = %+v, want one schedule", s.Function.LogicalID, s.Function.Events)
	}
	return s.Function.Events[0]
}

// Invoke invokes the registered function name with payload and returns
// its result, failing t (with the invocation's logs) on an error or a
// function error.
func (s Served) Invoke(t testing.TB, ctx context.Context, name string, payload []byte) lambda.Result {
	t.Helper()
	res, err := s.Service.Invoke(ctx, name, payload)
	if err != nil || res.FunctionError != nil {
		t.Fatalf("invoke %s: %v %v\n%s", name, err, res.FunctionError, res.Logs)
	}
	return res
}
