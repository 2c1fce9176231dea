package soak

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// Record is a set of runs as the soak command saves them, so the report can
// be written again without running them again.
type Record struct {
	// Command is the command line that ran them.
	Command string
	// Options are the options of the first run (Seed aside, the runs share
	// them).
	Options Options
	Runs    []*Result
	// Notes is markdown added to the report under "Findings": what the
	// runs' violations were traced to. It belongs to these runs; a new run
	// starts without.
	Notes string `json:",omitempty"`
	// Fresh is true when every run's seed was drawn at random (triage-local
	// soak --fresh): seeds nobody tuned for.
	Fresh bool `json:",omitempty"`
}

// Print writes a run's summary: outcomes, the DLQ, what was injected, the
// secret search and the verdict with every violation's items.
func (r *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "\n== soak seed %d: %d items, pipeline %.1fs (wall %.1fs) ==\n", r.Seed, r.Items, r.Phase.Seconds(), r.Wall.Seconds())
	var states []string
	for _, s := range work.States() {
		if n := r.ByState[s]; n > 0 {
			states = append(states, fmt.Sprintf("%s %d", s, n))
		}
	}
	fmt.Fprintf(w, "items: %s · longest seed-to-finish %.0fs (%s; the scenario's longest wait is %v)\n",
		strings.Join(states, " · "), r.MaxLatency.Seconds(), r.MaxLatencyItem, r.LongestWait)
	if len(r.HandOffUnconfirmed) > 0 {
		fmt.Fprintf(w, "dead-lettered but left failed (the confirming write failed after the DLQ send): %s\n",
			strings.Join(r.HandOffUnconfirmed, "; "))
	}
	failedProbes, mostItem, most := 0, "", 0
	for _, id := range slices.Sorted(maps.Keys(r.FailedProbes)) {
		failedProbes += r.FailedProbes[id]
		if n := r.FailedProbes[id]; n > most {
			most, mostItem = n, id
		}
	}
	judged := slices.Sorted(maps.Keys(r.Judged))
	fmt.Fprintf(w, "breaker probes: %d failed, by %d items (most by one: %d%s); failures judged an item's own: %d%s\n",
		failedProbes, len(r.FailedProbes), most, itemsNote(nonEmpty(mostItem)), sumCounts(r.Judged), itemsNote(judged))
	fmt.Fprintf(w, "DLQs: %d messages, %d distinct dead letters, %d raw duplicates%s, %d not triage's\n",
		r.DLQ.Messages, r.DLQ.Distinct, r.DLQ.RawDuplicates, itemsNote(r.DLQ.DuplicateItems), r.DLQ.NotTriage)
	fmt.Fprintf(w, "dead letters: %s\n", formatCounts(r.DLQ.ByStageClass))
	fmt.Fprintf(w, "failures (error log): %s\n", formatCounts(r.Failures))
	fmt.Fprintf(w, "webhook: %d deliveries, %d repeated an idempotency key; %d done items answered 200-then-reset\n",
		r.Deliveries, r.DuplicateDeliveries, len(r.DeliveredByStatusOnly))
	n := r.Notices
	fmt.Fprintf(w, "owners: %d of %d dead-lettered items whose owner asked were told (item.failed), %d duplicate deliveries of one; "+
		"%d item.retry_scheduled received; ledger %s; action executions audited %s\n",
		n.Told, n.Owners, n.Duplicates, n.Retries, formatCounts(n.Ledger), formatCounts(n.Executions))
	fmt.Fprintf(w, "upstream faults: %s\n", formatCounts(r.Upstream))
	fmt.Fprintf(w, "AWS faults (of %s function requests): %s\n", formatCounts(r.AWSRequests), formatCounts(r.AWS))
	if r.DLQOutageAt >= 0 {
		fmt.Fprintf(w, "DLQ outage: %.1fs–%.1fs\n", r.DLQOutageAt.Seconds(), (r.DLQOutageAt + r.DLQOutageFor).Seconds())
	} else {
		fmt.Fprintln(w, "DLQ outage: never opened (no dead letter after its start)")
	}
	var kills []string
	for _, k := range r.Kills {
		mark := ""
		if k.Calling {
			mark = "*"
		}
		kills = append(kills, fmt.Sprintf("%s%s@%.1fs(%s)", k.Function, mark, k.At.Seconds(), k.Item))
	}
	fmt.Fprintf(w, "kills: %d (%s; * = seen calling an upstream); invocations ended by the kill: %d; function errors %d, timeouts %d, cold starts %d\n",
		len(r.Kills), strings.Join(kills, " "), r.MidBatch, r.FunctionErrors, r.Timeouts, r.ColdStarts)
	fmt.Fprintf(w, "duplicate deliveries sent: %s\n", formatCounts(r.Duplicates))
	fmt.Fprintf(w, "upstream calls: fetch %d · llm %d · notify %d; overlaps: %d cross-stage, %d same-stage\n",
		r.Calls[work.Fetch], r.Calls[work.LLM], r.Calls[work.Notify], len(r.CrossStage), len(r.SameStage))
	if len(r.DisabledModels) > 0 {
		fmt.Fprintf(w, "models auto-disabled: %s\n", strings.Join(r.DisabledModels, ", "))
	}
	if r.Secrets > 0 {
		fmt.Fprintf(w, "secrets: %d planted (%d search strings) in %d items; searched %s, also with gitleaks' default rules; found %d\n",
			r.Secrets, r.SecretNeedles, len(r.PlantedItems), formatCounts(r.Searched), len(r.Leaks))
	}
	for _, e := range r.SetupErrors {
		fmt.Fprintf(w, "setup error: %s\n", e)
	}
	if r.OK() {
		fmt.Fprintln(w, "verdict: OK — every item done or dead-lettered exactly once, DLQs one to one, nothing stuck, no overlaps")
		return
	}
	fmt.Fprintf(w, "verdict: %d VIOLATIONS\n", len(r.Violations))
	for _, v := range r.Violations {
		fmt.Fprintf(w, "  - %s", v.Kind)
		if v.Detail != "" {
			fmt.Fprintf(w, ": %s", v.Detail)
		}
		if len(v.Items) > 0 {
			fmt.Fprintf(w, " [%d]: %s", len(v.Items), strings.Join(v.Items, "; "))
		}
		fmt.Fprintln(w)
	}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func itemsNote(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return " (" + strings.Join(items, ", ") + ")"
}

