package stagetest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// SQS is the part of the SQS client Pump uses.
type SQS interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// Pump does what Lambda's SQS event source does once: it receives up to 10
// messages from queueURL (waiting up to wait for the first), hands them to
// h as one event, and deletes the records the handler did not report as
// failures. It returns the records delivered and the handler's response;
// no records means nothing arrived within wait.
func Pump(ctx context.Context, t testing.TB, client SQS, queueURL string,
	h func(context.Context, events.SQSEvent) (events.SQSEventResponse, error), wait time.Duration) ([]events.SQSMessage, events.SQSEventResponse) {
	t.Helper()
	out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10, WaitTimeSeconds: int32(wait / time.Second),
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		t.Fatalf("receive from %s: %v", queueURL, err)
	}
	if len(out.Messages) == 0 {
		return nil, events.SQSEventResponse{}
	}
	ev := events.SQSEvent{Records: make([]events.SQSMessage, len(out.Messages))}
	for i, m := range out.Messages {
		ev.Records[i] = ToEvent(m, queueURL)
	}
	resp, err := h(ctx, ev)
	if err != nil {
		t.Fatalf("handler error: %v", err)
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	var del []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range out.Messages {
		if !failed[aws.ToString(m.MessageId)] {
			del = append(del, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
	}
	if len(del) > 0 {
		if _, err := client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(queueURL), Entries: del}); err != nil {
			t.Fatalf("delete from %s: %v", queueURL, err)
		}
	}
	return ev.Records, resp
}

// ToEvent converts a received message into the record Lambda delivers.
func ToEvent(m sqstypes.Message, queueURL string) events.SQSMessage {
	rec := events.SQSMessage{
		MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body),
		Md5OfBody: aws.ToString(m.MD5OfBody), Attributes: m.Attributes, EventSource: "aws:sqs",
		EventSourceARN: queueARN(queueURL), AWSRegion: "us-east-1",
		MessageAttributes: map[string]events.SQSMessageAttribute{},
	}
	for k, v := range m.MessageAttributes {
		rec.MessageAttributes[k] = events.SQSMessageAttribute{DataType: aws.ToString(v.DataType), StringValue: v.StringValue}
	}
	return rec
}

// queueARN derives arn:aws:sqs:us-east-1:<account>:<name> from a queue URL.
func queueARN(url string) string {
	var parts []string
	start := 0
	for i := 0; i <= len(url); i++ {
		if i == len(url) || url[i] == '/' {
			parts = append(parts, url[start:i])
			start = i + 1
		}
	}
	if len(parts) < 2 {
		return ""
	}
	return "arn:aws:sqs:us-east-1:" + parts[len(parts)-2] + ":" + parts[len(parts)-1]
}
