package lambda_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
)

// bundle is one Service with one registered function.
type bundle struct {
	svc  *lambda.Service
	name string
	logs *localtest.Buffer
}

func setup(t *testing.T, bin string, fn lambda.Function, opts lambda.Options) *bundle {
	t.Helper()
	b := &bundle{logs: &localtest.Buffer{}}
	if opts.Logs == nil {
		opts.Logs = b.logs
	}
	b.svc = lambda.New(opts)
	t.Cleanup(func() {
		if err := b.svc.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if fn.Name == "" {
		fn.Name = "Fn"
	}
	if fn.Bootstrap == "" {
		fn.Bootstrap = bin
	}
	if fn.Timeout == 0 {
		fn.Timeout = 5 * time.Second
	}
	if err := b.svc.Register(fn); err != nil {
		t.Fatal(err)
	}
	b.name = fn.Name
	return b
}

func (b *bundle) invoke(t *testing.T, payload string) lambda.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := b.svc.Invoke(ctx, b.name, []byte(payload))
	if err != nil {
		t.Fatalf("Invoke(%s): %v", payload, err)
	}
	return res
}

// wantOK fails unless res is a success, and decodes its payload.
func wantOK(t *testing.T, res lambda.Result) map[string]any {
	t.Helper()
	if res.FunctionError != nil {
		t.Fatalf("function error %v; logs:\n%s", res.FunctionError, res.Logs)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Payload, &out); err != nil {
		t.Fatalf("payload %q: %v", res.Payload, err)
	}
	return out
}

// wantError fails unless res is a function error of type typ whose message
// matches msg (a prefix, after "RequestId: <id> Error: " for platform errors).
func wantError(t *testing.T, res lambda.Result, typ, msg string) {
	t.Helper()
	fe := res.FunctionError
	if fe == nil {
		t.Fatalf("no function error; payload %s", res.Payload)
	}
	if fe.Type != typ || !strings.HasPrefix(fe.Message, msg) {
		t.Fatalf("function error %q %q, want %q %q…", fe.Type, fe.Message, typ, msg)
	}
	var doc struct{ ErrorType, ErrorMessage string }
	if err := json.Unmarshal(res.Payload, &doc); err != nil || doc.ErrorType != typ {
		t.Errorf("error payload %s does not carry errorType %s", res.Payload, typ)
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// waitGone waits (bounded) until pid no longer exists.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestService(t *testing.T) {
	t.Parallel()
	bin := lambdatest.Build(t, lambdatest.TestFunction)
	platformMsg := func(res lambda.Result, rest string) string {
		return "RequestId: " + res.RequestID + " Error: " + rest
	}

	t.Run("echo, warm reuse, environment", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var lines []string
		b := setup(t, bin, lambda.Function{Name: "Echo", MemoryMB: 256, Env: map[string]string{"FROM_FUNCTION": "fn", "FROM_BASE": "function wins"}},
			lambda.Options{
				BaseEnv: []string{"FROM_BASE=base", "AWS_REGION=eu-west-1"},
				OnLog:   func(fn, line string) { mu.Lock(); lines = append(lines, fn+": "+line); mu.Unlock() },
			})
		before := time.Now()
		first := b.invoke(t, `{"echo":"hi","log":"hello from the handler"}`)
		out := wantOK(t, first)
		if !first.ColdStart || first.InitDuration <= 0 || first.PID <= 0 {
			t.Errorf("first: cold %v init %v pid %d", first.ColdStart, first.InitDuration, first.PID)
		}
		if out["echo"] != "hi" || out["request_id"] != first.RequestID || out["arn"] != "arn:aws:lambda:us-east-1:123456789012:function:Echo" {
			t.Errorf("payload %v (request %s)", out, first.RequestID)
		}
		if d := int64(out["deadline_ms"].(float64)); d < before.Add(5*time.Second).UnixMilli() || d > time.Now().Add(5*time.Second).UnixMilli() {
			t.Errorf("deadline %d is not now + 5s", d)
		}
		env := out["env"].(map[string]any)
		for k, want := range map[string]string{
			"AWS_LAMBDA_FUNCTION_NAME": "Echo", "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
			"AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "_HANDLER": "bootstrap", "LAMBDA_TASK_ROOT": filepath.Dir(bin),
			"FROM_FUNCTION": "fn", "FROM_BASE": "function wins",
		} {
			if env[k] != want {
				t.Errorf("env %s = %v, want %q", k, env[k], want)
			}
		}
		if tr, _ := env["_X_AMZN_TRACE_ID"].(string); !strings.HasPrefix(tr, "Root=1-") {
			t.Errorf("trace id %q", tr)
		}
		if !strings.Contains(first.Logs, "init done") || !strings.Contains(first.Logs, "hello from the handler") {
			t.Errorf("first logs %q lack init and handler lines", first.Logs)
		}

		second := b.invoke(t, `{"echo":2}`)
		if out := wantOK(t, second); out["echo"] != 2.0 {
			t.Errorf("second payload %v", out)
		}
		if second.ColdStart || second.InitDuration != 0 || second.PID != first.PID || second.RequestID == first.RequestID {
			t.Errorf("second: cold %v init %v pid %d (first %d)", second.ColdStart, second.InitDuration, second.PID, first.PID)
		}
		if strings.Contains(second.Logs, "init done") {
			t.Errorf("warm logs %q hold the init", second.Logs)
		}
		st, _ := b.svc.Stats("Echo")
		if st.Invocations != 2 || st.ColdStarts != 1 || len(st.InitDurations) != 1 || st.Environments != 1 || st.FunctionErrors != 0 {
			t.Errorf("stats %+v", st)
		}
		if !strings.Contains(b.logs.String(), "[Echo] hello from the handler\n") {
			t.Errorf("Logs writer got %q", b.logs.String())
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(lines, "Echo: init done") {
			t.Errorf("OnLog got %q", lines)
		}
	})

	t.Run("handler error keeps the environment", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{}, lambda.Options{})
		first := b.invoke(t, `{"fail":"boom"}`)
		wantError(t, first, "errorString", "boom")
		second := b.invoke(t, `{"echo":1}`)
		wantOK(t, second)
		if second.ColdStart || second.PID != first.PID {
			t.Errorf("environment not reused after a handled error: cold %v pid %d/%d", second.ColdStart, second.PID, first.PID)
		}
	})

	t.Run("panic is a function error and the next invoke works", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{}, lambda.Options{})
		first := b.invoke(t, `{"panic":"kaboom"}`)
		// aws-lambda-go reports a panic as an invocation error (type: the
		// panic value's type) with a stack trace, then exits.
		wantError(t, first, "string", "kaboom")
		if !bytes.Contains(first.Payload, []byte(`"stackTrace"`)) {
			t.Errorf("panic payload %s has no stack trace", first.Payload)
		}
		waitGone(t, first.PID)
		second := b.invoke(t, `{"echo":"after panic"}`)
		if out := wantOK(t, second); out["echo"] != "after panic" {
			t.Errorf("payload %v", out)
		}
		if !second.ColdStart || second.PID == first.PID {
			t.Errorf("after a panic: cold %v pid %d (first %d)", second.ColdStart, second.PID, first.PID)
		}
	})

	t.Run("timeout kills the environment and the next invoke works", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{Timeout: 500 * time.Millisecond}, lambda.Options{})
		first := b.invoke(t, `{"log":"going to sleep","sleep_ms":10000}`)
		wantError(t, first, lambda.ErrorTypeTimeout, platformMsg(first, "Task timed out after 0.50 seconds"))
		if first.Duration != 500*time.Millisecond {
			t.Errorf("duration %v, want the timeout", first.Duration)
		}
		if !strings.Contains(first.Logs, "going to sleep") {
			t.Errorf("logs %q", first.Logs)
		}
		waitGone(t, first.PID)
		second := b.invoke(t, `{"echo":1}`)
		wantOK(t, second)
		if !second.ColdStart || second.PID == first.PID {
			t.Errorf("after a timeout: cold %v pid %d (first %d)", second.ColdStart, second.PID, first.PID)
		}
		if st, _ := b.svc.Stats(b.name); st.Timeouts != 1 || st.Crashes != 1 || st.ColdStarts != 2 || st.FunctionErrors != 1 {
			t.Errorf("stats %+v", st)
		}
	})

	t.Run("exit during an invocation", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{}, lambda.Options{})
		first := b.invoke(t, `{"log":"exiting","exit":3}`)
		wantError(t, first, lambda.ErrorTypeExit, platformMsg(first, "Runtime exited with error: exit status 3"))
		if !strings.Contains(first.Logs, "exiting") {
			t.Errorf("logs %q", first.Logs)
		}
		second := b.invoke(t, `{"echo":1}`)
		wantOK(t, second)
		if !second.ColdStart {
			t.Error("no fresh environment after the exit")
		}
	})

	t.Run("exit 0 during an invocation", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{}, lambda.Options{})
		res := b.invoke(t, `{"exit":0}`)
		wantError(t, res, lambda.ErrorTypeExit, platformMsg(res, "Runtime exited without providing a reason"))
	})

	t.Run("killed from outside while idle", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{}, lambda.Options{})
		first := b.invoke(t, `{}`)
		if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for st, _ := b.svc.Stats(b.name); st.Environments > 0; st, _ = b.svc.Stats(b.name) {
			if time.Now().After(deadline) {
				t.Fatalf("the killed environment is still listed: %+v", st)
			}
			time.Sleep(10 * time.Millisecond)
		}
		second := b.invoke(t, `{}`)
		wantOK(t, second)
		if !second.ColdStart {
			t.Error("a dead idle environment was reused")
		}
	})

	t.Run("init exits", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{Env: map[string]string{"TEST_INIT": "exit"}}, lambda.Options{})
		for range 2 {
			res := b.invoke(t, `{}`)
			wantError(t, res, lambda.ErrorTypeExit, platformMsg(res, "Runtime exited with error: exit status 2"))
			if !res.ColdStart || res.InitDuration <= 0 || !strings.Contains(res.Logs, "init: giving up") {
				t.Errorf("cold %v init %v logs %q", res.ColdStart, res.InitDuration, res.Logs)
			}
		}
		if st, _ := b.svc.Stats(b.name); st.ColdStarts != 2 || st.Environments != 0 || len(st.InitDurations) != 0 {
			t.Errorf("stats %+v", st)
		}
	})

	t.Run("init error reported", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{Env: map[string]string{"TEST_INIT": "report"}}, lambda.Options{})
		res := b.invoke(t, `{}`)
		wantError(t, res, "Config.Invalid", "config: TABLE is required")
		if !strings.Contains(res.Logs, "init: reporting an init error") {
			t.Errorf("logs %q", res.Logs)
		}
	})

	t.Run("init timeout", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{Env: map[string]string{"TEST_INIT": "hang"}}, lambda.Options{InitTimeout: 300 * time.Millisecond})
		res := b.invoke(t, `{}`)
		wantError(t, res, lambda.ErrorTypeTimeout, platformMsg(res, "Task timed out after 0.30 seconds"))
		waitGone(t, res.PID)
	})

	t.Run("response too large", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{}, lambda.Options{})
		res := b.invoke(t, `{"big":`+strconv.Itoa(lambda.MaxResponseSize)+`}`)
		wantError(t, res, lambda.ErrorTypeResponseTooLarge, "Response payload size exceeded maximum allowed payload size (6291556 bytes).")
		wantOK(t, b.invoke(t, `{}`))
	})

	t.Run("concurrency is bounded by MaxEnvironments", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{MaxEnvironments: 2}, lambda.Options{})
		var wg sync.WaitGroup
		results := make([]lambda.Result, 4)
		for i := range results {
			wg.Go(func() { results[i] = b.invoke(t, `{"sleep_ms":300}`) })
		}
		wg.Wait()
		pids := map[int]bool{}
		for _, r := range results {
			wantOK(t, r)
			pids[r.PID] = true
		}
		if st, _ := b.svc.Stats(b.name); len(pids) != 2 || st.ColdStarts != 2 {
			t.Errorf("%d environments, stats %+v; want 2", len(pids), st)
		}
	})

	t.Run("context ends the invocation", func(t *testing.T) {
		t.Parallel()
		b := setup(t, bin, lambda.Function{}, lambda.Options{})
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		res, err := b.svc.Invoke(ctx, b.name, []byte(`{"sleep_ms":10000}`))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		waitGone(t, res.PID)
		wantOK(t, b.invoke(t, `{}`))
	})

	t.Run("bootstrap gone", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "bootstrap")
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		b := setup(t, bin, lambda.Function{Bootstrap: path}, lambda.Options{})
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		res := b.invoke(t, `{}`)
		wantError(t, res, lambda.ErrorTypeInvalidEntrypoint, platformMsg(res, "fork/exec "+path))
	})

	t.Run("close stops every process", func(t *testing.T) {
		t.Parallel()
		svc := lambda.New(lambda.Options{StopGrace: time.Second})
		if err := svc.Register(lambda.Function{Name: "A", Bootstrap: bin}); err != nil {
			t.Fatal(err)
		}
		res, err := svc.Invoke(t.Context(), "A", []byte(`{}`))
		if err != nil || res.FunctionError != nil {
			t.Fatal(err, res.FunctionError)
		}
		if got := svc.PIDs("A"); !slices.Equal(got, []int{res.PID}) {
			t.Errorf("PIDs = %v, want [%d]", got, res.PID)
		}
		if err := svc.Close(); err != nil {
			t.Fatal(err)
		}
		if alive(res.PID) {
			t.Errorf("pid %d survived Close", res.PID)
		}
		if err := svc.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if _, err := svc.Invoke(t.Context(), "A", []byte(`{}`)); !errors.Is(err, lambda.ErrClosed) {
			t.Errorf("Invoke after Close: %v", err)
		}
	})

	t.Run("close during an invocation", func(t *testing.T) {
		t.Parallel()
		svc := lambda.New(lambda.Options{StopGrace: time.Second})
		if err := svc.Register(lambda.Function{Name: "A", Bootstrap: bin, Timeout: time.Minute}); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := svc.Invoke(context.Background(), "A", []byte(`{"log":"started","sleep_ms":60000}`))
			errc <- err
		}()
		// Wait (bounded) until the invocation runs, then close.
		deadline := time.Now().Add(10 * time.Second)
		for len(svc.PIDs("A")) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if err := svc.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-errc:
			if !errors.Is(err, lambda.ErrClosed) {
				t.Errorf("in-flight Invoke: %v, want ErrClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Invoke did not return after Close")
		}
	})
}

