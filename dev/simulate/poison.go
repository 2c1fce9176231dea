package simulate

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// PoisonOutcome is what became of one poison item (Scenario.Poison).
type PoisonOutcome struct {
	// ItemID is the item; State, Stage and Class its outcome (a Terminal's
	// fields).
	ItemID string     `json:"item_id"`
	State  string     `json:"state"`
	Stage  work.Stage `json:"stage,omitempty"`
	Class  work.Class `json:"class,omitempty"`
	// After is the time from its arrival to its outcome (zero when
	// unfinished).
	After Duration `json:"after"`
	// Probes counts the deliveries of it the scheduler released as a
	// breaker's probe; Calls the upstream calls made for it.
	Probes int   `json:"probes"`
	Calls  int64 `json:"calls"`
}

// Completion summarises completion times.
type Completion struct {
	Items int      `json:"items"`
	P50   Duration `json:"p50"`
	P99   Duration `json:"p99"`
}

// poisonResult fills Result.Poison and Result.Healthy for a scenario that
// names poison items.
func (e *engine) poisonResult(r *Result) {
	if len(e.sc.Poison) == 0 {
		return
	}
	poison := map[int32]bool{}
	for _, id := range e.sc.Poison {
		i, ok := e.index[id]
		if !ok {
			continue
		}
		poison[i] = true
		it := &e.items[i]
		o := PoisonOutcome{ItemID: id, State: StateUnfinished, Probes: int(e.probed[i]), Calls: e.up.itemCalls(i)}
		switch it.outcome {
		case outcomeDone:
			o.State, o.After = StateDone, Duration(it.finished-it.arrival)
		case outcomeDeadLetter:
			o.State, o.Stage, o.Class, o.After = StateDeadLetter, it.dlStage, it.dlClass, Duration(it.finished-it.arrival)
		}
		r.Poison = append(r.Poison, o)
	}
	var times []time.Duration
	for i := range e.items {
		if it := &e.items[i]; it.outcome == outcomeDone && !poison[int32(i)] {
			times = append(times, time.Duration(it.finished-it.arrival))
		}
	}
	slices.Sort(times)
	r.Healthy = &Completion{Items: len(times), P50: Duration(quantile(times, 0.5)), P99: Duration(quantile(times, 0.99))}
}

// PoisonRun is a poison scenario run with its poison items and without them
// (Scenario.WithoutPoison), under the standard profile.
type PoisonRun struct {
	Scenario      *Scenario
	With, Without *Result
}

// breakerOpens is how often the run's breakers opened (a trip, a failed
// probe), and how many failures they judged an item's own.
func breakerOpens(r *Result) (opens, judged int64) {
	for k, n := range r.Counters {
		switch {
		case strings.HasSuffix(k, "/"+breaker.MetricBreakerOpens):
			opens += n
		case strings.HasSuffix(k, "/"+breaker.MetricPoisonFailures):
			judged += n
		}
	}
	return opens, judged
}

// PoisonTargets are the targets of docs/simulation.md "Poison items": the
// poison item dead-lettered with its class after at most a few probes, its
// breaker opened at most a handful of times because of it, the other
// items' p50 and p99 within 10% of the run without it; a provider down for
// everyone still loses nothing.
func PoisonTargets(runs []PoisonRun) []Target {
	most := policy.Standard().Probing.WithDefaults().MaxProbes
	var classes, probes, opens, latency, quiet, lost []string
	classOK, probesOK, opensOK, latencyOK, quietOK, lostOK := true, true, true, true, true, true
	for _, run := range runs {
		name := run.Scenario.Name
		for _, o := range run.With.Poison {
			classes = append(classes, fmt.Sprintf("%s %s", name, outcomeText(o)))
			classOK = classOK && o.State == StateDeadLetter && o.Class != ""
			probes = append(probes, fmt.Sprintf("%s %d", name, o.Probes))
			probesOK = probesOK && o.Probes <= most
		}
		with, _ := breakerOpens(run.With)
		without, _ := breakerOpens(run.Without)
		opens = append(opens, fmt.Sprintf("%s %d (%d without)", name, with, without))
		opensOK = opensOK && with-without <= 5
		if h, w := run.With.Healthy, run.Without.Healthy; h != nil && w != nil {
			text := fmt.Sprintf("%s p50 %s/%s, p99 %s/%s", name, fmtDur(h.P50.D()), fmtDur(w.P50.D()), fmtDur(h.P99.D()), fmtDur(w.P99.D()))
			if run.Scenario.Items >= poisonCrowd {
				latency = append(latency, text)
				latencyOK = latencyOK && ratio(h.P50.D(), w.P50.D()) <= 1.1 && ratio(h.P99.D(), w.P99.D()) <= 1.1
			} else {
				// Too few items to tell the poison item's first failures
				// from an outage: it may open the breaker once.
				quiet = append(quiet, fmt.Sprintf("%s: %d more opening(s); %s", name, with-without, text))
				quietOK = quietOK && with-without <= 1 && h.P99.D() <= w.P99.D()+breaker.DefaultOpenFor+time.Minute
			}
		}
		lost = append(lost, fmt.Sprintf("%s %d", name, run.With.RecoverableFailed))
		lostOK = lostOK && run.With.RecoverableFailed == 0 && run.With.BackstopDeadLetters == 0 && len(run.With.Anomalies) == 0
	}
	out := []Target{
		{Goal: "the poison item is dead-lettered with its class", Measured: strings.Join(classes, "; "), Met: classOK},
		{Goal: fmt.Sprintf("… after at most a few probes (the cap: %d)", most), Measured: strings.Join(probes, ", "), Met: probesOK},
		{Goal: "its provider's breaker opens at most a handful (5) of times more than without it", Measured: strings.Join(opens, ", "),
			Met: opensOK},
		{Goal: fmt.Sprintf("among %d or more items, the others' completion p50 and p99 within 10%% of the run without it", poisonCrowd),
			Measured: strings.Join(latency, "; "), Met: latencyOK},
	}
	if len(quiet) > 0 {
		out = append(out, Target{Goal: "in a quiet hour, the poison item holds its provider for at most one breaker window " +
			"(one opening more, the others' p99 at most a window and a scheduler minute longer)", Measured: strings.Join(quiet, "; "), Met: quietOK,
			Bound: "with one item making all the traffic, its first failures cannot be told from an outage's: they open the breaker, " +
				"and an item that meets an outage alone keeps its attempts. The breaker's first probe goes to another waiter, whose " +
				"success is the evidence that judges the poison item at its next failure"})
	}
	return append(out, Target{Goal: "nothing else lost: 0 recoverable items failed, 0 moved by the backstop, no anomaly",
		Measured: strings.Join(lost, ", "), Met: lostOK})
}

