package dynamo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/store/dynamo"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func TestCacheFreshness(t *testing.T) {
	t.Parallel()
	const ttl = 5 * time.Second
	var c dynamo.Cache[int]
	c.Put("a", 1, t0, ttl)
	tests := []struct {
		name      string
		at        time.Time
		ttl       time.Duration
		freshOnly bool
		ok        bool
	}{
		{"fresh", t0.Add(4 * time.Second), ttl, true, true},
		{"aged out", t0.Add(ttl), ttl, true, false},
		{"aged out, any age", t0.Add(time.Hour), ttl, false, true},
		{"seen after now", t0.Add(-time.Second), ttl, true, false},
		{"disabled", t0, -1, true, false},
	}
	for _, tc := range tests {
		if v, ok := c.Get("a", tc.at, tc.ttl, tc.freshOnly); ok != tc.ok || ok && v != 1 {
			t.Errorf("%s: %d, %t; want ok %t", tc.name, v, ok, tc.ok)
		}
	}
	if _, ok := c.Get("b", t0, ttl, false); ok {
		t.Error("a key never put")
	}
	c.Update("a", func(v *int, at *time.Time) { *v, *at = 2, t0.Add(time.Hour) })
	if v, ok := c.Get("a", t0.Add(time.Hour), ttl, true); !ok || v != 2 {
		t.Errorf("after Update: %d, %t", v, ok)
	}
	c.Update("b", func(*int, *time.Time) { t.Error("Update of a missing key") })
	c.Forget("a")
	if _, ok := c.Get("a", t0, ttl, false); ok {
		t.Error("forgotten, still there")
	}
	c.Put("n", 1, t0, -1)
	if _, ok := c.Get("n", t0, -1, false); ok {
		t.Error("a disabled cache kept a record")
	}
}

func TestCacheSweepsPastMax(t *testing.T) {
	t.Parallel()
	var c dynamo.Cache[int]
	c.Put("old", 1, t0, time.Second)
	for i := range dynamo.MaxKeys {
		c.Put(fmt.Sprint("new", i), 2, t0.Add(5*time.Second), time.Second)
	}
	c.Put("newest", 3, t0.Add(5*time.Second), time.Second)
	if _, ok := c.Get("old", t0, time.Second, false); ok {
		t.Error("an expired entry survived the sweep")
	}
	if _, ok := c.Get("new0", t0, time.Second, false); !ok {
		t.Error("a live entry was swept")
	}
}

func TestStreaks(t *testing.T) {
	t.Parallel()
	var s dynamo.Streaks
	for want := 1; want <= 3; want++ {
		if n := s.Fail("a"); n != want {
			t.Fatalf("failure %d: streak %d", want, n)
		}
	}
	s.Reset("a")
	if n := s.Fail("a"); n != 1 {
		t.Fatalf("after a success: %d", n)
	}
	for i := range dynamo.MaxKeys {
		s.Fail(fmt.Sprint("k", i)) // past MaxKeys, every streak is forgotten
	}
	if n := s.Fail("a"); n != 1 {
		t.Fatalf("past Max: %d, want a fresh streak", n)
	}
}

// TestOutcomes: a failure is returned for writing when the last two calls
// failed and more than half of the window did, with the run since the
// last success that was not returned before; an item's second failure in
// the window is a repeat.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	var o dynamo.Outcomes
	step := func(item string, wantWrite []string, wantRepeat bool) {
		t.Helper()
		var w []string
		var rep bool
		if item == "" {
			o.Succeed("m")
		} else {
			w, rep = o.Fail("m", item)
		}
		if fmt.Sprint(w) != fmt.Sprint(wantWrite) || rep != wantRepeat {
			t.Fatalf("after %q: write %v repeat %t; want %v %t", item, w, rep, wantWrite, wantRepeat)
		}
	}
	step("a", nil, false)                // one failure: isolated
	step("b", []string{"a", "b"}, false) // two in a row, all of the window
	step("b", nil, true)                 // b again: its own
	step("c", []string{"c"}, false)      // a run: each later one at once
	for range 7 {                        // seven successes: 3 of 10 failed
		step("", nil, false)
	}
	for _, it := range []string{"d", "e", "f", "g", "h"} { // in a row, but at most half of the window
		step(it, nil, false)
	}
	step("i", []string{"d", "e", "f", "g", "h", "i"}, false) // 6 of 10: the run since the last success
	if w, rep := o.Fail("other", "a"); w != nil || rep {
		t.Fatalf("another key shares nothing: %v %t", w, rep)
	}
}
