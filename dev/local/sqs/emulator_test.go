package sqs_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestRedriveToADeletedQueueLosesNothing: with its dead-letter queue gone,
// a message past maxReceiveCount stays on its queue and is delivered, as
// SQS keeps a message whose redrive target does not exist (moto, which
// holds on to the deleted queue, is not the reference here).
func TestRedriveToADeletedQueueLosesNothing(t *testing.T) {
	t.Parallel()
	tg := emulatorTarget(t)
	dlq := tg.queue(t, nil)
	url := tg.queue(t, map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, tg.arn(t, dlq))})
	tg.send(t, url, "keep me")
	if got := tg.receive(t, url, 1, 1); len(got) != 1 {
		t.Fatalf("first receive: %d messages", len(got))
	}
	if _, err := tg.client.DeleteQueue(t.Context(), &awssqs.DeleteQueueInput{QueueUrl: aws.String(dlq)}); err != nil {
		t.Fatal(err)
	}
	tg.advance(t, 2*time.Second)
	got := tg.receive(t, url, 1, 30)
	if len(got) != 1 || aws.ToString(got[0].Body) != "keep me" || got[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("after the dead-letter queue was deleted: %+v, want the message delivered a second time", got)
	}
}

// TestRetentionFreesUnreadMessages: messages nobody receives are dropped
// at the end of the retention period, and the counts say so.
func TestRetentionFreesUnreadMessages(t *testing.T) {
	t.Parallel()
	tg := emulatorTarget(t)
	url := tg.queue(t, map[string]string{"MessageRetentionPeriod": "60"})
	for i := range 100 {
		tg.send(t, url, fmt.Sprint("m", i))
	}
	if c := tg.counts(t, url); c[0] != 100 {
		t.Fatalf("counts %v", c)
	}
	tg.advance(t, time.Minute)
	if c := tg.counts(t, url); c != [3]int{} {
		t.Errorf("counts after the retention period %v, want none", c)
	}
}