func TestServiceErrors(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(t.TempDir(), "bootstrap")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	svc := lambda.New(lambda.Options{})
	defer svc.Close()
	if err := svc.Register(lambda.Function{Name: "Ok", Bootstrap: exe}); err != nil {
		t.Fatal(err)
	}
	tests := map[string]lambda.Function{
		"bad name":           {Name: "has space", Bootstrap: exe},
		"no bootstrap":       {Name: "X"},
		"missing bootstrap":  {Name: "X", Bootstrap: "/nonexistent/bootstrap"},
		"not executable":     {Name: "X", Bootstrap: notExec},
		"directory":          {Name: "X", Bootstrap: t.TempDir()},
		"timeout too long":   {Name: "X", Bootstrap: exe, Timeout: 16 * time.Minute},
		"already registered": {Name: "Ok", Bootstrap: exe},
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			if err := svc.Register(fn); !errors.Is(err, lambda.ErrInvalidFunction) {
				t.Errorf("Register(%+v) = %v, want ErrInvalidFunction", fn, err)
			}
		})
	}
	if _, err := svc.Invoke(t.Context(), "Nope", nil); !errors.Is(err, lambda.ErrUnknownFunction) {
		t.Errorf("unknown function: %v", err)
	}
	if _, err := svc.Invoke(t.Context(), "Ok", make([]byte, lambda.MaxPayloadSize+1)); !errors.Is(err, lambda.ErrPayloadTooLarge) {
		t.Errorf("large payload: %v", err)
	}
	if _, ok := svc.Stats("Nope"); ok {
		t.Error("Stats of an unknown function")
	}
}

