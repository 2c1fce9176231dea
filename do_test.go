package triage_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

func status(code int, header ...string) error {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return &failure.HTTPError{Provider: failure.OpenAI, Status: code, Header: h}
}

// flaky fails with errs in turn, then succeeds; it counts its calls.
func flaky(calls *int, errs ...error) func(context.Context) error {
	return func(context.Context) error {
		*calls++
		if *calls <= len(errs) {
			return errs[*calls-1]
		}
		return nil
	}
}

// notJSON is a model call whose every answer is invalid; it counts the
// calls.
func notJSON(calls *int) func(context.Context) error {
	return func(context.Context) error {
		*calls++
		return failure.New(work.ResponseInvalid, "answer is not JSON")
	}
}

// TestDoWaitsWhatThePolicyDecides: two 503s then a success; Do waits
// exactly the delays the client's Decide gives for attempts 1 and 2, on
// the clock, and succeeds on the third call.
func TestDoWaitsWhatThePolicyDecides(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half})
	calls := 0
	if err := c.Do(within(t, clk, time.Minute), flaky(&calls, status(503), status(503))); err != nil {
		t.Fatalf("Do: %v", err)
	}
	want := []time.Duration{
		c.Decide(status(503), 1).(triage.Retry).Delay,
		c.Decide(status(503), 2).(triage.Retry).Delay,
	}
	if calls != 3 || !slices.Equal(clk.waits(), want) {
		t.Fatalf("calls %d, waits %v; want 3 calls, waits %v", calls, clk.waits(), want)
	}
	if want[0] == want[1] {
		t.Fatalf("the backoff does not grow: %v", want)
	}
}

// TestDoHonoursRetryAfter: a 429 asking for 7 s is waited 7 s (the
// backoff drawn at zero), then the call succeeds.
func TestDoHonoursRetryAfter(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: func() float64 { return 0 }})
	calls := 0
	if err := c.Do(within(t, clk, time.Minute), flaky(&calls, status(429, "Retry-After", "7"))); err != nil {
		t.Fatal(err)
	}
	if got := clk.waits(); calls != 2 || !slices.Equal(got, []time.Duration{7 * time.Second}) {
		t.Fatalf("calls %d, waits %v; want 2 calls and one wait of 7s", calls, got)
	}
}

// TestDoStopsAtAPermanentFailure: a 401 is never retried and never handed
// to the queue (the queue could not get past it either): the classified
// error comes back.
func TestDoStopsAtAPermanentFailure(t *testing.T) {
	clk, q := newClock(), &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, SQS: q, FetchQueueURL: "https://sqs.example/q"})
	calls := 0
	err := c.Do(within(t, clk, time.Minute), flaky(&calls, status(401), status(401)), triage.ForItem(item("s-1")))
	var e *triage.Error
	if !errors.As(err, &e) {
		t.Fatalf("Do = %v, want a *triage.Error", err)
	}
	if _, dead := e.Decision.(triage.DeadLetter); !dead || e.Classification.Class != work.AuthDenied || e.Calls != 1 || calls != 1 {
		t.Fatalf("got %+v after %d calls; want AUTH_DENIED dead-lettered after one call", e, calls)
	}
	if errors.Is(err, triage.ErrQueued) || len(q.sent()) != 0 || len(clk.waits()) != 0 {
		t.Fatalf("a permanent failure was queued or waited: %v, %d sent, waits %v", err, len(q.sent()), clk.waits())
	}
	if triage.Classify(err).Class != work.AuthDenied {
		t.Fatalf("Classify(Do's error) = %s", triage.Classify(err).Class)
	}
}

