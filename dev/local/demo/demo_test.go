package demo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/demo"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/work"
)

func requireTools(t *testing.T) {
	t.Helper()
	localtest.Require(t, "moto_server", moto.InstallHint)
}

// TestDemoHappyPathCost runs the demo with no faults and pins the cost of
// an item: the fetch stage's create from the submitted spec (one
// conditional PutItem), two DynamoDB write requests per stage (the claim,
// and the success write: an UpdateItem, or a TransactWriteItems with a
// small body), nothing else per item but the batched forwards and the body
// reads. The daily budget leases a chunk per instance every 20 calls or so
// (a call's settlement to its tokens stays in the instance's pocket), and
// the breaker and model-health caches read per instance and time, not per
// item. An action task adds the audit of its execution, one PutItem; no
// notice: the happy path tells nobody anything but the result.
func TestDemoHappyPathCost(t *testing.T) {
	requireTools(t)
	const items = 20
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sum, err := demo.Run(ctx, demo.Options{Items: items, Faults: "none", Out: &out, LogDir: localtest.KeptDir(t, "triage-demo-"), Timeout: time.Minute})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if sum.ByState[work.Done] != items || !sum.Conserved() {
		t.Fatalf("summary %+v", sum)
	}
	noChildren(t)
	writes := sum.AWSCalls["DynamoDB.UpdateItem"] + sum.AWSCalls["DynamoDB.TransactWriteItems"]
	// At most a budget lease per 10 calls, and one per instance to start.
	if budget := writes - 6*items; budget < 0 || budget > items/10+4 {
		t.Fatalf("DynamoDB writes = %d for %d items, want 2 per stage (%d) and a few budget leases\n%s", writes, items, 6*items, out.String())
	}
	if bodies := sum.AWSCalls["DynamoDB.TransactWriteItems"] + sum.AWSCalls["S3.PutObject"]; bodies != 2*items {
		t.Fatalf("%d bodies written for %d items, want the document and the enrichment of each, once", bodies, items)
	}
	// The demo's every 10th item is an action task: its one execution is
	// audited with one PutItem; stories and documents gain nothing.
	const actions = items / 10
	if got := sum.AWSCalls["DynamoDB.PutItem"]; got != items+actions {
		t.Fatalf("DynamoDB.PutItem = %d for %d items (%d action tasks), want exactly 1 (the create) per item and 1 (the audit) per action execution (%d)\n%s",
			got, items, actions, items+actions, out.String())
	}
	if got := sum.AWSCalls["SQS.SendMessage"] + sum.AWSCalls["SQS.ChangeMessageVisibilityBatch"]; got != 0 {
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
	sum, err := demo.Run(ctx, demo.Options{Items: 30, Seed: 7, Out: &out, LogDir: localtest.KeptDir(t, "triage-demo-"), Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	noChildren(t)
	if !sum.Conserved() || sum.ByState[work.Deadletter] == 0 || len(sum.Retries) == 0 {
		t.Fatalf("want retries, dead letters and conservation: %+v\n%s", sum, out.String())
	}
	if !strings.Contains(out.String(), "conservation: seeded 30") {
		t.Fatalf("summary lacks the conservation line:\n%s", out.String())
	}
}

// TestDemoFailsWhenAClaimDoesNotHold: with phase 2's effect kept from
// happening (the bad model answers well, so nothing disables it), the demo
// says which claim does not hold and fails, rather than printing its story.
func TestDemoFailsWhenAClaimDoesNotHold(t *testing.T) {
	requireTools(t)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, err := demo.Run(ctx, demo.Options{Items: 10, Seed: 1, Out: &out, LogDir: localtest.KeptDir(t, "triage-demo-"), Timeout: 2 * time.Minute, Break: demo.BreakModelHealth})
	noChildren(t)
	if !errors.Is(err, demo.ErrClaim) || !strings.Contains(err.Error(), "phase 2") || !strings.Contains(err.Error(), "was disabled by its model health") {
		t.Fatalf("err = %v, want phase 2's claim\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "✗ bedrock:acme.bad-model-v1:0 was disabled") || strings.Contains(out.String(), "== 3.") {
		t.Fatalf("the demo did not stop at the claim it could not make:\n%s", out.String())
	}
}

// noChildren fails when a process this test process started — moto, a
// bootstrap, a fake — is still there (running or unreaped) after a demo
// returned. The package's two demos run one after the other in one process,
// so the second also shows that a demo starts clean after another.
func noChildren(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	var left []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == self {
			left = append(left, fmt.Sprintf("%d %s (state %s)", pid, stat[strings.IndexByte(string(stat), '(')+1:i], f[0]))
		}
	}
	if len(left) > 0 {
		t.Fatalf("the demo left processes behind: %s", strings.Join(left, "; "))
	}
}
