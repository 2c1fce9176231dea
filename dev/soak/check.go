package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Kinds of invariant violations.
const (
	// ViolationStuck: an item neither done nor dead-lettered when the run
	// ended (still in a queue, parked, or carried by nothing: lost). An
	// item left "failed" with its one dead letter on the DLQ is
	// dead-lettered (Result.HandOffUnconfirmed), not stuck.
	ViolationStuck = "item not finished (stuck or lost)"
	// ViolationNoDeadLetter: an item in state deadletter whose dead letter
	// is not on its stage's DLQ.
	ViolationNoDeadLetter = "dead-lettered item missing from the DLQ"
	// ViolationTwoDeadLetters: one item with two distinct dead-letter ids.
	ViolationTwoDeadLetters = "item dead-lettered twice (two distinct dead letters)"
	// ViolationStrayDeadLetter: a DLQ message for an item that is not
	// dead-lettered (done, or not seeded).
	ViolationStrayDeadLetter = "DLQ message for an item that is not dead-lettered"
	// ViolationMismatch: the item's dead letter (id, stage) differs from
	// the one on the DLQ.
	ViolationMismatch = "item's dead letter differs from the DLQ's"
	// ViolationBackstop: a DLQ message that is not a triage dead letter (the
	// queue's redrive backstop moved a raw envelope).
	ViolationBackstop = "raw message moved to a DLQ by the redrive backstop"
	// ViolationNotDelivered: a done item the webhook never received.
	ViolationNotDelivered = "done item never delivered to its webhook"
	// ViolationQueues: messages left in a stage queue or the notice queue,
	// or parked records.
	ViolationQueues = "messages left in stage queues or parked"
	// ViolationCrossStage: an item whose upstream calls at two stages
	// overlapped in time.
	ViolationCrossStage = "item processed by two stages at once"
	// ViolationSameStage: an item with two calls of one stage in flight at
	// once, which its lease should prevent.
	ViolationSameStage = "item processed twice at once by one stage"
	// ViolationSecret: a planted secret found in a log line, a DLQ payload
	// or the error log.
	ViolationSecret = "planted secret found"
	// ViolationNotSettled: the pipeline did not settle within the timeout.
	ViolationNotSettled = "pipeline did not settle"
	// ViolationUnconfirmed: a dead letter on the DLQ whose item is not
	// deadletter (the confirming write failed after the send, and nothing
	// settled it).
	ViolationUnconfirmed = "dead letter whose item is not deadletter"
	// ViolationProbeHostage: an item was the failed probe of its upstream's
	// breaker more often than the profile lets one item be the probe: a
	// poison item holding the breaker (docs/design.md "A failure that
	// follows one item").
	ViolationProbeHostage = "item was the failed breaker probe too often"
)

// Violation is one broken invariant with the items it concerns.
type Violation struct {
	Kind   string
	Items  []string
	Detail string
}

// DLQReport is what the drained DLQs held.
type DLQReport struct {
	// Messages is every message received; Distinct the distinct
	// dead-letter ids among the triage payloads.
	Messages, Distinct int
	// RawDuplicates counts messages beyond the first with the same
	// dead-letter id: the at-least-once hand-off's duplicates of one event.
	RawDuplicates int
	// DuplicateItems lists the items whose dead letter arrived more than once.
	DuplicateItems []string
	// ByStageClass counts distinct dead letters per "stage CLASS".
	ByStageClass map[string]int
	// NotTriage counts bodies that are not triage dead letters.
	NotTriage int
}

