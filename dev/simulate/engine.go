package simulate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Options tune one Run.
type Options struct {
	// Terminal keeps every item's terminal state in Result.Terminal (the
	// cross-check output).
	Terminal bool
	// Timeline samples the open and parked items every minute into
	// Result.Timeline (the long-outage plots).
	Timeline bool
	// Log receives the runners', breakers' and scheduler's logs (virtual
	// times); nil discards them.
	Log *slog.Logger
}

func (o Options) log() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}

// handler is a stage function's handler (runner.Runner.Handle's signature).
type handler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// Event kinds.
const (
	evArrival = iota
	evPoll
	evInvocationEnd
	evSchedulerTick
	evSample
)

// event is one entry of the agenda.
type event struct {
	at   vt
	seq  uint64
	kind uint8
	st   int8
	gen  uint64
	inv  *invocation
}

// Outcomes of an item.
const (
	outcomeOpen = iota
	outcomeDone
	outcomeDeadLetter
)

// item is one item's ground truth and outcome.
type item struct {
	arrival  vt
	finished vt
	outcome  uint8
	progress int8 // stages done: 0 new, 1 fetched, 2 enriched, 3 notified
	hasError bool
	dlStage  work.Stage
	dlClass  work.Class
	// passed is when the item passed each stage (its success), 0 if not.
	passed [3]vt
}

// stageRT is one stage's function, event source mapping and queues.
type stageRT struct {
	idx      int
	st       work.Stage
	cfg      *StageConfig
	q, dlq   *queue
	next     *queue
	timeout  time.Duration
	handlers []handler
	busy     []bool
	free     int
	// allowed is the event source mapping's current concurrency (it scales
	// up while messages wait, down when the queue is empty), scaledAt when
	// it last changed; peak the most invocations that ran at once.
	allowed  float64
	scaledAt vt
	peak     int
	// The pending poll: one at most, at pollAt; older ones are stale.
	pollPending bool
	pollAt      vt
	pollGen     uint64
}

// invocation is one running Lambda invocation.
type invocation struct {
	sr    *stageRT
	slot  int
	start vt
	end   vt
	msgs  []*message
	resp  events.SQSEventResponse
	ops   []sqsOp
}

// engine is one run: a discrete-event simulation in virtual time. Events
// (an arrival, an event source poll, the end of an invocation, a scheduler
// tick) are processed in time order, ties in creation order. An invocation
// runs its handler to completion when it starts — its store writes take
// effect at once, its SQS requests when it ends (queue.go) — and its end is
// scheduled at its modelled duration.
type engine struct {
	// ctx ends the run when it is cancelled (checked between events); base
	// is ctx without its cancellation and deadline, the parent of every
	// invocation's context: a real deadline on the caller's context must not
	// meet the virtual clock, which runs in another century.
	ctx    context.Context
	base   context.Context
	sc     *Scenario
	pol    Policy
	opts   Options
	now    vt
	agenda minHeap[event]
	seq    uint64
	// probed counts, per item, the deliveries released as a breaker's probe.
	probed []int32
	nmsg   uint64
	events int64

	clock     laneClock
	meter     meter
	keys      keyMeter
	up        *upstream
	sqs       *sqsSim
	stages    [3]*stageRT
	items     []item
	index     map[string]int32
	open      int
	arrived   int // items that have arrived so far
	dead      int // items dead-lettered so far
	arrivals  *rand.Rand
	rng       *rand.Rand
	inv       *invocation
	mem       *store.Memory
	gates     *gatesStore
	budget    *budget.Memory
	scheduler *scheduler.Scheduler
	parkedDue minHeap[vt]
	// backstop counts messages the queues' redrive policy moved to a DLQ;
	// budgetRefused is the first refused budget charge (0: none).
	backstop      int
	maxReceives   int
	budgetRefused vt
	timeline      Timeline
	anomalies     []string
	lastEnd       vt
	owners        uint64
	logger        *slog.Logger
	counters      counters
	// running counts invocations of every function (the account's
	// concurrency), peakRunning its peak; accountThrottled counts the
	// invocations a mapping could not start for the account's limit.
	running          int
	peakRunning      int
	accountThrottled int64
	// With an llm chain (providers.go): its entries, the shared model
	// health, and the breakers' shared memory (read for the metrics).
	chain      []fallback.Entry
	models     healthStore
	breakerMem *breaker.Memory
}

// counters receives the runner's and the breakers' metrics (runner.Metrics,
// breaker.Metrics), keyed "stage/Name".
type counters map[string]int64

// Count adds n to stage/name.
func (c counters) Count(name string, st work.Stage, _ work.Class, n int) {
	c[string(st)+"/"+name] += int64(n)
}

