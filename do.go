package triage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/dynamo"
)

// ErrQueued matches the error of a call Do gave up on and handed to the
// fetch queue: the item goes on through the workers.
var ErrQueued = errors.New("handed to the fetch queue")

// ErrWaiting matches the error of a wait behind a closed gate: a call the
// gate refused (an open breaker, a disabled model), when no call was made,
// or the failure that opened the breaker or failed its probe, which the
// error still carries.
var ErrWaiting = failure.ErrWaiting

// Error is the failure Do gave up on: the last failure (or the closed gate)
// with its classification, the policy's last decision and the calls made.
// When the item was handed to the fetch queue, MessageID is its message.
type Error struct {
	// Err is the last failure, or the wait of a closed gate.
	Err error
	// Classification is what the failure means; the zero value when Err is
	// a closed gate's refusal (it matches ErrWaiting and carries no
	// failure).
	Classification Classification
	// Decision is the policy's decision about Err: a DeadLetter, or a
	// Retry or Wait that does not end before the caller's deadline, that
	// the worker would park, or whose wait the caller's context ended (the
	// Error then also matches ctx's error: errors.Is(err,
	// context.Canceled)).
	Decision Decision
	// Calls counts the calls made; a closed gate makes none.
	Calls int
	// MessageID is the fetch queue's message when the item was handed
	// over; HandoffErr why a hand-off failed.
	MessageID  string
	HandoffErr error

	// ended is ctx's error when the caller's context ended the call.
	ended error
}

