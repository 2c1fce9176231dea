package runner_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// TestHoldPlacement: every wait — a gate's, a failure's that spends no
// attempt, a retry's — goes through one decision: through the message's
// visibility while it is short and the message fresh, parked otherwise,
// behind its gate when it has one.
func TestHoldPlacement(t *testing.T) {
	t.Parallel()
	breakerGate := gates.New(gates.Breaker, "api.example.com")
	waitFor := func(d time.Duration, g gates.Name) func(now time.Time) error {
		return func(now time.Time) error {
			return gates.Wrap(&failure.WaitError{Until: now.Add(d), Reason: "breaker open"}, g)
		}
	}
	tests := map[string]struct {
		err      func(now time.Time) error
		receives int
		noGates  bool
		backstop int
		profile  *policy.Profile
		// want: the visibility in seconds, or -1 for parked.
		want     int32
		gate     gates.Name
		attempts int
	}{
		"a gate wait parks behind the gate, however short": {
			err: waitFor(15*time.Second, breakerGate), receives: 1, want: -1, gate: breakerGate},
		"a long gate wait parks behind the gate": {
			err: waitFor(5*time.Minute, breakerGate), receives: 1, want: -1, gate: breakerGate},
		"without a gates store a short gate wait keeps the message": {
			err: waitFor(90*time.Second, breakerGate), receives: 1, noGates: true, want: 90},
		"without a gates store a short wait on the third receive parks for its due time": {
			err: waitFor(20*time.Second, breakerGate), receives: runner.DefaultParkAfterReceives, noGates: true, want: -1, gate: gates.DueName},
		"without a gates store a long gate wait parks for its due time": {
			err: waitFor(5*time.Minute, breakerGate), receives: 1, noGates: true, want: -1, gate: gates.DueName},
		"a short retry stays in the queue however often it came": {
			err:      func(time.Time) error { return httpErr(failure.OpenAI, 503, "") },
			receives: 10, want: 0, attempts: 1},
		"a retry next to the backstop parks": {
			err:      func(time.Time) error { return httpErr(failure.OpenAI, 503, "") },
			receives: 4, backstop: 5, want: -1, gate: gates.DueName, attempts: 1},
		"a Retry-After beyond ParkAfter parks as a due wait": {
			err: func(time.Time) error {
				e := httpErr(failure.OpenAI, 429, "").(*failure.HTTPError)
				e.Header.Set("Retry-After", "240")
				return e
			},
			receives: 1, want: -1, gate: gates.DueName, attempts: 1},
		"a spent daily budget parks behind the day's gate": {
			err: func(now time.Time) error {
				b := &budget.Memory{Cap: 0, Cost: 1}
				return b.Charge(context.Background(), now)
			},
			receives: 1, want: -1, gate: budget.Gate("2026-11-21")},
		"a profile that rechecks the budget parks it for the recheck": {
			err: func(now time.Time) error {
				b := &budget.Memory{Cap: 0, Cost: 1}
				return b.Charge(context.Background(), now)
			},
			profile:  func() *policy.Profile { p := policy.Standard(); p.BudgetRecheck = 30 * time.Minute; return p }(),
			receives: 1, want: -1, gate: gates.DueName},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			gs := store.NewMemoryGates()
			if !tc.noGates {
				tb.runner.Gates = gs
			}
			tb.runner.BackstopReceives = tc.backstop
			if tc.profile != nil {
				tb.runner.Profile = tc.profile
			}
			tb.runner.Rand = func() float64 { return 0 } // full jitter: a backoff of 0 s
			tb.seed(t, "a", work.LLM)
			now := tb.clock.Now()
			tb.work = func(context.Context, store.Item) (work.Output, error) { return work.Output{}, tc.err(now) }
			resp := tb.handle(t, context.Background(), msg("a", work.LLM, "m1", tc.receives))
			it := tb.item(t, "a")
			parked, isParked := tb.store.Parked()["a"]
			if it.Attempts[work.LLM] != tc.attempts || it.State != work.Retryable {
				t.Fatalf("item %s with %d attempts, want retryable with %d", it.State, it.Attempts[work.LLM], tc.attempts)
			}
			if tc.want >= 0 {
				if len(resp.BatchItemFailures) != 1 || isParked || tb.visibility(t, "rh-m1") != tc.want {
					t.Fatalf("kept %d, parked %v, visibility %d; want kept for %d s", len(resp.BatchItemFailures), isParked,
						tb.visibility(t, "rh-m1"), tc.want)
				}
				return
			}
			if len(resp.BatchItemFailures) != 0 || !isParked || parked.Gate.String() != tc.gate.String() || parked.Envelope.ItemID != "a" {
				t.Fatalf("kept %d, parked %v %+v; want acknowledged and parked behind %s", len(resp.BatchItemFailures), isParked, parked, tc.gate)
			}
			if it.Carrier != "" {
				t.Fatalf("a parked item keeps carrier %q", it.Carrier)
			}
			_, touched := gs.Get(tc.gate)
			if onGate := !tc.gate.IsDue(); touched != onGate || onGate && it.NotBefore.After(now) {
				t.Fatalf("gate touched %v, not_before %v: a gate wait touches its gate and is claimable at once", touched, it.NotBefore)
			}
		})
	}
}

