// Package devstack brings the whole pipeline up on one machine without
// Docker: the fault-injecting fakes, moto (a local AWS) with the stack created
// from template.yaml, the SSM parameters the functions read, the functions'
// real bootstrap binaries behind the local Lambda Runtime API, and the SQS
// event-source pollers. triage-local's invoke, demo and soak commands and
// end-to-end tests all start it the same way, and Close stops exactly what
// Start started.
package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/poller"
	"github.com/triagehq/triage/dev/local/stack"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/objects"
	"github.com/triagehq/triage/internal/work"
)

// The credentials the fakes expect; Start seeds them into SSM under the
// parameter names the template gives the functions.
const (
	LLMKey        = "sk-triage-local"
	WebhookSecret = "whsec-triage-local"
)

// Limits on Start's steps.
const (
	stackCreateTimeout = 2 * time.Minute
	buildTimeout       = 5 * time.Minute
)

// BuildMode says when Start builds a function's bootstrap.
type BuildMode string

const (
	// BuildAlways rebuilds every bootstrap (go's cache makes it cheap).
	BuildAlways BuildMode = "always"
	// BuildMissing builds only bootstraps that are not there; one left by an
	// older checkout is used as it is, so tests of the current code build
	// always.
	BuildMissing BuildMode = "missing"
	// BuildNever uses what is there and fails if a bootstrap is missing.
	BuildNever BuildMode = "never"
)

// PrebuiltEnv names the environment variable holding a directory of
// bootstraps laid out as `make bootstraps` lays them out
// (<dir>/<LogicalId>/bootstrap, rules.yaml beside each). Start takes a
// function's bootstrap from there when Options.Build is unset and
// Options.Bootstraps does not name it; a function missing there is an
// error, never a silent build. `make test` builds the bootstraps of the
// tree under test once, into a directory of its own, and sets it, so that
// its dozen local stacks do not each link the same binaries again (go's
// cache skips the compile, not the link into a fresh directory). Unset,
// Start builds as Build says.
const PrebuiltEnv = "TRIAGE_BOOTSTRAPS"