// TestDoSpendsTheStagesAttempts: an upstream that always answers 500 is
// called as often as the policy's llm row allows, then dead-lettered.
func TestDoSpendsTheStagesAttempts(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half})
	calls := 0
	err := c.Do(within(t, clk, time.Hour), func(context.Context) error { calls++; return status(500) })
	max := policy.Standard().Policy(triage.LLM, work.UpstreamUnavailable).MaxAttempts
	var e *triage.Error
	if !errors.As(err, &e) || calls != max || e.Calls != max {
		t.Fatalf("Do = %v after %d calls; want to give up after %d", err, calls, max)
	}
	if d, ok := e.Decision.(triage.DeadLetter); !ok || !d.Exhausted {
		t.Fatalf("decision %#v, want an exhausted dead letter", e.Decision)
	}
}

// TestDoHandsOffWhatTheDeadlineCannotHold: a 503 asking for 30 s with 10 s
// left gives up without waiting and hands the item to the fetch queue;
// without a queue it returns the classified error.
func TestDoHandsOffWhatTheDeadlineCannotHold(t *testing.T) {
	for _, queued := range []bool{true, false} {
		clk, q := newClock(), &fakeSQS{}
		cfg := triage.Config{Clock: clk, Rand: half}
		if queued {
			cfg.SQS, cfg.FetchQueueURL = q, "https://sqs.example/q"
		}
		c := newClient(t, cfg)
		calls := 0
		err := c.Do(within(t, clk, 10*time.Second), flaky(&calls, status(503, "Retry-After", "30")), triage.ForItem(item("s-2")))
		var e *triage.Error
		if !errors.As(err, &e) || calls != 1 || len(clk.waits()) != 0 {
			t.Fatalf("queued=%v: Do = %v after %d calls, waits %v", queued, err, calls, clk.waits())
		}
		if r, ok := e.Decision.(triage.Retry); !ok || r.Delay < 30*time.Second {
			t.Fatalf("decision %#v, want a retry of at least 30s", e.Decision)
		}
		if got := errors.Is(err, triage.ErrQueued); got != queued {
			t.Fatalf("queued=%v: errors.Is(err, ErrQueued) = %v", queued, got)
		}
		if sent := q.sent(); queued && (len(sent) != 1 || !strings.Contains(sent[0], `"item_id":"s-2"`)) {
			t.Fatalf("sent %q, want the item's spec", sent)
		}
	}
}

// TestDoHandsOffWhatTheWorkerWouldPark: a wait longer than the policy holds
// in a queue (ParkAfter) is not waited in-process even with the deadline
// far away: the worker would park it, so it goes to the queue.
func TestDoHandsOffWhatTheWorkerWouldPark(t *testing.T) {
	clk, q := newClock(), &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, Rand: half, SQS: q, FetchQueueURL: "https://sqs.example/q"})
	ask := strconv.Itoa(int((policy.DefaultParkAfter + time.Minute).Seconds()))
	calls := 0
	err := c.Do(within(t, clk, time.Hour), flaky(&calls, status(503, "Retry-After", ask)), triage.ForItem(item("s-3")))
	if !errors.Is(err, triage.ErrQueued) || calls != 1 || len(clk.waits()) != 0 {
		t.Fatalf("Do = %v after %d calls, waits %v; want it queued after one call", err, calls, clk.waits())
	}
}

// TestDoCountsNoAttemptForAProviderQuota: insufficient_quota is the
// provider's quota: a wait behind its gate, handed to the queue, and the
// breaker opens at once, so the next call is not made.
func TestDoCountsNoAttemptForAProviderQuota(t *testing.T) {
	clk, q := newClock(), &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores(), SQS: q, FetchQueueURL: "https://sqs.example/q"})
	quota := &failure.HTTPError{Provider: failure.OpenAI, Status: 429,
		Body: []byte(`{"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your current quota"}}`)}
	calls := 0
	fn := func(context.Context) error { calls++; return quota }
	for i, id := range []string{"q-1", "q-2"} {
		err := c.Do(within(t, clk, time.Hour), fn, triage.Service("llm:openai"), triage.ForItem(item(id)))
		var e *triage.Error
		if !errors.As(err, &e) || !errors.Is(err, triage.ErrQueued) {
			t.Fatalf("item %d: Do = %v, want it queued", i, err)
		}
		w, ok := e.Decision.(triage.Wait)
		if !ok || w.Gate != "quota:llm:openai" {
			t.Fatalf("item %d: decision %#v, want a wait behind the provider's gate", i, e.Decision)
		}
	}
	if calls != 1 {
		t.Fatalf("%d calls; the quota's breaker must keep the second item from calling", calls)
	}
}

