package soak

import (
	"maps"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/local/devstack"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store"
)

// Mixes are the fakes' seeded fault mixes (see fakes.Mix): sticky faults
// are drawn once per key and fail every call; transient ones are drawn for
// each of a key's first TransientCalls calls. Long waits — the provider's
// insufficient_quota (a 1 h wait in the standard profile) and the daily
// budget (a wait until 00:00 UTC) — are left out; everything else is in.
type Mixes struct {
	Articles, LLM, Webhook map[fakes.Fault]float64
	// TransientCalls is fakes.Mix.TransientCalls; 0 means 2.
	TransientCalls int
}

// DefaultMixes is the soak's upstream fault mix: about a quarter of the
// calls to each upstream fail transiently, and 6–14% of the items meet a
// permanent fault at one of the three upstreams.
func DefaultMixes() Mixes {
	return Mixes{
		Articles: map[fakes.Fault]float64{
			fakes.FaultRateLimit: 0.04, fakes.FaultServerError: 0.04, fakes.FaultUnavailable: 0.03,
			fakes.FaultReset: 0.03, fakes.FaultHang: 0.01, fakes.FaultSlow: 0.03,
			fakes.FaultNotFound: 0.03, fakes.FaultGone: 0.015, fakes.FaultHuge: 0.01,
		},
		LLM: map[fakes.Fault]float64{
			fakes.FaultRateLimit: 0.05, fakes.FaultServerError: 0.03, fakes.FaultUnavailable: 0.03,
			fakes.FaultBadGateway: 0.02, fakes.FaultHang: 0.01, fakes.FaultReset: 0.02,
			fakes.FaultInvalidJSON: 0.04, fakes.FaultSchemaMismatch: 0.02, fakes.FaultEmpty: 0.02,
			fakes.Always(fakes.FaultInvalidJSON): 0.01, fakes.FaultContentPolicy: 0.025, fakes.FaultContentFilter: 0.015,
			fakes.FaultContextLength: 0.025, fakes.FaultAuth: 0.01, fakes.FaultModelNotFound: 0.01,
		},
		Webhook: map[fakes.Fault]float64{
			fakes.FaultServerError: 0.04, fakes.FaultUnavailable: 0.03, fakes.FaultRateLimitSlack: 0.03,
			fakes.FaultRateLimitDiscord: 0.03, fakes.FaultHang: 0.01, fakes.FaultReset: 0.02,
			fakes.FaultChannelNotFound: 0.02, fakes.FaultArchived: 0.01, fakes.FaultInvalidPayload: 0.01,
			fakes.FaultUnauthorized: 0.01,
		},
	}
}

// ExtraFault is an upstream answer the fakes do not have, which the soak's
// wrapper gives a seeded share of the keys: so that every failure class an
// upstream can cause occurs.
type ExtraFault struct {
	// Fake is devstack.FakeArticles, FakeLLM or FakeWebhook.
	Fake string
	// Name names it in the report; Class is the class triage should give it.
	Name, Class string
	// Rate is the share of keys that get it; Sticky ones fail every call
	// of the key, the others only its first call.
	Rate   float64
	Sticky bool
	status int
	body   string
}

// DefaultExtraFaults: a 300 from the article host (no class matches:
// UNKNOWN), a 409 from the webhook receiver (CONFLICT) and a 301 from the
// model API (a wrong base URL: INTERNAL_BUG).
func DefaultExtraFaults() []ExtraFault {
	return []ExtraFault{
		{Fake: devstack.FakeArticles, Name: "multiple_choices", Class: "UNKNOWN", Rate: 0.02,
			status: http.StatusMultipleChoices, body: "multiple representations of the article exist\n"},
		{Fake: devstack.FakeWebhook, Name: "conflict", Class: "CONFLICT", Rate: 0.03,
			status: http.StatusConflict, body: `{"message": "a delivery with this key is being processed", "code": 409}`},
		{Fake: devstack.FakeLLM, Name: "moved_permanently", Class: "INTERNAL_BUG", Rate: 0.005, Sticky: true,
			status: http.StatusMovedPermanently, body: "<html><body>Moved Permanently</body></html>\n"},
	}
}