// Options configure Start. The zero value runs every SQS-triggered
// function of template.yaml with pollers off, on a fresh moto.
type Options struct {
	// Root is the module root; "" finds it from the working directory.
	Root string
	// TemplatePath is the SAM template; "" is Root/template.yaml.
	TemplatePath string
	// Endpoint is a running local AWS to use; "" starts moto.
	Endpoint string
	// StackName names the stack; an existing stack of that name at Endpoint
	// is reused. "" is "triage-local".
	StackName string
	// Params override template parameters, after the defaults that point
	// the functions at the fakes (LLMBaseUrl, AnthropicBaseUrl,
	// BedrockEndpointUrl, BlockPrivateNetworks=false).
	Params map[string]string
	// Functions are the logical ids to run; nil means every function that
	// has an SQS event.
	Functions []string
	// Pollers starts an event-source poller for each SQS event of each
	// running function.
	Pollers bool
	// Bootstraps maps a logical id to a prebuilt binary; others are built
	// into BuildDir/<LogicalId>/bootstrap according to Build. When Build
	// is unset and $TRIAGE_BOOTSTRAPS (PrebuiltEnv) names a directory, the
	// others are taken from there instead (see PrebuiltEnv).
	Bootstraps map[string]string
	Build      BuildMode
	BuildDir   string
	// Fakes configure the upstreams. The LLM's APIKey and the webhook's
	// Secret are set by Start.
	LLM      fakes.LLMOptions
	Articles fakes.ArticleOptions
	Webhook  fakes.WebhookOptions
	// Logs receives the functions' output lines, "[Fn] line".
	Logs io.Writer
	// OnLog is called with each function output line.
	OnLog func(fn, line string)
	// MotoLog appends moto's log to this file.
	MotoLog string
	// MotoSQS picks the SQS of a moto Start starts: the local emulator
	// (moto.SQSLocal, the default) or moto's own (moto.SQSMoto), for
	// comparisons.
	MotoSQS moto.SQSMode
	// MotoUnpatched starts moto exactly as installed (moto.Options.Unpatched).
	MotoUnpatched bool
	// MotoDynamoDB picks the DynamoDB of a moto Start starts: the local
	// one (package dynamo, the default; "" reads $TRIAGE_LOCAL_DYNAMODB) or
	// moto's own.
	MotoDynamoDB moto.DynamoDBMode
	// Progress receives one line per setup step; nil is silent.
	Progress func(format string, args ...any)
	// MaxEnvironments bounds concurrent environments per function; 0 is the
	// local Lambda service's default.
	MaxEnvironments int
	// Env adds or overrides environment variables after the template's, by
	// logical id; the key "*" applies to every function. Demos use it to
	// compress time (BREAKER_OPEN_FOR, RECOVERY_CLOCK_OFFSET).
	Env map[string]map[string]string
	// FunctionEndpoint is the AWS endpoint the functions use; "" is the
	// Endpoint the harness uses. The soak points the functions at a
	// fault-injecting proxy in front of the harness's endpoint, so that the
	// stack's creation, seeding and the pollers (the Lambda service's own
	// requests) stay clean.
	FunctionEndpoint string
	// Timeouts override the template's function timeouts, by logical id.
	Timeouts map[string]time.Duration
	// WrapFake, if set, wraps each fake's handler before it is served; name
	// is FakeLLM, FakeArticles or FakeWebhook. The soak tracks calls in
	// flight and echoes planted secrets in error bodies this way.
	WrapFake func(name string, h http.Handler) http.Handler
	// Schedules invokes the named running functions with an EventBridge
	// scheduled event at the given interval (the local stand-in for their
	// Schedule events, compressed). Each function is invoked once at a
	// time; Close stops the ticks.
	Schedules map[string]time.Duration
	// Scheduler, when positive, also runs SchedulerFunc, every Scheduler
	// (its SCHEDULE_INTERVAL too, so one run's releases spread over it):
	// the parked waits end and the gates drain as deployed, in compressed
	// time. A pipeline that parks (every wait behind a gate does) needs it.
	Scheduler time.Duration
}

// LocalIndexShards is the local stack's ItemIndexShards: one partition per
// group. moto answers each Query by walking (and sorting) the whole table,
// so a count costs a walk per partition; one machine's rates need no spread
// (docs/performance.md has what a count costs at 10,000 items).
const LocalIndexShards = "1"

// SchedulerFunc is the logical id of the scheduler function.
const SchedulerFunc = "SchedulerFunc"

// Names of the fakes, for Options.WrapFake.
const (
	FakeLLM      = "llm"
	FakeArticles = "articles"
	FakeWebhook  = "webhook"
)

// Stack is a running local pipeline.
type Stack struct {
	// Endpoint is the AWS endpoint of the harness (stack creation, AWS,
	// SQS, Items, the pollers).
	Endpoint string
	// FunctionEndpoint is the AWS endpoint the functions use: Endpoint
	// unless Options.FunctionEndpoint was set.
	FunctionEndpoint string
	// Moto is the started server (nil when Options.Endpoint was given).
	Moto *moto.Server
	// AWS is an SDK config for Endpoint.
	AWS aws.Config
	// Template, Info and Resolver describe the created stack.
	Template *template.Template
	Info     *cfnstack.Info
	Resolver *template.Resolver
	// Env is each running function's resolved environment.
	Env map[string]map[string]string
	// Lambda runs the functions.
	Lambda *lambda.Service
	// Pollers are the running event-source pollers by function.
	Pollers map[string][]*poller.Poller
	// The fakes and their servers.
	LLM                                  *fakes.LLM
	Articles                             *fakes.Articles
	Webhook                              *fakes.Webhook
	LLMServer, ArticleServer, HookServer *fakes.Server
	SQS                                  *sqs.Client
	Items                                *store.Items
	// Index lists and counts the items (the stack's ItemIndexShards).
	Index         *store.ItemIndex
	queues        map[work.Stage]string
	dlqs          map[work.Stage]string
	stopPollers   context.CancelFunc
	pollWG        sync.WaitGroup
	stopSchedules context.CancelFunc
	scheduleWG    sync.WaitGroup
	closeOnce     sync.Once
	closeErr      error
	closers       []func() error
}

