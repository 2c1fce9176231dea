package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/stack"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/store"
)

// unpublishedPrefix marks articles the local stack's article server answers
// 404 ("not published yet") the first time each is asked for, and serves
// after: an item whose id starts with it fails at fetch with NOT_FOUND, is
// dead-lettered, and succeeds when replayed — the README walkthrough's
// failed item.
const unpublishedPrefix = "unpublished-"

// upStatusEvery is how often `up` looks for changes to report.
const upStatusEvery = 5 * time.Second

type upFlags struct {
	stackName, buildMode, envFile, logFile, motoLog string
	llmBaseURL, llmKeyEnv, llmModels                string
	params                                          paramFlag
}

// runUp is `triage-local up`: the local stack, kept running until Ctrl-C.
func runUp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := upFlags{params: paramFlag{}}
	fs := newFlags("up", "[flags]\n\n"+
		"Starts moto, creates the stack from template.yaml, runs every function's real\n"+
		"bootstrap behind the local Lambda Runtime API with the SQS pollers and the\n"+
		"schedules, and the fakes (or a real LLM with --llm-base-url), until Ctrl-C.\n"+
		"It prints the exports that point triage at it.", stderr)
	fs.StringVar(&f.stackName, "stack", defaultStackName, "stack name")
	fs.StringVar(&f.buildMode, "build", buildAlways, "build the bootstraps: always, missing or never")
	fs.StringVar(&f.envFile, "env-file", "", "write the exports here too (default .build/local.env at the module root)")
	fs.StringVar(&f.logFile, "logs", "", "the functions' logs (default .build/up/functions.log)")
	fs.StringVar(&f.motoLog, "moto-log", "", "append moto_server's log to this file")
	fs.StringVar(&f.llmBaseURL, "llm-base-url", "", "a real OpenAI-compatible API instead of the fake LLM, e.g. https://api.openai.com/v1")
	fs.StringVar(&f.llmKeyEnv, "llm-api-key-env", "OPENAI_API_KEY", "with --llm-base-url: the environment variable holding its API key")
	fs.StringVar(&f.llmModels, "llm-models", "", "the model chain (LLMModels), e.g. gpt-4o-mini,gpt-4o")
	fs.Var(f.params, "param", "template parameter override KEY=VALUE (repeatable)")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "triage-local up: unexpected arguments %q\n", fs.Args())
		return exitUsage
	case f.buildMode != buildAlways && f.buildMode != buildMissing && f.buildMode != buildNever:
		fmt.Fprintf(stderr, "triage-local up: --build %q: want always, missing or never\n", f.buildMode)
		return exitUsage
	}
	var apiKey string
	if f.llmBaseURL != "" {
		if !strings.HasPrefix(f.llmBaseURL, "https://") && !strings.HasPrefix(f.llmBaseURL, "http://") {
			fmt.Fprintf(stderr, "triage-local up: --llm-base-url %q is not an http(s) URL\n", f.llmBaseURL)
			return exitUsage
		}
		if apiKey = os.Getenv(f.llmKeyEnv); apiKey == "" {
			fmt.Fprintf(stderr, "triage-local up: --llm-base-url needs the API key in $%s (--llm-api-key-env)\n", f.llmKeyEnv)
			return exitUsage
		}
	}
	if err := up(ctx, f, apiKey, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "triage-local up: %v\n", err)
		return exitSetup
	}
	return exitOK
}

// up runs the stack until ctx ends; it returns an error only when the stack
// could not start.
func up(ctx context.Context, f upFlags, apiKey string, stdout, stderrRaw io.Writer) error {
	stderr := &lockedWriter{w: stderrRaw}
	say := func(format string, args ...any) { fmt.Fprintf(stderr, "triage-local: "+format+"\n", args...) }
	root, err := devstack.ModuleRoot()
	if err != nil {
		return err
	}
	tpl, err := template.ParseFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		return err
	}
	if f.logFile == "" {
		f.logFile = filepath.Join(root, ".build", "up", "functions.log")
	}
	if f.envFile == "" {
		f.envFile = filepath.Join(root, ".build", "local.env")
	}
	if err := os.MkdirAll(filepath.Dir(f.logFile), 0o755); err != nil {
		return err
	}
	logs, err := os.Create(f.logFile)
	if err != nil {
		return err
	}
	defer logs.Close()
	params := maps.Clone(map[string]string(f.params))
	if f.llmBaseURL != "" {
		params["LLMBaseUrl"] = f.llmBaseURL
	}
	if f.llmModels != "" {
		params["LLMModels"] = f.llmModels
	}
	var fns []string
	for _, fn := range tpl.Functions() {
		fns = append(fns, fn.LogicalID)
	}
	st, err := devstack.Start(ctx, devstack.Options{
		Root: root, StackName: f.stackName, Pollers: true, Functions: fns, Params: params,
		Build: devstack.BuildMode(f.buildMode), Logs: logs, MotoLog: f.motoLog, Progress: say,
		WrapFake: func(name string, h http.Handler) http.Handler {
			if name == devstack.FakeArticles {
				return unpublishedOnce(h)
			}
			return h
		},
	})
	if err != nil {
		return err
	}
	defer func() {
		say("stopping")
		if err := st.Close(); err != nil {
			say("stop: %v", err)
		}
	}()
	if apiKey != "" {
		// devstack seeded the fake's key; the real API needs the real one.
		// The functions read it at their first (cold) start, which is later.
		name := st.Resolver.Parameters()["LLMApiKeyParameter"]
		if err := stack.PutSecureParameter(ctx, st.AWS, name, apiKey); err != nil {
			return err
		}
		say("LLM: %s (key from $%s in SSM %s)", f.llmBaseURL, f.llmKeyEnv, name)
	}
	exports := upExports(st, f.stackName, root)
	if err := os.WriteFile(f.envFile, []byte(exports), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s", exports)
	say("ready: functions log to %s; the exports above are in %s", f.logFile, f.envFile)
	say("in another shell: source %s, then triage submit … (Ctrl-C here stops everything)", relTo(root, f.envFile))

	var wg sync.WaitGroup
	for _, fn := range tpl.Functions() {
		for _, ev := range fn.Events {
			every, ok := ev.Rate()
			if !ok {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				runSchedule(ctx, st, fn.LogicalID, ev.Input, every, say)
			}()
		}
	}
	watchItems(ctx, st, stdout)
	wg.Wait()
	return nil
}