// Run simulates sc under policy p and returns its metrics. sc must have
// been validated (Load and Parse do it; call Validate after changing it) and
// is only read, so runs of one scenario may go in parallel. The same
// scenario and seed give the same result; ctx cancels a long run. Run fails
// only for a configuration error or a cancelled context: limits reached
// (Scenario.Horizon, Scenario.MaxEvents) end the run with the items left
// over reported unfinished, and in Result.Limit.
func Run(ctx context.Context, sc *Scenario, p Policy, opts Options) (*Result, error) {
	if !sc.validated {
		return nil, errors.New("simulate: scenario not validated (call Validate after changing it)")
	}
	e, err := newEngine(ctx, sc, p, opts)
	if err != nil {
		return nil, err
	}
	limit, err := e.loop()
	if err != nil {
		return nil, err
	}
	return e.result(limit), nil
}

func newEngine(ctx context.Context, sc *Scenario, p Policy, opts Options) (*engine, error) {
	e := &engine{
		ctx: ctx, base: context.WithoutCancel(ctx), sc: sc, pol: p, opts: opts,
		items:    make([]item, sc.Items),
		probed:   make([]int32, sc.Items),
		index:    make(map[string]int32, sc.Items),
		open:     sc.Items,
		arrivals: rand.New(rand.NewPCG(sc.Seed, 0x617272697661)),
		rng:      rand.New(rand.NewPCG(sc.Seed, fakes.HashString(p.Name))),
		logger:   opts.log(),
		counters: counters{},
	}
	e.keys.from = int64(sc.KeyLoadFrom.D() / time.Second)
	e.agenda.less = func(a, b event) bool {
		if a.at != b.at {
			return a.at < b.at
		}
		return a.seq < b.seq
	}
	e.parkedDue.less = func(a, b vt) bool { return a < b }
	for i := range sc.Items {
		e.index[sc.ItemID(i+1)] = int32(i)
	}
	up, err := newUpstream(e)
	if err != nil {
		return nil, err
	}
	e.up = up
	if e.chain, err = sc.Stages[work.LLM].chainEntries(); err != nil {
		return nil, err
	}
	e.sqs = &sqsSim{e: e, byURL: map[string]*queue{}}
	for si, st := range work.Stages() {
		c := sc.Stages[st]
		sr := &stageRT{idx: si, st: st, cfg: c, timeout: c.Timeout.D(), busy: make([]bool, c.Concurrency), free: c.Concurrency,
			allowed: float64(min(sc.Lambda.ScaleStart, c.Concurrency))}
		if sc.Lambda.Warm {
			sr.allowed = float64(c.Concurrency)
		}
		vis, maxRecv := c.Visibility.D(), TriageBackstopReceives
		switch p.Kind {
		case KindNaiveRedrive:
			vis, maxRecv, sr.timeout = NaiveVisibility, NaiveMaxReceives, NaiveTimeout
		case KindSDKRetries:
			maxRecv = SDKMaxReceives
		}
		sr.dlq = newQueue(string(st)+"-dlq", -1, 0, 0, nil)
		sr.q = newQueue(string(st), si, vis, maxRecv, sr.dlq)
		e.sqs.byURL[sr.q.url], e.sqs.byURL[sr.dlq.url] = sr.q, sr.dlq
		e.stages[si] = sr
	}
	for si := range e.stages {
		if si+1 < len(e.stages) {
			e.stages[si].next = e.stages[si+1].q
		}
	}
	switch p.Kind {
	case KindTriage:
		if err := e.buildTriage(); err != nil {
			return nil, err
		}
	case KindNaiveRedrive, KindSDKRetries:
		for _, sr := range e.stages {
			sr.handlers = make([]handler, sr.cfg.Concurrency)
			for slot := range sr.handlers {
				sr.handlers[slot] = (&baseline{e: e, sr: sr, kind: p.Kind}).Handle
			}
		}
	default:
		return nil, fmt.Errorf("policy %s: unknown kind %q", p.Name, p.Kind)
	}
	if sc.Budget != nil {
		e.budget = &budget.Memory{Cap: budget.Micros(sc.Budget.CallsPerDay), Cost: 1}
	}
	e.schedule(event{at: e.arrivalGap(0), kind: evArrival})
	if p.Kind == KindTriage {
		e.schedule(event{at: int64(sc.SchedulerInterval), kind: evSchedulerTick})
	}
	if opts.Timeline {
		e.schedule(event{at: 0, kind: evSample})
	}
	return e, nil
}

