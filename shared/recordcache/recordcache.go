// Package recordcache is what every instance keeps of the shared records it
// reads on the hot path — a service's circuit breaker, a model's health — so
// that a call costs no DynamoDB request: the last record seen per key with
// the time it was seen (Cache), and the instance's own run of failures per
// key since its last success there (Streaks), or of distinct items that
// failed there (Members). docs/design.md "Shared records
// at scale" says how breaker and health use them.
package recordcache

import (
	"slices"
	"sync"
	"time"
)

// MaxKeys bounds a Cache, a Streaks and a Members: past it, a Cache sweeps the entries
// older than the TTL on its next Put, and a Streaks forgets every streak
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

// MaxMembers bounds the members a Members streak remembers per key; a
// streak past it counts every further failure as a new member.
const MaxMembers = 64

// Members counts, per key, the distinct members (items) that failed on this
// instance since its last success there: a member that fails again within
// the streak is a repeat, not a longer streak. The zero value is ready; it
// is safe for concurrent use.
type Members struct {
	mu sync.Mutex
	m  map[string][]string
}

// Fail adds member's failure to key's streak and returns the streak's
// length in distinct members, and whether member was already in it. An
// empty member is always new.
func (s *Members) Fail(key, member string) (n int, repeat bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) > MaxKeys {
		s.m = map[string][]string{}
	}
	ms := s.m[key]
	if member != "" && slices.Contains(ms, member) {
		return len(ms), true
	}
	if len(ms) < MaxMembers {
		ms = append(ms, member)
	} else {
		ms = append(ms[:MaxMembers-1:MaxMembers-1], member)
	}
	s.m[key] = ms
	return len(ms), false
}

// Items returns a copy of key's streak, oldest first.
func (s *Members) Items(key string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.m[key])
}

// Reset ends key's streak: a success.
func (s *Members) Reset(key string) {
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}
