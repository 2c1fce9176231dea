package soak

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
)

// Functions are the logical ids the soak runs: the three stages.
var Functions = []string{"FetchFunc", "LLMFunc", "NotifyFunc"}

var stageFunc = map[work.Stage]string{work.Fetch: "FetchFunc", work.LLM: "LLMFunc", work.Notify: "NotifyFunc"}

// Defaults of Options.
const (
	DefaultItems = 200
	DefaultWave  = 40
	// DefaultFunctionTimeout replaces the template's 30/90/30 s: with the
	// lease ending at the invocation's deadline plus the runner's 3 s
	// safety margin, the lease is at most 15 s from the invocation's start.
	DefaultFunctionTimeout = 12 * time.Second
	// DefaultVisibility replaces the template's 180/540 s on the stage
	// queues: at least the lease (15 s) plus the batching window (1 s) plus
	// a cold start's slack, so a message never comes back while its
	// delivery still holds the item, and a killed batch comes back in
	// seconds rather than minutes.
	DefaultVisibility = 18 * time.Second
	// DefaultMaxHang outlasts every function timeout: a hung upstream is
	// ended by the work's deadline, as in production (NETWORK_TIMEOUT).
	DefaultMaxHang = 20 * time.Second
	// DefaultBreakerOpenFor compresses the breakers' 5-minute open state.
	DefaultBreakerOpenFor = 3 * time.Second
	// DefaultStoreOutageTolerance compresses policy.StoreOutageTolerance as
	// the queues' visibility is compressed (180 s to DefaultVisibility): a
	// record whose store write fails at the backstop's receive count − 1
	// holds about 90 s, not 15 minutes, and a run still settles.
	DefaultStoreOutageTolerance = 90 * time.Second
	// DefaultKillEvery is the mean time between kills.
	DefaultKillEvery = 5 * time.Second
	// DefaultDuplicateRate is the share of items that get a duplicate
	// delivery.
	DefaultDuplicateRate = 0.1
	// DefaultModels is the llm stage's chain: three models, so that
	// streaks of model-specific failures (RESPONSE_INVALID, CLIENT_ERROR)
	// cannot disable all of them. With every model disabled the llm stage
	// waits for the recovery, an hour after the last failure: a wait of
	// hours, kept out of the scenario like the provider quota's.
	DefaultModels = "gpt-4o-mini,gpt-4o,gpt-4.1-mini"
	// DefaultOutage is how long the LLM provider is down (every call 503),
	// from DefaultOutageAt into the pipeline phase: with breakers open for
	// DefaultBreakerOpenFor, a wait that went back to its queue at every
	// breaker window would be received 13 times — past DefaultBackstop.
	DefaultOutage   = 40 * time.Second
	DefaultOutageAt = 5 * time.Second
	// DefaultBackstop is the stage queues' redrive maxReceiveCount in the
	// soak (template.yaml's BackstopMaxReceiveCount): low, so the outage
	// crosses it.
	DefaultBackstop = 8
	// DefaultSchedule is how often the scheduler runs (EventBridge's rate(1
	// minute), compressed).
	DefaultSchedule = time.Second
)

// ActionFailedWait is the standard profile's fixed ACTION_FAILED delay: the
// longest wait of the default scenario.
var ActionFailedWait = policy.Standard().Policy("", work.ActionFailed).Backoff.Base(1)

// DefaultAWSFaults is the default fault model between the functions and
// moto: 5% of the requests fail one attempt, 1% of the operations fail
// every attempt, 2% of the writes are applied with their response dropped,
// and the DLQs refuse messages for 8 s from the first dead letter after 3 s.
func DefaultAWSFaults() AWSFaults {
	return AWSFaults{AttemptRate: 0.05, OperationRate: 0.01, DropRate: 0.02, DLQOutageAfter: 3 * time.Second,
		DLQOutageFor: 8 * time.Second}
}