// Start brings the pipeline up. On error everything started so far is
// stopped.
func Start(ctx context.Context, opts Options) (_ *Stack, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	s := &Stack{Env: map[string]map[string]string{}, Pollers: map[string][]*poller.Poller{}}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	root := opts.Root
	if root == "" {
		if root, err = ModuleRoot(); err != nil {
			return nil, err
		}
	}
	tplPath := opts.TemplatePath
	if tplPath == "" {
		tplPath = filepath.Join(root, "template.yaml")
	}
	if s.Template, err = template.ParseFile(tplPath); err != nil {
		return nil, err
	}
	if opts.Scheduler > 0 {
		opts = withScheduler(opts)
	}
	fns, err := s.functions(opts.Functions)
	if err != nil {
		return nil, err
	}
	bins, err := buildBootstraps(ctx, root, fns, opts, progress)
	if err != nil {
		return nil, err
	}
	if err := s.startFakes(opts); err != nil {
		return nil, err
	}
	progress("fakes: llm %s, articles %s, webhook %s", s.LLMServer.URL, s.ArticleServer.URL, s.HookServer.URL)

	s.Endpoint = opts.Endpoint
	if s.Endpoint == "" {
		progress("starting moto_server")
		if s.Moto, err = moto.Start(ctx, moto.Options{LogPath: opts.MotoLog, SQS: opts.MotoSQS, Unpatched: opts.MotoUnpatched, DynamoDB: opts.MotoDynamoDB}); err != nil {
			return nil, err
		}
		s.closers = append(s.closers, s.Moto.Stop)
		s.Endpoint = s.Moto.URL
		progress("moto_server pid %d at %s", s.Moto.PID, s.Endpoint)
	}
	if s.AWS, err = moto.Config(ctx, s.Endpoint); err != nil {
		return nil, err
	}
	// Every model dialect points at the one fake LLM: OpenAI's base URL,
	// Anthropic's, and Bedrock Runtime's endpoint override (the SDK signs
	// with the local credentials; the fake checks a signature is there).
	params := map[string]string{"LLMBaseUrl": s.LLMServer.URL + "/v1", "AnthropicBaseUrl": s.LLMServer.URL,
		"BedrockEndpointUrl": s.LLMServer.URL, "BlockPrivateNetworks": "false", "ItemIndexShards": LocalIndexShards}
	maps.Copy(params, opts.Params)
	for k := range params { // a template without these parameters takes none
		if _, ok := s.Template.Parameters[k]; !ok {
			delete(params, k)
		}
	}
	name := opts.StackName
	if name == "" {
		name = "triage-local"
	}
	if s.Info, err = openStack(ctx, cloudformation.NewFromConfig(s.AWS), s.Endpoint, tplPath, name, params, progress); err != nil {
		return nil, err
	}
	// An existing stack keeps its own parameters; the overrides still shape
	// the functions' environment, which is computed here.
	resolved := map[string]string{}
	for k, v := range s.Info.Parameters {
		if _, ok := s.Template.Parameters[k]; ok {
			resolved[k] = v
		}
	}
	maps.Copy(resolved, params)
	pseudo, err := template.StackPseudo(s.Info)
	if err != nil {
		return nil, err
	}
	if s.Resolver, err = template.NewResolver(s.Template, template.ResolverConfig{Parameters: resolved, Pseudo: pseudo, Physical: s.Info.Physical}); err != nil {
		return nil, err
	}
	if err := seedSecrets(ctx, s.AWS, s.Resolver.Parameters()); err != nil {
		return nil, err
	}
	s.SQS = sqs.NewFromConfig(s.AWS)
	if err := s.readOutputs(); err != nil {
		return nil, err
	}
	shards, _ := strconv.Atoi(s.Resolver.Parameters()["ItemIndexShards"])
	db := dynamodb.NewFromConfig(s.AWS)
	s.Items = &store.Items{DB: db, Table: s.Info.Outputs["ItemsTableName"], ParkedTable: s.Info.Outputs["ParkedTableName"],
		ErrorLogTable: s.Info.Outputs["ErrorLogTableName"], IndexShards: shards,
		Bodies: store.BodyConfig{Table: s.Info.Outputs["BodiesTableName"],
			Objects: &objects.Bucket{S3: objects.NewClient(s.AWS), Name: s.Info.Outputs["BodiesBucketName"]}}}
	s.Index = &store.ItemIndex{DB: db, Table: s.Items.Table, Shards: shards}

	s.FunctionEndpoint = opts.FunctionEndpoint
	if s.FunctionEndpoint == "" {
		s.FunctionEndpoint = s.Endpoint
	}
	s.Lambda = lambda.New(lambda.Options{BaseEnv: moto.Environ(s.FunctionEndpoint, os.Environ()), Logs: opts.Logs, OnLog: opts.OnLog,
		MaxEnvironments: opts.MaxEnvironments})
	s.closers = append(s.closers, s.Lambda.Close)
	for _, fn := range fns {
		env, err := s.Resolver.ResolveEnv(fn)
		if err != nil {
			return nil, err
		}
		maps.Copy(env, opts.Env["*"])
		maps.Copy(env, opts.Env[fn.LogicalID])
		s.Env[fn.LogicalID] = env
		timeout := fn.Timeout
		if t, ok := opts.Timeouts[fn.LogicalID]; ok {
			timeout = t
		}
		if err := s.Lambda.Register(lambda.Function{Name: fn.LogicalID, Bootstrap: bins[fn.LogicalID], Env: env,
			Timeout: timeout, MemoryMB: fn.MemorySize, Handler: fn.Handler}); err != nil {
			return nil, err
		}
	}
	if opts.Pollers {
		if err := s.startPollers(fns); err != nil {
			return nil, err
		}
	}
	if err := s.startSchedules(fns, opts.Schedules); err != nil {
		return nil, err
	}
	return s, nil
}

