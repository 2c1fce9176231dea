// Package demo is `make demo`: the pipeline end to end on one machine. It
// brings the local stack up (devstack), submits stories to the fetch queue
// the way any producer does (package intake), lets the real functions work through them under a seeded mix
// of upstream faults, shows progress, and ends with a summary an operator
// can check: outcomes per state, failures and retries per class, dead letters
// per class and stage, the owners told of their dead letters, AWS requests
// per item, and a conservation line (seeded = done + dead-lettered, nothing
// in flight). The full demo goes on with model health, a provider outage,
// recovery, the operator's replay, and what the owner of an action task
// hears: item.retry_scheduled, then the outcome, and the item's timeline.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/store"
)

// Options configure Run.
type Options struct {
	// Items is how many stories to seed; 0 means 50.
	Items int
	// Seed drives the fault mix; the same seed gives the same faults.
	Seed uint64
	// Faults is "standard" (the default mix) or "none" (the happy path).
	Faults string
	// Timeout bounds the pipeline phase; 0 means 150 s.
	Timeout time.Duration
	// Out receives progress and the summary.
	Out io.Writer
	// LogDir receives the functions' logs (functions.log); "" is
	// <root>/.build/demo.
	LogDir string
	// Interactive redraws the progress line in place (a terminal).
	Interactive bool
	// Break keeps one phase's effect from happening, so that a test sees
	// the demo fail on the claim it can no longer make: BreakModelHealth
	// lets the bad model answer well. Empty breaks nothing.
	Break string
}

// BreakModelHealth is Options.Break's phase 2: the chain's bad model
// answers like a good one, so it is never disabled.
const BreakModelHealth = "model-health"

// Mixes are the demo's fault mixes per fake. Transient faults hit at most
// a key's first two calls, so an item with only transient faults always
// finishes within its attempt budget; sticky ones are permanent for that
// item (see dev/fakes).
var Mixes = map[string]struct{ Articles, LLM, Webhook map[fakes.Fault]float64 }{
	"standard": {
		Articles: map[fakes.Fault]float64{fakes.FaultNotFound: 0.04, fakes.FaultGone: 0.02, fakes.FaultServerError: 0.06,
			fakes.FaultRateLimit: 0.04, fakes.FaultReset: 0.03},
		LLM: map[fakes.Fault]float64{fakes.FaultRateLimit: 0.08, fakes.FaultServerError: 0.05, fakes.FaultUnavailable: 0.03,
			fakes.FaultInvalidJSON: 0.06, fakes.Always(fakes.FaultInvalidJSON): 0.05, fakes.FaultContentPolicy: 0.05,
			fakes.FaultContextLength: 0.04},
		Webhook: map[fakes.Fault]float64{fakes.FaultServerError: 0.05, fakes.FaultRateLimitDiscord: 0.03,
			fakes.FaultChannelNotFound: 0.02},
	},
	"none": {},
}

// bedrockCalls prefixes the AWS call counts of the Bedrock Runtime client.
const bedrockCalls = "Bedrock Runtime."

// Summary is what the demo measured.
type Summary struct {
	Seeded       int
	ByState      map[work.State]int
	DeadLetters  map[string]int // "stage CLASS" → items
	DLQMessages  map[work.Stage]int
	Failures     map[work.Class]int
	Retries      map[work.Class]int
	Waits        map[work.Class]int
	InFlight     int
	Parked       int
	AWSCalls     map[string]int64
	Batches      int64
	FunctionErrs int64
	Elapsed      time.Duration

	// OwnersToTell counts the dead-lettered items whose owner asked for
	// item.failed; Told those whose webhook received it; Refused those
	// whose webhook refused it for good (the notice's ledger says
	// abandoned: the fault mix's deleted channel).
	OwnersToTell, Told, Refused int
}

// Conserved reports the conservation check: every seeded item is done or
// dead-lettered, DLQ messages match dead-lettered items, nothing in flight.
func (s Summary) Conserved() bool {
	dlq := 0
	for _, n := range s.DLQMessages {
		dlq += n
	}
	return s.Seeded == s.ByState[work.Done]+s.ByState[work.Deadletter] && s.InFlight == 0 && s.Parked == 0 &&
		dlq == s.ByState[work.Deadletter]
}

