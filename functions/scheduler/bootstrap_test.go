package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/infra/local/lambda/lambdatest"
	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/parked"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// TestSchedulerBootstrap runs the real scheduler function, built as its
// bootstrap, with the environment template.yaml gives SchedulerFunc,
// against a moto stack: a due parked wait is sent to its stage queue once.
func TestSchedulerBootstrap(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	served := lambdatest.Serve(t, env, "SchedulerFunc", "./functions/scheduler")
	svc, fn, vars := served.Service, served.Function, served.Env
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if len(fn.Events) != 1 || fn.Events[0].Schedule != "rate(1 minute)" {
		t.Fatalf("SchedulerFunc events = %+v, want one rate(1 minute) schedule", fn.Events)
	}

	items := &state.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.ItemsTable(), ParkedTable: vars["PARKED_TABLE"]}
	now := time.Now().UTC()
	if err := items.Put(ctx, state.Item{ID: "p1", State: state.Working, Stage: pipeline.Notify, LeaseOwner: "m#1", CorrelationID: "c"}); err != nil {
		t.Fatal(err)
	}
	if _, err := items.Park(ctx, state.FailRequest{ItemID: "p1", Stage: pipeline.Notify, Owner: "m#1", Now: now.Add(-13 * time.Hour)},
		state.Parking{DueAt: now.Add(-time.Minute), Envelope: pipeline.Envelope{ItemID: "p1", Stage: pipeline.Notify, CorrelationID: "c"}}); err != nil {
		t.Fatal(err)
	}
	// A wait behind a breaker gate, whose breaker has no record (closed):
	// the gate is open and its waiter goes in the first run, tagged.
	g := gate.New(gate.Breaker, "api.example")
	if err := items.Put(ctx, state.Item{ID: "p2", State: state.Working, Stage: pipeline.LLM, LeaseOwner: "m#2", CorrelationID: "c"}); err != nil {
		t.Fatal(err)
	}
	if err := (&state.Gates{DB: dynamodb.NewFromConfig(env.AWS), Table: vars["GATES_TABLE"]}).Touch(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	if err := items.ParkWait(ctx, state.ReleaseRequest{ItemID: "p2", Stage: pipeline.LLM, Owner: "m#2", Now: now},
		state.Parking{Gate: g, Envelope: pipeline.Envelope{ItemID: "p2", Stage: pipeline.LLM, CorrelationID: "c"}}); err != nil {
		t.Fatal(err)
	}
	event := localtest.Event(t, "scheduler/scheduled.json")
	for i, want := range []parked.Result{{Sent: 2, Released: 1}, {Sent: 0}} {
		res, err := svc.Invoke(ctx, "SchedulerFunc", event)
		if err != nil || res.FunctionError != nil {
			t.Fatalf("invoke %d: %v %v\n%s", i, err, res.FunctionError, res.Logs)
		}
		var r parked.Result
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
	if err != nil || len(out.Messages) != 1 || aws.ToString(out.Messages[0].MessageAttributes[gate.AttrGate].StringValue) != string(g) {
		t.Fatalf("llm queue: %v, %+v", err, out.Messages)
	}
}
