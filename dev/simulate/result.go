package simulate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// Item outcomes in Terminal.State.
const (
	// StateDone is an item every stage completed.
	StateDone = "done"
	// StateDeadLetter is an item whose dead letter reached a stage's DLQ.
	StateDeadLetter = "deadletter"
	// StateUnfinished is an item neither done nor dead-lettered when the run
	// ended (a limit was reached).
	StateUnfinished = "unfinished"
)

// Terminal is one item's outcome: what the cross-check compares with the
// same scenario run on the local stack.
type Terminal struct {
	// ItemID is the item.
	ItemID string `json:"item_id"`
	// State is StateDone, StateDeadLetter or StateUnfinished.
	State string `json:"state"`
	// Stage and Class are the dead-lettered stage and error class.
	Stage work.Stage `json:"stage,omitempty"`
	Class work.Class `json:"class,omitempty"`
}

// Result is one policy's run of one scenario. Every figure is computed from
// the simulated upstreams' ground truth and the items' outcomes:
//
//   - Calls counts the requests the upstreams received (a call a circuit
//     breaker refused is not a call).
//   - OutageCalls counts calls that started inside an outage window, less
//     the first call of each window (the one that discovers it): calls into
//     a known outage. QuotaCalls counts the same for exhausted quotas; they
//     are reported, not counted as waste.
//   - UnrecoverableRetries counts, for each item and stage whose fault sticks
//     to every call (a permanent fault, or an "always:" one such as
//     persistent invalid JSON), the calls made after that fault first
//     answered, less those already counted as outage calls: retries no
//     policy could win.
//   - WastedCalls is OutageCalls + UnrecoverableRetries.
//   - PermanentClassRetries counts calls for an item and stage made after a
//     failure there that failure.Classify calls non-retryable: retries of a
//     permanent class.
//   - An item is recoverable when none of its stages has a fault that
//     sticks; RecoverableFailed counts recoverable items that were
//     dead-lettered or left unfinished.
//   - DLQPrecision is the share of dead letters whose item's fault at the
//     dead-lettered stage sticks (truly unrecoverable there); nil without
//     dead letters.
//   - Completion times run from an item's arrival to its notify success.
type Result struct {
	// Scenario, Seed and Items identify the workload; Policy the policy.
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Items    int    `json:"items"`
	Policy   Policy `json:"policy"`
	// Completed, DeadLettered and Unfinished partition the items.
	Completed    int `json:"completed"`
	DeadLettered int `json:"dead_lettered"`
	Unfinished   int `json:"unfinished"`
	// Recoverable and Unrecoverable partition the items by ground truth.
	Recoverable   int `json:"recoverable"`
	Unrecoverable int `json:"unrecoverable"`
	// RecoverableFailed counts recoverable items not completed;
	// RecoverableFailedBy breaks them down by "stage/CLASS" of their dead
	// letter, or "unfinished".
	RecoverableFailed   int            `json:"recoverable_failed"`
	RecoverableFailedBy map[string]int `json:"recoverable_failed_by,omitempty"`
	// Calls counts upstream calls, in total and by stage.
	Calls        int64                `json:"calls"`
	CallsByStage map[work.Stage]int64 `json:"calls_by_stage"`
	// CallsPerCompleted is Calls / Completed (0 when nothing completed).
	CallsPerCompleted float64 `json:"calls_per_completed"`
	// WastedCalls, OutageCalls, UnrecoverableRetries, PermanentClassRetries
	// and QuotaCalls: see the type's documentation.
	WastedCalls          int64 `json:"wasted_calls"`
	OutageCalls          int64 `json:"outage_calls"`
	UnrecoverableRetries int64 `json:"unrecoverable_retries"`
	// UnrecoverableRetriesBy breaks UnrecoverableRetries down by
	// "stage/fault".
	UnrecoverableRetriesBy map[string]int64 `json:"unrecoverable_retries_by,omitempty"`
	PermanentClassRetries  int64            `json:"permanent_class_retries"`
	QuotaCalls             int64            `json:"quota_calls"`
	// CompletionP50, CompletionP99 and CompletionMax summarise completion
	// times.
	CompletionP50 Duration `json:"completion_p50"`
	CompletionP99 Duration `json:"completion_p99"`
	CompletionMax Duration `json:"completion_max"`
	// DeadLettersPrecise counts dead letters of truly unrecoverable items;
	// DLQPrecision is DeadLettersPrecise / DeadLettered, nil without dead
	// letters.
	DeadLettersPrecise int      `json:"dead_letters_precise"`
	DLQPrecision       *float64 `json:"dlq_precision"`
	// DeadLettersBy counts dead letters by "stage/CLASS".
	DeadLettersBy map[string]int `json:"dead_letters_by,omitempty"`
	// Usage is the AWS usage.
	Usage Usage `json:"usage"`
	// Keys is the DynamoDB key load: each key's busiest second against its
	// partition's limits, and the requests over them.
	Keys KeyLoads `json:"keys"`
	// Lambda is how far the event source mappings scaled.
	Lambda LambdaUse `json:"lambda"`
	// Counters are the metrics triage's runner and circuit breakers
	// counted (runner.Metric*, breaker.Metric*), keyed "stage/Name": retries,
	// waits, parked items, breaker opens.
	Counters map[string]int64 `json:"counters,omitempty"`
	// Providers is, with an llm chain, each provider's calls, failures and
	// the items its models served; LLMAttemptsWhileOpen the llm attempts
	// items spent while a provider's breaker was open (0 when the chain
	// moves them on to another provider).
	Providers            map[failure.Provider]ProviderResult `json:"providers,omitempty"`
	LLMAttemptsWhileOpen int64                               `json:"llm_attempts_while_open,omitempty"`
	// Span is the virtual time from the first arrival to the last outcome.
	Span Duration `json:"span"`
	// Events counts the simulation events processed.
	Events int64 `json:"events"`
	// Limit names the limit that ended the run early, if one did.
	Limit string `json:"limit,omitempty"`
	// Anomalies lists broken invariants: an item with two outcomes, a dead
	// letter without an item, an item's stored state disagreeing with its
	// outcome, open items with nothing left to happen. Empty in a sound run.
	Anomalies []string `json:"anomalies,omitempty"`
	// Terminal lists every item's outcome, by item id, when Options.Terminal
	// asked for it.
	Terminal []Terminal `json:"terminal,omitempty"`

	// WritesPerItem is DynamoDB write requests (PutItem, UpdateItem,
	// DeleteItem, TransactWriteItems) per item.
	WritesPerItem float64 `json:"dynamodb_writes_per_item"`
	// BackstopDeadLetters counts messages the queues' redrive policy moved
	// to a DLQ (maxReceiveCount reached): for triage, dead letters nobody
	// decided.
	BackstopDeadLetters int `json:"backstop_dead_letters"`
	// MaxReceiveCount is the highest ApproximateReceiveCount any message
	// was delivered with: a waiting item's must stay well below the
	// backstop's maxReceiveCount, whatever the outage's length.
	MaxReceiveCount int `json:"max_receive_count"`
	// Drain is how the backlog an outage, an exhausted quota or a spent
	// budget left behind drained after it ended; nil for a scenario with
	// none.
	Drain *Drain `json:"drain,omitempty"`
	// Timeline samples the run every minute when Options.Timeline asked.
	Timeline *Timeline `json:"-"`
	// Poison is the outcome of each of the scenario's poison items
	// (Scenario.Poison); Healthy the completion times of every other item.
	Poison  []PoisonOutcome `json:"poison,omitempty"`
	Healthy *Completion     `json:"healthy,omitempty"`

	// completion holds the sorted completion times, for plots.
	completion []time.Duration
	// series are the stages' calls over time (seriesWidth buckets).
	series [3]callSeries
}