// Run runs the demo and returns its summary; err is set when the stack could
// not start or the pipeline did not settle in time.
func Run(ctx context.Context, opts Options) (Summary, error) {
	if opts.Items <= 0 {
		opts.Items = 50
	}
	if opts.Faults == "" {
		opts.Faults = "standard"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 150 * time.Second
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	mix, ok := Mixes[opts.Faults]
	if !ok {
		return Summary{}, fmt.Errorf("unknown fault mix %q (want standard or none)", opts.Faults)
	}
	root, err := devstack.ModuleRoot()
	if err != nil {
		return Summary{}, err
	}
	if opts.LogDir == "" {
		opts.LogDir = filepath.Join(root, ".build", "demo")
	}
	if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
		return Summary{}, err
	}
	logPath := filepath.Join(opts.LogDir, "functions.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return Summary{}, err
	}
	defer logFile.Close()
	say := func(format string, args ...any) { fmt.Fprintf(opts.Out, format+"\n", args...) }
	calls := &devstack.AWSCalls{}

	started := time.Now()
	dsOpts := devstack.Options{
		Root: root, Pollers: true, StackName: "triage-demo", Logs: logFile, OnLog: calls.Observe,
		Functions: []string{"FetchFunc", "LLMFunc", "NotifyFunc", "RecoveryFunc"}, Scheduler: time.Second,
		LLM: fakes.LLMOptions{RetryAfter: time.Second}, Articles: fakes.ArticleOptions{RetryAfter: time.Second},
		Env: map[string]map[string]string{
			"*":            {"BREAKER_OPEN_FOR": demoBreakerOpenFor.String()},
			"RecoveryFunc": {"RECOVERY_CLOCK_OFFSET": demoRecoveryOffset.String()},
			// A notice the receiver refused is tried again in seconds, not
			// in half a minute.
			"NotifyFunc": {"NOTICE_RETRY_INITIAL": "1s"},
		},
		Progress: func(format string, args ...any) { say("  · "+format, args...) },
	}
	full := opts.Faults != "none"
	if full {
		// The chain spans two providers. A Bedrock model that only answers
		// invalid JSON heads it: it is disabled after 5 failures and the
		// chain falls back to the next Bedrock model; OpenAI serves when
		// Bedrock as a whole cannot.
		dsOpts.Params = map[string]string{"LLMModels": strings.Join([]string{badModel.String(), goodModel.String(), secondModel.String()}, ",")}
		dsOpts.LLM.ModelFaults = map[string]fakes.Fault{badModel.Model: fakes.FaultInvalidJSON}
		if opts.Break == BreakModelHealth {
			dsOpts.LLM.ModelFaults = nil
		}
	}
	st, err := devstack.Start(ctx, dsOpts)
	if err != nil {
		return Summary{}, err
	}
	defer st.Close()
	for _, f := range []struct {
		name  string
		plan  interface{ SetMix(fakes.Mix) error }
		rates map[fakes.Fault]float64
	}{{"articles", st.Articles, mix.Articles}, {"llm", st.LLM, mix.LLM}, {"webhook", st.Webhook, mix.Webhook}} {
		if len(f.rates) == 0 {
			continue
		}
		if err := f.plan.SetMix(fakes.Mix{Seed: opts.Seed, Rates: f.rates, TransientCalls: 2}); err != nil {
			return Summary{}, fmt.Errorf("%s fault mix: %w", f.name, err)
		}
	}
	say("  · functions log to %s", logPath)

	say("\n== 1. the pipeline: %d stories through fetch → llm → notify under fault mix %q (seed %d) ==", opts.Items, opts.Faults, opts.Seed)
	if full {
		say("   the model chain is %s, %s, %s; %s answers only invalid JSON", badModel, goodModel, secondModel, badModel)
	}
	phaseStart := time.Now()
	ids, err := seed(ctx, st, "story", opts.Items)
	if err != nil {
		return Summary{}, err
	}
	say("seeded %d stories in %.1fs; the functions are already at work…", len(ids), time.Since(phaseStart).Seconds())
	pctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	settled := watch(pctx, st, ids, opts, phaseStart)
	if !settled && ctx.Err() == nil {
		devstack.DumpGoroutines(filepath.Join(opts.LogDir, "goroutines.txt"))
	}

	sum, serr := summarize(ctx, st, ids)
	sum.AWSCalls = calls.Snapshot()
	pc := st.PollerCounters()
	sum.Batches, sum.FunctionErrs = pc.Batches, pc.FunctionErrors
	printSummary(opts.Out, sum, time.Since(phaseStart))
	switch {
	case serr != nil:
		return sum, serr
	case !settled:
		return sum, fmt.Errorf("the pipeline did not settle within %v", opts.Timeout)
	case !sum.Conserved():
		return sum, errors.New("conservation check failed: see the summary")
	}
	c := newClaims(opts.Out, "phase 1 (the pipeline)")
	c.that(sum.ByState[work.Done]+sum.ByState[work.Deadletter] == sum.Seeded, "every story is done or dead-lettered (%d + %d of %d)",
		sum.ByState[work.Done], sum.ByState[work.Deadletter], sum.Seeded)
	c.that(sum.Conserved(), "one DLQ message per dead-lettered item, nothing in flight, nothing parked")
	c.that(sum.Told+sum.Refused == sum.OwnersToTell, "every owner who asked for item.failed was told, or their webhook refused it for good (%d told, %d refused, of %d)",
		sum.Told, sum.Refused, sum.OwnersToTell)
	if err := c.err(); err != nil {
		return sum, err
	}
	if !full {
		sum.Elapsed = time.Since(started)
		return sum, nil
	}

	say("\n== 2. model health: the bad model was disabled and the chain fell back ==")
	if err := modelHealth(ctx, opts.Out, st, ids); err != nil {
		return sum, err
	}

	say("\n== 3. a provider-wide outage of Bedrock: the chain moves to OpenAI, and back when Bedrock's breaker closes ==")
	burst, err := inPhase(ctx, func(ctx context.Context) ([]string, error) { return providerOutage(ctx, opts.Out, st, 10) })
	if err != nil {
		return sum, err
	}
	ids = append(ids, burst...)
	if err := showModels(ctx, opts.Out, st, nil); err != nil {
		return sum, err
	}

	say("\n== 4. an hour later: the recovery function re-enables the model ==")
	if err := recovery(ctx, opts.Out, st); err != nil {
		return sum, err
	}
	if err := showModels(ctx, opts.Out, st, nil); err != nil {
		return sum, err
	}

	say("\n== 5. the operator: dead letters by class, the upstreams fixed, a replay from the failed stage ==")
	if _, err := inPhase(ctx, func(ctx context.Context) ([]string, error) { return replayFixed(ctx, opts.Out, st, opts) }); err != nil {
		return sum, err
	}

	say("\n== 6. the owner of an action task: told of the retry, then of the outcome; the item's timeline ==")
	owners, err := inPhase(ctx, func(ctx context.Context) ([]string, error) { return ownerNotices(ctx, opts.Out, st) })
	if err != nil {
		return sum, err
	}
	ids = append(ids, owners...)

	final, err := summarize(ctx, st, ids)
	if err != nil {
		return sum, err
	}
	final.AWSCalls, final.Batches, final.FunctionErrs = sum.AWSCalls, sum.Batches, sum.FunctionErrs
	final.Elapsed = time.Since(started)
	say("\n== end: %d items in %.0fs ==", final.Seeded, final.Elapsed.Seconds())
	printConservation(opts.Out, final)
	if !final.Conserved() {
		return final, errors.New("conservation check failed at the end: see the summary")
	}
	return final, nil
}

