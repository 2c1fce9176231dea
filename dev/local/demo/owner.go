package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
)

// The two action tasks of the owner phase: both fail once at the model and
// are retried; one then succeeds, the other is refused for good.
const (
	ownerRetried = "owner-retried"
	ownerFailed  = "owner-failed"
)

// ownerNotices shows what the person who scheduled an action task hears:
// two action tasks that asked for item.retry_scheduled too (item.failed is
// on for actions by default) fail once at the model; one then succeeds, the
// other is refused for good. Each owner's webhook receives
// item.retry_scheduled, then the final outcome; then the failed one's
// timeline, as `triage items get` prints it. It returns the two ids.
func ownerNotices(ctx context.Context, w io.Writer, st *devstack.Stack) ([]string, error) {
	// The model answers as scripted for these two: no mix, the bad model's
	// fault lifted, the fix switch off.
	if err := st.LLM.SetModelFault(badModel.Model, fakes.FaultNone); err != nil {
		return nil, err
	}
	st.LLM.SetFixed(false)
	if err := st.LLM.SetScripts(map[string][]fakes.Fault{
		ownerRetried: {fakes.FaultServerError},
		ownerFailed:  {fakes.FaultServerError, fakes.FaultContentPolicy},
	}, false); err != nil {
		return nil, err
	}
	yes := true
	ids := []string{ownerRetried, ownerFailed}
	specs := make([]intake.Spec, len(ids))
	for i, id := range ids {
		specs[i] = intake.Spec{ItemID: id, Kind: store.KindAction, CorrelationID: "demo-" + id,
			SourceURL: st.ArticleServer.URL + "/articles/" + id, WebhookURL: st.HookServer.URL + "/hooks/" + id,
			Notices: &intake.NoticeSpec{RetryScheduled: &yes}}
	}
	p := &intake.Producer{SQS: st.SQS, QueueURL: st.QueueURL(work.Fetch)}
	for _, r := range p.SubmitBatch(ctx, specs) {
		if r.Err != nil {
			return nil, fmt.Errorf("submit %s: %w", r.ItemID, r.Err)
		}
	}
	fmt.Fprintf(w, "submitted %s and %s: action tasks whose owners asked for item.retry_scheduled as well (item.failed is on for actions)\n",
		ownerRetried, ownerFailed)
	final := map[string]string{ownerRetried: "item.delivered", ownerFailed: string(notice.Failed)}
	deadline := time.Now().Add(90 * time.Second)
	for !received(st, final) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ids, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	c := newClaims(w, "phase 6 (the owner's notices)")
	got := eventsByHook(st)
	for _, id := range ids {
		c.that(received(st, map[string]string{id: final[id]}), "%s's webhook heard %s, then %s (it heard %s)", id, notice.RetryScheduled,
			final[id], strings.Join(got[id], ", "))
	}
	if err := c.err(); err != nil {
		return ids, err
	}
	for _, id := range ids {
		fmt.Fprintf(w, "%s's webhook received:\n", id)
		for _, d := range st.Webhook.Deliveries() {
			if d.Name == id {
				fmt.Fprintf(w, "  %s  %s\n", d.At.UTC().Format("15:04:05.000"), redact.Terminal(describeDelivery(d)))
			}
		}
	}
	it, err := st.Items.Get(ctx, ownerFailed)
	if err != nil {
		return ids, err
	}
	db := dynamodb.NewFromConfig(st.AWS)
	log, err := (&store.ErrorLogReader{DB: db, Table: st.Info.Outputs["ErrorLogTableName"]}).ForItem(ctx, ownerFailed, 0)
	if err != nil {
		return ids, err
	}
	trail, err := (&ledger.Trail{DB: db, Table: st.Info.Outputs["AuditTableName"]}).ForItem(ctx, ownerFailed, 0)
	if err != nil {
		return ids, err
	}
	fmt.Fprintf(w, "\n%s's timeline (triage items get %s --stack %s):\n", ownerFailed, ownerFailed, st.Info.Name)
	if err := ledger.BuildTimeline(it, log, trail).Write(w, nil); err != nil {
		return ids, err
	}
	return ids, nil
}

// received reports whether each hook got its final event after an
// item.retry_scheduled.
func received(st *devstack.Stack, final map[string]string) bool {
	got := eventsByHook(st)
	for hook, last := range final {
		evs := got[hook]
		if len(evs) < 2 || evs[0] != string(notice.RetryScheduled) || evs[len(evs)-1] != last {
			return false
		}
	}
	return true
}

// eventsByHook lists each hook's events in arrival order.
func eventsByHook(st *devstack.Stack) map[string][]string {
	out := map[string][]string{}
	for _, d := range st.Webhook.Deliveries() {
		out[d.Name] = append(out[d.Name], d.Event)
	}
	return out
}

// describeDelivery is one line per POST the owner's webhook took.
func describeDelivery(d fakes.Delivery) string {
	if d.Event == "" || d.Event == "item.delivered" {
		return "item.delivered: the result (signed, Idempotency-Key " + d.Key + ")"
	}
	var n notice.Notice
	if err := json.Unmarshal(d.Body, &n); err != nil {
		return d.Event + ": " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s at %s, attempt %d", n.Event, n.Class, n.Stage, n.Attempt)
	if n.Retryable {
		fmt.Fprintf(&b, " of %d", n.MaxAttempts)
	}
	if n.NextRetryAt != nil {
		fmt.Fprintf(&b, ", next attempt at %s", n.NextRetryAt.UTC().Format("15:04:05.000"))
	}
	fmt.Fprintf(&b, " — %s", n.Reason)
	if n.DeadLetterID != "" {
		fmt.Fprintf(&b, " (dead letter %s)", n.DeadLetterID)
	}
	return b.String()
}
