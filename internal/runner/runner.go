package runner

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Items is the item store the runner needs (store.Items, store.Memory).
// Create is the first stage's only: it creates an item from a producer's
// spec (package intake).
type Items interface {
	Create(ctx context.Context, n store.NewItem) (store.Item, error)
	Claim(ctx context.Context, req store.ClaimRequest) (store.Item, error)
	Complete(ctx context.Context, req store.CompleteRequest) error
	Fail(ctx context.Context, req store.FailRequest) (int, error)
	Park(ctx context.Context, req store.FailRequest, p store.Parking) (int, error)
	Release(ctx context.Context, req store.ReleaseRequest) error
	ParkWait(ctx context.Context, req store.ReleaseRequest, p store.Parking) error
	MarkDeadLettered(ctx context.Context, itemID string, stage work.Stage, ref store.DeadLetterRef, now time.Time) error
}

// Gates is the gates store the runner writes (store.Gates,
// store.MemoryGates): Touch before parking an item behind a gate, so the
// scheduler lists the gate; Congested when an item a gate released meets a
// congested upstream, so the gate's ramp slows down.
type Gates interface {
	Touch(ctx context.Context, g gates.Name, now time.Time) error
	Congested(ctx context.Context, g gates.Name, now time.Time) error
}

// ErrorLog receives one entry per failure.
type ErrorLog interface {
	Append(ctx context.Context, e store.LogEntry) error
}

// Queues is the part of the SQS client the runner uses.
type Queues interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
}

// Defaults for the Runner's optional fields.
const (
	// DefaultConcurrency is how many records of a batch run at once.
	DefaultConcurrency = 4
	// DefaultSafetyMargin is reserved before the Lambda deadline for
	// bookkeeping: records are not started, and running work is cancelled,
	// this long before the deadline.
	DefaultSafetyMargin = 3 * time.Second
	// DefaultMinRecordTime is the least time a record needs; a record that
	// cannot get it before the margin is returned unprocessed.
	DefaultMinRecordTime = 2 * time.Second
	// MaxVisibility, DefaultParkAfter, DefaultParkAfterReceives: see
	// policy.Holding, which decides how a record waits.
	MaxVisibility            = policy.MaxVisibility
	DefaultParkAfter         = policy.DefaultParkAfter
	DefaultParkAfterReceives = policy.DefaultParkAfterReceives
	// DefaultResendDelay: see policy.ResendDelay.
	DefaultResendDelay = policy.ResendDelay
	// DefaultLease is the lease when the context has no deadline (tests,
	// local tools); in Lambda the lease ends at the invocation's deadline.
	DefaultLease = 15 * time.Minute
	// FinishReserve is the end of an invocation kept for the batch's own
	// SQS calls (the forwards, the visibility changes): a record's store
	// writes end this long before the deadline.
	FinishReserve = time.Second
)

