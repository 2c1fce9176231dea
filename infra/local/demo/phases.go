package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/infra/local/devstack"
	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/replay"
	"github.com/triagehq/triage/shared/state"
)

// The model chain the demo deploys: a model that only ever answers invalid
// JSON first, a healthy one second.
const (
	badModel  = "bad-model"
	goodModel = "gpt-4o-mini"
)

// Compressed time for the demo: a breaker stays open seconds instead of 5
// minutes, and the recovery function runs "an hour later".
const (
	breakerThreshold   = breaker.DefaultThreshold
	demoBreakerOpenFor = 4 * time.Second
	demoRecoveryOffset = 61 * time.Minute
)

// showModels prints the model-health table and which model enriched the
// items.
func showModels(ctx context.Context, w io.Writer, st *devstack.Stack, ids []string) error {
	models, err := modelStore(st).List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tDISABLED\tCONSECUTIVE FAILURES\tDISABLES\tRECOVERIES\tLAST ERROR")
	for _, m := range models {
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%s\n", m.Name, m.Disabled, m.ConsecutiveFailures, m.Disables, m.Recoveries, m.LastErrorType)
	}
	tw.Flush()
	if ids == nil {
		return nil
	}
	by := map[string]int{}
	for _, id := range ids {
		it, err := st.Items.Get(ctx, id)
		if err != nil {
			return err
		}
		if it.Enrichment != nil {
			by[it.Enrichment.Model]++
		}
	}
	fmt.Fprintf(w, "enrichments by model: %s %d · %s %d (the chain skips a disabled model)\n", goodModel, by[goodModel], badModel, by[badModel])
	return nil
}

func modelStore(st *devstack.Stack) *health.Dynamo {
	return &health.Dynamo{DB: dynamodb.NewFromConfig(st.AWS), Table: st.Info.Outputs["ModelsTableName"]}
}

