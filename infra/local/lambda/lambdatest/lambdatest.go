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

	"github.com/triagehq/triage/infra/local/localtest"
)

// TestFunction is the import path of the test bootstrap: one aws-lambda-go
// function whose behaviour the event chooses (echo, log, sleep, exit,
// panic, fail, big responses, SQS batches with per-record failures); see
// its package documentation.
const TestFunction = "github.com/triagehq/triage/infra/local/lambda/testdata/fn"

// BuildTimeout bounds one build.
const BuildTimeout = 3 * time.Minute

// Build compiles the main package pkg (an import path, or a path relative
// to the module root such as "./functions/fetch") for this machine, as the
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