// extras answers the ExtraFaults in front of the fakes.
type extras struct {
	seed   uint64
	faults []ExtraFault
	skip   func(id string) bool // items with a fixed script

	mu     sync.Mutex
	calls  map[string]int
	counts map[string]int
}

func newExtras(seed uint64, faults []ExtraFault, skip func(string) bool) *extras {
	return &extras{seed: seed, faults: faults, skip: skip, calls: map[string]int{}, counts: map[string]int{}}
}

// wrap puts the extra faults of fake in front of h.
func (x *extras) wrap(fake string, key func(*http.Request) string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := key(r)
		if id == "" || x.skip(id) {
			h.ServeHTTP(w, r)
			return
		}
		x.mu.Lock()
		x.calls[fake+" "+id]++
		call := x.calls[fake+" "+id]
		x.mu.Unlock()
		for i, f := range x.faults {
			if f.Fake != fake || (!f.Sticky && call > 1) {
				continue
			}
			if draw(x.seed, fake+" "+f.Name+" "+strconv.Itoa(i), id) >= f.Rate {
				continue
			}
			x.mu.Lock()
			x.counts[fake+" "+f.Name]++
			x.mu.Unlock()
			ct := "text/plain; charset=utf-8"
			if len(f.body) > 0 && f.body[0] == '{' {
				ct = "application/json"
			}
			writeBody(w, f.status, ct, f.body)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (x *extras) Counts() map[string]int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return maps.Clone(x.counts)
}

// draw is a uniform number in [0, 1) fixed by (seed, salt, key).
func draw(seed uint64, salt, key string) float64 {
	return rand.New(rand.NewPCG(seed, fakes.HashString(salt+"\x00"+key))).Float64()
}

// plan is a run's items: ids, kinds, URLs and the scripted ones.
type plan struct {
	ids      []string
	kind     map[string]store.Kind
	schema   map[string]bool // an article fetch must refuse (empty): SCHEMA_INVALID
	action   map[string]bool // one ACTION_FAILED (a 2-minute wait) then ok
	dupAt    map[string]time.Duration
	dupStale map[string]bool
	// notices are the owners' explicit notice choices (assignNotices);
	// absent is the kind's default.
	notices map[string]*intake.NoticeSpec
}

// newPlan lays out n items: stories, every 7th a document and every 10th an
// action; schemaItems of them get an empty article (SCHEMA_INVALID), actionFailures
// of the action items one ACTION_FAILED; a dupRate share gets a duplicate
// delivery dupWithin after its wave is seeded. reserved ids (the planted
// secrets' items) get none of these.
func newPlan(rng *rand.Rand, n, schemaItems, actionFailures int, dupRate float64, dupWithin time.Duration,
	reserved func(string) bool) *plan {
	p := &plan{kind: map[string]store.Kind{}, schema: map[string]bool{}, action: map[string]bool{},
		dupAt: map[string]time.Duration{}, dupStale: map[string]bool{}}
	for i := range n {
		id := "item-" + pad(i+1)
		p.ids = append(p.ids, id)
		switch {
		case i%10 == 9:
			p.kind[id] = store.KindAction
		case i%7 == 6:
			p.kind[id] = store.KindDocument
		default:
			p.kind[id] = store.KindStory
		}
	}
	free := func(id string) bool { return !reserved(id) && !p.schema[id] && !p.action[id] }
	order := rng.Perm(n)
	for _, i := range order {
		id := p.ids[i]
		switch {
		case schemaItems > 0 && free(id) && p.kind[id] != store.KindAction:
			p.schema[id] = true
			schemaItems--
		case actionFailures > 0 && free(id) && p.kind[id] == store.KindAction:
			p.action[id] = true
			actionFailures--
		}
	}
	for _, id := range p.ids {
		if rng.Float64() < dupRate && !p.schema[id] {
			p.dupAt[id] = time.Duration(rng.Int64N(int64(dupWithin)))
			p.dupStale[id] = rng.IntN(3) == 0
		}
	}
	return p
}

func pad(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}
