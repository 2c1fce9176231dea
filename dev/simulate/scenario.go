package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Duration is a time.Duration that JSON spells as a Go duration string
// ("10m", "1.5s"); a bare number is read as seconds.
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return fmt.Errorf("duration %s: want a string such as \"10m\" or a number of seconds", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Range is a uniform distribution of durations [Min, Max].
type Range struct {
	// Min and Max bound the draw; Max below Min is Min.
	Min Duration `json:"min"`
	Max Duration `json:"max"`
}

// at maps u in [0, 1) onto the range.
func (r Range) at(u float64) time.Duration {
	lo, hi := r.Min.D(), max(r.Max.D(), r.Min.D())
	return lo + time.Duration(u*float64(hi-lo))
}

// Arrival patterns.
const (
	// ArrivalUniform spaces items evenly at RatePerSecond.
	ArrivalUniform = "uniform"
	// ArrivalPoisson draws exponential gaps with mean 1/RatePerSecond from
	// the scenario's seed.
	ArrivalPoisson = "poisson"
	// ArrivalBurst enqueues every item at time zero.
	ArrivalBurst = "burst"
)

// Arrival is how items enter the fetch queue.
type Arrival struct {
	// Pattern is ArrivalUniform (the default), ArrivalPoisson or ArrivalBurst.
	Pattern string `json:"pattern,omitempty"`
	// RatePerSecond is the mean arrival rate; required unless Pattern is
	// ArrivalBurst.
	RatePerSecond float64 `json:"rate_per_second,omitempty"`
}

// Mix is a stage's seeded random fault mix, with the semantics of the
// fakes' fakes.Mix (dev/fakes/plan.go), so that the same mix can be posted
// to a fake's /_fake/mix and give the same fault for every (key, call):
// permanent faults and faults spelled "always:" stick to the key that drew
// them (rates are per key); other faults are transient, drawn independently
// for each of a key's first TransientCalls calls (rates are per call).
type Mix struct {
	// Seed seeds the draws; nil means the scenario's seed plus the stage's
	// index (fetch 0, llm 1, notify 2), so stages draw independently.
	Seed *uint64 `json:"seed,omitempty"`
	// Rates maps a fault name (see Faults) to its probability.
	Rates map[string]float64 `json:"rates,omitempty"`
	// TransientCalls bounds the calls that can draw a transient fault; zero
	// means fakes.DefaultTransientCalls (2).
	TransientCalls int `json:"transient_calls,omitempty"`
}

// StageConfig models one stage: its Lambda function, its event source
// mapping, its queue and its upstream. Zero fields take the stage's defaults
// (DefaultStage), which are the values of template.yaml and of the stage's
// HTTP client.
type StageConfig struct {
	// Concurrency is the event source mapping's MaximumConcurrency: how many
	// invocations of the stage run at once.
	Concurrency int `json:"concurrency,omitempty"`
	// Lanes is how many records of one batch run at once inside an
	// invocation (the runner's CONCURRENCY).
	Lanes int `json:"lanes,omitempty"`
	// BatchSize and BatchWindow are the event source mapping's BatchSize
	// and MaximumBatchingWindowInSeconds.
	BatchSize   int      `json:"batch_size,omitempty"`
	BatchWindow Duration `json:"batch_window,omitempty"`
	// Timeout is the function timeout; Visibility the queue's default
	// visibility timeout (triage's policies and the SDK-retry baseline; the
	// naive baseline uses its own 30 s).
	Timeout    Duration `json:"timeout,omitempty"`
	Visibility Duration `json:"visibility,omitempty"`
	// Latency is how long a successful upstream call takes; ErrorLatency how
	// long a failed answer (a 4xx or 5xx) takes.
	Latency      Range `json:"latency"`
	ErrorLatency Range `json:"error_latency"`
	// ClientTimeout is when the stage's HTTP client gives up on a hung
	// upstream (fetch and notify wait 10 s for response headers, llm 60 s).
	ClientTimeout Duration `json:"client_timeout,omitempty"`
	// RetryAfter is the Retry-After of rate limits (the fakes' RetryAfter);
	// RetryAfterDiscord the retry_after of notify's rate_limit_discord.
	RetryAfter        Duration `json:"retry_after,omitempty"`
	RetryAfterDiscord Duration `json:"retry_after_discord,omitempty"`
	// Mix is the seeded random fault mix.
	Mix Mix `json:"mix"`
	// Scripts fix the faults of chosen items, call by call, with the fakes'
	// script semantics: call n gets entry n, an entry spelled "always:x"
	// answers every later call, past the end calls succeed. Keys are item
	// ids; a script takes precedence over the mix for its item.
	Scripts map[string][]string `json:"scripts,omitempty"`
	// RateLimit is the upstream's sustained rate, nil for none: a call
	// beyond it is answered with the upstream's rate limit (a 429 with
	// RetryAfter), whatever its plan says.
	RateLimit *RateLimit `json:"rate_limit,omitempty"`
	// Chain (llm only) is the model chain as LLMModels spells it,
	// "provider:model" entries: the llm stage then runs the real fallback
	// chain with one breaker per provider and model health, each provider
	// answering the mix's faults in its own wire format (providers.go).
	// Empty: the one provider of the default model, behind one breaker.
	Chain []string `json:"chain,omitempty"`
}

// RateLimit is an upstream's sustained rate: a token bucket of Burst calls
// refilled at PerSecond.
type RateLimit struct {
	// PerSecond is the sustained rate of calls; it must be positive.
	PerSecond float64 `json:"per_second"`
	// Burst is the bucket's size; zero means one second's worth (at least 1).
	Burst int `json:"burst,omitempty"`
}

// Budget is the llm stage's daily budget (internal/gates/budget), counted in calls:
// each call is charged before it is made, and once CallsPerDay calls of a
// UTC day went through, the rest of the day's calls are refused (runs start
// at 00:00 UTC, Epoch). Triage's items wait for the next day; the
// baselines fail the refused call as they fail any other.
type Budget struct {
	// CallsPerDay is the cap; it must be positive.
	CallsPerDay int64 `json:"calls_per_day"`
}

// Window kinds.
const (
	// WindowOutage is a provider outage: every call fails (503, 502, 500 or
	// a hang, drawn from Faults). Calls into it count as wasted.
	WindowOutage = "outage"
	// WindowQuota is an exhausted provider quota: every call gets the
	// provider's 429 insufficient_quota until the window ends.
	WindowQuota = "quota"
)

// Window is a period during which every call to one stage's upstream fails,
// whatever its item: the time-dependent part of a scenario.
type Window struct {
	// Name labels the window in reports.
	Name string `json:"name,omitempty"`
	// Kind is WindowOutage or WindowQuota.
	Kind string `json:"kind"`
	// Stage is the stage whose upstream fails.
	Stage work.Stage `json:"stage"`
	// Start is when the window opens, from the start of the run;
	// Duration how long it lasts.
	Start    Duration `json:"start"`
	Duration Duration `json:"duration"`
	// Faults weighs the faults an outage answers, drawn per (item, call):
	// any of unavailable, server_error, bad_gateway, hang. Nil means
	// unavailable only. A quota window always answers quota.
	Faults map[string]float64 `json:"faults,omitempty"`
	// Provider (llm, with a Chain) limits the window to one provider of
	// the chain: a provider-wide outage while the others answer. Empty is
	// every provider.
	Provider string `json:"provider,omitempty"`
}

// AWSLatency is how long one request to an AWS service takes from inside a
// function; it adds to the invocation's duration (and so its cost).
type AWSLatency struct {
	// DynamoDB is one DynamoDB request; zero means 6 ms.
	DynamoDB Duration `json:"dynamodb,omitempty"`
	// SQS is one SQS request; zero means 12 ms.
	SQS Duration `json:"sqs,omitempty"`
	// Invoke is the runtime's fixed overhead per invocation; zero means 2 ms.
	Invoke Duration `json:"invoke,omitempty"`
	// S3 is one request to the bodies bucket; zero means 25 ms.
	S3 Duration `json:"s3,omitempty"`
}

// Lambda is how Lambda scales the stages' event source mappings.
type Lambda struct {
	// AccountConcurrency is the account's concurrent executions, shared by
	// every function; zero means 1,000, the default quota of a Region.
	AccountConcurrency int `json:"account_concurrency,omitempty"`
	// ScaleStart is how many batches an event source mapping of a standard
	// queue processes at once when messages first arrive, and ScalePerMinute
	// how many it adds per minute while messages are waiting; zero means
	// AWS's 5 and 300. A mapping never exceeds its stage's Concurrency
	// (MaximumConcurrency), nor the account's.
	ScaleStart     int `json:"scale_start,omitempty"`
	ScalePerMinute int `json:"scale_per_minute,omitempty"`
	// Warm starts every mapping at its maximum concurrency, as one that has
	// been serving the load for a while; cold (the default) starts at
	// ScaleStart.
	Warm bool `json:"warm,omitempty"`
}

// Scenario is one simulated workload: items, arrivals, the upstreams'
// faults, the infrastructure and the limits of the run. Load reads one from
// JSON; Validate checks it and fills in defaults.
type Scenario struct {
	// Name and Description label reports.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Seed makes the run reproducible: the same seed gives the same
	// workload (arrivals, faults per item and call, call latencies) to every
	// policy, and the same results.
	Seed uint64 `json:"seed"`
	// Items is how many items arrive.
	Items int `json:"items"`
	// ItemPrefix prefixes item ids, which are the prefix and a zero-padded
	// 1-based index ("item-000042"); zero means "item-".
	ItemPrefix string `json:"item_prefix,omitempty"`
	// Arrival is the arrival pattern.
	Arrival Arrival `json:"arrival"`
	// DocumentBytes is the size of a fetched document, which every later
	// write of the item carries (DynamoDB bills writes by item size); zero
	// means 5000.
	DocumentBytes int `json:"document_bytes,omitempty"`
	// BodyThreshold is the largest body triage keeps in the Bodies table;
	// larger ones go to S3. Zero means store.DefaultBodyThreshold.
	BodyThreshold int `json:"body_threshold,omitempty"`
	// Lambda models the event source mappings' scaling.
	Lambda Lambda `json:"lambda"`
	// BudgetChunkCalls is how many calls' worth of the daily budget one llm
	// instance leases at a time; zero means budget.DefaultChunkCalls. The
	// simulated cap never binds: the budget is there for its DynamoDB load.
	BudgetChunkCalls int `json:"budget_chunk_calls,omitempty"`
	// KeyLoadFrom leaves the run's first seconds out of the DynamoDB key
	// load (Result.Keys): with warm event source mappings every instance
	// starts at once with an empty cache and an empty budget pocket, where
	// real instances start over Lambda's minutes of scale-up.
	KeyLoadFrom Duration `json:"key_load_from,omitempty"`
	// IndexShards is the Items table's by-listed-state index's partitions
	// per group (the template's ItemIndexShards); zero means
	// store.DefaultIndexShards.
	IndexShards int `json:"index_shards,omitempty"`
	// ArticleHosts and WebhookHosts are how many distinct article and
	// webhook hosts items spread over (each host has its own circuit
	// breaker); zero means 50 and 20.
	ArticleHosts int `json:"article_hosts,omitempty"`
	WebhookHosts int `json:"webhook_hosts,omitempty"`
	// Stages configures fetch, llm and notify; missing stages take the
	// defaults with no faults.
	Stages map[work.Stage]*StageConfig `json:"stages,omitempty"`
	// Windows are outages and exhausted quotas.
	Windows []Window `json:"windows,omitempty"`
	// Budget is the llm stage's daily budget; nil means none.
	Budget *Budget `json:"budget,omitempty"`
	// HangMax bounds a hang like the fakes' MaxHang: a hang longer than the
	// client's timeout ends with the client's timeout error; a client that
	// waits longer than HangMax gets a 504 at HangMax. Zero means hangs last
	// until the client gives up (a real upstream).
	HangMax Duration `json:"hang_max,omitempty"`
	// AWSLatency models the latency of AWS requests.
	AWSLatency AWSLatency `json:"aws_latency"`
	// Horizon ends the run: items not done or dead-lettered by then are
	// reported unfinished. Zero means 14 days (SQS's longest retention).
	Horizon Duration `json:"horizon,omitempty"`
	// MaxEvents bounds the events one run processes; zero means
	// 200 × Items + 1,000,000.
	MaxEvents int64 `json:"max_events,omitempty"`
	// SchedulerInterval is how often the scheduler re-enqueues parked
	// items; zero means one minute (its EventBridge schedule).
	SchedulerInterval Duration `json:"scheduler_interval,omitempty"`
	// Policies names the policies to compare (Policies lists them); empty
	// means all of them.
	Policies []string `json:"policies,omitempty"`
	// Poison names items whose scripts make every call of theirs fail (a
	// prompt the provider always answers 500 to, one item's 401 or 403, a
	// request it always times out on): each must have a script. Results
	// report them apart (Result.Poison) and the other items' completion
	// times apart (Result.Healthy); `triage simulate --poison` runs the
	// scenario again without their scripts (WithoutPoison) to compare
	// (docs/simulation.md "Poison items").
	Poison []string `json:"poison,omitempty"`

	validated bool
}

// DefaultStage returns the defaults of st: the event source mapping, timeout
// and queue visibility of template.yaml, the runner's default in-batch
// concurrency, the timeouts of the stage's HTTP client and the fakes'
// Retry-After values. It has no faults.
func DefaultStage(st work.Stage) StageConfig {
	c := StageConfig{
		Lanes: runner.DefaultConcurrency, BatchSize: 10, BatchWindow: Duration(time.Second),
		Concurrency: 20, Timeout: Duration(30 * time.Second), Visibility: Duration(180 * time.Second),
		ErrorLatency:  Range{Duration(20 * time.Millisecond), Duration(200 * time.Millisecond)},
		ClientTimeout: Duration(10 * time.Second), RetryAfter: Duration(time.Second),
	}
	switch st {
	case work.Fetch:
		c.Latency = Range{Duration(100 * time.Millisecond), Duration(800 * time.Millisecond)}
	case work.LLM:
		c.Concurrency, c.Timeout, c.Visibility = 10, Duration(90*time.Second), Duration(540*time.Second)
		c.Latency = Range{Duration(300 * time.Millisecond), Duration(2 * time.Second)}
		c.ErrorLatency = Range{Duration(50 * time.Millisecond), Duration(300 * time.Millisecond)}
		c.ClientTimeout, c.RetryAfter = Duration(60*time.Second), Duration(2*time.Second)
	case work.Notify:
		c.Latency = Range{Duration(50 * time.Millisecond), Duration(300 * time.Millisecond)}
		c.RetryAfterDiscord = Duration(1500 * time.Millisecond)
	}
	return c
}

// Faults returns the fault names the simulator models for st: the fakes'
// faults for that upstream, less those whose effect depends on more than the
// answer (huge and slow articles, action items).
func Faults(st work.Stage) []string {
	var fs []fakes.Fault
	switch st {
	case work.Fetch:
		fs = []fakes.Fault{fakes.FaultNotFound, fakes.FaultGone, fakes.FaultServerError, fakes.FaultUnavailable,
			fakes.FaultRateLimit, fakes.FaultHang, fakes.FaultReset}
	case work.LLM:
		fs = []fakes.Fault{fakes.FaultRateLimit, fakes.FaultQuota, fakes.FaultServerError, fakes.FaultUnavailable,
			fakes.FaultBadGateway, fakes.FaultHang, fakes.FaultReset, fakes.FaultInvalidJSON, fakes.FaultSchemaMismatch,
			fakes.FaultEmpty, fakes.FaultContentPolicy, fakes.FaultContentFilter, fakes.FaultContextLength,
			fakes.FaultAuth, fakes.FaultModelNotFound}
	case work.Notify:
		fs = []fakes.Fault{fakes.FaultServerError, fakes.FaultUnavailable, fakes.FaultRateLimitSlack,
			fakes.FaultRateLimitDiscord, fakes.FaultChannelNotFound, fakes.FaultArchived, fakes.FaultInvalidPayload,
			fakes.FaultUnauthorized, fakes.FaultHang, fakes.FaultReset}
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// outageFaults are the faults an outage window may answer.
var outageFaults = []fakes.Fault{fakes.FaultUnavailable, fakes.FaultServerError, fakes.FaultBadGateway, fakes.FaultHang}

// Load reads and validates a scenario file.
func Load(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	sc, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return sc, nil
}

// Parse decodes a scenario (unknown fields are errors) and validates it.
func Parse(b []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &sc, nil
}

// Validate fills in defaults and reports every problem at once: unknown
// stages, faults the stage does not model, mixes the fakes would reject,
// scripts for items that do not exist or with a permanent fault not spelled
// "always:" (a permanent fault answers every call), overlapping windows of
// one stage, non-positive rates and limits.
func (sc *Scenario) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if sc.Name == "" {
		bad("name is required")
	}
	if sc.Items <= 0 {
		bad("items must be positive")
	}
	if sc.ItemPrefix == "" {
		sc.ItemPrefix = "item-"
	}
	switch sc.Arrival.Pattern {
	case "":
		sc.Arrival.Pattern = ArrivalUniform
		fallthrough
	case ArrivalUniform, ArrivalPoisson:
		if !(sc.Arrival.RatePerSecond > 0) || math.IsInf(sc.Arrival.RatePerSecond, 0) {
			bad("arrival.rate_per_second must be positive for %s arrivals", sc.Arrival.Pattern)
		}
	case ArrivalBurst:
	default:
		bad("arrival.pattern %q: want uniform, poisson or burst", sc.Arrival.Pattern)
	}
	defaultInt(&sc.DocumentBytes, 5000)
	defaultInt(&sc.ArticleHosts, 50)
	defaultInt(&sc.WebhookHosts, 20)
	if sc.DocumentBytes < 0 || sc.ArticleHosts < 0 || sc.WebhookHosts < 0 {
		bad("document_bytes, article_hosts and webhook_hosts must not be negative")
	}
	defaultDur(&sc.AWSLatency.DynamoDB, 6*time.Millisecond)
	defaultDur(&sc.AWSLatency.SQS, 12*time.Millisecond)
	defaultDur(&sc.AWSLatency.Invoke, 2*time.Millisecond)
	defaultDur(&sc.AWSLatency.S3, 25*time.Millisecond)
	defaultInt(&sc.BodyThreshold, store.DefaultBodyThreshold)
	defaultInt(&sc.BudgetChunkCalls, budget.DefaultChunkCalls)
	defaultInt(&sc.Lambda.AccountConcurrency, 1000)
	defaultInt(&sc.Lambda.ScaleStart, 5)
	defaultInt(&sc.Lambda.ScalePerMinute, 300)
	if sc.BodyThreshold < 0 || sc.BudgetChunkCalls < 0 || sc.Lambda.AccountConcurrency < 0 || sc.Lambda.ScaleStart < 0 ||
		sc.Lambda.ScalePerMinute < 0 {
		bad("body_threshold, budget_chunk_calls and the lambda settings must not be negative")
	}
	defaultDur(&sc.Horizon, 14*24*time.Hour)
	defaultDur(&sc.SchedulerInterval, time.Minute)
	if sc.Horizon <= 0 || sc.SchedulerInterval <= 0 || sc.MaxEvents < 0 || sc.HangMax < 0 {
		bad("horizon, scheduler_interval and max_events must be positive, hang_max not negative")
	}
	if sc.Stages == nil {
		sc.Stages = map[work.Stage]*StageConfig{}
	}
	for st := range sc.Stages {
		if !st.Valid() {
			bad("stages: unknown stage %q", st)
		}
	}
	for _, st := range work.Stages() {
		c := sc.Stages[st]
		if c == nil {
			c = &StageConfig{}
			sc.Stages[st] = c
		}
		errs = append(errs, c.fill(st, sc)...)
	}
	for i := range sc.Windows {
		errs = append(errs, sc.Windows[i].validate(i)...)
	}
	if sc.Budget != nil && sc.Budget.CallsPerDay <= 0 {
		bad("budget.calls_per_day must be positive")
	}
	var chainProviders []failure.Provider
	if c := sc.Stages[work.LLM]; c != nil {
		if entries, err := c.chainEntries(); err != nil {
			bad("stages.llm.chain: %v", err)
		} else {
			chainProviders = fallback.Providers(entries)
		}
	}
	for i, w := range sc.Windows {
		if w.Provider == "" {
			continue
		}
		if w.Stage != work.LLM || !slices.Contains(chainProviders, failure.Provider(w.Provider)) {
			bad("windows[%d] (%s): provider %q is not a provider of stages.llm.chain", i, w.Name, w.Provider)
		}
	}
	for i, a := range sc.Windows {
		for _, b := range sc.Windows[i+1:] {
			if a.Provider != "" && b.Provider != "" && a.Provider != b.Provider {
				continue // two providers' own outages may overlap
			}
			if a.Stage == b.Stage && a.Start < b.Start+b.Duration && b.Start < a.Start+a.Duration {
				bad("windows %q and %q overlap on %s", a.Name, b.Name, a.Stage)
			}
		}
	}
	for _, p := range sc.Policies {
		if _, err := LookupPolicy(p); err != nil {
			bad("policies: %v", err)
		}
	}
	for _, id := range sc.Poison {
		n, ok := itemIndex(sc.ItemPrefix, id)
		scripted := false
		for _, c := range sc.Stages {
			_, has := c.Scripts[id]
			scripted = scripted || has
		}
		if !ok || n < 1 || n > sc.Items || !scripted {
			bad("poison: %q is not an item of the scenario with a script", id)
		}
	}
	err := errors.Join(errs...)
	sc.validated = err == nil
	return err
}

// maxEvents is MaxEvents or its default.
func (sc *Scenario) maxEvents() int64 {
	if sc.MaxEvents > 0 {
		return sc.MaxEvents
	}
	return 200*int64(sc.Items) + 1_000_000
}

func (c *StageConfig) fill(st work.Stage, sc *Scenario) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("stages.%s: "+format, append([]any{st}, args...)...))
	}
	d := DefaultStage(st)
	defaultInt(&c.Concurrency, d.Concurrency)
	defaultInt(&c.Lanes, d.Lanes)
	defaultInt(&c.BatchSize, d.BatchSize)
	if c.BatchWindow == 0 {
		c.BatchWindow = d.BatchWindow
	}
	defaultDur(&c.Timeout, d.Timeout.D())
	defaultDur(&c.Visibility, d.Visibility.D())
	if c.Latency == (Range{}) {
		c.Latency = d.Latency
	}
	if c.ErrorLatency == (Range{}) {
		c.ErrorLatency = d.ErrorLatency
	}
	defaultDur(&c.ClientTimeout, d.ClientTimeout.D())
	defaultDur(&c.RetryAfter, d.RetryAfter.D())
	defaultDur(&c.RetryAfterDiscord, max(d.RetryAfterDiscord.D(), d.RetryAfter.D()))
	if c.Concurrency < 0 || c.Lanes < 0 || c.BatchSize < 0 || c.BatchSize > 10_000 || c.BatchWindow < 0 {
		bad("concurrency and lanes must be positive, batch_size 1..10000, batch_window not negative")
	}
	if c.BatchSize > 10 && c.BatchWindow < Duration(time.Second) {
		bad("batch_size above 10 needs a batch_window of at least 1s (as Lambda requires)")
	}
	if c.Timeout <= 0 || c.Visibility < c.Timeout {
		bad("timeout must be positive and visibility at least the timeout (Lambda refuses a shorter one)")
	}
	if c.Latency.Min < 0 || c.ErrorLatency.Min < 0 {
		bad("latencies must not be negative")
	}
	if rl := c.RateLimit; rl != nil {
		if !(rl.PerSecond > 0) || math.IsInf(rl.PerSecond, 0) || rl.Burst < 0 {
			bad("rate_limit.per_second must be positive and burst not negative")
		}
		if rl.Burst == 0 {
			rl.Burst = max(1, int(math.Ceil(rl.PerSecond)))
		}
	}
	supported := Faults(st)
	for name, rate := range c.Mix.Rates {
		f, err := fakes.ParseFault(name)
		if err != nil || !slices.Contains(supported, string(f.Base())) {
			bad("mix: fault %q is not modelled for %s (want one of %s)", name, st, strings.Join(supported, ", "))
			continue
		}
		if math.IsNaN(rate) || rate < 0 || rate > 1 {
			bad("mix: rate of %s is %v, want [0, 1]", name, rate)
		}
	}
	if len(errs) == 0 {
		if _, err := c.plan(st, sc.Seed); err != nil {
			bad("%v", err)
		}
	}
	if len(c.Chain) > 0 && st != work.LLM {
		bad("chain: only the llm stage has a model chain")
	}
	for id, script := range c.Scripts {
		n, ok := itemIndex(sc.ItemPrefix, id)
		if !ok || n < 1 || n > sc.Items {
			bad("scripts: %q is not an item of this scenario (ids are %s%0*d…%s%0*d)", id,
				sc.ItemPrefix, idWidth(sc.Items), 1, sc.ItemPrefix, idWidth(sc.Items), max(sc.Items, 1))
		}
		for i, name := range script {
			f, err := fakes.ParseFault(name)
			switch {
			case err != nil:
				bad("scripts[%s][%d]: %v", id, i, err)
			case f.Base() != fakes.FaultNone && !slices.Contains(supported, string(f.Base())):
				bad("scripts[%s][%d]: fault %q is not modelled for %s", id, i, name, st)
			case f.Permanent() && !f.Repeats():
				bad("scripts[%s][%d]: %s is permanent and answers every call: spell it always:%s", id, i, name, f.Base())
			}
		}
	}
	return errs
}