// phaseTimeout bounds each phase after the first (whose bound is
// Options.Timeout), each on its own clock: a slow phase does not shorten
// the next.
const phaseTimeout = 2 * time.Minute

// inPhase runs a phase under its own phaseTimeout.
func inPhase(ctx context.Context, phase func(context.Context) ([]string, error)) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, phaseTimeout)
	defer cancel()
	return phase(ctx)
}

// seed submits the stories as a producer would: one message per item on
// the fetch queue (package intake); the fetch stage creates the items.
func seed(ctx context.Context, st *devstack.Stack, prefix string, n int) ([]string, error) {
	ids := make([]string, n)
	specs := make([]intake.Spec, n)
	for i := range n {
		id := fmt.Sprintf("%s-%04d", prefix, i+1)
		kind := store.KindStory
		switch {
		case i%10 == 9:
			kind = store.KindAction
		case i%7 == 6:
			kind = store.KindDocument
		}
		ids[i] = id
		specs[i] = intake.Spec{ItemID: id, Kind: kind, CorrelationID: "demo-" + id,
			SourceURL: st.ArticleServer.URL + "/articles/" + id, WebhookURL: st.HookServer.URL + "/hooks/demo"}
	}
	p := &intake.Producer{SQS: st.SQS, QueueURL: st.QueueURL(work.Fetch)}
	for _, r := range p.SubmitBatch(ctx, specs) {
		if r.Err != nil {
			return nil, fmt.Errorf("seed %s: %w", r.ItemID, r.Err)
		}
	}
	return ids, nil
}

