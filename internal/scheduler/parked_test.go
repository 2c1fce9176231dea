package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// live is the llm stage and the scheduler on a moto stack, on one clock.
type live struct {
	env    *localtest.Env
	db     *dynamodb.Client
	sqs    *sqs.Client
	items  *store.Items
	store  *store.Parked
	clock  *clock.Stub
	runner *runner.Runner
	sched  *scheduler.Scheduler
	calls  atomic.Int64
	quota  atomic.Bool // the provider's quota is exhausted
}

func setupLive(t *testing.T) *live {
	t.Helper()
	env := localtest.Stack(t, nil)
	l := &live{env: env, db: dynamodb.NewFromConfig(env.AWS), sqs: sqs.NewFromConfig(env.AWS), clock: clock.NewStub(t0)}
	l.items = env.Items()
	l.store = &store.Parked{DB: l.db, Table: env.Stack.ParkedTable()}
	profile := policy.Standard()
	profile.ProviderQuotaWait = 30 * time.Hour // a 30 h wait: beyond SQS's 12 h
	l.runner = &runner.Runner{
		Stage: work.LLM, Items: l.items, SQS: l.sqs, Profile: profile, Clock: l.clock, Rand: func() float64 { return 0 },
		QueueURL: env.Stack.QueueURL(work.LLM), DLQURL: env.Stack.DLQURL(work.LLM), NextQueueURL: env.Stack.QueueURL(work.Notify),
		Work: runner.WorkFunc(func(context.Context, store.Item) (work.Output, error) {
			l.calls.Add(1)
			if l.quota.Load() {
				return work.Output{}, &failure.HTTPError{Provider: failure.OpenAI, Status: 429,
					Body: []byte(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)}
			}
			return work.Output{Enrichment: &work.Enrichment{Model: "m"}}, nil
		}),
	}
	l.sched = l.scheduler(l.sqs, l.store)
	return l
}

func (l *live) scheduler(q scheduler.SQS, dbx scheduler.Store) *scheduler.Scheduler {
	qs := map[work.Stage]string{}
	for _, st := range work.Stages() {
		qs[st] = l.env.Stack.QueueURL(st)
	}
	return &scheduler.Scheduler{Store: dbx, SQS: q, Queues: qs, Clock: l.clock}
}

func (l *live) seed(t *testing.T, id string) {
	t.Helper()
	if err := l.items.Put(context.Background(), store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id,
		Status: work.Fetched, State: work.Queued, Stage: work.LLM, Document: &work.Document{Text: "t"}}); err != nil {
		t.Fatal(err)
	}
}

// park runs the llm stage on id with the quota exhausted: a 30 h wait.
func (l *live) park(t *testing.T, id string) time.Time {
	t.Helper()
	l.seed(t, id)
	l.quota.Store(true)
	if _, err := l.sqs.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(l.runner.QueueURL),
		MessageBody: aws.String(work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "corr-" + id}.Encode())}); err != nil {
		t.Fatal(err)
	}
	recs, resp := runnertest.Pump(context.Background(), t, l.sqs, l.runner.QueueURL, l.runner.Handle, 0)
	if len(recs) != 1 || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("parking delivery: %d records, kept %v", len(recs), resp.BatchItemFailures)
	}
	due := l.clock.Now().Add(30 * time.Hour)
	it, err := l.items.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if it.State != work.Retryable || !it.NotBefore.Equal(due) || it.Attempts[work.LLM] != 0 || it.LastError.ErrorClass != work.BudgetExceeded {
		t.Fatalf("parked item %+v", it)
	}
	w, err := l.store.Get(context.Background(), id)
	if err != nil || !w.DueAt.Equal(due) || w.Stage != work.LLM {
		t.Fatalf("parked record %+v, %v", w, err)
	}
	return due
}