// buildTriage wires the real runner.Runner for every slot of every stage.
func (e *engine) buildTriage() error {
	profile, err := policy.Lookup(e.pol.Profile)
	if err != nil {
		return err
	}
	e.mem = store.NewMemory()
	queues := map[work.Stage]string{}
	for _, sr := range e.stages {
		queues[sr.st] = sr.q.url
	}
	e.mem.SetBodies(store.BodyConfig{Threshold: e.sc.BodyThreshold, Objects: placeholderObjects{}})
	db := &itemStore{e: e, m: e.mem}
	bodies := &bodyReader{e: e, m: e.mem}
	e.breakerMem = breaker.NewMemory()
	breakers := &breakerStore{e: e, m: e.breakerMem}
	e.models = healthStore{Store: health.NewMemory(), e: e}
	e.gates = &gatesStore{e: e, m: store.NewMemoryGates()}
	ps := &parkedStore{e: e, m: e.mem.ParkedStore()}
	newOwner := func() string { e.owners++; return "scheduler-" + strconv.FormatUint(e.owners, 10) }
	bc := scheduler.Breakers{Store: breakers, NewOwner: newOwner}
	e.scheduler = &scheduler.Scheduler{
		Store: ps, Waiters: ps, Gates: e.gates, SQS: e.sqs, Queues: queues, Clock: &e.clock, Log: e.logger,
		Concurrency: 1, Interval: e.sc.SchedulerInterval.D(),
		Checkers: map[gates.Kind]scheduler.Checker{gates.Breaker: bc, gates.Quota: bc, gates.Budget: scheduler.Budget{},
			gates.Models: scheduler.Models{Store: e.models, Breakers: breakers, NewOwner: newOwner}},
	}
	days := budgetStore{m: &budget.MemoryStore{}, e: e}
	budgetCap := simBudgetCap
	if e.sc.Budget != nil {
		budgetCap = budget.Micros(e.sc.Budget.CallsPerDay) * simCallCost
	}
	for _, sr := range e.stages {
		sr.handlers = make([]handler, sr.cfg.Concurrency)
		for slot := range sr.handlers {
			// Each warm instance has its own model-health cache and budget
			// pocket over the shared stores, as the llm function does.
			hs := &health.Tracker{Store: e.models, Clock: &e.clock, Log: e.logger}
			pocket := &budget.Pocket{Store: days, Cap: budgetCap, Chunk: budget.Micros(e.sc.BudgetChunkCalls) * simCallCost}
			var job runner.Work = e.triageWork(sr, hs, pocket)
			if sr.st == work.LLM && len(e.chain) > 0 {
				// The chain guards each provider with its own breaker.
				job = e.buildChain(sr, e.chain, breakers, profile, pocket)
			} else if e.pol.Breakers {
				// One Breakers per slot: each warm Lambda instance has its
				// own cache over the shared store.
				b := &breaker.Breakers{Store: breakers, Clock: &e.clock, Stage: sr.st, Profile: profile, Log: e.logger,
					Metrics: e.counters, NewOwner: func() string { e.owners++; return "probe-" + strconv.FormatUint(e.owners, 10) }}
				job = breaker.Guard{Inner: job, Service: breakerService(sr.st), Breakers: b}
			}
			job = e.countProbes(job)
			// The stages that read a body read it before the breaker is
			// asked, as cmd/llm and cmd/notify do.
			switch sr.st {
			case work.LLM:
				job = runner.WithBodies{Inner: job, Bodies: bodies, Parts: []store.Part{store.PartDocument}}
			case work.Notify:
				job = runner.WithBodies{Inner: job, Bodies: bodies, Parts: []store.Part{store.PartEnrichment}}
			}
			r := &runner.Runner{
				Stage: sr.st, Work: job, Items: db, ErrorLog: db, SQS: e.sqs,
				QueueURL: sr.q.url, DLQURL: sr.dlq.url, Profile: profile,
				Clock: &e.clock, Rand: e.rng.Float64, Log: e.logger, Metrics: e.counters,
				// Records run one after another so the run is deterministic;
				// the lane clock models the deployed in-batch concurrency.
				Concurrency:      1,
				BackstopReceives: TriageBackstopReceives,
				Gates:            e.gates,
			}
			if sr.next != nil {
				r.NextQueueURL = sr.next.url
			}
			sr.handlers[slot] = r.Handle
		}
	}
	return nil
}

// countProbes counts, per item, the deliveries the scheduler released as a
// breaker's probe (Result.Poison reads them).
func (e *engine) countProbes(w runner.Work) runner.Work {
	return probeCounter{e: e, w: w}
}

// probeCounter is countProbes's Work.
type probeCounter struct {
	e *engine
	w runner.Work
}

func (p probeCounter) Run(ctx context.Context, it store.Item, d gates.Delivery) (work.Output, error) {
	if i, ok := p.e.index[it.ID]; ok && d.Probe != "" {
		p.e.probed[i]++
	}
	return p.w.Run(ctx, it, d)
}

// breakerService names the breaker each stage's calls go through, as the
// stage functions do: the article host, the LLM provider, the webhook host.
func breakerService(st work.Stage) func(store.Item) string {
	switch st {
	case work.Fetch:
		return breaker.SourceHost
	case work.LLM:
		return breaker.Fixed(llmHost)
	}
	return breaker.WebhookHost
}

// Outputs the simulated stages store: shared, read-only values (the store
// copies what it keeps).
var (
	simEnrichment = work.Enrichment{SummaryNeutral: "s", SummarySpicy: "s", Category: "news", Severity: "low",
		PrimaryActor: "a", Model: llmModel}
	simDelivery = work.WebhookDelivery{Status: 200}
)

