package simulate

import (
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/work"
)

// windowRT is a Window in virtual time.
type windowRT struct {
	Window
	idx        int
	start, end vt
	faults     []fakes.Fault
	cum        []float64
	calls      int64
}

// draw picks the window's answer for (key, call), the same for every policy.
func (w *windowRT) draw(seed uint64, key string, call int) fakes.Fault {
	if len(w.faults) == 1 {
		return w.faults[0]
	}
	u := fakes.UnitHash(seed^0x77696e646f77, uint64(w.idx), fakes.HashString(key), uint64(call))
	for i, c := range w.cum {
		if u < c {
			return w.faults[i]
		}
	}
	return w.faults[len(w.faults)-1]
}

// calls is what the upstreams saw: the ground truth the metrics are
// computed from.
type callStats struct {
	total                 int64
	byStage               [3]int64
	outage                int64
	quota                 int64
	unrecoverableRetries  int64
	permanentClassRetries int64
	// unrecoverableBy counts unrecoverable retries by "stage/fault".
	unrecoverableBy map[string]int64
}

// upstream is the three simulated upstreams (article hosts, the LLM
// provider, webhook receivers). Each call's fault is decided by a
// fakes.Plan keyed by (item, call number) — the fakes' own decision logic,
// so a scenario's mix and scripts mean here what they mean on the local
// stack — unless a window (an outage, an exhausted quota) is open at the
// call's start. Each call's latency is a pure function of (seed, stage,
// item, call number), so every policy meets the same workload.
type upstream struct {
	e       *engine
	seed    uint64
	cfg     [3]*StageConfig
	plans   [3]*fakes.Plan
	answers [3]*answers
	keys    [3][]string
	windows [3][]*windowRT
	// Per stage and item: the fault that sticks to every call (a permanent
	// fault or an "always:" one; FaultNone if none), the calls made, the
	// class of the last failure, whether the sticky fault has answered yet
	// and whether a failure classified non-retryable was already seen.
	sticky        [3][]fakes.Fault
	calls         [3][]int32
	lastClass     [3][]work.Class
	stickySeen    [3][]bool
	permanentSeen [3][]bool
	stats         callStats
	// limiters are the stages' rate limits (nil: none); series count each
	// stage's calls over time.
	limiters [3]*limiter
	series   [3]callSeries
	// With an llm chain: each provider's answers, the provider the
	// baselines call (the chain's first), and per-provider counts.
	provAnswers map[failure.Provider]*answers
	firstLLM    failure.Provider
	prov        providerStats
}

// limiter is a token bucket in virtual time: an upstream's rate limit.
type limiter struct {
	perNS, burst, tokens float64
	last                 vt
}

func newLimiter(rl *RateLimit) *limiter {
	b := float64(rl.Burst)
	return &limiter{perNS: rl.PerSecond / float64(time.Second), burst: b, tokens: b}
}

