package policy

import "time"

// Defaults of Holding.
const (
	// MaxVisibility is the longest wait SQS can hold a message for: 12
	// hours from receipt, less a margin for the time since the receive.
	// Longer waits are parked for the scheduler.
	MaxVisibility = 12*time.Hour - 15*time.Minute
	// DefaultParkAfter is the longest wait held through SQS visibility;
	// longer ones are parked. Two minutes: a wait that long costs the
	// scheduler's minute of latency at most half of itself, and a parked
	// wait costs a constant number of writes whatever its length, where
	// each visibility round costs a claim and a release.
	DefaultParkAfter = 2 * time.Minute
	// DefaultParkAfterReceives parks a wait (an attempt-free hold) once its
	// message has been received this many times: the receive count of a
	// waiting message stays far from the redrive backstop whatever the
	// outage's length.
	DefaultParkAfterReceives = 3
	// ResendDelay is the least visibility of a record whose outcome could
	// not be made durable (Holding.Unrecorded backs off above it): it comes
	// back soon, but not hot, and is decided again.
	ResendDelay = 2 * time.Second
)

// Holding decides how a record waits (docs/design.md "Waits and parking"):
// held in its queue through SQS visibility, or parked for the scheduler.
// The zero value holds the defaults.
type Holding struct {
	// MaxVisibility caps waits held through visibility; zero (or more than
	// MaxVisibility) is MaxVisibility.
	MaxVisibility time.Duration
	// ParkAfter is the longest wait held through visibility; zero is
	// DefaultParkAfter.
	ParkAfter time.Duration
	// ParkAfterReceives parks a hold that spends no attempt once its
	// message has been received this many times; zero is
	// DefaultParkAfterReceives.
	ParkAfterReceives int
	// BackstopReceives is the maxReceiveCount of the queue's redrive
	// policy: a hold at receive count BackstopReceives-1 or more is parked,
	// so the backstop never moves an item triage is deliberately retrying.
	// Zero means no backstop.
	BackstopReceives int
	// StoreOutageTolerance overrides the package's StoreOutageTolerance
	// (zero keeps it): the soak compresses it with the rest of its time.
	StoreOutageTolerance time.Duration
}

// Park reports whether a hold of delay, on a message received receives
// times, is parked. A wait behind a gate (onGate) is parked however short it
// looks: a gate's waiters are a queue the scheduler releases in order and at
// a pace — held through visibility they would all come back the moment the
// gate opens, together, and meet its upstream at once. Any other wait goes
// through visibility while it is short (at most ParkAfter) and the message
// far from the backstop, and is parked when it is longer than that or than
// SQS can hold, when the backstop's receive count is near, or — for a hold
// that spends no attempt (counts false) — once the message has been
// received ParkAfterReceives times.
func (h Holding) Park(delay time.Duration, receives int, counts, onGate bool) bool {
	switch {
	case onGate, delay > h.Visibility(), delay > h.parkAfter():
		return true
	case h.BackstopReceives > 0 && receives >= h.BackstopReceives-1:
		return true
	case !counts && receives >= h.parkAfterReceives():
		return true
	}
	return false
}

// StoreOutageTolerance is the outage of the store (DynamoDB unreachable,
// throttled, timing out) that a record whose outcome could not be written
// outlasts in its queue: whatever the queue's redrive backstop (the
// template allows 5 receives and more), the deliveries before its last are
// spread over at least this long, so its last delivery comes after the
// outage and the backstop never moves a record for a store outage this
// short. With the template's default backstop (50 receives) the backoff
// alone spans about 1 h 45 min. A longer outage ends with the record in the
// DLQ as a backstop message, whose item replay finds in its stage
// (docs/design.md "Waits and parking").
const StoreOutageTolerance = 15 * time.Minute

// unrecorded is the backoff of a record whose outcome could not be written:
// its base on the message's receive count, each delay drawn from [base/2,
// base] (equal jitter), so that a run of receives has a floor — full
// jitter's can be close to zero, and seven receives of 1 s doubling spent
// 18 s of a minute-long stall of the store before the backstop took the
// record.
var unrecorded = Exponential{Initial: 2 * time.Second, Multiplier: 2, Max: 5 * time.Minute}

// Unrecorded is how long a record whose outcome could not be written (the
// store unreachable at its claim or its outcome, a dead letter's hand-off
// unconfirmed, the owner's notice unsent) stays in its queue before its
// next delivery: exponential on its receive count (r in [0, 1) draws from
// [base/2, base]), so redeliveries back off, and nothing counts — nothing
// was recorded. On the delivery before the backstop's last (receive count
// BackstopReceives−1) the hold is stretched so that the deliveries so far
// and this hold together span StoreOutageTolerance at the least: the last
// delivery is the backstop's, and it comes after the outage the policy
// tolerates.
func (h Holding) Unrecorded(receives int, r float64) time.Duration {
	receives = max(receives, 1)
	base := unrecorded.Base(receives)
	d := base/2 + time.Duration(float64(base-base/2)*min(max(r, 0), 1))
	if h.BackstopReceives > 0 && receives == h.BackstopReceives-1 {
		// The least the earlier holds took: each at least half its base.
		var spent time.Duration
		for n := 1; n < receives; n++ {
			spent += unrecorded.Base(n) / 2
		}
		d = max(d, h.storeOutageTolerance()-spent)
	}
	return min(d, h.Visibility())
}

// UnrecordedBackoff describes Unrecorded's schedule.
func (h Holding) UnrecordedBackoff() string {
	return unrecorded.String() + " (each hold from half its base to its base; the one before the backstop's last delivery" +
		" stretched so that the holds span " + h.storeOutageTolerance().String() + ")"
}

// Visibility is the longest wait held through SQS visibility.
func (h Holding) Visibility() time.Duration {
	if h.MaxVisibility > 0 {
		return min(h.MaxVisibility, MaxVisibility)
	}
	return MaxVisibility
}

// Parked reports whether an item that waits delay more, with no message
// carrying it, is parked: its wait is longer than any hold through
// visibility, so the scheduler holds it.
func (h Holding) Parked(delay time.Duration) bool { return delay > h.parkAfter() }

func (h Holding) parkAfter() time.Duration {
	if h.ParkAfter > 0 {
		return h.ParkAfter
	}
	return DefaultParkAfter
}

func (h Holding) storeOutageTolerance() time.Duration {
	if h.StoreOutageTolerance > 0 {
		return h.StoreOutageTolerance
	}
	return StoreOutageTolerance
}

func (h Holding) parkAfterReceives() int {
	if h.ParkAfterReceives > 0 {
		return h.ParkAfterReceives
	}
	return DefaultParkAfterReceives
}