// The simulated llm stage's budget: a cost per call, and a cap that never
// binds (the budget is simulated for its DynamoDB load).
const (
	simCallCost  = budget.Micros(3_000)
	simBudgetCap = budget.Micros(1) << 50
)

// triageWork is a stage's Work over the simulated upstream. The llm
// stage's also does what the fallback chain and the budget do around the
// call: the model's health before it (a read when the instance's view is
// stale), the budget's charge (a lease when the pocket is empty), and the
// outcome after (a failure counted, or a reset when the count is not zero).
// A disabled model does not stop the call: model health is simulated for its
// DynamoDB load.
func (e *engine) triageWork(sr *stageRT, hs *health.Tracker, pocket *budget.Pocket) runner.WorkFunc {
	doc := work.Document{Text: "simulated document", Bytes: e.sc.DocumentBytes, ContentType: "text/plain"}
	return func(ctx context.Context, it store.Item) (work.Output, error) {
		i, ok := e.index[it.ID]
		if !ok {
			return work.Output{}, failure.New(work.InternalBug, "simulate: unknown item %s", it.ID)
		}
		deadline := vt(math.MaxInt64)
		if d, ok := ctx.Deadline(); ok {
			deadline = fromTime(d)
		}
		llmStage := sr.st == work.LLM
		if llmStage {
			_, _ = hs.Status(ctx, llmModel)
			if err := pocket.Spend(ctx, e.clock.Now(), simCallCost); err != nil {
				e.refused(err)
				return work.Output{}, err
			}
		}
		err := e.up.call(sr.idx, i, deadline)
		if llmStage {
			if err == nil {
				_ = hs.RecordSuccess(ctx, llmModel)
			} else {
				_, _ = hs.RecordFailure(ctx, llmModel, it.ID, failure.Classify(err))
			}
		}
		if err != nil {
			return work.Output{}, err
		}
		switch sr.st {
		case work.Fetch:
			return work.Output{Document: &doc}, nil
		case work.LLM:
			return work.Output{Enrichment: &simEnrichment}, nil
		}
		return work.Output{Delivery: &simDelivery}, nil
	}
}

// charge charges the daily budget for a baseline's call of stage si (the
// llm stage only): one conditional UpdateItem of the day's counter per
// call, and a second (the blocked counter) when the charge is refused.
// (triage's stages charge through a budget.Pocket, as the llm function
// does: triageWork.)
func (e *engine) charge(si int) error {
	if e.budget == nil || work.Stages()[si] != work.LLM {
		return nil
	}
	day := "budget/" + budget.DayKey(toTime(e.clock.lane()))
	e.dyn(ddbUpdateItem, load{key: day, w: wru(budgetBytes)})
	err := e.budget.Charge(e.base, toTime(e.clock.lane()))
	if err != nil {
		e.dyn(ddbUpdateItem, load{key: day, w: wru(budgetBytes)})
		e.refused(err)
	}
	return err
}

// refused notes the first refused budget charge (for the report's
// recovery time).
func (e *engine) refused(err error) {
	if budget.IsExceeded(err) && e.budgetRefused == 0 {
		e.budgetRefused = max(e.clock.lane(), 1)
	}
}

func (e *engine) schedule(ev event) {
	e.seq++
	ev.seq = e.seq
	e.agenda.push(ev)
}

func (e *engine) newMessageID() string {
	e.nmsg++
	return "m" + strconv.FormatUint(e.nmsg, 10)
}

// arrivalGap returns the arrival time of item n (0-based), given item n−1's.
func (e *engine) arrivalGap(n int) vt {
	a := e.sc.Arrival
	switch a.Pattern {
	case ArrivalBurst:
		return 0
	case ArrivalPoisson:
		prev := vt(0)
		if n > 0 {
			prev = e.items[n-1].arrival
		}
		return prev + int64(-math.Log(1-e.arrivals.Float64())/a.RatePerSecond*float64(time.Second))
	}
	return int64(float64(n) / a.RatePerSecond * float64(time.Second))
}

// loop processes the agenda until every item is done or dead-lettered, or a
// limit is reached. It returns the limit reached, if any.
func (e *engine) loop() (string, error) {
	horizon := int64(e.sc.Horizon)
	arrived := 0
	for e.agenda.Len() > 0 && e.open > 0 {
		ev := e.agenda.pop()
		if ev.at > horizon {
			return fmt.Sprintf("horizon %s", e.sc.Horizon.D()), nil
		}
		e.events++
		if e.events > e.sc.maxEvents() {
			return fmt.Sprintf("max_events %d", e.sc.maxEvents()), nil
		}
		if e.events&0xffff == 1 {
			if err := e.ctx.Err(); err != nil {
				return "", err
			}
		}
		e.now = ev.at
		e.clock.base = ev.at
		e.keys.advance(e.now)
		switch ev.kind {
		case evArrival:
			e.arrive(arrived)
			arrived++
			if arrived < e.sc.Items {
				e.schedule(event{at: max(e.arrivalGap(arrived), e.now), kind: evArrival})
			}
		case evPoll:
			sr := e.stages[ev.st]
			if ev.gen == sr.pollGen {
				sr.pollPending = false
				e.poll(sr)
			}
		case evInvocationEnd:
			e.endInvocation(ev.inv)
		case evSchedulerTick:
			e.tick()
			e.schedule(event{at: e.now + int64(e.sc.SchedulerInterval), kind: evSchedulerTick})
		case evSample:
			e.sample()
			if e.agenda.Len() > 0 {
				e.schedule(event{at: e.now + int64(time.Minute), kind: evSample})
			}
		}
	}
	if e.open > 0 && e.agenda.Len() == 0 {
		e.anomaly("%d items open with nothing left to happen", e.open)
	}
	return "", nil
}