// outage takes the fake LLM down while a burst of stories arrives, watches
// the shared breaker open, probe and close, and reports what the outage
// cost: calls into it and attempts spent.
func outage(ctx context.Context, w io.Writer, st *devstack.Stack, n int, interactive bool) ([]string, error) {
	host := breaker.Host(st.Env["LLMFunc"]["LLM_BASE_URL"])
	breakers := &breaker.Dynamo{DB: dynamodb.NewFromConfig(st.AWS), Table: st.Info.Outputs["BreakersTableName"], ConsistentReads: true}
	// Only the outage fails calls in this phase, so attempts spent measure
	// the outage alone.
	if err := st.LLM.SetMix(fakes.Mix{}); err != nil {
		return nil, err
	}
	before := st.LLM.Stats().Statuses[503]
	st.LLM.SetOutage(true)
	fmt.Fprintf(w, "the LLM provider (%s) is down: every call answers 503\n", host)
	ids, err := seed(ctx, st, "burst", n)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var (
		last      breaker.State
		openedAt  time.Time
		restored  time.Time
		deadline  = time.Now().Add(90 * time.Second)
		lastPrint string
	)
	for time.Now().Before(deadline) {
		rec, err := breakers.Get(ctx, host)
		if err == nil && rec.State != orClosed(last) {
			line := fmt.Sprintf("  %5.1fs breaker %s → %s (opens %d)", time.Since(start).Seconds(), orClosed(last), rec.State, rec.Opens)
			if line != lastPrint {
				fmt.Fprintln(w, line)
				lastPrint = line
			}
			last = rec.State
			if rec.State == breaker.Open && openedAt.IsZero() {
				openedAt = time.Now()
			}
		}
		// Keep the provider down through a failed probe, then bring it back.
		if !openedAt.IsZero() && restored.IsZero() && time.Since(openedAt) > demoBreakerOpenFor+3*time.Second {
			st.LLM.SetOutage(false)
			restored = time.Now()
			fmt.Fprintf(w, "  %5.1fs the provider is back\n", time.Since(start).Seconds())
		}
		if !restored.IsZero() && last == breaker.Closed {
			c, err := stateCountsOf(ctx, st, ids)
			if err == nil && c[state.Done]+c[state.Deadletter] == len(ids) {
				break
			}
		}
		select {
		case <-ctx.Done():
			return ids, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	st.LLM.SetOutage(false)
	calls := st.LLM.Stats().Statuses[503] - before
	attempts, maxAttempts := 0, 0
	for _, id := range ids {
		it, err := st.Items.Get(ctx, id)
		if err != nil {
			return ids, err
		}
		a := it.Attempts[pipeline.LLM]
		attempts += a
		maxAttempts = max(maxAttempts, a)
	}
	fmt.Fprintf(w, "the outage cost %d calls into the dead provider for %d items: the breaker opened after %d consecutive failures;\n"+
		"the waiting items parked behind it, and the scheduler released one as the probe per half-open window, then the rest in a ramp;\n"+
		"llm attempts spent: %d in all, at most %d per item — the failures before the breaker opened; the one that opened it,\n"+
		"the failed probes and the waits spent none\n",
		calls, len(ids), breakerThreshold, attempts, maxAttempts)
	return ids, nil
}

func orClosed(s breaker.State) breaker.State {
	if s == "" {
		return breaker.Closed
	}
	return s
}

// stateCountsOf counts the states of the given items.
func stateCountsOf(ctx context.Context, st *devstack.Stack, ids []string) (map[state.State]int, error) {
	out := map[state.State]int{}
	for _, id := range ids {
		it, err := st.Items.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out[it.State]++
	}
	return out, nil
}

// recovery invokes the real recovery function, running an hour ahead, and
// prints what it reports.
func recovery(ctx context.Context, w io.Writer, st *devstack.Stack) error {
	ev := `{"version":"0","id":"demo","detail-type":"Scheduled Event","source":"aws.events","account":"123456789012","time":"` +
		time.Now().UTC().Format(time.RFC3339) + `","region":"us-east-1","resources":[],"detail":{}}`
	res, err := st.Lambda.Invoke(ctx, "RecoveryFunc", []byte(ev))
	if err != nil {
		return err
	}
	if res.FunctionError != nil {
		return fmt.Errorf("recovery function: %s: %s", res.FunctionError.Type, res.FunctionError.Message)
	}
	var out map[string]any
	_ = json.Unmarshal(res.Payload, &out)
	fmt.Fprintf(w, "RecoveryFunc (clock +%v) answered %s\n", demoRecoveryOffset, strings.TrimSpace(string(res.Payload)))
	return nil
}

// remediable are the classes the demo's operator replays once the upstreams
// are fixed: missing articles and channels restored, the bad model retired.
// CONTENT_POLICY and TOKEN_LIMIT need the input changed, so they stay.
var remediable = []failure.Class{failure.NotFound, failure.ResponseInvalid, failure.UpstreamUnavailable,
	failure.NetworkTimeout, failure.RateLimited}

// replayFixed lists the dead letters by class, fixes the fakes, replays the
// remediable ones from the stage that failed, and waits for them to finish.
func replayFixed(ctx context.Context, w io.Writer, st *devstack.Stack, watchOpts Options) ([]string, error) {
	queues := map[pipeline.Stage]replay.Queues{}
	for _, s := range pipeline.Stages() {
		queues[s] = replay.Queues{Queue: st.QueueURL(s), DLQ: st.DLQURL(s)}
	}
	r := &replay.Replayer{SQS: st.SQS, Items: st.Items, Queues: queues, PollWait: -1, DefaultBy: "oncall (demo)"}
	dls, err := r.List(ctx, replay.ListRequest{})
	if err != nil {
		return nil, err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEAD LETTERS BY CLASS\tCOUNT\tREPLAYED AFTER THE FIX")
	for _, c := range replay.CountByClass(dls) {
		fmt.Fprintf(tw, "%s\t%d\t%v\n", c.Class, c.Count, slices.Contains(remediable, c.Class))
	}
	tw.Flush()
	for _, p := range []interface{ SetFixed(bool) }{st.Articles, st.LLM, st.Webhook} {
		p.SetFixed(true)
	}
	fmt.Fprintln(w, "the operator fixes the upstreams (articles restored, channel recreated) and replays from the failed stage:")
	sum, err := r.Run(ctx, replay.Request{Filter: replay.Filter{ErrorClass: remediable},
		Note: "upstreams fixed in INC-1042; replaying from the failed stage", By: "oncall (demo)"})
	if err != nil {
		return nil, err
	}
	var ids []string
	resumed := map[pipeline.Stage]int{}
	for _, it := range sum.Items {
		if it.Action == replay.Replayed || it.Action == replay.Resent {
			ids = append(ids, it.ItemID)
			resumed[it.Target]++
		}
	}
	fmt.Fprintf(w, "replay: selected %d, replayed %d, skipped %d, errors %d; the others stay on their DLQs\n",
		sum.Selected, sum.Replayed, sum.Skipped, sum.Errors)
	fmt.Fprintf(w, "resumed at fetch %d · llm %d · notify %d (earlier stages are not run again)\n",
		resumed[pipeline.Fetch], resumed[pipeline.LLM], resumed[pipeline.Notify])
	if len(ids) == 0 {
		return nil, nil
	}
	watchOpts.Interactive = false
	if !watch(ctx, st, ids, watchOpts, time.Now()) {
		return ids, fmt.Errorf("replayed items did not finish")
	}
	c, err := stateCountsOf(ctx, st, ids)
	if err != nil {
		return ids, err
	}
	fmt.Fprintf(w, "replayed items: %d done, %d dead-lettered again\n", c[state.Done], c[state.Deadletter])
	return ids, nil
}
