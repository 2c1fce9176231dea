package replay_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// live is the whole pipeline on a moto stack: three runners with scripted
// work, driven from their real queues by runnertest.Pump, and a Replayer.
type live struct {
	env     *localtest.Env
	sqs     *sqs.Client
	items   *store.Items
	index   *store.ItemIndex
	runners map[work.Stage]*runner.Runner
	r       *replay.Replayer

	mu sync.Mutex
	// script says how stage st treats item id on its n-th call (1-based):
	// nil is success.
	script func(st work.Stage, id string, n int) error
	calls  map[work.Stage]map[string]int
}

func setupLive(t *testing.T) *live {
	t.Helper()
	return setupLiveWith(t, nil)
}

// setupLiveWith is setupLive on a stack created with the template
// parameters params.
func setupLiveWith(t *testing.T, params map[string]string) *live {
	t.Helper()
	env := localtest.Stack(t, params)
	db := dynamodb.NewFromConfig(env.AWS)
	l := &live{
		env: env, sqs: sqs.NewFromConfig(env.AWS),
		items:   &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies()},
		index:   &store.ItemIndex{DB: db, Table: env.Stack.ItemsTable()},
		runners: map[work.Stage]*runner.Runner{},
		calls:   map[work.Stage]map[string]int{},
		script:  func(work.Stage, string, int) error { return nil },
	}
	qs := map[work.Stage]replay.Queues{}
	for _, st := range work.Stages() {
		next := ""
		if n, ok := st.Next(); ok {
			next = env.Stack.QueueURL(n)
		}
		l.runners[st] = &runner.Runner{
			Stage: st, Work: l.work(st), Items: l.items, ErrorLog: &store.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()},
			SQS: l.sqs, QueueURL: env.Stack.QueueURL(st), DLQURL: env.Stack.DLQURL(st), NextQueueURL: next,
			Profile: policy.Standard(), Rand: func() float64 { return 0 }, ResendDelay: time.Second,
		}
		qs[st] = replay.Queues{Queue: env.Stack.QueueURL(st), DLQ: env.Stack.DLQURL(st)}
	}
	l.r = &replay.Replayer{SQS: l.sqs, Items: l.items, Index: l.index, Queues: qs, PollWait: -1, Visibility: time.Minute}
	return l
}

func (l *live) work(st work.Stage) runner.Work {
	return runner.WorkFunc(func(_ context.Context, it store.Item) (work.Output, error) {
		l.mu.Lock()
		if l.calls[st] == nil {
			l.calls[st] = map[string]int{}
		}
		l.calls[st][it.ID]++
		n := l.calls[st][it.ID]
		script := l.script
		l.mu.Unlock()
		if err := script(st, it.ID, n); err != nil {
			return work.Output{}, err
		}
		switch st {
		case work.Fetch:
			return work.Output{Document: &work.Document{Text: "text of " + it.ID, Bytes: 10}}, nil
		case work.LLM:
			return work.Output{Enrichment: &work.Enrichment{SummaryNeutral: "s", Model: "m"}}, nil
		}
		return work.Output{Delivery: &work.WebhookDelivery{Status: 200}}, nil
	})
}

func (l *live) setScript(f func(st work.Stage, id string, n int) error) {
	l.mu.Lock()
	l.script = f
	l.mu.Unlock()
}

func (l *live) callsOf(st work.Stage, id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls[st][id]
}

func (l *live) submit(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, err := l.items.Create(context.Background(), store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
		l.send(t, l.env.Stack.QueueURL(work.Fetch), work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "corr-" + id}.Encode())
	}
}

func (l *live) send(t *testing.T, url, body string) {
	t.Helper()
	if _, err := l.sqs.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
}

