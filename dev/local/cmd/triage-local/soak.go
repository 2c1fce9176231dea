package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/soak"
)

// runSoak is `triage-local soak`: the pipeline under seeded random faults,
// ending with a conservation check; several seeded runs and a markdown
// report with --runs and --report.
func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("soak", "[flags]", stderr)
	items := fs.Int("items", soak.DefaultItems, "items per run")
	seed := fs.Uint64("seed", 1, "seed of the first run; run i uses seed+i")
	fresh := fs.Bool("fresh", false, "draw every run's seed at random — seeds nobody tuned for — each printed, so a failing one can be rerun with --seed S --runs 1")
	runs := fs.Int("runs", 1, "seeded runs, one after the other, each on a fresh stack")
	wave := fs.Int("wave", soak.DefaultWave, "items seeded at once")
	timeout := fs.Duration("timeout", 0, "bound on each run's pipeline phase (0: 3 min + 1 s per item, + 2 min with --action-failures)")
	actionFailures := fs.Int("action-failures", 2, "action items that fail once with ACTION_FAILED (a fixed 2-minute wait)")
	kills := fs.Int("kills", 0, "most bootstrap processes killed per run (0: items/25, at least 2; -1: none)")
	secrets := fs.Bool("secrets", true, "plant secrets and search the logs, DLQ payloads and error log for them")
	report := fs.String("report", "", "write the markdown report of the runs to this file (e.g. docs/reliability.md)")
	results := fs.String("results", "", "save the runs' results as JSON to this file (default .build/soak/results.json)")
	from := fs.String("from", "", "write --report from results saved by an earlier run instead of running")
	notes := fs.String("notes", "", "a markdown file of findings to add to the report (docs/reliability-findings.md)")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if *fresh && seedSet {
		fmt.Fprintln(stderr, "triage-local soak: --fresh draws the seeds; --seed names one: give one or the other")
		return exitUsage
	}
	if fs.NArg() > 0 || *items <= 0 || *runs <= 0 || *wave <= 0 || *timeout < 0 || *actionFailures < 0 {
		fmt.Fprintln(stderr, "triage-local soak: --items, --runs and --wave must be positive, --timeout and --action-failures not negative; no arguments are taken")
		return exitUsage
	}
	if *notes != "" {
		// Checked now, not after an hour of runs.
		if _, err := os.Stat(*notes); err != nil {
			fmt.Fprintf(stderr, "triage-local soak: --notes: %v\n", err)
			return exitUsage
		}
	}
	if *from != "" {
		return rewriteReport(*from, *report, *notes, stdout, stderr)
	}
	opts := soak.Options{Items: *items, Wave: *wave, Timeout: *timeout, ActionFailures: *actionFailures, Kills: *kills,
		Secrets: *secrets, Out: stdout}
	path := *results
	if path == "" {
		if root, err := devstack.ModuleRoot(); err == nil {
			path = filepath.Join(root, ".build", "soak", "results.json")
		}
	}
	seeds := make([]uint64, *runs)
	for i := range seeds {
		seeds[i] = *seed + uint64(i)
		if *fresh {
			seeds[i] = soak.FreshSeed()
		}
	}
	var runsDone []*soak.Result
	record := func() soak.Record {
		o := opts
		o.Seed = seeds[0]
		return soak.Record{Command: strings.TrimSpace("triage-local soak " + strings.Join(args, " ")), Options: o, Runs: runsDone, Fresh: *fresh}
	}
	// The results are saved after every run, so an interrupted long soak
	// keeps the runs it finished (--from writes their report).
	save := func() {
		if path == "" {
			return
		}
		b, err := json.MarshalIndent(record(), "", "  ")
		if err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "triage-local soak: save the results: %v\n", err)
		}
	}
	if *fresh {
		fmt.Fprintf(stdout, "fresh seeds: %s\n", joinSeeds(seeds))
	}
	failed := 0
	var failedSeeds []uint64
	for i := range *runs {
		opts.Seed = seeds[i]
		opts.Build = devstack.BuildAlways
		if i > 0 {
			opts.Build = devstack.BuildMissing
		}
		rerun := ""
		if *fresh {
			rerun = fmt.Sprintf("; rerun: triage-local soak --items %d --seed %d", *items, opts.Seed)
		}
		fmt.Fprintf(stdout, "\n== soak run %d/%d (seed %d%s) ==\n", i+1, *runs, opts.Seed, rerun)
		res, err := soak.Run(ctx, opts)
		if err != nil {
			fmt.Fprintf(stderr, "triage-local soak: seed %d: %v\n", opts.Seed, err)
			if ctx.Err() != nil {
				return exitInterrupted
			}
			return exitSetup
		}
		res.Print(stdout)
		runsDone = append(runsDone, res)
		save()
		if !res.OK() {
			failed++
			failedSeeds = append(failedSeeds, opts.Seed)
		}
	}
	t := soak.Sum(runsDone)
	fmt.Fprintf(stdout, "\n== %d runs: %d items, %d done, %d dead-lettered, %d lost, %d violations, %d raw DLQ duplicates, %d kills, %d secrets found, wall %s ==\n",
		t.Runs, t.Items, t.Done, t.DeadLettered, t.Lost, t.Violations, t.RawDuplicates, t.Kills, t.Leaks, t.Wall.Round(time.Second))
	if path != "" {
		fmt.Fprintf(stdout, "results saved to %s\n", path)
	}
	rec := record()
	if *report != "" {
		if err := writeReport(*report, *notes, rec); err != nil {
			fmt.Fprintf(stderr, "triage-local soak: %v\n", err)
			return exitSetup
		}
		fmt.Fprintf(stdout, "report written to %s\n", *report)
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "triage-local soak: %d of %d runs broke an invariant (see VIOLATIONS above); seeds %s\n", failed, len(runsDone),
			joinSeeds(failedSeeds))
		return exitFunctionError
	}
	return exitOK
}

// rewriteReport writes the report of runs saved by an earlier soak.
func rewriteReport(from, report, notes string, stdout, stderr io.Writer) int {
	if report == "" {
		fmt.Fprintln(stderr, "triage-local soak: --from needs --report")
		return exitUsage
	}
	b, err := os.ReadFile(from)
	if err != nil {
		fmt.Fprintf(stderr, "triage-local soak: %v\n", err)
		return exitSetup
	}
	var rec soak.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		fmt.Fprintf(stderr, "triage-local soak: %s: %v\n", from, err)
		return exitSetup
	}
	if err := writeReport(report, notes, rec); err != nil {
		fmt.Fprintf(stderr, "triage-local soak: %v\n", err)
		return exitSetup
	}
	fmt.Fprintf(stdout, "report of %d runs written to %s\n", len(rec.Runs), report)
	return exitOK
}

// writeReport writes rec's report to path, with the findings in the notes
// file ("" for none).
func writeReport(path, notes string, rec soak.Record) error {
	if notes != "" {
		n, err := os.ReadFile(notes)
		if err != nil {
			return err
		}
		rec.Notes = string(n)
	}
	var b bytes.Buffer
	rec.WriteReport(&b)
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func joinSeeds(seeds []uint64) string {
	out := make([]string, len(seeds))
	for i, s := range seeds {
		out[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(out, " ")
}
