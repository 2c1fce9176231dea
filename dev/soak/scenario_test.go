package soak

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/notice"
)

func TestDefaultMixesAreValid(t *testing.T) {
	t.Parallel()
	m := DefaultMixes()
	for name, tt := range map[string]struct {
		rates map[fakes.Fault]float64
		plan  *fakes.Plan
	}{
		"articles": {m.Articles, fakes.NewPlan(fakes.ArticleFaults()...)},
		"llm":      {m.LLM, fakes.NewPlan(fakes.LLMFaults()...)},
		"webhook":  {m.Webhook, fakes.NewPlan(fakes.WebhookFaults()...)},
	} {
		if err := tt.plan.SetMix(fakes.Mix{Seed: 1, Rates: tt.rates}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for f := range tt.rates {
			if f.Base() == fakes.FaultQuota {
				t.Errorf("%s: the provider quota waits an hour; it is not in the default mix", name)
			}
		}
	}
}

func TestNewPlan(t *testing.T) {
	t.Parallel()
	reserved := func(id string) bool { return id == "item-0001" }
	p := newPlan(rand.New(rand.NewPCG(9, 1)), 200, 2, 3, 0.1, 10*time.Second, reserved)
	again := newPlan(rand.New(rand.NewPCG(9, 1)), 200, 2, 3, 0.1, 10*time.Second, reserved)
	if len(p.ids) != 200 || len(p.schema) != 2 || len(p.action) != 3 {
		t.Fatalf("%d ids, %d schema, %d action", len(p.ids), len(p.schema), len(p.action))
	}
	if fmt.Sprint(p.schema, p.action, p.dupAt) != fmt.Sprint(again.schema, again.action, again.dupAt) {
		t.Fatal("one seed gave two plans")
	}
	for id := range p.action {
		if p.kind[id] != store.KindAction {
			t.Errorf("%s fails with ACTION_FAILED but is a %s", id, p.kind[id])
		}
	}
	if p.schema["item-0001"] || p.action["item-0001"] {
		t.Error("a reserved item got a scripted fault")
	}
	if n := len(p.dupAt); n < 8 || n > 35 {
		t.Errorf("%d duplicates for a 10%% rate of 200 items", n)
	}
	for id, d := range p.dupAt {
		if d < 0 || d >= 10*time.Second {
			t.Errorf("%s's duplicate at %v", id, d)
		}
	}
}

func TestExtras(t *testing.T) {
	t.Parallel()
	faults := []ExtraFault{{Fake: devstack.FakeWebhook, Name: "conflict", Rate: 0.25, status: http.StatusConflict, body: `{"message":"conflict"}`}}
	x := newExtras(4, faults, func(id string) bool { return id == "skip" })
	h := x.wrap(devstack.FakeWebhook, webhookKey, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	}))
	call := func(id string) int {
		req := httptest.NewRequest("POST", "/hooks/x", nil)
		req.Header.Set("Idempotency-Key", id+":notify")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	hit := 0
	for i := range 2000 {
		id := fmt.Sprintf("item-%d", i)
		if call(id) == http.StatusConflict {
			hit++
			if call(id) != http.StatusOK {
				t.Fatalf("%s: a first-call fault answered the second call too", id)
			}
		}
	}
	if hit < 400 || hit > 600 {
		t.Errorf("%d of 2000 keys drew a 25%% fault", hit)
	}
	for range 20 {
		if call("skip") != http.StatusOK {
			t.Fatal("a scripted item drew an extra fault")
		}
	}
	if x.Counts()["webhook conflict"] != hit {
		t.Errorf("counts %v, want %d", x.Counts(), hit)
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      Options
		kills   int
		longest time.Duration
	}{
		"default":            {in: Options{}, kills: 8, longest: DefaultVisibility + DefaultFunctionTimeout + 4*time.Second},
		"short":              {in: Options{Items: 36, FunctionTimeout: 8 * time.Second, Visibility: 12 * time.Second}, kills: 2, longest: 24 * time.Second},
		"no kills":           {in: Options{Kills: -1}, kills: 0, longest: 34 * time.Second},
		"with ACTION_FAILED": {in: Options{ActionFailures: 2}, kills: 8, longest: ActionFailedWait},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := tt.in.withDefaults()
			if o.Kills != tt.kills || o.LongestWait() != tt.longest {
				t.Fatalf("kills %d, longest wait %v", o.Kills, o.LongestWait())
			}
			if o.Visibility < o.FunctionTimeout+4*time.Second {
				t.Fatalf("visibility %v shorter than the lease and the batching window", o.Visibility)
			}
		})
	}
}

// Every case of the owners' choices occurs, planted items ask for both
// notices, and every item.failed an owner asked for is scripted with
// transient refusals only.
func TestNoticeChoices(t *testing.T) {
	t.Parallel()
	p := newPlan(rand.New(rand.NewPCG(7, 0x50a4)), 200, 1, 0, 0, time.Second, func(id string) bool { return id == "item-0001" })
	p.assignNotices(7, func(id string) bool { return id == "item-0001" })
	counts := map[string]int{}
	for _, id := range p.ids {
		n := p.notices[id].Resolve(p.kind[id])
		counts[fmt.Sprintf("%v failed=%v", p.kind[id] == store.KindAction, n.Failed)]++
		if n.RetryScheduled {
			counts["retries"]++
		}
	}
	for _, k := range []string{"true failed=true", "true failed=false", "false failed=true", "false failed=false", "retries"} {
		if counts[k] == 0 {
			t.Errorf("no item %s: %v", k, counts)
		}
	}
	if n := p.notices["item-0001"].Resolve(p.kind["item-0001"]); !n.Failed || !n.RetryScheduled {
		t.Errorf("the planted item's choices %+v", n)
	}
	scripts := p.noticeScripts(7)
	for _, id := range p.ids {
		script, ok := scripts[notice.FailedKey(id, 0)]
		if ok != p.wantsFailed(id) {
			t.Errorf("%s: scripted %v, asked %v", id, ok, p.wantsFailed(id))
		}
		for _, f := range script {
			if f.Repeats() || f == fakes.FaultChannelNotFound || f == fakes.FaultArchived || f == fakes.FaultUnauthorized || f == fakes.FaultInvalidPayload {
				t.Errorf("%s: the script %v can refuse the notice for good", id, script)
			}
		}
		if len(script) >= 4 {
			t.Errorf("%s: %d scripted refusals would reach the notice's attempt bound", id, len(script))
		}
	}
}

// An option whose zero means a default reads a negative value as none and
// keeps a positive one, for counts, rates and durations alike.
func TestZeroMeans(t *testing.T) {
	t.Parallel()
	if got := zeroMeans(0.0, DefaultDuplicateRate); got != DefaultDuplicateRate {
		t.Errorf("rate 0 = %v, want the default %v", got, DefaultDuplicateRate)
	}
	if got := zeroMeans(-time.Second, DefaultOutage); got != 0 {
		t.Errorf("outage -1s = %v, want none", got)
	}
	if got := zeroMeans(3, 1); got != 3 {
		t.Errorf("3 = %d, want 3", got)
	}
}
