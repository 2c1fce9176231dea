package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/local/lambda/lambdatest"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// TestRedriveBootstrap runs the real redrive function, built as its
// bootstrap, with the environment template.yaml gives RedriveFunc, against
// a moto stack, on events/redrive/replay-llm-by-class.json.
func TestRedriveBootstrap(t *testing.T) {
	t.Parallel()
	env, served, ctx := lambdatest.Start(t, nil, "RedriveFunc", "./cmd/redrive")
	vars := served.Env
	// One event: the schedule that resumes what the queues' redrive
	// backstop moved, whose input is a valid replay of backstop messages
	// only (an operator invokes the function directly for the rest).
	input, _ := served.Schedule(t).Properties["Input"].(string)
	var backstop replay.Request
	if err := json.Unmarshal([]byte(input), &backstop); err != nil || backstop.Validate() != nil || !backstop.Filter.Backstop {
		t.Fatalf("the backstop schedule's input %q: %+v, %v", input, backstop, err)
	}

	items := &store.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: vars["ITEMS_TABLE"]}
	now := time.Now().UTC()
	attempts := map[work.Stage]int{work.LLM: 5}
	if err := items.Put(ctx, store.Item{ID: "story-000123", Kind: store.KindStory, CorrelationID: "c", Status: work.Fetched,
		State: work.Deadletter, Stage: work.LLM, Attempts: attempts, LastFailureAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	body, err := deadletter.Build(deadletter.Input{ItemID: "story-000123", CorrelationID: "c", Stage: work.LLM,
		Err: failure.New(work.UpstreamUnavailable, "503"), Failure: failure.Of(work.UpstreamUnavailable, "test"),
		Attempts: attempts, FirstFailureAt: now, LastFailureAt: now}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	q := sqs.NewFromConfig(env.AWS)
	if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(vars["LLM_DLQ_URL"]), MessageBody: aws.String(string(body))}); err != nil {
		t.Fatal(err)
	}
	// The schedule's run resumes a raw envelope the fetch queue's backstop
	// moved and leaves triage's dead letter to the operator.
	if err := items.Put(ctx, store.Item{ID: "story-000124", Kind: store.KindStory, CorrelationID: "c2", Status: work.Received,
		State: work.Retryable, Stage: work.Fetch, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	raw := work.Envelope{ItemID: "story-000124", Stage: work.Fetch, CorrelationID: "c2"}.Encode()
	if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(vars["FETCH_DLQ_URL"]), MessageBody: aws.String(raw)}); err != nil {
		t.Fatal(err)
	}
	res := served.Invoke(t, ctx, "RedriveFunc", []byte(input))
	var bsum replay.Summary
	if err := json.Unmarshal(res.Payload, &bsum); err != nil || bsum.Replayed != 1 || bsum.Items[0].ItemID != "story-000124" {
		t.Fatalf("backstop summary %s (%v)\n%s", res.Payload, err, res.Logs)
	}
	if it, err := items.Get(ctx, "story-000124"); err != nil || it.State != work.Queued || it.Replays[0].By != "backstop" {
		t.Fatalf("item after the backstop's run: %+v, %v", it, err)
	}
	if it, err := items.Get(ctx, "story-000123"); err != nil || it.State != work.Deadletter {
		t.Fatalf("triage's dead letter after the backstop's run: %+v, %v", it, err)
	}
	event := localtest.Event(t, "redrive/replay-llm-by-class.json")
	res = served.Invoke(t, ctx, "RedriveFunc", event)
	var sum replay.Summary
	if err := json.Unmarshal(res.Payload, &sum); err != nil || sum.Replayed != 1 || sum.Items[0].Target != work.LLM {
		t.Fatalf("summary %s (%v)\n%s", res.Payload, err, res.Logs)
	}
	it, err := items.Get(ctx, "story-000123")
	if err != nil || it.State != work.Queued || it.Replays[0].By != "oncall@example.com" {
		t.Fatalf("item after the replay: %+v, %v", it, err)
	}
	out, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(vars["LLM_QUEUE_URL"]), MaxNumberOfMessages: 10})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("llm queue: %v, %d messages", err, len(out.Messages))
	}
	// An invalid request is the invocation's error.
	res, err = served.Service.Invoke(ctx, "RedriveFunc", []byte(`{"dlqs":"all"}`))
	if err != nil || res.FunctionError == nil {
		t.Fatalf("a request without a note: %v, %+v", err, res)
	}
}
