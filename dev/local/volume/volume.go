// Package volume puts a volume of items through the local stack as `make
// up` runs it — moto, the template's stack, every function's bootstrap
// behind the local Lambda Runtime API with its SQS pollers and schedules,
// the fakes — submitted with the producer (`triage submit`'s path), and
// measures what a user would: items a second, the time from submit to each
// stage's success (p50, p99), the AWS requests per item, moto's memory
// (peak while running, and idle afterwards), the CPU each process spent.
// `make test-volume` runs it at 10,000 items (docs/performance.md, "Volume").
//
// What it counts and how: the submit time of each item is when its batch
// was acknowledged; a stage's success is the "stage succeeded" line its
// function logs (the outcome is durable by then), a dead letter the
// "dead-lettered" line. Nothing polls DynamoDB while the items flow. At the
// end the harness reads every submitted item back by key (BatchGetItem, 100
// a call) for its final state, compares the Items table's item count with
// the rows it found (and scans, only when they differ, to name the rows
// nobody submitted), and reads the stage queues' and DLQs' depths: an orphan is a
// submitted item that is neither done nor dead-lettered with nothing left on
// any queue to move it, or a row no submission made.
package volume

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/store"
)

// Defaults and targets (docs/performance.md, "Volume").
const (
	DefaultItems    = 10_000
	DefaultDeadline = 5 * time.Minute
	DefaultIdle     = time.Minute
	// MaxMotoRSS is the target bound on moto's resident memory.
	MaxMotoRSS = 1 << 30
	// submitChunk is how many specs one SubmitBatch call sends; each
	// item's submit time is its chunk's.
	submitChunk = 200
	sampleEvery = time.Second
)

// Options configure Run.
type Options struct {
	// Items to submit; 0 is DefaultItems.
	Items int
	// SQS picks the local SQS (the emulator, the default) or moto's own.
	SQS moto.SQSMode
	// DynamoDB picks the local DynamoDB (package dynamo, the default) or
	// moto's own.
	DynamoDB moto.DynamoDBMode
	// MotoUnpatched runs moto as installed, without the local stack's
	// change to its transactions (moto.Options.Unpatched).
	MotoUnpatched bool
	// Deadline bounds the wait for every item to be done or
	// dead-lettered, from the first submit; 0 is DefaultDeadline. Run
	// stops waiting then and reports what it has.
	Deadline time.Duration
	// Idle is how long moto's memory is watched after the last item, the
	// stack idle; 0 is DefaultIdle, negative skips it.
	Idle time.Duration
	// Dir receives the functions' and moto's logs; "" is a temporary
	// directory.
	Dir string
	// Params override template parameters (after Run's own: a daily budget
	// the run cannot spend).
	Params map[string]string
	// MaxEnvironments bounds each function's concurrent environments; 0
	// is the local Lambda service's default, as `make up` runs it.
	MaxEnvironments int
	// Progress receives a line now and then; nil is silent.
	Progress func(format string, args ...any)
}

// Latency is the distribution of the time from submit to an event.
type Latency struct {
	N        int
	P50, P99 time.Duration
	Max      time.Duration
}

// Report is what a run measured.
type Report struct {
	// Command is the command line's flags, for the record.
	Command string
	Items   int
	SQS     moto.SQSMode
	// DynamoDB is the DynamoDB the run used; "" in the reports of runs
	// made before the local DynamoDB, which were on moto's.
	DynamoDB     moto.DynamoDBMode `json:",omitempty"`
	Unpatched    bool
	Started      time.Time
	Submitted    int
	SubmitTime   time.Duration // first batch to last acknowledged
	Done         int           // items done (the notify stage succeeded), by the final read
	DeadLettered int
	Orphans      []string // submitted items stuck with nothing to move them, rows nobody submitted
	// Elapsed is from the first submit to the last item done or
	// dead-lettered (or to the deadline).
	Elapsed      time.Duration
	TimedOut     bool
	ItemsPerSec  float64
	Stages       map[work.Stage]Latency // submit to the stage's success
	Terminal     Latency                // submit to done or dead-lettered
	Requests     map[string]int64       // through the Front, by operation, while the items flowed
	RequestsItem float64
	MotoPeakRSS  int64 // bytes, while the items flowed
	MotoEndRSS   int64 // when the last item finished
	// MotoIdleFrom and MotoIdleRSS are moto's memory when the stack went
	// idle (after the final read) and Idle later.
	MotoIdleFrom, MotoIdleRSS int64
	IdleFor                   time.Duration
	HarnessRSS                int64 // the harness's peak (emulator, pollers, Runtime API)
	CPU                       map[string]time.Duration
	LoadStart                 string
	LoadEnd                   string
	QueueDepth                int // messages left on the stage and notice queues
	DLQDepth                  int
	Failures                  map[string]int // "stage succeeded" lines aside, what the functions' warnings said, by message
}