// Timeline is a run sampled every minute from its start: the open items
// (arrived, neither done nor dead-lettered), the parked ones and the items
// dead-lettered so far. Calls per minute come from the upstreams' series
// (CallsPerMinute).
type Timeline struct {
	Open, Parked, DeadLettered []int32
}

// CallsPerMinute returns stage st's calls in each minute of the run.
func (r *Result) CallsPerMinute(st work.Stage) []int64 {
	s := &r.series[st.Index()]
	per := int(time.Minute / seriesWidth)
	out := make([]int64, (len(s.calls)+per-1)/per)
	for k, n := range s.calls {
		out[k/per] += int64(n)
	}
	return out
}

// Drain measures the recovery after a scenario's last window (or its budget
// day) ended: how long until the items that waited had passed the stage,
// and how well the release used the upstream's rate. Times are from the
// start of the run.
type Drain struct {
	// Stage is the stage that was shut (the windows' stage; llm for a
	// budget).
	Stage work.Stage `json:"stage"`
	// RecoveryAt is when the upstream came back: the last window's end, or
	// the first 00:00 UTC after the budget was first spent.
	RecoveryAt Duration `json:"recovery_at"`
	// Backlog counts the items that arrived before RecoveryAt and had not
	// passed Stage by then (nor been dead-lettered); Drained those of them
	// that passed it since.
	Backlog int `json:"backlog"`
	Drained int `json:"drained"`
	// FirstSuccess is from RecoveryAt to the stage's first success after it
	// (how long finding out took); Duration from RecoveryAt to the last
	// backlog item passing the stage.
	FirstSuccess Duration `json:"first_success"`
	Duration     Duration `json:"duration"`
	// Calls, OK and RateLimited count the stage's calls from the first
	// success to the end of the drain, and the successes and RATE_LIMITED
	// answers among them.
	Calls       int64 `json:"calls"`
	OK          int64 `json:"ok"`
	RateLimited int64 `json:"rate_limited"`
	// Capacity is the stage's sustained rate (its rate_limit, per second; 0
	// when it has none); Throughput the successes per second over the same
	// time.
	Capacity   float64 `json:"capacity"`
	Throughput float64 `json:"throughput"`
}

