package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/intake"
)

// runRate is `triage-local rate`: the raw SendMessageBatch rate of a local
// AWS (the one `up` runs, from $AWS_ENDPOINT_URL), the baseline that
// docs/performance.md sets `triage submit`'s rate against. It sends the
// producer contract's bodies, ten to a batch with the producer's
// concurrency, to a scratch queue it creates and deletes.
func runRate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("rate", "[flags]", stderr)
	endpoint := fs.String("endpoint", os.Getenv("AWS_ENDPOINT_URL"), "the local AWS (default $AWS_ENDPOINT_URL, as make up exports it)")
	n := fs.Int("messages", 10000, "messages to send")
	conc := fs.Int("concurrency", intake.DefaultConcurrency, "concurrent SendMessageBatch calls")
	keep := fs.String("keep", "", "also create an empty queue of this name and keep it, to time triage submit --fetch-queue against")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	if *endpoint == "" || *n <= 0 || *conc <= 0 {
		fmt.Fprintln(stderr, "triage-local rate: --endpoint (or $AWS_ENDPOINT_URL), --messages and --concurrency are required")
		return exitUsage
	}
	cfg, err := moto.Config(ctx, *endpoint)
	if err != nil {
		fmt.Fprintf(stderr, "triage-local rate: %v\n", err)
		return exitSetup
	}
	q := sqs.NewFromConfig(cfg)
	name := "triage-rate-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	created, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		fmt.Fprintf(stderr, "triage-local rate: %v\n", err)
		return exitSetup
	}
	url := aws.ToString(created.QueueUrl)
	defer func() {
		if _, err := q.DeleteQueue(context.WithoutCancel(ctx), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}); err != nil {
			fmt.Fprintf(stderr, "triage-local rate: delete %s: %v\n", name, err)
		}
	}()
	if *keep != "" {
		kept, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(*keep)})
		if err != nil {
			fmt.Fprintf(stderr, "triage-local rate: %v\n", err)
			return exitSetup
		}
		fmt.Fprintf(stdout, "kept queue: %s\n", aws.ToString(kept.QueueUrl))
	}
	bodies := make([]string, *n)
	for i := range bodies {
		id := fmt.Sprintf("rate-%06d", i)
		bodies[i] = intake.Spec{ItemID: id, SourceURL: "http://127.0.0.1:1/articles/" + id, WebhookURL: "http://127.0.0.1:1/hooks/rate"}.Encode()
	}
	start := time.Now()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed int
		next   = make(chan int)
	)
	for range *conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range next {
				to := min(from+intake.BatchSize, len(bodies))
				entries := make([]sqstypes.SendMessageBatchRequestEntry, 0, to-from)
				for i := from; i < to; i++ {
					entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i - from)), MessageBody: aws.String(bodies[i])})
				}
				out, err := q.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
				mu.Lock()
				if err != nil {
					failed += len(entries)
				} else {
					failed += len(out.Failed)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < len(bodies) && ctx.Err() == nil; i += intake.BatchSize {
		next <- i
	}
	close(next)
	wg.Wait()
	d := time.Since(start)
	fmt.Fprintf(stdout, "raw SendMessageBatch: %d messages (%d failed) in %.1fs = %.0f messages/s (%d concurrent calls, %d per batch)\n",
		*n, failed, d.Seconds(), float64(*n)/d.Seconds(), *conc, intake.BatchSize)
	return exitOK
}