// Run brings the stack up, submits the items, waits, verifies and stops the
// stack. A Report comes back whenever the items were submitted, also when
// not all finished in time; the error says what stopped it otherwise.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Items <= 0 {
		opts.Items = DefaultItems
	}
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultDeadline
	}
	if opts.Idle == 0 {
		opts.Idle = DefaultIdle
	}
	say := opts.Progress
	if say == nil {
		say = func(string, ...any) {}
	}
	if opts.Dir == "" {
		dir, err := os.MkdirTemp("", "triage-volume-")
		if err != nil {
			return nil, err
		}
		opts.Dir = dir
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	logs, err := os.Create(filepath.Join(opts.Dir, "functions.log"))
	if err != nil {
		return nil, err
	}
	defer logs.Close()

	root, err := devstack.ModuleRoot()
	if err != nil {
		return nil, err
	}
	tpl, err := template.ParseFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	fns, schedules := upFunctions(tpl)
	// The default budget ($5 a day at $0.003 a call) is spent after about
	// 1,700 calls; a volume run measures the pipeline, not the budget's gate.
	params := map[string]string{"DailyBudgetUSD": strconv.Itoa(max(100, opts.Items/100))}
	maps.Copy(params, opts.Params)

	tr := newTracker(opts.Items)
	say("starting the stack (SQS: %s, DynamoDB: %s)", cmp.Or(string(opts.SQS), "local"), cmp.Or(string(opts.DynamoDB), "local"))
	st, err := devstack.Start(ctx, devstack.Options{
		Root: root, Pollers: true, Functions: fns, Schedules: schedules, Params: params, Build: devstack.BuildAlways,
		Logs: logs, OnLog: tr.observe, MotoLog: filepath.Join(opts.Dir, "moto.log"), MotoSQS: opts.SQS,
		MotoUnpatched: opts.MotoUnpatched, MotoDynamoDB: cmp.Or(opts.DynamoDB, moto.DynamoDBLocal),
		MaxEnvironments: opts.MaxEnvironments, Progress: func(f string, a ...any) { say(f, a...) },
	})
	if err != nil {
		return nil, err
	}
	defer st.Close()

	rep := &Report{Items: opts.Items, SQS: cmp.Or(opts.SQS, moto.SQSLocal), DynamoDB: cmp.Or(opts.DynamoDB, moto.DynamoDBLocal), Unpatched: opts.MotoUnpatched, Started: time.Now(), LoadStart: loadavg(),
		CPU: map[string]time.Duration{}}
	mem := newSampler(st.Moto.PID)
	go mem.run(ctx)
	defer mem.stop()
	cpu0 := cpuTimes(st)
	calls0 := st.Moto.Front.Calls()

	ids := make([]string, opts.Items)
	specs := make([]intake.Spec, opts.Items)
	for i := range specs {
		ids[i] = fmt.Sprintf("vol-%06d", i)
		specs[i] = intake.Spec{ItemID: ids[i], Kind: store.KindStory, SourceURL: st.ArticleServer.URL + "/articles/" + ids[i],
			WebhookURL: st.HookServer.URL + "/hooks/" + ids[i]}
	}
	say("submitting %d items", opts.Items)
	p := &intake.Producer{SQS: st.SQS, QueueURL: st.QueueURL(work.Fetch)}
	start := time.Now()
	tr.begin(start)
	for from := 0; from < len(specs); from += submitChunk {
		chunk := specs[from:min(from+submitChunk, len(specs))]
		for _, res := range p.SubmitBatch(ctx, chunk) {
			if res.Err != nil {
				return nil, fmt.Errorf("submit %s: %w", res.ItemID, res.Err)
			}
		}
		tr.submitted(ids[from:min(from+submitChunk, len(specs))], time.Now())
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	rep.Submitted, rep.SubmitTime = len(specs), time.Since(start)
	say("submitted %d items in %v (%.0f/s)", len(specs), rep.SubmitTime.Round(time.Millisecond),
		float64(len(specs))/rep.SubmitTime.Seconds())

	deadline := start.Add(opts.Deadline)
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for !tr.finished() {
		if time.Now().After(deadline) {
			rep.TimedOut = true
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			d, dl := tr.counts()
			say("%s: %d done, %d dead-lettered; moto %d MiB", time.Since(start).Round(time.Second), d, dl, mem.last()>>20)
		case <-tr.done:
		}
	}
	rep.Elapsed = tr.end(time.Now()).Sub(start)
	rep.MotoEndRSS, rep.MotoPeakRSS = mem.last(), mem.peak()
	rep.Requests = diff(st.Moto.Front.Calls(), calls0)
	for k, v := range diff(cpuTimes(st), cpu0) {
		rep.CPU[k] = time.Duration(v)
	}
	rep.LoadEnd = loadavg()
	tr.summarize(rep)
	say("pipeline phase over after %v; verifying", rep.Elapsed.Round(time.Second))

	if err := verify(ctx, st, ids, rep); err != nil {
		return rep, err
	}
	if opts.Idle > 0 {
		rep.MotoIdleFrom = mustRSS(st.Moto.PID, mem.last())
		say("watching moto idle for %v", opts.Idle)
		select {
		case <-ctx.Done():
		case <-time.After(opts.Idle):
		}
		rep.IdleFor = opts.Idle
		rep.MotoIdleRSS = mustRSS(st.Moto.PID, mem.last())
	}
	rep.HarnessRSS = selfPeakRSS()
	if rep.Elapsed > 0 {
		rep.ItemsPerSec = float64(rep.Done+rep.DeadLettered) / rep.Elapsed.Seconds()
	}
	if n := rep.Done + rep.DeadLettered; n > 0 {
		var total int64
		for _, v := range rep.Requests {
			total += v
		}
		rep.RequestsItem = float64(total) / float64(n)
	}
	return rep, nil
}

// upFunctions is what `make up` runs: every function of the template, and
// each Schedule event at its rate.
func upFunctions(tpl *template.Template) ([]string, map[string]time.Duration) {
	var fns []string
	schedules := map[string]time.Duration{}
	for _, fn := range tpl.Functions() {
		fns = append(fns, fn.LogicalID)
		for _, ev := range fn.Events {
			if d, ok := ev.Rate(); ok {
				schedules[fn.LogicalID] = d
			}
		}
	}
	return fns, schedules
}

func diff[V int64 | time.Duration](now, before map[string]V) map[string]int64 {
	out := map[string]int64{}
	for k, v := range now {
		if d := int64(v - before[k]); d != 0 {
			out[k] = d
		}
	}
	return out
}

// ---- the tracker: what the functions' logs say ------------------------------

type tracker struct {
	mu         sync.Mutex
	start      time.Time
	submitAt   map[string]time.Time
	stageAt    map[work.Stage]map[string]time.Time
	deadAt     map[string]time.Time
	terminal   int
	want       int
	last       time.Time
	done       chan struct{}
	closed     bool
	warnings   map[string]int
	unexpected int
}

func newTracker(n int) *tracker {
	t := &tracker{submitAt: make(map[string]time.Time, n), stageAt: map[work.Stage]map[string]time.Time{},
		deadAt: map[string]time.Time{}, want: n, done: make(chan struct{}), warnings: map[string]int{}}
	for _, s := range work.Stages() {
		t.stageAt[s] = make(map[string]time.Time, n)
	}
	return t
}

func (t *tracker) begin(at time.Time) {
	t.mu.Lock()
	t.start = at
	t.mu.Unlock()
}

func (t *tracker) submitted(ids []string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		t.submitAt[id] = at
	}
}