// Runner is one stage's SQS batch handler: docs/design.md "One record, step
// by step", every step.
// Build it once in main and pass Handle to lambda.Start.
type Runner struct {
	// Stage is the stage this function runs.
	Stage work.Stage
	// Work is the stage's upstream call.
	Work Work
	// Items and ErrorLog are the DynamoDB stores.
	Items    Items
	ErrorLog ErrorLog
	// SQS sends forwards and dead letters and changes visibility.
	SQS Queues
	// QueueURL is this stage's queue; DLQURL its dead-letter queue;
	// NextQueueURL the next stage's queue (empty for the last stage).
	QueueURL, DLQURL, NextQueueURL string
	// Profile decides retries; nil means policy.Standard().
	Profile *policy.Profile
	// Clock and Rand are injected; nil means the wall clock and math/rand/v2.
	Clock clock.Clock
	Rand  func() float64
	// Log receives structured logs; nil discards them.
	Log *slog.Logger
	// Metrics receives counters; nil discards them.
	Metrics Metrics
	// Concurrency, SafetyMargin, MinRecordTime: see the Default constants.
	Concurrency   int
	SafetyMargin  time.Duration
	MinRecordTime time.Duration
	// MaxVisibility caps waits held through SQS visibility; zero is
	// MaxVisibility. Longer waits are parked.
	MaxVisibility time.Duration
	// ParkAfter and ParkAfterReceives: see DefaultParkAfter and
	// DefaultParkAfterReceives; zero means the default.
	ParkAfter         time.Duration
	ParkAfterReceives int
	// BackstopReceives is the maxReceiveCount of the queue's redrive policy.
	// A record that would be made visible again at receive count
	// BackstopReceives-1 or more is parked instead, so the backstop never
	// moves an item that triage is deliberately retrying. Zero disables it.
	BackstopReceives int
	// StoreOutageTolerance overrides policy.StoreOutageTolerance, the store
	// outage a record's holds span before the backstop's last delivery;
	// zero keeps it (STORE_OUTAGE_TOLERANCE, a test and demo override).
	StoreOutageTolerance time.Duration
	// Gates lists the gates items wait behind and takes the ramps'
	// congestion signals; nil parks every wait as a plain due wait (the
	// scheduler can find a gate's waiters only through the gate's record).
	Gates Gates
	// ResendDelay: see DefaultResendDelay.
	ResendDelay time.Duration
	// AfterBatch, if set, is called at the end of every invocation (the
	// AWS-call counter reports there).
	AfterBatch func(ctx context.Context, log *slog.Logger)
	// Notices, if set, tells items' owners of dead letters and scheduled
	// retries (package notice); nil tells nobody.
	Notices Notices

	touched touchCache

	// unknownSeen are the unknown message fields already logged.
	unknownMu   sync.Mutex
	unknownSeen map[string]bool
}

// Handle processes one SQS batch and reports the records to keep as batch
// item failures; it never returns an error, because a function error would
// make Lambda retry the whole batch, including records already done.
func (r *Runner) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	b := r.newBatch(ctx, ev)
	b.run()
	return b.finish(), nil
}

// outcome is what happens to one record at the end of the batch.
type outcome struct {
	ack bool
	// visibility is when an unacknowledged record may be received again.
	visibility time.Duration
	// forward is sent to the next stage queue before the record is acknowledged.
	forward *work.Envelope
	// kind names the outcome for logs and metrics.
	kind string
}

type batch struct {
	r            *Runner
	ctx          context.Context // the invocation's context
	records      []events.SQSMessage
	outcomes     []outcome
	log          *slog.Logger
	now          func() time.Time
	deadline     time.Time // zero when the context has none
	workDeadline time.Time
	leaseFor     time.Duration
}

func (r *Runner) newBatch(ctx context.Context, ev events.SQSEvent) *batch {
	b := &batch{r: r, ctx: ctx, records: ev.Records, outcomes: make([]outcome, len(ev.Records))}
	b.now = clock.Or(r.Clock).Now
	b.log = r.logger()
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		b.log = b.log.With("request_id", lc.AwsRequestID)
	}
	b.log = b.log.With("stage", string(r.Stage))
	b.leaseFor = DefaultLease
	if d, ok := ctx.Deadline(); ok {
		b.deadline = d
		b.workDeadline = d.Add(-r.safetyMargin())
		b.leaseFor = max(d.Sub(b.now())+r.safetyMargin(), time.Second)
	}
	return b
}

// run processes the records with bounded concurrency. A record is checked
// against the deadline when a worker picks it up: one that cannot get
// MinRecordTime before the safety margin is returned unprocessed, visible
// again at once, with nothing recorded and no attempt spent.
func (b *batch) run() {
	next := make(chan int)
	var wg sync.WaitGroup
	var late atomic.Int64
	for range min(b.r.concurrency(), len(b.records)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if !b.deadline.IsZero() && b.now().Add(b.r.minRecordTime()).After(b.workDeadline) {
					b.outcomes[i] = outcome{visibility: 0, kind: "not_reached"}
					late.Add(1)
					continue
				}
				b.outcomes[i] = b.process(b.records[i])
			}
		}()
	}
	for i := range b.records {
		next <- i
	}
	close(next)
	wg.Wait()
	if n := late.Load(); n > 0 {
		b.log.Warn("deadline near: records returned unprocessed", "unprocessed", n)
	}
}

