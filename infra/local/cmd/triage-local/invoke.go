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
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/infra/local/lambda"
	"github.com/triagehq/triage/infra/local/moto"
	"github.com/triagehq/triage/infra/local/stack"
	"github.com/triagehq/triage/infra/local/template"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

// The credentials the fakes expect and invoke seeds into SSM.
const (
	localLLMKey        = "sk-triage-local"
	localWebhookSecret = "whsec-triage-local"
	defaultStackName   = "triage-local"
	defaultTimeout     = 5 * time.Minute
	stackCreateTimeout = 2 * time.Minute
	buildTimeout       = 5 * time.Minute
)

// Build modes of --build.
const (
	buildAlways  = "always"
	buildMissing = "missing"
	buildNever   = "never"
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
	fs := flag.NewFlagSet("triage-local invoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.function, "function", "", "function to invoke: its logical id (FetchFunc) or short name (fetch); required")
	fs.StringVar(&f.event, "event", "", "event JSON file, - for stdin; required")
	fs.StringVar(&f.endpoint, "endpoint", "", "a running moto to use; default: start one for this invocation")
	fs.StringVar(&f.stackName, "stack", defaultStackName, "stack name; with --endpoint an existing stack of this name is reused")
	fs.StringVar(&f.templatePath, "template", "", "SAM template; default: template.yaml at the module root")
	fs.Var(f.params, "param", "template parameter override KEY=VALUE (repeatable)")
	fs.StringVar(&f.bootstrap, "bootstrap", "", "bootstrap binary to run instead of building one")
	fs.StringVar(&f.build, "build", buildAlways, "build the bootstrap: always, missing (only when absent) or never")
	fs.StringVar(&f.buildDir, "build-dir", "", "where bootstraps are built, as <dir>/<LogicalId>/bootstrap; default: .build at the module root")
	fs.BoolVar(&f.seed, "seed", false, "put the items the event names into the Items table first, pointing at the fakes")
	fs.StringVar(&f.motoLog, "moto-log", "", "append the started moto_server's log to this file")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "bound on the whole command")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: triage-local invoke --function NAME --event FILE [flags]")
		fs.PrintDefaults()
	}
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
	root, rootErr := moduleRoot()
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
	bin, err := bootstrap(ctx, root, rootErr, fn, f, stderr, logf)
	if err != nil {
		if isUsage(err) {
			return exitUsage, err
		}
		return exitSetup, err
	}

	fk, err := startFakes()
	if err != nil {
		return exitSetup, err
	}
	defer fk.close()
	logf("fakes: llm %s, articles %s, webhook %s", fk.llm.URL, fk.articles.URL, fk.webhook.URL)

	endpoint := f.endpoint
	if endpoint == "" {
		logf("starting moto_server")
		srv, err := moto.Start(ctx, moto.Options{LogPath: f.motoLog})
		if err != nil {
			return exitSetup, err
		}
		defer func() {
			if err := srv.Stop(); err != nil {
				logf("stop moto_server: %v", err)
			}
		}()
		endpoint = srv.URL
		logf("moto_server pid %d at %s", srv.PID, endpoint)
	}
	cfg, err := moto.Config(ctx, endpoint)
	if err != nil {
		return exitSetup, err
	}

	params := map[string]string{"LLMBaseUrl": fk.llm.URL + "/v1", "FetchBlockPrivate": "false"}
	maps.Copy(params, f.params)
	for k := range params { // a template without these parameters takes none
		if _, ok := tpl.Parameters[k]; !ok {
			delete(params, k)
		}
	}
	info, err := openStack(ctx, cloudformation.NewFromConfig(cfg), endpoint, tplPath, f.stackName, params, logf)
	if err != nil {
		return exitSetup, err
	}
	// An existing stack keeps its own parameters; the overrides still shape
	// the function's environment, which is computed here, not by
	// CloudFormation.
	resolved := maps.Clone(info.Parameters)
	maps.Copy(resolved, params)
	pseudo, err := info.Pseudo()
	if err != nil {
		return exitSetup, err
	}
	declared := map[string]string{}
	for k, v := range resolved {
		if _, ok := tpl.Parameters[k]; ok {
			declared[k] = v
		}
	}
	resolver, err := template.NewResolver(tpl, template.ResolverConfig{Parameters: declared, Pseudo: pseudo, Physical: info.Physical})
	if err != nil {
		return exitSetup, err
	}
	env, err := resolver.ResolveEnv(fn)
	if err != nil {
		return exitSetup, err
	}
	if err := seedSecrets(ctx, cfg, resolver.Parameters()); err != nil {
		return exitSetup, err
	}
	if f.seed {
		n, err := seedItems(ctx, cfg, env, event, fk)
		if err != nil {
			return exitSetup, err
		}
		logf("seeded %d items into %s", n, env["ITEMS_TABLE"])
	}

	svc := lambda.New(lambda.Options{BaseEnv: moto.Environ(endpoint, os.Environ()), Logs: stderr})
	defer func() {
		if err := svc.Close(); err != nil {
			logf("stop functions: %v", err)
		}
	}()
	if err := svc.Register(lambda.Function{Name: fn.LogicalID, Bootstrap: bin, Env: env, Timeout: fn.Timeout,
		MemoryMB: fn.MemorySize, Handler: fn.Handler}); err != nil {
		return exitSetup, err
	}
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