type logLine struct {
	Msg    string `json:"msg"`
	Level  string `json:"level"`
	ItemID string `json:"item_id"`
	Stage  string `json:"stage"`
}

// observe reads one function log line (devstack.Options.OnLog).
func (t *tracker) observe(_, line string) {
	if !strings.HasPrefix(line, "{") || !strings.Contains(line, `"msg"`) {
		return
	}
	var l logLine
	if json.Unmarshal([]byte(line), &l) != nil {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case l.Msg == "stage succeeded" && l.ItemID != "":
		st := work.Stage(l.Stage)
		m, ok := t.stageAt[st]
		if !ok {
			return
		}
		if _, seen := m[l.ItemID]; !seen {
			m[l.ItemID] = now
			if st == work.Notify {
				t.finish(l.ItemID, now)
			}
		}
	case l.Msg == "dead-lettered" && l.ItemID != "":
		if _, seen := t.deadAt[l.ItemID]; !seen {
			t.deadAt[l.ItemID] = now
			t.finish(l.ItemID, now)
		}
	case l.Level == "WARN" || l.Level == "ERROR":
		if len(t.warnings) < 100 || t.warnings[l.Msg] > 0 {
			t.warnings[l.Msg]++
		}
	}
}

func (t *tracker) finish(id string, at time.Time) {
	_, done := t.stageAt[work.Notify][id]
	_, dead := t.deadAt[id]
	if done && dead {
		t.unexpected++ // both: counted once already
		return
	}
	t.terminal++
	t.last = at
	if t.terminal >= t.want && !t.closed {
		t.closed = true
		close(t.done)
	}
}