// Error says the class, the decision and the hand-off; the failure's own
// text follows (it is the upstream's: redact it before a log).
func (e *Error) Error() string {
	reason := e.Decision.Reason()
	if w, ok := e.Decision.(policy.Wait); ok {
		// The wait's reason is the failure's own text, which follows.
		w.Why = ""
		reason = w.Reason()
	}
	calls := " calls: "
	if e.Calls == 1 {
		calls = " call: "
	}
	s := "gave up after " + strconv.Itoa(e.Calls) + calls + reason
	if e.ended != nil && !errors.Is(e.Err, e.ended) {
		s += "; " + e.ended.Error()
	}
	switch {
	case e.MessageID != "":
		s += "; handed to the fetch queue as message " + e.MessageID
	case e.HandoffErr != nil:
		s += "; hand-off to the fetch queue failed: " + e.HandoffErr.Error()
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the failure.
func (e *Error) Unwrap() error { return e.Err }

// Is matches ErrQueued when the item was handed to the fetch queue, and
// ctx's error when the caller's context ended the call.
func (e *Error) Is(target error) bool {
	return target == ErrQueued && e.MessageID != "" || e.ended != nil && errors.Is(e.ended, target)
}

// Do runs fn and, when it fails, asks the policy what to do, as the worker
// path does for a stage (docs/design.md "The decision table"):
//
//   - before each call the model's health, the service's circuit breaker
//     and the day's budget are checked; a closed gate makes no call;
//   - fn's error is classified once; its outcome feeds the breaker and the
//     model's health;
//   - a Retry, or a Wait for a plain due time, is waited out here, on the
//     Clock, when it ends before ctx's deadline and the worker would hold it
//     in its queue rather than park it (policy.Holding);
//   - anything else gives up: a DeadLetter returns the classified *Error;
//     a wait behind a gate or past the deadline hands the item (ForItem) to
//     the fetch queue when the Config has one (the *Error then matches
//     ErrQueued), and returns the *Error otherwise.
//
// fn gets ctx; Do never extends the caller's deadline. It returns nil when
// a call succeeds, and ctx's error, calling nothing, when ctx is already
// done.
func (c *Client) Do(ctx context.Context, fn func(context.Context) error, opts ...CallOption) error {
	cl := call{cost: c.cost}
	for _, o := range opts {
		o(&cl)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.health != nil && cl.model != "" && cl.itemID() == "" {
		cl.name = "inline:" + dynamo.NewToken()
	}
	var (
		spent, calls int
		suspect      *store.Suspect
	)
	// Each round is a delivery in the worker's terms: a call, or a refusal
	// by a closed gate. The policy's holding rule bounds the rounds a wait
	// that spends no attempt may take (policy.Holding.Park).
	for rounds := 1; ; rounds++ {
		called, err := c.once(ctx, cl, fn, &suspect)
		if called {
			calls++
		}
		if err == nil {
			return nil
		}
		now := c.clock.Now()
		dec := decide(c.profile, facts{stage: c.stage, err: err, attempt: spent + 1, now: now, rand: c.rand})
		if cl.single && calls > 0 {
			return c.giveUp(ctx, cl, err, dec, calls)
		}
		if d, ok := c.holds(ctx, dec, now, rounds); ok && c.clock.Sleep(ctx, d) == nil {
			if dec.Counts() {
				spent++
			}
			continue
		}
		return c.giveUp(ctx, cl, err, dec, calls)
	}
}

// holds returns how long to wait for dec, and whether Do waits it out.
func (c *Client) holds(ctx context.Context, dec Decision, now time.Time, rounds int) (time.Duration, bool) {
	var d time.Duration
	switch x := dec.(type) {
	case policy.Retry:
		d = x.Delay
	case policy.Wait:
		d = x.Until.Sub(now)
	default:
		return 0, false
	}
	if deadline, ok := ctx.Deadline(); ok && !now.Add(d).Before(deadline) {
		return d, false
	}
	return d, ctx.Err() == nil && holdsInProcess(dec, d, rounds)
}

// once checks the gates, makes one call and feeds its outcome to them. The
// error is the call's, a closed gate's wait, or the breaker's verdict in
// place of the call's failure (a wait behind it, a quota's gate); called
// is false when a gate kept the call back.
func (c *Client) once(ctx context.Context, cl call, fn func(context.Context) error, suspect **store.Suspect) (called bool, err error) {
	if err := c.modelGate(ctx, cl.model); err != nil {
		return false, err
	}
	var t breaker.Ticket
	if c.breakers != nil && cl.service != "" {
		if t, err = c.breakers.Allow(ctx, cl.service); err != nil {
			return false, err
		}
		t.Suspect = *suspect
	}
	if c.budget != nil {
		// Every call asks the day, as the workers' do: a free estimate is
		// charged the least amount (budget.ChargeCost), and refused once
		// the day is spent.
		if err := c.budget.ChargeCost(ctx, c.clock.Now(), cl.cost); err != nil {
			// Neutral for the breaker, as in the llm stage's chain: the
			// upstream was not called; a probe's lease goes to the next
			// caller.
			c.done(ctx, t, &failure.WaitError{Reason: "the budget was not charged: the upstream was not called"})
			return false, err
		}
	}
	finished := false
	defer func() {
		if !finished { // fn panicked: release a probe's lease, then let the panic go on
			c.done(ctx, t, &failure.WaitError{Reason: "the call panicked"})
		}
	}()
	err = failure.Mark(fn(ctx))
	finished = true
	if v := c.done(ctx, t, err); v != nil {
		// The outage's or the quota's, not the model's, as in the llm
		// stage's chain: the item waits behind the breaker, and the
		// model's health records nothing.
		if s := store.SuspectOf(v); s != nil {
			*suspect = s
		}
		if err != nil && !errors.Is(v, err) {
			v = &gateAfter{gate: v, call: err}
		}
		return true, v
	}
	if c.health != nil && cl.model != "" {
		if err == nil {
			_ = c.health.RecordSuccess(ctx, cl.model) // bookkeeping: never the call's outcome
		} else {
			_, _ = c.health.RecordFailure(ctx, cl.model, cl.itemID(), failure.Classify(err))
		}
	}
	return true, err
}

// gateAfter is the breaker's state in place of the call's failure (the
// failure that opened it, a failed probe): a wait behind the breaker's gate
// that still carries the failure, the upstream's answer.
type gateAfter struct {
	gate, call error
}

func (g *gateAfter) Error() string   { return g.gate.Error() + ": " + g.call.Error() }
func (g *gateAfter) Unwrap() []error { return []error{g.gate, g.call} }

func (c *Client) done(ctx context.Context, t breaker.Ticket, err error) error {
	if c.breakers == nil {
		return nil
	}
	return c.breakers.Done(ctx, t, err)
}

// modelGate is the wait behind a disabled model, as the llm stage's chain
// reports a chain with no usable model: until the recovery may re-enable
// it, or with no time (the policy's NoModelWait) when none is expected — an
// operator disabled it, or its recovery is overdue. A store that cannot be
// read lets the call go ahead, as the chain does.
func (c *Client) modelGate(ctx context.Context, model string) error {
	if c.health == nil || model == "" {
		return nil
	}
	m, err := c.health.Status(ctx, model)
	if err != nil || !m.Disabled {
		return nil
	}
	now := c.clock.Now()
	until, _ := m.ExpectedRecovery(health.DefaultCooldown)
	if !until.After(now) {
		until = time.Time{}
	}
	return &policy.Closed{Gate: gates.New(gates.Models, model), State: policy.GateNoModel, Until: until, At: now,
		Why: "model " + model + " is disabled (" + m.DisableReason + ")"}
}

// giveUp returns the classified failure, after handing the item to the
// fetch queue when the policy would still try it (a Retry or a Wait the
// inline path does not wait out). The hand-off outlives the caller's
// cancellation — an item given up on must not be lost — and is bounded by
// the producer's own attempts and by policy.InlineHandoff on the client's
// clock, so that a connection that never answers does not hold Do.
func (c *Client) giveUp(ctx context.Context, cl call, err error, dec Decision, calls int) error {
	e := &Error{Err: err, Decision: dec, Calls: calls, ended: ctx.Err()}
	var after *gateAfter
	switch {
	case errors.As(err, &after):
		e.Classification = failure.Classify(after.call)
	case !errors.Is(err, ErrWaiting):
		e.Classification = failure.Classify(err)
	}
	if _, dead := dec.(policy.DeadLetter); dead || c.producer == nil || cl.item == nil {
		return e
	}
	res, serr := c.handOff(ctx, *cl.item)
	e.MessageID, e.HandoffErr = res.MessageID, serr
	return e
}

// handOff submits item to the fetch queue on a context that outlives ctx's
// cancellation and ends policy.InlineHandoff after the client's now: a
// deadline on the client's clock, as Do reads the caller's.
func (c *Client) handOff(ctx context.Context, item Item) (intake.Result, error) {
	hctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), c.clock.Now().Add(policy.InlineHandoff))
	defer cancel()
	res, err := c.producer.Submit(hctx, item)
	if err != nil && hctx.Err() != nil {
		err = fmt.Errorf("triage: the hand-off to the fetch queue took longer than %s: %w", policy.InlineHandoff, err)
	}
	return res, err
}

// itemID is the item the call works for, for the model's health: the
// ForItem's id, else the call's own name, so that one Do's retries count
// once against the model, as one item's do (docs/design.md "Model health").
func (cl call) itemID() string {
	if cl.item == nil || cl.item.ItemID == "" {
		return cl.name
	}
	return cl.item.ItemID
}