// Result is one soak run: what was injected, what the pipeline did, and
// the checks.
type Result struct {
	Seed  uint64
	Items int
	// Settled: every item finished and the queues drained in time; Stalled:
	// the queues drained with items unfinished; TimedOut: Timeout ran out.
	Settled, Stalled, TimedOut bool
	// ByState counts the items per final state.
	ByState map[work.State]int
	// Failures counts the error log per "stage CLASS" (every failure,
	// retried or not).
	Failures map[string]int
	DLQ      DLQReport
	// HandOffUnconfirmed lists items whose dead letter is on the DLQ (once)
	// while the item stayed "failed": the confirming UpdateItem failed
	// after the send and nothing settled it. Each is a violation
	// (ViolationUnconfirmed); they count as dead-lettered.
	HandOffUnconfirmed []string
	// FailedProbes counts, per item, the breaker probes it served that
	// failed and reopened the breaker; Judged, per item, the failures the
	// breaker judged the item's own (both read from the function log).
	FailedProbes, Judged map[string]int
	// DeliveredByStatusOnly lists done items whose webhook answered a 200
	// status line and then reset the connection (the fake records no
	// delivery; notify rightly takes the status as the answer).
	DeliveredByStatusOnly []string
	// Deliveries and DuplicateDeliveries count the webhook's successful
	// POSTs and those that repeated an idempotency key (at-least-once
	// delivery after a lost response).
	Deliveries, DuplicateDeliveries int
	// Notices is what the items' owners were told (item.failed,
	// item.retry_scheduled) and the audit trail.
	Notices NoticeReport
	// Upstream counts the faults the fakes answered, per "fake fault", plus
	// the soak's extra faults.
	Upstream map[string]int
	// AWS counts the injected AWS faults by kind (AWSFaultKinds); AWSRequests
	// the functions' requests the injector saw, by service.
	AWS         map[string]int
	AWSRequests map[string]int
	// DLQOutage is when the DLQ outage opened (since the phase began) and
	// how long it lasted; -1 when it never opened.
	DLQOutageAt, DLQOutageFor time.Duration
	// Kills lists the processes killed; MidBatch counts the invocations
	// that ended because their process died (the Lambda service's
	// Runtime.ExitError).
	Kills    []Kill
	MidBatch int
	// FunctionErrors, Timeouts and ColdStarts sum the Lambda service's
	// counters over the stage functions.
	FunctionErrors, Timeouts, ColdStarts int
	// Duplicates counts the duplicate envelopes sent, by "current stage"
	// and "earlier stage".
	Duplicates map[string]int
	// Calls counts upstream calls per stage; FunctionAWSCalls the
	// functions' own count of their AWS requests (every attempt).
	Calls            map[work.Stage]int
	FunctionAWSCalls map[string]int64
	// CrossStage and SameStage list the overlapping upstream calls.
	CrossStage, SameStage []Overlap
	// DisabledModels are the models auto-disabled during the run.
	DisabledModels []string
	// MaxLatency is the longest time from seeding an item to seeing it
	// finished (1 s resolution), and its item.
	MaxLatency     time.Duration
	MaxLatencyItem string
	// Secrets: what was planted and searched, and what was found.
	Secrets       int
	SecretNeedles int
	Searched      map[string]int
	Leaks         []Leak
	PlantedItems  map[string]string
	Violations    []Violation
	SetupErrors   []string
	Phase, Wall   time.Duration
	LongestWait   time.Duration
	// FunctionLog is the file of every function (and poller) log line.
	FunctionLog string
}

// OK reports whether the run broke no invariant.
func (r *Result) OK() bool { return len(r.Violations) == 0 && len(r.SetupErrors) == 0 }

// DeadLettered counts the dead-lettered items: state deadletter, and those
// left failed with their dead letter on the DLQ.
func (r *Result) DeadLettered() int { return r.ByState[work.Deadletter] + len(r.HandOffUnconfirmed) }

// Lost counts the items that did not finish.
func (r *Result) Lost() int {
	n := 0
	for _, v := range r.Violations {
		if v.Kind == ViolationStuck {
			n += len(v.Items)
		}
	}
	return n
}

func (r *Result) violate(kind, detail string, items ...string) {
	if len(items) == 0 && detail == "" {
		return
	}
	sort.Strings(items)
	r.Violations = append(r.Violations, Violation{Kind: kind, Items: items, Detail: detail})
}