// TestRuntimeAPI drives the Runtime API with a hand-written runtime (this
// test binary, see runProtocolHelper).
func TestRuntimeAPI(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t, "", lambda.Function{Name: "Proto", Bootstrap: exe}, lambda.Options{BaseEnv: []string{helperEnv + "=protocol"}})

	res := b.invoke(t, `{"action":"report"}`)
	var report map[string]any
	if err := json.Unmarshal(wantOKRaw(t, res), &report); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"next_status": 200.0, "content_type": "application/json", "request_id": res.RequestID,
		"arn":             "arn:aws:lambda:us-east-1:123456789012:function:Proto",
		"wrong_id_status": 400.0, "wrong_id_error_status": 400.0, "init_error_after_ready": 403.0,
	} {
		if report[k] != want {
			t.Errorf("%s = %v, want %v", k, report[k], want)
		}
	}
	if d, err := strconv.ParseInt(report["deadline_ms"].(string), 10, 64); err != nil || d < time.Now().UnixMilli() {
		t.Errorf("deadline %v", report["deadline_ms"])
	}
	if tr := report["trace_id"].(string); !strings.HasPrefix(tr, "Root=1-") || !strings.Contains(tr, ";Parent=") {
		t.Errorf("trace id %q", tr)
	}

	res = b.invoke(t, `{"action":"error-header"}`)
	wantError(t, res, "Custom.Type", "plain text failure")

	res = b.invoke(t, `{"action":"trailer"}`)
	wantError(t, res, "Stream.Failed", "stream broke")

	res = b.invoke(t, `{"action":"echo"}`)
	if string(wantOKRaw(t, res)) != `{"action":"echo"}` {
		t.Errorf("echo payload %s", res.Payload)
	}
	if !strings.Contains(b.logs.String(), "ok status 202") || !strings.Contains(b.logs.String(), "second answer status 400") {
		t.Errorf("helper log %q", b.logs.String())
	}
	if st, _ := b.svc.Stats("Proto"); st.ColdStarts != 1 {
		t.Errorf("the hand-written runtime was restarted: %+v", st)
	}
}