// withScheduler adds SchedulerFunc to opts' functions (the SQS-triggered
// ones when none are named), its schedule and its interval.
func withScheduler(opts Options) Options {
	if opts.Functions == nil {
		opts.Functions = []string{"FetchFunc", "LLMFunc", "NotifyFunc"}
	}
	if !slices.Contains(opts.Functions, SchedulerFunc) {
		opts.Functions = append(slices.Clone(opts.Functions), SchedulerFunc)
	}
	schedules := maps.Clone(opts.Schedules)
	if schedules == nil {
		schedules = map[string]time.Duration{}
	}
	schedules[SchedulerFunc] = opts.Scheduler
	opts.Schedules = schedules
	env := map[string]map[string]string{}
	for k, v := range opts.Env {
		env[k] = maps.Clone(v)
	}
	if env[SchedulerFunc] == nil {
		env[SchedulerFunc] = map[string]string{}
	}
	if _, set := env[SchedulerFunc]["SCHEDULE_INTERVAL"]; !set {
		env[SchedulerFunc]["SCHEDULE_INTERVAL"] = opts.Scheduler.String()
	}
	opts.Env = env
	return opts
}

// scheduleInput is the Input of the named function's Schedule event, or "".
func scheduleInput(fns []template.Function, name string) string {
	for _, f := range fns {
		if f.LogicalID != name {
			continue
		}
		for _, ev := range f.Events {
			if ev.Type == template.EventSchedule && ev.Input != "" {
				return ev.Input
			}
		}
	}
	return ""
}