// collect reads the final state and runs the checks.
func (r *runner) collect(ctx context.Context, res *Result) error {
	st := r.st
	res.LongestWait = r.opts.LongestWait()
	res.ByState = map[work.State]int{}
	items := map[string]store.Item{}
	for _, id := range r.plan.ids[:r.seeded] {
		it, err := st.Items.Get(ctx, id)
		if err != nil {
			return fmt.Errorf("soak: read %s: %w", id, err)
		}
		items[id] = it
		res.ByState[it.State]++
		if at, ok := r.terminalAt[id]; ok {
			if d := at.Sub(r.seededAt[id]); d > res.MaxLatency {
				res.MaxLatency, res.MaxLatencyItem = d, id
			}
		}
	}
	byItem, err := r.drainDLQs(ctx, res)
	if err != nil {
		return err
	}
	if err := r.errorLog(ctx, res); err != nil {
		return err
	}
	if err := r.auditTrail(ctx, res); err != nil {
		return err
	}
	depth, err := st.QueueDepth(ctx, st.PipelineQueueURLs()...)
	if err != nil {
		return err
	}
	parked := 0
	if err := st.Scan(ctx, st.Items.ParkedTable, "item_id", nil, func(map[string]dbtypes.AttributeValue) { parked++ }); err != nil {
		return err
	}

	resetAfter200 := map[string]bool{}
	for _, c := range st.Webhook.Stats().Recent {
		if c.Fault == fakes.FaultReset && !c.Outage {
			resetAfter200[c.Key] = true
		}
	}

	// Every seeded item is done or dead-lettered, exactly once.
	var stuck, missing, stray, twice, mismatch, undelivered []string
	for _, id := range r.plan.ids {
		it, ok := items[id]
		dls := byItem[id]
		switch {
		case !ok:
			stuck = append(stuck, id+" (never seeded)")
		case it.State == work.Done:
			switch {
			case st.Webhook.DeliveryCount(id+":notify") > 0:
			case resetAfter200[id+":notify"]:
				// The receiver's "reset" fault sends a 200 status line, then
				// resets the connection without recording a delivery; notify
				// takes the 2xx as the delivery (by design: the status is
				// the answer).
				res.DeliveredByStatusOnly = append(res.DeliveredByStatusOnly, id)
			default:
				undelivered = append(undelivered, id)
			}
			if len(dls) > 0 {
				stray = append(stray, id+" (done)")
			}
		case it.State == work.Deadletter:
			switch {
			case len(dls) == 0:
				missing = append(missing, fmt.Sprintf("%s (at %s)", id, it.Stage))
			case len(dls) > 1:
				twice = append(twice, fmt.Sprintf("%s (%s)", id, strings.Join(dlIDs(dls), ", ")))
			case it.DeadLetter == nil || it.DeadLetter.ID != dls[0].SanitizedContext.DeadLetterID || it.DeadLetter.Stage != dls[0].Stage:
				mismatch = append(mismatch, id)
			}
		case it.State == work.Failed && len(dls) == 1 && dls[0].Stage == it.Stage:
			// The dead letter is on the DLQ, but the item was never
			// confirmed: the runner keeps a record whose confirmation
			// failed, and its redelivery confirms it, so this is a
			// violation. It is dead-lettered once; only its state lags.
			res.HandOffUnconfirmed = append(res.HandOffUnconfirmed, fmt.Sprintf("%s (%s at %s, dead letter %s)", id,
				dls[0].ErrorClass, dls[0].Stage, dls[0].SanitizedContext.DeadLetterID))
		default:
			stuck = append(stuck, fmt.Sprintf("%s (%s %s, %d dead letters)", id, it.State, it.Stage, len(dls)))
		}
	}
	for id, dls := range byItem {
		if _, ok := items[id]; !ok {
			stray = append(stray, fmt.Sprintf("%s (not a seeded item, %d dead letters)", id, len(dls)))
		}
	}
	res.violate(ViolationStuck, "", stuck...)
	res.violate(ViolationNoDeadLetter, "", missing...)
	res.violate(ViolationTwoDeadLetters, "", twice...)
	res.violate(ViolationStrayDeadLetter, "", stray...)
	res.violate(ViolationMismatch, "", mismatch...)
	res.violate(ViolationNotDelivered, "", undelivered...)
	if res.DLQ.NotTriage > 0 {
		res.violate(ViolationBackstop, fmt.Sprintf("%d messages", res.DLQ.NotTriage))
	}
	if depth > 0 || parked > 0 {
		res.violate(ViolationQueues, fmt.Sprintf("%d messages in the stage and notice queues, %d parked", depth, parked))
	}
	res.violate(ViolationUnconfirmed, "", res.HandOffUnconfirmed...)

	// No item holds its upstream's breaker as its probe: the scheduler
	// rotates the probe and the decision table bounds one item's probes.
	res.FailedProbes, res.Judged = r.probes.counts()
	most := policy.Standard().Probing.WithDefaults().MaxProbes
	var hostages []string
	for id, n := range res.FailedProbes {
		if n > most {
			hostages = append(hostages, fmt.Sprintf("%s (%d failed probes)", id, n))
		}
	}
	if len(hostages) > 0 {
		res.violate(ViolationProbeHostage, fmt.Sprintf("at most %d per item", most), hostages...)
	}

	// Every dead-lettered item whose owner asked was told; nobody else.
	dead := map[string]bool{}
	for id, it := range items {
		dead[id] = it.State == work.Deadletter || (it.State == work.Failed && len(byItem[id]) == 1 && byItem[id][0].Stage == it.Stage)
	}
	r.checkNotices(res, items, dead)
	if !res.Settled {
		why := fmt.Sprintf("timeout %v", r.opts.Timeout)
		if res.Stalled {
			why = "the queues drained with items unfinished"
		}
		res.violate(ViolationNotSettled, why)
	}

	// No item processed by two stages, or twice by one stage, at once.
	res.CrossStage, res.SameStage = r.tracker.Overlaps()
	res.violate(ViolationCrossStage, "", overlapItems(res.CrossStage)...)
	res.violate(ViolationSameStage, "", overlapItems(res.SameStage)...)

	// What was injected and what the pipeline did.
	res.AWS, res.AWSRequests = r.inj.Counts(), r.inj.Requests()
	res.DLQOutageAt = -1
	if from, dur := r.inj.OutageWindow(); !from.IsZero() {
		res.DLQOutageAt, res.DLQOutageFor = from.Sub(r.phaseStart), dur
	}
	res.Upstream = map[string]int{}
	for name, stats := range map[string]func() map[string]int{
		"articles": func() map[string]int { return faultCounts(st.Articles.Stats().Faults) },
		"llm":      func() map[string]int { return faultCounts(st.LLM.Stats().Faults) },
		"webhook":  func() map[string]int { return faultCounts(st.Webhook.Stats().Faults) },
	} {
		for f, n := range stats() {
			res.Upstream[name+" "+f] += n
		}
	}
	for k, n := range r.extra.Counts() {
		res.Upstream[k] += n
	}
	hs := st.Webhook.Stats().Deliveries
	res.Deliveries, res.DuplicateDeliveries = hs.Total, hs.Duplicates
	res.Kills = r.killer.Kills()
	for _, fn := range Functions {
		if s, ok := st.Lambda.Stats(fn); ok {
			// The handler never returns an error, so a function error is
			// a timeout or a process that died during an invocation.
			res.MidBatch += s.FunctionErrors - s.Timeouts
			res.FunctionErrors += s.FunctionErrors
			res.Timeouts += s.Timeouts
			res.ColdStarts += s.ColdStarts
		}
	}
	res.Duplicates = maps.Clone(r.dups)
	if r.dupErrors > 0 {
		res.SetupErrors = append(res.SetupErrors, fmt.Sprintf("%d duplicate envelopes could not be sent", r.dupErrors))
	}
	res.Calls = r.tracker.Calls()
	res.FunctionAWSCalls = r.calls.Snapshot()
	if models, err := (&health.Dynamo{DB: dynamodb.NewFromConfig(st.AWS), Table: st.Info.Outputs["ModelsTableName"]}).List(ctx); err == nil {
		for _, m := range models {
			if m.Disables > 0 {
				res.DisabledModels = append(res.DisabledModels, m.Name)
			}
		}
	}

	// Secrets.
	res.Secrets, res.SecretNeedles = len(r.scan.secrets), r.scan.Needles()
	res.Searched, res.Leaks = r.scan.Searched(), r.scan.Leaks()
	if r.scan.GitleaksErr != nil {
		res.SetupErrors = append(res.SetupErrors, "gitleaks did not run: "+r.scan.GitleaksErr.Error())
	}
	if r.planted != nil {
		res.PlantedItems = r.planted.Items
	}
	if len(res.Leaks) > 0 {
		var where []string
		for _, l := range res.Leaks {
			where = append(where, fmt.Sprintf("%s (%s) in %s: %s", l.Secret, l.Needle, l.Corpus, l.Where))
		}
		res.violate(ViolationSecret, strings.Join(where, "; "))
	}
	return nil
}

