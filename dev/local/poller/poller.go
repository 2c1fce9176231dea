package poller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/local/lambda"
	"github.com/triagehq/triage/dev/local/template"
	"github.com/triagehq/triage/internal/clock"
)

// Invoker runs a function once; *lambda.Service implements it.
type Invoker interface {
	Invoke(ctx context.Context, fn string, payload []byte) (lambda.Result, error)
}

// SQSAPI is the part of the SQS client the poller uses.
type SQSAPI interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// Defaults and limits.
const (
	// DefaultBatchSize is Mapping.BatchSize when zero (SAM's default).
	DefaultBatchSize = 10
	// MaxBatchSize is the largest batch of a standard queue.
	MaxBatchSize = 10000
	// MaxBatchingWindow is Lambda's longest batching window.
	MaxBatchingWindow = 300 * time.Second
	// DefaultMaxConcurrency is Mapping.MaxConcurrency when zero: the
	// number of concurrent batches Lambda starts an SQS event source with.
	DefaultMaxConcurrency = 5
	// DefaultWaitTime is Poller.WaitTime when zero: a long poll short
	// enough that shutdown is quick. At most MaxWaitTime.
	DefaultWaitTime = 2 * time.Second
	// MaxWaitTime is SQS's longest long poll.
	MaxWaitTime = 20 * time.Second
	// DefaultDeleteTimeout is Poller.DeleteTimeout when zero.
	DefaultDeleteTimeout = 10 * time.Second
	// receiveRetryDelay paces retries after a failed ReceiveMessage.
	receiveRetryDelay = time.Second
	// eventSource is the eventSource of every SQS record.
	eventSource = "aws:sqs"
)

// ErrInvalidMapping is wrapped by Run for a Mapping or Poller that cannot run.
var ErrInvalidMapping = errors.New("invalid event source mapping")

// Mapping is an SQS event source mapping.
type Mapping struct {
	// Function is the function to invoke. Required.
	Function string
	// QueueURL is the queue to poll. Required.
	QueueURL string
	// QueueARN is each record's eventSourceARN. Required.
	QueueARN string
	// BatchSize is the most records per invocation; 0 means
	// DefaultBatchSize (10), at most MaxBatchSize.
	BatchSize int
	// BatchingWindow is how long to keep gathering records after the first
	// one arrives while the batch is not full; 0 (the default) invokes with
	// what one receive returns. At most MaxBatchingWindow.
	BatchingWindow time.Duration
	// MaxConcurrency bounds the batches in flight; 0 means
	// DefaultMaxConcurrency.
	MaxConcurrency int
	// ReportBatchItemFailures enables partial batch responses
	// (FunctionResponseTypes: [ReportBatchItemFailures]).
	ReportBatchItemFailures bool
	// Region is each record's awsRegion; "" means the QueueARN's region.
	Region string
}

// FromTemplate builds the Mapping of fn's SQS event ev, resolving the queue
// with r.
func FromTemplate(fn template.Function, ev template.Event, r *template.Resolver) (Mapping, error) {
	url, arn, err := r.QueueOf(ev)
	if err != nil {
		return Mapping{}, fmt.Errorf("%s event %s: %w", fn.LogicalID, ev.Name, err)
	}
	return Mapping{
		Function:                fn.LogicalID,
		QueueURL:                url,
		QueueARN:                arn,
		BatchSize:               ev.BatchSize,
		BatchingWindow:          ev.BatchingWindow(),
		MaxConcurrency:          ev.MaximumConcurrency,
		ReportBatchItemFailures: ev.ReportsBatchItemFailures(),
	}, nil
}

// Outcome is how a batch ended.
type Outcome string

// Outcomes of a batch.
const (
	// OutcomeSuccess: every record succeeded and was deleted.
	OutcomeSuccess Outcome = "success"
	// OutcomePartial: the reported failures were kept, the rest deleted.
	OutcomePartial Outcome = "partial"
	// OutcomeFunctionError: the invocation failed (handler error, crash,
	// timeout); the whole batch was kept.
	OutcomeFunctionError Outcome = "function_error"
	// OutcomeInvalidResponse: the partial batch response was malformed;
	// the whole batch was kept.
	OutcomeInvalidResponse Outcome = "invalid_response"
	// OutcomeInvokeError: the function could not be invoked (shutdown,
	// unknown function); the whole batch was kept.
	OutcomeInvokeError Outcome = "invoke_error"
)

