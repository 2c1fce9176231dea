package soak

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/work"
)

// shortOptions is the soak that `make test` runs: 36 items in one wave, every
// fault kind — upstream errors, DynamoDB and SQS errors and throttles, lost
// responses, a DLQ outage, kills, duplicate deliveries — and the planted
// secrets. Rates are higher than the default scenario's so that each kind
// occurs in a run this short; the two-minute ACTION_FAILED wait is left to
// the long runs. The functions' timeouts and the queues' visibility are the
// long runs' (12 s and 18 s). With 8 s and 12 s, runs under load sometimes
// left a first batch whose flush the deadline cut stranded in moto for over
// a minute (docs/reliability-findings.md); a run that does not settle saves
// moto's state and the harness's goroutines next to its logs. A run takes
// 30–70 s; the 4-minute timeout bounds a stuck one (2 min 10 s once cut a
// fresh seed whose killed notice came back late on a loaded machine,
// docs/reliability-findings.md).
func shortOptions(t *testing.T) Options {
	return Options{
		Items: 36, Seed: shortSeed, Wave: 36, Secrets: true, Timeout: 4 * time.Minute,
		// The LLM provider down for 30 s: a wait held in its queue would be
		// received at every 3 s breaker window, past the backstop of 8.
		Outage: 30 * time.Second, OutageAt: 4 * time.Second,
		AWS: &AWSFaults{AttemptRate: 0.08, OperationRate: 0.015, DropRate: 0.03, DLQOutageAfter: 2 * time.Second,
			DLQOutageFor: 6 * time.Second, EveryKind: true},
		Kills: 2, KillEvery: 3 * time.Second, DuplicateRate: 0.15, DuplicateWithin: 8 * time.Second,
		LogDir: localtest.KeptDir(t, "triage-soak-"), BuildDir: buildDir(t),
	}
}

// buildDir keeps the test's bootstraps apart from .build/soak, which a
// `make soak` running at the same time executes.
func buildDir(t *testing.T) string {
	root, err := devstack.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, ".build", "soak-test")
}

func requireLocalAWS(t *testing.T) {
	t.Helper()
	localtest.Require(t, "moto_server", moto.InstallHint)
}

// shortSeed is the short soak's fixed seed: its fault rates were chosen so
// that every kind occurs in a run of 36 items.
const shortSeed = 7

// freshSeedEnv names the short soak's fresh seed to rerun it (a failing
// run's subtest is named by its seed).
const freshSeedEnv = "SOAK_FRESH_SEED"

// TestShortSoak runs the short soak on its fixed seed and, at the same
// time, on a fresh seed drawn for this run (SOAK_FRESH_SEED reruns one): a
// seed nobody tuned the code or its timings for. Both are checked for the
// conservation invariants and that no planted secret reached a log line, a
// DLQ payload or the error log; the fixed seed, whose rates were chosen for
// it, also that every fault kind was injected. The runs mostly wait (the
// outage, the breakers' windows), so two at once take about as long as one.
func TestShortSoak(t *testing.T) {
	requireLocalAWS(t)
	fresh := FreshSeed()
	if s := os.Getenv(freshSeedEnv); s != "" {
		var err error
		if fresh, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", freshSeedEnv, s, err)
		}
	}
	t.Logf("seeds: fixed %d, fresh %d (rerun the fresh one: %s=%d go test -run TestShortSoak ./dev/soak/)",
		shortSeed, fresh, freshSeedEnv, fresh)
	t.Run(fmt.Sprintf("seed=%d", shortSeed), func(t *testing.T) {
		t.Parallel()
		shortSoak(t, shortOptions(t), true)
	})
	t.Run(fmt.Sprintf("fresh_seed=%d", fresh), func(t *testing.T) {
		t.Parallel()
		opts := shortOptions(t)
		opts.Seed = fresh
		shortSoak(t, opts, false)
	})
}

