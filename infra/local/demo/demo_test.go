package demo_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/infra/local/demo"
	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/state"
)

func requireTools(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"moto_server", "aws"} {
		if _, err := exec.LookPath(bin); err != nil {
			localtest.Require(t, bin, "pip install \"moto[server]\" awscli")
		}
	}
}

// TestDemoHappyPathCost runs the demo with no faults and pins the cost of
// an item: two DynamoDB writes per stage (claim, outcome) plus the daily
// budget's charge before the model call, nothing else per item but the
// batched forwards. (Reads of the breaker and model-health caches are per
// instance and time, not per item.)
func TestDemoHappyPathCost(t *testing.T) {
	requireTools(t)
	const items = 20
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sum, err := demo.Run(ctx, demo.Options{Items: items, Faults: "none", Out: &out, LogDir: t.TempDir(), Timeout: time.Minute})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if sum.ByState[state.Done] != items || !sum.Conserved() {
		t.Fatalf("summary %+v", sum)
	}
	if got := sum.AWSCalls["DynamoDB.UpdateItem"]; got != 7*items {
		t.Fatalf("DynamoDB.UpdateItem = %d for %d items, want exactly 2 per stage and 1 budget charge (%d)\n%s", got, items, 7*items, out.String())
	}
	if got := sum.AWSCalls["DynamoDB.PutItem"] + sum.AWSCalls["SQS.SendMessage"] + sum.AWSCalls["SQS.ChangeMessageVisibilityBatch"]; got != 0 {
		t.Fatalf("the happy path made %d failure-path requests", got)
	}
}

// TestDemoWithFaults runs a small demo under the standard fault mix: it must
// settle with every item done or dead-lettered, one DLQ message per dead
// letter, nothing in flight.
func TestDemoWithFaults(t *testing.T) {
	requireTools(t)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sum, err := demo.Run(ctx, demo.Options{Items: 30, Seed: 7, Out: &out, LogDir: t.TempDir(), Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !sum.Conserved() || sum.ByState[state.Deadletter] == 0 || len(sum.Retries) == 0 {
		t.Fatalf("want retries, dead letters and conservation: %+v\n%s", sum, out.String())
	}
	if !strings.Contains(out.String(), "conservation: seeded 30") {
		t.Fatalf("summary lacks the conservation line:\n%s", out.String())
	}
}