func (l *live) run(t *testing.T, s *scheduler.Scheduler) scheduler.Result {
	t.Helper()
	res, err := s.Run(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// queued drains the llm queue's messages (without processing them) and
// returns their bodies.
func (l *live) queued(t *testing.T) []string {
	t.Helper()
	return runnertest.Drain(context.Background(), t, l.sqs, l.runner.QueueURL, 0)
}

func TestParkedWaitIsReenqueuedExactlyOnceWhenDue(t *testing.T) {
	t.Parallel()
	l := setupLive(t)
	due := l.park(t, "w30")

	l.clock.Advance(30*time.Hour - time.Minute)
	if res := l.run(t, l.sched); res.Sent != 0 || res.Due != 0 {
		t.Fatalf("a minute early: %+v", res)
	}
	l.clock.Advance(time.Minute)
	if res := l.run(t, l.sched); res.Sent != 1 || res.Claimed != 1 || res.Deleted != 1 || res.Errors != 0 {
		t.Fatalf("when due: %+v", res)
	}
	if res := l.run(t, l.sched); res.Sent != 0 || res.Due != 0 {
		t.Fatalf("second run: %+v", res)
	}
	if _, err := l.store.Get(context.Background(), "w30"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("parked record after the re-enqueue: %v", err)
	}
	// The stage runs the item when it comes back, at its due time.
	l.quota.Store(false)
	recs, resp := runnertest.Pump(context.Background(), t, l.sqs, l.runner.QueueURL, l.runner.Handle, 0)
	if len(recs) != 1 || len(resp.BatchItemFailures) != 0 || l.calls.Load() != 2 {
		t.Fatalf("re-enqueued delivery: %d records, kept %v, calls %d", len(recs), resp.BatchItemFailures, l.calls.Load())
	}
	it, _ := l.items.Get(context.Background(), "w30")
	if it.Stage != work.Notify || it.State != work.Queued || !l.clock.Now().Equal(due) {
		t.Fatalf("after the wait: %s at %s", it.State, it.Stage)
	}
	if rest := l.queued(t); len(rest) != 0 {
		t.Fatalf("left on the llm queue: %v", rest)
	}
}

// failingSQS refuses every send: a scheduler that dies after its claims.
type failingSQS struct{}

func (failingSQS) SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return nil, errors.New("injected: the scheduler crashed before sending")
}

func TestSchedulerCrashBetweenClaimAndSendLosesNothing(t *testing.T) {
	t.Parallel()
	l := setupLive(t)
	due := l.park(t, "c1")
	l.clock.Advance(due.Sub(l.clock.Now()))

	if res := l.run(t, l.scheduler(failingSQS{}, l.store)); res.Claimed != 1 || res.Sent != 0 || res.Errors != 1 {
		t.Fatalf("crashing run: %+v", res)
	}
	l.clock.Advance(30 * time.Second)
	if res := l.run(t, l.sched); res.Contended != 1 || res.Sent != 0 {
		t.Fatalf("while the dead run's claim is live: %+v", res)
	}
	l.clock.Advance(scheduler.DefaultClaimFor)
	if res := l.run(t, l.sched); res.Sent != 1 || res.Deleted != 1 {
		t.Fatalf("after the claim expired: %+v", res)
	}
	if res := l.run(t, l.sched); res.Sent != 0 {
		t.Fatalf("again: %+v", res)
	}
	if got := l.queued(t); len(got) != 1 {
		t.Fatalf("llm queue holds %d messages, want exactly 1", len(got))
	}
}

// failingDeletes refuses DeleteItem: a scheduler that dies after its sends.
type failingDeletes struct{ *dynamodb.Client }

func (failingDeletes) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errors.New("injected: the scheduler crashed before deleting")
}

func TestSchedulerCrashBetweenSendAndDeleteIsAbsorbed(t *testing.T) {
	t.Parallel()
	l := setupLive(t)
	due := l.park(t, "d1")
	l.clock.Advance(due.Sub(l.clock.Now()))
	crashing := l.scheduler(l.sqs, &store.Parked{DB: failingDeletes{l.db}, Table: l.env.Stack.ParkedTable()})
	if res := l.run(t, crashing); res.Sent != 1 || res.Errors != 1 || res.Deleted != 0 {
		t.Fatalf("crashing run: %+v", res)
	}
	l.clock.Advance(scheduler.DefaultClaimFor + time.Second)
	if res := l.run(t, l.sched); res.Sent != 1 || res.Deleted != 1 {
		t.Fatalf("after the claim expired: %+v", res)
	}
	// Two envelopes for one wait: the stage runs the item once.
	l.quota.Store(false)
	before := l.calls.Load()
	delivered := 0
	for range 3 {
		recs, resp := runnertest.Pump(context.Background(), t, l.sqs, l.runner.QueueURL, l.runner.Handle, 0)
		if len(resp.BatchItemFailures) != 0 {
			t.Fatalf("kept %v", resp.BatchItemFailures)
		}
		delivered += len(recs)
	}
	if delivered != 2 || l.calls.Load()-before != 1 {
		t.Fatalf("%d deliveries ran the stage %d times, want 2 and 1", delivered, l.calls.Load()-before)
	}
}