func dlIDs(dls []deadletter.Payload) []string {
	out := make([]string, len(dls))
	for i, d := range dls {
		out[i] = string(d.Stage) + "/" + string(d.ErrorClass) + "/" + d.SanitizedContext.DeadLetterID
	}
	return out
}

func overlapItems(os []Overlap) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range os {
		k := fmt.Sprintf("%s (%s running, %s started at %.1fs)", o.ItemID, o.Running, o.Started, o.At.Seconds())
		if !seen[o.ItemID] {
			seen[o.ItemID] = true
			out = append(out, k)
		}
	}
	return out
}

func faultCounts[F ~string](m map[F]int) map[string]int {
	out := map[string]int{}
	for f, n := range m {
		if string(f) != "none" {
			out[string(f)] = n
		}
	}
	return out
}

// drainDLQs receives and deletes every DLQ message, searches it for the
// planted secrets, and returns the distinct dead letters by item.
func (r *runner) drainDLQs(ctx context.Context, res *Result) (map[string][]deadletter.Payload, error) {
	st := r.st
	byItem := map[string][]deadletter.Payload{}
	seen := map[string]bool{}
	dupItems := map[string]bool{}
	res.DLQ.ByStageClass = map[string]int{}
	for _, s := range work.Stages() {
		url := st.DLQURL(s)
		empty := 0
		for range 1000 { // bounded: a DLQ holds at most a few hundred messages
			out, err := st.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10,
				VisibilityTimeout: 300, WaitTimeSeconds: 0, MessageAttributeNames: []string{"All"}})
			if err != nil {
				return nil, fmt.Errorf("soak: drain the %s DLQ: %w", s, err)
			}
			if len(out.Messages) == 0 {
				if empty++; empty >= 2 {
					break
				}
				continue
			}
			empty = 0
			var del []sqstypes.DeleteMessageBatchRequestEntry
			for i, m := range out.Messages {
				body := aws.ToString(m.Body)
				res.DLQ.Messages++
				attrs, _ := json.Marshal(m.MessageAttributes)
				r.scan.Search(CorpusDLQ, fmt.Sprintf("%s DLQ message %s", s, aws.ToString(m.MessageId)), body+"\n"+string(attrs))
				del = append(del, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
				p, err := deadletter.Parse([]byte(body))
				if err != nil {
					res.DLQ.NotTriage++
					continue
				}
				id := p.SanitizedContext.DeadLetterID
				if seen[id] {
					res.DLQ.RawDuplicates++
					dupItems[p.ItemID] = true
					continue
				}
				seen[id] = true
				res.DLQ.Distinct++
				res.DLQ.ByStageClass[string(p.Stage)+" "+string(p.ErrorClass)]++
				byItem[p.ItemID] = append(byItem[p.ItemID], p)
			}
			if _, err := st.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: del}); err != nil {
				return nil, fmt.Errorf("soak: delete from the %s DLQ: %w", s, err)
			}
		}
	}
	res.DLQ.DuplicateItems = slices.Sorted(maps.Keys(dupItems))
	return byItem, nil
}