// TestDoOpensTheSharedBreaker: an upstream down for everyone opens its
// breaker; then a call is refused before it is made (ErrWaiting) and the
// item goes to the queue, where it waits behind the breaker's gate.
func TestDoOpensTheSharedBreaker(t *testing.T) {
	clk, q := newClock(), &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores(), SQS: q, FetchQueueURL: "https://sqs.example/q"})
	calls := 0
	down := func(context.Context) error { calls++; return status(503) }
	var last error
	for i := range 5 {
		last = c.Do(within(t, clk, 15*time.Second), down, triage.Service("llm:openai"), triage.ForItem(item("b-"+string(rune('a'+i)))))
	}
	before := calls
	err := c.Do(within(t, clk, 15*time.Second), down, triage.Service("llm:openai"), triage.ForItem(item("b-z")))
	var e *triage.Error
	if !errors.As(err, &e) || !errors.Is(err, triage.ErrWaiting) || calls != before || e.Calls != 0 {
		t.Fatalf("after %d calls (last: %v), Do = %v with %d more calls; want a refusal without a call", before, last, err, calls-before)
	}
	if w, ok := e.Decision.(triage.Wait); !ok || w.Gate != "breaker:llm:openai" || !errors.Is(err, triage.ErrQueued) {
		t.Fatalf("decision %#v (%v); want a wait behind breaker:llm:openai, queued", e.Decision, err)
	}
	if e.Classification.Class != "" {
		t.Fatalf("a closed gate is no failure; classified %s", e.Classification.Class)
	}
}

// TestDoDisablesABrokenModel: five items whose answers are all invalid
// disable the model (each item's retries counting once: the fifth item's
// first failure disables it, and its retry meets the disabled model); the
// sixth item is not called on it.
func TestDoDisablesABrokenModel(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	calls := 0
	bad := notJSON(&calls)
	for i := range 5 {
		err := c.Do(within(t, clk, time.Hour), bad, triage.Model("openai:gpt-x"), triage.ForItem(item("m-"+string(rune('a'+i)))))
		if last := i == 4; errors.Is(err, triage.ErrWaiting) != last || !last && triage.Classify(err).Class != work.ResponseInvalid {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	before := calls
	err := c.Do(within(t, clk, time.Hour), bad, triage.Model("openai:gpt-x"), triage.ForItem(item("m-z")))
	var e *triage.Error
	if !errors.As(err, &e) || !errors.Is(err, triage.ErrWaiting) || calls != before {
		t.Fatalf("Do = %v with %d more calls; want the disabled model refused without a call", err, calls-before)
	}
	if w := e.Decision.(triage.Wait); w.Gate != "models:openai:gpt-x" {
		t.Fatalf("gate %q", w.Gate)
	}
}

// TestDoChargesTheDailyBudget: a cap of two calls allows two; the third is
// refused before the call, waits behind the day's budget gate, spends no
// attempt and goes to the queue.
func TestDoChargesTheDailyBudget(t *testing.T) {
	clk, q := newClock(), &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, Stores: triage.MemoryStores(), DailyBudgetUSD: "0.02", CostPerCallUSD: "0.01",
		SQS: q, FetchQueueURL: "https://sqs.example/q"})
	calls := 0
	ok := func(context.Context) error { calls++; return nil }
	for range 2 {
		if err := c.Do(within(t, clk, time.Minute), ok); err != nil {
			t.Fatal(err)
		}
	}
	err := c.Do(within(t, clk, time.Minute), ok, triage.ForItem(item("d-1")))
	var e *triage.Error
	if !errors.As(err, &e) || calls != 2 || !errors.Is(err, triage.ErrQueued) {
		t.Fatalf("Do = %v, %d calls; want the third refused and queued", err, calls)
	}
	w, isWait := e.Decision.(triage.Wait)
	if !isWait || w.Gate != "budget:2031-03-04" || !w.Until.Equal(time.Date(2031, 3, 5, 0, 0, 0, 0, time.UTC)) || e.Classification.Class != work.BudgetExceeded {
		t.Fatalf("decision %#v class %s; want a wait behind budget:2031-03-04 until midnight", e.Decision, e.Classification.Class)
	}
}