// Utilisation is Throughput as a share of Capacity (0 without one).
func (d *Drain) Utilisation() float64 {
	if d == nil || d.Capacity <= 0 {
		return 0
	}
	return d.Throughput / d.Capacity
}

// RateLimitedShare is RateLimited as a share of Calls.
func (d *Drain) RateLimitedShare() float64 {
	if d == nil || d.Calls == 0 {
		return 0
	}
	return float64(d.RateLimited) / float64(d.Calls)
}

// LambdaUse is a run's Lambda concurrency.
type LambdaUse struct {
	// PeakByStage is the most invocations of each stage's function at once;
	// Peak of all functions (the account's concurrency).
	PeakByStage map[work.Stage]int `json:"peak_by_stage"`
	Peak        int                `json:"peak"`
	// AccountThrottled counts the times a mapping with messages waiting
	// could not start an invocation for the account's limit.
	AccountThrottled int64 `json:"account_throttled"`
}

// CompletionTimes returns the sorted completion times.
func (r *Result) CompletionTimes() []time.Duration { return r.completion }

// CostPer returns the run's cost per 1,000 items and per completed item at p.
func (r *Result) CostPer(p Prices) (perThousand Cost, perCompleted Cost) {
	c := r.Usage.Cost(p)
	perThousand = c.Scale(1000 / float64(max(r.Items, 1)))
	if r.Completed > 0 {
		perCompleted = c.Scale(1 / float64(r.Completed))
	}
	return perThousand, perCompleted
}

