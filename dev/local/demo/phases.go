package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/work"
)

// The model chain the demo deploys, across two providers: a Bedrock model
// that only ever answers invalid JSON, a healthy Bedrock model, and OpenAI
// behind them.
var (
	badModel    = fallback.Entry{Provider: failure.Bedrock, Model: "acme.bad-model-v1:0"}
	goodModel   = fallback.Entry{Provider: failure.Bedrock, Model: "anthropic.claude-3-5-haiku-20241022-v1:0"}
	secondModel = fallback.Entry{Provider: failure.OpenAI, Model: "gpt-4o-mini"}
)

// Compressed time for the demo: a breaker stays open seconds instead of 5
// minutes, and the recovery function runs "an hour later".
const (
	breakerThreshold   = breaker.DefaultThreshold
	demoBreakerOpenFor = 4 * time.Second
	demoRecoveryOffset = 61 * time.Minute
)

// showModels prints what `triage models list` shows — each model's health,
// then each provider's breaker — and which model enriched the items.
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
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tBREAKER\tFAILURES\tOPENS\tLAST ERROR")
	for _, p := range []failure.Provider{badModel.Provider, secondModel.Provider} {
		rec, err := breakerStore(st).Get(ctx, fallback.Service(p))
		if errors.Is(err, breaker.ErrNotFound) {
			rec, err = breaker.Record{State: breaker.Closed}, nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", p, rec.State, rec.ConsecutiveFailures, rec.Opens, rec.LastErrorType)
	}
	tw.Flush()
	fmt.Fprintf(w, "(the same tables: triage models list --stack %s)\n", st.Info.Name)
	if ids == nil {
		return nil
	}
	by, err := enrichedBy(ctx, st, ids)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "enrichments by model: %s %d · %s %d · %s %d (the chain skips a disabled model)\n",
		goodModel, by[goodModel.String()], secondModel, by[secondModel.String()], badModel, by[badModel.String()])
	return nil
}