// TestDoEndsWithTheCallersContext: a cancelled context ends the waits; the
// item is still handed over.
func TestDoEndsWithTheCallersContext(t *testing.T) {
	clk, q := newClock(), &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, Rand: half, SQS: q, FetchQueueURL: "https://sqs.example/q"})
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	err := c.Do(ctx, func(context.Context) error { calls++; cancel(); return status(503) }, triage.ForItem(item("c-1")))
	if calls != 1 || !errors.Is(err, triage.ErrQueued) || len(q.sent()) != 1 {
		t.Fatalf("Do = %v after %d calls, %d sent; want one call and the item queued", err, calls, len(q.sent()))
	}
}

// TestNewRefusesAHalfConfiguredBudget: a cap without a budget table, or a
// budget table without a cap, is a configuration error, not a budget
// silently left out.
func TestNewRefusesAHalfConfiguredBudget(t *testing.T) {
	for name, cfg := range map[string]triage.Config{
		"cap without a table":     {DailyBudgetUSD: "5", CostPerCallUSD: "0.003"},
		"cap without a cost":      {Stores: triage.MemoryStores(), DailyBudgetUSD: "5"},
		"a cap that is no amount": {Stores: triage.MemoryStores(), DailyBudgetUSD: "five", CostPerCallUSD: "0.003"},
		"table without a cap":     {Stores: triage.DynamoStores(nil, triage.Tables{Budget: "b"})},
		"queue without SQS":       {FetchQueueURL: "https://sqs.example/q"},
		"unknown stage":           {Stage: "enrich"},
	} {
		if _, err := triage.New(cfg); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}

// TestDoCallsNothingOnADoneContext: a context already done calls nothing
// and returns its error.
func TestDoCallsNothingOnADoneContext(t *testing.T) {
	c := newClient(t, triage.Config{Clock: newClock()})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := 0
	if err := c.Do(ctx, flaky(&calls)); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Fatalf("Do = %v after %d calls", err, calls)
	}
}

// TestDoReleasesTheProbeOfACallThatPanicked: the call that won an open
// breaker's probe panics; the panic goes on to the caller, and the probe's
// lease is released, so the next caller probes at once rather than after
// the lease.
func TestDoReleasesTheProbeOfACallThatPanicked(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	down := func(context.Context) error { return status(503) }
	for i := range 5 {
		_ = c.Do(within(t, clk, 15*time.Second), down, triage.Service("llm:p"), triage.ForItem(item("p-"+strconv.Itoa(i))))
	}
	if err := c.Do(within(t, clk, time.Minute), down, triage.Service("llm:p")); !errors.Is(err, triage.ErrWaiting) {
		t.Fatalf("the breaker is not open: %v", err)
	}
	clk.Advance(time.Hour) // past the open window: the next caller is the probe
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not reach the caller")
			}
		}()
		_ = c.Do(within(t, clk, time.Minute), func(context.Context) error { panic("boom") }, triage.Service("llm:p"))
	}()
	calls := 0
	if err := c.Do(within(t, clk, time.Minute), flaky(&calls), triage.Service("llm:p")); err != nil || calls != 1 {
		t.Fatalf("Do = %v after %d calls; want the next caller to probe and close the breaker", err, calls)
	}
}

