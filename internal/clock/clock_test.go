package clock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
)

func TestOrFallsBackToTheWallClock(t *testing.T) {
	t.Parallel()
	if _, ok := clock.Or(nil).(clock.System); !ok {
		t.Fatalf("Or(nil) = %T, want clock.System", clock.Or(nil))
	}
	s := clock.NewStub(time.Unix(0, 0))
	if clock.Or(s) != clock.Clock(s) {
		t.Fatal("Or(s) is not s")
	}
	before := time.Now()
	if got := clock.Or(nil).Now(); got.Before(before) {
		t.Fatalf("System.Now() = %v, before %v", got, before)
	}
}

func TestOffsetIsAheadOfTheWallClock(t *testing.T) {
	t.Parallel()
	before := time.Now()
	got := clock.Offset(time.Hour).Now()
	if got.Sub(before) < time.Hour || got.Sub(before) > time.Hour+time.Minute {
		t.Fatalf("Offset(1h).Now() = %v, want an hour after %v", got, before)
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	t.Parallel()
	if err := clock.Sleep(context.Background(), 0); err != nil {
		t.Fatalf("Sleep(0) = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clock.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep(an hour) under a cancelled context = %v, want context.Canceled", err)
	}
}

func TestStubMovesOnlyWhenTold(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := clock.NewStub(t0)
	if !s.Now().Equal(t0) || !s.Now().Equal(t0) {
		t.Fatalf("Now() = %v, want %v", s.Now(), t0)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { s.Advance(time.Second) })
	}
	wg.Wait()
	if want := t0.Add(10 * time.Second); !s.Now().Equal(want) {
		t.Fatalf("after 10 concurrent Advance(1s): %v, want %v", s.Now(), want)
	}
	s.Set(t0)
	if !s.Now().Equal(t0) {
		t.Fatalf("after Set: %v, want %v", s.Now(), t0)
	}
	if got := clock.Func(func() time.Time { return t0 }).Now(); !got.Equal(t0) {
		t.Fatalf("Func.Now() = %v", got)
	}
}
