package notice

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Defaults of the Handler's optional fields. A notice's retries are the
// policy's notice row (policy.Notice: docs/design.md "The decision table").
const (
	// DefaultMaxAttempts bounds a notice's delivery attempts.
	DefaultMaxAttempts = policy.DefaultNoticeAttempts
	// DefaultLease is the lease when the context has no deadline.
	DefaultLease = time.Minute
)

// Metric names the Handler counts, under the notify stage.
const (
	MetricDelivered  = "NoticesDelivered"
	MetricRetried    = "NoticesRetried"
	MetricAbandoned  = "NoticesAbandoned"
	MetricDuplicates = "NoticeDuplicates"
	// MetricVisibilityErrors counts kept notices whose visibility change
	// SQS refused (the call, or the record's entry): each comes back after
	// the queue's default visibility instead of its decided wait.
	MetricVisibilityErrors = "NoticeVisibilityErrors"
)

// Items reads the item a notice is about (its webhook URL).
type Items interface {
	Get(ctx context.Context, id string) (store.Item, error)
}

// Ledger is the notices' delivery ledger (*ledger.Trail, *ledger.Memory).
type Ledger interface {
	ClaimNotice(ctx context.Context, c ledger.NoticeClaim) (ledger.Notice, error)
	SettleNotice(ctx context.Context, s ledger.NoticeSettle) error
}

// Poster POSTs a notice to a webhook, signed, with n.ID as the
// Idempotency-Key; it sets SentAt. Errors classify as the notify stage's
// (failure.Classify): a 2xx is nil, anything else an error.
type Poster interface {
	PostNotice(ctx context.Context, webhookURL string, n Notice) (status int, err error)
}

// Queue is the part of the SQS client the Handler uses.
type Queue interface {
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
}

// Metrics receives counters (telemetry.EMF, runner.Metrics).
type Metrics = telemetry.Counter

// Handler delivers the notice queue; the notify function routes the queue's
// batches to Handle.
type Handler struct {
	Items  Items
	Ledger Ledger
	Poster Poster
	SQS    Queue
	// QueueURL is the notice queue.
	QueueURL string
	// MaxAttempts bounds the attempts per notice; zero is the policy's
	// notice row's.
	MaxAttempts int
	// InitialDelay and MaxDelay override the notice row's first wait and
	// its cap on every wait; zero keeps the row's.
	InitialDelay, MaxDelay time.Duration
	// Now and Rand are injected; nil means the wall clock and math/rand/v2.
	Clock clock.Clock
	Rand  func() float64
	// Log and Metrics; nil discards.
	Log     *slog.Logger
	Metrics Metrics
}

// Handle delivers one batch and reports the records to keep: those whose
// notice waits for another attempt, or whose bookkeeping failed. It never
// returns an error (Lambda would retry the whole batch).
func (h *Handler) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	type kept struct {
		i     int
		delay time.Duration
	}
	var (
		mu   sync.Mutex
		keep []kept
		wg   sync.WaitGroup
	)
	for i, msg := range ev.Records {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, ok := h.one(ctx, msg); !ok {
				mu.Lock()
				keep = append(keep, kept{i, d})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	var resp events.SQSEventResponse
	var entries []sqstypes.ChangeMessageVisibilityBatchRequestEntry
	for _, k := range keep {
		msg := ev.Records[k.i]
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
		entries = append(entries, sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(k.i)),
			ReceiptHandle: aws.String(msg.ReceiptHandle), VisibilityTimeout: int32(min(math.Ceil(k.delay.Seconds()), 43200))})
	}
	for start := 0; start < len(entries); start += 10 {
		chunk := entries[start:min(start+10, len(entries))]
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policy.OutlivingWrite)
		out, err := h.SQS.ChangeMessageVisibilityBatch(bctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(h.QueueURL), Entries: chunk})
		cancel()
		// Nothing is lost: the notices come back after the queue's default
		// visibility instead of their decided wait.
		if err != nil {
			h.log().Error("notice visibility change failed", "records", len(chunk), "error", redact.String(err.Error()))
			telemetry.CounterOr(h.Metrics).Count(MetricVisibilityErrors, work.Notify, "", len(chunk))
			continue
		}
		for _, f := range out.Failed {
			// Ids and codes only: an entry's message can quote its receipt
			// handle.
			attrs := []any{"entry", aws.ToString(f.Id), "code", aws.ToString(f.Code), "sender_fault", f.SenderFault}
			if i, err := strconv.Atoi(aws.ToString(f.Id)); err == nil && i >= 0 && i < len(ev.Records) {
				attrs = append(attrs, "message_id", ev.Records[i].MessageId)
			}
			h.log().Error("notice visibility change failed for a record", attrs...)
			telemetry.CounterOr(h.Metrics).Count(MetricVisibilityErrors, work.Notify, "", 1)
		}
	}
	return resp, nil
}