// TestDoCountsItsOwnRetriesOnceAgainstTheModel: without ForItem, one Do's
// retries of a bad answer are still one item's repeats (docs/design.md
// "Model health": a streak counts distinct items): two calls whose every
// answer is invalid are two failures of the model, not six, and the model
// stays enabled for the next call.
func TestDoCountsItsOwnRetriesOnceAgainstTheModel(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	calls := 0
	bad := notJSON(&calls)
	for i := range 2 {
		if err := c.Do(within(t, clk, time.Hour), bad, triage.Model("openai:gpt-y")); triage.Classify(err).Class != work.ResponseInvalid {
			t.Fatalf("call %d: Do = %v; want RESPONSE_INVALID after its retries", i, err)
		}
	}
	before := calls
	ok := 0
	if err := c.Do(within(t, clk, time.Hour), flaky(&ok), triage.Model("openai:gpt-y")); err != nil || ok != 1 {
		t.Fatalf("after two poison calls (%d answers), Do = %v with %d calls; want the model still called", before, err, ok)
	}
}

// cancelling is a clock whose every wait is interrupted: the caller's
// context is cancelled during it.
type cancelling struct {
	*fakeClock
	cancel context.CancelFunc
}

func (c cancelling) Sleep(ctx context.Context, _ time.Duration) error {
	c.cancel()
	<-ctx.Done()
	return ctx.Err()
}

// TestDoReportsTheCancellationThatEndedItsWait: the caller cancels while Do
// waits for a retry; Do returns at once, hands the item over, and its error
// matches context.Canceled, as the caller's own cancellation, besides the
// failure it was waiting to retry.
func TestDoReportsTheCancellationThatEndedItsWait(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	clk, q := cancelling{newClock(), cancel}, &fakeSQS{}
	c := newClient(t, triage.Config{Clock: clk, Rand: half, SQS: q, FetchQueueURL: "https://sqs.example/q"})
	calls := 0
	err := c.Do(ctx, flaky(&calls, status(503)), triage.ForItem(item("w-1")))
	var e *triage.Error
	if !errors.As(err, &e) || !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("Do = %v after %d calls; want an error matching context.Canceled", err, calls)
	}
	if !errors.Is(err, triage.ErrQueued) || len(q.sent()) != 1 || triage.Classify(err).Class != work.UpstreamUnavailable {
		t.Fatalf("Do = %v (%s), %d sent; want the 503 handed over", err, triage.Classify(err).Class, len(q.sent()))
	}
}

// TestDoKeepsTheFailureThatOpenedTheBreaker: the call whose 503 opens the
// breaker waits behind it, as the worker's does (ErrWaiting, no attempt),
// and the error still carries that 503 and its class: a call was made and
// failed, and the caller reads the upstream's failure from it.
func TestDoKeepsTheFailureThatOpenedTheBreaker(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	calls := 0
	err := c.Do(within(t, clk, time.Hour), func(context.Context) error { calls++; return status(503) }, triage.Service("llm:o"))
	var (
		e  *triage.Error
		he *failure.HTTPError
	)
	if !errors.As(err, &e) || !errors.Is(err, triage.ErrWaiting) || e.Calls != calls {
		t.Fatalf("Do = %v after %d calls; want the wait behind the breaker it opened", err, calls)
	}
	if w, ok := e.Decision.(triage.Wait); !ok || w.Gate != "breaker:llm:o" {
		t.Fatalf("decision %#v; want a wait behind breaker:llm:o", e.Decision)
	}
	if !errors.As(err, &he) || he.Status != 503 || e.Classification.Class != work.UpstreamUnavailable {
		t.Fatalf("Do = %v (class %q); want it to carry the 503 that opened the breaker", err, e.Classification.Class)
	}
}

