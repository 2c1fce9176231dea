package notice

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/store"
)

// SQS is the part of the SQS client the Sender uses.
type SQS interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Sender enqueues notices on the notice queue; the stage runner calls it
// (runner.Notices). It sends nothing, and makes no request, for an item
// whose owner did not ask for the notice.
type Sender struct {
	// SQS sends; QueueURL is the notice queue. Required.
	SQS      SQS
	QueueURL string
}

// DeadLettered enqueues item.failed for it, whose dead letter (with
// deadLetterID) is durable, when its owner asked for it.
func (s *Sender) DeadLettered(ctx context.Context, it store.Item, le store.LastError, deadLetterID string) error {
	if !it.NoticeChoices().Failed {
		return nil
	}
	return s.send(ctx, ForFailed(it, le, deadLetterID))
}

// RetryScheduled enqueues item.retry_scheduled for it after the failure le,
// recorded with its next attempt, when its owner asked for it.
func (s *Sender) RetryScheduled(ctx context.Context, it store.Item, le store.LastError) error {
	if !it.NoticeChoices().RetryScheduled {
		return nil
	}
	return s.send(ctx, ForRetryScheduled(it, le))
}

func (s *Sender) send(ctx context.Context, n Notice) error {
	body, err := n.Encode()
	if err != nil {
		return err
	}
	_, err = s.SQS.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(s.QueueURL), MessageBody: aws.String(body),
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			"event":   {DataType: aws.String("String"), StringValue: aws.String(string(n.Event))},
			"item_id": {DataType: aws.String("String"), StringValue: aws.String(n.ItemID)},
		},
	})
	if err != nil {
		return fmt.Errorf("enqueue %s for %s: %w", n.Event, n.ItemID, err)
	}
	return nil
}