// BatchReport describes one invoked batch, for Poller.OnBatch.
type BatchReport struct {
	// Function is the invoked function.
	Function string
	// Outcome is how the batch ended.
	Outcome Outcome
	// Records is the batch size.
	Records int
	// Deleted and Kept count the records deleted and left in the queue;
	// DeleteFailed the records whose delete failed (they come back).
	Deleted, Kept, DeleteFailed int
	// Result is the invocation's result (zero for OutcomeInvokeError).
	Result lambda.Result
	// Err is the invoke error, or why the response was invalid.
	Err error
}

// Counters are a Poller's running totals.
type Counters struct {
	// Received counts messages received (a redelivery counts again).
	Received int64
	// Batches counts invocations.
	Batches int64
	// Deleted counts messages deleted after their batch.
	Deleted int64
	// Kept counts messages left to their visibility timeout: reported
	// failures and the records of failed batches.
	Kept int64
	// FunctionErrors counts batches whose invocation returned a function
	// error.
	FunctionErrors int64
	// InvalidResponses counts batches failed whole for a malformed partial
	// batch response.
	InvalidResponses int64
	// InvokeErrors counts invocations that could not be made.
	InvokeErrors int64
	// DeleteErrors counts messages whose delete failed.
	DeleteErrors int64
	// ReceiveErrors counts failed ReceiveMessage calls.
	ReceiveErrors int64
}

// Poller runs one Mapping. Set the fields, then call Run; Counters may be
// read at any time.
type Poller struct {
	// Mapping is the event source mapping. Required.
	Mapping Mapping
	// SQS receives and deletes messages. Required.
	SQS SQSAPI
	// Invoker runs the function. Required.
	Invoker Invoker
	// WaitTime is the long-poll wait of a ReceiveMessage with no batch
	// started; 0 means DefaultWaitTime (2 s). It is rounded down to whole
	// seconds, at least 1 s, at most MaxWaitTime, and bounds how long Run
	// takes to notice that its context ended.
	WaitTime time.Duration
	// Drain is how long invocations in flight may go on after Run's
	// context ends; 0 cancels them at once (their environments are killed
	// and their messages come back after the visibility timeout).
	Drain time.Duration
	// DeleteTimeout bounds the deletes after a batch; 0 means
	// DefaultDeleteTimeout. Deletes of a finished batch run even while Run
	// is stopping.
	DeleteTimeout time.Duration
	// Log receives the poller's logs; nil discards them.
	Log *slog.Logger
	// OnBatch, if set, is called after every invoked batch (from the
	// goroutine that ran it).
	OnBatch func(BatchReport)

	// clock times the batching window; nil means the wall clock.
	clock clock.Clock

	received, batches, deleted, kept          atomic.Int64
	functionErrors, invalidResponses          atomic.Int64
	invokeErrors, deleteErrors, receiveErrors atomic.Int64
}

// Counters returns the running totals.
func (p *Poller) Counters() Counters {
	return Counters{
		Received:         p.received.Load(),
		Batches:          p.batches.Load(),
		Deleted:          p.deleted.Load(),
		Kept:             p.kept.Load(),
		FunctionErrors:   p.functionErrors.Load(),
		InvalidResponses: p.invalidResponses.Load(),
		InvokeErrors:     p.invokeErrors.Load(),
		DeleteErrors:     p.deleteErrors.Load(),
		ReceiveErrors:    p.receiveErrors.Load(),
	}
}

// settings are the Mapping and Poller with defaults applied.
type settings struct {
	m             Mapping
	waitTime      time.Duration
	deleteTimeout time.Duration
	log           *slog.Logger
	clock         clock.Clock
	// once makes gather return after one empty receive (Once).
	once bool
}

