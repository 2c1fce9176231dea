package policy

import (
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// Unusable is the decision on a message that names no usable item — a
// malformed body, an unknown item, a spec that conflicts with its item:
// no retry can make it usable, whatever its class, so it is dead-lettered
// at once, its first attempt its last (docs/design.md "Dead letters").
func Unusable(class work.Class) DeadLetter {
	return DeadLetter{Attempt: 1, MaxAttempts: 1, Class: class}
}

// Replayed is what Escalated reads of an item: how often an operator
// replayed it, and the stage and class of its last dead letter (empty when
// it has none).
type Replayed struct {
	Replays int
	Stage   work.Stage
	Class   work.Class
}

// Escalated reports whether a failure of a replayed item is escalated in its
// dead letter (docs/design.md "The decision table"): it failed again at the
// stage, with the class, it was dead-lettered with, and no retry can fix
// that class — the replay changed nothing, and the next one would not
// either.
func Escalated(prior Replayed, stage work.Stage, cl failure.Classification) bool {
	return prior.Replays > 0 && !cl.Retryable && prior.Stage == stage && prior.Class == cl.Class
}

// NoticeGiveUpMargin is how many receives short of the queue's redrive
// backstop a record whose owner's item.failed notice could not be enqueued
// gives the notice up: the dead letter is durable, and the backstop must
// never move the record to the DLQ as a raw message.
const NoticeGiveUpMargin = 2

// GivesUpNotice reports whether a record received receives times gives up
// enqueueing its owner's item.failed notice (NoticeGiveUpMargin); with no
// backstop it never does.
func (h Holding) GivesUpNotice(receives int) bool {
	return h.BackstopReceives > 0 && receives >= h.BackstopReceives-NoticeGiveUpMargin
}

// DrainIntervals is how many scheduler intervals a gate's draining mark
// lasts: new callers queue behind the gate while it drains a backlog, and
// the next run renews the mark while it could not release every waiter; a
// run that empties the gate lets it lapse (docs/design.md "Waits and
// parking").
const DrainIntervals = 2

// MaxReleaseDelay is the longest delay a released waiter's send carries:
// SQS's limit on DelaySeconds (15 minutes).
const MaxReleaseDelay = 15 * time.Minute

// DrainUntil is when a draining mark set at now lapses, the scheduler
// running every interval.
func DrainUntil(now time.Time, interval time.Duration) time.Time {
	return now.Add(DrainIntervals * interval)
}

// ReleaseDelay is the send delay of the i-th of n waiters a gate releases
// in one run: the sends spread evenly over the interval, each at most
// MaxReleaseDelay.
func ReleaseDelay(i, n int, interval time.Duration) time.Duration {
	if n <= 0 {
		return 0
	}
	return min(time.Duration(i)*interval/time.Duration(n), MaxReleaseDelay)
}
