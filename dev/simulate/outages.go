package simulate

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/triagehq/triage/internal/work"
)

// OutageRun is one long-outage scenario (an outage, an exhausted quota, a
// spent budget) run for the policies it names, with Options.Timeline.
type OutageRun struct {
	Scenario *Scenario
	Results  []*Result
	// Plot is its timeline chart, once WriteOutagePlots drew it.
	Plot *Plot
}

// outageProfiles are triage's shipped profiles, which the long-outage
// targets hold to (standard-no-breakers is an ablation: without a breaker
// there is no gate to wait behind).
var outageProfiles = []string{"standard", "predictions", "daily-batch"}

// plotPolicies are the policies a timeline chart draws.
var plotPolicies = []string{"standard", "daily-batch", "naive-redrive", "sdk-retries"}

// WriteOutagePlots draws each run's timeline into dir as
// simulation-<scenario>.png: the open items, the parked items, the items
// dead-lettered so far and the calls per minute at the stage that was shut,
// by policy.
func WriteOutagePlots(dir string, runs []OutageRun) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range runs {
		run := &runs[i]
		name := "simulation-" + run.Scenario.Name + ".png"
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		err = timelineChart(run).render(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		run.Plot = &Plot{File: name, Caption: fmt.Sprintf("Scenario %s over time: items open (arrived, not done nor dead-lettered), "+
			"items parked, items dead-lettered so far, and %s calls per minute, by policy.", run.Scenario.Name, drainStage(run))}
	}
	return nil
}

func drainStage(run *OutageRun) string {
	for _, r := range run.Results {
		if r.Drain != nil {
			return string(r.Drain.Stage)
		}
	}
	return "llm"
}

// timelineChart is a run's four panels over hours from the start.
func timelineChart(run *OutageRun) stackedCharts {
	var shown []*Result
	for _, name := range plotPolicies {
		if r := find(run.Results, name); r != nil && r.Timeline != nil {
			shown = append(shown, r)
		}
	}
	hours := 1.0
	for _, r := range shown {
		hours = max(hours, float64(len(r.Timeline.Open))/60)
	}
	st := drainStage(run)
	panel := func(title, yLabel string, values func(*Result) []float64) lineChart {
		l := lineChart{title: title, xLabel: "hours from the start of the run", yLabel: yLabel, xMin: 0, xMax: hours}
		top := 1.0
		for _, r := range shown {
			vs := values(r)
			s := lineSeries{name: r.Policy.Name}
			// At most ~1,500 points a line: the canvas is 670 pixels wide.
			every := max(1, len(vs)/1500)
			for k := 0; k < len(vs); k += every {
				s.points = append(s.points, [2]float64{float64(k) / 60, vs[k]})
				top = max(top, vs[k])
			}
			l.series = append(l.series, s)
		}
		step := niceStep(top / 5)
		l.yMax = math.Ceil(top/step) * step
		for y := 0.0; y <= l.yMax+step/2; y += step {
			l.yTicks = append(l.yTicks, tick{y, formatTick(y, step)})
		}
		xs := niceStep(hours / 8)
		for x := 0.0; x <= hours+xs/2; x += xs {
			l.xTicks = append(l.xTicks, tick{x, formatTick(x, xs) + "h"})
		}
		return l
	}
	ints := func(xs []int32) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = float64(x)
		}
		return out
	}
	return stackedCharts{panelHeight: 340, panels: []lineChart{
		panel(strings.ToUpper(run.Scenario.Name)+": ITEMS OPEN", "items", func(r *Result) []float64 { return ints(r.Timeline.Open) }),
		panel("ITEMS PARKED", "items", func(r *Result) []float64 { return ints(r.Timeline.Parked) }),
		panel("ITEMS DEAD-LETTERED SO FAR", "items", func(r *Result) []float64 { return ints(r.Timeline.DeadLettered) }),
		panel(strings.ToUpper(st)+" CALLS PER MINUTE", "calls", func(r *Result) []float64 {
			per := r.CallsPerMinute(work.Stage(st))
			out := make([]float64, len(per))
			for i, n := range per {
				out[i] = float64(n)
			}
			return out
		}),
	}}
}

// quotaCalls lists each policy's calls into the run's exhausted quota;
// empty for a scenario without a quota window.
func quotaCalls(run OutageRun) string {
	if !slices.ContainsFunc(run.Scenario.Windows, func(w Window) bool { return w.Kind == WindowQuota }) {
		return ""
	}
	var parts []string
	for _, r := range run.Results {
		parts = append(parts, fmt.Sprintf("%s %d", r.Policy.Name, r.QuotaCalls))
	}
	return strings.Join(parts, ", ")
}

