// The Producer puts items into the pipeline: it validates each item's spec
// and sends it, ten to a SendMessageBatch, to the fetch queue — the one
// message of the producer contract. `triage submit`, the demo's seeding and
// the soak's all go through it: there is one way in. Retries are idempotent
// by construction: the fetch stage treats the same item id with the same spec
// as a duplicate, so an entry whose send failed (or whose answer was lost) is
// sent again; how often, and after which waits, is the policy's producer row.

package intake

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/redact"
)

// SQS is the part of the SQS client a Producer uses.
type SQS interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// Defaults of the Producer's optional fields.
const (
	// BatchSize is SQS's limit on entries per SendMessageBatch.
	BatchSize = 10
	// MaxBatchBytes is SQS's limit on the sum of a SendMessageBatch's
	// message bodies (256 KiB): ten large valid specs exceed it, and SQS
	// refuses the whole call.
	MaxBatchBytes = 256 << 10
	// DefaultMaxAttempts bounds the sends of one entry: the policy's
	// producer row.
	DefaultMaxAttempts = policy.DefaultProducerAttempts
	// DefaultConcurrency is how many SendMessageBatch calls run at once.
	DefaultConcurrency = 4
)

// Producer submits items to the fetch queue. It is safe for concurrent use.
type Producer struct {
	// SQS sends the messages. Required.
	SQS SQS
	// QueueURL is the fetch queue (the stack's FetchQueueUrl). Required.
	QueueURL string
	// MaxAttempts bounds the sends of one entry; zero is DefaultMaxAttempts.
	MaxAttempts int
	// Concurrency bounds concurrent SendMessageBatch calls; zero is
	// DefaultConcurrency.
	Concurrency int
	// Backoff is the wait before a retry; the zero value is the policy's
	// producer row's (policy.ProducerSend).
	Backoff policy.Exponential
	// Rand and Sleep are injected for tests; nil means math/rand/v2 and
	// clock.Sleep.
	Rand  func() float64
	Sleep func(ctx context.Context, d time.Duration) error
	// Progress, if set, is called after every batch with the entries
	// settled so far (sent, rejected or given up).
	Progress func(done int)
}

// Result is the outcome of one spec.
type Result struct {
	// Index is the spec's position in the input; ItemID its id.
	Index  int    `json:"index"`
	ItemID string `json:"item_id"`
	// MessageID is the SQS message id when the spec was sent.
	MessageID string `json:"message_id,omitempty"`
	// Attempts counts the sends.
	Attempts int `json:"attempts"`
	// Err is nil when the spec was sent: an *intake.Error when it is
	// invalid (never sent; ErrRejected), a *SendError when every attempt
	// failed.
	Err error `json:"-"`
}

// OK reports whether the spec was sent.
func (r Result) OK() bool { return r.Err == nil }

// ErrRejected matches the error of a spec that was not sent because it is
// invalid or SQS refused it for the sender's fault: sending it again cannot
// help.
var ErrRejected = errors.New("rejected")

// SendError is a spec SQS did not take.
type SendError struct {
	// Code and Message are SQS's (the entry's, or the call's error).
	Code, Message string
	// SenderFault is SQS's verdict: true means the message itself is wrong.
	SenderFault bool
	// failure is the send's classification: its traits say whether
	// another attempt may succeed.
	failure failure.Classification
}

// Error describes the failure.
func (e *SendError) Error() string {
	if e.Code == "" {
		return "send failed: " + e.Message
	}
	return fmt.Sprintf("send failed: %s: %s", e.Code, e.Message)
}

// Is matches ErrRejected for a sender fault.
func (e *SendError) Is(target error) bool { return target == ErrRejected && e.SenderFault }

// Rejected reports whether err means the spec itself is wrong — invalid, or
// refused by SQS for the sender's fault — as opposed to a send that failed.
func Rejected(err error) bool {
	return errors.Is(err, ErrRejected) || errors.Is(err, ErrInvalid)
}

// Submit validates and sends one spec.
func (p *Producer) Submit(ctx context.Context, spec Spec) (Result, error) {
	rs := p.SubmitBatch(ctx, []Spec{spec})
	return rs[0], rs[0].Err
}