// poisonCrowd is how many items the targets call a crowd (the poison item
// "among 10,000").
const poisonCrowd = 10000

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		if a <= 0 {
			return 1
		}
		return 2
	}
	return float64(a) / float64(b)
}

func outcomeText(o PoisonOutcome) string {
	switch o.State {
	case StateDeadLetter:
		return fmt.Sprintf("%s/%s after %s", o.Stage, o.Class, fmtDur(o.After.D()))
	case StateDone:
		return "done after " + fmtDur(o.After.D())
	}
	return "unfinished"
}

// writePoison writes the "Poison items" section.
func writePoison(w io.Writer, rep Report) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n## Poison items\n\n")
	p("A poison item fails every call it makes while everyone else is served: a prompt the provider answers 500 to every " +
		"time, one model's 403 or one item's 401, a request it always times out on. Its failures look like an outage to the " +
		"one call; triage judges them on the item's run of such failures and on the breaker's record of when a probe last " +
		"succeeded (docs/design.md \"A failure that follows one item\"), rotates the breaker's probe among distinct waiters " +
		"and bounds how often one item is the probe. Each scenario below runs the standard profile twice on one seeded " +
		"workload — with its poison item, and with the poison item's script removed — so the other items' completion times " +
		"compare like for like.\n\n")
	p("| scenario | items | poison item's fault | its outcome | probes it served | its upstream calls | breaker opens (without it) | " +
		"failures judged its own | others' p50 (without) | others' p99 (without) | recoverable lost |\n")
	p("|---|--:|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, run := range rep.Poison {
		sc := run.Scenario
		opens, judged := breakerOpens(run.With)
		openW, _ := breakerOpens(run.Without)
		for _, o := range run.With.Poison {
			fault := ""
			for _, st := range work.Stages() {
				if s := sc.Stages[st].Scripts[o.ItemID]; len(s) > 0 {
					fault = string(st) + " " + strings.Join(s, ", ")
				}
			}
			h, w := run.With.Healthy, run.Without.Healthy
			p("| `%s` | %d | %s | %s | %d | %d | %d (%d) | %d | %s (%s) | %s (%s) | %d |\n", sc.Name, sc.Items, fault, outcomeText(o),
				o.Probes, o.Calls, opens, openW, judged, fmtDur(h.P50.D()), fmtDur(w.P50.D()), fmtDur(h.P99.D()), fmtDur(w.P99.D()),
				run.With.RecoverableFailed)
		}
	}
	p("\n")
	for _, run := range rep.Poison {
		p("- **`%s`**: %s\n", run.Scenario.Name, run.Scenario.Description)
		for _, r := range []*Result{run.With, run.Without} {
			if len(r.Anomalies) > 0 {
				p("  - **anomalies (%s): %s.**\n", r.Scenario, strings.Join(r.Anomalies, "; "))
			}
		}
	}
	p("\n### Targets (poison items)\n\n| target | measured | met |\n|---|---|---|\n")
	writeTargets(p, PoisonTargets(rep.Poison))
	p("- **Reading the table.** *Probes it served* counts the poison item's deliveries the scheduler released as a " +
		"breaker's probe; *breaker opens* counts every trip and failed probe of the run's breakers (the llm provider's, the " +
		"hosts'), with the poison item and, in parentheses, without it; *failures judged its own* counts the provider-wide " +
		"failures the blame table gave to their item (`PoisonFailures`). The others' completion times run from arrival to " +
		"notify success, the poison item left out of both runs.\n")
}

// itemCalls is how many upstream calls item i made, every stage's.
func (u *upstream) itemCalls(i int32) int64 {
	var n int64
	for si := range u.calls {
		if int(i) < len(u.calls[si]) {
			n += int64(u.calls[si][i])
		}
	}
	return n
}