func (p *Poller) settings() (settings, error) {
	m := p.Mapping
	var errs []error
	if m.Function == "" || m.QueueURL == "" || m.QueueARN == "" {
		errs = append(errs, errors.New("Function, QueueURL and QueueARN are required"))
	}
	if p.SQS == nil || p.Invoker == nil {
		errs = append(errs, errors.New("SQS and Invoker are required"))
	}
	if m.BatchSize == 0 {
		m.BatchSize = DefaultBatchSize
	}
	if m.BatchSize < 1 || m.BatchSize > MaxBatchSize {
		errs = append(errs, fmt.Errorf("BatchSize %d outside 1..%d", m.BatchSize, MaxBatchSize))
	}
	if m.BatchingWindow < 0 || m.BatchingWindow > MaxBatchingWindow {
		errs = append(errs, fmt.Errorf("BatchingWindow %v outside 0..%v", m.BatchingWindow, MaxBatchingWindow))
	}
	if m.MaxConcurrency == 0 {
		m.MaxConcurrency = DefaultMaxConcurrency
	}
	if m.MaxConcurrency < 1 {
		errs = append(errs, fmt.Errorf("MaxConcurrency %d < 1", m.MaxConcurrency))
	}
	if m.Region == "" {
		if parts := strings.Split(m.QueueARN, ":"); len(parts) == 6 {
			m.Region = parts[3]
		}
	}
	if err := errors.Join(errs...); err != nil {
		return settings{}, fmt.Errorf("%w: %w", ErrInvalidMapping, err)
	}
	s := settings{m: m, waitTime: p.WaitTime, deleteTimeout: p.DeleteTimeout, log: p.Log}
	if s.waitTime <= 0 {
		s.waitTime = DefaultWaitTime
	}
	s.waitTime = min(max(s.waitTime.Truncate(time.Second), time.Second), MaxWaitTime)
	if s.deleteTimeout <= 0 {
		s.deleteTimeout = DefaultDeleteTimeout
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.clock = clock.Or(p.clock)
	s.log = s.log.With("function", m.Function, "queue", m.QueueURL)
	return s, nil
}

// Run polls until ctx ends, then waits for the batches in flight (see
// Drain) and returns nil. It returns an error wrapping ErrInvalidMapping at
// once when the Mapping or Poller is incomplete.
func (p *Poller) Run(ctx context.Context) error {
	s, err := p.settings()
	if err != nil {
		return err
	}
	// Invocations outlive ctx by Drain at most.
	invokeCtx, cancelInvokes := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelInvokes()
	stopDrain := context.AfterFunc(ctx, func() {
		if p.Drain <= 0 {
			cancelInvokes()
			return
		}
		t := time.AfterFunc(p.Drain, cancelInvokes)
		context.AfterFunc(invokeCtx, func() { t.Stop() })
	})
	defer stopDrain()

	slots := make(chan struct{}, s.m.MaxConcurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		batch, err := p.gather(ctx, s)
		if len(batch) == 0 {
			<-slots
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				p.receiveErrors.Add(1)
				s.log.Warn("receive failed", "error", err.Error())
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(receiveRetryDelay):
				}
			}
			continue
		}
		if ctx.Err() != nil {
			// Stopping mid-gather: the batch is not invoked and comes back
			// after its visibility timeout.
			p.kept.Add(int64(len(batch)))
			<-slots
			return nil
		}
		wg.Go(func() {
			defer func() { <-slots }()
			p.process(invokeCtx, s, batch)
		})
	}
}

// gather receives one batch: up to BatchSize messages, waiting at most the
// batching window after the first. It returns what it has when a receive
// fails after the first message (the error is logged), or nothing and the
// error when the first receive fails.
func (p *Poller) gather(ctx context.Context, s settings) ([]types.Message, error) {
	var batch []types.Message
	var windowEnd time.Time
	for len(batch) < s.m.BatchSize && ctx.Err() == nil {
		wait := s.waitTime
		if len(batch) > 0 {
			remaining := windowEnd.Sub(s.clock.Now())
			if s.m.BatchingWindow == 0 || remaining <= 0 {
				break
			}
			// Whole seconds only: a remainder under a second is one short
			// poll, never a wait past the window.
			wait = min(wait, remaining.Truncate(time.Second))
		}
		out, err := p.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:            aws.String(s.m.QueueURL),
			MaxNumberOfMessages: int32(min(10, s.m.BatchSize-len(batch))),
			WaitTimeSeconds:     int32(wait / time.Second),
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{
				types.MessageSystemAttributeNameAll,
			},
			MessageAttributeNames: []string{"All"},
		})
		if err != nil {
			if len(batch) > 0 && ctx.Err() == nil {
				s.log.Warn("receive failed while gathering a batch; invoking with what was received", "error", err.Error())
				p.receiveErrors.Add(1)
			}
			if len(batch) > 0 {
				return batch, nil
			}
			return nil, err
		}
		if len(out.Messages) == 0 {
			if len(batch) == 0 && s.once {
				return nil, nil
			}
			if len(batch) > 0 && wait < time.Second {
				break // the window's last short poll found nothing
			}
			continue
		}
		if len(batch) == 0 {
			windowEnd = s.clock.Now().Add(s.m.BatchingWindow)
		}
		batch = append(batch, out.Messages...)
		p.received.Add(int64(len(out.Messages)))
	}
	return batch, nil
}

