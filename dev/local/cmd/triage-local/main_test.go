package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

type outcome struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return outcome{code, stdout.String(), stderr.String()}
}

func eventPath(t *testing.T, parts ...string) string {
	t.Helper()
	root, err := localtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root, "events"}, parts...)...)
}

func wantResponse(t *testing.T, o outcome) events.SQSEventResponse {
	t.Helper()
	if o.code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", o.code, o.stderr)
	}
	var resp events.SQSEventResponse
	dec := json.NewDecoder(strings.NewReader(o.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&resp); err != nil {
		t.Fatalf("stdout %q is not an SQSEventResponse: %v", o.stdout, err)
	}
	if !strings.Contains(o.stderr, "REPORT RequestId: ") || !strings.Contains(o.stderr, "\tInit Duration: ") {
		t.Errorf("stderr lacks the REPORT line:\n%s", o.stderr)
	}
	return resp
}

func TestInvoke(t *testing.T) {
	t.Parallel()
	fetchBin := lambdatest.Build(t, "./cmd/fetch")

	t.Run("fetch against a shared moto, building the bootstrap", func(t *testing.T) {
		t.Parallel()
		endpoint := localtest.Endpoint(t)
		buildDir := t.TempDir()
		o := runCmd(t, "invoke", "--function", "fetch", "--event", eventPath(t, "fetch", "normal.json"),
			"--endpoint", endpoint, "--stack", localtest.UniqueName(t), "--build-dir", buildDir)
		resp := wantResponse(t, o)
		if len(resp.BatchItemFailures) != 0 {
			t.Errorf("failures %v", resp.BatchItemFailures)
		}
		for _, want := range []string{"[FetchFunc] ", `"aws_calls"`, "SCHEMA_INVALID", "creating stack"} {
			if !strings.Contains(o.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(buildDir, "FetchFunc", "bootstrap")); err != nil {
			t.Errorf("bootstrap not built: %v", err)
		}
	})

	t.Run("existing stack, seeded items, --build=missing", func(t *testing.T) {
		t.Parallel()
		env := localtest.Stack(t, nil)
		buildDir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(buildDir, "FetchFunc"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(fetchBin, filepath.Join(buildDir, "FetchFunc", "bootstrap")); err != nil {
			t.Fatal(err)
		}
		o := runCmd(t, "invoke", "--function", "FetchFunc", "--event", eventPath(t, "fetch", "normal.json"),
			"--endpoint", env.Endpoint, "--stack", env.Stack.Name, "--build", "missing", "--build-dir", buildDir, "--seed")
		resp := wantResponse(t, o)
		if len(resp.BatchItemFailures) != 0 {
			t.Errorf("failures %v", resp.BatchItemFailures)
		}
		if strings.Contains(o.stderr, "building") || !strings.Contains(o.stderr, "using the existing stack") {
			t.Errorf("stderr:\n%s", o.stderr)
		}
		items := &store.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.ItemsTable(), Bodies: env.Bodies()}
		for _, id := range []string{"story-0001", "story-0002"} {
			it, err := items.Get(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if it.Status != work.Fetched || it.Document == nil || it.Document.Bytes == 0 {
				t.Errorf("%s: status %s document %+v", id, it.Status, it.Document)
			}
		}
	})

	t.Run("own moto", func(t *testing.T) {
		t.Parallel()
		localtest.Require(t, "moto_server", moto.InstallHint)
		o := runCmd(t, "invoke", "--function", "fetch", "--event", eventPath(t, "fetch", "malformed.json"), "--bootstrap", fetchBin)
		wantResponse(t, o)
		if !strings.Contains(o.stderr, "starting moto_server") {
			t.Errorf("stderr:\n%s", o.stderr)
		}
	})

	t.Run("function error exits 1", func(t *testing.T) {
		t.Parallel()
		bin := lambdatest.Build(t, lambdatest.TestFunction)
		event := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(event, []byte(`{"fail":"boom"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		o := runCmd(t, "invoke", "--function", "fetch", "--event", event, "--bootstrap", bin,
			"--endpoint", localtest.Endpoint(t), "--stack", localtest.UniqueName(t))
		if o.code != exitFunctionError {
			t.Fatalf("exit %d, want 1\nstderr:\n%s", o.code, o.stderr)
		}
		var doc struct{ ErrorType, ErrorMessage string }
		if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil || doc.ErrorType != "errorString" || doc.ErrorMessage != "boom" {
			t.Errorf("stdout %q", o.stdout)
		}
		if !strings.Contains(o.stderr, "Status: error\tError Type: errorString") {
			t.Errorf("stderr:\n%s", o.stderr)
		}
	})
}

func TestUsage(t *testing.T) {
	t.Parallel()
	event := eventPath(t, "fetch", "normal.json")
	notJSON := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(notJSON, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args []string
		code int
		msg  string
	}{
		"no command":       {nil, exitUsage, "usage: triage-local"},
		"unknown command":  {[]string{"deploy"}, exitUsage, `unknown command "deploy"`},
		"help":             {[]string{"help"}, exitOK, ""},
		"invoke help":      {[]string{"invoke", "-h"}, exitOK, "--function"},
		"missing function": {[]string{"invoke", "--event", event}, exitUsage, "--function and --event are required"},
		"unknown flag":     {[]string{"invoke", "--nope"}, exitUsage, "flag provided but not defined"},
		"unknown function": {[]string{"invoke", "--function", "nope", "--event", event}, exitUsage, "FetchFunc (fetch)"},
		"missing event":    {[]string{"invoke", "--function", "fetch", "--event", "/nonexistent.json"}, exitUsage, "event:"},
		"event not JSON":   {[]string{"invoke", "--function", "fetch", "--event", notJSON}, exitUsage, "not valid JSON"},
		"bad param":        {[]string{"invoke", "--function", "fetch", "--event", event, "--param", "Nope=1"}, exitUsage, "no such parameter"},
		"bad param syntax": {[]string{"invoke", "--function", "fetch", "--event", event, "--param", "Nope"}, exitUsage, "KEY=VALUE"},
		"bad build mode":   {[]string{"invoke", "--function", "fetch", "--event", event, "--build", "sometimes"}, exitUsage, "--build"},
		"never built": {[]string{"invoke", "--function", "fetch", "--event", event, "--build", "never",
			"--build-dir", t.TempDir()}, exitUsage, "--build=never"},
		"extra args":               {[]string{"invoke", "--function", "fetch", "--event", event, "more"}, exitUsage, "unexpected arguments"},
		"soak help":                {[]string{"soak", "-h"}, exitOK, "-runs int"},
		"soak no items":            {[]string{"soak", "--items", "0"}, exitUsage, "must be positive"},
		"soak no runs":             {[]string{"soak", "--runs", "0"}, exitUsage, "must be positive"},
		"soak extra args":          {[]string{"soak", "more"}, exitUsage, "no arguments"},
		"soak notes missing":       {[]string{"soak", "--notes", "/nonexistent.md"}, exitUsage, "--notes"},
		"soak from without report": {[]string{"soak", "--from", "x.json"}, exitUsage, "--from needs --report"},
		"soak from a missing file": {[]string{"soak", "--from", "/nonexistent.json", "--report", filepath.Join(t.TempDir(), "r.md")},
			exitSetup, "nonexistent"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := runCmd(t, tc.args...)
			if o.code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", o.code, tc.code, o.stderr)
			}
			if !strings.Contains(o.stdout+o.stderr, tc.msg) {
				t.Errorf("output lacks %q:\nstdout %s\nstderr %s", tc.msg, o.stdout, o.stderr)
			}
		})
	}
}

// TestInterrupted checks that a cancelled command exits 130 and leaves no
// stack behind half-made.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	endpoint := localtest.Endpoint(t)
	bin := lambdatest.Build(t, lambdatest.TestFunction)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	name := localtest.UniqueName(t)
	code := run(ctx, []string{"invoke", "--function", "fetch", "--event", eventPath(t, "fetch", "normal.json"),
		"--bootstrap", bin, "--endpoint", endpoint, "--stack", name}, &stdout, &stderr)
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitInterrupted, stderr.String())
	}
	cfg, err := moto.Config(t.Context(), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfnstack.Describe(t.Context(), cloudformation.NewFromConfig(cfg), name); !cfnstack.IsMissing(err) {
		t.Errorf("stack %s exists after an interrupted command: %v", name, err)
	}
}

// TestInvokeEveryEvent is `make invoke` for every function and every event
// under events/<function>/ (events/failures holds classifier inputs, not
// Lambda events): each runs with --seed, as the Makefile passes it, and the
// function answers without a function error. One moto, one stack and one
// build of each bootstrap serve them all.
func TestInvokeEveryEvent(t *testing.T) {
	t.Parallel()
	root, err := localtest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	endpoint := localtest.Endpoint(t)
	stackName := localtest.UniqueName(t)
	buildDir := t.TempDir()
	dirs, err := os.ReadDir(filepath.Join(root, "events"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "failures" {
			continue
		}
		files, err := filepath.Glob(filepath.Join(root, "events", d.Name(), "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("events/%s has no events (%v)", d.Name(), err)
		}
		covered[d.Name()] = true
		for _, f := range files {
			name := d.Name() + "/" + filepath.Base(f)
			o := runCmd(t, "invoke", "--function", d.Name(), "--event", f, "--seed",
				"--endpoint", endpoint, "--stack", stackName, "--build", buildMissing, "--build-dir", buildDir)
			if o.code != exitOK {
				t.Errorf("make invoke FN=%s EVENT=events/%s: exit %d\nstderr:\n%s", d.Name(), name, o.code, o.stderr)
				continue
			}
			if !json.Valid([]byte(o.stdout)) || !strings.Contains(o.stderr, "REPORT RequestId: ") {
				t.Errorf("%s: stdout %q is not a JSON response, or no REPORT line", name, o.stdout)
			}
		}
	}
	tpl, err := template.ParseFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range tpl.Functions() {
		if !covered[devstack.ShortName(fn.LogicalID)] {
			t.Errorf("%s has no events/%s/", fn.LogicalID, devstack.ShortName(fn.LogicalID))
		}
	}
}
