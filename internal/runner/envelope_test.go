package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// An envelope's correlation id is bounded as a spec's is (docs/design.md
// "Putting work in": 1 to 256 characters): a forged huge one is
// SCHEMA_INVALID for its record alone. Unbounded, it ran the stage and
// rode on the forward, where it failed the whole SendMessageBatch (SQS's
// 256 KiB) for every record of the batch on every redelivery.
func TestHugeCorrelationIDIsSchemaInvalidWhileTheBatchGoesOn(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.seed(t, "a", work.Fetch)
	tb.seed(t, "b", work.Fetch)
	forged := work.Envelope{ItemID: "a", Stage: work.Fetch, CorrelationID: strings.Repeat("c", 300<<10)}
	bad := events.SQSMessage{MessageId: "bad", ReceiptHandle: "rh-bad", Body: forged.Encode(),
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	longest := work.Envelope{ItemID: "b", Stage: work.Fetch, CorrelationID: strings.Repeat("c", work.MaxItemIDLen)}
	good := events.SQSMessage{MessageId: "m2", ReceiptHandle: "rh-m2", Body: longest.Encode(),
		Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	resp := tb.handle(t, context.Background(), bad, good)
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures = %v, want every record acknowledged", failedIDs(resp))
	}
	ps := tb.deadLetters(t)
	if len(ps) != 1 || ps[0].ErrorClass != work.SchemaInvalid || !strings.Contains(ps[0].SanitizedContext.Error, "correlation_id") {
		t.Fatalf("dead letters = %+v, want one SCHEMA_INVALID naming the correlation id", ps)
	}
	if a := tb.item(t, "a"); a.Stage != work.Fetch || tb.calls.Load() != 1 {
		t.Fatalf("the forged record ran: item at %s, %d upstream calls", a.Stage, tb.calls.Load())
	}
	if fw := tb.forwards(); len(fw) != 1 || !strings.Contains(fw[0], `"item_id":"b"`) {
		t.Fatalf("forwards = %d, want the good record's alone", len(fw))
	}
}

// An envelope's replay lineage is bounded as the item store bounds a
// replay record (its note, who replayed, the dead letter it came from),
// whose last one a replay's envelope carries: a forged huge one is
// SCHEMA_INVALID for its record alone. Unbounded, it rode on the forward
// like a huge correlation id and failed the whole SendMessageBatch.
func TestHugeReplayLineageIsSchemaInvalidWhileTheBatchGoesOn(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("n", 200<<10)
	for name, r := range map[string]work.Replay{
		"note":             {Count: 1, Note: huge},
		"by":               {Count: 1, Note: "fixed", By: huge},
		"from_dead_letter": {Count: 1, Note: "fixed", FromDeadLetter: huge},
		"mode":             {Count: 1, Note: "fixed", Mode: huge},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.Fetch)
			tb.seed(t, "a", work.Fetch)
			tb.seed(t, "b", work.Fetch)
			forged := work.Envelope{ItemID: "a", Stage: work.Fetch, CorrelationID: "corr-a", Replay: &r}
			bad := events.SQSMessage{MessageId: "bad", ReceiptHandle: "rh-bad", Body: forged.Encode(),
				Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
			largest := work.Envelope{ItemID: "b", Stage: work.Fetch, CorrelationID: "corr-b", Replay: &work.Replay{Count: 1,
				Note: strings.Repeat("n", store.MaxNoteBytes), By: strings.Repeat("b", store.MaxByBytes),
				FromDeadLetter: strings.Repeat("d", store.MaxRefBytes), Mode: string(store.FullRestart)}}
			good := events.SQSMessage{MessageId: "m2", ReceiptHandle: "rh-m2", Body: largest.Encode(),
				Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
			if resp := tb.handle(t, context.Background(), bad, good); len(resp.BatchItemFailures) != 0 {
				t.Fatalf("failures = %v, want every record acknowledged", failedIDs(resp))
			}
			ps := tb.deadLetters(t)
			if len(ps) != 1 || ps[0].ErrorClass != work.SchemaInvalid || !strings.Contains(ps[0].SanitizedContext.Error, "replay") {
				t.Fatalf("dead letters = %+v, want one SCHEMA_INVALID naming the replay", ps)
			}
			if fw := tb.forwards(); len(fw) != 1 || !strings.Contains(fw[0], `"item_id":"b"`) {
				t.Fatalf("forwards = %d, want the good record's alone", len(fw))
			}
		})
	}
}