// arrive creates item n and sends it to the fetch queue, as a producer
// does: one PutItem, one SendMessage.
func (e *engine) arrive(n int) {
	id := e.sc.ItemID(n + 1)
	e.items[n].arrival = e.now
	e.arrived++
	if e.mem != nil {
		host := n % e.sc.ArticleHosts
		hook := n % e.sc.WebhookHosts
		_, err := e.mem.Create(e.base, store.NewItem{
			ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Now: toTime(e.now),
			SourceURL:  "https://news-" + strconv.Itoa(host) + ".example/a/" + id,
			WebhookURL: "https://hooks-" + strconv.Itoa(hook) + ".example/h/" + id,
		})
		if err != nil {
			e.anomaly("create %s: %v", id, err)
		}
	}
	if e.mem != nil {
		// The item and its entry in the by-listed-state index (in flight).
		e.dyn(ddbPutItem, load{key: itemKey(id), w: wru(triageSizes().created)}, e.indexLoad(id, work.Queued))
	} else {
		e.dyn(ddbPutItem, load{key: itemKey(id), w: wru(itemBaseBytes)})
	}
	body := work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "corr-" + id}.Encode()
	e.meter.sqs(sqsSendMessage, len(body))
	e.deliver(sqsOp{send: true, q: e.stages[0].q, id: e.newMessageID(), body: body})
}

// enqueue records an SQS request of the running invocation, or applies it
// at once outside one.
func (e *engine) enqueue(op sqsOp) {
	if e.inv != nil {
		e.inv.ops = append(e.inv.ops, op)
		return
	}
	e.deliver(op)
}

// deliver applies an SQS request now.
func (e *engine) deliver(op sqsOp) {
	if !op.send {
		m := op.q.inflight[op.receipt]
		if m == nil {
			return // a stale receipt: SQS ignores it
		}
		m.visChanged = true
		m.visibleAt = e.now + int64(op.seconds)*int64(time.Second)
		return
	}
	m := &message{id: op.id, body: op.body, attrs: op.attrs, sentAt: e.now, visibleAt: e.now + int64(op.delay)}
	e.nmsg++
	m.seq = e.nmsg
	if op.q.stage < 0 {
		op.q.sunk++
		e.deadLettered(op.q, m)
		return
	}
	op.q.alive++
	op.q.put(m)
	e.wake(e.stages[op.q.stage], m.visibleAt)
}

// deadLettered records a message arriving in a DLQ: a dead letter sent by
// a handler (its attributes name the item, stage and class) or a message
// the redrive policy moved (the envelope names the item; the class is the
// item's last failure at that stage).
func (e *engine) deadLettered(dlq *queue, m *message) {
	sr := e.stages[0]
	for _, s := range e.stages {
		if s.dlq == dlq {
			sr = s
		}
	}
	id := m.attrs["item_id"]
	if id == "" {
		env, err := work.DecodeEnvelope(m.body, "")
		if err != nil {
			e.anomaly("dead letter on %s names no item", dlq.name)
			return
		}
		id = env.ItemID
	}
	i, ok := e.index[id]
	if !ok {
		e.anomaly("dead letter for unknown item %q", id)
		return
	}
	class := work.Class(m.attrs["error_class"])
	if class == "" {
		class = e.up.lastClass[sr.idx][i]
	}
	e.finish(i, outcomeDeadLetter, sr.st, class, e.now)
}

// finish records item i's outcome, once.
func (e *engine) finish(i int32, outcome uint8, st work.Stage, class work.Class, at vt) {
	it := &e.items[i]
	if it.outcome != outcomeOpen {
		e.anomaly("%s reached a second outcome (%d after %d)", e.sc.ItemID(int(i)+1), outcome, it.outcome)
		return
	}
	it.outcome, it.finished, it.dlStage, it.dlClass = outcome, at, st, class
	e.open--
	if outcome == outcomeDeadLetter {
		e.dead++
	}
	e.lastEnd = max(e.lastEnd, at)
}

func (e *engine) anomaly(format string, args ...any) {
	if len(e.anomalies) < 100 {
		e.anomalies = append(e.anomalies, fmt.Sprintf(format, args...))
	}
}