// formatCounts renders "k=v" pairs sorted by key; "none" when empty.
func formatCounts[V int | int64](m map[string]V) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// Totals sums several runs.
type Totals struct {
	Runs, Items, Done, DeadLettered, HandOffUnconfirmed, Lost, Violations int
	DLQMessages, DistinctDeadLetters, RawDuplicates                       int
	Kills, MidBatch, Duplicates, CrossStage, SameStage                    int
	Leaks, LogLines, DLQPayloads, ErrorLogEntries                         int
	Deliveries, DuplicateDeliveries, AWSRequests, ModelsDisabled          int
	Owners, Told, DuplicateNotices, RetryNotices, NoticeBodies, AuditRecs int
	AWS, Upstream, Failures                                               map[string]int
	Wall, MaxLatency                                                      time.Duration
}

// Sum totals runs.
func Sum(runs []*Result) Totals {
	t := Totals{AWS: map[string]int{}, Upstream: map[string]int{}, Failures: map[string]int{}}
	for _, r := range runs {
		t.Runs++
		t.Items += r.Items
		t.Done += r.ByState[work.Done]
		t.DeadLettered += r.DeadLettered()
		t.HandOffUnconfirmed += len(r.HandOffUnconfirmed)
		t.Lost += r.Lost()
		t.Violations += len(r.Violations)
		t.DLQMessages += r.DLQ.Messages
		t.DistinctDeadLetters += r.DLQ.Distinct
		t.RawDuplicates += r.DLQ.RawDuplicates
		t.Kills += len(r.Kills)
		t.MidBatch += r.MidBatch
		for _, n := range r.Duplicates {
			t.Duplicates += n
		}
		t.CrossStage += len(r.CrossStage)
		t.SameStage += len(r.SameStage)
		t.Leaks += len(r.Leaks)
		t.LogLines += r.Searched[CorpusLogs]
		t.DLQPayloads += r.Searched[CorpusDLQ]
		t.ErrorLogEntries += r.Searched[CorpusErrorLog]
		t.Deliveries += r.Deliveries
		t.ModelsDisabled += len(r.DisabledModels)
		t.DuplicateDeliveries += r.DuplicateDeliveries
		t.Owners += r.Notices.Owners
		t.Told += r.Notices.Told
		t.DuplicateNotices += r.Notices.Duplicates
		t.RetryNotices += r.Notices.Retries
		t.NoticeBodies += r.Searched[CorpusNotices]
		t.AuditRecs += r.Searched[CorpusAudit]
		for k, v := range r.AWS {
			t.AWS[k] += v
		}
		for k, v := range r.Upstream {
			t.Upstream[k] += v
		}
		for k, v := range r.Failures {
			t.Failures[k] += v
		}
		for _, v := range r.AWSRequests {
			t.AWSRequests += v
		}
		t.Wall += r.Wall
		t.MaxLatency = max(t.MaxLatency, r.MaxLatency)
	}
	return t
}

