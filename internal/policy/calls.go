package policy

import (
	"time"

	"github.com/triagehq/triage/internal/failure"
)

// CallRow is a row of the policy for work that is not a stage's — an
// owner's notice, a producer's send, the command line's AWS calls: a bound
// on its attempts and the wait between them (docs/design.md "The decision
// table"). Its Decide is the one decision such a delivery makes about a
// failure, as Profile.Decide is a stage's.
type CallRow struct {
	// Name names the row in `triage policy show`.
	Name string
	// For says what the row delivers.
	For string
	// MaxAttempts bounds the attempts, counting the first.
	MaxAttempts int
	// Backoff is the wait after each failed attempt.
	Backoff Exponential
	// MinDelay is the least any wait lasts, however soon the receiver asks
	// or the backoff draws.
	MinDelay time.Duration
	// MaxDelay caps every wait, the receiver's requested delay included;
	// zero leaves the backoff's own cap.
	MaxDelay time.Duration
	// HonoursRequested lets the receiver's requested delay (Retry-After)
	// lengthen a wait, up to MaxDelay.
	HonoursRequested bool
	// StoreRetry is the wait of a delivery whose bookkeeping (a ledger or
	// item read, an outcome write) failed: soon, but not hot. Zero: none.
	StoreRetry time.Duration
}

// CallInput is everything a CallRow's decision depends on.
type CallInput struct {
	// Attempt is the 1-based attempt that just failed.
	Attempt int
	// Failure is its classified failure.
	Failure failure.Classification
	// Now is the current time (a requested delay may be a date).
	Now time.Time
	// Rand returns a number in [0, 1) for jitter; it is called once, and
	// only for a retry. Nil uses the largest delay in the range.
	Rand func() float64
}

// Decide is the delivery's decision on one failed attempt: a DeadLetter
// when the failure is permanent (Exhausted false) or the attempt was the
// last (Exhausted true) — the delivery gives up — or a Retry after the
// backoff's delay, raised to the receiver's requested delay when the row
// honours it, bounded by MinDelay and MaxDelay.
func (d CallRow) Decide(in CallInput) Decision {
	attempt := max(in.Attempt, 1)
	class := in.Failure.Class
	if !in.Failure.Retryable {
		return DeadLetter{Attempt: attempt, MaxAttempts: d.MaxAttempts, Class: class}
	}
	if attempt >= d.MaxAttempts {
		return DeadLetter{Exhausted: true, Attempt: attempt, MaxAttempts: d.MaxAttempts, Class: class}
	}
	r := 1.0
	if in.Rand != nil {
		r = in.Rand()
	}
	lo, hi := d.Backoff.Bounds(attempt)
	delay := d.Backoff.Delay(attempt, r)
	var req time.Duration
	if d.HonoursRequested {
		req = in.Failure.Requested.Resolve(in.Now)
		delay = max(delay, req)
	}
	delay, lo, hi = max(delay, d.MinDelay), max(lo, d.MinDelay), max(hi, d.MinDelay)
	if d.MaxDelay > 0 {
		delay, lo, hi, req = min(delay, d.MaxDelay), min(lo, d.MaxDelay), min(hi, d.MaxDelay), min(req, d.MaxDelay)
	}
	return Retry{Delay: delay, Min: lo, Max: hi, Requested: req, Attempt: attempt, MaxAttempts: d.MaxAttempts, Class: class,
		Backoff: d.Backoff.String()}
}

// Override returns d with an operator's or a test's limits: a positive
// maxAttempts replaces MaxAttempts, a positive initial the backoff's first
// wait, a positive maxDelay the cap on every wait. Zero keeps the row's.
func (d CallRow) Override(maxAttempts int, initial, maxDelay time.Duration) CallRow {
	if maxAttempts > 0 {
		d.MaxAttempts = maxAttempts
	}
	if initial > 0 {
		d.Backoff.Initial = initial
	}
	if maxDelay > 0 {
		d.Backoff.Max, d.MaxDelay = maxDelay, maxDelay
	}
	return d
}

// DefaultNoticeAttempts bounds an owner's notice's delivery attempts,
// counting the first.
const DefaultNoticeAttempts = 5

