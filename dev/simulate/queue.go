package simulate

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/runner"
)

// The simulator models SQS and Lambda's SQS event source itself rather than
// running dev/local/poller, the event source the tests, the demo and the
// soak share: it runs in virtual time — no SQS API, no goroutine per batch,
// no wall clock — so that 100,000 items take seconds. It keeps the same
// semantics (visibility, receive counts, the redrive backstop, partial batch
// responses, scaling of concurrent batches), and dev/local/crosscheck
// holds one scenario's outcomes to the local stack's.

// message is one SQS message.
type message struct {
	id       string
	body     string
	attrs    map[string]string
	seq      uint64
	q        *queue
	sentAt   vt
	receives int
	receipt  string
	// visibleAt is when the message may be received (again).
	visibleAt vt
	// receivedAt is the time of the current receive; visChanged records a
	// ChangeMessageVisibility during the current receive.
	receivedAt vt
	visChanged bool
}

// queue is a standard SQS queue in virtual time: messages become visible at
// their visibleAt and are received oldest-visible first; a receive hides a
// message for the queue's visibility timeout and increments its receive
// count; a message received maxReceive times is moved to the dead-letter
// queue by its next receive (the redrive policy).
type queue struct {
	name, url  string
	stage      int // index into work.Stages(); -1 for a dead-letter queue
	visibility time.Duration
	maxReceive int
	dlq        *queue
	ready      minHeap[*message]
	inflight   map[string]*message // by receipt handle
	// alive counts messages neither deleted nor moved.
	alive int
	// sunk counts messages that arrived in a dead-letter queue.
	sunk int
}

func newQueue(name string, stageIdx int, visibility time.Duration, maxReceive int, dlq *queue) *queue {
	q := &queue{name: name, url: "https://sqs.us-east-1.amazonaws.com/000000000000/" + name, stage: stageIdx,
		visibility: visibility, maxReceive: maxReceive, dlq: dlq, inflight: map[string]*message{}}
	q.ready.less = func(a, b *message) bool {
		if a.visibleAt != b.visibleAt {
			return a.visibleAt < b.visibleAt
		}
		return a.seq < b.seq
	}
	return q
}

// put makes m visible at m.visibleAt.
func (q *queue) put(m *message) {
	m.q = q
	q.ready.push(m)
}

// nextVisible returns when the earliest waiting message becomes visible.
func (q *queue) nextVisible() (vt, bool) {
	if q.ready.Len() == 0 {
		return 0, false
	}
	return q.ready.peek().visibleAt, true
}

// take receives up to n messages visible at t, the way a Lambda event source
// mapping with a batching window does: while fewer than n are visible, it
// waits until the oldest visible one has waited window, and returns deferTo
// instead. Messages past their maxReceive are handed to redrive instead of
// being received.
func (q *queue) take(t vt, n int, window time.Duration, redrive func(*message)) (batch []*message, deferTo vt) {
	for len(batch) < n && q.ready.Len() > 0 && q.ready.peek().visibleAt <= t {
		m := q.ready.pop()
		if q.maxReceive > 0 && m.receives >= q.maxReceive {
			q.alive--
			redrive(m)
			continue
		}
		batch = append(batch, m)
	}
	if len(batch) == 0 {
		return nil, 0
	}
	if len(batch) < n && window > 0 && t < batch[0].visibleAt+int64(window) {
		for _, m := range batch {
			q.ready.push(m)
		}
		return nil, batch[0].visibleAt + int64(window)
	}
	for _, m := range batch {
		m.receives++
		m.receipt = m.id + "#" + strconv.Itoa(m.receives)
		m.receivedAt, m.visChanged = t, false
		m.visibleAt = t + int64(q.visibility)
		q.inflight[m.receipt] = m
	}
	return batch, 0
}

// sqsOp is an SQS request made during an invocation, applied when the
// invocation ends (see engine.endInvocation).
type sqsOp struct {
	send    bool
	q       *queue
	id      string
	body    string
	attrs   map[string]string
	receipt string
	seconds int32
	// delay is a sent message's DelaySeconds.
	delay time.Duration
}

