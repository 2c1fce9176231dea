package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triagehq/triage/dev/simulate"
)

func init() {
	commands["simulate"] = command{"compare retry policies in a seeded virtual-time simulation", runSimulate}
}

// simulateStderr receives progress and wall times; stdout stays clean for
// machine-readable output.
var simulateStderr io.Writer = os.Stderr

func runSimulate(_ io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("simulate", "simulate [--scenario FILE] [--policies LIST] [--items N] [--seed N] [--json | --terminal] [--doc FILE --img DIR]\n\n"+
		"Runs a scenario (scenarios/*.json) through triage's real stage runner, classifier, retry profiles and\n"+
		"circuit breakers over a modelled SQS, Lambda and DynamoDB in virtual time, and through the naive-redrive\n"+
		"and SDK-retry baselines, on the same seeded workload; prints the comparison. --terminal prints every\n"+
		"item's terminal state as JSON lines, one line per policy (the cross-check against the local stack).\n"+
		"Policies: "+strings.Join(policyNames(), ", ")+".")
	scenarioPath := fs.String("scenario", filepath.Join("scenarios", "standard-mix.json"), "scenario file")
	policiesFlag := fs.String("policies", "", "comma-separated policies (default: the scenario's, else all)")
	items := fs.Int("items", 0, "override the scenario's item count")
	seed := fs.String("seed", "", "override the scenario's seed")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	terminal := fs.Bool("terminal", false, "print every item's terminal state as JSON lines, one per policy")
	fakePlans := fs.Bool("fake-plans", false, "print the scenario's fault plans as the fakes' control requests (for the local stack) and exit")
	doc := fs.String("doc", "", "write the Markdown report to FILE")
	img := fs.String("img", "", "write the PNG plots to DIR (with --doc: linked from the report)")
	sensitivity := fs.String("sensitivity", "500,20000,100000", "with --doc: document sizes (bytes) to re-measure the cost target at")
	sensItems := fs.Int("sensitivity-items", 20000, "with --doc: items per sensitivity run")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "policies simulated at once")
	logs := fs.Bool("log", false, "write triage's runner, breaker and scheduler logs (virtual times) to stderr")
	outages := fs.String("outages", "", "with --doc: comma-separated long-outage scenario files for its \"Long outages\" section (with --img: their timelines)")
	poison := fs.String("poison", "", "comma-separated poison-item scenario files (scenarios/poison-*.json), each run under the standard profile with and without its poison items: "+
		"with --doc, its \"Poison items\" section; without, the comparison and its targets printed")
	scale := fs.String("scale", "", "instead: run the scenario's workload through triage's standard profile at these rates (items per second, comma-separated) and print the DynamoDB key load and Lambda concurrency of each")
	scaleSeconds := fs.Float64("scale-seconds", 30, "with --scale: seconds of arrivals per rate")
	scaleDoc := fs.String("scale-doc", "", "with --scale: replace the figures between the scale markers of FILE (docs/scale.md)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"unexpected arguments: " + strings.Join(fs.Args(), " ")}
	}
	if *asJSON && *terminal {
		return usageError{"--json and --terminal are exclusive"}
	}
	if *poison != "" && *doc == "" {
		runs, err := poisonRuns(context.Background(), *poison, max(*parallel, 1))
		if err != nil {
			return err
		}
		return printPoison(stdout, runs, *asJSON)
	}
	sc, err := simulate.Load(*scenarioPath)
	if err != nil {
		return err
	}
	if *items > 0 {
		sc.Items = *items
	}
	if *seed != "" {
		n, err := strconv.ParseUint(*seed, 10, 64)
		if err != nil {
			return usageError{"--seed: " + err.Error()}
		}
		sc.Seed = n
	}
	if err := sc.Validate(); err != nil {
		return err
	}
	if *fakePlans {
		return printJSON(stdout, sc.FakePlans())
	}
	if *scale != "" {
		return runScale(stdout, sc, *scale, *scaleSeconds, *scaleDoc, *asJSON)
	}
	names := sc.Policies
	if *policiesFlag != "" {
		names = strings.Split(*policiesFlag, ",")
	}
	if len(names) == 0 {
		names = policyNames()
	}
	var policies []simulate.Policy
	for _, n := range names {
		p, err := simulate.LookupPolicy(strings.TrimSpace(n))
		if err != nil {
			return usageError{err.Error()}
		}
		policies = append(policies, p)
	}
	ctx := context.Background()
	opts := simulate.Options{Terminal: *terminal}
	if *logs {
		opts.Log = slog.New(slog.NewTextHandler(simulateStderr, nil))
	}
	results, err := runPolicies(ctx, sc, policies, opts, max(*parallel, 1))
	if err != nil {
		return err
	}
	switch {
	case *terminal:
		enc := json.NewEncoder(stdout)
		for _, r := range results {
			if err := enc.Encode(terminalDoc{Scenario: r.Scenario, Seed: r.Seed, Policy: r.Policy.Name, Items: r.Terminal}); err != nil {
				return err
			}
		}
	case *asJSON:
		if err := printJSON(stdout, results); err != nil {
			return err
		}
	default:
		fmt.Fprintf(stdout, "scenario %s: %d items, seed %d; costs at %s prices\n\n", sc.Name, sc.Items, sc.Seed, simulate.DefaultPrices.Name)
		if err := simulate.WriteTable(stdout, results, simulate.DefaultPrices); err != nil {
			return err
		}
		if slices.ContainsFunc(results, func(r *simulate.Result) bool { return r.Drain != nil }) {
			fmt.Fprintln(stdout)
			if err := simulate.WriteDrainTable(stdout, results); err != nil {
				return err
			}
		}
		if targets, err := simulate.Targets(results, simulate.DefaultPrices); err == nil {
			fmt.Fprintln(stdout)
			for _, t := range targets {
				mark := "met"
				if !t.Met {
					mark = "MISSED"
				}
				fmt.Fprintf(stdout, "%-6s %s: %s\n", mark, t.Goal, t.Measured)
			}
		}
	}
	var plots []simulate.Plot
	if *img != "" {
		if plots, err = simulate.WritePlots(*img, results, simulate.DefaultPrices); err != nil {
			return err
		}
	}
	if *doc == "" {
		return nil
	}
	rep := simulate.Report{
		Scenario: sc, Results: results, Prices: simulate.DefaultPrices, Plots: plots,
		Command: "make simulate",
	}
	also := simulate.CurrentPrices
	rep.Also = &also
	if *img != "" {
		if rel, err := filepath.Rel(filepath.Dir(*doc), *img); err == nil {
			rep.ImageDir = rel
		}
	}
	if rep.Sensitivity, err = sensitivityRuns(ctx, *scenarioPath, *sensitivity, *sensItems, sc, max(*parallel, 1)); err != nil {
		return err
	}
	if rep.Outages, err = outageRuns(ctx, *outages, max(*parallel, 1)); err != nil {
		return err
	}
	if rep.Poison, err = poisonRuns(ctx, *poison, max(*parallel, 1)); err != nil {
		return err
	}
	if *img != "" && len(rep.Outages) > 0 {
		if err := simulate.WriteOutagePlots(*img, rep.Outages); err != nil {
			return err
		}
	}
	f, err := os.Create(*doc)
	if err != nil {
		return err
	}
	if err := simulate.WriteMarkdown(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// terminalDoc is one policy's line of --terminal output.
type terminalDoc struct {
	Scenario string              `json:"scenario"`
	Seed     uint64              `json:"seed"`
	Policy   string              `json:"policy"`
	Items    []simulate.Terminal `json:"items"`
}

func policyNames() []string {
	var out []string
	for _, p := range simulate.Policies() {
		out = append(out, p.Name)
	}
	return out
}

// runPolicies simulates every policy, parallel at most at once, and returns
// the results in the policies' order.
func runPolicies(ctx context.Context, sc *simulate.Scenario, policies []simulate.Policy, opts simulate.Options, parallel int) ([]*simulate.Result, error) {
	runs := make([]simRun, len(policies))
	for i, p := range policies {
		runs[i] = simRun{name: p.Name, sc: sc, policy: p, opts: opts}
	}
	results, errs := runParallel(ctx, runs, parallel)
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", policies[i].Name, err)
		}
	}
	return results, nil
}