func (t *tracker) finished() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

func (t *tracker) counts() (done, dead int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.stageAt[work.Notify]), len(t.deadAt)
}

// end is when the last item finished, or now when not all did.
func (t *tracker) end(now time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return t.last
	}
	return now
}

func (t *tracker) summarize(r *Report) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r.Stages = map[work.Stage]Latency{}
	for st, m := range t.stageAt {
		r.Stages[st] = latency(m, t.submitAt)
	}
	term := maps.Clone(t.stageAt[work.Notify])
	maps.Copy(term, t.deadAt)
	r.Terminal = latency(term, t.submitAt)
	r.Failures = maps.Clone(t.warnings)
}

func latency(at, from map[string]time.Time) Latency {
	ds := make([]time.Duration, 0, len(at))
	for id, t := range at {
		if s, ok := from[id]; ok {
			ds = append(ds, t.Sub(s))
		}
	}
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	return Latency{N: len(ds), P50: q(0.50), P99: q(0.99), Max: ds[len(ds)-1]}
}

// ---- the final read ----------------------------------------------------------

// verify reads every submitted item by key and the queues' depths, and
// looks for rows nobody submitted.
func verify(ctx context.Context, st *devstack.Stack, ids []string, r *Report) error {
	db := dynamodb.NewFromConfig(st.AWS)
	table := st.Items.Table
	states := map[string]string{}
	for from := 0; from < len(ids); from += 100 {
		keys := make([]map[string]dbtypes.AttributeValue, 0, 100)
		for _, id := range ids[from:min(from+100, len(ids))] {
			keys = append(keys, map[string]dbtypes.AttributeValue{"item_id": &dbtypes.AttributeValueMemberS{Value: id}})
		}
		req := map[string]dbtypes.KeysAndAttributes{table: {Keys: keys, ProjectionExpression: aws.String("item_id, #s"),
			ExpressionAttributeNames: map[string]string{"#s": "state"}, ConsistentRead: aws.Bool(true)}}
		for attempt := 0; len(req) > 0; attempt++ {
			if attempt == 10 {
				return fmt.Errorf("verify: BatchGetItem left keys unprocessed 10 times")
			}
			out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return fmt.Errorf("verify: %w", err)
			}
			for _, it := range out.Responses[table] {
				states[devstack.Str(it["item_id"])] = devstack.Str(it["state"])
			}
			req = out.UnprocessedKeys
		}
	}
	depth, err := st.QueueDepth(ctx, st.PipelineQueueURLs()...)
	if err != nil {
		return err
	}
	dlqs := make([]string, 0, 3)
	for _, s := range work.Stages() {
		dlqs = append(dlqs, st.DLQURL(s))
	}
	dlqDepth, err := st.QueueDepth(ctx, dlqs...)
	if err != nil {
		return err
	}
	r.QueueDepth, r.DLQDepth = depth, dlqDepth
	for _, id := range ids {
		switch states[id] {
		case string(work.Done):
			r.Done++
		case string(work.Deadletter):
			r.DeadLettered++
		default:
			if depth == 0 { // nothing left to move it
				r.Orphans = append(r.Orphans, id+" ("+cmp.Or(states[id], "no row")+")")
			}
		}
	}
	// Rows nobody submitted: the table's item count against the submitted
	// rows found. moto counts live (DynamoDB every six hours), and a Scan
	// — moto deep-copies every row it scans — runs only to name the extra
	// rows when there are some.
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if aws.ToInt64(desc.Table.ItemCount) == int64(len(states)) {
		return nil
	}
	submitted := make(map[string]bool, len(ids))
	for _, id := range ids {
		submitted[id] = true
	}
	return st.Scan(ctx, table, "item_id", nil, func(it map[string]dbtypes.AttributeValue) {
		if id := devstack.Str(it["item_id"]); !submitted[id] {
			r.Orphans = append(r.Orphans, id+" (not submitted)")
		}
	})
}