// TestDoWaitsForAnOverdueRecoveryAsTheChainDoes: a model disabled an hour
// and more ago, whose recovery has not run yet, is a model with no
// recovery expected: the wait behind it is the policy's NoModelWait, as the
// llm stage's chain decides it, not a second's floor that would have the
// caller come back at once to the same disabled model.
func TestDoWaitsForAnOverdueRecoveryAsTheChainDoes(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	bad := notJSON(new(int))
	for i := range 5 {
		_ = c.Do(within(t, clk, time.Hour), bad, triage.Model("openai:gpt-z"), triage.ForItem(item("o-"+strconv.Itoa(i))))
	}
	clk.Advance(policy.ModelCooldown + time.Minute)
	err := c.Do(within(t, clk, time.Hour), bad, triage.Model("openai:gpt-z"))
	var e *triage.Error
	if !errors.As(err, &e) || !errors.Is(err, triage.ErrWaiting) {
		t.Fatalf("Do = %v; want the disabled model's refusal", err)
	}
	if w, ok := e.Decision.(triage.Wait); !ok || !w.Until.Equal(clk.Now().Add(policy.NoModelWait)) {
		t.Fatalf("decision %#v; want a wait of %v", e.Decision, policy.NoModelWait)
	}
}

// TestServiceNamesTheWorkersBreaker: a source or webhook host named in any
// of the ways a URL spells it — a full URL, its scheme's own port, the
// root dot, capitals — is the one breaker the workers key by the host
// (docs/design.md "Circuit breakers"), so an outage opened under one
// spelling refuses the calls made under another.
func TestServiceNamesTheWorkersBreaker(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	down := func(context.Context) error { return status(503) }
	spellings := []string{"News.Example.", "https://news.example:443/a/b", "news.example", "HTTPS://NEWS.EXAMPLE/", "news.example."}
	for i, s := range spellings {
		c.Do(within(t, clk, 15*time.Second), down, triage.Service(s), triage.ForItem(item("h-"+string(rune('a'+i)))))
	}
	calls := 0
	err := c.Do(within(t, clk, 15*time.Second), func(context.Context) error { calls++; return nil }, triage.Service("http://news.example:8080/x"))
	if err != nil || calls != 1 {
		t.Fatalf("another port is another host: Do = %v after %d calls", err, calls)
	}
	err = c.Do(within(t, clk, 15*time.Second), func(context.Context) error { calls++; return nil }, triage.Service("https://news.example/feed"))
	var e *triage.Error
	if !errors.As(err, &e) || !errors.Is(err, triage.ErrWaiting) || calls != 1 {
		t.Fatalf("Do = %v with %d calls: want a refusal behind the host's open breaker", err, calls-1)
	}
	if w, ok := e.Decision.(triage.Wait); !ok || w.Gate != "breaker:news.example" {
		t.Fatalf("decision %#v: want a wait behind breaker:news.example", e.Decision)
	}
}

// TestDoRefusesAFreeCallWhenTheDayIsSpent: a call whose own estimate is
// nothing (Cost(0), a cached answer's price) still asks the day's budget,
// as the workers charge every call at least one micro-dollar: once the
// day is spent it is refused before it is made.
func TestDoRefusesAFreeCallWhenTheDayIsSpent(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Stores: triage.MemoryStores(), DailyBudgetUSD: "0.02", CostPerCallUSD: "0.01"})
	calls := 0
	ok := func(context.Context) error { calls++; return nil }
	for range 2 {
		if err := c.Do(within(t, clk, time.Minute), ok); err != nil {
			t.Fatal(err)
		}
	}
	for _, cost := range []triage.USD{0, -5} {
		err := c.Do(within(t, clk, time.Minute), ok, triage.Cost(cost))
		if !errors.Is(err, triage.ErrWaiting) && triage.Classify(err).Class != work.BudgetExceeded || calls != 2 {
			t.Fatalf("Cost(%d) on a spent day: Do = %v after %d calls; want it refused before the call", cost, err, calls)
		}
	}
}

