// Package outage_test runs an LLM provider outage on the local stack — the
// real fetch, llm, notify and scheduler bootstraps behind the local Lambda
// Runtime API, moto, the fakes — in compressed time: the queues' redrive
// backstop at 5 receives, breakers open for 1 s, the scheduler every
// second, and an outage of 60 s while items keep arriving. Under the old
// wait path every waiting message was received again every few seconds and
// the backstop moved it to the DLQ within the outage; here nothing is
// dead-lettered, every item is done, and no message is received as often
// as the backstop.
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

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/infra/local/devstack"
	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

const (
	backstop = 5
	outage   = 60 * time.Second
	items    = 16
)

// receives records the highest ApproximateReceiveCount the runner logged,
// and what the functions said about parking and the breaker.
type receives struct {
	mu      sync.Mutex
	max     int
	parked  int
	opened  int
	probes  int
	release int
}

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
	defer r.mu.Unlock()
	r.max = max(r.max, v.ReceiveCount)
	switch {
	case v.Msg == "parked for the scheduler":
		r.parked++
	case v.Msg == "breaker opened":
		r.opened++
	case strings.HasPrefix(v.Msg, "gate's probe due"):
		r.probes++
	case strings.HasPrefix(v.Msg, "gate open: released waiters"):
		r.release += v.Released
	}
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
	var seen receives
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
			if _, err := st.Items.Create(ctx, state.NewItem{ID: id, Kind: state.KindStory, CorrelationID: "corr-" + id,
				SourceURL: st.ArticleServer.URL + "/articles/" + id, WebhookURL: st.HookServer.URL + "/hooks/" + id, Now: time.Now()}); err != nil {
				t.Fatal(err)
			}
			if err := st.Send(ctx, pipeline.Envelope{ItemID: id, Stage: pipeline.Fetch, CorrelationID: "corr-" + id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Items arrive before, throughout and after the outage.
	st.LLM.SetOutage(true)
	start := time.Now()
	for wave := range 4 {
		seed(wave*items/4, (wave+1)*items/4)
		time.Sleep(outage / 4)
	}
	st.LLM.SetOutage(false)
	t.Logf("the provider was down for %v", time.Since(start).Round(time.Second))

	ids := make([]string, items)
	for n := range items {
		ids[n] = "outage-" + pad(n)
	}
	states := map[state.State]int{}
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		clear(states)
		for _, id := range ids {
			it, err := st.Items.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			states[it.State]++
		}
		if states[state.Done]+states[state.Deadletter] == items {
			break
		}
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	t.Logf("after %v: %v; %d parks, %d breaker opens, %d probes released, %d waiters released; highest receive count %d",
		time.Since(start).Round(time.Second), states, seen.parked, seen.opened, seen.probes, seen.release, seen.max)
	if states[state.Done] != items {
		t.Fatalf("items by state %v, want all %d done", states, items)
	}
	for _, stage := range pipeline.Stages() {
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
