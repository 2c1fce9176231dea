package policy_test

import (
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// TestNoticeRow: a notice's waits are 30 s tripling to 15 min ±20%, raised
// to the receiver's Retry-After up to 15 min and never under 1 s; a
// permanent failure or the 5th attempt's gives up.
func TestNoticeRow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mid := func() float64 { return 0.5 } // the jitter range's middle: the base
	row := policy.Notice()
	unavailable := failure.Of(work.UpstreamUnavailable, "503")
	for attempt, want := range map[int]time.Duration{1: 30 * time.Second, 2: 90 * time.Second, 3: 270 * time.Second, 4: 810 * time.Second} {
		d, ok := row.Decide(policy.CallInput{Attempt: attempt, Failure: unavailable, Now: now, Rand: mid}).(policy.Retry)
		if !ok || d.Delay != want || d.Min != want*8/10 || d.Max != min(want*12/10, 15*time.Minute) {
			t.Errorf("attempt %d: %#v, want a retry in %s", attempt, d, want)
		}
	}
	asked := unavailable
	asked.Requested = failure.Requested{At: now.Add(time.Hour)}
	if d, ok := row.Decide(policy.CallInput{Attempt: 1, Failure: asked, Now: now, Rand: mid}).(policy.Retry); !ok || d.Delay != 15*time.Minute {
		t.Errorf("an hour's Retry-After: %#v, want 15m", d)
	}
	asked.Requested = failure.Requested{Delay: 2 * time.Minute}
	if d, ok := row.Decide(policy.CallInput{Attempt: 1, Failure: asked, Now: now, Rand: mid}).(policy.Retry); !ok || d.Delay != 2*time.Minute {
		t.Errorf("a 2-minute Retry-After: %#v, want 2m", d)
	}
	tiny := row.Override(0, time.Millisecond, 0)
	if d, ok := tiny.Decide(policy.CallInput{Attempt: 1, Failure: unavailable, Now: now, Rand: func() float64 { return 0 }}).(policy.Retry); !ok ||
		d.Delay != time.Second {
		t.Errorf("a 1 ms backoff: %#v, want the 1 s floor", d)
	}
	if d, ok := row.Decide(policy.CallInput{Attempt: 5, Failure: unavailable, Now: now}).(policy.DeadLetter); !ok || !d.Exhausted {
		t.Errorf("the 5th attempt: %#v, want given up, exhausted", d)
	}
	calls := 0
	gone := failure.Of(work.NotFound, "410")
	if d, ok := row.Decide(policy.CallInput{Attempt: 1, Failure: gone, Now: now, Rand: func() float64 { calls++; return 0 }}).(policy.DeadLetter); !ok ||
		d.Exhausted || calls != 0 {
		t.Errorf("a 410: %#v (rand called %d times), want given up at once, no draw", d, calls)
	}
	if row.Exhausted(5) || !row.Exhausted(6) || !row.Override(3, 0, 0).Exhausted(4) {
		t.Error("Exhausted: want true past the bound only, the override's bound when set")
	}
}

// TestProducerRow: 4 sends, 200 ms doubling to 5 s with full jitter; no
// floor, no Retry-After.
func TestProducerRow(t *testing.T) {
	t.Parallel()
	row := policy.ProducerSend()
	throttled := failure.Of(work.RateLimited, "throttled")
	throttled.Requested = failure.Requested{Delay: time.Minute}
	for attempt, want := range map[int]time.Duration{1: 200 * time.Millisecond, 2: 400 * time.Millisecond, 3: 800 * time.Millisecond} {
		d, ok := row.Decide(policy.CallInput{Attempt: attempt, Failure: throttled, Rand: func() float64 { return 1 }}).(policy.Retry)
		if !ok || d.Delay != want || d.Min != 0 {
			t.Errorf("attempt %d: %#v, want a retry in [0, %s], the Retry-After ignored", attempt, d, want)
		}
	}
	if _, ok := row.Decide(policy.CallInput{Attempt: 4, Failure: throttled}).(policy.DeadLetter); !ok {
		t.Error("the 4th send: want given up")
	}
	if got := policy.CLICalls(); got.MaxAttempts != 2 || got.Backoff.Max != 500*time.Millisecond {
		t.Errorf("CLI row: %+v, want 2 attempts, at most 500 ms apart", got)
	}
}

// TestOutputs: the dead-letter reason of an unusable message, escalation,
// the notice give-up threshold and the drain limits.
func TestOutputs(t *testing.T) {
	t.Parallel()
	if got := policy.Unusable(work.SchemaInvalid); got.Reason() != "SCHEMA_INVALID is permanent: no retry can succeed" ||
		got.Attempt != 1 || got.MaxAttempts != 1 || !got.Counts() {
		t.Errorf("Unusable: %#v %q", got, got.Reason())
	}
	pol := failure.Of(work.ContentPolicy, "blocked")
	prior := policy.Replayed{Replays: 1, Stage: work.LLM, Class: work.ContentPolicy}
	for name, tc := range map[string]struct {
		prior policy.Replayed
		stage work.Stage
		cl    failure.Classification
		want  bool
	}{
		"the same permanent failure after a replay": {prior, work.LLM, pol, true},
		"never replayed":      {policy.Replayed{Stage: work.LLM, Class: work.ContentPolicy}, work.LLM, pol, false},
		"another stage":       {prior, work.Notify, pol, false},
		"another class":       {prior, work.LLM, failure.Of(work.TokenLimit, "long"), false},
		"a retryable failure": {policy.Replayed{Replays: 2, Stage: work.LLM, Class: work.Unknown}, work.LLM, failure.Of(work.Unknown, "?"), false},
		"no dead letter":      {policy.Replayed{Replays: 1}, work.LLM, pol, false},
	} {
		if got := policy.Escalated(tc.prior, tc.stage, tc.cl); got != tc.want {
			t.Errorf("%s: escalated %v, want %v", name, got, tc.want)
		}
	}
	h := policy.Holding{BackstopReceives: 50}
	if h.GivesUpNotice(47) || !h.GivesUpNotice(48) || (policy.Holding{}).GivesUpNotice(1000) {
		t.Error("GivesUpNotice: want from receive 48 of a 50-receive backstop on, never without a backstop")
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if got := policy.DrainUntil(now, time.Minute); !got.Equal(now.Add(2 * time.Minute)) {
		t.Errorf("DrainUntil: %s, want two intervals on", got)
	}
	if got := policy.ReleaseDelay(5, 10, time.Minute); got != 30*time.Second {
		t.Errorf("ReleaseDelay(5 of 10 over 1m): %s, want 30s", got)
	}
	if got := policy.ReleaseDelay(9, 10, time.Hour); got != 15*time.Minute {
		t.Errorf("ReleaseDelay over an hour: %s, want SQS's 15m limit", got)
	}
	if got := policy.ReleaseDelay(0, 0, time.Minute); got != 0 {
		t.Errorf("ReleaseDelay of none: %s", got)
	}
	for attempt, want := range map[int]time.Duration{1: 50 * time.Millisecond, 3: 150 * time.Millisecond, 10: 500 * time.Millisecond, 40: 500 * time.Millisecond} {
		if got := policy.BatchRemainder.Base(attempt); got != want {
			t.Errorf("BatchRemainder after round %d: %s, want %s", attempt, got, want)
		}
	}
}
