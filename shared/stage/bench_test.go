package stage_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/stage/stagetest"
	"github.com/triagehq/triage/shared/state"
)

// benchBatch measures the runner's own cost per record — decode, claim,
// outcome write, error log, forward or visibility batching, logging to a
// discarding handler — over the in-memory store and SQS fake, with a work
// function that returns at once. Each iteration handles one batch of 10
// records: the time per record is reported as ns/record, and allocs/op
// counts the batch (docs/performance.md divides it by 10).
func benchBatch(b *testing.B, workErr error) {
	const batch = 10
	clock := clock.NewStub(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
	store := state.NewMemory()
	q := stagetest.NewQueues()
	work := stage.WorkFunc(func(context.Context, state.Item) (state.Output, error) {
		if workErr != nil {
			return state.Output{}, workErr
		}
		return state.Output{Document: &state.Document{Text: "t", Bytes: 1}}, nil
	})
	r := stagetest.NewRunner(pipeline.Fetch, work, store, q, clock)
	ev := events.SQSEvent{Records: make([]events.SQSMessage, batch)}
	items := make([]state.Item, batch)
	for i := range batch {
		id := fmt.Sprintf("item-%02d", i)
		items[i] = state.Item{ID: id, Kind: state.KindStory, CorrelationID: "c-" + id, Status: state.Received,
			State: state.Queued, Stage: pipeline.Fetch, SourceURL: "https://example.com/" + id}
		ev.Records[i] = events.SQSMessage{MessageId: "m-" + id, ReceiptHandle: "h-" + id,
			Body:       pipeline.Envelope{ItemID: id, Stage: pipeline.Fetch, CorrelationID: "c-" + id}.Encode(),
			Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for _, it := range items {
			store.Put(it)
		}
		b.StartTimer()
		if _, err := r.Handle(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/record")
}

func BenchmarkHandleSuccess(b *testing.B) { benchBatch(b, nil) }

func BenchmarkHandleRetryableFailure(b *testing.B) {
	benchBatch(b, &failure.HTTPError{Provider: failure.HTTP, Op: "GET article", Status: 503, Header: http.Header{},
		Body: []byte("<html>Service Unavailable</html>")})
}
