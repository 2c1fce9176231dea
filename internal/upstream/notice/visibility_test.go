package notice_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/upstream/notice"
)

// refusingVisibility answers every visibility change as SQS does when it
// refuses entries: 200, each entry Failed (its message quotes the receipt
// handle), or the call's error when fail is set.
type refusingVisibility struct{ fail error }

func (q refusingVisibility) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput,
	_ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if q.fail != nil {
		return nil, q.fail
	}
	return runnertest.RefusedVisibility(in), nil
}

// A visibility change SQS refuses — the call, or an entry of a call it
// answered 200 — loses nothing (the notice comes back after the queue's
// default visibility), but the operator sees it: logged with the record's
// ids and the code, never the entry's message (it quotes the receipt
// handle), and counted.
func TestRefusedVisibilityChangesAreLoggedAndCounted(t *testing.T) {
	t.Parallel()
	for name, q := range map[string]refusingVisibility{
		"failed entries": {},
		"failed call":    {fail: errors.New("AWS.SimpleQueueService.NonExistentQueue: queue gone")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, httpErr(503, nil))
			var logs bytes.Buffer
			b.h.Log = slog.New(slog.NewJSONHandler(&logs, nil))
			b.h.SQS = q
			resp, err := b.h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1",
				ReceiptHandle: "secret-receipt-handle", Body: b.body, Attributes: map[string]string{"ApproximateReceiveCount": "1"}}}})
			if err != nil || len(resp.BatchItemFailures) != 1 {
				t.Fatalf("kept %v, error %v: want the notice kept for its retry", resp.BatchItemFailures, err)
			}
			if n := b.metrics.Get(notice.MetricVisibilityErrors); n != 1 {
				t.Fatalf("%s counted %d times, want 1", notice.MetricVisibilityErrors, n)
			}
			out := logs.String()
			if !strings.Contains(out, "visibility change failed") || strings.Contains(out, "secret-receipt-handle") {
				t.Fatalf("logs:\n%s\nwant the refusal logged without the receipt handle", out)
			}
			if name == "failed entries" && (!strings.Contains(out, `"message_id":"m1"`) || !strings.Contains(out, "ReceiptHandleIsInvalid")) {
				t.Fatalf("logs:\n%s\nwant the record's message id and the code", out)
			}
		})
	}
}