// OutageTargets measures the long-outage targets over the runs, for
// triage's shipped profiles: no recoverable item lost and no dead letter
// the queues' backstop moved, in every scenario; at most 12 DynamoDB write
// requests per item over the 6-hour outage, whatever the outage's length;
// after recovery the backlog drains at 80% of the upstream's rate or more,
// with at most 2% of the drain's calls rate-limited (standard profile).
func OutageTargets(runs []OutageRun) []Target {
	var lost, backstop int
	var lostBy []string
	for _, run := range runs {
		for _, name := range outageProfiles {
			r := find(run.Results, name)
			if r == nil {
				continue
			}
			lost += r.RecoverableFailed
			backstop += r.BackstopDeadLetters
			if r.RecoverableFailed+r.BackstopDeadLetters > 0 {
				lostBy = append(lostBy, fmt.Sprintf("%s/%s %d lost, %d moved", run.Scenario.Name, name, r.RecoverableFailed, r.BackstopDeadLetters))
			}
		}
	}
	out := []Target{{
		Goal:     "0 recoverable items lost and 0 dead letters from the wait path, every scenario (standard, predictions, daily-batch)",
		Measured: fmt.Sprintf("%d lost, %d moved by the backstop", lost, backstop),
		Met:      lost == 0 && backstop == 0,
		Bound:    strings.Join(lostBy, "; "),
	}}
	var writes []string
	worst, six := 0.0, -1.0
	for _, run := range runs {
		r := find(run.Results, targetPolicy)
		if r == nil || !strings.HasPrefix(run.Scenario.Name, "outage-") {
			continue
		}
		writes = append(writes, fmt.Sprintf("%s %.1f", run.Scenario.Name, r.WritesPerItem))
		worst = max(worst, r.WritesPerItem)
		if run.Scenario.Name == "outage-6h" {
			six = r.WritesPerItem
		}
	}
	if len(writes) > 0 {
		out = append(out, Target{
			Goal:     "≤ 12 DynamoDB write requests per item over the 6-hour outage, whatever the outage's length (standard)",
			Measured: fmt.Sprintf("6 h: %.1f; %s", six, strings.Join(writes, ", ")),
			Met:      six >= 0 && six <= 12 && worst <= 12,
		})
	}
	var drains, missed []string
	minUse, maxLimited := math.Inf(1), 0.0
	for _, run := range runs {
		r := find(run.Results, targetPolicy)
		if r == nil || r.Drain == nil || r.Drain.Capacity <= 0 {
			continue
		}
		d := r.Drain
		drains = append(drains, fmt.Sprintf("%s %.0f%% / %.1f%%", run.Scenario.Name, 100*d.Utilisation(), 100*d.RateLimitedShare()))
		if d.Utilisation() < 0.8 || d.RateLimitedShare() > 0.02 {
			missed = append(missed, fmt.Sprintf("%s (%d drain calls, %d rate-limited)", run.Scenario.Name, d.Calls, d.RateLimited))
		}
		minUse, maxLimited = min(minUse, d.Utilisation()), max(maxLimited, d.RateLimitedShare())
	}
	if len(drains) > 0 {
		out = append(out, Target{
			Goal: "after recovery the backlog drains at ≥ 80% of the upstream's sustained rate, ≤ 2% of the drain's calls " +
				"rate-limited (standard)",
			Measured: fmt.Sprintf("worst %.0f%% of the rate, %.1f%% rate-limited (%s)", 100*minUse, 100*maxLimited, strings.Join(drains, ", ")),
			Met:      minUse >= 0.8 && maxLimited <= 0.02,
		})
		if len(missed) > 0 {
			out[len(out)-1].Bound = "missed by " + strings.Join(missed, ", ") + ". What bounds it: the ramp finds the " +
				"provider's limit by passing it once — slow start doubles the releases each scheduler run until a run meets " +
				"congestion, and the calls of that run past the limit are answered 429 before the next run can cut it " +
				"(about half the rate-limited calls of the 1-hour drain); the probes back towards the peak add the rest. A " +
				"drain of a few hundred calls cannot amortise them; the longer drains do"
		}
	}
	return out
}