// WriteReport writes the markdown report of the runs: the command, the
// fault model, one row per run, totals, the duplicates explained, the
// violations with their items, and the notes.
func (rec Record) WriteReport(w io.Writer) {
	command, opts, runs := rec.Command, rec.Options.withDefaults(), rec.Runs
	t := Sum(runs)
	a := *opts.AWS
	verdict := "no violation"
	if t.Violations > 0 {
		verdict = fmt.Sprintf("%d violations (see the runs below)", t.Violations)
	}
	fmt.Fprintf(w, "# Reliability: the soak\n\n")
	fmt.Fprintf(w, "Generated by `%s` (%s). Do not edit by hand: rerun the command.\n\n", command, time.Now().UTC().Format("2006-01-02"))
	seeded := "seeded runs"
	if rec.Fresh {
		seeded = "runs on fresh random seeds"
	}
	fmt.Fprintf(w, "**%d %s of %d items: %d items lost, %d planted secrets found, %s.** "+
		"%d items done, %d dead-lettered; %d DLQ messages for %d distinct dead letters (%d raw duplicates of one dead-letter event); "+
		"%d bootstrap processes killed, %d duplicate envelopes sent; wall time %s.\n\n",
		t.Runs, seeded, opts.Items, t.Lost, t.Leaks, verdict, t.Done, t.DeadLettered, t.DLQMessages, t.DistinctDeadLetters, t.RawDuplicates,
		t.Kills, t.Duplicates, t.Wall.Round(time.Second))

	fmt.Fprintf(w, "## What a run does\n\n")
	fmt.Fprintf(w, "`triage-local soak` (`make soak`, package `dev/soak`) runs the local pipeline — moto, the stack from "+
		"template.yaml, the real fetch/llm/notify bootstrap binaries behind the local Lambda Runtime API, the SQS event-source "+
		"pollers, the fakes — with %d items seeded in waves of %d, under these seeded faults:\n\n", opts.Items, opts.Wave)
	fmt.Fprintf(w, "| fault | model | seeded parameters |\n|---|---|---|\n")
	fmt.Fprintf(w, "| upstream errors | the fakes' seeded mixes on articles, LLM and webhook (`soak.DefaultMixes`), plus answers the fakes lack "+
		"(`soak.DefaultExtraFaults`: article 300 → UNKNOWN, webhook 409 → CONFLICT, model API 301 → INTERNAL_BUG) | %s |\n", mixSummary(*opts.Mixes, opts.Extra))
	fmt.Fprintf(w, "| DynamoDB and SQS errors | a second `moto.Front` in front of the harness's, used by the functions only, answers with AWS's error shapes: "+
		"ProvisionedThroughputExceededException/ThrottlingException (400), InternalServerError (500); SQS RequestThrottled (403), InternalError (500), "+
		"ServiceUnavailable (503) with `X-Amzn-Query-Error` | %.0f%% of attempts; %.0f%% of operations refused on every attempt (the error reaches the handler) |\n",
		a.AttemptRate*100, a.OperationRate*100)
	fmt.Fprintf(w, "| lost responses | a write is forwarded to moto and applied, then the connection is closed: the SDK retries a write that happened "+
		"(the stores' idempotency tokens; a DLQ send sent twice) | %.0f%% of writes |\n", a.DropRate*100)
	fmt.Fprintf(w, "| DLQ outage | every SendMessage to a DLQ answers InternalError | for %v from the first dead letter %v into the run |\n",
		a.DLQOutageFor, a.DLQOutageAfter)
	fmt.Fprintf(w, "| crashes | SIGKILL of the bootstrap process making an upstream call of a seeded stage, before the fake answers — after "+
		"the record's claim, before its outcome (the process is found among `lambda.Service.PIDs` by its socket to the fake); the "+
		"local Lambda service restarts environments and the batch comes back after the queue's visibility timeout | up to %d per run, "+
		"every %v on average |\n", opts.Kills, opts.KillEvery)
	fmt.Fprintf(w, "| duplicate deliveries | the item's envelope sent again with a new message id, for its current stage (⅔) or the one before (⅓) | "+
		"%.0f%% of items, within %v of their wave |\n", opts.DuplicateRate*100, opts.DuplicateWithin)
	if opts.Outage > 0 {
		fmt.Fprintf(w, "| provider outage | every call to the fake LLM answers 503; the breaker opens, the waiting items park, the scheduler "+
			"probes and then releases them in a ramp | %v from %v into the run, with the stage queues' backstop at %d receives |\n",
			opts.Outage, opts.OutageAt, opts.Backstop)
	}
	fmt.Fprintf(w, "| input | an item whose article is an empty document → SCHEMA_INVALID | %d per run |\n", opts.SchemaInvalid)
	if opts.ActionFailures > 0 {
		fmt.Fprintf(w, "| ACTION_FAILED | action items whose first model answer reports `ACTION_OUTCOME: failed`: the standard profile waits a fixed 2 minutes | %d per run |\n",
			opts.ActionFailures)
	}
	fmt.Fprintf(w, "| planted secrets | tokens in source URLs, a Slack-style path secret in webhook URLs, an API key, email, card number, JWT, GitLab and "+
		"DigitalOcean tokens in the articles (prompts), upstream error bodies echoing a bearer token, the full API key, a Slack bot token, "+
		"the GitLab and DigitalOcean tokens; searched in every function "+
		"log line, every DLQ payload, every error-log entry, every notice the webhook received and every audit record, which gitleaks' "+
		"detector (default rules) also scans | 11 items per run |\n\n")

	fmt.Fprintf(w, "Time is compressed so a run takes minutes: the functions' timeouts are %v (template: 30/90/30 s) and the stage queues' "+
		"visibility timeout %v (template: 180/540 s), set with SetQueueAttributes after the stack is created. The invariant that matters "+
		"is kept: a lease lasts until the invocation's deadline plus the runner's 3 s safety margin (%v from the invocation's start), "+
		"which is less than the visibility timeout less the 1 s batching window, so a message never becomes visible again while the "+
		"delivery that received it may still hold the item. The LLM provider is down for %v, from %v into the pipeline phase, and the "+
		"stage queues' redrive backstop is %d receives: a wait held in its queue at each breaker window would cross it; waits park, "+
		"and the scheduler runs every %v. The breakers stay open %v instead of 5 minutes, and a record whose store write fails "+
		"holds so that its deliveries before the backstop's last span %v instead of 15 minutes; fakes' hangs last %v, longer "+
		"than a function's deadline, so a hung upstream ends as a NETWORK_TIMEOUT of the work's context. Left out: the provider's "+
		"insufficient_quota (BUDGET_EXCEEDED waits an hour in the standard profile) and the daily budget (a wait until 00:00 UTC); "+
		"INTERNAL_BUG from a panic has its own tests. The scenario's longest wait is %v (%s).\n\n",
		opts.FunctionTimeout, opts.Visibility, opts.FunctionTimeout+3*time.Second, opts.Outage, opts.OutageAt, opts.Backstop,
		DefaultSchedule, DefaultBreakerOpenFor, DefaultStoreOutageTolerance, DefaultMaxHang,
		opts.LongestWait(), longestWaitWhy(opts))

	fmt.Fprintf(w, "## Checks\n\n")
	fmt.Fprintf(w, "A run ends when every item is done or dead-lettered and the stage queues are empty (or when the queues are empty and "+
		"items are not — lost — for longer than the longest wait, or at the timeout: 3 minutes plus 1 s per item, plus 2 minutes with "+
		"ACTION_FAILED, plus the outage). Then, with the injector off:\n\n"+
		"- every seeded item is `done` (and its webhook received it) or `deadletter`; an item left `failed` with its one dead "+
		"letter on the DLQ is counted as dead-lettered and is a violation (its hand-off was never confirmed); nothing is left "+
		"`queued`, `working` or `retryable`, no message is in a stage queue, nothing is parked;\n"+
		"- no item was the failed probe of its upstream's breaker more than the standard profile lets one item be the probe "+
		"(5 times: docs/design.md \"A failure that follows one item\");\n"+
		"- the DLQs are drained: every distinct `sanitized_context.dead_letter_id` belongs to one dead-lettered item and matches its "+
		"`dead_letter` (id and stage), every dead-lettered item has exactly one, no item has two, no raw backstop message;\n"+
		"- the fakes' handlers are wrapped to follow calls in flight per item (article id, `X-Triage-Item-Id`, `Idempotency-Key`): no "+
		"call for an item may start while a call for it at another stage — or at the same stage — is running;\n"+
		"- every dead-lettered item whose owner asked for `item.failed` (action tasks by default; a seeded quarter of them opt out, "+
		"a tenth of the stories opt in) has it at its webhook, under its one idempotency key; no item that did not ask, or was not "+
		"dead-lettered, has one; the notice queue is empty;\n"+
		"- no planted secret (exact value or a distinctive fragment) in a log line, a DLQ payload, an error-log entry, a notice the "+
		"webhook received or an audit record.\n\n")

	fmt.Fprintf(w, "## Runs\n\n")
	fmt.Fprintf(w, "| seed | done | dead-lettered (left failed) | lost | DLQ msgs | distinct | raw dups | violations | AWS faults | "+
		"upstream faults | kills (invocations ended) | dup envelopes | overlaps | secrets found | models disabled | longest item | wall |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		dups := 0
		for _, n := range r.Duplicates {
			dups += n
		}
		models := "—"
		if len(r.DisabledModels) > 0 {
			models = strings.Join(r.DisabledModels, ", ")
		}
		fmt.Fprintf(w, "| %d | %d | %d (%d) | %d | %d | %d | %d | %d | %d | %d | %d (%d) | %d | %d | %d | %s | %.0fs | %.0fs |\n",
			r.Seed, r.ByState[work.Done], r.DeadLettered(), len(r.HandOffUnconfirmed), r.Lost(), r.DLQ.Messages, r.DLQ.Distinct,
			r.DLQ.RawDuplicates, len(r.Violations), sumCounts(r.AWS)-r.AWS[FaultOperationRefused], sumCounts(r.Upstream),
			len(r.Kills), r.MidBatch, dups, len(r.CrossStage)+len(r.SameStage), len(r.Leaks), models, r.MaxLatency.Seconds(), r.Wall.Seconds())
	}
	fmt.Fprintf(w, "| **all** | %d | %d (%d) | **%d** | %d | %d | %d | %d | %d | %d | %d (%d) | %d | %d | **%d** | %d | %.0fs | %s |\n\n",
		t.Done, t.DeadLettered, t.HandOffUnconfirmed, t.Lost, t.DLQMessages, t.DistinctDeadLetters, t.RawDuplicates, t.Violations,
		sumCounts(t.AWS)-t.AWS[FaultOperationRefused], sumCounts(t.Upstream), t.Kills, t.MidBatch, t.Duplicates,
		t.CrossStage+t.SameStage, t.Leaks, t.ModelsDisabled, t.MaxLatency.Seconds(), t.Wall.Round(time.Second))
	fmt.Fprintf(w, "Secrets: %d planted per run (%d search strings) in %d items; searched %d function log lines, %d DLQ payloads, "+
		"%d error-log entries, %d notice bodies and %d audit records in all; found %d.\n\n", secretCount(runs), needleCount(runs), plantedCount(runs), t.LogLines,
		t.DLQPayloads, t.ErrorLogEntries, t.NoticeBodies, t.AuditRecs, t.Leaks)
	fmt.Fprintf(w, "Owners: %d dead-lettered items whose owner asked for `item.failed`, %d told at their webhook; %d deliveries repeated "+
		"a notice's idempotency key; %d `item.retry_scheduled` received.\n\n", t.Owners, t.Told, t.DuplicateNotices, t.RetryNotices)

	fmt.Fprintf(w, "## Faults injected, all runs\n\n")
	fmt.Fprintf(w, "AWS, between the functions and moto (of %d function requests):\n\n| kind | count |\n|---|---|\n", t.AWSRequests)
	for _, k := range AWSFaultKinds() {
		fmt.Fprintf(w, "| %s | %d |\n", k, t.AWS[k])
	}
	fmt.Fprintf(w, "\nUpstream, as the fakes answered them:\n\n| fake fault | count |\n|---|---|\n")
	for _, k := range slices.Sorted(maps.Keys(t.Upstream)) {
		fmt.Fprintf(w, "| %s | %d |\n", k, t.Upstream[k])
	}
	fmt.Fprintf(w, "\nFailures as triage classified them (error log, every attempt):\n\n| stage class | failures |\n|---|---|\n")
	for _, k := range slices.Sorted(maps.Keys(t.Failures)) {
		fmt.Fprintf(w, "| %s | %d |\n", k, t.Failures[k])
	}

	fmt.Fprintf(w, "\n## Duplicates, explained\n\n")
	fmt.Fprintf(w, "- **Raw DLQ duplicates: %d** (%d dead letters on the DLQs, %d distinct). The hand-off is at least once by design "+
		"(docs/design.md, \"Dead letters\"): the runner sends the dead letter, then confirms it on the item. When the send's response "+
		"is lost (the injector dropped %d DLQ sends after moto had stored them), the SDK sends again; when a process dies between the send "+
		"and the confirmation, the next delivery finds the item `failed` and completes the hand-off. Both copies carry the same "+
		"`dead_letter_id`, so consumers drop them; the check above is one to one on distinct ids.\n",
		t.RawDuplicates, t.DLQMessages, t.DistinctDeadLetters, t.AWS[FaultDLQDropped])
	fmt.Fprintf(w, "- **Webhook deliveries repeating an idempotency key: %d** of %d. Notify is at least once too: a delivery whose "+
		"success was not recorded (a lost DynamoDB response, a killed process) is sent again with the same `Idempotency-Key`, which "+
		"receivers deduplicate on.\n", t.DuplicateDeliveries, t.Deliveries)
	fmt.Fprintf(w, "- **Duplicate envelopes sent by the soak: %d.** The claim absorbs them without a second upstream call in flight "+
		"(a duplicate of finished work, of work in progress, or of a cooldown carried by another message); the overlap check "+
		"above would flag one that got through.\n", t.Duplicates)
	fmt.Fprintf(w, "- **Dead-lettered items left `failed`: %d.** When the write that confirms the hand-off on the item "+
		"(failed → deadletter) fails after the send, the runner keeps the record and its redelivery sends the same dead letter "+
		"and confirms it (docs/design.md \"Dead letters\"); an item still `failed` at the end with its dead letter on the DLQ "+
		"is a violation.\n", t.HandOffUnconfirmed)
	fmt.Fprintf(w, "- **Done items whose webhook answered a 200 status line and then reset the connection: %d.** The fake "+
		"records no delivery for its `reset` fault, but it sent `200 OK`; notify takes the status as the answer, by design.\n",
		deliveredByStatus(runs))

	var bad []*Result
	for _, r := range runs {
		if !r.OK() {
			bad = append(bad, r)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "\n## Violations\n\n")
		fmt.Fprintf(w, "Each run leaves `.build/soak/functions-<seed>.log` (every function log line) and "+
			"`.build/soak/aws-faults-<seed>.log` (every injected AWS fault, with the SDK attempt, the operation's invocation id "+
			"and the item): `grep '\"item-0042\"'` in the first and `grep item-0042` in the second tell an item's story.\n\n")
		for _, r := range bad {
			fmt.Fprintf(w, "Seed %d (reproduce: `triage-local soak --items %d --seed %d`):\n\n", r.Seed, r.Items, r.Seed)
			for _, v := range r.Violations {
				fmt.Fprintf(w, "- %s", v.Kind)
				if v.Detail != "" {
					fmt.Fprintf(w, ": %s", v.Detail)
				}
				if len(v.Items) > 0 {
					fmt.Fprintf(w, " — %s", strings.Join(v.Items, "; "))
				}
				fmt.Fprintln(w)
			}
			for _, e := range r.SetupErrors {
				fmt.Fprintf(w, "- setup error: %s\n", e)
			}
			fmt.Fprintln(w)
		}
	}
	if strings.TrimSpace(rec.Notes) != "" {
		fmt.Fprintf(w, "\n## Findings\n\n%s\n", strings.TrimSpace(rec.Notes))
	}
}

