package runner_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// refusingVisibility is the stage's queues whose visibility changes SQS
// answers 200 with every entry Failed, as it does for a receipt handle that
// expired while the batch ran (its message quotes the handle).
type refusingVisibility struct{ *runnertest.Queues }

func (q refusingVisibility) ChangeMessageVisibilityBatch(_ context.Context, in *sqs.ChangeMessageVisibilityBatchInput,
	_ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	return runnertest.RefusedVisibility(in), nil
}

// A kept record whose visibility change SQS refuses comes back after the
// queue's default visibility instead of its decided hold, spending the
// backstop's receives at the queue's pace: the operator sees which record
// (its message id, SQS's code, never the entry's message) and a count.
func TestRefusedVisibilityChangeNamesTheRecordAndIsCounted(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	var logs bytes.Buffer
	tb.runner.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	metrics := &telemetry.Tally{}
	tb.runner.Metrics = metrics
	tb.runner.SQS = refusingVisibility{tb.sqs}
	tb.seed(t, "a", work.Fetch)
	tb.failWith(httpErr(failure.HTTP, 503, ""))
	if got := failedIDs(tb.handle(t, context.Background(), msg("a", work.Fetch, "m1", 1))); len(got) != 1 {
		t.Fatalf("failures = %v, want the record kept for its retry", got)
	}
	if n := metrics.Get(runner.MetricVisibilityErrors); n != 1 {
		t.Fatalf("%s = %d, want 1", runner.MetricVisibilityErrors, n)
	}
	out := logs.String()
	if !strings.Contains(out, `"message_id":"m1"`) || !strings.Contains(out, "ReceiptHandleIsInvalid") || strings.Contains(out, "rh-m1") {
		t.Fatalf("logs:\n%s\nwant the refusal logged with the message id and the code, without the receipt handle", out)
	}
}