// wake makes sure sr's event source polls at `at` (or sooner) while it has
// a free slot.
func (e *engine) wake(sr *stageRT, at vt) {
	if sr.free == 0 {
		return // the next invocation end polls
	}
	at = max(at, e.now)
	if sr.pollPending && sr.pollAt <= at {
		return
	}
	sr.pollGen++
	sr.pollPending, sr.pollAt = true, at
	e.schedule(event{at: at, kind: evPoll, st: int8(sr.idx), gen: sr.pollGen})
}

// scale moves the event source mapping's concurrency: up by
// ScalePerMinute a minute while messages are waiting, down as fast toward
// ScaleStart (or what is running) while the queue is empty; never past the
// stage's MaximumConcurrency. A warm mapping stays at its maximum.
func (e *engine) scale(sr *stageRT) {
	l := e.sc.Lambda
	top := float64(sr.cfg.Concurrency)
	if l.Warm {
		sr.allowed = top
		return
	}
	waiting := false
	if at, ok := sr.q.nextVisible(); ok && at <= e.now {
		waiting = true
	}
	step := float64(l.ScalePerMinute) * float64(e.now-sr.scaledAt) / float64(time.Minute)
	if waiting {
		sr.allowed = min(top, sr.allowed+step)
	} else {
		floor := float64(max(l.ScaleStart, sr.cfg.Concurrency-sr.free))
		sr.allowed = min(top, max(floor, sr.allowed-step))
	}
	sr.scaledAt = e.now
}

// poll is the event source mapping: while it may start another invocation
// (its scaled concurrency, the account's) and a batch is ready, receive it
// and invoke the function.
func (e *engine) poll(sr *stageRT) {
	e.scale(sr)
	for sr.free > 0 {
		running := sr.cfg.Concurrency - sr.free
		if running >= int(sr.allowed) || e.running >= e.sc.Lambda.AccountConcurrency {
			if at, ok := sr.q.nextVisible(); ok && at <= e.now {
				if e.running >= e.sc.Lambda.AccountConcurrency {
					e.accountThrottled++
				}
				// Messages wait: look again in a second, when the mapping
				// has scaled (an ending invocation wakes it sooner).
				e.wake(sr, e.now+int64(time.Second))
			}
			return
		}
		batch, deferTo := sr.q.take(e.now, sr.cfg.BatchSize, sr.cfg.BatchWindow.D(), func(m *message) {
			e.backstop++
			e.deliver(sqsOp{send: true, q: sr.q.dlq, id: m.id, body: m.body})
		})
		if batch == nil {
			if deferTo > 0 {
				e.wake(sr, deferTo)
			} else if at, ok := sr.q.nextVisible(); ok {
				e.wake(sr, at)
			}
			return
		}
		payload := 0
		for _, m := range batch {
			payload += len(m.body)
		}
		e.meter.sqs(sqsReceiveMessage, payload)
		slot := 0
		for sr.busy[slot] {
			slot++
		}
		sr.busy[slot] = true
		sr.free--
		sr.peak = max(sr.peak, sr.cfg.Concurrency-sr.free)
		e.running++
		e.peakRunning = max(e.peakRunning, e.running)
		e.invoke(sr, slot, batch)
	}
}

// invoke runs one invocation of sr's function on batch, now.
func (e *engine) invoke(sr *stageRT, slot int, batch []*message) {
	inv := &invocation{sr: sr, slot: slot, start: e.now, msgs: batch}
	recs := make([]events.SQSMessage, len(batch))
	for k, m := range batch {
		e.maxReceives = max(e.maxReceives, m.receives)
		recs[k] = events.SQSMessage{
			MessageId: m.id, ReceiptHandle: m.receipt, Body: m.body, EventSource: "aws:sqs",
			EventSourceARN: "arn:aws:sqs:us-east-1:000000000000:" + sr.q.name, AWSRegion: "us-east-1",
			Attributes: map[string]string{
				"ApproximateReceiveCount": strconv.Itoa(m.receives),
				"SentTimestamp":           strconv.FormatInt(toTime(m.sentAt).UnixMilli(), 10),
			},
		}
		if len(m.attrs) > 0 {
			recs[k].MessageAttributes = make(map[string]events.SQSMessageAttribute, len(m.attrs))
			for name, v := range m.attrs {
				recs[k].MessageAttributes[name] = events.SQSMessageAttribute{StringValue: &v, DataType: "String"}
			}
		}
	}
	deadline := e.now + int64(sr.timeout)
	ctx, cancel := context.WithDeadline(e.base, toTime(deadline))
	e.inv = inv
	e.clock.begin(e.now+int64(e.sc.AWSLatency.Invoke), sr.cfg.Lanes)
	resp, err := sr.handlers[slot](ctx, events.SQSEvent{Records: recs})
	end := e.clock.end()
	cancel()
	e.inv = nil
	if err != nil {
		// A function error retries the whole batch: nothing is deleted.
		e.anomaly("%s handler error: %v", sr.st, err)
		resp = events.SQSEventResponse{}
		for _, m := range batch {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.id})
		}
	}
	if end > deadline {
		e.meter.timeouts++
		end = deadline
	}
	inv.resp, inv.end = resp, max(end, e.now+1)
	e.meter.lambda(sr.idx, time.Duration(inv.end-inv.start))
	e.schedule(event{at: inv.end, kind: evInvocationEnd, inv: inv})
}

