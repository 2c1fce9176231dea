// Package runnertest provides fakes for running stage handlers without AWS:
// an SQS fake that records what a Runner sends, SQS's answer refusing a
// visibility change, a settable clock, a helper that builds a Runner over
// store.Memory, the check of the class a stage's Work failed with, the wait
// the standard profile decides for a closed gate a Work reports, and the
// read of an item record a test expects to be there; and, against a real
// queue, Pump, which delivers its records as Lambda's event source does, and
// Drain, which reads what it holds.
package runnertest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Queues is an SQS fake for the Runner: it records sends and visibility
// changes and fails on demand.
type Queues struct {
	mu         sync.Mutex
	sent       map[string][]string // queue URL → bodies, in order
	visibility map[string]int32    // receipt handle → seconds
	// FailSend, when set, makes SendMessage and SendMessageBatch to that
	// queue URL fail.
	failSend map[string]bool
}

// NewQueues returns an empty fake.
func NewQueues() *Queues {
	return &Queues{sent: map[string][]string{}, visibility: map[string]int32{}, failSend: map[string]bool{}}
}

// FailSends makes sends to url fail (on) or succeed (off).
func (q *Queues) FailSends(url string, on bool) {
	q.mu.Lock()
	q.failSend[url] = on
	q.mu.Unlock()
}

// SendMessage records the body under the queue URL.
func (q *Queues) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	url := aws.ToString(in.QueueUrl)
	if q.failSend[url] {
		return nil, errors.New("stagetest: injected send failure")
	}
	q.sent[url] = append(q.sent[url], aws.ToString(in.MessageBody))
	return &sqs.SendMessageOutput{MessageId: aws.String(url + "#" + strconv.Itoa(len(q.sent[url])))}, nil
}

// SendMessageBatch records every entry's body under the queue URL.
func (q *Queues) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	url := aws.ToString(in.QueueUrl)
	if q.failSend[url] {
		return nil, errors.New("stagetest: injected send failure")
	}
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		q.sent[url] = append(q.sent[url], aws.ToString(e.MessageBody))
		out.Successful = append(out.Successful, sqstypes.SendMessageBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

// ChangeMessageVisibilityBatch records the visibility per receipt handle.
func (q *Queues) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range in.Entries {
		q.visibility[aws.ToString(e.ReceiptHandle)] = e.VisibilityTimeout
	}
	return &sqs.ChangeMessageVisibilityBatchOutput{}, nil
}

// RefusedVisibility is SQS's answer to a visibility change whose receipt
// handles expired while the batch ran: 200, every entry Failed with
// ReceiptHandleIsInvalid, its message quoting the handle.
func RefusedVisibility(in *sqs.ChangeMessageVisibilityBatchInput) *sqs.ChangeMessageVisibilityBatchOutput {
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, e := range in.Entries {
		out.Failed = append(out.Failed, sqstypes.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ReceiptHandleIsInvalid"),
			SenderFault: true, Message: aws.String("The input receipt handle \"" + aws.ToString(e.ReceiptHandle) + "\" is not valid")})
	}
	return out
}

// Sent returns the bodies sent to url.
func (q *Queues) Sent(url string) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.sent[url]...)
}

// Visibility returns the visibility set for a receipt handle.
func (q *Queues) Visibility(receipt string) (int32, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	v, ok := q.visibility[receipt]
	return v, ok
}

// DeadLetters parses the payloads sent to url.
func (q *Queues) DeadLetters(url string) ([]deadletter.Payload, error) {
	var out []deadletter.Payload
	for _, b := range q.Sent(url) {
		p, err := deadletter.Parse([]byte(b))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// WantClass fails t at once when err is nil and reports err's class when
// it is not want; it returns err's classification.
func WantClass(t testing.TB, err error, want work.Class) failure.Classification {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", want)
	}
	c := failure.Classify(err)
	if c.Class != want {
		t.Errorf("class = %s (%s), want %s; err = %v", c.Class, c.Reason, want, err)
	}
	return c
}

// WaitOf is the wait the standard profile decides for what a gate's
// provider reported in err at now (policy.Profile.Decide on the fact), and
// whether err reported a closed gate at all.
func WaitOf(err error, now time.Time) (policy.Wait, bool) {
	c, ok := policy.ClosedOf(err)
	if !ok {
		return policy.Wait{}, false
	}
	return policy.Standard().Decide(policy.Input{Closed: &c, Now: now}).(policy.Wait), true
}

// ItemGetter reads an item record: store.Memory and store.Items.
type ItemGetter interface {
	Get(ctx context.Context, id string) (store.Item, error)
}

// Item is the record items holds for id; t fails at once on an error.
func Item(t testing.TB, items ItemGetter, id string) store.Item {
	t.Helper()
	it, err := items.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// Queue URLs the Runner built by NewRunner uses.
const (
	QueueURL     = "https://sqs.us-east-1.amazonaws.com/123456789012/stage"
	DLQURL       = "https://sqs.us-east-1.amazonaws.com/123456789012/stage-dlq"
	NextQueueURL = "https://sqs.us-east-1.amazonaws.com/123456789012/next"
)

// NewRunner returns a Runner for st over store and q, with the standard
// profile, the clock and a fixed random source (0.5).
func NewRunner(st work.Stage, job runner.Work, db *store.Memory, q *Queues, c *clock.Stub) *runner.Runner {
	r := &runner.Runner{
		Stage: st, Work: job, Items: db, ErrorLog: db, SQS: q,
		QueueURL: QueueURL, DLQURL: DLQURL,
		Profile: policy.Standard(), Clock: c, Rand: func() float64 { return 0.5 },
	}
	if _, ok := st.Next(); ok {
		r.NextQueueURL = NextQueueURL
	}
	return r
}