// watch prints progress until every item is done or dead-lettered and the
// stage queues are empty, or ctx ends. It reports whether it settled.
func watch(ctx context.Context, st *devstack.Stack, ids []string, opts Options, start time.Time) bool {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastPrint := time.Time{}
	for {
		counts, err := stateCountsOf(ctx, st, ids)
		inFlight, qerr := st.QueueDepth(ctx, st.PipelineQueueURLs()...)
		if err == nil && qerr == nil {
			line := progressLine(counts, inFlight, len(ids), time.Since(start))
			switch {
			case opts.Interactive:
				fmt.Fprintf(opts.Out, "\r%-100s", line)
			case time.Since(lastPrint) >= 5*time.Second:
				fmt.Fprintln(opts.Out, line)
				lastPrint = time.Now()
			}
			if counts[work.Done]+counts[work.Deadletter] == len(ids) && inFlight == 0 {
				if opts.Interactive {
					fmt.Fprintln(opts.Out)
				}
				return true
			}
		}
		select {
		case <-ctx.Done():
			if opts.Interactive {
				fmt.Fprintln(opts.Out)
			}
			return false
		case <-tick.C:
		}
	}
}

func progressLine(c map[work.State]int, inFlight, total int, elapsed time.Duration) string {
	finished := c[work.Done] + c[work.Deadletter]
	filled := min(finished*30/max(total, 1), 30)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", 30-filled)
	return fmt.Sprintf("%5.1fs %s %3d/%d  done %d · dead %d · retrying %d · working %d · queued %d · in queues %d",
		elapsed.Seconds(), bar, finished, total, c[work.Done], c[work.Deadletter], c[work.Retryable]+c[work.Failed],
		c[work.Working], c[work.Queued], inFlight)
}

func summarize(ctx context.Context, st *devstack.Stack, ids []string) (Summary, error) {
	s := Summary{Seeded: len(ids), ByState: map[work.State]int{}, DeadLetters: map[string]int{},
		DLQMessages: map[work.Stage]int{}, Failures: map[work.Class]int{}, Retries: map[work.Class]int{},
		Waits: map[work.Class]int{}}
	for _, id := range ids {
		it, err := st.Items.Get(ctx, id)
		if err != nil {
			return s, err
		}
		s.ByState[it.State]++
		if it.State == work.Deadletter && it.DeadLetter != nil {
			s.DeadLetters[string(it.DeadLetter.Stage)+" "+string(it.DeadLetter.Class)]++
		}
		if it.State == work.Deadletter && it.NoticeChoices().Failed {
			s.OwnersToTell++
			key := notice.FailedKey(it.ID, it.ReplayCount)
			switch abandoned, err := noticeAbandoned(ctx, st, it.ID, key); {
			case err != nil:
				return s, err
			case st.Webhook.DeliveryCount(key) > 0:
				s.Told++
			case abandoned:
				s.Refused++
			}
		}
	}
	err := st.Scan(ctx, st.Info.Outputs["ErrorLogTableName"], "", nil, func(it map[string]dbtypes.AttributeValue) {
		class, decision := devstack.Str(it["error_class"]), devstack.Str(it["decision"])
		c := work.Class(class)
		s.Failures[c]++
		switch {
		case strings.Contains(decision, "is retryable"):
			s.Retries[c]++
		case strings.HasPrefix(decision, "wait"):
			s.Waits[c]++
		}
	})
	if err != nil {
		return s, err
	}
	for _, stg := range work.Stages() {
		n, err := st.QueueDepth(ctx, st.DLQURL(stg))
		if err != nil {
			return s, err
		}
		s.DLQMessages[stg] = n
	}
	if s.InFlight, err = st.QueueDepth(ctx, st.StageQueueURLs()...); err != nil {
		return s, err
	}
	err = st.Scan(ctx, st.Items.ParkedTable, "item_id", nil, func(map[string]dbtypes.AttributeValue) { s.Parked++ })
	return s, err
}