// TestEarlyResendOfAParkedWaitIsNotADuplicate: the scheduler re-sends a
// parked item's envelope once due by its own clock; the stage's clock may
// lag. The message that arrives a moment early must wait for the item, not
// be taken for a duplicate of the message that parked it (the item would be
// stranded: its parked record is already gone).
func TestEarlyResendOfAParkedWaitIsNotADuplicate(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Notify)
	tb.honourRequests(24 * time.Hour)
	tb.seed(t, "a", work.Notify)
	fail := true
	tb.work = func(context.Context, store.Item) (work.Output, error) {
		if !fail {
			return okOutput(work.Notify), nil
		}
		e := httpErr(failure.Webhook, 503, "").(*failure.HTTPError)
		e.Header.Set("Retry-After", "46800") // 13 h: parked
		return work.Output{}, e
	}
	if resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m1", 1)); len(resp.BatchItemFailures) != 0 {
		t.Fatal("the parked record was kept")
	}
	due := tb.store.Parked()["a"].DueAt
	fail = false
	// The scheduler's message, 3 s before not_before by the stage's clock.
	tb.clock.Advance(due.Sub(tb.clock.Now()) - 3*time.Second)
	resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m2", 1))
	if len(resp.BatchItemFailures) != 1 || tb.visibility(t, "rh-m2") != 3 {
		t.Fatalf("early resend: kept %v visibility %d, want kept for 3 s", failedIDs(resp), tb.visibility(t, "rh-m2"))
	}
	tb.clock.Advance(3 * time.Second)
	if resp := tb.handle(t, context.Background(), msg("a", work.Notify, "m2", 2)); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("the resend, once due: kept %v", failedIDs(resp))
	}
	if it := tb.item(t, "a"); it.State != work.Done {
		t.Fatalf("item %s at %s, want done", it.State, it.Stage)
	}
}

// TestTwoDeliveriesWithOneReceiveCountDoNotShareALease: SQS does not promise
// a distinct ApproximateReceiveCount per receive; the receipt handle is new
// for each. Two deliveries of one message that report the same count must
// not both hold the item.
func TestTwoDeliveriesWithOneReceiveCountDoNotShareALease(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.seed(t, "a", work.Fetch)
	inWork := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	tb.work = func(context.Context, store.Item) (work.Output, error) {
		first := false
		once.Do(func() { first = true; close(inWork) })
		if first { // only the first call blocks: a second one shows the bug at once
			<-release
		}
		return okOutput(work.Fetch), nil
	}
	first, second := msg("a", work.Fetch, "m1", 1), msg("a", work.Fetch, "m1", 1)
	first.ReceiptHandle, second.ReceiptHandle = "receipt-1", "receipt-2"
	done := make(chan events.SQSEventResponse)
	go func() { done <- tb.handle(t, context.Background(), first) }()
	<-inWork
	resp := tb.handle(t, context.Background(), second)
	close(release)
	<-done
	if n := tb.calls.Load(); n != 1 {
		t.Fatalf("the upstream was called %d times for one message", n)
	}
	if len(resp.BatchItemFailures) != 1 || tb.visibility(t, "receipt-2") < 1 {
		t.Fatalf("the second delivery: kept %v; want kept until the first one's lease ends", failedIDs(resp))
	}
	if it := tb.item(t, "a"); it.Stage != work.LLM || it.State != work.Queued {
		t.Fatalf("item %s at %s", it.State, it.Stage)
	}
}