// writeOutages writes the "Long outages" section.
func writeOutages(w io.Writer, rep Report) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n## Long outages\n\n")
	p("An outage of any length costs triage time, not items: every wait behind a closed gate — an open breaker, an exhausted " +
		"provider quota, a spent daily budget — parks the item behind the gate (one write), and the scheduler, once the gate " +
		"opens, releases its waiters in a ramp (one write each); a failed probe of the breaker re-parks its item without " +
		"spending an attempt (docs/design.md \"Waits and parking\"). The scenarios below run every policy through outages of " +
		"1 hour to 3 days with items arriving throughout, a provider quota exhausted for 12 hours, and a daily budget spent " +
		"at 09:00; the provider answers at most one call per second, so the drain after recovery is bounded by its rate.\n\n")
	for _, run := range rep.Outages {
		sc := run.Scenario
		p("### `%s`\n\n%s (%d items, seed %d.)\n\n", sc.Name, sc.Description, sc.Items, sc.Seed)
		p("| policy | done | dead-lettered | recoverable lost | moved by the backstop | DynamoDB writes per item | $ per 1k items | " +
			"recovery → first success | drain time | drain calls rate-limited | drain rate (of the upstream's) |\n")
		p("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, r := range run.Results {
			per1k, _ := r.CostPer(rep.Prices)
			first, dur, limited, rate := "—", "—", "—", "—"
			if d := r.Drain; d != nil && d.Backlog > 0 {
				first, dur = fmtDur(d.FirstSuccess.D()), fmtDur(d.Duration.D())
				if d.Drained < d.Backlog {
					dur += fmt.Sprintf(" (%d of %d)", d.Drained, d.Backlog)
				}
				limited = fmt.Sprintf("%.1f%%", 100*d.RateLimitedShare())
				rate = fmt.Sprintf("%.2f/s", d.Throughput)
				if d.Capacity > 0 {
					rate += fmt.Sprintf(" (%.0f%%)", 100*d.Utilisation())
				}
			}
			p("| %s | %d | %d | %d | %d | %.1f | $%.4f | %s | %s | %s | %s |\n", r.Policy.Name, r.Completed, r.DeadLettered,
				r.RecoverableFailed, r.BackstopDeadLetters, r.WritesPerItem, per1k.Total, first, dur, limited, rate)
		}
		p("\n")
		if q := quotaCalls(run); q != "" {
			p("Calls into the exhausted quota (after the one that found it): %s. While a quota's gate is closed, one probe "+
				"per its wait period reaches the provider (docs/design.md \"Waits and parking\").\n\n", q)
		}
		for _, r := range run.Results {
			if len(r.Anomalies) > 0 {
				p("- **%s anomalies: %s.**\n", r.Policy.Name, strings.Join(r.Anomalies, "; "))
			}
		}
		if run.Plot != nil {
			p("![%s](%s)\n\n*%s*\n\n", strings.TrimSuffix(run.Plot.File, ".png"), filepath.ToSlash(filepath.Join(rep.ImageDir, run.Plot.File)),
				run.Plot.Caption)
		}
	}
	p("### Targets (long outages)\n\n| target | measured | met |\n|---|---|---|\n")
	writeTargets(p, OutageTargets(rep.Outages))
	p("- **Reading the tables.** *Recovery* is the end of the last window, or the first 00:00 UTC after the budget was " +
		"spent; the *backlog* is the items that arrived before it and had not passed the shut stage; *drain time* runs " +
		"from recovery until the last of them passed it; the *drain rate* counts the stage's successes per second from the " +
		"first success after recovery to the end of the drain, new arrivals included, against the upstream's rate limit. " +
		"*Moved by the backstop* counts messages the queues' redrive policy (maxReceiveCount 50) moved to a DLQ: dead " +
		"letters nobody decided. DynamoDB writes are every PutItem, UpdateItem, DeleteItem and TransactWriteItems of the " +
		"run (the producer's, the stages', the scheduler's, the breakers' and gates'), per item.\n")
	p("- **daily-batch** parks the few items whose calls failed before the breaker opened for its 12-hour network " +
		"cooldown: its drain lasts until they are due, which its drain rate shows; none is lost. It waits a day for a " +
		"provider's exhausted quota (its `ProviderQuotaWait`): its probes back off to one a day, at 00:00 UTC, so a quota " +
		"that returns during the day is found at the next midnight.\n")
	p("- **standard-no-breakers** is the ablation: without a breaker there is no gate to wait behind, so an outage's " +
		"failures spend attempts and dead-letter items, as before this design; it is not a shipped profile.\n")
	p("- The baselines lose what the outage's first minutes touch: **naive redrive** moves each item after 5 receives " +
		"of 30 s, **SDK retries** dead-letter after 2 in-process retries.\n")
}