// RequestsPerThousand returns the AWS requests per 1,000 items: SQS (billed),
// DynamoDB, Lambda invocations and their sum.
func (r *Result) RequestsPerThousand() (sqs, dynamodb, lambda, total float64) {
	s, d, l := r.Usage.Requests()
	f := 1000 / float64(max(r.Items, 1))
	return float64(s) * f, float64(d) * f, float64(l) * f, float64(s+d+l) * f
}

func (e *engine) result(limit string) *Result {
	r := &Result{
		Scenario: e.sc.Name, Seed: e.sc.Seed, Items: e.sc.Items, Policy: e.pol, Limit: limit,
		RecoverableFailedBy: map[string]int{}, DeadLettersBy: map[string]int{}, CallsByStage: map[work.Stage]int64{},
		Events: e.events, Usage: e.meter.usage(), Keys: e.keys.loads(),
		Lambda: LambdaUse{PeakByStage: map[work.Stage]int{}, Peak: e.peakRunning, AccountThrottled: e.accountThrottled},
	}
	for _, sr := range e.stages {
		r.Lambda.PeakByStage[sr.st] = sr.peak
	}
	if len(e.counters) > 0 {
		r.Counters = e.counters
	}
	s := e.up.stats
	r.Calls, r.OutageCalls, r.QuotaCalls = s.total, s.outage, s.quota
	r.UnrecoverableRetries, r.PermanentClassRetries = s.unrecoverableRetries, s.permanentClassRetries
	r.UnrecoverableRetriesBy = s.unrecoverableBy
	r.WastedCalls = r.OutageCalls + r.UnrecoverableRetries
	for si, st := range work.Stages() {
		r.CallsByStage[st] = s.byStage[si]
	}
	first := vt(math.MaxInt64)
	for i := range e.items {
		it := &e.items[i]
		first = min(first, it.arrival)
		rec := e.up.recoverable(i)
		if rec {
			r.Recoverable++
		} else {
			r.Unrecoverable++
		}
		switch it.outcome {
		case outcomeDone:
			r.Completed++
			r.completion = append(r.completion, time.Duration(it.finished-it.arrival))
		case outcomeDeadLetter:
			r.DeadLettered++
			key := string(it.dlStage) + "/" + string(it.dlClass)
			r.DeadLettersBy[key]++
			if e.up.sticky[it.dlStage.Index()][i] != fakes.FaultNone {
				r.DeadLettersPrecise++
			}
			if rec {
				r.RecoverableFailed++
				r.RecoverableFailedBy[key]++
			}
		default:
			r.Unfinished++
			if rec {
				r.RecoverableFailed++
				r.RecoverableFailedBy[StateUnfinished]++
			}
		}
		if e.opts.Terminal {
			t := Terminal{ItemID: e.sc.ItemID(i + 1), State: StateUnfinished}
			switch it.outcome {
			case outcomeDone:
				t.State = StateDone
			case outcomeDeadLetter:
				t.State, t.Stage, t.Class = StateDeadLetter, it.dlStage, it.dlClass
			}
			r.Terminal = append(r.Terminal, t)
		}
	}
	if r.Completed > 0 {
		r.CallsPerCompleted = float64(r.Calls) / float64(r.Completed)
	}
	e.poisonResult(r)
	if r.DeadLettered > 0 {
		p := float64(r.DeadLettersPrecise) / float64(r.DeadLettered)
		r.DLQPrecision = &p
	}
	slices.Sort(r.completion)
	r.CompletionP50 = Duration(quantile(r.completion, 0.50))
	r.CompletionP99 = Duration(quantile(r.completion, 0.99))
	if n := len(r.completion); n > 0 {
		r.CompletionMax = Duration(r.completion[n-1])
	}
	if first != math.MaxInt64 && e.lastEnd > first {
		r.Span = Duration(e.lastEnd - first)
	}
	e.checkConservation()
	e.chainResult(r)
	r.Anomalies = e.anomalies
	r.series = e.up.series
	r.BackstopDeadLetters = e.backstop
	r.MaxReceiveCount = e.maxReceives
	r.WritesPerItem = float64(r.Usage.writes()) / float64(max(r.Items, 1))
	r.Drain = e.drain()
	if e.opts.Timeline {
		tl := e.timeline
		r.Timeline = &tl
	}
	if len(r.RecoverableFailedBy) == 0 {
		r.RecoverableFailedBy = nil
	}
	if len(r.DeadLettersBy) == 0 {
		r.DeadLettersBy = nil
	}
	return r
}