// modelHealth is phase 2: the bad model was disabled by its health, no
// item was enriched by it, and the chain fell back to the next Bedrock
// model. Each is checked; a model the fault mix took out besides it is
// said, not hidden.
func modelHealth(ctx context.Context, w io.Writer, st *devstack.Stack, ids []string) error {
	if err := showModels(ctx, w, st, ids); err != nil {
		return err
	}
	c := newClaims(w, "phase 2 (model health)")
	bad, err := modelStore(st).Get(ctx, badModel.String())
	if err != nil && !errors.Is(err, health.ErrNotFound) {
		return err
	}
	c.that(bad.Disabled && bad.DisabledBy == health.ByAuto, "%s was disabled by its model health (%s, after %d model-specific failures in a row)",
		badModel, orDash(string(bad.LastErrorType)), health.DefaultThreshold)
	by, err := enrichedBy(ctx, st, ids)
	if err != nil {
		return err
	}
	c.that(by[badModel.String()] == 0, "no item was enriched by %s (%d were)", badModel, by[badModel.String()])
	c.that(by[goodModel.String()] > 0, "the chain fell back to %s: %d items enriched by it", goodModel, by[goodModel.String()])
	if good, err := modelStore(st).Get(ctx, goodModel.String()); err == nil && good.Disabled {
		fmt.Fprintf(w, "  note: %s was disabled too, by %d model-specific failures in a row (%s): the fault mix's invalid answers\n",
			goodModel, health.DefaultThreshold, good.LastErrorType)
	}
	return c.err()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// enrichedBy counts the items' enrichments by model.
func enrichedBy(ctx context.Context, st *devstack.Stack, ids []string) (map[string]int, error) {
	by := map[string]int{}
	for _, id := range ids {
		it, err := st.Items.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if it.Enrichment != nil {
			by[it.Enrichment.Model]++
		}
	}
	return by, nil
}

func modelStore(st *devstack.Stack) *health.Dynamo {
	return &health.Dynamo{DB: dynamodb.NewFromConfig(st.AWS), Table: st.Info.Outputs["ModelsTableName"]}
}

func breakerStore(st *devstack.Stack) *breaker.Dynamo {
	return &breaker.Dynamo{DB: dynamodb.NewFromConfig(st.AWS), Table: st.Info.Outputs["BreakersTableName"], ConsistentReads: true}
}

// breakerWatch prints a breaker's transitions as they happen.
type breakerWatch struct {
	w       io.Writer
	store   *breaker.Dynamo
	service string
	start   time.Time
	last    breaker.State
	opened  bool
}

func (b *breakerWatch) poll(ctx context.Context) breaker.State {
	rec, err := b.store.Get(ctx, b.service)
	if errors.Is(err, breaker.ErrNotFound) {
		rec, err = breaker.Record{State: breaker.Closed}, nil
	}
	if err != nil {
		return orClosed(b.last)
	}
	if rec.State != orClosed(b.last) {
		fmt.Fprintf(b.w, "  %5.1fs breaker %s: %s → %s (opens %d)\n", time.Since(b.start).Seconds(), b.service, orClosed(b.last), rec.State, rec.Opens)
		b.last = rec.State
	}
	if rec.State == breaker.Open {
		b.opened = true
	}
	return rec.State
}

// providerOutage takes Bedrock — the chain's first provider — down while a
// burst of stories arrives: Bedrock's breaker opens, every item is served by
// OpenAI without spending an attempt once it is open, and when Bedrock is
// back the next probe closes its breaker and the chain returns to it. It
// reports what the outage cost, and checks each of these.
//
// The phase starts from a known state, whatever phase 1's fault mix left:
// no fault mix, the chain's healthy Bedrock model enabled and both
// providers' breakers closed (an operator's enable or reset when they are
// not, said so, then the functions' caches waited out), so that what it
// shows is the outage's alone.
func providerOutage(ctx context.Context, w io.Writer, st *devstack.Stack, n int) ([]string, error) {
	if err := isolate(ctx, w, st); err != nil {
		return nil, err
	}
	c := newClaims(w, "phase 3 (provider outage)")
	watch := &breakerWatch{w: w, store: breakerStore(st), service: fallback.Service(failure.Bedrock), start: time.Now()}
	watch.poll(ctx)
	before := st.LLM.Stats().Dialects[fakes.DialectBedrock]
	if err := st.LLM.SetDialectOutage(fakes.DialectBedrock, true, ""); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "Bedrock is down: every Converse call answers 503 ServiceUnavailableException; OpenAI answers as usual\n")
	ids, err := seed(ctx, st, "burst", n)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(90 * time.Second)
	tick := func() error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
			return nil
		}
	}
	// Wait for the burst to finish, through OpenAI.
	finished := false
	for !finished && time.Now().Before(deadline) {
		watch.poll(ctx)
		cnt, err := stateCountsOf(ctx, st, ids)
		if finished = err == nil && cnt[work.Done]+cnt[work.Deadletter] == len(ids); !finished {
			if err := tick(); err != nil {
				return ids, err
			}
		}
	}
	calls := st.LLM.Stats().Dialects[fakes.DialectBedrock] - before
	by, err := enrichedBy(ctx, st, ids)
	if err != nil {
		return ids, err
	}
	done, err := stateCountsOf(ctx, st, ids)
	if err != nil {
		return ids, err
	}
	spent, maxSpent, paid := 0, 0, 0
	for _, id := range ids {
		it, err := st.Items.Get(ctx, id)
		if err != nil {
			return ids, err
		}
		a := it.Attempts[work.LLM]
		spent += a
		maxSpent = max(maxSpent, a)
		if a > 0 {
			paid++
		}
	}
	fmt.Fprintf(w, "the burst: %d of %d items enriched by %s while Bedrock was down; Bedrock was called %d times, every call a 503\n"+
		"(%d consecutive failures open its breaker; calls already in flight, and one probe per half-open window, still reach it);\n"+
		"llm attempts spent: %d, by %d items whose call failed before the breaker opened (at most %d per item); the other %d items,\n"+
		"which met the open breaker, spent none: they moved on to OpenAI in the same invocation\n",
		by[secondModel.String()], len(ids), secondModel, calls, breakerThreshold, spent, paid, maxSpent, len(ids)-paid)
	c.that(finished && done[work.Done] == len(ids), "every item of the burst is done (%d of %d)", done[work.Done], len(ids))
	c.that(calls >= breakerThreshold, "Bedrock was called (%d times) until its breaker opened", calls)
	c.that(watch.opened, "Bedrock's breaker opened")
	c.that(by[secondModel.String()] == len(ids), "every item of the burst was enriched by %s (%d of %d)", secondModel, by[secondModel.String()], len(ids))
	c.that(paid < len(ids), "items that met the open breaker spent no attempt (%d of %d spent one)", paid, len(ids))

	// Bedrock comes back. Nothing probes an open breaker but an item, so one
	// item goes first; once its probe has closed the breaker, the rest go to
	// Bedrock.
	if err := st.LLM.SetDialectOutage(fakes.DialectBedrock, false, ""); err != nil {
		return ids, err
	}
	fmt.Fprintf(w, "  %5.1fs Bedrock is back\n", time.Since(watch.start).Seconds())
	var after []string
	for round := 0; time.Now().Before(deadline) && watch.poll(ctx) != breaker.Closed; round++ {
		probe, err := seed(ctx, st, fmt.Sprintf("probe%d", round), 1)
		if err != nil {
			return ids, err
		}
		after = append(after, probe...)
		for end := time.Now().Add(2 * demoBreakerOpenFor); time.Now().Before(end) && watch.poll(ctx) != breaker.Closed; {
			if err := tick(); err != nil {
				return ids, err
			}
		}
	}
	closed := watch.poll(ctx) == breaker.Closed
	c.that(closed, "a probe closed Bedrock's breaker once Bedrock was back")
	if !closed {
		return ids, c.err()
	}
	back, err := seed(ctx, st, "back", n/2)
	if err != nil {
		return ids, err
	}
	after = append(after, back...)
	finished = false
	for !finished && time.Now().Before(deadline) {
		cnt, err := stateCountsOf(ctx, st, after)
		if finished = err == nil && cnt[work.Done]+cnt[work.Deadletter] == len(after); !finished {
			if err := tick(); err != nil {
				return ids, err
			}
		}
	}
	byBack, err := enrichedBy(ctx, st, back)
	if err != nil {
		return ids, err
	}
	fmt.Fprintf(w, "after the probe closed Bedrock's breaker: %d of %d new items enriched by %s again\n",
		byBack[goodModel.String()], len(back), goodModel)
	c.that(finished && byBack[goodModel.String()] == len(back), "every new item was enriched by %s again (%d of %d)",
		goodModel, byBack[goodModel.String()], len(back))
	return append(ids, after...), c.err()
}

