package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

const (
	defaultStackName = "triage-local"
	defaultTimeout   = 5 * time.Minute
)

// Build modes of --build.
const (
	buildAlways  = string(devstack.BuildAlways)
	buildMissing = string(devstack.BuildMissing)
	buildNever   = string(devstack.BuildNever)
)

type invokeFlags struct {
	function, event, endpoint, stackName string
	templatePath, bootstrap, build       string
	buildDir, motoLog                    string
	params                               paramFlag
	seed                                 bool
	timeout                              time.Duration
}

// paramFlag collects repeated --param KEY=VALUE.
type paramFlag map[string]string

// String renders the collected parameters (flag.Value).
func (p paramFlag) String() string { return fmt.Sprint(map[string]string(p)) }

// Set adds one KEY=VALUE (flag.Value).
func (p paramFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	p[k] = v
	return nil
}

func parseInvokeFlags(args []string, stderr io.Writer) (invokeFlags, error) {
	f := invokeFlags{params: paramFlag{}}
	fs := newFlags("invoke", "--function NAME --event FILE [flags]", stderr)
	fs.StringVar(&f.function, "function", "", "function to invoke: its logical id (FetchFunc) or short name (fetch); required")
	fs.StringVar(&f.event, "event", "", "event JSON file, - for stdin; required")
	fs.StringVar(&f.endpoint, "endpoint", "", "a running moto to use; default: start one for this invocation")
	fs.StringVar(&f.stackName, "stack", defaultStackName, "stack name; with --endpoint an existing stack of this name is reused")
	fs.StringVar(&f.templatePath, "template", "", "SAM template; default: template.yaml at the module root")
	fs.Var(f.params, "param", "template parameter override KEY=VALUE (repeatable)")
	fs.StringVar(&f.bootstrap, "bootstrap", "", "bootstrap binary to run instead of building one")
	fs.StringVar(&f.build, "build", buildAlways, "build the bootstrap: always, missing (only when absent) or never")
	fs.StringVar(&f.buildDir, "build-dir", "", "where bootstraps are built, as <dir>/<LogicalId>/bootstrap; default: .build at the module root")
	fs.BoolVar(&f.seed, "seed", false, "put the items the event names into the Items table first (stage envelopes: ready at the stage, pointing at the fakes; a redrive request's item ids: dead letters)")
	fs.StringVar(&f.motoLog, "moto-log", "", "append the started moto_server's log to this file")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "bound on the whole command")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, usagef("unexpected arguments %q", fs.Args())
	}
	if f.function == "" || f.event == "" {
		return f, usagef("--function and --event are required")
	}
	switch f.build {
	case buildAlways, buildMissing, buildNever:
	default:
		return f, usagef("--build %q: want always, missing or never", f.build)
	}
	if f.timeout <= 0 {
		return f, usagef("--timeout must be positive")
	}
	return f, nil
}