// startSchedules invokes each scheduled function on its ticker until Close.
func (s *Stack) startSchedules(fns []template.Function, every map[string]time.Duration) error {
	if len(every) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopSchedules = cancel
	for name, d := range every {
		if d <= 0 || !slices.ContainsFunc(fns, func(f template.Function) bool { return f.LogicalID == name }) {
			cancel()
			return fmt.Errorf("devstack: schedule for %s (every %v): not a running function, or not a positive interval", name, d)
		}
		s.scheduleWG.Add(1)
		go func() {
			defer s.scheduleWG.Done()
			tick := time.NewTicker(d)
			defer tick.Stop()
			for n := 1; ; n++ {
				select {
				case <-ctx.Done():
					return
				case now := <-tick.C:
					ev := fmt.Sprintf(`{"version":"0","id":"local-%s-%d","detail-type":"Scheduled Event","source":"aws.events",`+
						`"account":"123456789012","time":%q,"region":"us-east-1","resources":[],"detail":{}}`,
						name, n, now.UTC().Format(time.RFC3339))
					if in := scheduleInput(fns, name); in != "" {
						ev = in // EventBridge delivers a target's Input instead of the event
					}
					ictx, icancel := context.WithTimeout(ctx, 2*time.Minute)
					res, err := s.Lambda.Invoke(ictx, name, []byte(ev))
					icancel()
					switch {
					case err != nil && ctx.Err() == nil:
						s.Lambda.Emit("schedule "+name, "scheduled invocation failed: "+err.Error())
					case err == nil && res.FunctionError != nil:
						s.Lambda.Emit("schedule "+name, "scheduled invocation returned an error: "+res.FunctionError.Error())
					}
				}
			}
		}()
	}
	return nil
}

// functions picks the template functions to run.
func (s *Stack) functions(ids []string) ([]template.Function, error) {
	var out []template.Function
	for _, fn := range s.Template.Functions() {
		if ids == nil {
			for _, ev := range fn.Events {
				if ev.Type == "SQS" {
					out = append(out, fn)
					break
				}
			}
			continue
		}
		if slices.Contains(ids, fn.LogicalID) {
			out = append(out, fn)
		}
	}
	if ids != nil && len(out) != len(ids) {
		var have []string
		for _, fn := range s.Template.Functions() {
			have = append(have, fn.LogicalID)
		}
		return nil, fmt.Errorf("devstack: functions %v not all in the template (has %s)", ids, strings.Join(have, ", "))
	}
	return out, nil
}

func (s *Stack) startFakes(opts Options) error {
	llmOpts := opts.LLM
	llmOpts.APIKey = LLMKey
	var err error
	if s.LLM, err = fakes.NewLLM(llmOpts); err != nil {
		return err
	}
	s.Articles = fakes.NewArticles(opts.Articles)
	hookOpts := opts.Webhook
	hookOpts.Secret = WebhookSecret
	s.Webhook = fakes.NewWebhook(hookOpts)
	wrap := opts.WrapFake
	if wrap == nil {
		wrap = func(_ string, h http.Handler) http.Handler { return h }
	}
	if s.LLMServer, err = fakes.Start("", wrap(FakeLLM, s.LLM)); err != nil {
		return err
	}
	s.closers = append(s.closers, s.LLMServer.Close)
	if s.ArticleServer, err = fakes.Start("", wrap(FakeArticles, s.Articles)); err != nil {
		return err
	}
	s.closers = append(s.closers, s.ArticleServer.Close)
	if s.HookServer, err = fakes.Start("", wrap(FakeWebhook, s.Webhook)); err != nil {
		return err
	}
	s.closers = append(s.closers, s.HookServer.Close)
	return nil
}

func (s *Stack) readOutputs() error {
	s.queues, s.dlqs = map[work.Stage]string{}, map[work.Stage]string{}
	names := map[work.Stage]string{work.Fetch: "Fetch", work.LLM: "LLM", work.Notify: "Notify"}
	for st, n := range names {
		q, d := s.Info.Outputs[n+"QueueUrl"], s.Info.Outputs[n+"DLQUrl"]
		if q == "" || d == "" {
			return fmt.Errorf("devstack: stack outputs lack %sQueueUrl or %sDLQUrl", n, n)
		}
		s.queues[st], s.dlqs[st] = q, d
	}
	return nil
}

// QueueURL is the stage's queue.
func (s *Stack) QueueURL(st work.Stage) string { return s.queues[st] }

// Send puts an envelope on its stage's queue, as a producer (or the
// previous stage) would.
func (s *Stack) Send(ctx context.Context, env work.Envelope) error {
	url := s.queues[env.Stage]
	if url == "" {
		return fmt.Errorf("devstack: no queue for stage %q", env.Stage)
	}
	if _, err := s.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(env.Encode())}); err != nil {
		return fmt.Errorf("devstack: send %s to %s: %w", env.ItemID, env.Stage, err)
	}
	return nil
}

