package stage

import (
	"context"
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

	"github.com/triagehq/triage/shared/deadletter"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/redact"
	"github.com/triagehq/triage/shared/retry"
	"github.com/triagehq/triage/shared/state"
	"github.com/triagehq/triage/shared/telemetry"
)

// Items is the item store the runner needs (state.Items, state.Memory).
// Create is the first stage's only: it creates an item from a producer's
// spec (package intake).
type Items interface {
	Create(ctx context.Context, n state.NewItem) (state.Item, error)
	Claim(ctx context.Context, req state.ClaimRequest) (state.Item, error)
	Complete(ctx context.Context, req state.CompleteRequest) error
	Fail(ctx context.Context, req state.FailRequest) (int, error)
	Park(ctx context.Context, req state.FailRequest, p state.Parking) (int, error)
	Release(ctx context.Context, req state.ReleaseRequest) error
	MarkDeadLettered(ctx context.Context, itemID string, stage pipeline.Stage, ref state.DeadLetterRef, now time.Time) error
}

// ErrorLog receives one entry per failure.
type ErrorLog interface {
	Append(ctx context.Context, e state.LogEntry) error
}

// Queues is the part of the SQS client the runner uses.
type Queues interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
}

// Clock tells the time. Decision code never calls time.Now itself.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

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
	// MaxVisibility is the longest wait SQS can hold a message for: 12 hours
	// from receipt, less a margin for the time since the receive. Longer
	// waits are parked for the scheduler.
	MaxVisibility = 12*time.Hour - 15*time.Minute
	// DefaultResendDelay is the visibility of a record whose outcome could not
	// be made durable (a forward or DLQ send failed): soon, but not hot.
	DefaultResendDelay = 2 * time.Second
	// DefaultLease is the lease when the context has no deadline (tests,
	// local tools); in Lambda the lease ends at the invocation's deadline.
	DefaultLease = 15 * time.Minute
)

// Runner is one stage's SQS batch handler: DESIGN.md "Per record", every step.
// Build it once in main and pass Handle to lambda.Start.
type Runner struct {
	// Stage is the stage this function runs.
	Stage pipeline.Stage
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
	// Profile decides retries; nil means retry.Standard().
	Profile *retry.Profile
	// Clock and Rand are injected; nil means the wall clock and math/rand/v2.
	Clock Clock
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
	// BackstopReceives is the maxReceiveCount of the queue's redrive policy.
	// A record that would be made visible again at receive count
	// BackstopReceives-1 or more is parked instead, so the backstop never
	// moves an item that triage is deliberately retrying. Zero disables it.
	BackstopReceives int
	// ResendDelay: see DefaultResendDelay.
	ResendDelay time.Duration
	// AfterBatch, if set, is called at the end of every invocation (the
	// AWS-call counter reports there).
	AfterBatch func(ctx context.Context, log *slog.Logger)
	// Notices, if set, tells items' owners of dead letters and scheduled
	// retries (package notice); nil tells nobody.
	Notices Notices

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
	forward *pipeline.Envelope
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
	clock := r.Clock
	if clock == nil {
		clock = SystemClock{}
	}
	b.now = clock.Now
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

// bookkeeping returns a context for durable writes after the work: it
// survives the work's cancellation but not the invocation's end.
func (b *batch) bookkeeping() (context.Context, context.CancelFunc) {
	ctx := context.WithoutCancel(b.ctx)
	if !b.deadline.IsZero() {
		return context.WithDeadline(ctx, b.deadline.Add(-200*time.Millisecond))
	}
	return context.WithTimeout(ctx, 30*time.Second)
}

func (b *batch) process(msg events.SQSMessage) (out outcome) {
	// A panic outside the work (a store bug) must not lose the batch: the
	// record is returned to the queue untouched.
	defer func() {
		if v := recover(); v != nil {
			b.log.Error("panic in the runner; record returned to the queue", "message_id", msg.MessageId,
				"error", redact.String(fmt.Sprint(v)))
			out = outcome{visibility: b.r.resendDelay(), kind: "runner_panic"}
		}
	}()
	env, spec, err := b.decode(msg)
	if err != nil {
		return b.deadLetterMessage(msg, failure.Wrap(failure.SchemaInvalid, err, "malformed message"), "")
	}
	rc := receiveCount(msg)
	owner := msg.MessageId + "#" + strconv.Itoa(rc)
	log := b.log.With("item_id", env.ItemID, "correlation_id", env.CorrelationID, "message_id", msg.MessageId, "receive_count", rc)
	ctx, cancel := b.bookkeeping()
	defer cancel()
	now := b.now()
	if spec != nil {
		if out, done := b.create(ctx, log, msg, &env, *spec, owner, now); done {
			return out
		}
	}
	item, err := b.r.Items.Claim(ctx, state.ClaimRequest{
		ItemID: env.ItemID, Stage: b.r.Stage, Owner: owner,
		Carrier: msg.MessageId, Now: now, LeaseFor: b.leaseFor,
	})
	if err != nil {
		var ce *state.ClaimError
		if errors.As(err, &ce) {
			return b.onConflict(ctx, log, msg, env, ce.Current)
		}
		return b.storeUnavailable(log, rc, "claim", err)
	}
	rec := record{b: b, msg: msg, env: env, item: item, owner: owner, rc: rc, log: log, claimedAt: now}
	return rec.run()
}

// storeUnavailable returns a record whose first write (create or claim)
// failed on the store: nothing was recorded, nothing counts. It backs off on
// the receive count; the queue's backstop bounds a permanent outage.
func (b *batch) storeUnavailable(log *slog.Logger, rc int, what string, err error) outcome {
	cl := failure.Classify(err)
	d := retry.Exponential{Initial: time.Second, Multiplier: 2, Max: 5 * time.Minute, Jitter: retry.FullJitter}.
		Delay(rc, b.r.rand()())
	log.Error(what+" failed; record returned to the queue", "class", string(cl.Class), "error", redact.String(err.Error()))
	b.r.metrics().Count(MetricStoreErrors, b.r.Stage, cl.Class, 1)
	return outcome{visibility: max(d, time.Second), kind: "store_unavailable"}
}

// record is one claimed record being processed.
type record struct {
	b         *batch
	msg       events.SQSMessage
	env       pipeline.Envelope
	item      state.Item
	owner     string
	rc        int
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
		workCtx, cancel = context.WithDeadline(b.ctx, b.workDeadline)
		defer cancel()
	}
	out, werr := rec.work(workCtx)
	ctx, cancel := b.bookkeeping()
	defer cancel()
	if werr == nil {
		return rec.succeed(ctx, out)
	}
	var wait *failure.WaitError
	if errors.As(werr, &wait) {
		return rec.release(ctx, wait)
	}
	return rec.fail(ctx, werr)
}

