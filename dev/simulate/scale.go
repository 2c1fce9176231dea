package simulate

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// ScaleConfig is how a scale run deploys triage for its rate: what an
// operator sets (docs/scale.md).
type ScaleConfig struct {
	// Rate is the arrival rate in items per second; Seconds how long items
	// arrive.
	Rate    float64 `json:"rate"`
	Seconds float64 `json:"seconds"`
	// BatchSize and Lanes are every stage's event source mapping batch size
	// and records processed at once per invocation (CONCURRENCY).
	BatchSize int `json:"batch_size"`
	Lanes     int `json:"lanes"`
	// Concurrency is each stage's MaximumConcurrency.
	Concurrency map[work.Stage]int `json:"concurrency"`
	// AccountConcurrency is the account's concurrent executions.
	AccountConcurrency int `json:"account_concurrency"`
	// IndexShards is the template's ItemIndexShards: the by-listed-state
	// index's partitions per group.
	IndexShards int `json:"index_shards"`
}

// indexShardLoad is the write units a second ScaleFor lets one partition of
// the by-listed-state index take: a quarter of a partition's 1,000.
const indexShardLoad = 250

// indexShardsFor is the ItemIndexShards a rate needs: an item enters the
// flight group at its creation and leaves it when done — two index writes
// per item of the rate on the busiest group — spread so that no partition
// takes more than indexShardLoad, in a power of two, at least the
// template's default.
func indexShardsFor(rate float64) int {
	n := store.DefaultIndexShards
	for float64(n)*indexShardLoad < 2*rate && n < store.MaxIndexShards {
		n *= 2
	}
	return n
}

// maxMappingConcurrency is the most an SQS event source mapping runs at
// once (MaximumConcurrency's upper bound).
const maxMappingConcurrency = 1000

// ScaleFor returns the deployment a rate needs: batches of 10 records run
// 10 at a time up to 1,000 items per second, batches of 50 run 50 at a time
// above (a mapping runs at most 1,000 invocations, and a 1-second model call
// in batches of 10 would need 2,000 at 10,000 items per second); each stage's
// MaximumConcurrency is twice what its slowest batches need; the account's
// concurrency is the default 1,000 unless the stages need more; the
// by-listed-state index gets enough partitions per group
// (indexShardsFor).
func ScaleFor(base *Scenario, rate, seconds float64) ScaleConfig {
	c := ScaleConfig{Rate: rate, Seconds: seconds, BatchSize: 10, Lanes: 10, Concurrency: map[work.Stage]int{},
		IndexShards: indexShardsFor(rate)}
	if rate > 1000 {
		c.BatchSize, c.Lanes = 50, 50
	}
	total := 0
	for _, st := range work.Stages() {
		lat := base.Stages[st].Latency.Max.D() + 200*time.Millisecond // the slowest call and the bookkeeping
		need := int(math.Ceil(2 * rate * lat.Seconds() / float64(c.BatchSize)))
		c.Concurrency[st] = min(max(need, 20), maxMappingConcurrency)
		total += c.Concurrency[st]
	}
	c.AccountConcurrency = max(1000, total)
	return c
}

// scaleWarmUp is the start of a scale run left out of its key load: the
// warm instances' first reads and budget leases, all at once in the model.
const scaleWarmUp = 10 * time.Second

// ScaleScenario is base's workload (its fault mix and latencies, not its
// windows: a provider outage at this rate is a backlog question, not a key
// one) arriving at c.Rate for c.Seconds, deployed as c says, with warm event
// source mappings: the steady state of a pipeline already serving the rate.
func ScaleScenario(base *Scenario, c ScaleConfig) (*Scenario, error) {
	b, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	var sc Scenario
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, err
	}
	sc.Name = fmt.Sprintf("%s at %g items/s", base.Name, c.Rate)
	sc.Description = fmt.Sprintf("%s's fault mix at %g items per second for %gs.", base.Name, c.Rate, c.Seconds)
	sc.Items = int(c.Rate * c.Seconds)
	sc.Arrival = Arrival{Pattern: ArrivalPoisson, RatePerSecond: c.Rate}
	sc.Windows = nil
	sc.Policies = []string{"standard"}
	sc.Lambda.Warm = true
	sc.KeyLoadFrom = Duration(scaleWarmUp)
	sc.Lambda.AccountConcurrency = c.AccountConcurrency
	sc.MaxEvents = 0
	sc.IndexShards = c.IndexShards
	for _, st := range work.Stages() {
		s := sc.Stages[st]
		s.BatchSize, s.Lanes, s.Concurrency = c.BatchSize, c.Lanes, c.Concurrency[st]
		if s.BatchWindow < Duration(time.Second) {
			s.BatchWindow = Duration(time.Second)
		}
	}
	sc.validated = false
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &sc, nil
}

