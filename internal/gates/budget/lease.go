package budget

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A Pocket is one Lambda instance's share of the day's budget: the daily
// budget without a hot key. Instead of one conditional update of the day's
// counter per model call, an instance leases a chunk of the day's budget
// with one conditional update (increment-with-limit on the day's "leased"
// total, never past the cap) and spends it locally, one call after another,
// with no write. A chunk is at least Chunk, and more for a busy instance:
// what it spends in LeaseFor at its own rate. When the pocket cannot pay for
// a call it leases again; when less than the call is left to lease, the day
// is spent: the pocket refuses locally and asks again at most every Recheck.
//
// A call is charged its estimate before it (Spend) and corrected to its real
// cost after it (Settle), both in the pocket: a refund stays in it for the
// instance's next calls, an excess is paid from it, and only an excess the
// pocket cannot pay leases — the day's rest, even less than the excess.
//
// The day's leases never add up past the cap, so what the estimates spend
// never exceeds it: the one-chunk bound on overshoot holds with none. The
// only overshoot is a settlement's excess that no lease could pay because
// the day was leased out: the call had happened. The pocket keeps it as a
// debt and refuses every call until a lease pays it back, so the day passes
// the cap by at most the excess of the calls in flight when it ran out
// (TestSettlingPocketsUnderConcurrentInstances). What an instance that stops
// leaves in its pocket is lost in the safe direction: spent on nothing. The
// leases pay for the counters the reports read: each one carries the spend,
// calls and refusals counted since the last.
//
// A pocket serves one instance; it is safe for concurrent use by the
// instance's records.
type Pocket struct {
	// Store keeps the days. Required.
	Store Store
	// Cap is the daily cap.
	Cap Micros
	// Chunk is the least one lease asks for; zero or less means one call's
	// amount.
	Chunk Micros
	// LeaseFor sizes a lease by the instance's own rate: a lease asks for
	// what the pocket spent over the last LeaseFor (measured since its
	// previous lease), when that is more than Chunk. Zero means
	// DefaultLeaseFor; negative leases Chunk alone. However busy an
	// instance is, it then leases about once per LeaseFor, so the day's key
	// takes about one write per instance per LeaseFor.
	LeaseFor time.Duration
	// Recheck is how long a pocket that found the day spent refuses without
	// asking again; zero means DefaultRecheck.
	Recheck time.Duration

	mu        sync.Mutex
	day       string
	left      Micros // leased and not spent; negative: a settlement's debt
	pending   Report // counted and not yet written
	spentOut  bool   // the day's budget is leased out
	recheckAt time.Time
	// spent since leasedAt, the time of the last lease: the rate.
	spent    Micros
	leasedAt time.Time
	// late counts, by stamp (UnixNano), the charges stamped before the
	// pocket's day that it paid (Spend never goes back a day): their
	// settlements are the pocket's day's too. At most maxLate stamps.
	late map[int64]int
}

// maxLate bounds Pocket.late: only the calls in flight at midnight are
// stamped late, unless the clock stepped back a day; a settlement whose
// stamp is not kept goes to its stamp's day.
const maxLate = 1024

// DefaultLeaseFor is Pocket.LeaseFor's default.
const DefaultLeaseFor = 10 * time.Second

// DefaultRecheck is Pocket.Recheck's default. Refused calls wait until the
// next 00:00 UTC anyway; the recheck only lets a cap an operator raised
// through a new deployment, or budget a dying instance's lease never used,
// reach instances that found the day spent.
const DefaultRecheck = time.Minute

// maxLeaseRaces bounds the lease attempts of one charge when other pockets
// keep taking the rest of the day's budget.
const maxLeaseRaces = 8

// Report is what a pocket counted and not yet written.
type Report struct {
	Spend   Micros
	Calls   int64
	Blocked int64
}

func (r Report) zero() bool { return r == Report{} }

// LeaseRequest asks for budget on Day.
type LeaseRequest struct {
	Day string
	// Want is the amount leased if the day allows it; Cap bounds the day's
	// leased total. The lease applies only if leased + Want ≤ Cap.
	Want, Cap Micros
	// Report is added to the day's counters in the same write.
	Report Report
}