// work runs the stage, turning a panic into an INTERNAL_BUG failure of this
// record only.
func (rec *record) work(ctx context.Context) (out state.Output, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = failure.Recovered(v)
		}
	}()
	return rec.b.r.Work.Run(ctx, rec.item)
}

func (rec *record) succeed(ctx context.Context, out state.Output) outcome {
	r := rec.b.r
	err := r.Items.Complete(ctx, state.CompleteRequest{
		ItemID: rec.item.ID, Stage: r.Stage, Owner: rec.owner, Now: rec.b.now(), Output: out,
	})
	if err != nil {
		return rec.unrecorded(rec.log, err, "the success")
	}
	r.metrics().Count(MetricSuccesses, r.Stage, "", 1)
	rec.log.Info("stage succeeded", "attempt", rec.item.Attempts[r.Stage]+1)
	o := outcome{ack: true, kind: "success"}
	if next, ok := r.Stage.Next(); ok {
		o.forward = &pipeline.Envelope{ItemID: rec.item.ID, Stage: next, CorrelationID: rec.env.CorrelationID, Replay: rec.env.Replay}
	}
	return o
}

// release gives the lease back for a closed gate: no attempt is spent.
func (rec *record) release(ctx context.Context, w *failure.WaitError) outcome {
	r := rec.b.r
	now := rec.b.now()
	until := w.Until
	if !until.After(now) {
		until = now.Add(time.Second)
	}
	err := r.Items.Release(ctx, state.ReleaseRequest{
		ItemID: rec.item.ID, Stage: r.Stage, Owner: rec.owner, Now: now, NotBefore: until, Reason: w.Reason,
	})
	if err != nil {
		return rec.unrecorded(rec.log, err, "the wait")
	}
	r.metrics().Count(MetricWaits, r.Stage, "", 1)
	rec.log.Info("gate closed; waiting without spending an attempt", "until", until.UTC().Format(time.RFC3339), "reason", w.Reason)
	return outcome{visibility: until.Sub(now), kind: "wait"}
}