// shortSoak runs one short soak and checks its result; every fault kind and
// the owners' notices are required of a tuned seed only.
func shortSoak(t *testing.T, opts Options, tuned bool) {
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	var out bytes.Buffer
	opts.Out = &out
	res, err := Run(ctx, opts)
	if err != nil {
		t.Fatalf("soak: %v\n%s", err, out.String())
	}
	var summary bytes.Buffer
	res.Print(&summary)
	t.Log(summary.String())
	if !res.OK() {
		t.Log(out.String())
	}

	t.Run("conservation", func(t *testing.T) {
		for _, v := range res.Violations {
			if v.Kind == ViolationSecret {
				continue
			}
			t.Errorf("%s: %s %s", v.Kind, v.Detail, strings.Join(v.Items, "; "))
		}
		if n := res.ByState[work.Done] + res.DeadLettered(); n != opts.Items {
			t.Errorf("%d of %d items finished: %v", n, opts.Items, res.ByState)
		}
		if res.DLQ.Distinct != res.DeadLettered() {
			t.Errorf("%d distinct dead letters on the DLQs for %d dead-lettered items", res.DLQ.Distinct, res.DeadLettered())
		}
		if res.DLQ.Messages != res.DLQ.Distinct+res.DLQ.RawDuplicates+res.DLQ.NotTriage {
			t.Errorf("DLQ accounting: %+v", res.DLQ)
		}
	})

	t.Run("every fault kind", func(t *testing.T) {
		if !tuned {
			t.Skip("a fresh seed's rates were not chosen for a run this short")
		}
		kinds := map[string]int{
			"article faults": prefixSum(res.Upstream, "articles "), "llm faults": prefixSum(res.Upstream, "llm "),
			"webhook faults":                      prefixSum(res.Upstream, "webhook "),
			FaultDynamoThroughput:                 res.AWS[FaultDynamoThroughput],
			FaultDynamoThrottling:                 res.AWS[FaultDynamoThrottling],
			FaultDynamoInternal:                   res.AWS[FaultDynamoInternal],
			FaultSQSThrottled:                     res.AWS[FaultSQSThrottled],
			FaultSQSInternal:                      res.AWS[FaultSQSInternal],
			FaultSQSUnavailable:                   res.AWS[FaultSQSUnavailable],
			"operations refused on every attempt": res.AWS[FaultOperationRefused],
			"writes applied, response dropped":    res.AWS[FaultDynamoDropped] + res.AWS[FaultSQSDropped] + res.AWS[FaultDLQDropped],
			"DLQ outage refusals":                 res.AWS[FaultDLQOutage],
			"kills mid-invocation":                res.MidBatch,
			"duplicate deliveries":                res.Duplicates["current stage"] + res.Duplicates["earlier stage"],
			"dead letters":                        res.DLQ.Distinct,
			"retried failures":                    len(res.Failures),
		}
		for kind, n := range kinds {
			if n == 0 {
				t.Errorf("no %s in the short soak (seed %d): raise its rate", kind, opts.Seed)
			}
		}
	})

	t.Run("killed invocations are in the log", func(t *testing.T) {
		// A post-mortem starts from the log: each invocation a kill ended
		// is a failed batch the poller logged, with the records it kept.
		b, err := os.ReadFile(res.FunctionLog)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "[poller ") && strings.Contains(line, `"batch failed"`) &&
				strings.Contains(line, "Runtime.ExitError") {
				n++
			}
		}
		if n != res.MidBatch {
			t.Errorf("%d failed batches with Runtime.ExitError logged by the pollers, %d invocations ended by a kill", n, res.MidBatch)
		}
	})

	t.Run("owners told", func(t *testing.T) {
		// The conservation subtest holds the violations (not told, told
		// unasked); here, that the case happened at all.
		if !tuned {
			t.Skip("a fresh seed's items may have no owner to tell")
		}
		n := res.Notices
		t.Logf("%d dead-lettered items whose owner asked for item.failed, %d told, %d duplicate deliveries; %d item.retry_scheduled; ledger %v; executions %v",
			n.Owners, n.Told, n.Duplicates, n.Retries, n.Ledger, n.Executions)
		if n.Owners == 0 || n.Told != n.Owners || n.Retries == 0 || n.Executions["success"] == 0 {
			t.Errorf("owners %d, told %d, retry notices %d, executions %v: every case must occur", n.Owners, n.Told, n.Retries, n.Executions)
		}
	})

	t.Run("no planted secret leaks", func(t *testing.T) {
		t.Logf("searched %d function log lines, %d DLQ payloads, %d error-log entries, %d notice bodies and %d audit records for %d secrets (%d strings) planted in %d items",
			res.Searched[CorpusLogs], res.Searched[CorpusDLQ], res.Searched[CorpusErrorLog], res.Searched[CorpusNotices], res.Searched[CorpusAudit],
			res.Secrets, res.SecretNeedles, len(res.PlantedItems))
		if res.Searched[CorpusLogs] == 0 || res.Searched[CorpusDLQ] == 0 || res.Searched[CorpusErrorLog] == 0 ||
			res.Searched[CorpusNotices] == 0 || res.Searched[CorpusAudit] == 0 || res.Secrets == 0 {
			t.Fatalf("nothing searched: %v", res.Searched)
		}
		for _, l := range res.Leaks {
			t.Errorf("%s (%s) found in %s: %s", l.Secret, l.Needle, l.Corpus, l.Where)
		}
		// The planted items must have reached the error paths the secrets
		// are meant to travel: dead letters at every stage.
		for _, stage := range []string{"fetch ", "llm ", "notify "} {
			if prefixSum(res.DLQ.ByStageClass, stage) == 0 {
				t.Errorf("no dead letter at %s: the planted error bodies did not reach a DLQ", strings.TrimSpace(stage))
			}
		}
	})
}

func prefixSum(m map[string]int, prefix string) int {
	n := 0
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}