// isolate makes phase 3 start from a known state: no fault mix at any
// fake, the chain's healthy Bedrock model enabled, Bedrock's and OpenAI's
// breakers closed. What it has to undo, it says.
func isolate(ctx context.Context, w io.Writer, st *devstack.Stack) error {
	for _, p := range []interface{ SetMix(fakes.Mix) error }{st.LLM, st.Articles, st.Webhook} {
		if err := p.SetMix(fakes.Mix{}); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "(this phase runs without the fault mix: what it shows is the outage's)")
	changed := false
	if m, err := modelStore(st).Get(ctx, goodModel.String()); err == nil && m.Disabled {
		if _, err := modelStore(st).SetDisabled(ctx, goodModel.String(), false, "demo: the outage phase starts with it enabled", time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(w, "(the operator re-enables %s, which phase 1's faults disabled: triage models enable %s)\n", goodModel, goodModel)
		changed = true
	}
	for _, p := range []failure.Provider{failure.Bedrock, failure.OpenAI} {
		rec, err := breakerStore(st).Get(ctx, fallback.Service(p))
		if errors.Is(err, breaker.ErrNotFound) || (err == nil && rec.State == breaker.Closed) {
			continue
		}
		if err != nil {
			return err
		}
		if _, err := breakerStore(st).Reset(ctx, fallback.Service(p), time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(w, "(the operator resets %s's breaker, which phase 1's faults left %s: triage breakers reset %s)\n", p, rec.State, fallback.Service(p))
		changed = true
	}
	if changed {
		// The functions trust their cached view of a model's health and a
		// breaker this long.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(max(health.DefaultCacheTTL, breaker.DefaultCacheTTL) + time.Second):
		}
	}
	return nil
}

func orClosed(s breaker.State) breaker.State {
	if s == "" {
		return breaker.Closed
	}
	return s
}

// stateCountsOf counts the states of the given items.
func stateCountsOf(ctx context.Context, st *devstack.Stack, ids []string) (map[work.State]int, error) {
	out := map[work.State]int{}
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
// prints what it reports; it checks that the bad model, disabled in phase 2,
// is enabled again by it.
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
	c := newClaims(w, "phase 4 (recovery)")
	m, err := modelStore(st).Get(ctx, badModel.String())
	if err != nil {
		return err
	}
	c.that(!m.Disabled && m.RecoveredBy == health.ByRecovery, "the recovery function re-enabled %s (disabled %v, recovered by %q)",
		badModel, m.Disabled, m.RecoveredBy)
	return c.err()
}

// remediable are the classes the demo's operator replays once the upstreams
// are fixed: missing articles and channels restored, the bad model retired.
// CONTENT_POLICY and TOKEN_LIMIT need the input changed, so they stay.
var remediable = []work.Class{work.NotFound, work.ResponseInvalid, work.UpstreamUnavailable,
	work.NetworkTimeout, work.RateLimited}

// replayFixed lists the dead letters by class, fixes the fakes, replays the
// remediable ones from the stage that failed, and waits for them to finish.
func replayFixed(ctx context.Context, w io.Writer, st *devstack.Stack, watchOpts Options) ([]string, error) {
	queues := map[work.Stage]replay.Queues{}
	for _, s := range work.Stages() {
		queues[s] = replay.Queues{Queue: st.QueueURL(s), DLQ: st.DLQURL(s)}
	}
	r := &replay.Replayer{SQS: st.SQS, Items: st.Items, Queues: queues, PollWait: -1, DefaultBy: "oncall (demo)"}
	dls, err := r.List(ctx, replay.ListRequest{})
	if err != nil {
		return nil, err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DEAD LETTERS BY CLASS\tCOUNT\tREPLAYED AFTER THE FIX")
	fixable := 0
	for _, c := range replay.CountByClass(dls) {
		fmt.Fprintf(tw, "%s\t%d\t%v\n", c.Class, c.Count, slices.Contains(remediable, c.Class))
		if slices.Contains(remediable, c.Class) {
			fixable += c.Count
		}
	}
	tw.Flush()
	claim := newClaims(w, "phase 5 (replay)")
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
	resumed := map[work.Stage]int{}
	for _, it := range sum.Items {
		if it.Action == replay.Replayed || it.Action == replay.Resent {
			ids = append(ids, it.ItemID)
			resumed[it.Target]++
		}
	}
	fmt.Fprintf(w, "replay: selected %d, replayed %d, skipped %d, errors %d; the others stay on their DLQs\n",
		sum.Selected, sum.Replayed, sum.Skipped, sum.Errors)
	fmt.Fprintf(w, "resumed at fetch %d · llm %d · notify %d (earlier stages are not run again)\n",
		resumed[work.Fetch], resumed[work.LLM], resumed[work.Notify])
	claim.that(fixable > 0, "phase 1 left dead letters of the remediable classes (%d)", fixable)
	claim.that(len(ids) == fixable && sum.Errors == 0, "every one of them was replayed (%d of %d, %d errors)", len(ids), fixable, sum.Errors)
	if len(ids) == 0 {
		return nil, claim.err()
	}
	watchOpts.Interactive = false
	settled := watch(ctx, st, ids, watchOpts, time.Now())
	c, err := stateCountsOf(ctx, st, ids)
	if err != nil {
		return ids, err
	}
	fmt.Fprintf(w, "replayed items: %d done, %d dead-lettered again\n", c[work.Done], c[work.Deadletter])
	claim.that(settled && c[work.Done] == len(ids), "every replayed item is done (%d of %d)", c[work.Done], len(ids))
	return ids, claim.err()
}
