package intake_test

import (
	"context"
	"fmt"

	"github.com/triagehq/triage/internal/intake"
)

func ExampleProducer_SubmitBatch() {
	p := &intake.Producer{SQS: &fakeSQS{}, QueueURL: "https://sqs.us-east-1.amazonaws.com/123456789012/triage-FetchQueue"}
	rs := p.SubmitBatch(context.Background(), []intake.Spec{
		{ItemID: "story-1", SourceURL: "https://news.example.com/1", WebhookURL: "https://hooks.example.com/t"},
		{ItemID: "story-2", SourceURL: "news.example.com/2", WebhookURL: "https://hooks.example.com/t"},
	})
	for _, r := range rs {
		if r.OK() {
			fmt.Println(r.ItemID, "sent")
			continue
		}
		fmt.Println(r.ItemID, "rejected:", intake.Rejected(r.Err), r.Err)
	}
	// Output:
	// story-1 sent
	// story-2 rejected: true invalid item spec: source_url must be an http:// or https:// URL
}