// LeaseResult is what a lease attempt found.
type LeaseResult struct {
	// Granted is true when the lease applied (Want was added).
	Granted bool
	// Leased is the day's leased total: after the lease when it applied,
	// as the failed condition saw it otherwise.
	Leased Micros
}

// Store keeps each day's record (*Daily in DynamoDB, *MemoryStore).
type Store interface {
	// Lease adds req.Want to the day's leased total if that keeps it at or
	// under req.Cap, and req.Report to the counters, in one conditional
	// write. A refused lease is Granted false and no error; nothing is
	// written then.
	Lease(ctx context.Context, req LeaseRequest) (LeaseResult, error)
	// Add adds r to the day's counters, unconditionally.
	Add(ctx context.Context, day string, r Report, dailyCap Micros) error
}

// Spend charges amount to now's UTC day (the pocket's, when now is before
// it: the pocket never goes back a day): from the pocket when it holds
// enough, else after leasing another chunk (at least amount and any debt,
// at most what the day has left). It returns Exceeded(), behind the day's
// Gate, when the day's budget cannot pay for the call, and any other error when the budget could
// not be checked (the call must not go ahead either).
func (p *Pocket) Spend(ctx context.Context, now time.Time, amount Micros) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	day := DayKey(now)
	late := day < p.day
	if late {
		// Stamped before another charge moved the pocket past midnight
		// (its caller read the clock first): the call is made now, in the
		// pocket's day; going back would drop that day's lease. Its
		// settlement, which carries the same stamp, follows it there
		// (paid).
		day = p.day
	}
	if day != p.day {
		if err := p.newDay(ctx, day); err != nil {
			return err
		}
	}
	if amount > p.Cap {
		p.pending.Blocked++
		return exceeded(day)
	}
	if p.left >= amount {
		p.paid(now, amount, late)
		return nil
	}
	if p.spentOut && now.Before(p.recheckAt) {
		p.pending.Blocked++
		return exceeded(day)
	}
	ok, err := p.lease(ctx, now, amount-p.left, false)
	if err != nil {
		return err
	}
	if ok {
		p.paid(now, amount, late)
		return nil
	}
	p.spentOut, p.recheckAt = true, now.Add(p.recheck())
	p.pending.Blocked++
	// The refused lease wrote nothing; the counters go in one write now,
	// and at most once per Recheck after.
	if err := p.Store.Add(ctx, day, p.pending, p.Cap); err == nil {
		p.pending = Report{}
	}
	return exceeded(day)
}

// lease leases at least need (more: Chunk, or what the instance spends in
// LeaseFor) on the pocket's day, never past the cap, and reports whether
// the pocket now holds need. When the day has less than that left, a
// partial lease takes the rest anyway (a settlement's excess: the money is
// spent, and leasing it makes other pockets refuse sooner); otherwise
// nothing is taken. The lease carries the pocket's counters.
func (p *Pocket) lease(ctx context.Context, now time.Time, need Micros, partial bool) (bool, error) {
	want := min(max(p.Chunk, need, p.byRate(now)), p.Cap)
	for range maxLeaseRaces {
		res, err := p.Store.Lease(ctx, LeaseRequest{Day: p.day, Want: want, Cap: p.Cap, Report: p.pending})
		if err != nil {
			return false, fmt.Errorf("lease from the %s budget: %w", p.day, err)
		}
		if res.Granted {
			p.pending, p.left = Report{}, p.left+want
			p.spent, p.leasedAt = 0, now
			if want >= need {
				p.spentOut = false
				return true, nil
			}
			return false, nil
		}
		// Less than want is left: take what is, if it pays for the need or
		// the lease is partial.
		rest := p.Cap - res.Leased
		if rest <= 0 || (rest < need && !partial) {
			break
		}
		want = rest
	}
	return false, nil
}

