package soak

import (
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/work"
)

// Overlap is an upstream call for an item that began while another call for
// the same item was still in flight.
type Overlap struct {
	// ItemID is the item.
	ItemID string
	// Running is the stage whose call was in flight; Started the stage
	// whose call began. They differ for a cross-stage overlap.
	Running, Started work.Stage
	// At is when the second call began, since the tracker started.
	At time.Duration
}

// Tracker follows the upstream calls in flight per item and stage, across
// the article, LLM and webhook fakes, and records every call that begins
// while another call for the same item is running: at another stage (an
// item processed by two stages at once) or at the same stage (two
// deliveries working one item, which the lease should prevent). It is safe
// for concurrent use.
type Tracker struct {
	start time.Time
	clock clock.Clock

	mu       sync.Mutex
	inflight map[string]map[work.Stage]int
	busy     map[work.Stage]int
	calls    map[work.Stage]int
	cross    []Overlap
	same     []Overlap
	onBegin  func(id string, stage work.Stage, port int)
}

// SetOnBegin makes the Tracker call f when a call begins, from the
// handler's goroutine, before the fake answers (the soak kills the calling
// process there). nil turns it off.
func (t *Tracker) SetOnBegin(f func(id string, stage work.Stage, port int)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onBegin = f
}

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker {
	return &Tracker{start: time.Now(), clock: clock.System{}, inflight: map[string]map[work.Stage]int{},
		busy: map[work.Stage]int{}, calls: map[work.Stage]int{}}
}

// Wrap returns h with every request that names an item (key returns its id;
// "" for control calls) tracked as a call of stage.
func (t *Tracker) Wrap(stage work.Stage, key func(*http.Request) string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := key(r)
		if id == "" {
			h.ServeHTTP(w, r)
			return
		}
		port := clientPort(r.RemoteAddr)
		t.begin(id, stage)
		defer t.end(id, stage)
		t.mu.Lock()
		f := t.onBegin
		t.mu.Unlock()
		if f != nil {
			f(id, stage, port)
		}
		h.ServeHTTP(w, r)
	})
}

func (t *Tracker) begin(id string, stage work.Stage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.clock.Now().Sub(t.start)
	running := t.inflight[id]
	for _, s := range work.Stages() {
		if running[s] == 0 {
			continue
		}
		o := Overlap{ItemID: id, Running: s, Started: stage, At: at}
		if s == stage {
			t.same = append(t.same, o)
		} else {
			t.cross = append(t.cross, o)
		}
	}
	if running == nil {
		running = map[work.Stage]int{}
		t.inflight[id] = running
	}
	running[stage]++
	t.busy[stage]++
	t.calls[stage]++
}

func (t *Tracker) end(id string, stage work.Stage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	running := t.inflight[id]
	running[stage]--
	t.busy[stage]--
	if running[stage] <= 0 {
		delete(running, stage)
	}
	if len(running) == 0 {
		delete(t.inflight, id)
	}
}

func clientPort(addr string) int {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(port)
	return n
}

// Idle reports whether no call is in flight.
func (t *Tracker) Idle() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.inflight) == 0
}

// Calls returns how many calls each stage's upstream got.
func (t *Tracker) Calls() map[work.Stage]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[work.Stage]int, len(t.calls))
	for k, v := range t.calls {
		out[k] = v
	}
	return out
}

// Overlaps returns the cross-stage and the same-stage overlaps so far, in
// the order they happened.
func (t *Tracker) Overlaps() (cross, same []Overlap) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.cross), slices.Clone(t.same)
}

// Keys of the fakes' requests: the article id of GET /articles/{id}, the
// X-Triage-Item-Id header of a chat completion, and the item of a webhook's
// Idempotency-Key "<item>:notify". Control calls (/_fake/…) have none.

func articleKey(r *http.Request) string {
	id, ok := strings.CutPrefix(r.URL.Path, "/articles/")
	if !ok || strings.Contains(id, "/") {
		return ""
	}
	return id
}

func llmKey(r *http.Request) string {
	if strings.HasPrefix(r.URL.Path, "/_fake/") {
		return ""
	}
	return r.Header.Get(fakes.ItemIDHeader)
}

func webhookKey(r *http.Request) string {
	if strings.HasPrefix(r.URL.Path, "/_fake/") {
		return ""
	}
	return strings.TrimSuffix(r.Header.Get(fakes.IdempotencyHeader), ":notify")
}