// bookkeeping returns a context for a record's durable writes (its claim,
// its outcome): it survives the work's cancellation, and it ends
// FinishReserve before the invocation does, so that a store that hangs
// cannot take the time the batch's own SQS calls need (finishing).
func (b *batch) bookkeeping() (context.Context, context.CancelFunc) {
	ctx := context.WithoutCancel(b.ctx)
	if !b.deadline.IsZero() {
		return context.WithDeadline(ctx, b.deadline.Add(-FinishReserve))
	}
	return context.WithTimeout(ctx, policy.UndeadlinedBatch)
}

// finishing returns the context of the batch's last calls — the forwards
// and the visibility changes of the records kept —, which ends just before
// the invocation does. A visibility change cut short would bring its record
// back after the queue's default visibility instead of its decided hold,
// and spend a receive of the redrive backstop's (docs/design.md "A store
// that cannot be reached").
func (b *batch) finishing() (context.Context, context.CancelFunc) {
	ctx := context.WithoutCancel(b.ctx)
	if !b.deadline.IsZero() {
		return context.WithDeadline(ctx, b.deadline.Add(-200*time.Millisecond))
	}
	return context.WithTimeout(ctx, policy.UndeadlinedBatch)
}

func (b *batch) process(msg events.SQSMessage) (out outcome) {
	// A panic outside the work (a store bug) must not lose the batch: the
	// record is returned to the queue untouched, backing off on its receive
	// count like any outcome not yet durable, so a panic that recurs on
	// every receive spends the redrive backstop's receives over minutes.
	defer func() {
		if v := recover(); v != nil {
			d := b.r.unrecordedHold(receiveCount(msg))
			b.log.Error("panic in the runner; record returned to the queue", "message_id", msg.MessageId,
				"error", redact.String(fmt.Sprint(v)), "visibility_ms", d.Milliseconds())
			out = outcome{visibility: d, kind: "runner_panic"}
		}
	}()
	env, spec, err := b.decode(msg)
	if err != nil {
		return b.deadLetterMessage(msg, failure.Wrap(work.SchemaInvalid, err, "malformed message"), "")
	}
	rc := receiveCount(msg)
	del := deliveryOf(msg)
	owner := leaseOwner(msg, rc)
	log := b.log.With("item_id", env.ItemID, "correlation_id", env.CorrelationID, "message_id", msg.MessageId, "receive_count", rc)
	if del.Gate != "" {
		log = log.With("released_from", string(del.Gate))
	}
	ctx, cancel := b.bookkeeping()
	defer cancel()
	now := b.now()
	if spec != nil {
		if out, done := b.create(ctx, log, msg, &env, *spec, owner, now); done {
			return out
		}
	}
	item, err := b.r.Items.Claim(ctx, store.ClaimRequest{
		ItemID: env.ItemID, Stage: b.r.Stage, Owner: owner,
		Carrier: msg.MessageId, Now: now, LeaseFor: b.leaseFor,
	})
	if err != nil {
		var ce *store.ClaimError
		if errors.As(err, &ce) {
			return b.onLostClaim(ctx, log, msg, env, ce.Current)
		}
		return b.storeUnavailable(log, rc, "claim", err)
	}
	rec := record{b: b, msg: msg, env: env, item: item, owner: owner, rc: rc, delivery: del, log: log, claimedAt: now}
	return rec.run()
}

// leaseOwner names one delivery of msg: its message id and a digest of its
// receipt handle, which SQS issues anew for every receive (the approximate
// receive count is not guaranteed to differ between two deliveries of one
// message). A message without a receipt handle (a hand-written event) falls
// back to the receive count.
func leaseOwner(msg events.SQSMessage, rc int) string {
	if msg.ReceiptHandle == "" {
		return msg.MessageId + "#" + strconv.Itoa(rc)
	}
	sum := sha256.Sum256([]byte(msg.ReceiptHandle))
	return msg.MessageId + "#" + hex.EncodeToString(sum[:8])
}