// upExports are the shell lines that point triage (and any AWS SDK or CLI)
// at the local stack.
func upExports(st *devstack.Stack, stackName, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# triage-local up: the local stack %s (source this file, or paste these lines)\n", stackName)
	for _, kv := range moto.Env(st.Endpoint) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, v)
	}
	fmt.Fprintf(&b, "export TRIAGE_STACK=%s\n", stackName)
	fmt.Fprintf(&b, "export TRIAGE_ARTICLES=%s/articles   # the fake article server: any id is an article; %s* ones 404 once\n",
		st.ArticleServer.URL, unpublishedPrefix)
	fmt.Fprintf(&b, "export TRIAGE_WEBHOOK=%s/hooks   # the fake webhook receiver\n", st.HookServer.URL)
	fmt.Fprintf(&b, "export PATH=%s:$PATH   # triage, built by make up\n", filepath.Join(root, ".build", "bin"))
	return b.String()
}

func relTo(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// unpublishedOnce answers the first request for each /articles/unpublished-*
// article 404 and passes every later one through.
func unpublishedOnce(next http.Handler) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, "/articles/")
		if ok && strings.HasPrefix(id, unpublishedPrefix) {
			mu.Lock()
			first := !seen[id]
			seen[id] = true
			mu.Unlock()
			if first {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, "article not published yet\n")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// runSchedule invokes fn with an EventBridge scheduled event every period,
// as its Schedule event would in AWS, until ctx ends; with the event's
// Input instead, when it has one (as EventBridge delivers it).
func runSchedule(ctx context.Context, st *devstack.Stack, fn, input string, every time.Duration, say func(string, ...any)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			ev := fmt.Sprintf(`{"version":"0","id":"local-%d","detail-type":"Scheduled Event","source":"aws.events","account":%q,`+
				`"time":%q,"region":%q,"resources":[],"detail":{}}`, now.UnixNano(), moto.AccountID, now.UTC().Format(time.RFC3339), moto.Region)
			if input != "" {
				ev = input
			}
			ictx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			res, err := st.Lambda.Invoke(ictx, fn, []byte(ev))
			cancel()
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				say("schedule %s: %v", fn, err)
			case res.FunctionError != nil:
				say("schedule %s: function error %s", fn, res.FunctionError.Type)
			}
		}
	}
}

// watchItems prints a line whenever the items' counts change, until ctx
// ends. The counts are the index's (store.Tally: each partition of the
// groups an item leaves, the done items since a watermark), never a Scan; moto answers
// each Query by walking the table, so the next count waits at least ten
// times as long as the last one took: the status line never takes more than
// a tenth of moto's time (docs/performance.md).
func watchItems(ctx context.Context, st *devstack.Stack, w io.Writer) {
	tally := &store.Tally{Index: st.Index}
	last := ""
	wait := upStatusEvery
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		start := time.Now()
		counts, err := tally.Counts(ctx, start)
		wait = max(upStatusEvery, 10*time.Since(start))
		if err != nil || counts.All() == 0 {
			continue
		}
		if line := statusLine(counts); line != last {
			fmt.Fprintf(w, "%s items: %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
	}
}

// statusLine is the groups with items, in the order of store.Groups():
// "flight 16 · retrying 4 · done 980" (flight: queued or working).
func statusLine(c store.Counts) string {
	var parts []string
	for _, g := range store.Groups() {
		if n := c[g]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", g, n))
		}
	}
	return strings.Join(parts, " · ")
}