// TestSchedulerMemory runs the scheduler over the in-memory twin: pages,
// max per run and a stage without a queue.
func TestSchedulerMemory(t *testing.T) {
	t.Parallel()
	dbx := store.NewMemory()
	ctx := context.Background()
	for i := range 5 {
		id := "m" + strconv.Itoa(i)
		st := work.LLM
		if i == 4 {
			st = work.Notify
		}
		dbx.Put(store.Item{ID: id, State: work.Working, Stage: st, LeaseOwner: "o", CorrelationID: "c"})
		if _, err := dbx.Park(ctx, store.FailRequest{ItemID: id, Stage: st, Owner: "o", Now: t0},
			store.Parking{DueAt: t0.Add(time.Duration(i) * time.Hour), Envelope: work.Envelope{ItemID: id, Stage: st, CorrelationID: "c"}}); err != nil {
			t.Fatal(err)
		}
	}
	q := runnertest.NewQueues()
	clock := clock.NewStub(t0.Add(10 * time.Hour))
	s := &scheduler.Scheduler{Store: dbx.ParkedStore(), SQS: q, Queues: map[work.Stage]string{work.LLM: "llm"}, Clock: clock, MaxPerRun: 3}
	res, err := s.Run(ctx, "run1")
	if err != nil || res.Due != 3 || res.Sent != 3 || res.Deleted != 3 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	clock.Advance(time.Minute)
	res, err = s.Run(ctx, "run2")
	if err != nil || res.Due != 2 || res.Sent != 1 || res.Errors != 1 {
		t.Fatalf("second run (m4's stage has no queue): %+v, %v", res, err)
	}
	if got := q.Sent("llm"); len(got) != 4 {
		t.Fatalf("sent %v", got)
	}
	if _, left := dbx.Parked()["m4"]; !left || len(dbx.Parked()) != 1 {
		t.Fatalf("parked %v, want only m4 left", dbx.Parked())
	}
}

func ExampleScheduler() {
	dbx := store.NewMemory()
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	dbx.Put(store.Item{ID: "story-1", State: work.Working, Stage: work.LLM, LeaseOwner: "m#1", CorrelationID: "c"})
	_, _ = dbx.Park(ctx, store.FailRequest{ItemID: "story-1", Stage: work.LLM, Owner: "m#1", Now: now},
		store.Parking{DueAt: now.Add(24 * time.Hour), Envelope: work.Envelope{ItemID: "story-1", Stage: work.LLM, CorrelationID: "c"}})

	q := runnertest.NewQueues()
	clock := clock.NewStub(now.Add(24 * time.Hour))
	s := &scheduler.Scheduler{Store: dbx.ParkedStore(), SQS: q, Queues: map[work.Stage]string{work.LLM: "llm-queue"}, Clock: clock}
	res, _ := s.Run(ctx, "example")
	fmt.Println(res.Sent, res.Deleted, q.Sent("llm-queue"))
	res, _ = s.Run(ctx, "example-2")
	fmt.Println(res.Sent)
	// Output:
	// 1 1 [{"item_id":"story-1","stage":"llm","correlation_id":"c"}]
	// 0
}

// BenchmarkSchedulerPage re-enqueues one page of 100 parked waits on moto
// per iteration: 100 claims, 10 SendMessageBatch calls, 100 deletes.
func BenchmarkSchedulerPage(b *testing.B) {
	env := localtest.Stack(b, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	items := env.Items()
	clock := clock.NewStub(t0)
	s := &scheduler.Scheduler{Store: &store.Parked{DB: db, Table: env.Stack.ParkedTable()}, SQS: sqs.NewFromConfig(env.AWS),
		Queues: map[work.Stage]string{work.LLM: env.Stack.QueueURL(work.LLM)}, Clock: clock}
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		for j := range 100 {
			id := fmt.Sprintf("b%d-%d", i, j)
			if err := items.Put(ctx, store.Item{ID: id, State: work.Working, Stage: work.LLM, LeaseOwner: "o", CorrelationID: "c"}); err != nil {
				b.Fatal(err)
			}
			if _, err := items.Park(ctx, store.FailRequest{ItemID: id, Stage: work.LLM, Owner: "o", Now: clock.Now()},
				store.Parking{DueAt: clock.Now(), Envelope: work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "c"}}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		res, err := s.Run(ctx, "")
		if err != nil || res.Sent != 100 {
			b.Fatalf("%+v, %v", res, err)
		}
		clock.Advance(time.Second)
	}
}