// storeUnavailable returns a record whose first write (create or claim)
// failed on the store: nothing was recorded, nothing counts. It backs off on
// the receive count (policy.Holding.Unrecorded), so that the backstop's
// receives span a store outage of policy.StoreOutageTolerance; a longer one
// leaves a backstop message in the DLQ, which replay resumes.
func (b *batch) storeUnavailable(log *slog.Logger, rc int, what string, err error) outcome {
	cl := failure.Classify(err)
	d := b.r.holding().Unrecorded(rc, b.r.rand()())
	log.Error(what+" failed; record returned to the queue", "class", string(cl.Class), "error", redact.String(err.Error()),
		"visibility_ms", d.Milliseconds())
	b.r.metrics().Count(MetricStoreErrors, b.r.Stage, cl.Class, 1)
	return outcome{visibility: max(d, time.Second), kind: "store_unavailable"}
}

// record is one claimed record being processed.
type record struct {
	b         *batch
	msg       events.SQSMessage
	env       work.Envelope
	item      store.Item
	owner     string
	rc        int
	delivery  gates.Delivery
	log       *slog.Logger
	claimedAt time.Time
}

func (rec *record) run() outcome {
	b := rec.b
	// Work's own log lines carry the record's ids through the context
	// (telemetry.ContextHandler).
	workCtx := telemetry.WithAttrs(b.ctx, "item_id", rec.item.ID, "correlation_id", rec.env.CorrelationID,
		"stage", string(b.r.Stage), "message_id", rec.msg.MessageId)
	if !b.workDeadline.IsZero() {
		var cancel context.CancelFunc
		workCtx, cancel = context.WithDeadline(workCtx, b.workDeadline)
		defer cancel()
	}
	out, werr := rec.work(workCtx)
	ctx, cancel := b.bookkeeping()
	defer cancel()
	if werr == nil {
		return rec.succeed(ctx, out)
	}
	rec.signalCongestion(ctx, werr)
	if closed, ok := policy.ClosedOf(werr); ok {
		// A gate kept the work from running: the policy decides the wait.
		r := b.r
		w := r.profile().Decide(policy.Input{Stage: r.Stage, Closed: &closed, Now: b.now(), Released: rec.delivery.Gate}).(policy.Wait)
		return rec.hold(ctx, hold{until: w.Until, gate: w.Gate, reason: w.Why, suspect: store.SuspectOf(werr)})
	}
	return rec.fail(ctx, werr)
}

// signalCongestion tells the gate that released this record that its
// upstream is congested (the decision table's Congests: RATE_LIMITED, a
// 5xx, a timeout), so the gate's ramp
// slows down. Only the first delivery of the scheduler's message counts:
// it is the call the ramp released, where a retry of it through
// visibility is the item's own, which the ramp did not pace. Best effort:
// the ramp only paces releases.
func (rec *record) signalCongestion(ctx context.Context, werr error) {
	r := rec.b.r
	if rec.delivery.Gate == "" || r.Gates == nil || rec.rc > 1 || errors.Is(werr, failure.ErrWaiting) {
		return
	}
	if !r.profile().Policy(r.Stage, failure.Classify(werr).Class).Congests {
		return
	}
	if err := r.Gates.Congested(ctx, rec.delivery.Gate, rec.b.now()); err != nil && !errors.Is(err, store.ErrConflict) {
		rec.log.Warn("signalling congestion to the gate's ramp failed", "gate", string(rec.delivery.Gate), "error", redact.String(err.Error()))
	}
}

// work runs the stage, turning a panic into an INTERNAL_BUG failure of this
// record only.
func (rec *record) work(ctx context.Context) (out work.Output, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = failure.Recovered(v)
		}
	}()
	return rec.b.r.Work.Run(ctx, rec.item, rec.delivery)
}