// Options configure Run. The zero value is the default scenario: 200 items,
// seed 0, every fault kind, secrets not planted.
type Options struct {
	// Items is how many items to seed; 0 means DefaultItems.
	Items int
	// Seed drives every random choice of the scenario.
	Seed uint64
	// Wave is how many items are seeded at once; the next wave is seeded
	// when fewer than half a wave are still in progress. 0 means
	// DefaultWave. Waves keep moto below the ~100 queued messages where it
	// slows down.
	Wave int
	// Timeout bounds the pipeline phase: an item not finished by then is
	// stuck. 0 means 3 minutes plus 1 s per item, plus ActionFailedWait
	// per ACTION_FAILED round when ActionFailures is set.
	Timeout time.Duration
	// FunctionTimeout and Visibility: see DefaultFunctionTimeout and
	// DefaultVisibility. Visibility must be at least FunctionTimeout + 4 s.
	FunctionTimeout time.Duration
	Visibility      time.Duration
	// AWS is the fault model between the functions and moto; nil means
	// DefaultAWSFaults(), a zero AWSFaults injects nothing.
	AWS *AWSFaults
	// Mixes are the fakes' fault mixes; nil means DefaultMixes().
	Mixes *Mixes
	// Extra are upstream answers the fakes lack; nil means
	// DefaultExtraFaults().
	Extra []ExtraFault
	// Kills bounds how many bootstrap processes are killed (SIGKILL, in the
	// middle of an upstream call, between the record's claim and its
	// outcome); 0 means Items/25 but at least 2, negative none.
	Kills int
	// KillEvery is the mean time between kills; 0 means DefaultKillEvery.
	KillEvery time.Duration
	// DuplicateRate is the share of items whose envelope is sent again
	// (same item and stage, a new message id) within DuplicateWithin of its
	// wave; 0 means DefaultDuplicateRate, negative none.
	DuplicateRate   float64
	DuplicateWithin time.Duration
	// SchemaInvalid is how many items get an empty article (a
	// SCHEMA_INVALID dead letter at fetch); 0 means 1, negative none.
	SchemaInvalid int
	// ActionFailures is how many action items fail once with ACTION_FAILED
	// and wait the standard profile's 2 minutes; 0 means none.
	ActionFailures int
	// Secrets plants secrets in items, prompts and upstream error bodies
	// and searches every function log line, every DLQ payload and the error
	// log for them.
	Secrets bool
	// Outage is how long the LLM provider is down, from OutageAt into the
	// pipeline phase; 0 means DefaultOutage (at DefaultOutageAt), negative
	// none. Backstop is the queues' maxReceiveCount; 0 means
	// DefaultBackstop.
	Outage, OutageAt time.Duration
	Backstop         int
	// Root is the module root; "" finds it from the working directory.
	Root string
	// Build and BuildDir: see devstack.Options; BuildDir "" is
	// <root>/.build/soak.
	Build    devstack.BuildMode
	BuildDir string
	// LogDir receives functions-<seed>.log and moto-<seed>.log; "" is
	// <root>/.build/soak.
	LogDir string
	// Out receives progress lines; nil discards them.
	Out io.Writer `json:"-"`
}

