package store_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// BenchmarkOperatorReadsOnMoto measures what the operator's views cost on
// moto with TRIAGE_BENCH_ITEMS items (default 10,000) in the Items table, a
// pipeline caught mid-run (70% done, the rest queued, working, retryable and
// dead-lettered across the stages): the status line's count (a Tally after
// its first count; the console's is the same), one full count of every
// group, the newest 100 of every state, the
// newest 100 done, and — for comparison — a Scan of the whole table, the
// status line's count without the index. Each at 1 partition per group (the
// local stack's ItemIndexShards) and at the template's default 16. moto
// answers every Query by walking and sorting the whole table, so a read
// costs about one walk per partition it asks. docs/performance.md has the
// figures:
//
//	go test ./internal/store/ -run '^$' -bench OperatorReadsOnMoto -benchtime 5x
func BenchmarkOperatorReadsOnMoto(b *testing.B) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("TRIAGE_BENCH_ITEMS")); err == nil && v > 0 {
		n = v
	}
	for _, shards := range []int{1, store.DefaultIndexShards} {
		env := localtest.Stack(b, nil)
		db := dynamodb.NewFromConfig(env.AWS)
		table := env.Stack.ItemsTable()
		seedPipeline(b, &store.Items{DB: db, Table: table, IndexShards: shards}, n)
		x := &store.ItemIndex{DB: db, Table: table, Shards: shards}
		ctx := context.Background()
		tally := &store.Tally{Index: x}
		if _, err := tally.Counts(ctx, time.Now()); err != nil {
			b.Fatal(err)
		}
		none := func(store.Item) error { return nil }
		for _, c := range []struct {
			name string
			run  func() error
		}{
			{"status line (tally)", func() error { _, err := tally.Counts(ctx, time.Now()); return err }},
			{"count every state", func() error { _, err := x.Count(ctx, store.CountQuery{}); return err }},
			{"newest 100 of every state", func() error {
				return x.List(ctx, store.ItemQuery{States: work.States(), Limit: 100}, none)
			}},
			{"newest 100 done", func() error { return x.List(ctx, store.ItemQuery{State: work.Done, Limit: 100}, none) }},
			{"scan of the table", func() error {
				return dynamo.Scan(ctx, db, &dynamodb.ScanInput{TableName: aws.String(table), ProjectionExpression: aws.String("#s"),
					ExpressionAttributeNames: map[string]string{"#s": "state"}}, 1000, func(map[string]types.AttributeValue) error { return nil })
			}},
		} {
			b.Run(fmt.Sprintf("%d items/%d shards/%s", n, shards, c.name), func(b *testing.B) {
				for b.Loop() {
					if err := c.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// seedPipeline puts n items, 8 at a time: 70% done, the rest spread over
// queued, working, retryable and deadletter at every stage.
func seedPipeline(b *testing.B, items *store.Items, n int) {
	b.Helper()
	live := []work.State{work.Queued, work.Working, work.Retryable, work.Deadletter}
	t := time.Now().Add(-time.Hour)
	next := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				it := deadItem(fmt.Sprintf("bench-%06d", i))
				it.UpdatedAt = t.Add(time.Duration(i) * time.Millisecond)
				if i%10 < 7 {
					it.State, it.Stage, it.Status, it.LastError, it.DeadLetter = work.Done, work.Notify, work.Notified, nil, nil
				} else {
					it.State, it.Stage = live[i%len(live)], work.Stages()[i%3]
					it.LastError.ErrorClass = work.RateLimited
				}
				if err := items.Put(context.Background(), it); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range n {
		select {
		case next <- i:
		case err := <-errs:
			close(next)
			b.Fatal(err)
		}
	}
	close(next)
	wg.Wait()
}