// recordingGates counts the runner's congestion signals.
type recordingGates struct {
	*store.MemoryGates
	mu        sync.Mutex
	congested []gates.Name
}

func (g *recordingGates) Congested(ctx context.Context, n gates.Name, now time.Time) error {
	g.mu.Lock()
	g.congested = append(g.congested, n)
	g.mu.Unlock()
	return g.MemoryGates.Congested(ctx, n, now)
}

// TestReleasedRecordSignalsCongestion: an item a gate released that meets
// RATE_LIMITED, a 5xx or a timeout tells the gate's ramp; any other outcome,
// a record no gate released, or a retry of a released record through
// visibility (the item's own, not a call the ramp paced), does not.
func TestReleasedRecordSignalsCongestion(t *testing.T) {
	t.Parallel()
	g := gates.New(gates.Breaker, "api.example.com")
	tests := map[string]struct {
		err      error
		released bool
		want     bool
		receives int
	}{
		"rate limited":                 {httpErr(failure.OpenAI, 429, ""), true, true, 0},
		"server error":                 {httpErr(failure.OpenAI, 503, ""), true, true, 0},
		"timeout":                      {context.DeadlineExceeded, true, true, 0},
		"a request error":              {httpErr(failure.OpenAI, 400, `{"error":{"code":"context_length_exceeded"}}`), true, false, 0},
		"success":                      {nil, true, false, 0},
		"not released":                 {httpErr(failure.OpenAI, 429, ""), false, false, 0},
		"the gate is closed":           {gates.Wrap(&failure.WaitError{Until: time.Now().Add(time.Hour)}, g), true, false, 0},
		"a retry of a released record": {err: httpErr(failure.OpenAI, 503, ""), released: true, receives: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			gs := &recordingGates{MemoryGates: store.NewMemoryGates()}
			tb.runner.Gates = gs
			if err := gs.Touch(context.Background(), g, tb.clock.Now()); err != nil {
				t.Fatal(err)
			}
			tb.seed(t, "a", work.LLM)
			tb.work = func(context.Context, store.Item) (work.Output, error) {
				if tc.err == nil {
					return okOutput(work.LLM), nil
				}
				return work.Output{}, tc.err
			}
			m := msg("a", work.LLM, "m1", max(tc.receives, 1))
			if tc.released {
				m.MessageAttributes = map[string]events.SQSMessageAttribute{gates.AttrGate: {StringValue: strPtr(string(g)), DataType: "String"}}
			}
			tb.handle(t, context.Background(), m)
			if got := len(gs.congested) == 1 && gs.congested[0] == g; got != tc.want {
				t.Fatalf("congestion signals %v, want one: %v", gs.congested, tc.want)
			}
			rec, _ := gs.Get(g)
			if tc.want && rec.CongestedAt.IsZero() {
				t.Fatal("the gate's record has no congestion time")
			}
		})
	}
}

