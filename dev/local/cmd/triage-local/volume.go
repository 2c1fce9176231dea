package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/local/volume"
)

// runVolume is `triage-local volume` (make test-volume): the items through
// the stack `make up` runs, on the local SQS and DynamoDB and, for
// comparison, on moto's own; it prints the figures, writes them to --doc, and exits non-zero when
// the local run misses a target.
func runVolume(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("volume", "[flags]", stderr)
	items := fs.Int("items", volume.DefaultItems, "items to submit")
	deadline := fs.Duration("deadline", volume.DefaultDeadline, "every item done or dead-lettered within this, from the first submit")
	idle := fs.Duration("idle", volume.DefaultIdle, "watch moto's memory this long after the last item (0: skip)")
	compare := fs.Int("compare-items", 0, "then the same run on moto's own SQS with this many items (0: none)")
	compareDeadline := fs.Duration("compare-deadline", 10*time.Minute, "bound on the moto comparison's pipeline phase")
	sqsMode := fs.String("sqs", string(moto.SQSLocal), "the SQS of the main run: local or moto")
	ddbMode := fs.String("dynamodb", string(moto.DynamoDBLocal), "the DynamoDB of the main run: local or moto")
	compareDDB := fs.String("compare-dynamodb", string(moto.DynamoDBMoto), "the DynamoDB of the comparison on moto's SQS: local or moto")
	doc := fs.String("doc", "", "write the figures into this file between its volume markers (docs/performance.md)")
	dir := fs.String("dir", "", "logs and results (default .build/volume)")
	from := fs.String("from", "", "comma-separated report.json files of earlier runs (the local one first): write their figures instead of running")
	unpatched := fs.Bool("moto-unpatched", false, "run moto as installed, without the local stack's change to its transactions")
	maxEnvs := fs.Int("max-environments", 0, "each function's concurrent environments (0: the local Lambda service's default, as make up)")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	if fs.NArg() > 0 || *items <= 0 || *deadline <= 0 || *compare < 0 || *idle < 0 {
		fmt.Fprintln(stderr, "triage-local volume: --items and --deadline must be positive, --compare-items and --idle not negative; no arguments are taken")
		return exitUsage
	}
	if *dir == "" {
		root, err := devstack.ModuleRoot()
		if err != nil {
			fmt.Fprintf(stderr, "triage-local volume: %v\n", err)
			return exitSetup
		}
		*dir = filepath.Join(root, ".build", "volume")
	}
	say := func(format string, a ...any) { fmt.Fprintf(stderr, "triage-local volume: "+format+"\n", a...) }
	if *from != "" {
		return volumeFrom(strings.Split(*from, ","), *doc, stdout, stderr)
	}
	idleFor := *idle
	if idleFor == 0 {
		idleFor = -1
	}
	run := func(mode moto.SQSMode, ddb moto.DynamoDBMode, n int, d time.Duration, idle time.Duration) (*volume.Report, error) {
		sub := filepath.Join(*dir, string(mode)+"-sqs-"+string(ddb)+"-dynamodb")
		rep, err := volume.Run(ctx, volume.Options{Items: n, SQS: mode, DynamoDB: ddb, Deadline: d, Idle: idle, Dir: sub,
			MaxEnvironments: *maxEnvs, MotoUnpatched: *unpatched, Progress: say})
		if rep != nil {
			rep.Command = strings.Join(args, " ")
			if f, ferr := os.Create(filepath.Join(sub, "report.json")); ferr == nil {
				_ = rep.WriteJSON(f)
				_ = f.Close()
			}
		}
		return rep, err
	}
	main, err := run(moto.SQSMode(*sqsMode), moto.DynamoDBMode(*ddbMode), *items, *deadline, idleFor)
	if err != nil && main == nil {
		fmt.Fprintf(stderr, "triage-local volume: %v\n", err)
		return exitSetup
	}
	if err != nil {
		say("verification: %v", err)
	}
	runs := []*volume.Report{main}
	if *compare > 0 && ctx.Err() == nil {
		cmp, err := run(moto.SQSMoto, moto.DynamoDBMode(*compareDDB), *compare, *compareDeadline, -1)
		if cmp != nil {
			runs = append(runs, cmp)
		}
		if err != nil {
			say("the comparison on moto's SQS: %v", err)
		}
	}
	section := volume.Markdown(runs, strings.TrimSpace("triage-local volume "+strings.Join(args, " ")))
	fmt.Fprintln(stdout, section)
	if *doc != "" {
		if err := volume.WriteDoc(*doc, section); err != nil {
			fmt.Fprintf(stderr, "triage-local volume: %v\n", err)
			return exitSetup
		}
		say("figures written to %s", *doc)
	}
	if err := main.Check(*deadline); err != nil {
		fmt.Fprintf(stderr, "triage-local volume: FAIL: %v\n", err)
		return exitFunctionError
	}
	say("PASS: %d items done or dead-lettered in %v, 0 orphans, moto's RSS peaked at %d MiB", main.Done+main.DeadLettered,
		main.Elapsed.Round(time.Second), main.MotoPeakRSS>>20)
	return exitOK
}

// volumeFrom writes the figures of saved reports (each run's report.json)
// to stdout and doc.
func volumeFrom(paths []string, doc string, stdout, stderr io.Writer) int {
	var runs []*volume.Report
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(stderr, "triage-local volume: %v\n", err)
			return exitUsage
		}
		var r volume.Report
		if err := json.Unmarshal(raw, &r); err != nil {
			fmt.Fprintf(stderr, "triage-local volume: %s: %v\n", p, err)
			return exitUsage
		}
		runs = append(runs, &r)
	}
	section := volume.Markdown(runs, "triage-local volume "+runs[0].Command)
	fmt.Fprintln(stdout, section)
	if doc != "" {
		if err := volume.WriteDoc(doc, section); err != nil {
			fmt.Fprintf(stderr, "triage-local volume: %v\n", err)
			return exitSetup
		}
	}
	return exitOK
}