// one handles a record; ok false keeps it, visible again after delay.
func (h *Handler) one(ctx context.Context, msg events.SQSMessage) (delay time.Duration, ok bool) {
	log := h.log().With("message_id", msg.MessageId)
	n, err := Decode(msg.Body)
	if err != nil {
		// A notice that cannot be read has nobody to tell: dropped, never a
		// dead letter.
		log.Error("malformed notice dropped", "error", redact.String(err.Error()))
		h.count(MetricAbandoned, work.SchemaInvalid)
		return 0, true
	}
	log = log.With("item_id", n.ItemID, "correlation_id", n.CorrelationID, "event", string(n.Event), "notice_id", n.ID)
	rc := receiveCount(msg)
	owner := msg.MessageId + "#" + strconv.Itoa(rc)
	it, err := h.Items.Get(ctx, n.ItemID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		log.Error("notice dropped: its item does not exist")
		h.count(MetricAbandoned, work.NotFound)
		return 0, true
	case err != nil:
		log.Warn("reading the notice's item failed; kept for a retry", "error", redact.String(err.Error()))
		return h.policy().StoreRetry, false
	}
	now := h.now()
	claimed, err := h.Ledger.ClaimNotice(ctx, ledger.NoticeClaim{ItemID: n.ItemID, Key: n.ID, Event: string(n.Event),
		Stage: n.Stage, Class: n.Class, Attempt: n.Attempt, Owner: owner, Carrier: msg.MessageId, Now: now, LeaseFor: h.lease(ctx, now)})
	var ce *ledger.ClaimError
	switch {
	case errors.As(err, &ce):
		return h.busy(log, msg, ce.Current, now)
	case err != nil:
		log.Warn("claiming the notice failed; kept for a retry", "error", redact.String(err.Error()))
		return h.policy().StoreRetry, false
	}
	pol := h.policy()
	if pol.Exhausted(claimed.Attempts) {
		// Only a crash loop gets here (every attempt's outcome is settled
		// otherwise): give up before any work, logged and counted as every
		// abandoned notice is.
		log.Error("notice abandoned: the owner was not told; its attempts ended without an outcome",
			"attempts", claimed.Attempts-1, "class", string(work.InternalBug))
		h.count(MetricAbandoned, work.InternalBug)
		return h.settle(ctx, log, ledger.NoticeSettle{ItemID: n.ItemID, Key: n.ID, Owner: owner, Now: now, State: ledger.NoticeAbandoned,
			Class: work.InternalBug, Error: "attempts exhausted without an outcome"}, claimed.Attempts-1, 0)
	}
	status, perr := h.Poster.PostNotice(ctx, it.WebhookURL, n)
	now = h.now()
	if perr == nil {
		log.Info("notice delivered", "attempt", claimed.Attempts, "status", status)
		h.count(MetricDelivered, "")
		return h.settle(ctx, log, ledger.NoticeSettle{ItemID: n.ItemID, Key: n.ID, Owner: owner, Now: now,
			State: ledger.NoticeDelivered, Status: status}, claimed.Attempts, 0)
	}
	cl := failure.Classify(perr)
	errText := deadletter.ErrorText(perr) // the owner's webhook answer by status, code and message: never its body
	s := ledger.NoticeSettle{ItemID: n.ItemID, Key: n.ID, Owner: owner, Now: now, Status: cl.Status, Class: cl.Class, Error: errText}
	next, retrying := pol.Decide(policy.CallInput{Attempt: claimed.Attempts, Failure: cl, Now: now, Rand: h.rand()}).(policy.Retry)
	if !retrying {
		// Logged and counted; the dead letter (or the retry) it tells of
		// stands whatever happens here.
		log.Error("notice abandoned: the owner was not told", "attempts", claimed.Attempts, "class", string(cl.Class),
			"error", work.Ellipsis(errText, 512))
		h.count(MetricAbandoned, cl.Class)
		s.State = ledger.NoticeAbandoned
		return h.settle(ctx, log, s, claimed.Attempts, 0)
	}
	wait := next.Delay
	s.State, s.NotBefore = ledger.NoticePending, now.Add(wait)
	log.Warn("notice attempt failed; will retry", "attempt", claimed.Attempts, "class", string(cl.Class),
		"delay_ms", wait.Milliseconds(), "error", work.Ellipsis(errText, 512))
	h.count(MetricRetried, cl.Class)
	return h.settle(ctx, log, s, claimed.Attempts, wait)
}