// endInvocation applies an invocation's SQS requests and does what the
// event source mapping does with its response: it deletes the records not
// reported as failures (one DeleteMessageBatch) and leaves the others to
// reappear when their visibility runs out.
func (e *engine) endInvocation(inv *invocation) {
	for _, op := range inv.ops {
		e.deliver(op)
	}
	failed := make(map[string]bool, len(inv.resp.BatchItemFailures))
	for _, f := range inv.resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	q := inv.sr.q
	deleted := 0
	for _, m := range inv.msgs {
		delete(q.inflight, m.receipt)
		if !failed[m.id] {
			q.alive--
			deleted++
			continue
		}
		if !m.visChanged {
			m.visibleAt = m.receivedAt + int64(q.visibility)
		}
		m.visibleAt = max(m.visibleAt, e.now)
		q.put(m)
	}
	if deleted > 0 {
		e.meter.sqs(sqsDeleteMessageBatch, 0)
	}
	sr := inv.sr
	sr.busy[inv.slot] = false
	sr.free++
	if e.running == e.sc.Lambda.AccountConcurrency {
		// The account was full: every mapping may start one now.
		for _, other := range e.stages {
			if other != sr {
				if at, ok := other.q.nextVisible(); ok {
					e.wake(other, at)
				}
			}
		}
	}
	e.running--
	if at, ok := q.nextVisible(); ok {
		e.wake(sr, at)
	}
}

// tick is the scheduler function (cmd/scheduler) on its EventBridge
// schedule: the real scheduler.Scheduler — due waits claimed, sent and deleted;
// gate waits probed and released in a ramp — over store.Memory's parked
// store, the in-memory gates table and the simulated SQS, with Concurrency
// 1 for a deterministic order. A tick with nothing due and no gate with
// waiters (the engine tracks the due times Park wrote) only pays for the
// scheduler's empty query and invocation.
func (e *engine) tick() {
	e.clock.begin(e.now+int64(e.sc.AWSLatency.Invoke), 1)
	if (e.parkedDue.Len() == 0 || e.parkedDue.peek() > e.now) && e.gates.empty() {
		e.dyn(ddbQuery, load{key: "parked:by-due/" + store.ParkedShard, r: 0.5})
	} else {
		for e.parkedDue.Len() > 0 && e.parkedDue.peek() <= e.now {
			e.parkedDue.pop()
		}
		deadline := e.now + int64(time.Minute)
		ctx, cancel := context.WithDeadline(e.base, toTime(deadline))
		if _, err := e.scheduler.Run(ctx, "scheduler-"+strconv.FormatInt(e.now, 10)); err != nil {
			e.anomaly("scheduler: %v", err)
		}
		cancel()
	}
	end := e.clock.end()
	e.meter.lambda(fnScheduler, time.Duration(end-e.now))
}

// sample records the open items (arrived, not yet done nor dead-lettered),
// the parked items and the items dead-lettered so far, this minute.
func (e *engine) sample() {
	parkedNow := 0
	if e.mem != nil {
		parkedNow, _ = e.mem.ParkedCount()
	}
	e.timeline.Open = append(e.timeline.Open, int32(e.open-(e.sc.Items-e.arrived)))
	e.timeline.Parked = append(e.timeline.Parked, int32(parkedNow))
	e.timeline.DeadLettered = append(e.timeline.DeadLettered, int32(e.dead))
}

// parkedStore is store.Memory's parked store behind scheduler.Store, counting
// the DynamoDB requests store.Parked makes: a Query per page of due waits
// (through the by-due index, eventually consistent), a conditional
// UpdateItem per claim, a conditional DeleteItem per retired wait.
type parkedStore struct {
	e *engine
	m *store.MemoryParked
}

var _ scheduler.Store = (*parkedStore)(nil)

// Due lists the waits due at now.
func (p *parkedStore) Due(ctx context.Context, now time.Time, fn func([]store.ParkedWait) error) error {
	pages := 0
	err := p.m.Due(ctx, now, func(page []store.ParkedWait) error {
		for start := 0; start < len(page); start += store.DefaultParkedPage {
			chunk := page[start:min(start+store.DefaultParkedPage, len(page))]
			pages++
			p.e.dyn(ddbQuery, load{key: "parked:by-due/" + store.ParkedShard, r: max(0.5, rru(len(chunk)*parkedBytes, false))})
			if err := fn(chunk); err != nil {
				return err
			}
		}
		return nil
	})
	if pages == 0 {
		p.e.dyn(ddbQuery, load{key: "parked:by-due/" + store.ParkedShard, r: 0.5})
	}
	return err
}