// Once does what the event source does once, in the caller's goroutine: it
// receives one batch — waiting up to wait (0: a short poll) for the first
// message, then the batching window — invokes the function with it and
// settles it as Run does. A report with no Records means nothing arrived;
// an error is a failed first receive or an incomplete Mapping.
func (p *Poller) Once(ctx context.Context, wait time.Duration) (BatchReport, error) {
	s, err := p.settings()
	if err != nil {
		return BatchReport{}, err
	}
	s.waitTime, s.once = min(wait.Truncate(time.Second), MaxWaitTime), true
	batch, err := p.gather(ctx, s)
	if len(batch) == 0 {
		return BatchReport{}, err
	}
	return p.process(ctx, s, batch), nil
}

// Handler adapts an in-process SQS handler to an Invoker, as the Lambda
// runtime runs it: the payload is decoded into the event and the response
// encoded; a handler error is a function error.
func Handler(h func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)) Invoker {
	return handlerInvoker(h)
}

type handlerInvoker func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

func (h handlerInvoker) Invoke(ctx context.Context, _ string, payload []byte) (lambda.Result, error) {
	var ev events.SQSEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return lambda.Result{}, err
	}
	resp, err := h(ctx, ev)
	if err != nil {
		return lambda.Result{FunctionError: &lambda.FunctionError{Type: fmt.Sprintf("%T", err), Message: err.Error()}}, nil
	}
	out, err := json.Marshal(resp)
	return lambda.Result{Payload: out}, err
}

// process invokes the function with msgs and settles the batch; a batch
// split for size reports its last half.
func (p *Poller) process(ctx context.Context, s settings, msgs []types.Message) BatchReport {
	payload, err := json.Marshal(Event(msgs, s.m.QueueARN, s.m.Region))
	if err != nil { // cannot happen: the event holds strings only
		s.log.Error("encode event", "error", err.Error())
		p.kept.Add(int64(len(msgs)))
		return BatchReport{Function: s.m.Function, Records: len(msgs), Kept: len(msgs), Outcome: OutcomeInvokeError, Err: err}
	}
	// Lambda keeps a batch under the invocation payload limit; with
	// messages of up to 1 MiB ten of them may not fit, so split.
	if len(payload) > lambda.MaxPayloadSize && len(msgs) > 1 {
		half := len(msgs) / 2
		p.process(ctx, s, msgs[:half])
		return p.process(ctx, s, msgs[half:])
	}
	p.batches.Add(1)
	rep := BatchReport{Function: s.m.Function, Records: len(msgs)}
	res, err := p.Invoker.Invoke(ctx, s.m.Function, payload)
	rep.Result = res
	var keep map[string]bool // message ids to keep; nil keeps all
	switch {
	case err != nil:
		rep.Outcome, rep.Err = OutcomeInvokeError, err
		p.invokeErrors.Add(1)
	case res.FunctionError != nil:
		rep.Outcome = OutcomeFunctionError
		p.functionErrors.Add(1)
	case !s.m.ReportBatchItemFailures:
		rep.Outcome, keep = OutcomeSuccess, map[string]bool{}
	default:
		failed, perr := ParseBatchResponse(res.Payload, messageIDs(msgs))
		switch {
		case perr != nil:
			rep.Outcome, rep.Err = OutcomeInvalidResponse, perr
			p.invalidResponses.Add(1)
		case len(failed) > 0:
			rep.Outcome, keep = OutcomePartial, failed
		default:
			rep.Outcome, keep = OutcomeSuccess, failed
		}
	}
	var del []types.Message
	if keep != nil {
		for _, m := range msgs {
			if !keep[aws.ToString(m.MessageId)] {
				del = append(del, m)
			}
		}
	}
	rep.Kept = len(msgs) - len(del)
	rep.Deleted, rep.DeleteFailed = p.delete(ctx, s, del)
	p.kept.Add(int64(rep.Kept))
	log := s.log.With("outcome", string(rep.Outcome), "records", rep.Records, "deleted", rep.Deleted, "kept", rep.Kept)
	switch {
	case rep.Err != nil:
		log.Warn("batch failed", "error", rep.Err.Error())
	case res.FunctionError != nil:
		log.Warn("batch failed", "request_id", res.RequestID, "error_type", res.FunctionError.Type, "error", res.FunctionError.Message)
	default:
		log.Debug("batch done", "request_id", res.RequestID)
	}
	if p.OnBatch != nil {
		p.OnBatch(rep)
	}
	return rep
}