// sqsSim is the simulated SQS the runner talks to (runner.Queues). Requests
// are counted (and billed) as they are made and take effect when the
// invocation that made them ends: a message forwarded or dead-lettered by an
// invocation exists from its end, and a visibility change counts from then.
type sqsSim struct {
	e     *engine
	byURL map[string]*queue
}

var _ runner.Queues = (*sqsSim)(nil)

func (s *sqsSim) queue(url *string) (*queue, error) {
	q := s.byURL[aws.ToString(url)]
	if q == nil {
		return nil, fmt.Errorf("simulated SQS: no queue %q", aws.ToString(url))
	}
	return q, nil
}

// batchQueue is the queue url names for a batch call op of n entries,
// which SQS takes 1 to 10 of.
func (s *sqsSim) batchQueue(url *string, op string, n int) (*queue, error) {
	q, err := s.queue(url)
	if err == nil && (n == 0 || n > 10) {
		err = fmt.Errorf("simulated SQS: %s with %d entries", op, n)
	}
	return q, err
}

// SendMessage sends one message (a dead letter, or the scheduler's
// re-enqueue).
func (s *sqsSim) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	q, err := s.queue(in.QueueUrl)
	if err != nil {
		return nil, err
	}
	body, attrs := aws.ToString(in.MessageBody), stringAttributes(in.MessageAttributes)
	s.e.meter.sqs(sqsSendMessage, len(body)+attrBytes(attrs))
	s.e.clock.spend(s.e.sc.AWSLatency.SQS.D())
	id := s.e.newMessageID()
	s.e.enqueue(sqsOp{send: true, q: q, id: id, body: body, attrs: attrs})
	return &sqs.SendMessageOutput{MessageId: aws.String(id)}, nil
}

// stringAttributes is a message's attributes as the simulator keeps them:
// their string values by name (nil for none).
func stringAttributes(in map[string]sqstypes.MessageAttributeValue) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = aws.ToString(v.StringValue)
	}
	return out
}

// SendMessageBatch sends up to 10 messages (the runner's forwards).
func (s *sqsSim) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	q, err := s.batchQueue(in.QueueUrl, "SendMessageBatch", len(in.Entries))
	if err != nil {
		return nil, err
	}
	out := &sqs.SendMessageBatchOutput{Successful: make([]sqstypes.SendMessageBatchResultEntry, 0, len(in.Entries))}
	size := 0
	for _, en := range in.Entries {
		body, attrs := aws.ToString(en.MessageBody), stringAttributes(en.MessageAttributes)
		size += len(body) + attrBytes(attrs)
		id := s.e.newMessageID()
		s.e.enqueue(sqsOp{send: true, q: q, id: id, body: body, attrs: attrs, delay: time.Duration(en.DelaySeconds) * time.Second})
		out.Successful = append(out.Successful, sqstypes.SendMessageBatchResultEntry{Id: en.Id, MessageId: aws.String(id)})
	}
	s.e.meter.sqs(sqsSendMessageBatch, size)
	s.e.clock.spendTail(s.e.sc.AWSLatency.SQS.D())
	return out, nil
}

// ChangeMessageVisibilityBatch sets the visibility of received messages.
func (s *sqsSim) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	q, err := s.batchQueue(in.QueueUrl, "ChangeMessageVisibilityBatch", len(in.Entries))
	if err != nil {
		return nil, err
	}
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, en := range in.Entries {
		if en.VisibilityTimeout < 0 || en.VisibilityTimeout > 43200 {
			out.Failed = append(out.Failed, sqstypes.BatchResultErrorEntry{Id: en.Id, Code: aws.String("InvalidParameterValue"), SenderFault: true})
			continue
		}
		s.e.enqueue(sqsOp{q: q, receipt: aws.ToString(en.ReceiptHandle), seconds: en.VisibilityTimeout})
		out.Successful = append(out.Successful, sqstypes.ChangeMessageVisibilityBatchResultEntry{Id: en.Id})
	}
	s.e.meter.sqs(sqsChangeVisibilityBatch, 0)
	s.e.clock.spendTail(s.e.sc.AWSLatency.SQS.D())
	return out, nil
}

func attrBytes(attrs map[string]string) int {
	n := 0
	for k, v := range attrs {
		n += len(k) + len(v) + len("String")
	}
	return n
}