func (rec *record) succeed(ctx context.Context, out work.Output) outcome {
	r := rec.b.r
	err := r.Items.Complete(ctx, store.CompleteRequest{
		ItemID: rec.item.ID, Stage: r.Stage, Owner: rec.owner, Now: rec.b.now(), Output: out,
	})
	if err != nil {
		return rec.unrecorded(rec.log, err, "the success")
	}
	r.metrics().Count(MetricSuccesses, r.Stage, "", 1)
	rec.log.Info("stage succeeded", "attempt", rec.item.Attempts[r.Stage]+1)
	o := outcome{ack: true, kind: "success"}
	if next, ok := r.Stage.Next(); ok {
		o.forward = &work.Envelope{ItemID: rec.item.ID, Stage: next, CorrelationID: rec.env.CorrelationID, Replay: rec.env.Replay}
	}
	return o
}

func (rec *record) fail(ctx context.Context, werr error) outcome {
	b, r := rec.b, rec.b.r
	now := b.now()
	cl := failure.Classify(werr)
	prev := rec.item.Attempts[r.Stage]
	profile := r.profile()
	g, _ := gates.Of(werr)
	dec := profile.Decide(policy.Input{Stage: r.Stage, Failure: cl, Attempt: prev + 1, Now: now, Rand: r.rand(),
		Gate: g, Released: rec.delivery.Gate})
	attempt := prev
	if dec.Counts() {
		attempt = prev + 1
	}
	errText := deadletter.ErrorText(werr) // upstream answers by status, code and message: never a body
	details := redact.Map(failure.Details(werr))
	attrs := make([]any, 0, 10+2*len(details))
	attrs = append(attrs, "class", string(cl.Class), "attempt", attempt, "reason", cl.Reason, "error", work.Ellipsis(errText, 512))
	if _, dup := details["upstream_status"]; cl.Status != 0 && !dup {
		attrs = append(attrs, "upstream_status", cl.Status)
	}
	for k, v := range details { // model, host, request_id, upstream_status
		attrs = append(attrs, k, v)
	}
	log := rec.log.With(attrs...)
	le := store.LastError{
		Component: r.Stage, ErrorClass: cl.Class, Error: work.Ellipsis(errText, 1024), ErrorType: deadletter.ErrorType(werr),
		ErrorCode: redact.String(cl.Code), FailedAt: now, CorrelationID: rec.env.CorrelationID,
		RetryCount: attempt, Retryable: cl.Retryable,
		Details: details,
	}
	if cl.Status != 0 {
		if le.Details == nil {
			le.Details = map[string]string{}
		}
		le.Details["upstream_status"] = strconv.Itoa(cl.Status)
	}
	entry := store.LogEntry{
		ItemID: rec.item.ID, Stage: r.Stage, Class: cl.Class, Message: work.Ellipsis(errText, 1024), Attempt: attempt,
		MessageID: rec.msg.MessageId, CorrelationID: rec.env.CorrelationID, Decision: dec.Reason(),
		Retryable: cl.Retryable, Default: cl.Default, Provider: cl.Provider, Status: cl.Status, Code: redact.String(cl.Code),
		OccurredAt: now,
	}
	r.metrics().Count(MetricFailures, r.Stage, cl.Class, 1)
	// A failure the upstream's breaker judged (docs/design.md "A failure
	// that follows one item") carries the item's run of outage failures,
	// recorded with the outcome.
	susp := store.SuspectOf(werr)
	switch d := dec.(type) {
	case policy.DeadLetter:
		le.MaxRetries = d.MaxAttempts
		return rec.deadLetter(ctx, log, werr, cl, d, le, entry, susp)
	case policy.Retry:
		le.MaxRetries = d.MaxAttempts
		until := now.Add(d.Delay)
		le.RetryAt = &until
		return rec.hold(ctx, hold{until: until, counts: d.Counts(), failure: &failed{le: le, entry: entry, log: log}, reason: d.Reason(),
			suspect: susp})
	case policy.Wait:
		le.MaxRetries = d.MaxAttempts
		until := d.Until
		le.RetryAt = &until
		return rec.hold(ctx, hold{until: until, gate: d.Gate, park: d.Park, failure: &failed{le: le, entry: entry, log: log}, reason: d.Reason(),
			suspect: susp})
	}
	return outcome{visibility: r.resendDelay(), kind: "unknown_decision"}
}