func (o Options) withDefaults() Options {
	o.Items = positiveOr(o.Items, DefaultItems)
	o.Wave = positiveOr(o.Wave, DefaultWave)
	o.FunctionTimeout = positiveOr(o.FunctionTimeout, DefaultFunctionTimeout)
	o.Visibility = positiveOr(o.Visibility, DefaultVisibility)
	if o.AWS == nil {
		f := DefaultAWSFaults()
		o.AWS = &f
	}
	if o.Mixes == nil {
		m := DefaultMixes()
		o.Mixes = &m
	}
	if o.Extra == nil {
		o.Extra = DefaultExtraFaults()
	}
	o.Kills = zeroMeans(o.Kills, max(2, o.Items/25))
	o.KillEvery = positiveOr(o.KillEvery, DefaultKillEvery)
	o.DuplicateRate = zeroMeans(o.DuplicateRate, DefaultDuplicateRate)
	o.DuplicateWithin = positiveOr(o.DuplicateWithin, 15*time.Second)
	o.SchemaInvalid = zeroMeans(o.SchemaInvalid, 1)
	o.Outage = zeroMeans(o.Outage, DefaultOutage)
	o.OutageAt = positiveOr(o.OutageAt, DefaultOutageAt)
	o.Backstop = positiveOr(o.Backstop, DefaultBackstop)
	if o.Timeout <= 0 {
		o.Timeout = 3*time.Minute + time.Duration(o.Items)*time.Second + o.Outage
		if o.ActionFailures > 0 {
			o.Timeout += ActionFailedWait
		}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o
}

// positiveOr is v, or def when v is not positive: an option's default.
func positiveOr[T ~int | ~int64 | ~float64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// zeroMeans reads an option whose zero means def and whose negative value
// means none (0).
func zeroMeans[T ~int | ~int64 | ~float64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// LongestWait is the longest a healthy item of the scenario may wait
// between two steps: the ACTION_FAILED delay when that fault is scripted,
// else the recovery of a killed batch (the message's visibility, then the
// rest of the dead invocation's lease).
func (o Options) LongestWait() time.Duration {
	o = o.withDefaults()
	kill := o.Visibility + o.FunctionTimeout + 4*time.Second
	if o.ActionFailures > 0 {
		return max(ActionFailedWait, kill)
	}
	return kill
}

// FreshSeed draws a seed nobody chose (math/rand/v2's randomly seeded
// source): every fault of a run is a function of its seed, so a seed no one
// tuned the code or its timings for tests what a fixed one cannot. It is
// below 2^31, easy to type back to rerun the run.
func FreshSeed() uint64 { return rand.Uint64N(1 << 31) }

// Kill is one bootstrap process the soak killed.
type Kill struct {
	// At is the time since the pipeline phase began.
	At time.Duration
	// Function and PID name the process; Item is the item whose upstream
	// call it was making.
	Function string
	PID      int
	Item     string
	// Calling is set when the process was found by its socket to the fake
	// (Linux); otherwise a random environment of the function was killed.
	Calling bool
}

// Run runs one soak: it starts moto, a fault-injecting proxy for the
// functions and the local stack, seeds the items in waves, injects the
// scenario's faults, waits (bounded by Timeout) until the pipeline settles,
// and checks conservation. The returned error is for a run that could not
// be made (the stack did not start, ctx ended); invariant violations are in
// the Result (Result.OK).
func Run(ctx context.Context, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if opts.Visibility < opts.FunctionTimeout+4*time.Second {
		return nil, fmt.Errorf("soak: visibility %v must be at least the function timeout %v + 4 s (the lease and the batching window)",
			opts.Visibility, opts.FunctionTimeout)
	}
	started := time.Now()
	root := opts.Root
	if root == "" {
		var err error
		if root, err = devstack.ModuleRoot(); err != nil {
			return nil, err
		}
	}
	dir := cmp.Or(opts.LogDir, filepath.Join(root, ".build", "soak"))
	buildDir := cmp.Or(opts.BuildDir, filepath.Join(root, ".build", "soak"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	seedName := strconv.FormatUint(opts.Seed, 10)
	logPath := filepath.Join(dir, "functions-"+seedName+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	say := func(format string, args ...any) { fmt.Fprintf(opts.Out, format+"\n", args...) }

	rng := rand.New(rand.NewPCG(opts.Seed, 0x50a4))
	var planted *Planted
	if opts.Secrets {
		first := make([]string, 0, len(secretRoles))
		for i := range min(len(secretRoles), opts.Items) {
			first = append(first, "item-"+pad(i+1))
		}
		planted = PlantSecrets(rand.New(rand.NewPCG(opts.Seed, 0x5ec7)), first)
	}
	pl := newPlan(rng, opts.Items, opts.SchemaInvalid, opts.ActionFailures, opts.DuplicateRate, opts.DuplicateWithin, planted.Has)
	pl.assignNotices(opts.Seed, planted.Has)
	var secrets []Secret
	if planted != nil {
		secrets = planted.Secrets
	}
	scan := NewSecretScan(secrets)
	scripted := func(id string) bool { return planted.Has(id) || pl.schema[id] || pl.action[id] }
	extra := newExtras(opts.Seed, opts.Extra, scripted)
	tracker := NewTracker()
	calls := &devstack.AWSCalls{}
	probes := newProbeLog()

	srv, err := moto.Start(ctx, moto.Options{LogPath: filepath.Join(dir, "moto-"+seedName+".log")})
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	inj := NewInjector(*opts.AWS, srv.URL, opts.Seed)
	faultLog, err := os.Create(filepath.Join(dir, "aws-faults-"+seedName+".log"))
	if err != nil {
		return nil, err
	}
	defer faultLog.Close()
	inj.SetLog(faultLog)
	faulty, err := moto.StartFront(srv.URL)
	if err != nil {
		return nil, err
	}
	defer faulty.Close()
	faulty.SetInterceptor(inj.Intercept)

	keys := map[string]func(*http.Request) string{devstack.FakeArticles: articleKey, devstack.FakeLLM: llmKey, devstack.FakeWebhook: webhookKey}
	stages := map[string]work.Stage{devstack.FakeArticles: work.Fetch, devstack.FakeLLM: work.LLM, devstack.FakeWebhook: work.Notify}
	timeouts := map[string]time.Duration{}
	for _, fn := range Functions {
		timeouts[fn] = opts.FunctionTimeout
	}
	// KeepCalls: the check reads every webhook call back from Stats.
	shared := fakes.Shared{MaxHang: DefaultMaxHang, KeepCalls: 1 << 20}
	functionEnv := map[string]map[string]string{"*": {"BREAKER_OPEN_FOR": DefaultBreakerOpenFor.String(),
		"STORE_OUTAGE_TOLERANCE": DefaultStoreOutageTolerance.String()},
		// The notices' retries in seconds, like everything else here.
		"NotifyFunc": {"NOTICE_RETRY_INITIAL": "1s"}}
	st, err := devstack.Start(ctx, devstack.Options{
		Root: root, Endpoint: srv.URL, FunctionEndpoint: faulty.URL, StackName: "triage-soak", Pollers: true,
		Functions: Functions, Build: opts.Build, BuildDir: buildDir, Timeouts: timeouts,
		// Enough environments for every batch the pollers may have in
		// flight, so no received batch waits for one while its visibility
		// runs (Lambda does not receive beyond its concurrency either).
		MaxEnvironments: 20,
		Params: map[string]string{"LLMModels": DefaultModels, "DailyBudgetUSD": "100000",
			"BackstopMaxReceiveCount": strconv.Itoa(opts.Backstop)},
		Env:       functionEnv,
		Scheduler: DefaultSchedule,
		LLM:       fakes.LLMOptions{Shared: shared, RetryAfter: time.Second},
		Articles:  fakes.ArticleOptions{Shared: shared, RetryAfter: time.Second, HugeSize: 4 << 20, Text: planted.ArticleText},
		Webhook:   fakes.WebhookOptions{Shared: shared, RetryAfter: time.Second},
		WrapFake: func(name string, h http.Handler) http.Handler {
			h = extra.wrap(name, keys[name], h)
			if planted != nil {
				h = planted.Wrap(name, h)
			}
			return tracker.Wrap(stages[name], keys[name], h)
		},
		Logs: logFile,
		OnLog: func(fn, line string) {
			scan.Line(fn, line)
			calls.Observe(fn, line)
			probes.Observe(fn, line)
		},
		Progress: func(format string, args ...any) { say("  · "+format, args...) },
	})
	if err != nil {
		return nil, err
	}
	defer st.Close()

	r := &runner{opts: opts, st: st, inj: inj, tracker: tracker, planted: planted, scan: scan, plan: pl, extra: extra,
		calls: calls, probes: probes, rng: rng, say: say, seededAt: map[string]time.Time{}, terminalAt: map[string]time.Time{},
		killer: newKiller(st.Lambda, opts.Kills, opts.KillEvery, opts.Seed)}
	tracker.SetOnBegin(r.killer.onCall)
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	say("  · soak seed %d: %d items in waves of %d; functions log to %s", opts.Seed, opts.Items, opts.Wave, logPath)
	res := r.pipeline(ctx)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if !res.Settled {
		// What the harness (pollers, Lambda service, fakes) was doing when
		// the pipeline stopped moving, for the post-mortem.
		devstack.DumpGoroutines(filepath.Join(dir, "goroutines-"+seedName+".txt"))
		dumpMotoState(srv.URL, filepath.Join(dir, "moto-state-"+seedName+".json"))
	}
	inj.Disarm()
	if err := r.collect(ctx, res); err != nil {
		return nil, err
	}
	res.Wall = time.Since(started)
	res.FunctionLog = logPath
	return res, nil
}

// runner is one run in progress.
type runner struct {
	opts    Options
	st      *devstack.Stack
	inj     *Injector
	tracker *Tracker
	planted *Planted
	scan    *SecretScan
	plan    *plan
	extra   *extras
	calls   *devstack.AWSCalls
	probes  *probeLog
	rng     *rand.Rand
	say     func(string, ...any)

	phaseStart time.Time
	seeded     int
	seededAt   map[string]time.Time
	terminalAt map[string]time.Time
	killer     *killer
	dups       map[string]int // "current stage" / "earlier stage" → sent
	dupErrors  int
}

// prepare shortens the stage queues' visibility, sets the fault plans, and
// tells the injector where the DLQs are.
func (r *runner) prepare(ctx context.Context) error {
	for _, u := range r.st.PipelineQueueURLs() {
		_, err := r.st.SQS.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u),
			Attributes: map[string]string{string(sqstypes.QueueAttributeNameVisibilityTimeout): strconv.Itoa(int(r.opts.Visibility.Seconds()))}})
		if err != nil {
			return fmt.Errorf("soak: set the visibility timeout of %s: %w", u, err)
		}
	}
	r.inj.SetDLQs(r.st.DLQURL(work.Fetch), r.st.DLQURL(work.LLM), r.st.DLQURL(work.Notify))
	m := r.opts.Mixes
	for _, f := range []struct {
		name  string
		plan  *fakes.Plan
		rates map[fakes.Fault]float64
	}{{"articles", r.st.Articles.Plan, m.Articles}, {"llm", r.st.LLM.Plan, m.LLM}, {"webhook", r.st.Webhook.Plan, m.Webhook}} {
		if err := f.plan.SetMix(fakes.Mix{Seed: r.opts.Seed, Rates: f.rates, TransientCalls: m.TransientCalls}); err != nil {
			return fmt.Errorf("soak: %s fault mix: %w", f.name, err)
		}
	}
	llmScripts := map[string][]fakes.Fault{}
	for id := range r.plan.action {
		llmScripts[id] = []fakes.Fault{fakes.FaultActionFailed}
	}
	// A schema item's article is an empty document, which the fetch stage
	// refuses as SCHEMA_INVALID.
	schemaScripts := map[string][]fakes.Fault{}
	for id := range r.plan.schema {
		schemaScripts[id] = []fakes.Fault{fakes.Always(fakes.FaultEmpty)}
	}
	if err := r.st.Articles.SetScripts(schemaScripts, false); err != nil {
		return err
	}
	if r.planted != nil {
		a, l, w := r.planted.Scripts()
		if err := r.st.Articles.SetScripts(a, false); err != nil {
			return err
		}
		for k, v := range l {
			llmScripts[k] = v
		}
		if err := r.st.Webhook.SetScripts(w, false); err != nil {
			return err
		}
	}
	if err := r.st.Webhook.SetScripts(r.plan.noticeScripts(r.opts.Seed), false); err != nil {
		return err
	}
	return r.st.LLM.SetScripts(llmScripts, false)
}

// pipeline seeds the waves and injects kills and duplicates until the
// pipeline settles or the timeout; it returns the Result to complete.
func (r *runner) pipeline(ctx context.Context) *Result {
	res := &Result{Seed: r.opts.Seed, Items: r.opts.Items}
	pctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	r.phaseStart = time.Now()
	r.inj.Arm()
	r.dups = map[string]int{}
	r.killer.start(r.phaseStart)
	defer r.killer.stop()
	pendingDups := map[string]time.Time{}
	var lastCheck, lastPrint, stallSince time.Time
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	inProgress := 0
	outage := 0 // 0 before, 1 during, 2 after
	defer r.st.LLM.SetOutage(false)
	for {
		now := time.Now()
		if since := now.Sub(r.phaseStart); r.opts.Outage > 0 && outage < 2 {
			switch {
			case outage == 0 && since >= r.opts.OutageAt:
				r.st.LLM.SetOutage(true)
				outage = 1
				r.say("  %5.1fs the LLM provider is down for %v", since.Seconds(), r.opts.Outage)
			case outage == 1 && since >= r.opts.OutageAt+r.opts.Outage:
				r.st.LLM.SetOutage(false)
				outage = 2
				r.say("  %5.1fs the LLM provider is back", since.Seconds())
			}
		}
		if r.seeded < len(r.plan.ids) && (r.seeded == 0 || inProgress <= r.opts.Wave/2) {
			wave := r.plan.ids[r.seeded:min(len(r.plan.ids), r.seeded+r.opts.Wave)]
			if err := r.seed(pctx, wave); err != nil {
				// The harness's own requests are not faulted: a failure
				// here is the local stack's, and the run cannot go on.
				res.SetupErrors = append(res.SetupErrors, err.Error())
				break
			}
			for _, id := range wave {
				if d, ok := r.plan.dupAt[id]; ok {
					pendingDups[id] = now.Add(d)
				}
			}
			r.seeded += len(wave)
			inProgress += len(wave)
		}
		for id, at := range pendingDups {
			if !now.After(at) {
				continue
			}
			// An item the fetch stage has not created yet (its spec still
			// queued) gets its duplicate a second later.
			switch {
			case r.duplicate(pctx, id):
				delete(pendingDups, id)
			case now.Sub(r.seededAt[id]) > r.opts.Timeout/2:
				r.dupErrors++ // never created: the stuck check names it
				delete(pendingDups, id)
			default:
				pendingDups[id] = now.Add(time.Second)
			}
		}
		if now.Sub(lastCheck) >= time.Second {
			lastCheck = now
			counts, depth, err := r.observe(pctx)
			if err == nil {
				parked, perr := r.parked(pctx)
				if perr == nil {
					// A parked wait is carried by the scheduler: no stall.
					depth += parked
				}
				inProgress = r.seeded - counts[work.Done] - counts[work.Deadletter] - counts[work.Failed]
				if now.Sub(lastPrint) >= 5*time.Second {
					lastPrint = now
					r.say("  %5.1fs seeded %d/%d · done %d · dead %d · failed %d · in progress %d · in queues or parked %d · kills %d",
						now.Sub(r.phaseStart).Seconds(), r.seeded, len(r.plan.ids), counts[work.Done], counts[work.Deadletter],
						counts[work.Failed], inProgress, depth, len(r.killer.Kills()))
				}
				all := r.seeded == len(r.plan.ids) && len(pendingDups) == 0
				if all && depth == 0 && r.tracker.Idle() {
					if inProgress == 0 {
						res.Settled = true
						break
					}
					// Nothing carries the unfinished items any more: they are
					// lost, unless parked or about to reappear. Give them a
					// full kill recovery before calling it.
					if stallSince.IsZero() {
						stallSince = now
					} else if now.Sub(stallSince) > r.opts.LongestWait() {
						res.Stalled = true
						break
					}
				} else {
					stallSince = time.Time{}
				}
			}
		}
		select {
		case <-pctx.Done():
			res.TimedOut = ctx.Err() == nil
			res.Phase = time.Since(r.phaseStart)
			return res
		case <-tick.C:
		}
	}
	res.Phase = time.Since(r.phaseStart)
	return res
}

// seed submits the wave's items as a producer would (package intake):
// one message per item on the fetch queue, which creates the items.
func (r *runner) seed(ctx context.Context, ids []string) error {
	specs := make([]intake.Spec, len(ids))
	for i, id := range ids {
		specs[i] = intake.Spec{ItemID: id, Kind: r.plan.kind[id], CorrelationID: "soak-" + id,
			SourceURL: r.planted.SourceURL(r.st.ArticleServer.URL, id), WebhookURL: r.planted.WebhookURL(r.st.HookServer.URL, id),
			Notices: r.plan.notices[id]}
		r.seededAt[id] = time.Now()
	}
	p := &intake.Producer{SQS: r.st.SQS, QueueURL: r.st.QueueURL(work.Fetch)}
	for _, res := range p.SubmitBatch(ctx, specs) {
		if res.Err != nil {
			return fmt.Errorf("seed %s: %w", res.ItemID, res.Err)
		}
	}
	return nil
}

// duplicate sends id's envelope again with a new message id: for the stage
// the item is at now, or (a third of them) for the stage before it. It
// reports false, counting nothing, for an item that does not exist yet.
func (r *runner) duplicate(ctx context.Context, id string) bool {
	it, err := r.st.Items.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false
	}
	if err != nil {
		r.dupErrors++
		return true
	}
	stg, kind := it.Stage, "current stage"
	if r.plan.dupStale[id] && stg.Index() > 0 {
		stg, kind = work.Stages()[stg.Index()-1], "earlier stage"
	}
	env := work.Envelope{ItemID: id, Stage: stg, CorrelationID: it.CorrelationID}
	if _, err := r.st.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(r.st.QueueURL(stg)), MessageBody: aws.String(env.Encode())}); err != nil {
		r.dupErrors++
		return true
	}
	r.dups[kind]++
	return true
}