// ---- processes: memory and CPU ----------------------------------------------

type sampler struct {
	pid      int
	mu       sync.Mutex
	max, now int64
	quit     chan struct{}
	once     sync.Once
}

func newSampler(pid int) *sampler { return &sampler{pid: pid, quit: make(chan struct{})} }

func (s *sampler) run(ctx context.Context) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		if rss, err := rssOf(s.pid); err == nil {
			s.mu.Lock()
			s.now, s.max = rss, max(s.max, rss)
			s.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-s.quit:
			return
		case <-t.C:
		}
	}
}

func (s *sampler) stop() { s.once.Do(func() { close(s.quit) }) }

func (s *sampler) last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

func (s *sampler) peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max
}

// rssOf reads a process's resident set size from /proc.
func rssOf(pid int) (int64, error) {
	return statusField(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
}

// mustRSS is pid's RSS now, or fallback when /proc cannot tell.
func mustRSS(pid int, fallback int64) int64 {
	if n, err := rssOf(pid); err == nil {
		return n
	}
	return fallback
}

func selfPeakRSS() int64 {
	n, _ := statusField("/proc/self/status", "VmHWM:")
	return n
}

func statusField(path, field string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New(path + ": no " + field)
}

// cpuTimes is the CPU time spent so far by moto, the harness (the
// emulator, the pollers, the Runtime API) and each function's
// bootstraps, in nanoseconds.
func cpuTimes(st *devstack.Stack) map[string]time.Duration {
	out := map[string]time.Duration{"moto": procCPU(st.Moto.PID), "harness": procCPU(os.Getpid())}
	for name := range st.Env {
		var d time.Duration
		for _, pid := range st.Lambda.PIDs(name) {
			d += procCPU(pid)
		}
		out["bootstraps"] += d
	}
	return out
}

// procCPU is a process's user and system time from /proc/<pid>/stat
// (clock ticks of 10 ms, Linux's USER_HZ of 100).
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(fields[11], 10, 64)
	k, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond
}

func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// WriteJSON saves r as JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
