package triage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"
)

// TestMain stops the moto server the DynamoDB test starts.
func TestMain(m *testing.M) { localtest.Main(m) }

// TestInlineSharesTheWorkersRecords: on the stack's own tables (moto), the
// inline path opens the breaker the workers read, leases from the day's
// budget record they lease from, and hands the item it gives up on to the
// fetch queue, as a spec the fetch stage decodes.
func TestInlineSharesTheWorkersRecords(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	sq := sqs.NewFromConfig(env.AWS)
	tables := triage.Tables{Breakers: env.Output(t, "BreakersTableName"), Models: env.Output(t, "ModelsTableName"),
		Budget: env.Output(t, "BudgetTableName")}
	queue := env.Stack.QueueURL(work.Fetch)
	clk := newClock()
	c := newClient(t, triage.Config{Stores: triage.DynamoStores(db, tables), DailyBudgetUSD: "0.3", CostPerCallUSD: "0.003",
		SQS: sq, FetchQueueURL: queue, Clock: clk, Rand: half})

	calls := 0
	down := func(context.Context) error { calls++; return status(503) }
	for _, id := range []string{"d-1", "d-2", "d-3", "d-4", "d-5"} {
		_ = c.Do(within(t, clk, 10*time.Second), down, triage.Service("llm:openai"), triage.Model("openai:gpt-4o-mini"),
			triage.ForItem(item(id)))
	}
	rec, err := (&breaker.Dynamo{DB: db, Table: tables.Breakers}).Get(t.Context(), "llm:openai")
	if err != nil || rec.State != breaker.Open {
		t.Fatalf("breaker %+v, %v after %d calls; want it open in the table", rec, err, calls)
	}
	day, err := (&budget.Daily{DB: db, Table: tables.Budget}).Day(t.Context(), clk.Now())
	if err != nil || day.Leased == 0 || day.Leases == 0 {
		t.Fatalf("budget day %+v, %v; want the inline path's lease in the table", day, err)
	}

	before := calls
	err = c.Do(within(t, clk, 10*time.Second), down, triage.Service("llm:openai"), triage.ForItem(item("d-6")))
	var e *triage.Error
	if !errors.As(err, &e) || !errors.Is(err, triage.ErrWaiting) || !errors.Is(err, triage.ErrQueued) || calls != before {
		t.Fatalf("Do = %v with %d more calls; want a refusal, queued", err, calls-before)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		out, err := sq.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queue), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			spec, _, err := intake.Decode(aws.ToString(m.Body))
			if err != nil {
				t.Fatalf("the fetch stage cannot decode %q: %v", aws.ToString(m.Body), err)
			}
			if spec.ItemID == "d-6" && aws.ToString(m.MessageId) == e.MessageID {
				return
			}
		}
	}
	t.Fatalf("message %s of item d-6 not on the fetch queue", e.MessageID)
}
