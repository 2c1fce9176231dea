package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/notice"
)

// The owners' notice choices of a run. An absent choice is the kind's
// default (item.failed for action tasks only); the seeded shares below
// give every case its items.
const (
	// actionOptOut is the share of action tasks whose owner asks for no
	// item.failed (asked for none: the check wants none).
	actionOptOut = 0.25
	// retryOptIn is the share of items whose owner asks for
	// item.retry_scheduled too.
	retryOptIn = 0.3
	// storyOptIn is the share of stories and documents whose owner asks
	// for item.failed.
	storyOptIn = 0.1
)

// Violations of the owner-notice checks.
const (
	// ViolationOwnerNotTold: a dead-lettered item whose owner asked for
	// item.failed, and whose webhook never received it.
	ViolationOwnerNotTold = "dead-lettered item's owner never received item.failed"
	// ViolationUnwantedNotice: item.failed for an item whose owner did not
	// ask, or that was not dead-lettered.
	ViolationUnwantedNotice = "item.failed for an item that asked for none or was not dead-lettered"
	// ViolationStrayNotice: an item.failed that names no item's first
	// dead letter (a second dead letter, a key no item owns).
	ViolationStrayNotice = "item.failed with a key no dead letter owns"
)

// CorpusNotices and CorpusAudit are the secret search's corpora of the
// notices the webhook received and of the audit trail.
const (
	CorpusNotices = "notice bodies"
	CorpusAudit   = "audit records"
)

// NoticeReport is what the owners were told.
type NoticeReport struct {
	// Owners counts the dead-lettered items whose owner asked for
	// item.failed; Told those whose webhook received it.
	Owners, Told int
	// Duplicates counts item.failed deliveries beyond the first of a
	// notice (the same idempotency key: at least once, as deliveries).
	Duplicates int
	// Retries counts the distinct item.retry_scheduled notices received.
	Retries int
	// Ledger counts the notices' final ledger states; Executions the
	// audited action executions by outcome.
	Ledger, Executions map[string]int
}

// assignNotices draws the owners' choices, independently of the run's
// other draws: planted-secret items ask for both notices (their notices
// are searched too).
func (p *plan) assignNotices(seed uint64, reserved func(string) bool) {
	p.notices = map[string]*intake.NoticeSpec{}
	yes, no := true, false
	for _, id := range p.ids {
		var n intake.NoticeSpec
		switch {
		case reserved(id):
			n.Failed, n.RetryScheduled = &yes, &yes
		case p.kind[id] == store.KindAction && draw(seed, "notice opt-out", id) < actionOptOut:
			n.Failed = &no
		case p.kind[id] != store.KindAction && draw(seed, "notice opt-in", id) < storyOptIn:
			n.Failed = &yes
		}
		if draw(seed, "notice retries", id) < retryOptIn {
			n.RetryScheduled = &yes
		}
		if n.Failed != nil || n.RetryScheduled != nil {
			p.notices[id] = &n
		}
	}
}

// wantsFailed reports whether id's owner asked for item.failed.
func (p *plan) wantsFailed(id string) bool { return p.notices[id].Resolve(p.kind[id]).Failed }

// noticeScripts scripts the item.failed of every item that asks for it with
// transient refusals only — none, a 500, or a 429 then a 503 — so the
// notice's retries are exercised and a permanent answer of the mix cannot
// stand between an owner and the check. item.retry_scheduled is left to the
// mix: some are abandoned, logged and counted.
func (p *plan) noticeScripts(seed uint64) map[string][]fakes.Fault {
	out := map[string][]fakes.Fault{}
	for _, id := range p.ids {
		if !p.wantsFailed(id) {
			continue
		}
		key := notice.FailedKey(id, 0)
		switch d := draw(seed, "notice script", id); {
		case d < 0.5:
			out[key] = []fakes.Fault{fakes.FaultNone}
		case d < 0.8:
			out[key] = []fakes.Fault{fakes.FaultServerError}
		default:
			out[key] = []fakes.Fault{fakes.FaultRateLimitSlack, fakes.FaultUnavailable}
		}
	}
	return out
}

// checkNotices checks that every dead-lettered item whose owner asked was
// told once, that nobody else was, and searches the notices for secrets.
func (r *runner) checkNotices(res *Result, items map[string]store.Item, dead map[string]bool) {
	nr := &res.Notices
	seen := map[string]bool{} // item.failed keys received
	retries := map[string]bool{}
	for _, d := range r.st.Webhook.Deliveries() {
		switch d.Event {
		case string(notice.Failed):
			if seen[d.Key] {
				nr.Duplicates++
			}
			seen[d.Key] = true
		case string(notice.RetryScheduled):
			retries[d.Key] = true
		default:
			continue
		}
		r.scan.Search(CorpusNotices, d.Event+" "+d.Key, string(d.Body))
	}
	nr.Retries = len(retries)
	var untold, unwanted []string
	owned := map[string]bool{}
	for _, id := range r.plan.ids[:r.seeded] {
		key := notice.FailedKey(id, items[id].ReplayCount)
		owned[key] = true
		want, got := r.plan.wantsFailed(id) && dead[id], seen[key]
		if want {
			nr.Owners++
		}
		switch {
		case want && got:
			nr.Told++
		case want:
			untold = append(untold, fmt.Sprintf("%s (%s at %s)", id, items[id].State, items[id].Stage))
		case got:
			unwanted = append(unwanted, fmt.Sprintf("%s (%s, %s, asked %v)", id, r.plan.kind[id], items[id].State, r.plan.wantsFailed(id)))
		}
	}
	var stray []string
	for key := range seen {
		if !owned[key] {
			stray = append(stray, key)
		}
	}
	res.violate(ViolationOwnerNotTold, "", untold...)
	res.violate(ViolationUnwantedNotice, "", unwanted...)
	res.violate(ViolationStrayNotice, "", stray...)
}

// auditTrail counts the audit table's notices by state and executions by
// outcome, and searches every record for secrets.
func (r *runner) auditTrail(ctx context.Context, res *Result) error {
	table := r.st.Info.Outputs["AuditTableName"]
	if table == "" {
		return nil
	}
	res.Notices.Ledger, res.Notices.Executions = map[string]int{}, map[string]int{}
	err := r.st.Scan(ctx, table, "", nil, func(it map[string]dbtypes.AttributeValue) {
		switch devstack.Str(it["kind"]) {
		case "notice":
			res.Notices.Ledger[devstack.Str(it["event"])+" "+devstack.Str(it["state"])]++
		case "execution":
			res.Notices.Executions[devstack.Str(it["outcome"])]++
		}
		b, _ := json.Marshal(plainAttrs(it))
		r.scan.Search(CorpusAudit, "record of "+devstack.Str(it["item_id"])+" "+strings.SplitN(devstack.Str(it["sk"]), "#", 2)[0], string(b))
	})
	if err != nil {
		return fmt.Errorf("soak: the audit trail: %w", err)
	}
	return nil
}