func longestWaitWhy(o Options) string {
	if o.ActionFailures > 0 {
		return "the fixed ACTION_FAILED delay of the standard profile"
	}
	return "a killed batch: its messages' visibility timeout, then the rest of the dead invocation's lease"
}

func mixSummary(m Mixes, extra []ExtraFault) string {
	part := func(name string, rates map[string]float64) string {
		keys := slices.Sorted(maps.Keys(rates))
		var b []string
		for _, k := range keys {
			b = append(b, fmt.Sprintf("%s %.3g", k, rates[k]))
		}
		return name + ": " + strings.Join(b, ", ")
	}
	var parts []string
	for _, f := range []struct {
		name  string
		rates map[string]float64
	}{{"articles", strRates(m.Articles)}, {"llm", strRates(m.LLM)}, {"webhook", strRates(m.Webhook)}} {
		parts = append(parts, part(f.name, f.rates))
	}
	var ex []string
	for _, e := range extra {
		kind := "first call"
		if e.Sticky {
			kind = "every call"
		}
		ex = append(ex, fmt.Sprintf("%s %s %.3g (%s)", e.Fake, e.Name, e.Rate, kind))
	}
	sort.Strings(ex)
	return strings.Join(parts, "; ") + "; extra: " + strings.Join(ex, ", ") +
		" — sticky faults (permanent, always:) per key, the others per call for a key's first 2 calls"
}

func strRates[F ~string](in map[F]float64) map[string]float64 {
	out := make(map[string]float64, len(in))
	for k, v := range in {
		out[string(k)] = v
	}
	return out
}

func deliveredByStatus(runs []*Result) int {
	n := 0
	for _, r := range runs {
		n += len(r.DeliveredByStatusOnly)
	}
	return n
}

func secretCount(runs []*Result) int {
	if len(runs) == 0 {
		return 0
	}
	return runs[0].Secrets
}

func needleCount(runs []*Result) int {
	if len(runs) == 0 {
		return 0
	}
	return runs[0].SecretNeedles
}

func plantedCount(runs []*Result) int {
	if len(runs) == 0 {
		return 0
	}
	return len(runs[0].PlantedItems)
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