// Settle corrects a charge made at charged by delta: the call's real cost
// (its tokens at the model's price) less the estimate Spend charged. A
// refund (delta < 0) goes back into the pocket, for the instance's next
// calls; an excess is paid from the pocket, and what the pocket cannot pay
// is leased (partially if the day has less left). What no lease pays stays
// in the pocket as a debt — the call happened, so the day passes its cap by
// that much — and the pocket refuses every call until a lease has paid it
// back (the next Spend's lease asks for the call and the debt). A charge is
// settled on the day it was paid from: a charge of a day the pocket has
// left (a call across midnight) is added to that day's counters, and one
// stamped before the pocket's day that Spend paid from it (stamped late) is
// settled in the pocket. No write unless a lease or that day's counters
// need one.
func (p *Pocket) Settle(ctx context.Context, charged time.Time, delta Micros) error {
	if delta == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	day := DayKey(charged)
	if stamp := charged.UnixNano(); day < p.day && p.late[stamp] > 0 {
		p.late[stamp]--
		if p.late[stamp] == 0 {
			delete(p.late, stamp)
		}
		day = p.day
	}
	if day != p.day {
		if err := p.Store.Add(ctx, day, Report{Spend: delta}, p.Cap); err != nil {
			return fmt.Errorf("settle the %s budget: %w", day, err)
		}
		return nil
	}
	p.left -= delta
	p.spent = max(p.spent+delta, 0)
	p.pending.Spend += delta
	if p.left >= 0 || (p.spentOut && charged.Before(p.recheckAt)) {
		return nil
	}
	ok, err := p.lease(ctx, charged, -p.left, true)
	if err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	if !ok {
		p.spentOut, p.recheckAt = true, charged.Add(p.recheck())
	}
	return nil
}

// paid pays a charge stamped at stamp from the pocket; a late one (stamped
// before the pocket's day) is remembered, for its settlement.
func (p *Pocket) paid(stamp time.Time, amount Micros, late bool) {
	p.pay(amount)
	if late && len(p.late) < maxLate {
		if p.late == nil {
			p.late = map[int64]int{}
		}
		p.late[stamp.UnixNano()]++
	}
}

func (p *Pocket) pay(amount Micros) {
	p.left -= amount
	p.spent += amount
	p.pending.Spend += amount
	p.pending.Calls++
}

// byRate is what the pocket spent over the last LeaseFor at the rate it
// spent since its last lease (0 before a second lease, or when the rate is
// not known).
func (p *Pocket) byRate(now time.Time) Micros {
	d := p.LeaseFor
	if d == 0 {
		d = DefaultLeaseFor
	}
	since := now.Sub(p.leasedAt)
	if d < 0 || p.leasedAt.IsZero() || since <= 0 {
		return 0
	}
	return Micros(float64(p.spent) * float64(d) / float64(since))
}

// newDay drops the old day's pocket (what is left of it can no longer be
// spent) after writing its counters.
func (p *Pocket) newDay(ctx context.Context, day string) error {
	if p.day != "" && !p.pending.zero() {
		if err := p.Store.Add(ctx, p.day, p.pending, p.Cap); err != nil {
			return fmt.Errorf("report the %s budget: %w", p.day, err)
		}
	}
	p.day, p.left, p.pending, p.spentOut = day, 0, Report{}, false
	p.spent, p.leasedAt, p.late = 0, time.Time{}, nil
	return nil
}

// Flush writes the counters the pocket holds (tests, tools; the llm stage
// lets the next lease carry them).
func (p *Pocket) Flush(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.day == "" || p.pending.zero() {
		return nil
	}
	if err := p.Store.Add(ctx, p.day, p.pending, p.Cap); err != nil {
		return err
	}
	p.pending = Report{}
	return nil
}

// Unreported returns what the pocket counted on day and has not written.
func (p *Pocket) Unreported(day string) Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	if day != p.day {
		return Report{}
	}
	return p.pending
}

// Left returns what the pocket holds for the current day.
func (p *Pocket) Left() Micros {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.left
}

func (p *Pocket) recheck() time.Duration {
	if p.Recheck <= 0 {
		return DefaultRecheck
	}
	return p.Recheck
}

// withPending returns d with what pocket p counted on d's day and has not
// written: a reader in the same process sees its own charges at once.
func withPending(d Day, p *Pocket) Day {
	r := p.Unreported(d.Day)
	if r.zero() {
		return d
	}
	d.Spend += r.Spend
	d.Calls += r.Calls
	d.Blocked += r.Blocked
	if d.Cap == 0 {
		d.Cap = p.Cap
	}
	return d
}