func (w *Window) validate(i int) []error {
	var errs []error
	if w.Name == "" {
		w.Name = fmt.Sprintf("window %d", i+1)
	}
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("windows[%d] (%s): "+format, append([]any{i, w.Name}, args...)...))
	}
	if !w.Stage.Valid() {
		bad("unknown stage %q", w.Stage)
	}
	if w.Start < 0 || w.Duration <= 0 {
		bad("start must not be negative and duration must be positive")
	}
	switch w.Kind {
	case WindowOutage:
		if len(w.Faults) == 0 {
			w.Faults = map[string]float64{string(fakes.FaultUnavailable): 1}
		}
		sum := 0.0
		for name, wt := range w.Faults {
			if !slices.Contains(outageFaults, fakes.Fault(name)) {
				bad("an outage answers unavailable, server_error, bad_gateway or hang, not %q", name)
			}
			if math.IsNaN(wt) || wt < 0 {
				bad("weight of %s must not be negative", name)
			}
			sum += wt
		}
		if !(sum > 0) {
			bad("fault weights sum to zero")
		}
	case WindowQuota:
		if w.Stage != work.LLM {
			bad("only the llm provider has a quota")
		}
		w.Faults = map[string]float64{string(fakes.FaultQuota): 1}
	default:
		bad("kind %q: want outage or quota", w.Kind)
	}
	return errs
}

