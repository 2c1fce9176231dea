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
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// TestSchedulerBootstrap runs the real scheduler function, built as its
// bootstrap, with the environment template.yaml gives SchedulerFunc,
// against a moto stack: a due parked wait is sent to its stage queue once.
func TestSchedulerBootstrap(t *testing.T) {
	t.Parallel()
	env, served, ctx := lambdatest.Start(t, nil, "SchedulerFunc", "./cmd/scheduler")
	vars := served.Env
	if ev := served.Schedule(t); ev.Schedule != "rate(1 minute)" {
		t.Fatalf("SchedulerFunc's schedule = %q, want rate(1 minute)", ev.Schedule)
	}

	items := &store.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.ItemsTable(), ParkedTable: vars["PARKED_TABLE"]}
	now := time.Now().UTC()
	if err := items.Put(ctx, store.Item{ID: "p1", State: work.Working, Stage: work.Notify, LeaseOwner: "m#1", CorrelationID: "c"}); err != nil {
		t.Fatal(err)
	}
	if _, err := items.Park(ctx, store.FailRequest{ItemID: "p1", Stage: work.Notify, Owner: "m#1", Now: now.Add(-13 * time.Hour)},
		store.Parking{DueAt: now.Add(-time.Minute), Envelope: work.Envelope{ItemID: "p1", Stage: work.Notify, CorrelationID: "c"}}); err != nil {
		t.Fatal(err)
	}
	// A wait behind a breaker gate, whose breaker has no record (closed):
	// the gate is open and its waiter goes in the first run, tagged.
	g := gates.New(gates.Breaker, "api.example")
	if err := items.Put(ctx, store.Item{ID: "p2", State: work.Working, Stage: work.LLM, LeaseOwner: "m#2", CorrelationID: "c"}); err != nil {
		t.Fatal(err)
	}
	if err := (&store.Gates{DB: dynamodb.NewFromConfig(env.AWS), Table: vars["GATES_TABLE"]}).Touch(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	if err := items.ParkWait(ctx, store.ReleaseRequest{ItemID: "p2", Stage: work.LLM, Owner: "m#2", Now: now},
		store.Parking{Gate: g, Envelope: work.Envelope{ItemID: "p2", Stage: work.LLM, CorrelationID: "c"}}); err != nil {
		t.Fatal(err)
	}
	event := localtest.Event(t, "scheduler/scheduled.json")
	for i, want := range []scheduler.Result{{Sent: 2, Released: 1}, {Sent: 0}} {
		res := served.Invoke(t, ctx, "SchedulerFunc", event)
		var r scheduler.Result
		if err := json.Unmarshal(res.Payload, &r); err != nil || r.Sent != want.Sent || r.Released != want.Released {
			t.Fatalf("run %d: %s (%v), want %d sent, %d released from a gate\n%s", i, res.Payload, err, want.Sent, want.Released, res.Logs)
		}
	}
	q := sqs.NewFromConfig(env.AWS)
	out, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(vars["NOTIFY_QUEUE_URL"]), MaxNumberOfMessages: 10})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("notify queue: %v, %d messages", err, len(out.Messages))
	}
	// The release is spread over the run's interval (DelaySeconds): the one
	// waiter of the run goes at once.
	out, err = q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(vars["LLM_QUEUE_URL"]), MaxNumberOfMessages: 10,
		MessageAttributeNames: []string{"All"}, WaitTimeSeconds: 2})
	if err != nil || len(out.Messages) != 1 || aws.ToString(out.Messages[0].MessageAttributes[gates.AttrGate].StringValue) != string(g) {
		t.Fatalf("llm queue: %v, %+v", err, out.Messages)
	}
}