// SubmitBatch validates every spec and sends the valid ones, BatchSize to a
// SendMessageBatch (fewer when their bodies would pass MaxBatchBytes),
// Concurrency calls at a time. It returns one Result per
// spec, in input order; it never stops at a bad entry. A cancelled ctx ends
// it early: the specs not sent carry ctx's error.
func (p *Producer) SubmitBatch(ctx context.Context, specs []Spec) []Result {
	results := make([]Result, len(specs))
	bodies := make([]string, len(specs)) // each valid spec's message body, encoded once
	var pending []int
	for i, s := range specs {
		results[i] = Result{Index: i, ItemID: s.ItemID}
		if err := s.Validate(); err != nil {
			results[i].Err = err
			continue
		}
		bodies[i] = s.Encode()
		pending = append(pending, i)
	}
	var (
		mu      sync.Mutex
		settled = len(specs) - len(pending)
		wg      sync.WaitGroup
		sem     = make(chan struct{}, p.concurrency())
	)
	if p.Progress != nil && settled > 0 {
		p.Progress(settled)
	}
	for start, end := 0, 0; start < len(pending); start = end {
		end = chunkEnd(bodies, pending, start)
		chunk := pending[start:end]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			for _, i := range pending[start:] {
				results[i].Err = ctx.Err()
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p.send(ctx, bodies, chunk, results)
			mu.Lock()
			settled += len(chunk)
			n := settled
			if p.Progress != nil {
				p.Progress(n)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return results
}

// chunkEnd returns where the SendMessageBatch starting at pending[start]
// ends: at most BatchSize entries whose bodies sum to at most MaxBatchBytes,
// and at least one entry.
func chunkEnd(bodies []string, pending []int, start int) int {
	end, total := start, 0
	for end < len(pending) && end-start < BatchSize {
		n := len(bodies[pending[end]])
		if end > start && total+n > MaxBatchBytes {
			break
		}
		total += n
		end++
	}
	return end
}

// send sends one chunk (at most BatchSize entries, MaxBatchBytes of
// bodies), retrying what may succeed.
func (p *Producer) send(ctx context.Context, bodies []string, chunk []int, results []Result) {
	todo := chunk
	for attempt := 1; len(todo) > 0; attempt++ {
		entries := make([]sqstypes.SendMessageBatchRequestEntry, len(todo))
		for j, i := range todo {
			entries[j] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(bodies[i])}
			results[i].Attempts = attempt
		}
		out, err := p.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(p.QueueURL), Entries: entries})
		var (
			retryable []int
			cl        failure.Classification // the retryable entries' failure
		)
		if err != nil {
			se := callError(err)
			for _, i := range todo {
				results[i].Err = se
			}
			if se.failure.Retryable {
				retryable, cl = todo, se.failure
			}
		} else {
			// An entry the answer names neither way was not confirmed:
			// failed on SQS's side until Successful says otherwise.
			unanswered := &SendError{Message: "SQS's answer did not name the entry", failure: entryFailure(false)}
			for _, i := range todo {
				results[i].MessageID, results[i].Err = "", unanswered
			}
			for _, ok := range out.Successful {
				if i, err := strconv.Atoi(aws.ToString(ok.Id)); err == nil && i >= 0 && i < len(results) {
					results[i].MessageID, results[i].Err = aws.ToString(ok.MessageId), nil
				}
			}
			for _, f := range out.Failed {
				i, err := strconv.Atoi(aws.ToString(f.Id))
				if err != nil || i < 0 || i >= len(results) {
					continue
				}
				se := &SendError{Code: aws.ToString(f.Code), Message: redact.String(aws.ToString(f.Message)), SenderFault: f.SenderFault,
					failure: entryFailure(f.SenderFault)}
				results[i].Err = se
				if se.failure.Retryable {
					retryable, cl = append(retryable, i), se.failure
				}
			}
			for _, i := range todo {
				if results[i].Err == unanswered {
					retryable, cl = append(retryable, i), unanswered.failure
				}
			}
		}
		if len(retryable) == 0 || ctx.Err() != nil {
			return
		}
		next, ok := p.policy().Decide(policy.CallInput{Attempt: attempt, Failure: cl, Rand: p.rand()}).(policy.Retry)
		if !ok {
			return
		}
		if err := p.sleep(ctx, next.Delay); err != nil {
			return
		}
		todo = retryable
	}
}

// callError turns a failed call into a SendError, retryable when the
// shared classifier says another attempt may succeed (throttling, a network
// error, a 5xx).
func callError(err error) *SendError {
	cl := failure.Classify(err)
	return &SendError{Code: cl.Code, Message: redact.String(err.Error()), failure: cl}
}

// entryFailure classifies an entry SQS failed in a call that succeeded:
// SQS's own verdict decides — the sender's fault is the message's (no send
// of it can succeed), any other SQS's side.
func entryFailure(senderFault bool) failure.Classification {
	if senderFault {
		return failure.Of(work.SchemaInvalid, "SQS refused the entry: the sender's fault")
	}
	return failure.Of(work.UpstreamUnavailable, "SQS failed the entry on its side")
}

// policy is the policy's producer row with p's overrides.
func (p *Producer) policy() policy.CallRow {
	row := policy.ProducerSend().Override(p.MaxAttempts, 0, 0)
	if p.Backoff.Initial > 0 {
		row.Backoff = p.Backoff
	}
	return row
}

func (p *Producer) concurrency() int {
	if p.Concurrency > 0 {
		return p.Concurrency
	}
	return DefaultConcurrency
}

func (p *Producer) rand() func() float64 {
	if p.Rand != nil {
		return p.Rand
	}
	return rand.Float64
}

func (p *Producer) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return clock.Sleep(ctx, d)
}
