package notice_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

// poster answers each POST with the next scripted error (nil: 200).
type poster struct {
	mu      sync.Mutex
	answers []error
	posts   []notice.Notice
	urls    []string
}

func (p *poster) PostNotice(_ context.Context, url string, n notice.Notice) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.posts = append(p.posts, n)
	p.urls = append(p.urls, url)
	if len(p.answers) == 0 {
		return 200, nil
	}
	err := p.answers[0]
	p.answers = p.answers[1:]
	if err != nil {
		return 0, err
	}
	return 200, nil
}

func (p *poster) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.posts)
}

func httpErr(status int, header http.Header) error {
	if header == nil {
		header = http.Header{}
	}
	return &failure.HTTPError{Provider: failure.Webhook, Op: "POST webhook", Status: status, Header: header}
}

type bundle struct {
	h       *notice.Handler
	clock   *clock.Stub
	q       *runnertest.Queues
	ledger  *ledger.Memory
	items   *store.Memory
	poster  *poster
	metrics *telemetry.Tally
	body    string
	n       notice.Notice
}

func setup(t *testing.T, answers ...error) *bundle {
	t.Helper()
	b := &bundle{clock: clock.NewStub(t0), q: runnertest.NewQueues(), ledger: ledger.NewMemory(), items: store.NewMemory(),
		poster: &poster{answers: answers}, metrics: &telemetry.Tally{}}
	b.items.Put(store.Item{ID: "task-1", Kind: store.KindAction, CorrelationID: "corr", WebhookURL: "https://hooks.example.com/owner",
		State: work.Deadletter, Stage: work.LLM})
	b.h = &notice.Handler{Items: b.items, Ledger: b.ledger, Poster: b.poster, SQS: b.q, QueueURL: queueURL,
		Clock: b.clock, Rand: func() float64 { return 0.5 }, Metrics: b.metrics}
	b.n = notice.ForFailed(store.Item{ID: "task-1", Kind: store.KindAction, CorrelationID: "corr"}, actionFailed("locked"), "dl-1")
	body, err := b.n.Encode()
	if err != nil {
		t.Fatal(err)
	}
	b.body = body
	return b
}

// deliver hands one record to the handler: message id, its receive count.
func (b *bundle) deliver(t *testing.T, msgID string, rc int) (kept bool, visibility int32) {
	t.Helper()
	rh := msgID + "-" + strconv.Itoa(rc)
	resp, err := b.h.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: msgID, ReceiptHandle: rh,
		Body: b.body, Attributes: map[string]string{"ApproximateReceiveCount": strconv.Itoa(rc)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) == 0 {
		return false, 0
	}
	v, _ := b.q.Visibility(rh)
	return true, v
}