// lockedWriter serialises writes from the Lambda service's log readers and
// the command's own progress lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p to the underlying writer under the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// invoke runs the invoke command and returns its exit status; err, when
// set, is reported by run.
func invoke(ctx context.Context, args []string, stdout, stderrRaw io.Writer) (int, error) {
	stderr := &lockedWriter{w: stderrRaw}
	f, err := parseInvokeFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK, nil
	}
	if err != nil {
		if isUsage(err) {
			return exitUsage, err
		}
		return exitUsage, nil // the flag package has printed the problem
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "triage-local: "+format+"\n", args...) }
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()

	// Everything cheap and checkable first: no process is started for a
	// command that cannot run.
	root, rootErr := devstack.ModuleRoot()
	tplPath := f.templatePath
	if tplPath == "" {
		if rootErr != nil {
			return exitUsage, fmt.Errorf("%w (or pass --template)", rootErr)
		}
		tplPath = filepath.Join(root, "template.yaml")
	}
	tpl, err := template.ParseFile(tplPath)
	if err != nil {
		return exitUsage, err
	}
	fn, err := findFunction(tpl, f.function)
	if err != nil {
		return exitUsage, err
	}
	for _, k := range slices.Sorted(maps.Keys(f.params)) {
		if _, ok := tpl.Parameters[k]; !ok {
			return exitUsage, usagef("--param %s: template has no such parameter (has %s)", k,
				strings.Join(slices.Sorted(maps.Keys(tpl.Parameters)), ", "))
		}
	}
	event, err := readEvent(f.event, root)
	if err != nil {
		return exitUsage, err
	}
	opts := devstack.Options{
		Root: root, TemplatePath: tplPath, Endpoint: f.endpoint, StackName: f.stackName, Params: f.params,
		Functions: []string{fn.LogicalID}, Build: devstack.BuildMode(f.build), BuildDir: f.buildDir,
		Logs: stderr, MotoLog: f.motoLog, Progress: logf,
	}
	if f.bootstrap != "" {
		bin, err := filepath.Abs(f.bootstrap)
		if err != nil {
			return exitUsage, err
		}
		opts.Bootstraps = map[string]string{fn.LogicalID: bin}
	} else if rootErr != nil {
		return exitUsage, fmt.Errorf("%w (or pass --bootstrap)", rootErr)
	} else if f.build == buildNever {
		bin, err := devstack.BootstrapPath(root, f.buildDir, fn.LogicalID)
		if err != nil {
			return exitUsage, err
		}
		if _, err := os.Stat(bin); err != nil {
			return exitUsage, usagef("--build=never but %s: %v", bin, err)
		}
	}
	st, err := devstack.Start(ctx, opts)
	if err != nil {
		return exitSetup, err
	}
	defer func() {
		if err := st.Close(); err != nil {
			logf("stop: %v", err)
		}
	}()
	env := st.Env[fn.LogicalID]
	if f.seed {
		n, err := seedItems(ctx, st.AWS, env, event, st)
		if err != nil {
			return exitSetup, err
		}
		logf("seeded %d items into %s", n, env["ITEMS_TABLE"])
	}
	svc := st.Lambda
	logf("invoking %s (timeout %v)", fn.LogicalID, fn.Timeout)
	res, err := svc.Invoke(ctx, fn.LogicalID, event)
	if err != nil {
		return exitSetup, err
	}
	if _, err := stdout.Write(append(bytes.TrimRight(res.Payload, "\n"), '\n')); err != nil {
		return exitSetup, fmt.Errorf("write the response: %w", err)
	}
	report := fmt.Sprintf("REPORT RequestId: %s\tDuration: %.2f ms", res.RequestID, ms(res.Duration))
	if res.ColdStart {
		report += fmt.Sprintf("\tInit Duration: %.2f ms", ms(res.InitDuration))
	}
	if fe := res.FunctionError; fe != nil {
		report += "\tStatus: error\tError Type: " + fe.Type
	}
	fmt.Fprintln(stderr, report)
	if res.FunctionError != nil {
		return exitFunctionError, nil
	}
	return exitOK, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// shortName is a function's short name: FetchFunc → fetch.

// findFunction finds a function by logical id (any case) or short name.
func findFunction(tpl *template.Template, name string) (template.Function, error) {
	var names []string
	for _, fn := range tpl.Functions() {
		if strings.EqualFold(fn.LogicalID, name) || devstack.ShortName(fn.LogicalID) == strings.ToLower(name) {
			return fn, nil
		}
		names = append(names, fn.LogicalID+" ("+devstack.ShortName(fn.LogicalID)+")")
	}
	return template.Function{}, usagef("template has no function %q; it has %s", name, strings.Join(names, ", "))
}

// readEvent reads the event (relative paths also tried against the module
// root) and checks that it is JSON.
func readEvent(path, root string) ([]byte, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) && root != "" && !filepath.IsAbs(path) {
			if alt, altErr := os.ReadFile(filepath.Join(root, path)); altErr == nil {
				b, err = alt, nil
			}
		}
	}
	if err != nil {
		return nil, usagef("event: %v", err)
	}
	if !json.Valid(b) {
		return nil, usagef("event %s is not valid JSON", path)
	}
	return b, nil
}

