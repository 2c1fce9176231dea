// Package clock is triage's one time source. Decision and state code never
// calls time.Now: it holds a Clock, which main sets to System (or, for a
// demo with compressed time, an Offset) and tests set to a *Stub they move
// by hand, so no test sleeps to see time pass.
//
// A struct's Clock field left nil means the wall clock: its code reads the
// time through Or(field).Now().
package clock

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// System is the wall clock.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// Sleep waits d on the wall clock, or until ctx ends and then returns its
// error. Code a test drives takes the wait as a func field defaulting to
// Sleep, so the test need not wait.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Or returns c, or System when c is nil.
func Or(c Clock) Clock {
	if c == nil {
		return System{}
	}
	return c
}

// Offset is the wall clock shifted by a fixed duration: the recovery
// function runs on one when a demo sets RECOVERY_CLOCK_OFFSET. The zero value
// is the wall clock.
type Offset time.Duration

// Now returns time.Now() plus the offset.
func (o Offset) Now() time.Time { return time.Now().Add(time.Duration(o)) }

// Func adapts a function to a Clock.
type Func func() time.Time

// Now returns f().
func (f Func) Now() time.Time { return f() }

// Stub is a clock that moves only when told to, safe for concurrent use:
// the clock of tests.
type Stub struct {
	mu  sync.Mutex
	now time.Time
}

// NewStub returns a Stub at t.
func NewStub(t time.Time) *Stub { return &Stub{now: t} }

// Now returns the stub's time.
func (s *Stub) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Advance moves the stub forward by d (backward for a negative d).
func (s *Stub) Advance(d time.Duration) {
	s.mu.Lock()
	s.now = s.now.Add(d)
	s.mu.Unlock()
}

// Set moves the stub to t.
func (s *Stub) Set(t time.Time) {
	s.mu.Lock()
	s.now = t
	s.mu.Unlock()
}