// TestErrorSaysEachThingOnce: the error of a give-up names the calls, the
// decision and the failure, each once.
func TestErrorSaysEachThingOnce(t *testing.T) {
	clk := newClock()
	c := newClient(t, triage.Config{Clock: clk, Rand: half, Stores: triage.MemoryStores()})
	err := c.Do(within(t, clk, 15*time.Second), func(context.Context) error { return status(401) })
	if got, want := err.Error(), "gave up after 1 call: AUTH_DENIED is permanent: no retry can succeed: "; !strings.HasPrefix(got, want) {
		t.Fatalf("Error() = %q, want it to start %q", got, want)
	}
	for i := range 5 {
		c.Do(within(t, clk, 15*time.Second), func(context.Context) error { return status(503) }, triage.Service("llm:openai"), triage.ForItem(item("e-"+string(rune('a'+i)))))
	}
	err = c.Do(within(t, clk, 15*time.Second), func(context.Context) error { return nil }, triage.Service("llm:openai"))
	if s := err.Error(); strings.Count(s, "circuit breaker open for llm:openai") != 1 || !strings.HasPrefix(s, "gave up after 0 calls: wait until ") {
		t.Fatalf("Error() = %q: want the breaker named once, after the wait", s)
	}
}

// hungSQS is a fetch queue whose connection hangs: a send never answers
// until its context ends.
type hungSQS struct{}

func (hungSQS) SendMessageBatch(ctx context.Context, _ *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestDoBoundsAHandOffToAHungQueue: the caller cancels while Do waits for
// a retry, and the hand-off to the fetch queue meets a connection that
// never answers. The hand-off outlives the cancellation, but only until
// policy.InlineHandoff after the client's now — here a clock that many
// seconds behind the wall clock, so the bound is already over — and Do
// returns, its error carrying the failed hand-off.
func TestDoBoundsAHandOffToAHungQueue(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	clk := cancelling{&fakeClock{Stub: clock.NewStub(time.Now().Add(-policy.InlineHandoff))}, cancel}
	c := newClient(t, triage.Config{Clock: clk, Rand: half, SQS: hungSQS{}, FetchQueueURL: "https://sqs.example/q"})
	calls := 0
	done := make(chan error, 1)
	go func() { done <- c.Do(ctx, flaky(&calls, status(503)), triage.ForItem(item("h-1"))) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second): // a guard against a hang, never a wait on the way to a pass
		t.Fatal("Do did not return: the hand-off to a hung queue is unbounded")
	}
	var e *triage.Error
	if !errors.As(err, &e) || !errors.Is(e.HandoffErr, context.DeadlineExceeded) || errors.Is(err, triage.ErrQueued) {
		t.Fatalf("Do = %v; want the hand-off ended by its bound", err)
	}
}

// deadlineSQS refuses every send, keeping the deadline of each.
type deadlineSQS struct{ deadlines *[]time.Time }

func (d deadlineSQS) SendMessageBatch(ctx context.Context, _ *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	dl, _ := ctx.Deadline()
	*d.deadlines = append(*d.deadlines, dl)
	return nil, errors.New("AccessDenied: not authorized to perform sqs:SendMessage")
}

// TestDoBoundsItsHandOffOnTheClientsClock: the hand-off's sends carry a
// deadline policy.InlineHandoff after the client's now, whatever the
// caller's own deadline.
func TestDoBoundsItsHandOffOnTheClientsClock(t *testing.T) {
	clk := newClock()
	var deadlines []time.Time
	c := newClient(t, triage.Config{Clock: clk, Rand: half, SQS: deadlineSQS{&deadlines}, FetchQueueURL: "https://sqs.example/q"})
	err := c.Do(within(t, clk, 20*time.Second), func(context.Context) error { return status(503, "Retry-After", "60") }, triage.ForItem(item("h-2")))
	var e *triage.Error
	if !errors.As(err, &e) || e.HandoffErr == nil || len(deadlines) == 0 {
		t.Fatalf("Do = %v with %d sends; want a failed hand-off", err, len(deadlines))
	}
	// One bound for the whole hand-off, set when it starts: on the client's
	// clock, after the call (t0) and before now.
	for _, d := range deadlines {
		start := d.Add(-policy.InlineHandoff)
		if !d.Equal(deadlines[0]) || start.Before(t0) || start.After(clk.Now()) {
			t.Fatalf("hand-off sends' deadlines %v; want one, %s after the client's now when the hand-off starts (between %s and %s)",
				deadlines, policy.InlineHandoff, t0, clk.Now())
		}
	}
}
