package crosscheck_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/dev/simulate"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestSimulatorMatchesTheLocalStack(t *testing.T) {
	localtest.Require(t, "moto_server", moto.InstallHint)
	root, err := devstack.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sc, err := simulate.Load(filepath.Join(root, "scenarios", "cross-check.json"))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := simulate.LookupPolicy("standard")
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulate.Run(ctx, sc, pol, simulate.Options{Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]simulate.Terminal{}
	for _, term := range res.Terminal {
		want[term.ItemID] = term
	}

	// Two models, so that model-specific failures landing back to back
	// cannot leave the chain without a model (the outcome does not depend on
	// which model answers); breakers reopen after seconds, not minutes, and
	// the scheduler ends the waits behind them every second.
	// A stage's item writes are durable when its batch ends: each "batch
	// done" line is when an item may have become terminal.
	batches := make(chan struct{}, 1)
	st, err := devstack.Start(ctx, devstack.Options{
		Root: root, Pollers: true, StackName: "crosscheck",
		Params:   map[string]string{"LLMModels": "gpt-4o-mini,gpt-4o"},
		Env:      map[string]map[string]string{"*": {"BREAKER_OPEN_FOR": "2s"}},
		BuildDir: t.TempDir(), Scheduler: time.Second,
		OnLog: func(_, line string) {
			if strings.Contains(line, `"msg":"batch done"`) {
				select {
				case batches <- struct{}{}:
				default:
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	plans := sc.FakePlans()
	for _, s := range []struct {
		stage work.Stage
		plan  interface {
			SetScripts(map[string][]fakes.Fault, bool) error
		}
	}{{work.Fetch, st.Articles}, {work.LLM, st.LLM}, {work.Notify, st.Webhook}} {
		scripts := map[string][]fakes.Fault{}
		for key, names := range plans[s.stage].Script.Scripts {
			for _, n := range names {
				f, err := fakes.ParseFault(n)
				if err != nil {
					t.Fatal(err)
				}
				scripts[key] = append(scripts[key], f)
			}
		}
		if err := s.plan.SetScripts(scripts, true); err != nil {
			t.Fatalf("%s scripts: %v", s.stage, err)
		}
	}

	// Items enter the fetch queue as the simulator's arrivals do: a burst
	// at once, uniform arrivals spaced at the scenario's rate. Sent all at
	// once, a uniform scenario's failures clustered, an upstream's breaker
	// could open where the simulator's spread arrivals never opened it, and
	// an item whose rate limit met a record the gate released spent no
	// attempt (docs/design.md "The decision table"): done on the stack,
	// dead-lettered in the simulator.
	var gap time.Duration
	switch sc.Arrival.Pattern {
	case simulate.ArrivalBurst:
	case simulate.ArrivalUniform:
		gap = time.Duration(float64(time.Second) / sc.Arrival.RatePerSecond)
	default:
		t.Fatalf("arrival pattern %q: the cross-check sends burst or uniform arrivals only", sc.Arrival.Pattern)
	}
	start := time.Now()
	var ids []string
	for n := 1; n <= sc.Items; n++ {
		if wait := time.Until(start.Add(time.Duration(n-1) * gap)); wait > 0 {
			select {
			case <-ctx.Done():
				t.Fatalf("sending item %d of %d: %v", n, sc.Items, ctx.Err())
			case <-time.After(wait):
			}
		}
		id := sc.ItemID(n)
		ids = append(ids, id)
		if _, err := st.Items.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id,
			SourceURL: st.ArticleServer.URL + "/articles/" + id, WebhookURL: st.HookServer.URL + "/hooks/" + id, Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if err := st.Send(ctx, work.Envelope{ItemID: id, Stage: work.Fetch, CorrelationID: "corr-" + id}); err != nil {
			t.Fatal(err)
		}
	}
	// The items are read after every batch that ended since the last
	// read, or after a second without one, for at most 3 minutes.
	got := map[string]store.Item{}
	drain, cancelDrain := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelDrain()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		terminal := 0
		for _, id := range ids {
			it, err := st.Items.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got[id] = it
			if it.State == work.Done || it.State == work.Deadletter {
				terminal++
			}
		}
		if terminal == len(ids) {
			break
		}
		select {
		case <-batches:
		case <-tick.C:
		case <-drain.Done():
		}
		if drain.Err() != nil {
			break
		}
	}
	for _, id := range ids {
		w, it := want[id], got[id]
		local := describe(it)
		sim := w.State
		if w.State == simulate.StateDeadLetter {
			sim = fmt.Sprintf("deadletter %s %s", w.Stage, w.Class)
		}
		if local != sim {
			t.Errorf("%s: local stack %q, simulator %q", id, local, sim)
		}
	}
}

func describe(it store.Item) string {
	switch it.State {
	case work.Done:
		return simulate.StateDone
	case work.Deadletter:
		if it.DeadLetter != nil {
			return fmt.Sprintf("deadletter %s %s", it.DeadLetter.Stage, it.DeadLetter.Class)
		}
	}
	return "unfinished (" + string(it.State) + " at " + string(it.Stage) + ")"
}
