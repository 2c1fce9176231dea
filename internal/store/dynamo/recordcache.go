package dynamo

import (
	"sync"
	"time"
)

// MaxKeys bounds a Cache, a Streaks and an Outcomes: past it, a Cache
// sweeps the entries older than the TTL on its next Put, and a Streaks (an
// Outcomes) forgets every streak (every window)
// (keys that failed once and were never called again), which at worst
// delays a later streak's count by one failure. Fetch and notify see one
// key per host.
const MaxKeys = 4096

// Cache holds the last record seen per key. The zero value is empty and
// ready; it is safe for concurrent use.
type Cache[V any] struct {
	mu sync.Mutex
	m  map[string]entry[V]
}

type entry[V any] struct {
	v  V
	at time.Time
}

// Get returns key's record. With freshOnly it returns it only while it is
// younger than ttl (never with a negative ttl, nor one seen after now).
func (c *Cache[V]) Get(key string, now time.Time, ttl time.Duration, freshOnly bool) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || freshOnly && (ttl < 0 || now.Sub(e.at) >= ttl || now.Before(e.at)) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put remembers v as key's record seen at now; a negative ttl disables the
// cache.
func (c *Cache[V]) Put(key string, v V, now time.Time, ttl time.Duration) {
	if ttl < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]entry[V]{}
	}
	if len(c.m) >= MaxKeys {
		for k, e := range c.m {
			if now.Sub(e.at) >= ttl {
				delete(c.m, k)
			}
		}
	}
	c.m[key] = entry[V]{v: v, at: now}
}

// Update changes key's record in place, if there is one; fn may also move
// the time it was seen.
func (c *Cache[V]) Update(key string, fn func(v *V, at *time.Time)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		fn(&e.v, &e.at)
		c.m[key] = e
	}
}

// Forget drops key's record.
func (c *Cache[V]) Forget(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

// Streaks counts, per key, this instance's failures since its last success
// there. The zero value is ready; it is safe for concurrent use.
type Streaks struct {
	mu sync.Mutex
	m  map[string]int
}

// Fail adds a failure to key's streak and returns its length.
func (s *Streaks) Fail(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) > MaxKeys {
		s.m = map[string]int{}
	}
	s.m[key]++
	return s.m[key]
}

// Reset ends key's streak: a success.
func (s *Streaks) Reset(key string) {
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}

// WindowSize is how many of its latest calls per key an Outcomes
// remembers.
const WindowSize = 10

// Outcomes keeps, per key, this instance's latest WindowSize calls — a
// success, or a failure with the item it failed on — so that a failure
// joins a shared count only when the instance's own calls say the key is
// failing, not one item or a chance cluster of sporadic failures. The zero
// value is ready; it is safe for concurrent use.
type Outcomes struct {
	mu sync.Mutex
	m  map[string]*window
}

type window struct {
	calls [WindowSize]call
	n     int // calls held, at most WindowSize
	next  int // where the next call goes
}

type call struct {
	failed, written bool
	item            string
}

// Fail records a failure of key on item. An item that already failed in
// the window is a repeat: nothing is recorded and repeat is true (an empty
// item is never one). Otherwise the failure is held, and when the last two
// calls failed and more than half of the window did, write returns the
// items of the failures since the last success not yet returned — this one
// last — and marks them returned: the caller writes them to the shared
// count.
func (s *Outcomes) Fail(key, item string) (write []string, repeat bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.window(key)
	if item != "" {
		for i := range w.n {
			if c := w.calls[i]; c.failed && c.item == item {
				return nil, true
			}
		}
	}
	w.push(call{failed: true, item: item})
	failed := 0
	for i := range w.n {
		if w.calls[i].failed {
			failed++
		}
	}
	if !w.at(2).failed || failed*2 <= w.n {
		return nil, false
	}
	run := 1
	for run < w.n && w.at(run+1).failed {
		run++
	}
	for k := run; k >= 1; k-- { // the run since the last success, oldest first
		if c := w.at(k); !c.written {
			c.written = true
			write = append(write, c.item)
		}
	}
	return write, false
}

// Succeed records a success of key.
func (s *Outcomes) Succeed(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.window(key).push(call{})
}

func (s *Outcomes) window(key string) *window {
	if s.m == nil || len(s.m) > MaxKeys {
		s.m = map[string]*window{}
	}
	w, ok := s.m[key]
	if !ok {
		w = &window{}
		s.m[key] = w
	}
	return w
}

func (w *window) push(c call) {
	w.calls[w.next] = c
	w.next = (w.next + 1) % WindowSize
	w.n = min(w.n+1, WindowSize)
}

// at returns the k-th latest call (1 is the latest).
func (w *window) at(k int) *call {
	if k > w.n {
		return &call{}
	}
	return &w.calls[(w.next-k+WindowSize)%WindowSize]
}