// settle records an attempt's outcome; wait > 0 keeps the record that long.
func (h *Handler) settle(ctx context.Context, log *slog.Logger, s ledger.NoticeSettle, attempts int, wait time.Duration) (time.Duration, bool) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policy.OutlivingWrite)
	defer cancel()
	if err := h.Ledger.SettleNotice(sctx, s); err != nil {
		if errors.Is(err, ledger.ErrLeaseLost) {
			log.Warn("notice lease lost; the other delivery owns it", "attempt", attempts)
			return 0, true
		}
		// The lease runs out and the redelivery takes the notice over; its
		// attempt counts, so the bound holds.
		log.Error("recording the notice's outcome failed; kept for a retry", "state", string(s.State), "error", redact.String(err.Error()))
		return max(wait, h.policy().StoreRetry), false
	}
	if wait > 0 {
		return wait, false
	}
	return 0, true
}

// busy decides what a record whose claim lost means.
func (h *Handler) busy(log *slog.Logger, msg events.SQSMessage, cur ledger.Notice, now time.Time) (time.Duration, bool) {
	switch {
	case cur.State.Final():
		h.count(MetricDuplicates, "")
		log.Info("notice already "+string(cur.State)+"; duplicate acknowledged", "attempts", cur.Attempts)
		return 0, true
	case cur.State == ledger.NoticeSending:
		if holder, _, _ := strings.Cut(cur.LeaseOwner, "#"); holder == msg.MessageId {
			// An earlier receive of this very message still holds it.
			return cur.LeaseUntil.Sub(now) + h.policy().MinDelay, false
		}
	case cur.State == ledger.NoticePending && cur.Carrier == msg.MessageId:
		return max(cur.NotBefore.Sub(now), h.policy().MinDelay), false
	}
	h.count(MetricDuplicates, "")
	log.Info("another message carries this notice; duplicate acknowledged", "state", string(cur.State))
	return 0, true
}

// policy is the policy's notice row with the Handler's overrides.
func (h *Handler) policy() policy.CallRow {
	return policy.Notice().Override(h.MaxAttempts, h.InitialDelay, h.MaxDelay)
}

func (h *Handler) rand() func() float64 {
	if h.Rand != nil {
		return h.Rand
	}
	return rand.Float64
}

func (h *Handler) lease(ctx context.Context, now time.Time) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(d.Sub(now)+time.Second, time.Second)
	}
	return DefaultLease
}

func (h *Handler) now() time.Time { return clock.Or(h.Clock).Now() }

func (h *Handler) count(name string, class work.Class) {
	telemetry.CounterOr(h.Metrics).Count(name, work.Notify, class, 1)
}

func (h *Handler) log() *slog.Logger {
	return telemetry.Or(h.Log).With("component", "notices")
}

// receiveCount reads ApproximateReceiveCount; 1 when absent.
func receiveCount(msg events.SQSMessage) int {
	n, err := strconv.Atoi(msg.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}