// simRun is one simulation: a scenario under a policy; name is what its
// progress line calls it.
type simRun struct {
	name   string
	sc     *simulate.Scenario
	policy simulate.Policy
	opts   simulate.Options
}

// runParallel makes runs, parallel at once at the most, and prints a
// progress line for each that succeeds.
func runParallel(ctx context.Context, runs []simRun, parallel int) ([]*simulate.Result, []error) {
	results := make([]*simulate.Result, len(runs))
	errs := make([]error, len(runs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			results[i], errs[i] = simulate.Run(ctx, r.sc, r.policy, r.opts)
			if errs[i] == nil {
				fmt.Fprintf(simulateStderr, "simulated %s: %d items, %d events in %s\n", r.name, r.sc.Items, results[i].Events,
					time.Since(start).Round(time.Millisecond))
			}
		}()
	}
	wg.Wait()
	return results, errs
}

// outageRuns runs each long-outage scenario of the list for its policies,
// with timelines.
func outageRuns(ctx context.Context, list string, parallel int) ([]simulate.OutageRun, error) {
	return eachScenario(list, func(sc *simulate.Scenario) (simulate.OutageRun, error) {
		names := sc.Policies
		if len(names) == 0 {
			names = policyNames()
		}
		var policies []simulate.Policy
		for _, n := range names {
			p, err := simulate.LookupPolicy(n)
			if err != nil {
				return simulate.OutageRun{}, err
			}
			policies = append(policies, p)
		}
		rs, err := runPolicies(ctx, sc, policies, simulate.Options{Timeline: true}, parallel)
		return simulate.OutageRun{Scenario: sc, Results: rs}, err
	})
}

