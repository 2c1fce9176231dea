// Package replaytest provides an in-memory SQS for testing replays without
// AWS: enough of ReceiveMessage, DeleteMessageBatch,
// ChangeMessageVisibilityBatch, SendMessageBatch and GetQueueAttributes for
// replay.Replayer and scheduler.Scheduler.
package replaytest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/replay"
)

// SQS is an in-memory SQS: a received message stays invisible until it is
// deleted or its visibility is set to 0 (a visibility timeout never runs
// out). Queues exist on first use. It is safe for concurrent use.
type SQS struct {
	mu       sync.Mutex
	queues   map[string][]*fakeMsg
	seq      int
	failSend map[string]bool
}

type fakeMsg struct {
	id, body, receipt string
	// source is the DeadLetterQueueSourceArn of a message a queue's
	// RedrivePolicy moved here (PutMoved); empty for one sent to it.
	source   string
	attrs    map[string]sqstypes.MessageAttributeValue
	hidden   bool
	receives int
}

// NewSQS returns an empty fake.
func NewSQS() *SQS {
	return &SQS{queues: map[string][]*fakeMsg{}, failSend: map[string]bool{}}
}

// FailSends makes SendMessageBatch to url fail (on) or succeed (off).
func (f *SQS) FailSends(url string, on bool) {
	f.mu.Lock()
	f.failSend[url] = on
	f.mu.Unlock()
}

// Purge removes every message from url, as retention would.
func (f *SQS) Purge(url string) {
	f.mu.Lock()
	f.queues[url] = nil
	f.mu.Unlock()
}

// Put adds a message with body to url and returns its id.
func (f *SQS) Put(url, body string) string { return f.put(url, body, "") }

// PutMoved adds a message with body to url as a queue's RedrivePolicy moves
// one: it carries the system attribute DeadLetterQueueSourceArn, source. It
// returns the message's id.
func (f *SQS) PutMoved(url, body, source string) string { return f.put(url, body, source) }

func (f *SQS) put(url, body, source string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	id := "msg-" + strconv.Itoa(f.seq)
	f.queues[url] = append(f.queues[url], &fakeMsg{id: id, body: body, source: source})
	return id
}

// Bodies returns the bodies on url, visible or not, oldest first.
func (f *SQS) Bodies(url string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.queues[url] {
		out = append(out, m.body)
	}
	return out
}

// Hidden counts the messages on url that a receive made invisible and no
// one released.
func (f *SQS) Hidden(url string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range f.queues[url] {
		if m.hidden {
			n++
		}
	}
	return n
}

// ReceiveMessage implements the SQS call.
func (f *SQS) ReceiveMessage(_ context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &sqs.ReceiveMessageOutput{}
	for _, m := range f.queues[aws.ToString(in.QueueUrl)] {
		if len(out.Messages) >= int(in.MaxNumberOfMessages) {
			break
		}
		if m.hidden {
			continue
		}
		f.seq++
		m.hidden, m.receipt = true, "r-"+strconv.Itoa(f.seq)
		m.receives++
		attrs := map[string]string{"ApproximateReceiveCount": strconv.Itoa(m.receives), "SentTimestamp": "1795000000000"}
		source := sqstypes.MessageSystemAttributeNameDeadLetterQueueSourceArn
		if m.source != "" && (slices.Contains(in.MessageSystemAttributeNames, sqstypes.MessageSystemAttributeNameAll) ||
			slices.Contains(in.MessageSystemAttributeNames, source)) {
			// SQS returns it only when asked, as every system attribute.
			attrs[string(source)] = m.source
		}
		out.Messages = append(out.Messages, sqstypes.Message{
			MessageId: aws.String(m.id), ReceiptHandle: aws.String(m.receipt), Body: aws.String(m.body),
			Attributes: attrs, MessageAttributes: m.attrs,
		})
	}
	return out, nil
}

// DeleteMessageBatch implements the SQS call.
func (f *SQS) DeleteMessageBatch(_ context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	url := aws.ToString(in.QueueUrl)
	for _, e := range in.Entries {
		q := f.queues[url]
		for i, m := range q {
			if m.receipt == aws.ToString(e.ReceiptHandle) {
				f.queues[url] = append(q[:i:i], q[i+1:]...)
				break
			}
		}
	}
	return &sqs.DeleteMessageBatchOutput{}, nil
}

// ChangeMessageVisibilityBatch implements the SQS call.
func (f *SQS) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range in.Entries {
		for _, m := range f.queues[aws.ToString(in.QueueUrl)] {
			if m.receipt == aws.ToString(e.ReceiptHandle) && e.VisibilityTimeout == 0 {
				m.hidden = false
			}
		}
	}
	return &sqs.ChangeMessageVisibilityBatchOutput{}, nil
}

// SendMessageBatch implements the SQS call.
func (f *SQS) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	url := aws.ToString(in.QueueUrl)
	if f.failSend[url] {
		return nil, errors.New("fake: send refused")
	}
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		f.seq++
		f.queues[url] = append(f.queues[url], &fakeMsg{id: "msg-" + strconv.Itoa(f.seq), body: aws.ToString(e.MessageBody), attrs: e.MessageAttributes})
		out.Successful = append(out.Successful, sqstypes.SendMessageBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

// GetQueueAttributes implements the SQS call.
func (f *SQS) GetQueueAttributes(_ context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range f.queues[aws.ToString(in.QueueUrl)] {
		if !m.hidden {
			n++
		}
	}
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{"ApproximateNumberOfMessages": strconv.Itoa(n)}}, nil
}

var _ replay.SQS = (*SQS)(nil)