func (rec *record) fail(ctx context.Context, werr error) outcome {
	b, r := rec.b, rec.b.r
	now := b.now()
	cl := failure.Classify(werr)
	prev := rec.item.Attempts[r.Stage]
	profile := r.profile()
	attempt := prev
	if profile.Policy(r.Stage, cl.Class).Counts || !profile.Policy(r.Stage, cl.Class).Retryable {
		attempt = prev + 1
	}
	dec := profile.Decide(retry.Input{Stage: r.Stage, Failure: cl, Attempt: max(attempt, 1), Now: now, Rand: r.rand()})
	errText := redact.String(werr.Error())
	details := redact.Map(failure.Details(werr))
	attrs := make([]any, 0, 10+2*len(details))
	attrs = append(attrs, "class", string(cl.Class), "attempt", attempt, "reason", cl.Reason, "error", truncate(errText, 512))
	if _, dup := details["upstream_status"]; cl.Status != 0 && !dup {
		attrs = append(attrs, "upstream_status", cl.Status)
	}
	for k, v := range details { // model, host, request_id, upstream_status
		attrs = append(attrs, k, v)
	}
	log := rec.log.With(attrs...)
	le := state.LastError{
		Component: r.Stage, ErrorClass: cl.Class, Error: truncate(errText, 1024), ErrorType: deadletter.ErrorType(werr),
		ErrorCode: redact.String(cl.Code), FailedAt: now, CorrelationID: rec.env.CorrelationID,
		RetryCount: attempt, Retryable: cl.Retryable, MaxRetries: profile.Policy(r.Stage, cl.Class).MaxAttempts,
		Details: details,
	}
	if cl.Status != 0 {
		if le.Details == nil {
			le.Details = map[string]string{}
		}
		le.Details["upstream_status"] = strconv.Itoa(cl.Status)
	}
	entry := state.LogEntry{
		ItemID: rec.item.ID, Stage: r.Stage, Class: cl.Class, Message: truncate(errText, 1024), Attempt: attempt,
		MessageID: rec.msg.MessageId, CorrelationID: rec.env.CorrelationID, Decision: dec.Reason(),
		Retryable: cl.Retryable, OccurredAt: now,
	}
	r.metrics().Count(MetricFailures, r.Stage, cl.Class, 1)
	switch d := dec.(type) {
	case retry.DeadLetter:
		return rec.deadLetter(ctx, log, werr, cl, d, le, entry)
	case retry.Retry:
		until := now.Add(d.Delay)
		le.RetryAt = &until
		return rec.retryAt(ctx, log, le, entry, until, true, d.Reason())
	case retry.Wait:
		until := d.Until
		le.RetryAt = &until
		return rec.retryAt(ctx, log, le, entry, until, false, d.Reason())
	}
	return outcome{visibility: r.resendDelay(), kind: "unknown_decision"}
}

// retryAt records the failure and holds the record until `until`: through
// SQS visibility when it can, parked for the scheduler when the wait is
// beyond what SQS allows or the backstop's receive count is near.
func (rec *record) retryAt(ctx context.Context, log *slog.Logger, le state.LastError, entry state.LogEntry,
	until time.Time, counts bool, why string) outcome {
	b, r := rec.b, rec.b.r
	now := b.now()
	req := state.FailRequest{
		ItemID: rec.item.ID, Stage: r.Stage, Owner: rec.owner, Now: now, PrevAttempts: rec.item.Attempts[r.Stage],
		Counts: counts, Next: state.Retryable, NotBefore: until, LastError: le,
	}
	delay := until.Sub(now)
	park := delay > r.maxVisibility() || (r.BackstopReceives > 0 && rec.rc >= r.BackstopReceives-1)
	var (
		n   int
		err error
	)
	if park {
		n, err = r.Items.Park(ctx, req, state.Parking{DueAt: until, Envelope: rec.env, Reason: string(le.ErrorClass)})
	} else {
		n, err = r.Items.Fail(ctx, req)
	}
	if err != nil {
		return rec.unrecorded(log, err, "the failure")
	}
	entry.Attempt = n
	rec.appendLog(ctx, log, entry)
	if counts {
		rec.noticeRetry(ctx, log, le, n)
	}
	kind := "retry"
	if !counts {
		kind = "wait"
	}
	if park {
		r.metrics().Count(MetricParked, r.Stage, le.ErrorClass, 1)
		log.Warn("failure: parked for the scheduler", "attempts", n, "due", until.UTC().Format(time.RFC3339), "decision", why)
		return outcome{ack: true, kind: "parked"}
	}
	if counts {
		r.metrics().Count(MetricRetries, r.Stage, le.ErrorClass, 1)
	} else {
		r.metrics().Count(MetricWaits, r.Stage, le.ErrorClass, 1)
	}
	log.Warn("failure: will retry", "attempts", n, "delay_ms", delay.Milliseconds(), "decision", why)
	return outcome{visibility: delay, kind: kind}
}

// unrecorded handles an outcome write that failed. A lost lease means the
// lease expired and another delivery took the item over: its outcome is the
// one that counts, and this record is acknowledged. Any other error left
// nothing recorded: the record goes back to the queue soon.
func (rec *record) unrecorded(log *slog.Logger, err error, what string) outcome {
	if errors.Is(err, state.ErrConflict) {
		log.Warn("lease lost before " + what + " was recorded; the other delivery owns the item")
		return outcome{ack: true, kind: "lease_lost"}
	}
	log.Error("recording "+what+" failed; record returned to the queue", "store_error", redact.String(err.Error()))
	return outcome{visibility: rec.b.r.resendDelay(), kind: "store_unavailable"}
}

func (rec *record) appendLog(ctx context.Context, log *slog.Logger, e state.LogEntry) {
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