func wantOKRaw(t *testing.T, res lambda.Result) []byte {
	t.Helper()
	if res.FunctionError != nil {
		t.Fatalf("function error %v; logs:\n%s", res.FunctionError, res.Logs)
	}
	return res.Payload
}

func TestFunctionError(t *testing.T) {
	t.Parallel()
	err := error(&lambda.FunctionError{Type: lambda.ErrorTypeTimeout, Message: "Task timed out after 3.00 seconds"})
	var fe *lambda.FunctionError
	if !errors.As(fmt.Errorf("wrapped: %w", err), &fe) || fe.Type != lambda.ErrorTypeTimeout {
		t.Errorf("errors.As failed for %v", err)
	}
	if got := err.Error(); got != "Sandbox.Timedout: Task timed out after 3.00 seconds" {
		t.Errorf("Error() = %q", got)
	}
}

// TestRuntimeThatStopsPolling: a runtime that answers and then never polls
// /next again is killed at the invocation's deadline, freeing its slot.
func TestRuntimeThatStopsPolling(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t, "", lambda.Function{Name: "Stall", Bootstrap: exe, Timeout: 1500 * time.Millisecond, MaxEnvironments: 1},
		lambda.Options{BaseEnv: []string{helperEnv + "=protocol"}})
	first := b.invoke(t, `{"action":"stall"}`)
	if string(wantOKRaw(t, first)) != `"stalling"` {
		t.Errorf("payload %s", first.Payload)
	}
	// The only slot is held until the deadline; then a fresh environment runs.
	second := b.invoke(t, `{"action":"echo"}`)
	wantOKRaw(t, second)
	if !second.ColdStart || second.PID == first.PID {
		t.Errorf("second: cold %v pid %d (first %d)", second.ColdStart, second.PID, first.PID)
	}
	waitGone(t, first.PID)
}