func (b *bundle) state(t *testing.T) ledger.Notice {
	t.Helper()
	n, err := b.ledger.Notice("task-1", b.n.ID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDeliveredAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if kept, _ := b.deliver(t, "m1", 1); kept {
		t.Fatal("a delivered notice was kept")
	}
	if b.poster.count() != 1 || b.poster.urls[0] != "https://hooks.example.com/owner" || b.poster.posts[0].ID != "task-1:item.failed:0" {
		t.Fatalf("posts %+v to %v", b.poster.posts, b.poster.urls)
	}
	if n := b.state(t); n.State != ledger.NoticeDelivered || n.Attempts != 1 || n.Status != 200 {
		t.Fatalf("ledger %+v", n)
	}
	// A duplicate message, now or later, posts nothing.
	if kept, _ := b.deliver(t, "m2", 1); kept || b.poster.count() != 1 || b.metrics.Get(notice.MetricDuplicates) != 1 {
		t.Fatalf("a duplicate: kept %v, %d posts", kept, b.poster.count())
	}
}

// A transient refusal holds the message until the next attempt, which
// delivers; an early redelivery waits without posting.
func TestRetriedUntilDelivered(t *testing.T) {
	t.Parallel()
	b := setup(t, httpErr(503, nil))
	kept, vis := b.deliver(t, "m1", 1)
	if !kept || vis != 30 {
		t.Fatalf("kept %v with visibility %d, want 30 s (the first backoff)", kept, vis)
	}
	if n := b.state(t); n.State != ledger.NoticePending || n.Attempts != 1 || n.LastClass != work.UpstreamUnavailable || n.Status != 503 {
		t.Fatalf("ledger %+v", n)
	}
	b.clock.Advance(10 * time.Second)
	if kept, vis := b.deliver(t, "m1", 2); !kept || vis != 20 || b.poster.count() != 1 {
		t.Fatalf("early redelivery: kept %v, visibility %d, %d posts", kept, vis, b.poster.count())
	}
	b.clock.Advance(20 * time.Second)
	if kept, _ := b.deliver(t, "m1", 3); kept || b.poster.count() != 2 {
		t.Fatalf("due redelivery: kept %v, %d posts", kept, b.poster.count())
	}
	if n := b.state(t); n.State != ledger.NoticeDelivered || n.Attempts != 2 {
		t.Fatalf("ledger %+v", n)
	}
	if b.metrics.Get(notice.MetricRetried) != 1 || b.metrics.Get(notice.MetricDelivered) != 1 {
		t.Fatalf("metrics %v", b.metrics)
	}
}

// A permanent refusal abandons the notice at once: logged and counted,
// acknowledged, never a dead letter.
func TestPermanentRefusalAbandons(t *testing.T) {
	t.Parallel()
	b := setup(t, httpErr(410, nil))
	if kept, _ := b.deliver(t, "m1", 1); kept {
		t.Fatal("an abandoned notice was kept")
	}
	if n := b.state(t); n.State != ledger.NoticeAbandoned || n.Attempts != 1 || n.LastClass != work.NotFound {
		t.Fatalf("ledger %+v", n)
	}
	if b.metrics.Of(notice.MetricAbandoned, work.NotFound) != 1 {
		t.Fatalf("metrics %v", b.metrics)
	}
	if len(b.q.Sent(runnertest.DLQURL)) != 0 {
		t.Fatal("a notice produced a dead letter")
	}
}

// Retries are bounded by the ledger, whatever the receive count: five
// attempts, then abandoned; a sixth receive posts nothing.
func TestAttemptsAreBounded(t *testing.T) {
	t.Parallel()
	fail := httpErr(500, nil)
	b := setup(t, fail, fail, fail, fail, fail, fail)
	for i := 1; i <= notice.DefaultMaxAttempts; i++ {
		kept, vis := b.deliver(t, "m1", i)
		if last := i == notice.DefaultMaxAttempts; kept == last {
			t.Fatalf("attempt %d: kept %v", i, kept)
		}
		b.clock.Advance(time.Duration(vis) * time.Second)
	}
	if n := b.state(t); n.State != ledger.NoticeAbandoned || n.Attempts != notice.DefaultMaxAttempts {
		t.Fatalf("ledger %+v", n)
	}
	if kept, _ := b.deliver(t, "m1", 99); kept || b.poster.count() != notice.DefaultMaxAttempts {
		t.Fatalf("after abandonment: kept %v, %d posts", kept, b.poster.count())
	}
}

// The waits follow the schedule; a receiver's Retry-After is honoured up to
// the cap.
func TestDelays(t *testing.T) {
	t.Parallel()
	retryAfter := http.Header{"Retry-After": []string{"120"}}
	b := setup(t, httpErr(500, nil), httpErr(500, nil), httpErr(429, retryAfter), httpErr(429, http.Header{"Retry-After": []string{"86400"}}))
	var got []int32
	for i := 1; i <= 4; i++ {
		_, vis := b.deliver(t, "m1", i)
		got = append(got, vis)
		b.clock.Advance(time.Duration(vis) * time.Second)
	}
	want := []int32{30, 90, 270, 900} // Retry-After 120 s is shorter than the backoff; 1 day is capped at 15 min
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("visibilities %v, want %v", got, want)
		}
	}
}

// Bookkeeping that fails keeps the record; a notice whose item is gone, or
// that is no notice, is dropped.
func TestStoreFailuresAndBadRecords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.ledger.Fail = errors.New("ThrottlingException")
	if kept, vis := b.deliver(t, "m1", 1); !kept || vis != 5 || b.poster.count() != 0 {
		t.Fatalf("ledger down: kept %v, visibility %d, posts %d", kept, vis, b.poster.count())
	}
	b.ledger.Fail = nil
	b.body = `{"event":"item.failed","notice_id":"gone:item.failed:0","item_id":"gone"}`
	if kept, _ := b.deliver(t, "m2", 1); kept || b.metrics.Of(notice.MetricAbandoned, work.NotFound) != 1 {
		t.Fatalf("item gone: kept %v, metrics %v", kept, b.metrics)
	}
	b.body = `not a notice`
	if kept, _ := b.deliver(t, "m3", 1); kept || b.metrics.Of(notice.MetricAbandoned, work.SchemaInvalid) != 1 {
		t.Fatalf("malformed: kept %v, metrics %v", kept, b.metrics)
	}
	if b.poster.count() != 0 {
		t.Fatalf("%d posts", b.poster.count())
	}
}