// hold is every decision that makes a record wait: a retry after a backoff
// (an attempt spent), a wait for a failure that spends none (a spent budget,
// a provider's quota), a wait behind a closed gate (an open breaker, no
// enabled model). The runner executes each in one place, hold.
type hold struct {
	// until is the earliest time the item may run again: the retry's due
	// time, or the gate's expected opening.
	until time.Time
	// gate is what the wait is behind; empty or gates.DueName for a plain due
	// time (every retry).
	gate gates.Name
	// counts is true when an attempt was spent (a retry).
	counts bool
	// park parks the record whatever the wait's length (an item a gate
	// released into a rate limit goes back behind the gate).
	park bool
	// failure is the failure to record (last_error, the error log); nil for
	// a gate's wait that is no failure of the item.
	failure *failed
	// reason explains the decision, for logs.
	reason string
	// suspect is the item's run of outage failures as the upstream's
	// breaker judged this one, recorded with the hold; nil leaves the
	// item's as it is.
	suspect *store.Suspect
}

// failed is a failure to record with a hold.
type failed struct {
	le    store.LastError
	entry store.LogEntry
	log   *slog.Logger
}

// hold records the wait and holds the record: through SQS visibility, or
// parked (policy.Holding decides). A wait behind a gate is parked under the gate, whose
// record is touched first so that the scheduler finds it; if that fails the
// item is parked for the plain due time instead, which the scheduler finds
// by time.
func (rec *record) hold(ctx context.Context, h hold) outcome {
	b, r := rec.b, rec.b.r
	now := b.now()
	log := rec.log
	if h.failure != nil {
		log = h.failure.log
	}
	if h.until.Before(now) {
		h.until = now
	}
	if h.gate == "" || h.counts {
		h.gate = gates.DueName
	}
	delay := h.until.Sub(now)
	park := h.park || r.holding().Park(delay, rec.rc, h.counts, !h.gate.IsDue() && r.Gates != nil)
	if park && !h.gate.IsDue() {
		if err := r.touch(ctx, h.gate, now); err != nil {
			log.Warn("the gate's record could not be touched; parked for its due time instead", "gate", string(h.gate),
				"error", redact.String(err.Error()))
			h.gate = gates.DueName
		}
	}
	parking := store.Parking{DueAt: h.until, Gate: h.gate, Envelope: rec.env, Reason: h.reason}
	if s := cmp.Or(h.suspect, rec.item.Suspect); s != nil {
		// What the scheduler reads when it picks a gate's probe.
		parking.Probes, parking.Suspect = s.Probes, true
	}
	rel := store.ReleaseRequest{ItemID: rec.item.ID, Stage: r.Stage, Owner: rec.owner, Now: now, NotBefore: h.until, Reason: h.reason,
		Suspect: h.suspect}
	var (
		n   int
		err error
	)
	switch {
	case h.failure != nil:
		parking.Reason = string(h.failure.le.ErrorClass)
		req := store.FailRequest{
			ItemID: rec.item.ID, Stage: r.Stage, Owner: rec.owner, Now: now, PrevAttempts: rec.item.Attempts[r.Stage],
			Counts: h.counts, Next: work.Retryable, NotBefore: h.until, LastError: h.failure.le, Suspect: h.suspect,
		}
		if park {
			n, err = r.Items.Park(ctx, req, parking)
		} else {
			n, err = r.Items.Fail(ctx, req)
		}
	case park:
		err = r.Items.ParkWait(ctx, rel, parking)
	default:
		err = r.Items.Release(ctx, rel)
	}
	what := "the wait"
	if h.failure != nil {
		what = "the failure"
	}
	if err != nil {
		return rec.unrecorded(log, err, what)
	}
	if h.failure != nil {
		h.failure.entry.Attempt = n
		rec.appendLog(ctx, log, h.failure.entry)
		if h.counts {
			rec.noticeRetry(ctx, log, h.failure.le, n)
		}
	}
	class := work.Class("")
	if h.failure != nil {
		class = h.failure.le.ErrorClass
	}
	if park {
		r.metrics().Count(MetricParked, r.Stage, class, 1)
		log.Warn("parked for the scheduler", "attempts", n, "gate", h.gate.String(), "until", h.until.UTC().Format(time.RFC3339),
			"decision", h.reason)
		return outcome{ack: true, kind: "parked"}
	}
	if h.counts {
		r.metrics().Count(MetricRetries, r.Stage, class, 1)
		log.Warn("failure: will retry", "attempts", n, "delay_ms", delay.Milliseconds(), "decision", h.reason)
		return outcome{visibility: delay, kind: "retry"}
	}
	r.metrics().Count(MetricWaits, r.Stage, class, 1)
	log.Info("waiting without spending an attempt", "gate", h.gate.String(), "until", h.until.UTC().Format(time.RFC3339),
		"decision", h.reason)
	return outcome{visibility: delay, kind: "wait"}
}