// Notice is the row of an owner's notice (docs/design.md "Telling the
// owner"): 5 attempts; 30 s tripling to 15 min, ±20% — 30 s, 90 s, 4.5 min,
// 13.5 min, about 20 minutes in all — or the receiver's Retry-After when
// longer, at most 15 min; never less than 1 s. A permanent failure or the
// 5th attempt's abandons the notice. A notice whose ledger or item could
// not be read waits 5 s.
func Notice() CallRow {
	return CallRow{Name: "notice", For: "an owner's notice POSTed to the item's webhook", MaxAttempts: DefaultNoticeAttempts,
		Backoff:  Exponential{Initial: 30 * time.Second, Multiplier: 3, Max: 15 * time.Minute, Jitter: ProportionalJitter, Fraction: 0.2},
		MinDelay: time.Second, MaxDelay: 15 * time.Minute, HonoursRequested: true, StoreRetry: 5 * time.Second}
}

// ProducerSend is the row of a producer's SendMessageBatch entry
// (docs/design.md "Putting work in"): 4 sends; 200 ms doubling to 5 s, full
// jitter. The fetch stage absorbs a duplicate send, so a send whose answer
// was lost is simply sent again.
func ProducerSend() CallRow {
	return CallRow{Name: "producer", For: "an item's send to the fetch queue (SendMessageBatch entry)", MaxAttempts: DefaultProducerAttempts,
		Backoff: Exponential{Initial: 200 * time.Millisecond, Multiplier: 2, Max: 5 * time.Second, Jitter: FullJitter}}
}

// DefaultProducerAttempts bounds the sends of one producer entry, counting
// the first.
const DefaultProducerAttempts = 4

// InlineHandoff bounds the inline path's hand-off of an item to the fetch
// queue (docs/design.md "The inline path"), the producer's sends and the
// waits between them together. The hand-off outlives the caller's
// cancellation, so that an item given up on is not lost; this bound keeps a
// connection that never answers from holding Do past it. The producer's 4
// sends and their waits (1.4 s at the most) take far less against a queue
// that answers.
const InlineHandoff = 10 * time.Second

// CLICalls is the row of the command line's AWS calls, which the SDK's
// standard retryer executes (its MaxAttempts and MaxBackoff are this row's
// MaxAttempts and Backoff.Max): one retry after at most 500 ms — an
// operator waits at the terminal, and a second failure is reported, not
// hidden.
func CLICalls() CallRow {
	return CallRow{Name: "cli", For: "the command line's AWS calls (the SDK's standard retryer)", MaxAttempts: 2,
		Backoff: Exponential{Initial: 500 * time.Millisecond, Multiplier: 2, Max: 500 * time.Millisecond, Jitter: FullJitter}}
}

// ProbeVerdict is the row of a breaker probe's verdict (close, reopen or
// release: one conditional write): 3 operations, each with the SDK's own
// retries, one after the other — a verdict left unwritten holds the
// breaker half-open, every caller waiting, until the probe's lease lapses.
// A lost condition or the caller's deadline ends them.
func ProbeVerdict() CallRow {
	return CallRow{Name: "verdict", For: "a breaker probe's verdict (one conditional write to the breakers table)", MaxAttempts: 3}
}

// CallRows lists every row of work outside the stages, in the order
// `triage policy show` prints them.
func CallRows() []CallRow { return []CallRow{Notice(), ProducerSend(), CLICalls(), ProbeVerdict()} }

// BatchRemainder is the wait before a store's batch read asks again for
// the keys DynamoDB left unprocessed (it throttled part of the batch): 50
// ms more after each round, at most 500 ms; the rounds end when no key is
// left or the caller's context does.
var BatchRemainder = Linear{Initial: 50 * time.Millisecond, Step: 50 * time.Millisecond, Max: 500 * time.Millisecond}

// Exhausted reports whether a delivery that has made attempts is past the
// row's bound before it starts: only a crash loop gets there (every
// attempt's outcome is settled otherwise), and it gives up before any work.
func (d CallRow) Exhausted(attempts int) bool { return attempts > d.MaxAttempts }