// eachScenario loads each scenario file of the comma-separated list (blank
// names passed over) and runs run on it; run's error names the file.
func eachScenario[T any](list string, run func(sc *simulate.Scenario) (T, error)) ([]T, error) {
	var out []T
	for _, path := range strings.Split(list, ",") {
		if path = strings.TrimSpace(path); path == "" {
			continue
		}
		sc, err := simulate.Load(path)
		if err != nil {
			return nil, err
		}
		r, err := run(sc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// poisonRuns runs each poison-item scenario of the list under the standard
// profile, with its poison items and without them.
func poisonRuns(ctx context.Context, list string, parallel int) ([]simulate.PoisonRun, error) {
	std, err := simulate.LookupPolicy("standard")
	if err != nil {
		return nil, err
	}
	return eachScenario(list, func(sc *simulate.Scenario) (simulate.PoisonRun, error) {
		if len(sc.Poison) == 0 {
			return simulate.PoisonRun{}, errors.New("names no poison item")
		}
		without, err := sc.WithoutPoison()
		if err != nil {
			return simulate.PoisonRun{}, err
		}
		rs, errs := runParallel(ctx, []simRun{{name: sc.Name, sc: sc, policy: std}, {name: without.Name, sc: without, policy: std}}, parallel)
		return simulate.PoisonRun{Scenario: sc, With: rs[0], Without: rs[1]}, errors.Join(errs...)
	})
}

// printPoison prints the poison runs' outcomes and targets.
func printPoison(w io.Writer, runs []simulate.PoisonRun, asJSON bool) error {
	if asJSON {
		return printJSON(w, runs)
	}
	for _, run := range runs {
		h, wo := run.With.Healthy, run.Without.Healthy
		for _, o := range run.With.Poison {
			fmt.Fprintf(w, "%s: %s %s %s/%s after %s, %d probes, %d calls; others p50 %s (without %s), p99 %s (without %s)\n",
				run.Scenario.Name, o.ItemID, o.State, o.Stage, o.Class, o.After.D(), o.Probes, o.Calls, h.P50.D(), wo.P50.D(), h.P99.D(), wo.P99.D())
		}
	}
	for _, t := range simulate.PoisonTargets(runs) {
		mark := "met"
		if !t.Met {
			mark = "MISSED"
		}
		fmt.Fprintf(w, "%-6s %s: %s\n", mark, t.Goal, t.Measured)
	}
	return nil
}

// sensitivityRuns re-measures standard against naive redrive at other
// document sizes, with fewer items.
func sensitivityRuns(ctx context.Context, path, sizes string, items int, base *simulate.Scenario, parallel int) ([]simulate.Sensitivity, error) {
	if strings.TrimSpace(sizes) == "" {
		return nil, nil
	}
	var out []simulate.Sensitivity
	var list []int
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return nil, usageError{"--sensitivity: " + s + " is not a size in bytes"}
		}
		list = append(list, n)
	}
	list = append(list, base.DocumentBytes)
	slices.Sort(list)
	list = slices.Compact(list)
	std, _ := simulate.LookupPolicy("standard")
	naive, _ := simulate.LookupPolicy("naive-redrive")
	for _, size := range list {
		sc, err := simulate.Load(path)
		if err != nil {
			return nil, err
		}
		sc.Seed, sc.DocumentBytes, sc.Items = base.Seed, size, min(items, base.Items)
		if err := sc.Validate(); err != nil {
			return nil, err
		}
		rs, err := runPolicies(ctx, sc, []simulate.Policy{std, naive}, simulate.Options{}, parallel)
		if err != nil {
			return nil, err
		}
		also := simulate.CurrentPrices
		out = append(out, simulate.NewSensitivity(size, rs[0], rs[1], simulate.DefaultPrices, &also))
	}
	return out, nil
}

// Markers around the generated figures of docs/scale.md.
const (
	scaleBegin = "<!-- scale:begin (generated by triage simulate --scale; do not edit by hand) -->"
	scaleEnd   = "<!-- scale:end -->"
)

// runScale runs sc's workload at each rate (items per second) for seconds,
// deployed as simulate.ScaleFor says, and prints or writes the figures.
func runScale(stdout io.Writer, base *simulate.Scenario, rates string, seconds float64, doc string, asJSON bool) error {
	if seconds <= 0 {
		return usageError{"--scale-seconds must be positive"}
	}
	std, _ := simulate.LookupPolicy("standard")
	var rows []simulate.ScaleRow
	for _, s := range strings.Split(rates, ",") {
		rate, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || rate <= 0 {
			return usageError{"--scale: " + s + " is not a rate in items per second"}
		}
		cfg := simulate.ScaleFor(base, rate, seconds)
		sc, err := simulate.ScaleScenario(base, cfg)
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := simulate.Run(context.Background(), sc, std, simulate.Options{})
		if err != nil {
			return err
		}
		fmt.Fprintf(simulateStderr, "simulated %g items/s: %d items, %d events in %s\n", rate, sc.Items, res.Events,
			time.Since(start).Round(time.Millisecond))
		rows = append(rows, simulate.ScaleRow{Config: cfg, Result: res})
	}
	if asJSON {
		return printJSON(stdout, rows)
	}
	var b strings.Builder
	if err := simulate.WriteScaleTable(&b, rows, simulate.CurrentPrices); err != nil {
		return err
	}
	if doc == "" {
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	old, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	text := string(old)
	i, j := strings.Index(text, scaleBegin), strings.Index(text, scaleEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q … %q markers", doc, scaleBegin, scaleEnd)
	}
	text = text[:i+len(scaleBegin)] + "\n\n" + b.String() + "\n" + text[j:]
	return os.WriteFile(doc, []byte(text), 0o644)
}