// touch records that an item is about to park behind g, at most once per
// store.TouchEvery per gate in this process.
func (r *Runner) touch(ctx context.Context, g gates.Name, now time.Time) error {
	if r.Gates == nil {
		return errors.New("no gates store configured")
	}
	if r.touched.fresh(g, now) {
		return nil
	}
	if err := r.Gates.Touch(ctx, g, now); err != nil {
		return err
	}
	r.touched.mark(g, now)
	return nil
}

// touchCache remembers when this process last touched each gate.
type touchCache struct {
	mu sync.Mutex
	at map[gates.Name]time.Time
}

// maxTouched bounds touchCache: stale entries are swept past it.
const maxTouched = 4096

func (c *touchCache) fresh(g gates.Name, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.at[g]
	return ok && !now.Before(at) && now.Sub(at) < store.TouchEvery
}

func (c *touchCache) mark(g gates.Name, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[gates.Name]time.Time{}
	}
	if len(c.at) >= maxTouched {
		for k, at := range c.at {
			if now.Sub(at) >= store.TouchEvery {
				delete(c.at, k)
			}
		}
	}
	c.at[g] = now
}

// unrecorded handles an outcome write that failed. A lost lease means the
// lease expired and another delivery took the item over: its outcome is the
// one that counts, and this record is acknowledged. Any other error left
// nothing recorded: the record goes back to the queue, backing off on its
// receive count as a failed claim does (policy.Holding.Unrecorded), so that
// a store outage spends the backstop's receives no faster on this path.
func (rec *record) unrecorded(log *slog.Logger, err error, what string) outcome {
	if errors.Is(err, store.ErrConflict) {
		log.Warn("lease lost before " + what + " was recorded; the other delivery owns the item")
		return outcome{ack: true, kind: "lease_lost"}
	}
	r := rec.b.r
	r.metrics().Count(MetricStoreErrors, r.Stage, failure.Classify(err).Class, 1)
	d := r.unrecordedHold(rec.rc)
	log.Error("recording "+what+" failed; record returned to the queue", "store_error", redact.String(err.Error()),
		"visibility_ms", d.Milliseconds())
	return outcome{visibility: d, kind: "store_unavailable"}
}

func (rec *record) appendLog(ctx context.Context, log *slog.Logger, e store.LogEntry) {
	if rec.b.r.ErrorLog == nil {
		return
	}
	// The error log is for reports; failing to write it must not change the
	// item's outcome, which is already durable.
	if err := rec.b.r.ErrorLog.Append(ctx, e); err != nil {
		log.Error("error log append failed", "store_error", redact.String(err.Error()))
	}
}

// receiveCount reads ApproximateReceiveCount; 1 when absent.
func receiveCount(msg events.SQSMessage) int {
	n, err := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// visibilitySeconds rounds a delay up to SQS's whole seconds, so a record
// never reappears before its decided delay; clamped to [0, 12h].
func visibilitySeconds(d time.Duration) int32 {
	if d <= 0 {
		return 0
	}
	s := math.Ceil(d.Seconds())
	return int32(min(s, 43200))
}