// Claim claims a wait for the run (its copy in the by-due index too).
func (p *parkedStore) Claim(ctx context.Context, w store.ParkedWait, owner string, now, until time.Time) error {
	p.e.dyn(ddbUpdateItem, load{key: "parked/" + w.ItemID, w: wru(parkedBytes)},
		load{key: "parked:by-due/" + store.ParkedShard, w: wru(parkedBytes)})
	return p.m.Claim(ctx, w, owner, now, until)
}

// Delete retires a sent wait (and its copy in the by-due index).
func (p *parkedStore) Delete(ctx context.Context, w store.ParkedWait, owner string) error {
	p.e.dyn(ddbDeleteItem, load{key: "parked/" + w.ItemID, w: wru(parkedBytes)},
		load{key: "parked:by-due/" + store.ParkedShard, w: wru(parkedBytes)})
	return p.m.Delete(ctx, w, owner)
}

// Waiting lists a gate's oldest waiters: one Query of the by-gate index.
func (p *parkedStore) Waiting(ctx context.Context, g gates.Name, limit int) ([]store.ParkedWait, error) {
	ws, err := p.m.Waiting(ctx, g, limit)
	p.e.dyn(ddbQuery, load{key: "parked:by-gate/" + g.String(), r: max(0.5, rru(len(ws)*parkedBytes, false))})
	return ws, err
}

// Count counts a gate's waiters: a Query of the by-gate index with Select
// COUNT, billed by the size of the records it reads.
func (p *parkedStore) Count(ctx context.Context, g gates.Name) (int, error) {
	n, err := p.m.Count(ctx, g)
	p.e.dyn(ddbQuery, load{key: "parked:by-gate/" + g.String(), r: max(0.5, rru(n*parkedBytes, false))})
	return n, err
}

// Unpark retires a released gate wait: a conditional DeleteItem.
func (p *parkedStore) Unpark(ctx context.Context, w store.ParkedWait) error {
	p.e.dyn(ddbDeleteItem, load{key: "parked/" + w.ItemID, w: wru(parkedBytes)},
		load{key: "parked:by-gate/" + w.Gate.String(), w: wru(parkedBytes)})
	return p.m.Unpark(ctx, w)
}

// gatesStore is the in-memory gates table behind runner.Gates and
// scheduler.GateStore, counting the DynamoDB requests store.Gates makes: an
// UpdateItem per touch, congestion signal, lease and reset, a DeleteItem per
// retired record, and a strongly consistent Scan per listing.
type gatesStore struct {
	e *engine
	m *store.MemoryGates
}

var (
	_ runner.Gates        = (*gatesStore)(nil)
	_ scheduler.GateStore = (*gatesStore)(nil)
)

// empty reports whether no gate has a record (nil: no gates table).
func (g *gatesStore) empty() bool {
	if g == nil {
		return true
	}
	recs, _ := g.m.List(g.e.base)
	return len(recs) == 0
}

// Touch registers a gate before a park.
func (g *gatesStore) Touch(ctx context.Context, n gates.Name, now time.Time) error {
	g.e.dyn(ddbUpdateItem, load{key: "gates/" + n.String(), w: wru(gateBytes)})
	return g.m.Touch(ctx, n, now)
}

// Congested records a released item's congestion signal.
func (g *gatesStore) Congested(ctx context.Context, n gates.Name, now time.Time) error {
	g.e.dyn(ddbUpdateItem, load{key: "gates/" + n.String(), w: wru(gateBytes)})
	return g.m.Congested(ctx, n, now)
}

// List scans the gates table.
func (g *gatesStore) List(ctx context.Context) ([]store.GateRecord, error) {
	recs, err := g.m.List(ctx)
	g.e.dyn(ddbScan, load{key: "gates/*", r: max(1, rru(len(recs)*gateBytes, true))})
	return recs, err
}

// Lease takes a gate for a run.
func (g *gatesStore) Lease(ctx context.Context, rec store.GateRecord, owner string, now, until time.Time, next gates.Ramp) error {
	g.e.dyn(ddbUpdateItem, load{key: "gates/" + rec.Gate.String(), w: wru(gateBytes)})
	return g.m.Lease(ctx, rec, owner, now, until, next)
}

// Reset ends a ramp.
func (g *gatesStore) Reset(ctx context.Context, rec store.GateRecord, now time.Time) error {
	g.e.dyn(ddbUpdateItem, load{key: "gates/" + rec.Gate.String(), w: wru(gateBytes)})
	return g.m.Reset(ctx, rec, now)
}

// Delete retires a record.
func (g *gatesStore) Delete(ctx context.Context, rec store.GateRecord, now time.Time) error {
	g.e.dyn(ddbDeleteItem, load{key: "gates/" + rec.Gate.String(), w: wru(gateBytes)})
	return g.m.Delete(ctx, rec, now)
}