// TestDeliveryReachesTheWork: the gate and probe attributes the scheduler
// sets reach the Work as Run's argument; malformed ones are ignored.
func TestDeliveryReachesTheWork(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		attrs map[string]string
		want  gates.Delivery
	}{
		"plain":        {nil, gates.Delivery{}},
		"released":     {map[string]string{gates.AttrGate: "quota:api.example.com"}, gates.Delivery{Gate: "quota:api.example.com"}},
		"probe":        {map[string]string{gates.AttrGate: "breaker:h", gates.AttrProbe: "tok"}, gates.Delivery{Gate: "breaker:h", Probe: "tok"}},
		"unknown gate": {map[string]string{gates.AttrGate: "nope:x"}, gates.Delivery{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			tb.seed(t, "a", work.LLM)
			tb.delivery = gates.Delivery{Probe: "not run"}
			m := msg("a", work.LLM, "m1", 1)
			m.MessageAttributes = map[string]events.SQSMessageAttribute{}
			for k, v := range tc.attrs {
				m.MessageAttributes[k] = events.SQSMessageAttribute{StringValue: strPtr(v), DataType: "String"}
			}
			tb.handle(t, context.Background(), m)
			if got := tb.delivery; got != tc.want {
				t.Fatalf("delivery %+v, want %+v", got, tc.want)
			}
		})
	}
}

func strPtr(s string) *string { return &s }

// TestGateTouchFailureParksForTheDueTime: a gate whose record cannot be
// written must not hide its waiter from the scheduler.
func TestGateTouchFailureParksForTheDueTime(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.LLM)
	tb.runner.Gates = failingGates{}
	tb.seed(t, "a", work.LLM)
	until := tb.clock.Now().Add(10 * time.Minute)
	tb.failWith(gates.Wrap(&failure.WaitError{Until: until}, gates.New(gates.Breaker, "h")))
	tb.handle(t, context.Background(), msg("a", work.LLM, "m1", 1))
	p, ok := tb.store.Parked()["a"]
	if !ok || !p.Gate.IsDue() || !p.DueAt.Equal(until) {
		t.Fatalf("parked %v %+v, want a due wait until %v", ok, p, until)
	}
}

type failingGates struct{}

func (failingGates) Touch(context.Context, gates.Name, time.Time) error {
	return errors.New("gates table unavailable")
}

func (failingGates) Congested(context.Context, gates.Name, time.Time) error {
	return errors.New("gates table unavailable")
}

// TestReleasedIntoARateLimitSpendsNoAttempt: an item a gate's ramp
// released that meets the upstream's rate limit goes back behind the gate
// without spending an attempt (the ramp's, which the congestion signal
// slows); the same answer to an item no gate released counts.
func TestReleasedIntoARateLimitSpendsNoAttempt(t *testing.T) {
	t.Parallel()
	for name, released := range map[string]bool{"released": true, "not released": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.LLM)
			tb.runner.Gates = store.NewMemoryGates()
			tb.seed(t, "a", work.LLM)
			tb.store.Put(func() store.Item {
				it := tb.item(t, "a")
				it.Attempts = map[work.Stage]int{work.LLM: 4}
				return it
			}())
			tb.failWith(httpErr(failure.OpenAI, 429, ""))
			m := msg("a", work.LLM, "m1", 1)
			if released {
				m.MessageAttributes = map[string]events.SQSMessageAttribute{gates.AttrGate: {StringValue: strPtr("budget:2026-11-20"), DataType: "String"}}
			}
			resp := tb.handle(t, context.Background(), m)
			it := tb.item(t, "a")
			if released {
				p, parked := tb.store.Parked()["a"]
				if it.Attempts[work.LLM] != 4 || it.State != work.Retryable || len(resp.BatchItemFailures) != 0 ||
					it.LastError == nil || it.LastError.ErrorClass != work.RateLimited || !parked || p.Gate != "budget:2026-11-20" {
					t.Fatalf("released: %s attempts %d kept %v parked %v %+v", it.State, it.Attempts[work.LLM], failedIDs(resp), parked, p)
				}
				return
			}
			// The fifth attempt of a record no gate released: dead-lettered.
			if it.Attempts[work.LLM] != 5 || it.State != work.Deadletter {
				t.Fatalf("not released: %s attempts %d", it.State, it.Attempts[work.LLM])
			}
		})
	}
}