// noticeAbandoned reports whether the notice key's ledger entry says its
// delivery was given up: the webhook refused it for good.
func noticeAbandoned(ctx context.Context, st *devstack.Stack, itemID, key string) (bool, error) {
	trail := &ledger.Trail{DB: dynamodb.NewFromConfig(st.AWS), Table: st.Info.Outputs["AuditTableName"]}
	entries, err := trail.ForItem(ctx, itemID, 0)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.Notice != nil && e.Notice.Key == key && e.Notice.State == ledger.NoticeAbandoned {
			return true, nil
		}
	}
	return false, nil
}

func printSummary(w io.Writer, s Summary, pipelineTime time.Duration) {
	fmt.Fprintf(w, "\n== summary (pipeline settled in %.1fs, %d batches, %d function errors) ==\n\n",
		pipelineTime.Seconds(), s.Batches, s.FunctionErrs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITEMS BY STATE\tCOUNT")
	for _, st := range work.States() {
		if n := s.ByState[st]; n > 0 {
			fmt.Fprintf(tw, "%s\t%d\n", st, n)
		}
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAILURES BY CLASS\tFAILURES\tRETRIED\tWAITED")
	for _, c := range work.Classes() {
		if n := s.Failures[c]; n > 0 {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", c, n, s.Retries[c], s.Waits[c])
		}
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEAD LETTERS\tSTAGE\tCLASS\tITEMS")
	keys := make([]string, 0, len(s.DeadLetters))
	for k := range s.DeadLetters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		stg, class, _ := strings.Cut(k, " ")
		fmt.Fprintf(tw, "\t%s\t%s\t%d\n", stg, class, s.DeadLetters[k])
	}
	fmt.Fprintf(tw, "on the DLQs\tfetch %d · llm %d · notify %d\t\t\n", s.DLQMessages[work.Fetch], s.DLQMessages[work.LLM], s.DLQMessages[work.Notify])
	tw.Flush()
	if s.OwnersToTell > 0 {
		fmt.Fprintf(w, "owners told: %d of the %d dead-lettered items whose owner asked for item.failed (action tasks by default) received it at their webhook",
			s.Told, s.OwnersToTell)
		if s.Refused > 0 {
			fmt.Fprintf(w, "; %d webhooks refused it for good (the notice's ledger says abandoned)", s.Refused)
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintln(w)
	// Bedrock Runtime calls are model calls — the upstream, like the fake
	// OpenAI's — not the pipeline's own AWS requests.
	infra := map[string]int64{}
	for k, v := range s.AWSCalls {
		if !strings.HasPrefix(k, bedrockCalls) {
			infra[k] = v
		}
	}
	total := conf.Total(infra, "")
	fmt.Fprintf(w, "AWS requests by the functions: %d (%.1f per item)  %s\n", total, float64(total)/float64(max(s.Seeded, 1)),
		conf.Format(infra))
	if n := conf.Total(s.AWSCalls, bedrockCalls); n > 0 {
		fmt.Fprintf(w, "  and %d Bedrock Runtime Converse calls, the chain's model calls (not counted above)\n", n)
	}
	fmt.Fprintf(w, "  DynamoDB %.1f per item · SQS %.1f per item (the event-source mapping's receives and deletes are the Lambda service's, not counted)\n",
		float64(conf.Total(s.AWSCalls, "DynamoDB."))/float64(max(s.Seeded, 1)), float64(conf.Total(s.AWSCalls, "SQS."))/float64(max(s.Seeded, 1)))

	fmt.Fprintln(w)
	printConservation(w, s)
}

// printConservation prints seeded = done + dead-lettered, with the DLQ and
// in-flight counts.
func printConservation(w io.Writer, s Summary) {
	dlq := s.DLQMessages[work.Fetch] + s.DLQMessages[work.LLM] + s.DLQMessages[work.Notify]
	verdict := "OK"
	if !s.Conserved() {
		verdict = "VIOLATED"
	}
	fmt.Fprintf(w, "conservation: seeded %d = done %d + dead-lettered %d; DLQ messages %d; in flight %d; parked %d — %s\n",
		s.Seeded, s.ByState[work.Done], s.ByState[work.Deadletter], dlq, s.InFlight, s.Parked, verdict)
}
