package outage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	dbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

const (
	backstop = 5
	items    = 16
	waves    = 4
)

// receives records the highest ApproximateReceiveCount the runner logged,
// and what the functions said about parking and the breaker; changed is
// signalled after every line that counted and at the end of every batch.
type receives struct {
	mu       sync.Mutex
	max      int
	parked   int
	opened   int
	reopened int
	probes   int
	release  int
	changed  chan struct{}
}

func newReceives() *receives { return &receives{changed: make(chan struct{}, 1)} }

func (r *receives) observe(fn, line string) {
	var v struct {
		Msg          string `json:"msg"`
		ReceiveCount int    `json:"receive_count"`
		Released     int    `json:"released"`
	}
	if json.Unmarshal([]byte(line), &v) != nil {
		return
	}
	r.mu.Lock()
	r.max = max(r.max, v.ReceiveCount)
	switch {
	case v.Msg == "parked for the scheduler":
		r.parked++
	case v.Msg == "breaker opened":
		r.opened++
	case strings.HasPrefix(v.Msg, "breaker probe failed; open again"):
		r.reopened++
	case strings.HasPrefix(v.Msg, "gate's probe due"):
		r.probes++
	case strings.HasPrefix(v.Msg, "gate open: released waiters"):
		r.release += v.Released
	case v.Msg != "batch done": // the end of a batch, when its item writes are durable
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// reopens returns how often the breaker's probe failed and opened it again.
func (r *receives) reopens() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reopened
}

// await reports whether ok held before the deadline of ctx, checking it
// after every line that signals changed, and every second when none came.
func (r *receives) await(ctx context.Context, ok func() bool) bool {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for !ok() {
		select {
		case <-r.changed:
		case <-tick.C:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

func TestOutageCrossingTheBackstopLosesNothing(t *testing.T) {
	for _, bin := range []string{"moto_server", "aws"} {
		if _, err := exec.LookPath(bin); err != nil {
			localtest.Require(t, bin, `pip install "moto[server]" awscli`)
		}
	}
	root, err := devstack.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	seen := newReceives()
	st, err := devstack.Start(ctx, devstack.Options{
		Root: root, Pollers: true, StackName: "outage", BuildDir: t.TempDir(),
		Params:    map[string]string{"BackstopMaxReceiveCount": "5"},
		Env:       map[string]map[string]string{"*": {"BREAKER_OPEN_FOR": "1s"}},
		Scheduler: time.Second,
		LLM:       fakes.LLMOptions{RetryAfter: time.Second},
		OnLog:     seen.observe,
		Logs:      logFile(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })

	seed := func(from, to int) {
		t.Helper()
		for n := from; n < to; n++ {
			id := "outage-" + pad(n)
			if _, err := st.Items.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id,
				SourceURL: st.ArticleServer.URL + "/articles/" + id, WebhookURL: st.HookServer.URL + "/hooks/" + id, Now: time.Now()}); err != nil {
				t.Fatal(err)
			}
			if err := st.Send(ctx, work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "corr-" + id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Items arrive before and throughout the outage, a wave per failed
	// probe, and the provider stays down until the breaker has opened
	// again backstop times after the last wave: every item waits through
	// at least backstop of the breaker's windows, each of which, were the
	// waiters received again at its end, would spend one of the backstop's
	// receives.
	st.LLM.SetOutage(true)
	start := time.Now()
	for wave := range waves {
		seed(wave*items/waves, (wave+1)*items/waves)
		if wave == waves-1 {
			break
		}
		from := seen.reopens()
		if !seen.await(ctx, func() bool { return seen.reopens() > from }) {
			t.Fatalf("wave %d: the breaker failed no probe in %v of outage", wave, time.Since(start).Round(time.Second))
		}
	}
	from := seen.reopens()
	if !seen.await(ctx, func() bool { return seen.reopens() >= from+backstop }) {
		t.Fatalf("the breaker failed %d probes after the last wave, want %d", seen.reopens()-from, backstop)
	}
	st.LLM.SetOutage(false)
	t.Logf("the provider was down for %v, %d failed probes", time.Since(start).Round(time.Second), seen.reopens())

	ids := make([]string, items)
	for n := range items {
		ids[n] = "outage-" + pad(n)
	}
	states := map[work.State]int{}
	settled := func() bool {
		clear(states)
		for _, id := range ids {
			it, err := st.Items.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			states[it.State]++
		}
		return states[work.Done]+states[work.Deadletter] == items
	}
	drain, cancelDrain := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelDrain()
	seen.await(drain, settled)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	t.Logf("after %v: %v; %d parks, %d breaker opens, %d reopens, %d probes released, %d waiters released; highest receive count %d",
		time.Since(start).Round(time.Second), states, seen.parked, seen.opened, seen.reopened, seen.probes, seen.release, seen.max)
	if states[work.Done] != items {
		t.Fatalf("items by state %v, want all %d done", states, items)
	}
	for _, stage := range work.Stages() {
		out, err := st.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(st.DLQURL(stage)), MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) != 0 {
			t.Fatalf("%d dead letters on the %s DLQ: %s", len(out.Messages), stage, aws.ToString(out.Messages[0].Body))
		}
	}
	if seen.max >= backstop {
		t.Fatalf("a message was received %d times: the backstop (%d) would have moved it", seen.max, backstop)
	}
	// The outage did make items wait behind the breaker's gate, parked, and
	// the scheduler released them.
	if seen.opened == 0 || seen.parked == 0 || seen.release+seen.probes == 0 {
		t.Fatalf("the outage was not waited out behind the breaker: %d opens, %d parks, %d released, %d probes",
			seen.opened, seen.parked, seen.release, seen.probes)
	}
	left := 0
	if err := st.Scan(ctx, st.Items.ParkedTable, "item_id", nil, func(map[string]dbtypes.AttributeValue) { left++ }); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d waits still parked", left)
	}
}

func pad(n int) string { return fmt.Sprintf("%03d", n) }

func logFile(t *testing.T) *os.File {
	p := os.Getenv("OUTAGE_LOG")
	if p == "" {
		return nil
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