// delete deletes msgs in batches of ten. It runs on a context detached
// from Run's, so a finished batch is settled even during shutdown.
func (p *Poller) delete(ctx context.Context, s settings, msgs []types.Message) (deleted, failed int) {
	if len(msgs) == 0 {
		return 0, 0
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.deleteTimeout)
	defer cancel()
	for start := 0; start < len(msgs); start += 10 {
		chunk := msgs[start:min(start+10, len(msgs))]
		entries := make([]types.DeleteMessageBatchRequestEntry, len(chunk))
		for i, m := range chunk {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
		}
		out, err := p.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(s.m.QueueURL), Entries: entries})
		if err != nil {
			s.log.Warn("delete failed; the records will be received again", "error", err.Error(), "records", len(chunk))
			failed += len(chunk)
			continue
		}
		for _, f := range out.Failed {
			s.log.Warn("delete failed; the record will be received again", "code", aws.ToString(f.Code), "error", aws.ToString(f.Message))
		}
		failed += len(out.Failed)
		deleted += len(chunk) - len(out.Failed)
	}
	p.deleted.Add(int64(deleted))
	p.deleteErrors.Add(int64(failed))
	return deleted, failed
}

func messageIDs(msgs []types.Message) map[string]bool {
	ids := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		ids[aws.ToString(m.MessageId)] = true
	}
	return ids
}

// Event builds the SQS event Lambda passes for msgs: each record with its
// messageId, receiptHandle, body, attributes (ApproximateReceiveCount,
// SentTimestamp, SenderId, ApproximateFirstReceiveTimestamp, …),
// messageAttributes, md5OfBody, eventSource "aws:sqs", eventSourceARN and
// awsRegion.
func Event(msgs []types.Message, queueARN, region string) events.SQSEvent {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(msgs))}
	for _, m := range msgs {
		attrs := make(map[string]string, len(m.Attributes))
		for k, v := range m.Attributes {
			attrs[k] = v
		}
		mattrs := make(map[string]events.SQSMessageAttribute, len(m.MessageAttributes))
		for k, v := range m.MessageAttributes {
			a := events.SQSMessageAttribute{
				StringValue:      v.StringValue,
				BinaryValue:      v.BinaryValue,
				StringListValues: v.StringListValues,
				BinaryListValues: v.BinaryListValues,
				DataType:         aws.ToString(v.DataType),
			}
			if a.StringListValues == nil {
				a.StringListValues = []string{}
			}
			if a.BinaryListValues == nil {
				a.BinaryListValues = [][]byte{}
			}
			mattrs[k] = a
		}
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId:              aws.ToString(m.MessageId),
			ReceiptHandle:          aws.ToString(m.ReceiptHandle),
			Body:                   aws.ToString(m.Body),
			Md5OfBody:              aws.ToString(m.MD5OfBody),
			Md5OfMessageAttributes: aws.ToString(m.MD5OfMessageAttributes),
			Attributes:             attrs,
			MessageAttributes:      mattrs,
			EventSourceARN:         queueARN,
			EventSource:            eventSource,
			AWSRegion:              region,
		})
	}
	return ev
}

// ErrInvalidResponse is wrapped by ParseBatchResponse's errors: the whole
// batch failed.
var ErrInvalidResponse = errors.New("invalid partial batch response")

// ParseBatchResponse reads a partial batch response for a batch whose
// message ids are ids, and returns the ids reported as failures — empty
// when every record succeeded (an empty or null payload, {}, a null or
// empty batchItemFailures). An error wrapping ErrInvalidResponse means
// Lambda would fail the whole batch: the payload is not a JSON object, or
// an entry's itemIdentifier is missing, null, not a string, empty or not an
// id of the batch.
func ParseBatchResponse(payload []byte, ids map[string]bool) (map[string]bool, error) {
	failed := map[string]bool{}
	trimmed := strings.TrimSpace(string(payload))
	if trimmed == "" || trimmed == "null" {
		return failed, nil
	}
	var resp struct {
		BatchItemFailures []map[string]json.RawMessage `json:"batchItemFailures"`
	}
	if err := json.Unmarshal([]byte(trimmed), &resp); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidResponse, err)
	}
	for i, entry := range resp.BatchItemFailures {
		raw, ok := entry["itemIdentifier"]
		if !ok {
			return nil, fmt.Errorf("%w: batchItemFailures[%d] has no itemIdentifier", ErrInvalidResponse, i)
		}
		var id *string
		if err := json.Unmarshal(raw, &id); err != nil || id == nil || *id == "" {
			return nil, fmt.Errorf("%w: batchItemFailures[%d].itemIdentifier is %s, not a message id", ErrInvalidResponse, i, raw)
		}
		if !ids[*id] {
			return nil, fmt.Errorf("%w: batchItemFailures[%d].itemIdentifier %q is not in the batch", ErrInvalidResponse, i, *id)
		}
		failed[*id] = true
	}
	return failed, nil
}