// DLQURL is the stage's dead-letter queue.
func (s *Stack) DLQURL(st work.Stage) string { return s.dlqs[st] }

// emitter writes slog's lines through the Lambda service's log.
type emitter struct {
	svc    *lambda.Service
	source string
}

func (e emitter) Write(p []byte) (int, error) {
	e.svc.Emit(e.source, strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func (s *Stack) startPollers(fns []template.Function) error {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopPollers = cancel
	for _, fn := range fns {
		for _, ev := range fn.Events {
			if ev.Type != "SQS" {
				continue
			}
			m, err := poller.FromTemplate(fn, ev, s.Resolver)
			if err != nil {
				return err
			}
			// The pollers' warnings — failed batches (a timeout, a killed
			// process), receive and delete errors — go to the functions'
			// log, as the Lambda service's own would go to CloudWatch.
			log := slog.New(slog.NewJSONHandler(emitter{s.Lambda, "poller " + fn.LogicalID}, nil))
			p := &poller.Poller{Mapping: m, SQS: s.SQS, Invoker: s.Lambda, WaitTime: time.Second, Drain: 10 * time.Second, Log: log}
			s.Pollers[fn.LogicalID] = append(s.Pollers[fn.LogicalID], p)
			s.pollWG.Add(1)
			go func() {
				defer s.pollWG.Done()
				_ = p.Run(ctx)
			}()
		}
	}
	return nil
}

// PollerCounters sums every poller's counters.
func (s *Stack) PollerCounters() poller.Counters {
	var c poller.Counters
	for _, ps := range s.Pollers {
		for _, p := range ps {
			pc := p.Counters()
			c.Received += pc.Received
			c.Batches += pc.Batches
			c.Deleted += pc.Deleted
			c.Kept += pc.Kept
			c.FunctionErrors += pc.FunctionErrors
			c.InvalidResponses += pc.InvalidResponses
			c.InvokeErrors += pc.InvokeErrors
			c.DeleteErrors += pc.DeleteErrors
			c.ReceiveErrors += pc.ReceiveErrors
		}
	}
	return c
}

// Close stops the pollers (letting running batches finish, bounded), the
// functions, moto and the fakes — exactly what Start started. It is safe
// to call twice.
func (s *Stack) Close() error {
	if s == nil {
		return nil
	}
	s.closeOnce.Do(func() {
		if s.stopSchedules != nil {
			s.stopSchedules()
			s.scheduleWG.Wait()
		}
		if s.stopPollers != nil {
			s.stopPollers()
			s.pollWG.Wait()
		}
		var errs []error
		for i := len(s.closers) - 1; i >= 0; i-- {
			errs = append(errs, s.closers[i]())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// openStack returns the stack at the endpoint, creating it from the
// template when it does not exist.
func openStack(ctx context.Context, cfn cfnstack.ResourcesAPI, endpoint, tplPath, name string,
	params map[string]string, progress func(string, ...any)) (*cfnstack.Info, error) {
	info, err := cfnstack.DescribeResources(ctx, cfn, name)
	if err == nil {
		progress("using the existing stack %s", name)
		return info, nil
	}
	if !cfnstack.IsMissing(err) {
		return nil, err
	}
	progress("creating stack %s from %s", name, filepath.Base(tplPath))
	if _, err := stack.Create(ctx, stack.Options{Endpoint: endpoint, Name: name, TemplatePath: tplPath,
		Parameters: params, Timeout: stackCreateTimeout}); err != nil {
		return nil, err
	}
	return cfnstack.DescribeResources(ctx, cfn, name)
}

// seedSecrets stores the keys the fakes expect under the parameter names
// the template gives the functions.
func seedSecrets(ctx context.Context, cfg aws.Config, params map[string]string) error {
	for param, value := range map[string]string{"LLMApiKeyParameter": LLMKey, "AnthropicApiKeyParameter": LLMKey,
		"WebhookSecretParameter": WebhookSecret} {
		if name := params[param]; name != "" {
			if err := stack.PutSecureParameter(ctx, cfg, name, value); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildBootstraps returns each function's binary, building what is needed
// in one go invocation (as `make bootstraps` does, for this machine).
func buildBootstraps(ctx context.Context, root string, fns []template.Function, opts Options,
	progress func(string, ...any)) (map[string]string, error) {
	mode, buildDir, prebuilt := opts.Build, opts.BuildDir, false
	if mode == "" {
		mode = BuildAlways
		if dir := os.Getenv(PrebuiltEnv); dir != "" {
			mode, buildDir, prebuilt = BuildNever, dir, true
			progress("using the bootstraps in %s ($%s)", dir, PrebuiltEnv)
		}
	}
	bins := map[string]string{}
	var pkgs, ids []string
	for _, fn := range fns {
		if b, ok := opts.Bootstraps[fn.LogicalID]; ok {
			bins[fn.LogicalID] = b
			continue
		}
		out, err := BootstrapPath(root, buildDir, fn.LogicalID)
		if err != nil {
			return nil, err
		}
		bins[fn.LogicalID] = out
		_, statErr := os.Stat(out)
		switch {
		case prebuilt && statErr != nil:
			return nil, fmt.Errorf("devstack: $%s=%s lacks %s's bootstrap: %w", PrebuiltEnv, buildDir, fn.LogicalID, statErr)
		case mode == BuildNever && statErr != nil:
			return nil, fmt.Errorf("devstack: build never, but %s: %w", out, statErr)
		case mode == BuildNever, mode == BuildMissing && statErr == nil:
			continue
		}
		pkg := "./cmd/" + ShortName(fn.LogicalID)
		if st, err := os.Stat(filepath.Join(root, pkg)); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("devstack: cannot tell %s's package (no %s)", fn.LogicalID, pkg)
		}
		pkgs, ids = append(pkgs, pkg), append(ids, fn.LogicalID)
	}
	if len(pkgs) == 0 {
		return bins, nil
	}
	tmp, err := os.MkdirTemp("", "triage-bootstraps-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	progress("building %s", strings.Join(pkgs, " "))
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	args := append([]string{"build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", tmp + string(filepath.Separator)}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %w\n%s", strings.Join(pkgs, " "), err, out)
	}
	for i, pkg := range pkgs {
		out := bins[ids[i]]
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return nil, err
		}
		if err := os.Rename(filepath.Join(tmp, filepath.Base(pkg)), out); err != nil {
			return nil, fmt.Errorf("devstack: install %s: %w", out, err)
		}
		if err := bundleRules(root, filepath.Dir(out)); err != nil {
			return nil, err
		}
	}
	return bins, nil
}

// bundleRules puts the repository's rules.yaml beside a bootstrap it
// built, as `sam build` and `make bootstraps` deploy it (docs/design.md
// "Operator rules"); a tree without one bundles none.
func bundleRules(root, dir string) error {
	b, err := os.ReadFile(filepath.Join(root, "rules.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("devstack: bundle rules.yaml: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), b, 0o644); err != nil {
		return fmt.Errorf("devstack: bundle rules.yaml: %w", err)
	}
	return nil
}

// BootstrapPath is where a function's bootstrap is built: buildDir (default
// <root>/.build) /<LogicalId>/bootstrap, as `make bootstraps` lays it out.
func BootstrapPath(root, buildDir, logicalID string) (string, error) {
	if buildDir == "" {
		buildDir = filepath.Join(root, ".build")
	}
	return filepath.Abs(filepath.Join(buildDir, logicalID, "bootstrap"))
}

// ShortName maps a logical id to its package: FetchFunc → fetch.
func ShortName(logicalID string) string {
	return strings.ToLower(strings.TrimSuffix(logicalID, "Func"))
}

// ModuleRoot finds the directory holding go.mod, walking up from the
// working directory.
func ModuleRoot() (string, error) {
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
			return "", errors.New("devstack: no go.mod above the working directory; run from the repository")
		}
		dir = parent
	}
}