// ScaleRow is one rate's run.
type ScaleRow struct {
	Config ScaleConfig `json:"config"`
	Result *Result     `json:"result"`
}

// WriteScaleTable writes the scale runs' figures as Markdown: per rate, the
// hottest key and its share of its partition's limits, the busiest key of
// each table, throttles, Lambda concurrency, completion and cost per
// completed item at p.
func WriteScaleTable(w io.Writer, rows []ScaleRow, p Prices) error {
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	// perRun writes the header of a table with a column a run: first's
	// column, then each run's rate with suffix.
	perRun := func(first, suffix string) {
		f("| %s |", first)
		for _, r := range rows {
			f(" %s items/s%s |", fmtRate(r.Config.Rate), suffix)
		}
		f("\n|---|")
		for range rows {
			f("--:|")
		}
		f("\n")
	}
	f("| items/s | items | hottest key | its load (of 1,000 WCU / 3,000 RCU a second) | throttled requests | peak Lambda concurrency (fetch / llm / notify / account) | completion p50 / p99 | $ per 1k done items (%s) |\n", p.Date)
	f("|--:|--:|---|--:|--:|---|---|--:|\n")
	for _, r := range rows {
		res := r.Result
		_, per := res.CostPer(p)
		h := res.Keys.Hottest
		f("| %s | %d | `%s` | %.0f%% (%.0f WCU, %.0f RCU) | %d | %d / %d / %d / %d | %s / %s | $%.4f |\n",
			fmtRate(r.Config.Rate), res.Items, h.Key, 100*h.Share(), h.WriteUnits, h.ReadUnits,
			res.Keys.ThrottledWrites+res.Keys.ThrottledReads,
			res.Lambda.PeakByStage[work.Fetch], res.Lambda.PeakByStage[work.LLM], res.Lambda.PeakByStage[work.Notify],
			res.Lambda.Peak, fmtDur(res.CompletionP50.D()), fmtDur(res.CompletionP99.D()), 1000*per.Total)
	}
	f("\nThe busiest key of each table (its busiest second), as a share of the partition's limits:\n\n")
	tables := map[string]bool{}
	for _, r := range rows {
		for t := range r.Result.Keys.ByTable {
			tables[t] = true
		}
	}
	names := slices.Sorted(maps.Keys(tables))
	perRun("table or index", "")
	for _, t := range names {
		f("| `%s` |", t)
		for _, r := range rows {
			k, ok := r.Result.Keys.ByTable[t]
			if !ok {
				f(" — |")
				continue
			}
			f(" %.1f%% (%.0f W, %.0f R) |", 100*k.Share(), k.WriteUnits, k.ReadUnits)
		}
		f("\n")
	}
	f("\nEach table's busiest second, all keys and indexes together, against an on-demand table's default quota of %s "+
		"units a second each way:\n\n", fmtRate(TableQuota))
	perRun("table", " (write / read units)")
	tset := map[string]bool{}
	for _, r := range rows {
		for t := range r.Result.Keys.Tables {
			tset[t] = true
		}
	}
	for _, t := range slices.Sorted(maps.Keys(tset)) {
		f("| `%s` |", t)
		for _, r := range rows {
			l := r.Result.Keys.Tables[t]
			f(" %.0f / %.0f (%.0f%%) |", l.WriteUnits, l.ReadUnits, 100*max(l.WriteUnits, l.ReadUnits)/TableQuota)
		}
		f("\n")
	}
	f("\nDeployment of each run (every stage): ")
	for i, r := range rows {
		if i > 0 {
			f("; ")
		}
		c := r.Config
		f("%s items/s: batches of %d, %d at once, MaximumConcurrency %d / %d / %d, account %d, ItemIndexShards %d", fmtRate(c.Rate), c.BatchSize,
			c.Lanes, c.Concurrency[work.Fetch], c.Concurrency[work.LLM], c.Concurrency[work.Notify], c.AccountConcurrency,
			store.IndexShards(c.IndexShards))
	}
	f(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtRate(r float64) string {
	if r >= 1000 && r == math.Trunc(r) {
		s := fmt.Sprintf("%.0f", r)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	return fmt.Sprintf("%g", r)
}