// seedItems puts the items an event names into the Items table, so the
// function runs its real path: for a stage, the items its envelopes name,
// ready for the stage and pointing at the fakes (records whose body is not a
// valid envelope, like malformed.json, are skipped: the stage dead-letters
// them), and for the notify stage the items its notices name, dead-lettered;
// for the redrive function, the items a request names by id, as
// dead letters at the request's stage. Other functions (the scheduler, the
// recovery) read tables that start empty: there is nothing to seed.
func seedItems(ctx context.Context, cfg aws.Config, env map[string]string, event []byte, st *devstack.Stack) (int, error) {
	shards, _ := strconv.Atoi(env["ITEM_INDEX_SHARDS"])
	items := &store.Items{DB: dynamodb.NewFromConfig(cfg), Table: env["ITEMS_TABLE"], ParkedTable: env["PARKED_TABLE"], IndexShards: shards}
	if env["STAGE"] == "" {
		if env["FETCH_DLQ_URL"] != "" && items.Table != "" {
			return seedReplayItems(ctx, items, event)
		}
		return 0, nil
	}
	stage, err := work.ParseStage(env["STAGE"])
	if err != nil {
		return 0, fmt.Errorf("--seed: %w", err)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(event, &ev); err != nil {
		return 0, usagef("--seed: the event is not an SQS event: %v", err)
	}
	now := time.Now().UTC()
	n := 0
	for _, r := range ev.Records {
		if nt, err := notice.Decode(r.Body); err == nil && stage == work.Notify {
			// A record of the notice queue: its item, dead-lettered,
			// with its owner's webhook at the fake.
			if err := items.Put(ctx, store.Item{ID: nt.ItemID, Kind: nt.Kind, CorrelationID: nt.CorrelationID,
				WebhookURL: st.HookServer.URL + "/hooks/" + url.PathEscape(nt.ItemID), Status: work.Fetched,
				State: work.Deadletter, Stage: nt.Stage, CreatedAt: now, UpdatedAt: now}); err != nil {
				return n, err
			}
			n++
			continue
		}
		e, err := work.DecodeEnvelope(r.Body, stage)
		if err != nil {
			continue
		}
		it := store.Item{
			ID: e.ItemID, Kind: store.KindStory, CorrelationID: e.CorrelationID,
			SourceURL:  st.ArticleServer.URL + "/articles/" + url.PathEscape(e.ItemID),
			WebhookURL: st.HookServer.URL + "/hooks/" + url.PathEscape(e.ItemID),
			Status:     work.Received, State: work.Queued, Stage: stage,
			CreatedAt: now, UpdatedAt: now,
		}
		text := fakes.ArticleText(e.ItemID, fakes.DefaultArticleSize)
		if stage == work.LLM || stage == work.Notify {
			sum := sha256.Sum256([]byte(text))
			it.Status = work.Fetched
			it.Document = &work.Document{Text: text, Bytes: len(text), SHA256: hex.EncodeToString(sum[:]),
				ContentType: "text/plain; charset=utf-8", FetchedAt: now}
		}
		if stage == work.Notify {
			fe := fakes.EnrichmentFor(text)
			it.Status = work.Enriched
			it.Enrichment = &work.Enrichment{SummaryNeutral: fe.SummaryNeutral, SummarySpicy: fe.SummarySpicy,
				Category: fe.Category, Severity: fe.Severity, PrimaryActor: fe.PrimaryActor, TopEntities: fe.TopEntities,
				Model: "openai:gpt-4o-mini", EnrichedAt: now}
			if chain, err := fallback.ParseChain(env["LLM_MODELS"], failure.Provider(env["LLM_PROVIDER"])); err == nil {
				it.Enrichment.Model = chain[0].String() // the entry a healthy chain answers with
			}
		}
		if err := items.Put(ctx, it); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// seedReplayItems puts the items a redrive request names by id as dead
// letters (NOT_FOUND) at the request's stage, fetch when it names none.
func seedReplayItems(ctx context.Context, items *store.Items, event []byte) (int, error) {
	var req replay.Request
	if err := json.Unmarshal(event, &req); err != nil {
		return 0, usagef("--seed: the event is not a replay request: %v", err)
	}
	stage := req.Filter.Stage
	if stage == "" {
		stage = work.Fetch
	}
	now := time.Now().UTC()
	for i, id := range req.Filter.ItemIDs {
		err := items.Put(ctx, store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Received,
			State: work.Deadletter, Stage: stage, Attempts: map[work.Stage]int{stage: 1}, FailureCount: 1,
			EnrichmentStatus: work.EnrichmentPermanentFailure, LastFailureAt: now, UpdatedAt: now,
			LastError:  &store.LastError{Component: stage, ErrorClass: work.NotFound, Error: "404 (seeded)", FailedAt: now},
			DeadLetter: &store.DeadLetterRef{Stage: stage, Class: work.NotFound, At: now}})
		if err != nil {
			return i, err
		}
	}
	return len(req.Filter.ItemIDs), nil
}