// drain pumps every stage queue until a whole round delivers nothing
// (bounded: 30 rounds).
func (l *live) drain(t *testing.T) {
	t.Helper()
	for range 30 {
		n := 0
		for _, st := range work.Stages() {
			recs, _ := runnertest.Pump(context.Background(), t, l.sqs, l.runners[st].QueueURL, l.runners[st].Handle, 0)
			n += len(recs)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the pipeline did not settle in 30 rounds")
}

func (l *live) get(t *testing.T, id string) store.Item {
	t.Helper()
	return runnertest.Item(t, l.items, id)
}

// dlq lists a DLQ's dead letters by item id (peeking: nothing changes).
func (l *live) dlq(t *testing.T, st work.Stage) map[string][]replay.DeadLetter {
	t.Helper()
	dls, err := l.r.List(context.Background(), replay.ListRequest{DLQs: replay.Stages{st}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]replay.DeadLetter{}
	for _, dl := range dls {
		out[dl.ItemID] = append(out[dl.ItemID], dl)
	}
	return out
}

func (l *live) run(t *testing.T, req replay.Request) replay.Summary {
	t.Helper()
	sum, err := l.r.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func bodies(m map[string][]replay.DeadLetter, ids ...string) []string {
	var out []string
	for _, id := range ids {
		for _, dl := range m[id] {
			out = append(out, dl.Body())
		}
	}
	slices.Sort(out)
	return out
}

// TestReplayAcceptance drives items through fetch → llm → notify on moto
// and replays their dead letters: from the failed stage (earlier stages
// not re-run), with a filter (unselected dead letters stay, untouched),
// deduplicating a copy, escalating a repeat of a permanent class, and as a
// full restart.
func TestReplayAcceptance(t *testing.T) {
	t.Parallel()
	l := setupLive(t)
	fixed := false
	l.setScript(func(st work.Stage, id string, n int) error {
		switch {
		case st == work.Fetch && id == "f1":
			return failure.New(work.NotFound, "article gone")
		case st == work.LLM && (id == "a1" || id == "a2") && !fixed:
			return failure.New(work.AuthDenied, "invalid api key")
		case st == work.LLM && id == "c1":
			return failure.New(work.ContentPolicy, "content_filter")
		case st == work.LLM && id == "r1":
			return failure.New(work.ResponseInvalid, "model output is not JSON")
		case st == work.Notify && id == "n1" && !fixed:
			return failure.New(work.NotFound, "channel_not_found")
		}
		return nil
	})
	l.submit(t, "a1", "a2", "c1", "r1", "n1", "f1", "ok")
	l.drain(t)
	llmDLQ := l.dlq(t, work.LLM)
	if len(llmDLQ) != 4 || len(l.dlq(t, work.Fetch)) != 1 || len(l.dlq(t, work.Notify)) != 1 || l.get(t, "ok").State != work.Done {
		t.Fatalf("after the first run: llm DLQ %v", llmDLQ)
	}
	if p := llmDLQ["r1"][0].Payload; p.ErrorClass != work.ResponseInvalid || p.Attempts[work.LLM] != 3 {
		t.Fatalf("r1's dead letter: %+v", p)
	}
	untouched := bodies(llmDLQ, "c1", "r1")
	fetchBefore := bodies(l.dlq(t, work.Fetch), "f1")

	// A dry run changes nothing.
	dry := l.run(t, replay.Request{DLQs: replay.Stages{work.LLM}, Filter: replay.Filter{ErrorClass: replay.Classes{work.AuthDenied}},
		Note: "rotated the key", DryRun: true})
	if dry.Replayed != 2 || dry.Selected != 2 || l.get(t, "a1").State != work.Deadletter || len(l.dlq(t, work.LLM)) != 4 {
		t.Fatalf("dry run: %+v", dry)
	}

	// A copy of a1's dead letter: SQS delivers at least once.
	l.send(t, l.env.Stack.DLQURL(work.LLM), llmDLQ["a1"][0].Body())

	// 1. From the failed stage, by class.
	fixed = true
	sum := l.run(t, replay.Request{DLQs: replay.Stages{work.LLM}, Filter: replay.Filter{ErrorClass: replay.Classes{work.AuthDenied}},
		Note: "rotated the key", By: "oncall"})
	if sum.Selected != 3 || sum.Replayed != 2 || sum.Skipped != 1 || sum.Errors != 0 {
		t.Fatalf("replay by class: %+v", sum)
	}
	for _, id := range []string{"a1", "a2"} {
		it := l.get(t, id)
		if it.State != work.Queued || it.Stage != work.LLM || it.ReplayCount != 1 || it.Attempts[work.LLM] != 0 || it.Replays[0].Note != "rotated the key" {
			t.Fatalf("%s after the replay: %+v", id, it)
		}
	}
	after := l.dlq(t, work.LLM)
	if got := bodies(after, "c1", "r1"); len(after) != 2 || !slices.Equal(got, untouched) {
		t.Fatalf("unselected dead letters changed: %d items", len(after))
	}
	if got := bodies(l.dlq(t, work.Fetch), "f1"); !slices.Equal(got, fetchBefore) {
		t.Fatal("the fetch DLQ changed")
	}
	l.drain(t)
	for _, id := range []string{"a1", "a2"} {
		it := l.get(t, id)
		if it.State != work.Done || it.Status != work.Notified || l.callsOf(work.Fetch, id) != 1 || l.callsOf(work.LLM, id) != 2 {
			t.Fatalf("%s: %s/%s, fetch calls %d, llm calls %d — a replay from llm must not re-run fetch",
				id, it.State, it.Status, l.callsOf(work.Fetch, id), l.callsOf(work.LLM, id))
		}
	}

	// 2. The same non-retryable class again: escalated.
	sum = l.run(t, replay.Request{DLQs: replay.Stages{work.LLM}, Filter: replay.Filter{ItemIDs: []string{"c1"}}, Note: "policy updated"})
	if sum.Replayed != 1 {
		t.Fatalf("replay c1: %+v", sum)
	}
	l.drain(t)
	c1 := l.dlq(t, work.LLM)["c1"]
	if len(c1) != 1 {
		t.Fatalf("c1 dead letters: %d", len(c1))
	}
	p := c1[0].Payload
	if !p.Replay.Escalated || p.Replay.Count != 1 || len(p.Replay.Notes) != 1 || p.Replay.Notes[0].Text != "policy updated" ||
		p.ErrorClass != work.ContentPolicy || c1[0].Status != "replayable" {
		t.Fatalf("c1's second dead letter: replay %+v class %s status %q", p.Replay, p.ErrorClass, c1[0].Status)
	}
	if it := l.get(t, "c1"); it.DeadLetter == nil || !it.DeadLetter.Escalated || it.State != work.Deadletter {
		t.Fatalf("c1 item: %+v", it.DeadLetter)
	}

	// 3. Full restart from the notify DLQ: back to fetch.
	sum = l.run(t, replay.Request{DLQs: replay.Stages{work.Notify}, Mode: store.FullRestart, Note: "webhook recreated"})
	if sum.Replayed != 1 || sum.Items[0].Target != work.Fetch {
		t.Fatalf("full restart: %+v", sum)
	}
	if it := l.get(t, "n1"); it.Stage != work.Fetch || it.Status != work.Received {
		t.Fatalf("n1 after a full restart: %s %s", it.Stage, it.Status)
	}
	l.drain(t)
	if it := l.get(t, "n1"); it.State != work.Done || l.callsOf(work.Fetch, "n1") != 2 || l.callsOf(work.LLM, "n1") != 2 {
		t.Fatalf("n1: %s, fetch calls %d, llm calls %d", it.State, l.callsOf(work.Fetch, "n1"), l.callsOf(work.LLM, "n1"))
	}
	if got := bodies(l.dlq(t, work.LLM), "r1"); !slices.Equal(got, bodies(llmDLQ, "r1")) {
		t.Fatal("r1's dead letter changed")
	}
}

// failingSends makes SendMessageBatch to one queue fail while on.
type failingSends struct {
	*sqs.Client
	mu  sync.Mutex
	url string
}

func (f *failingSends) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	f.mu.Lock()
	fail := f.url != "" && aws.ToString(in.QueueUrl) == f.url
	f.mu.Unlock()
	if fail {
		return nil, errors.New("injected: SendMessageBatch refused")
	}
	return f.Client.SendMessageBatch(ctx, in, opts...)
}

// TestReplayRecovery: a replay interrupted between its write and its send
// is completed by the next run; a raw message the backstop moved replays its
// stuck item; a permanent failure whose DLQ message is gone replays by id;
// max bounds a run.
func TestReplayRecovery(t *testing.T) {
	t.Parallel()
	l := setupLive(t)
	ctx := context.Background()
	broken := map[string]bool{"s1": true, "p1": true, "m1": true, "m2": true, "m3": true}
	var mu sync.Mutex
	l.setScript(func(st work.Stage, id string, n int) error {
		mu.Lock()
		defer mu.Unlock()
		if st == work.Notify && broken[id] {
			return failure.New(work.AuthDenied, "webhook rejected the signature")
		}
		return nil
	})
	l.submit(t, "s1", "p1", "m1", "m2", "m3")
	l.drain(t)
	if got := len(l.dlq(t, work.Notify)); got != 5 {
		t.Fatalf("notify DLQ has %d items, want 5", got)
	}
	mu.Lock()
	clear(broken)
	mu.Unlock()

	// The send fails after the write: the dead letter stays, the next run
	// sends the replay it finds pending — once.
	flaky := &failingSends{Client: l.sqs, url: l.env.Stack.QueueURL(work.Notify)}
	l.r.SQS = flaky
	sum := l.run(t, replay.Request{DLQs: replay.Stages{work.Notify}, Filter: replay.Filter{ItemIDs: []string{"s1"}}, Note: "secret rotated"})
	if sum.Errors != 1 || sum.Items[0].Action != replay.Failed {
		t.Fatalf("with sends failing: %+v", sum)
	}
	if _, pending := l.get(t, "s1").PendingReplay(); !pending || len(l.dlq(t, work.Notify)["s1"]) != 1 {
		t.Fatal("s1 should be written, unsent, its dead letter kept")
	}
	flaky.mu.Lock()
	flaky.url = ""
	flaky.mu.Unlock()
	sum = l.run(t, replay.Request{DLQs: replay.Stages{work.Notify}, Filter: replay.Filter{ItemIDs: []string{"s1"}}, Note: "secret rotated"})
	if sum.Replayed != 1 || sum.Items[0].Action != replay.Resent || len(l.dlq(t, work.Notify)["s1"]) != 0 {
		t.Fatalf("resume: %+v", sum)
	}

	// A permanent failure whose DLQ message expired replays by id.
	if n := l.deleteFromDLQ(t, work.Notify, "p1"); n != 1 {
		t.Fatalf("deleted %d DLQ messages of p1", n)
	}
	sum = l.run(t, replay.Request{Source: replay.SourceItems, Filter: replay.Filter{ItemIDs: []string{"p1"}}, Note: "manual retry"})
	if sum.Replayed != 1 || sum.Items[0].Target != work.Notify {
		t.Fatalf("replay by id: %+v", sum)
	}

	// A raw message the backstop moved: the item is stuck working under an
	// expired lease at fetch.
	k1 := store.Item{ID: "k1", Kind: store.KindStory, CorrelationID: "corr-k1", Status: work.Received, State: work.Working,
		Stage: work.Fetch, LeaseOwner: "gone#50", LeaseUntil: time.Now().Add(-time.Hour), Attempts: map[work.Stage]int{work.Fetch: 4}}
	if err := l.items.Put(ctx, k1); err != nil {
		t.Fatal(err)
	}
	l.send(t, l.env.Stack.DLQURL(work.Fetch), work.Envelope{ItemID: "k1", Stage: work.Fetch, CorrelationID: "corr-k1"}.Encode())
	sum = l.run(t, replay.Request{DLQs: replay.Stages{work.Fetch}, Note: "crash loop fixed"})
	if sum.Replayed != 1 || sum.Items[0].ItemID != "k1" || sum.Items[0].Target != work.Fetch {
		t.Fatalf("backstop replay: %+v", sum)
	}

	// Max: two of the three remaining dead letters.
	sum = l.run(t, replay.Request{DLQs: replay.Stages{work.Notify}, Note: "bulk", Max: 2})
	if sum.Replayed != 2 || len(l.dlq(t, work.Notify)) != 1 {
		t.Fatalf("max 2: %+v", sum)
	}

	l.drain(t)
	for _, id := range []string{"s1", "p1", "k1"} {
		if it := l.get(t, id); it.State != work.Done || it.ReplayCount != 1 {
			t.Fatalf("%s: %s with %d replays", id, it.State, it.ReplayCount)
		}
	}
	if n := l.callsOf(work.Notify, "s1"); n != 2 {
		t.Fatalf("s1 notified %d times, want 2 (the failure and one replay)", n)
	}
}

// deleteFromDLQ removes item id's messages from st's DLQ, as retention
// would, releases the others and returns how many it removed.
func (l *live) deleteFromDLQ(t *testing.T, st work.Stage, id string) int {
	t.Helper()
	ctx, url := context.Background(), aws.String(l.env.Stack.DLQURL(st))
	n := 0
	var keep []*string
	for range 5 {
		out, err := l.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 30})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			break
		}
		for _, m := range out.Messages {
			if p, err := deadletter.Parse([]byte(aws.ToString(m.Body))); err != nil || p.ItemID != id {
				keep = append(keep, m.ReceiptHandle)
				continue
			}
			if _, err := l.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	for _, h := range keep {
		if _, err := l.sqs.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: h}); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestBackstopResubmitsASpecOverTheWire: on the local stack, a producer's
// spec that the fetch stage never got past — received the fetch queue's
// maxReceiveCount times while the store was down, then moved by the
// queue's RedrivePolicy — reaches the fetch DLQ as it was written, marked
// with DeadLetterQueueSourceArn; the redrive's schedule submits it again,
// and the item is created and finishes. Nothing was lost to the outage.
func TestBackstopResubmitsASpecOverTheWire(t *testing.T) {
	t.Parallel()
	l := setupLiveWith(t, map[string]string{"BackstopMaxReceiveCount": "5"})
	ctx := context.Background()
	fetchQ := l.env.Stack.QueueURL(work.Fetch)
	spec := `{"item_id":"outlived-the-outage","source_url":"https://a.example/s","webhook_url":"https://h.example/w"}`
	l.send(t, fetchQ, spec)
	// The store is down: every receive ends with the record released, its
	// item never created. The sixth receive finds it moved.
	for range 6 {
		out, err := l.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(fetchQ), MaxNumberOfMessages: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			if aws.ToString(m.Body) != spec {
				t.Fatalf("fetch queue holds %q", aws.ToString(m.Body))
			}
			if _, err := l.sqs.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
				QueueUrl: aws.String(fetchQ), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	moved := l.dlq(t, work.Fetch)["outlived-the-outage"]
	if len(moved) != 1 || moved[0].Kind != deadletter.KindBackstop || moved[0].Body() != spec {
		t.Fatalf("fetch DLQ holds %+v: want the spec, moved by the backstop", moved)
	}
	sum := l.run(t, replay.Request{Filter: replay.Filter{Backstop: true}, Note: "moved by the redrive backstop", By: "backstop"})
	if sum.Replayed != 1 || sum.Errors != 0 {
		t.Fatalf("the backstop's run: %+v", sum)
	}
	l.drain(t)
	if it := l.get(t, "outlived-the-outage"); it.State != work.Done {
		t.Fatalf("the item after the resubmission: %s at %s", it.State, it.Stage)
	}
	if left := l.dlq(t, work.Fetch); len(left) != 0 {
		t.Fatalf("fetch DLQ after the run: %+v", left)
	}
}