// take spends a token at t, if there is one.
func (l *limiter) take(t vt) bool {
	if t > l.last {
		l.tokens = min(l.burst, l.tokens+float64(t-l.last)*l.perNS)
		l.last = t
	}
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// seriesWidth is the resolution of the per-stage call series.
const seriesWidth = 10 * time.Second

// callSeries counts one stage's calls, successes and rate-limited answers
// per seriesWidth of virtual time.
type callSeries struct {
	calls, ok, limited []int32
}

func (s *callSeries) add(t vt, ok, limited bool) {
	k := int(max(t, 0) / int64(seriesWidth))
	for len(s.calls) <= k {
		s.calls, s.ok, s.limited = append(s.calls, 0), append(s.ok, 0), append(s.limited, 0)
	}
	s.calls[k]++
	if ok {
		s.ok[k]++
	}
	if limited {
		s.limited[k]++
	}
}

// sum adds the buckets of [from, to).
func (s *callSeries) sum(from, to vt) (calls, ok, limited int64) {
	for k := int(max(from, 0) / int64(seriesWidth)); k < len(s.calls) && int64(k)*int64(seriesWidth) < to; k++ {
		calls, ok, limited = calls+int64(s.calls[k]), ok+int64(s.ok[k]), limited+int64(s.limited[k])
	}
	return calls, ok, limited
}

func newUpstream(e *engine) (*upstream, error) {
	sc := e.sc
	u := &upstream{e: e, seed: sc.Seed}
	ids := make([]string, sc.Items)
	for i := range ids {
		ids[i] = sc.ItemID(i + 1)
	}
	for si, st := range work.Stages() {
		c := sc.Stages[st]
		u.cfg[si] = c
		plan, err := c.plan(st, sc.Seed)
		if err != nil {
			return nil, err
		}
		u.plans[si] = plan
		if u.answers[si], err = newAnswers(st, c); err != nil {
			return nil, err
		}
		if st == work.Notify {
			keys := make([]string, len(ids))
			for i, id := range ids {
				keys[i] = FakeKey(st, id)
			}
			u.keys[si] = keys
		} else {
			u.keys[si] = ids
		}
		u.calls[si] = make([]int32, sc.Items)
		u.lastClass[si] = make([]work.Class, sc.Items)
		u.permanentSeen[si] = make([]bool, sc.Items)
		u.stickySeen[si] = make([]bool, sc.Items)
		sticky, err := stickyFaults(c, st, sc.Seed, u.keys[si])
		if err != nil {
			return nil, err
		}
		u.sticky[si] = sticky
		if c.RateLimit != nil {
			u.limiters[si] = newLimiter(c.RateLimit)
		}
	}
	if entries, err := sc.Stages[work.LLM].chainEntries(); err != nil {
		return nil, err
	} else if len(entries) > 0 {
		u.provAnswers = map[failure.Provider]*answers{}
		u.firstLLM = entries[0].Provider
		u.prov = providerStats{calls: map[failure.Provider]int64{}, failures: map[failure.Provider]int64{}}
		for _, p := range fallback.Providers(entries) {
			a, err := providerAnswers(p, sc.Stages[work.LLM])
			if err != nil {
				return nil, err
			}
			u.provAnswers[p] = a
		}
	}
	for i, w := range sc.Windows {
		rt := &windowRT{Window: w, idx: i, start: int64(w.Start), end: int64(w.Start + w.Duration)}
		total := 0.0
		for _, f := range outageFaults {
			total += w.Faults[string(f)]
		}
		if w.Kind == WindowQuota {
			rt.faults, rt.cum = []fakes.Fault{fakes.FaultQuota}, []float64{1}
		} else {
			acc := 0.0
			for _, f := range outageFaults {
				if wt := w.Faults[string(f)]; wt > 0 {
					acc += wt / total
					rt.faults, rt.cum = append(rt.faults, f), append(rt.cum, acc)
				}
			}
		}
		si := w.Stage.Index()
		u.windows[si] = append(u.windows[si], rt)
	}
	return u, nil
}

// stickyFaults returns, per key, the fault that answers every call: the
// first "always:" entry of the key's script, or the mix's sticky draw
// (which a probe plan reveals at the first call past TransientCalls, where
// no transient fault can be drawn).
func stickyFaults(c *StageConfig, st work.Stage, seed uint64, keys []string) ([]fakes.Fault, error) {
	out := make([]fakes.Fault, len(keys))
	for i := range out {
		out[i] = fakes.FaultNone
	}
	scripted := map[string]bool{}
	for id, script := range c.Scripts {
		key := FakeKey(st, id)
		scripted[key] = true
		n, _ := itemIndexOfKey(keys, key)
		for _, name := range script {
			f, _ := fakes.ParseFault(name)
			if f.Repeats() {
				out[n] = f.Base()
				break
			}
		}
	}
	if len(c.Mix.Rates) == 0 {
		return out, nil
	}
	probe, err := (&StageConfig{Mix: c.Mix}).plan(st, seed)
	if err != nil {
		return nil, err
	}
	tc := c.Mix.TransientCalls
	if tc == 0 {
		tc = fakes.DefaultTransientCalls
	}
	for i, key := range keys {
		if scripted[key] {
			continue
		}
		var d fakes.Decision
		for range tc + 1 {
			d = probe.Decide(key)
		}
		out[i] = d.Fault
	}
	return out, nil
}

// itemIndexOfKey finds key among keys (only for the few scripted keys).
func itemIndexOfKey(keys []string, key string) (int, bool) {
	for i, k := range keys {
		if k == key {
			return i, true
		}
	}
	return 0, false
}

// call makes item i's next call to stage si's upstream, starting at the
// current record's lane time and ending no later than deadline (the
// invocation's work deadline, where the runner's context cancels it). It
// advances the lane by the call's duration and returns the client's error,
// nil for a success. With an llm chain the call goes to the chain's first
// provider (the baselines have no chain to walk).
func (u *upstream) call(si int, i int32, deadline vt) error {
	p := failure.Provider("")
	if si == work.LLM.Index() {
		p = u.firstLLM
	}
	return u.callProvider(si, i, deadline, p)
}

// callProvider is call to provider p of the llm chain ("" without one):
// p's windows and p's answers. The fault plan is the stage's, keyed by
// item and call number whatever the provider, so the seeded mix is the
// same for every provider.
func (u *upstream) callProvider(si int, i int32, deadline vt, p failure.Provider) error {
	clock := &u.e.clock
	start := clock.lane()
	key := u.keys[si][i]
	d := u.plans[si].Decide(key)
	fault := d.Fault
	var win *windowRT
	for _, w := range u.windows[si] {
		if start >= w.start && start < w.end && (w.Provider == "" || failure.Provider(w.Provider) == p) {
			win = w
			fault = w.draw(u.seed, key, d.Call)
			break
		}
	}
	if l := u.limiters[si]; win == nil && l != nil && !l.take(start) {
		fault = rateLimitFault(si)
	}
	c := u.cfg[si]
	a := u.answers[si]
	if pa := u.provAnswers[p]; pa != nil {
		a = pa
	}
	r := fakes.UnitHash(u.seed, uint64(si), uint64(i), uint64(d.Call))
	var (
		dur time.Duration
		err error
	)
	switch fault {
	case fakes.FaultNone, fakes.FaultInvalidJSON, fakes.FaultSchemaMismatch, fakes.FaultEmpty, fakes.FaultContentFilter:
		dur, err = c.Latency.at(r), a.byFault[fault]
	case fakes.FaultHang:
		dur, err = c.ClientTimeout.D(), a.timeout
		if hm := u.e.sc.HangMax.D(); hm > 0 && hm < dur {
			dur, err = hm, a.gateway
		}
	default:
		dur, err = c.ErrorLatency.at(r), a.byFault[fault]
	}
	end := start + int64(dur)
	if end > deadline {
		end, err = max(deadline, start), a.deadline
	}
	clock.setLane(end)

	s := &u.stats
	s.total++
	s.byStage[si]++
	u.calls[si][i]++
	wasted := false
	if win != nil {
		win.calls++
		if win.Kind == WindowOutage {
			// The first call into an outage discovers it; every later one
			// goes into a known outage.
			if win.calls > 1 {
				s.outage++
				wasted = true
			}
		} else if win.calls > 1 {
			s.quota++
		}
	}
	// A retry of an unrecoverable failure is a call made after the item's
	// sticky fault has answered once: from then on no retry can win.
	if !wasted && u.stickySeen[si][i] {
		s.unrecoverableRetries++
		if s.unrecoverableBy == nil {
			s.unrecoverableBy = map[string]int64{}
		}
		s.unrecoverableBy[string(work.Stages()[si])+"/"+string(u.sticky[si][i])]++
	}
	if win == nil && fault != fakes.FaultNone && fault == u.sticky[si][i] {
		u.stickySeen[si][i] = true
	}
	if u.permanentSeen[si][i] {
		s.permanentClassRetries++
	}
	if p != "" && u.prov.calls != nil {
		u.prov.calls[p]++
		if err != nil {
			u.prov.failures[p]++
		}
	}
	limited := false
	if err != nil {
		cl := failure.Classify(err)
		u.lastClass[si][i] = cl.Class
		if !cl.Retryable {
			u.permanentSeen[si][i] = true
		}
		limited = cl.Class == work.RateLimited
	}
	u.series[si].add(start, err == nil, limited)
	return err
}

// rateLimitFault is the answer of stage si's upstream over its rate limit.
func rateLimitFault(si int) fakes.Fault {
	if work.Stages()[si] == work.Notify {
		return fakes.FaultRateLimitSlack
	}
	return fakes.FaultRateLimit
}

// recoverable reports whether item i meets only transient faults: no stage
// has a fault that sticks to every call.
func (u *upstream) recoverable(i int) bool {
	for si := range u.sticky {
		if u.sticky[si][i] != fakes.FaultNone {
			return false
		}
	}
	return true
}