// plan builds the fakes.Plan that decides st's faults: the mix and the
// scripts (keyed as the fake keys them).
func (c *StageConfig) plan(st work.Stage, seed uint64) (*fakes.Plan, error) {
	p := fakes.NewPlan()
	if len(c.Mix.Rates) > 0 {
		rates := make(map[fakes.Fault]float64, len(c.Mix.Rates))
		for name, r := range c.Mix.Rates {
			f, err := fakes.ParseFault(name)
			if err != nil {
				return nil, err
			}
			rates[f] = r
		}
		if err := p.SetMix(fakes.Mix{Seed: c.mixSeed(st, seed), Rates: rates, TransientCalls: c.Mix.TransientCalls}); err != nil {
			return nil, err
		}
	}
	if len(c.Scripts) > 0 {
		scripts := make(map[string][]fakes.Fault, len(c.Scripts))
		for id, names := range c.Scripts {
			fs := make([]fakes.Fault, 0, len(names))
			for _, n := range names {
				f, err := fakes.ParseFault(n)
				if err != nil {
					return nil, err
				}
				fs = append(fs, f)
			}
			scripts[FakeKey(st, id)] = fs
		}
		if err := p.SetScripts(scripts, true); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// mixSeed is the seed of st's mix.
func (c *StageConfig) mixSeed(st work.Stage, seed uint64) uint64 {
	if c.Mix.Seed != nil {
		return *c.Mix.Seed
	}
	return seed + uint64(st.Index())
}

// MixSeed returns the seed st's mix draws with, for posting the same mix to
// a fake (Mix.Seed, else the scenario's seed plus the stage's index).
func (sc *Scenario) MixSeed(st work.Stage) uint64 { return sc.Stages[st].mixSeed(st, sc.Seed) }

// FakeKey is the key the fake upstream of st decides an item's faults by:
// the item id for the article server and the LLM (X-Triage-Item-Id), and
// "<item id>:notify" (the Idempotency-Key) for the webhook receiver.
func FakeKey(st work.Stage, itemID string) string {
	if st == work.Notify {
		return itemID + ":notify"
	}
	return itemID
}

// FakePlan is one fake's part of a scenario as the fakes' control API
// takes it: the body of POST /_fake/script (Scripts keyed as the fake keys
// them, Replace set) and of POST /_fake/mix (nil without a mix).
type FakePlan struct {
	// Fake names the fake: "articles", "llm" or "webhook".
	Fake string `json:"fake"`
	// Script is the /_fake/script request.
	Script struct {
		Scripts map[string][]string `json:"scripts"`
		Replace bool                `json:"replace"`
	} `json:"script"`
	// Mix is the /_fake/mix request.
	Mix *fakes.Mix `json:"mix,omitempty"`
}

// FakePlans returns, per stage, the control requests that give the local
// stack's fakes the scenario's faults (windows are timing, not plans: the
// local stack switches /_fake/outage itself).
func (sc *Scenario) FakePlans() map[work.Stage]FakePlan {
	names := map[work.Stage]string{work.Fetch: "articles", work.LLM: "llm", work.Notify: "webhook"}
	out := map[work.Stage]FakePlan{}
	for _, st := range work.Stages() {
		c := sc.Stages[st]
		fp := FakePlan{Fake: names[st]}
		fp.Script.Replace, fp.Script.Scripts = true, map[string][]string{}
		for id, script := range c.Scripts {
			fp.Script.Scripts[FakeKey(st, id)] = script
		}
		if len(c.Mix.Rates) > 0 {
			m := fakes.Mix{Seed: sc.MixSeed(st), Rates: map[fakes.Fault]float64{}, TransientCalls: c.Mix.TransientCalls}
			for name, r := range c.Mix.Rates {
				f, _ := fakes.ParseFault(name)
				m.Rates[f] = r
			}
			fp.Mix = &m
		}
		out[st] = fp
	}
	return out
}

// ItemID returns the id of the n-th item (1-based).
func (sc *Scenario) ItemID(n int) string {
	return sc.ItemPrefix + fmt.Sprintf("%0*d", idWidth(sc.Items), n)
}

// idWidth is the zero padding of item ids: at least 6 digits.
func idWidth(items int) int { return max(6, len(strconv.Itoa(items))) }

// itemIndex parses an item id back into its index.
func itemIndex(prefix, id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || rest == "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

func defaultInt(v *int, d int) {
	if *v == 0 {
		*v = d
	}
}

func defaultDur(v *Duration, d time.Duration) {
	if *v == 0 {
		*v = Duration(d)
	}
}

// WithoutPoison returns a copy of sc whose poison items have no scripts: the
// same workload with every item healthy where the poison ones failed, to
// compare the others against. The copy keeps the Poison list, so its results
// report the same items apart.
func (sc *Scenario) WithoutPoison() (*Scenario, error) {
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	out, err := Parse(b)
	if err != nil {
		return nil, err
	}
	for _, c := range out.Stages {
		for _, id := range out.Poison {
			delete(c.Scripts, id)
		}
	}
	out.Poison = nil
	if err := out.Validate(); err != nil {
		return nil, err
	}
	out.Poison = slices.Clone(sc.Poison)
	out.Name = sc.Name + " (without its poison items)"
	return out, nil
}
