package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
)

// parseExports reads `export K=V  # comment` lines.
func parseExports(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line, ok := strings.CutPrefix(strings.TrimSpace(line), "export ")
		if !ok {
			continue
		}
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// TestUpWalkthrough is the README's walkthrough against `triage-local up`:
// the stack stays up, and from outside it — the triage binary, with nothing
// but the printed exports — a newcomer submits an item and sees it done,
// submits one that fails, finds its dead letter and replays it to done.
// Ctrl-C (the context) then stops everything. It runs beside the
// package's other tests: its stack (its own moto, a stack of its own name)
// shares nothing with theirs, and it mostly waits on the pipeline.
func TestUpWalkthrough(t *testing.T) {
	t.Parallel()
	localtest.Require(t, "moto_server", moto.InstallHint)
	triage := lambdatest.Build(t, "./cmd/triage")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dir := t.TempDir()
	stdout, stderr := localtest.Buffer{Wrote: make(chan struct{}, 1)}, localtest.Buffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"up", "--stack", localtest.UniqueName(t), "--build", buildAlways,
			"--env-file", filepath.Join(dir, "local.env"), "--logs", filepath.Join(dir, "functions.log")}, &stdout, &stderr)
	}()
	ready := time.NewTimer(3 * time.Minute)
	defer ready.Stop()
	for !strings.Contains(stdout.String(), "export TRIAGE_WEBHOOK=") {
		select {
		case code := <-done:
			t.Fatalf("up ended with %d before it was ready\nstderr:\n%s", code, stderr.String())
		case <-stdout.Wrote:
		case <-ready.C:
			t.Fatalf("up not ready in time\nstderr:\n%s", stderr.String())
		}
	}
	exports := parseExports(stdout.String())
	file, err := os.ReadFile(filepath.Join(dir, "local.env"))
	if err != nil || parseExports(string(file))["AWS_ENDPOINT_URL"] != exports["AWS_ENDPOINT_URL"] {
		t.Fatalf("env file %q (%v) does not hold the printed exports", file, err)
	}
	// The shell of a newcomer: the exports, and no AWS settings of its own.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	for k, v := range exports {
		if k != "PATH" {
			env = append(env, k+"="+v)
		}
	}
	triageCmd := func(args ...string) (string, error) {
		t.Helper()
		cctx, ccancel := context.WithTimeout(ctx, time.Minute)
		defer ccancel()
		cmd := exec.CommandContext(cctx, triage, args...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			return out.String(), &exec.ExitError{ProcessState: cmd.ProcessState, Stderr: errb.Bytes()}
		}
		return out.String(), nil
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := triageCmd(args...)
		if err != nil {
			t.Fatalf("triage %s: %v\n%s\n%s", strings.Join(args, " "), err, out, err.(*exec.ExitError).Stderr)
		}
		return out
	}
	waitState := func(id, want string) map[string]any {
		t.Helper()
		var last string
		for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
			out, err := triageCmd("items", "get", id, "--json")
			if err != nil {
				last = err.Error()
				continue
			}
			var v map[string]any
			if json.Unmarshal([]byte(out), &v) == nil && v["state"] == want {
				return v
			}
			last = out
		}
		t.Fatalf("item %s never reached %s; last: %s\nfunctions:\n%s", id, want, last, tail(filepath.Join(dir, "functions.log")))
		return nil
	}

	// 1. An item of one's own, done.
	must("submit", "--id", "hello", "--source-url", exports["TRIAGE_ARTICLES"]+"/hello", "--webhook-url", exports["TRIAGE_WEBHOOK"]+"/me")
	if v := waitState("hello", "done"); v["status"] != "notified" {
		t.Fatalf("hello: %v", v)
	}
	if out := must("items", "get", "hello"); !strings.Contains(out, "notified (100%)") {
		t.Fatalf("items get hello:\n%s", out)
	}
	// 2. One that fails (the article is not published yet) ...
	must("submit", "--id", "unpublished-1", "--source-url", exports["TRIAGE_ARTICLES"]+"/unpublished-1",
		"--webhook-url", exports["TRIAGE_WEBHOOK"]+"/me")
	waitState("unpublished-1", "deadletter")
	if out := must("dlq", "list"); !strings.Contains(out, "unpublished-1") || !strings.Contains(out, "NOT_FOUND") || !strings.Contains(out, "replayable") {
		t.Fatalf("dlq list:\n%s", out)
	}
	// ... replayed once it is, and done.
	if out := must("dlq", "replay", "--item", "unpublished-1", "--note", "article published"); !strings.Contains(out, "replayed 1") {
		t.Fatalf("dlq replay:\n%s", out)
	}
	if v := waitState("unpublished-1", "done"); v["replay_count"] != float64(1) {
		t.Fatalf("unpublished-1 after the replay: %v", v)
	}
	if out := must("dlq", "list"); !strings.Contains(out, "0 dead letters") {
		t.Fatalf("dlq list after the replay:\n%s", out)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("up exited %d after Ctrl-C\nstderr:\n%s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("up did not stop within a minute of Ctrl-C")
	}
	if !strings.Contains(stdout.String(), "items: done 2") {
		t.Errorf("up's status lines lack the two done items:\n%s", stdout.String())
	}
}

// tail returns the last 4 KiB of a file, for a failure message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}