// errorLog counts the failures by stage and class and searches every entry
// for the planted secrets.
func (r *runner) errorLog(ctx context.Context, res *Result) error {
	res.Failures = map[string]int{}
	err := r.st.Scan(ctx, r.st.Info.Outputs["ErrorLogTableName"], "", nil, func(it map[string]dbtypes.AttributeValue) {
		res.Failures[devstack.Str(it["stage"])+" "+devstack.Str(it["error_class"])]++
		b, _ := json.Marshal(plainAttrs(it))
		r.scan.Search(CorpusErrorLog, "entry of "+devstack.Str(it["item_id"]), string(b))
	})
	if err != nil {
		return fmt.Errorf("soak: the error log: %w", err)
	}
	return nil
}

// plainAttrs renders DynamoDB attributes as plain JSON values for the
// secret search.
func plainAttrs(m map[string]dbtypes.AttributeValue) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = plainAttr(v)
	}
	return out
}

func plainAttr(v dbtypes.AttributeValue) any {
	switch t := v.(type) {
	case *dbtypes.AttributeValueMemberS:
		return t.Value
	case *dbtypes.AttributeValueMemberN:
		return t.Value
	case *dbtypes.AttributeValueMemberBOOL:
		return t.Value
	case *dbtypes.AttributeValueMemberM:
		return plainAttrs(t.Value)
	case *dbtypes.AttributeValueMemberL:
		out := make([]any, len(t.Value))
		for i, e := range t.Value {
			out[i] = plainAttr(e)
		}
		return out
	case *dbtypes.AttributeValueMemberSS:
		return t.Value
	}
	return nil
}