// checkConservation holds triage's stored item states to the outcomes the
// run observed: a done item is done in the store, a dead-lettered one
// dead-lettered at the same stage, and every open item still has a message
// in a queue or a parked wait.
func (e *engine) checkConservation() {
	if e.mem == nil {
		return
	}
	parked := e.mem.Parked()
	for i := range e.items {
		id := e.sc.ItemID(i + 1)
		got, err := e.mem.Get(e.ctx, id)
		if err != nil {
			e.anomaly("%s missing from the store: %v", id, err)
			continue
		}
		switch e.items[i].outcome {
		case outcomeDone:
			if got.State != work.Done {
				e.anomaly("%s done but stored as %s at %s", id, got.State, got.Stage)
			}
		case outcomeDeadLetter:
			if got.State != work.Deadletter || got.Stage != e.items[i].dlStage {
				e.anomaly("%s dead-lettered at %s but stored as %s at %s", id, e.items[i].dlStage, got.State, got.Stage)
			}
		default:
			if got.State == work.Done || got.State == work.Deadletter {
				e.anomaly("%s stored as %s but no outcome was observed", id, got.State)
			}
		}
	}
	alive := 0
	for _, sr := range e.stages {
		alive += sr.q.alive
	}
	if open := e.open; open > 0 && alive+len(parked) == 0 {
		e.anomaly("%d items open but no message or parked wait carries them", open)
	}
}

// drain computes Result.Drain (see Drain).
func (e *engine) drain() *Drain {
	var (
		recovery vt
		st       work.Stage
	)
	for _, w := range e.sc.Windows {
		if end := int64(w.Start + w.Duration); end > recovery {
			recovery, st = end, w.Stage
		}
	}
	if e.budgetRefused > 0 {
		day := policy.NextUTCMidnight(toTime(e.budgetRefused))
		if at := fromTime(day); at > recovery {
			recovery, st = at, work.LLM
		}
	}
	if recovery == 0 {
		return nil
	}
	si := st.Index()
	d := &Drain{Stage: st, RecoveryAt: Duration(recovery)}
	if rl := e.sc.Stages[st].RateLimit; rl != nil {
		d.Capacity = rl.PerSecond
	}
	end := recovery
	for i := range e.items {
		it := &e.items[i]
		passed := it.passed[si]
		if it.arrival >= recovery || (passed > 0 && passed < recovery) ||
			(it.outcome == outcomeDeadLetter && it.finished < recovery) {
			continue
		}
		d.Backlog++
		if passed > 0 {
			d.Drained++
			end = max(end, passed)
		}
	}
	d.Duration = Duration(end - recovery)
	s := &e.up.series[si]
	first := vt(-1)
	for k := int(recovery / int64(seriesWidth)); k < len(s.ok); k++ {
		if s.ok[k] > 0 {
			first = max(int64(k)*int64(seriesWidth), recovery)
			break
		}
	}
	if first < 0 || d.Backlog == 0 {
		return d
	}
	d.FirstSuccess = Duration(first - recovery)
	if end > first {
		d.Calls, d.OK, d.RateLimited = s.sum(first, end)
		d.Throughput = float64(d.OK) / time.Duration(end-first).Seconds()
	}
	return d
}

// quantile returns the q-quantile of sorted (nearest rank); 0 when empty.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

// breakdown formats a "key: n" map sorted by count, largest first.
func breakdown(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		if a < b {
			return -1
		}
		return 1
	})
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s %d", k, m[k])
	}
	return out
}