// moduleRoot finds the directory holding go.mod, walking up from the
// working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", usagef("no go.mod above the working directory: run from the triage module")
		}
		dir = parent
	}
}

// shortName is a function's short name: FetchFunc → fetch.
func shortName(logicalID string) string {
	return strings.ToLower(strings.TrimSuffix(logicalID, "Func"))
}

// findFunction finds a function by logical id (any case) or short name.
func findFunction(tpl *template.Template, name string) (template.Function, error) {
	var names []string
	for _, fn := range tpl.Functions() {
		if strings.EqualFold(fn.LogicalID, name) || shortName(fn.LogicalID) == strings.ToLower(name) {
			return fn, nil
		}
		names = append(names, fn.LogicalID+" ("+shortName(fn.LogicalID)+")")
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

// bootstrap returns the binary to run, building it as `make bootstraps`
// does when asked to.
func bootstrap(ctx context.Context, root string, rootErr error, fn template.Function, f invokeFlags,
	stderr io.Writer, logf func(string, ...any)) (string, error) {
	if f.bootstrap != "" {
		return filepath.Abs(f.bootstrap)
	}
	if rootErr != nil {
		return "", fmt.Errorf("%w (or pass --bootstrap)", rootErr)
	}
	dir := f.buildDir
	if dir == "" {
		dir = filepath.Join(root, ".build")
	}
	out, err := filepath.Abs(filepath.Join(dir, fn.LogicalID, "bootstrap"))
	if err != nil {
		return "", err
	}
	_, statErr := os.Stat(out)
	switch {
	case f.build == buildNever && statErr != nil:
		return "", usagef("--build=never but %s: %v", out, statErr)
	case f.build == buildNever, f.build == buildMissing && statErr == nil:
		return out, nil
	}
	pkg := "./functions/" + shortName(fn.LogicalID)
	if st, err := os.Stat(filepath.Join(root, pkg)); err != nil || !st.IsDir() {
		return "", usagef("cannot tell %s's package (no %s): pass --bootstrap", fn.LogicalID, pkg)
	}
	logf("building %s <- %s", out, pkg)
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w", pkg, err)
	}
	return out, nil
}

// fakeSet is the upstream fakes, served in-process.
type fakeSet struct {
	llm, articles, webhook *fakes.Server
}

func startFakes() (*fakeSet, error) {
	llm, err := fakes.NewLLM(fakes.LLMOptions{APIKey: localLLMKey})
	if err != nil {
		return nil, err
	}
	fk := &fakeSet{}
	if fk.llm, err = fakes.Start("", llm); err != nil {
		return nil, err
	}
	if fk.articles, err = fakes.Start("", fakes.NewArticles(fakes.ArticleOptions{})); err != nil {
		fk.close()
		return nil, err
	}
	if fk.webhook, err = fakes.Start("", fakes.NewWebhook(fakes.WebhookOptions{Secret: localWebhookSecret})); err != nil {
		fk.close()
		return nil, err
	}
	return fk, nil
}

func (fk *fakeSet) close() {
	for _, s := range []*fakes.Server{fk.llm, fk.articles, fk.webhook} {
		if s != nil {
			_ = s.Close()
		}
	}
}

// openStack returns the stack name at the endpoint, creating it from the
// template when it does not exist.
func openStack(ctx context.Context, cfn template.CloudFormationAPI, endpoint, tplPath, name string,
	params map[string]string, logf func(string, ...any)) (*template.StackInfo, error) {
	info, err := template.DescribeStack(ctx, cfn, name)
	if err == nil {
		logf("using the existing stack %s", name)
		return info, nil
	}
	if !stackMissing(err) {
		return nil, err
	}
	logf("creating stack %s from %s", name, tplPath)
	if _, err := stack.Create(ctx, stack.Options{Endpoint: endpoint, Name: name, TemplatePath: tplPath,
		Parameters: params, Timeout: stackCreateTimeout}); err != nil {
		return nil, err
	}
	return template.DescribeStack(ctx, cfn, name)
}

// stackMissing reports CloudFormation's "Stack with id X does not exist".
func stackMissing(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationError" && strings.Contains(ae.ErrorMessage(), "does not exist")
}

// seedSecrets stores the keys the fakes expect under the parameter names
// the template gives the functions.
func seedSecrets(ctx context.Context, cfg aws.Config, params map[string]string) error {
	for param, value := range map[string]string{"LLMApiKeyParameter": localLLMKey, "WebhookSecretParameter": localWebhookSecret} {
		if name := params[param]; name != "" {
			if err := stack.PutSecureParameter(ctx, cfg, name, value); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedItems puts the items the event's envelopes name, ready for the
// function's stage and pointing at the fakes. Records whose body is not a
// valid envelope (malformed.json) are skipped: the stage dead-letters them.
func seedItems(ctx context.Context, cfg aws.Config, env map[string]string, event []byte, fk *fakeSet) (int, error) {
	stage, err := pipeline.ParseStage(env["STAGE"])
	if err != nil {
		return 0, fmt.Errorf("--seed: %w", err)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(event, &ev); err != nil {
		return 0, usagef("--seed: the event is not an SQS event: %v", err)
	}
	items := &state.Items{DB: dynamodb.NewFromConfig(cfg), Table: env["ITEMS_TABLE"], ParkedTable: env["PARKED_TABLE"]}
	now := time.Now().UTC()
	n := 0
	for _, r := range ev.Records {
		e, err := pipeline.DecodeEnvelope(r.Body, stage)
		if err != nil {
			continue
		}
		it := state.Item{
			ID: e.ItemID, Kind: state.KindStory, CorrelationID: e.CorrelationID,
			SourceURL:  fk.articles.URL + "/articles/" + url.PathEscape(e.ItemID),
			WebhookURL: fk.webhook.URL + "/hooks/" + url.PathEscape(e.ItemID),
			Status:     state.Received, State: state.Queued, Stage: stage,
			CreatedAt: now, UpdatedAt: now,
		}
		text := fakes.ArticleText(e.ItemID, fakes.DefaultArticleSize)
		if stage == pipeline.LLM || stage == pipeline.Notify {
			sum := sha256.Sum256([]byte(text))
			it.Status = state.Fetched
			it.Document = &state.Document{Text: text, Bytes: len(text), SHA256: hex.EncodeToString(sum[:]),
				ContentType: "text/plain; charset=utf-8", FetchedAt: now}
		}
		if stage == pipeline.Notify {
			fe := fakes.EnrichmentFor(text)
			it.Status = state.Enriched
			it.Enrichment = &state.Enrichment{SummaryNeutral: fe.SummaryNeutral, SummarySpicy: fe.SummarySpicy,
				Category: fe.Category, Severity: fe.Severity, PrimaryActor: fe.PrimaryActor, TopEntities: fe.TopEntities,
				Model: env["LLM_MODELS"], EnrichedAt: now}
			if it.Enrichment.Model == "" {
				it.Enrichment.Model = "gpt-4o-mini"
			}
		}
		if err := items.Put(ctx, it); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
