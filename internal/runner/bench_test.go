package runner_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
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
	db := store.NewMemory()
	q := runnertest.NewQueues()
	job := runner.WorkFunc(func(context.Context, store.Item) (work.Output, error) {
		if workErr != nil {
			return work.Output{}, workErr
		}
		return work.Output{Document: &work.Document{Text: "t", Bytes: 1}}, nil
	})
	r := runnertest.NewRunner(work.Fetch, job, db, q, clock)
	ev := events.SQSEvent{Records: make([]events.SQSMessage, batch)}
	items := make([]store.Item, batch)
	for i := range batch {
		id := fmt.Sprintf("item-%02d", i)
		items[i] = store.Item{ID: id, Kind: store.KindStory, CorrelationID: "c-" + id, Status: work.Received,
			State: work.Queued, Stage: work.Fetch, SourceURL: "https://example.com/" + id}
		ev.Records[i] = events.SQSMessage{MessageId: "m-" + id, ReceiptHandle: "h-" + id,
			Body:       work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "c-" + id}.Encode(),
			Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for _, it := range items {
			db.Put(it)
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