// observe counts the seeded items by state (recording when each became
// terminal) and the messages in the stage queues.
func (r *runner) observe(ctx context.Context) (map[work.State]int, int, error) {
	counts := map[work.State]int{}
	now := time.Now()
	err := r.st.Scan(ctx, r.st.Items.Table, "item_id, #s", map[string]string{"#s": "state"}, func(it map[string]dbtypes.AttributeValue) {
		id := devstack.Str(it["item_id"])
		if _, ok := r.seededAt[id]; !ok {
			return
		}
		s := work.State(devstack.Str(it["state"]))
		counts[s]++
		if s == work.Done || s == work.Deadletter {
			if _, ok := r.terminalAt[id]; !ok {
				r.terminalAt[id] = now
			}
		}
	})
	if err != nil {
		return nil, 0, err
	}
	depth, err := r.st.QueueDepth(ctx, r.st.PipelineQueueURLs()...)
	return counts, depth, err
}

// parked counts the parked waits.
func (r *runner) parked(ctx context.Context) (int, error) {
	n := 0
	err := r.st.Scan(ctx, r.st.Items.ParkedTable, "item_id", nil, func(map[string]dbtypes.AttributeValue) { n++ })
	return n, err
}

// dumpMotoState saves moto's whole backend state (its /moto-api/data.json:
// every queue's messages with their visibility) for the post-mortem of a
// run that did not settle.
func dumpMotoState(endpoint, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+"/moto-api/data.json", nil)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = io.Copy(f, resp.Body)
}
