package breaker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Metrics receives counters; runner.Metrics and *telemetry.EMF satisfy it.
type Metrics = telemetry.Counter

// Metric names Breakers counts, with its Stage (the service goes to the
// logs only: article hosts are unbounded, metric dimensions must not be).
const (
	// MetricBreakerOpens counts closed → open and failed probes (class: the
	// failure that opened it).
	MetricBreakerOpens = "BreakerOpens"
	// MetricBreakerCloses counts successful probes.
	MetricBreakerCloses = "BreakerCloses"
	// MetricBreakerProbes counts probe leases won.
	MetricBreakerProbes = "BreakerProbes"
	// MetricBreakerRejects counts calls refused while open or probing.
	MetricBreakerRejects = "BreakerRejects"
	// MetricPoisonFailures counts provider-wide failures judged their
	// item's own (class: the failure's), which the breaker did not count.
	MetricPoisonFailures = "PoisonFailures"
)

// OutcomeOf judges a call's error by the effect the decision table gives
// its class in stage (policy.Profile.Breaker; p nil is policy.Standard()): a
// success is the service answering, and a wait is silent — a closed gate
// says nothing about the service.
func OutcomeOf(err error, p *policy.Profile, stage work.Stage) policy.BreakerEffect {
	switch {
	case err == nil:
		return policy.Answered
	case errors.Is(err, failure.ErrWaiting):
		return policy.Silent
	case p == nil:
		p = standard
	}
	return p.Breaker(stage, failure.Classify(err))
}

// standard is the profile of a Breakers without one; never modified.
var standard = policy.Standard()

// Ticket is a permission to call a service, returned by Allow and handed
// back to Done.
type Ticket struct {
	// Service is the upstream; empty means unguarded (Done does nothing).
	Service string
	// Probe is true when this call is the half-open probe.
	Probe bool
	// Generation is the breaker's window the call starts in; Done counts
	// its outcome only in that window.
	Generation int64
	// Suspect is the calling item's run of provider-wide failures
	// (store.Item.Suspect), set by the caller before Done: with the
	// breaker's record it is the evidence Done judges a failure that may
	// follow the item by (docs/design.md "A failure that follows one
	// item"). Nil is an item with none.
	Suspect *store.Suspect

	owner string
	// answered is when the upstream last answered someone as the breaker's
	// record said when the ticket was issued (AnsweredAt); reopens the
	// record's failed probes in a row (for a probe's next window).
	answered time.Time
	reopens  int
}

// Breakers is the shared circuit breaker of every upstream service, for one
// process: Store plus the rules, and a short cache of each service's record.
// Build one per process and share it; it is safe for concurrent use. The
// zero values of its optional fields are the package defaults.
type Breakers struct {
	// Store holds the breakers. Required.
	Store Store
	// Clock tells the time; nil means the wall clock.
	Clock clock.Clock
	// Stage is the metrics dimension of this process's counters.
	Stage work.Stage
	// Threshold, OpenFor, ProbeLease, CacheTTL, QuotaOpenFor: see the
	// Default constants. A negative CacheTTL disables the cache.
	Threshold    int
	OpenFor      time.Duration
	ProbeLease   time.Duration
	CacheTTL     time.Duration
	QuotaOpenFor time.Duration
	// Profile is the decision table whose breaker column (in Stage) says
	// what each failure tells a breaker; nil means policy.Standard().
	Profile *policy.Profile
	// NewOwner names probe owners; nil means NewOwner.
	NewOwner func() string
	// Log receives transitions; nil discards them.
	Log *slog.Logger
	// Metrics receives the Metric counters; nil discards them.
	Metrics Metrics

	cache dynamo.Cache[Record]
	// streak is this process's own run of outage failures per service
	// since its last success there (see Done).
	streak dynamo.Streaks
}

// AllowReleased is Allow for a call whose item a gate's ramp released
// (released is that gate; empty: no gate released it, plain Allow): it
// goes ahead while the breaker is closed, even while the service is
// draining — it is the drain, paced by the gate's ramp, which the runner
// tells of the congestion a released call meets.
func (b *Breakers) AllowReleased(ctx context.Context, service string, released gates.Name) (Ticket, error) {
	t, _, err := b.allow(ctx, service, released != "", "")
	return t, err
}

// Allow decides whether a call to service may go ahead. While the service
// is draining a gate's waiters (Record.DrainingUntil), a new call waits
// behind that gate too, so the backlog goes first, at the ramp's rate,
// and new items do not compete with it for the service's rate. It returns
// the breaker's state, a *policy.Closed (match with errors.Is(err,
// failure.ErrWaiting)), while the breaker is open — until it may be probed
// — or while another caller's probe is in flight (until the probe's lease
// ends, when known): the policy decides the caller's wait
// (policy.Profile.Reopens). When an open breaker may be
// probed, exactly one caller across all processes wins the probe lease and
// gets a Ticket with Probe set. A store that cannot be read fails open: the
// call goes ahead, and the error is logged.
func (b *Breakers) Allow(ctx context.Context, service string) (Ticket, error) {
	t, _, err := b.allow(ctx, service, false, "")
	return t, err
}

// allow is Allow, returning the record it decided on too. lease is the
// probe lease the call carries (AllowProbe), if any.
func (b *Breakers) allow(ctx context.Context, service string, released bool, lease string) (Ticket, Record, error) {
	if service == "" {
		return Ticket{}, Record{}, nil
	}
	now := b.now()
	rec, ok := b.cached(service, now, true)
	if !ok {
		r, err := b.Store.Get(ctx, service)
		switch {
		case errors.Is(err, ErrNotFound):
			r = Record{Service: service, State: Closed}
		case err != nil:
			b.logger().WarnContext(ctx, "breaker unreadable; allowing the call", "service", service, "error", err.Error())
			return Ticket{Service: service}, Record{}, nil
		}
		b.remember(r, now)
		rec = r
	}
	if !released && (rec.State == Closed || rec.State == "") && rec.DrainingUntil.After(now) && rec.DrainingGate != "" {
		// A queue, not a pause: the wait names no time it will end at
		// (the ramp decides), so the runner parks the item behind the
		// gate rather than holding it through visibility.
		b.count(MetricBreakerRejects, "")
		return Ticket{}, rec, &policy.Closed{Gate: rec.DrainingGate, State: policy.GateDraining, At: now,
			Until: rec.DrainingUntil.Add(orDefault(b.OpenFor, DefaultOpenFor)),
			Why:   service + " is draining " + string(rec.DrainingGate) + "'s waiters: queued behind them"}
	}
	t, err := b.decide(ctx, service, rec, now, true, lease)
	return t, rec, err
}

// AllowProbe is Allow for a call that carries a probe lease someone else
// took for it — the scheduler, which takes the lease of a breaker whose
// waiters are all parked and releases one of them as the probe (token is
// the lease's owner, sent with the item). If the breaker is half-open under
// that lease (a fresh read: the cache may be older than the lease), the
// call is the probe; otherwise it is decided as Allow decides — the read
// may predate the lease (it is eventually consistent), so a lost attempt
// at the lease that finds it held under token makes the call the probe too.
func (b *Breakers) AllowProbe(ctx context.Context, service, token string) (Ticket, error) {
	if service == "" || token == "" {
		return b.Allow(ctx, service)
	}
	now := b.now()
	r, err := b.Store.Get(ctx, service)
	if err == nil {
		b.remember(r, now)
		if r.State == HalfOpen && r.ProbeOwner == token && r.ProbeUntil.After(now) {
			b.logger().InfoContext(ctx, "breaker half-open: this call is the probe the scheduler released", "service", service,
				"opens", r.Opens, "probe_until", r.ProbeUntil.Format(time.RFC3339))
			return Ticket{Service: service, Probe: true, Generation: r.Generation, owner: token, answered: AnsweredAt(r), reopens: r.Reopens}, nil
		}
	}
	t, _, err := b.allow(ctx, service, false, token)
	return t, err
}

func (b *Breakers) decide(ctx context.Context, service string, rec Record, now time.Time, mayProbe bool, lease string) (Ticket, error) {
	switch {
	case rec.State == Closed || rec.State == "":
		return Ticket{Service: service, Generation: rec.Generation, answered: AnsweredAt(rec)}, nil
	case rec.State == Open && rec.OpenUntil.After(now):
		return Ticket{}, b.reject(service, rec, policy.GateOpen, rec.OpenUntil, now)
	case rec.State == HalfOpen && rec.ProbeUntil.After(now), !mayProbe:
		return Ticket{}, b.reject(service, rec, policy.GateProbing, probeUntil(rec), now)
	}
	owner := b.newOwner()
	r, err := b.Store.AcquireProbe(ctx, ProbeRequest{Service: service, Owner: owner, Now: now, Lease: b.ProbeLease})
	if err == nil {
		b.remember(r, now)
		b.count(MetricBreakerProbes, "")
		b.logger().InfoContext(ctx, "breaker half-open: this call is the probe", "service", service, "opens", r.Opens,
			"probe_until", r.ProbeUntil.Format(time.RFC3339))
		return Ticket{Service: service, Probe: true, Generation: r.Generation, owner: owner, answered: AnsweredAt(r), reopens: r.Reopens}, nil
	}
	var ce *ConflictError
	if errors.As(err, &ce) && ce.Current != nil {
		// Another caller won the lease, or a probe already ended — or the
		// lease is the one this call carries, which its read did not show.
		cur := *ce.Current
		b.remember(cur, now)
		if lease != "" && cur.State == HalfOpen && cur.ProbeOwner == lease && cur.ProbeUntil.After(now) {
			return Ticket{Service: service, Probe: true, Generation: cur.Generation, owner: lease, answered: AnsweredAt(cur), reopens: cur.Reopens}, nil
		}
		return b.decide(ctx, service, cur, now, false, "")
	}
	b.forget(service)
	b.logger().WarnContext(ctx, "breaker probe lease unavailable; waiting", "service", service, "error", err.Error())
	return Ticket{}, b.reject(service, rec, policy.GateProbing, time.Time{}, now)
}

// probeUntil is the end of the probe lease of a half-open rec; zero when rec
// is not half-open.
func probeUntil(rec Record) time.Time {
	if rec.State == HalfOpen {
		return rec.ProbeUntil
	}
	return time.Time{}
}

// reject refuses a call while rec is open or probing: the breaker's state
// (st, until `until`, seen at now) behind its gate (GateOf).
func (b *Breakers) reject(service string, rec Record, st policy.GateState, until, now time.Time) error {
	b.count(MetricBreakerRejects, "")
	rec.Service = service
	reason := "circuit breaker " + string(rec.State) + " for " + service
	if rec.LastErrorType == work.BudgetExceeded {
		reason += " (the provider's quota is exhausted)"
	}
	if rec.State == HalfOpen {
		reason += " (another caller is probing)"
	}
	return &policy.Closed{Gate: GateOf(rec), State: st, Until: until, At: now, Why: reason}
}

// Done records the outcome of the call t allowed (see OutcomeOf; a call
// whose ctx ended is neutral, being our deadline, not the service's). A
// probe closes, reopens or releases the breaker; an outage failure of a
// closed breaker counts — in the window the call started in — and may open
// it; a provider's exhausted quota opens it at once; a success resets a
// non-zero count (no write when the cached count is zero). Store errors are
// logged, never returned: bookkeeping must not change the item's outcome.
// Writes use a context detached from ctx's cancellation, bounded to 5 s, so
// a probe's verdict is recorded even when the call used up the work
// deadline.
//
// An outage failure (the decision table's trips) is first judged: the
// item's run of such failures (t.Suspect) and the breaker's record are the
// evidence, the profile's blame table the rule (policy.Profile.Blame). A
// failure judged the item's own — it follows the item, not the upstream —
// counts for nothing here: a probe's lease is released for another caller,
// nothing else is written.
//
// Done returns non-nil when the outcome changes what the caller returns in
// place of callErr — a fact, for the policy to decide by (policy.Decide):
//
//   - a failed probe: the breaker's state, a *policy.Closed open until it
//     may be probed again — base × multiplier^reopens after the probes
//     that failed in a row (policy.Probing.Interval). The probe is the
//     system's attempt, not the item's: the item waits with the others,
//     spending nothing.
//   - an outage failure that opened the breaker, or that ended after it
//     opened: likewise the breaker's state (open until its probe time, or
//     probing). The outage is known; its last failures are its own, not
//     the items' that made them.
//   - a provider's exhausted quota: callErr wrapped with the quota's gate,
//     so the item waits behind it like every later caller.
//   - a failure judged the item's own: callErr itself, marked (detail
//     "blame": "item"), for the decision table to judge by its class.
//
// The outcomes of an outage failure and a failure judged the item's own
// carry the item's updated run (store.WithSuspect), which the runner
// records with the outcome.
func (b *Breakers) Done(ctx context.Context, t Ticket, callErr error) error {
	if t.Service == "" {
		return nil
	}
	o := OutcomeOf(callErr, b.Profile, b.Stage)
	if ctx.Err() != nil && o != policy.Answered {
		o = policy.Silent
	}
	now := b.now()
	var cl failure.Classification
	if callErr != nil && o != policy.Silent {
		cl = failure.Classify(callErr)
	}
	var run store.Suspect
	if o == policy.Trips {
		var (
			blame policy.Blame
			rule  policy.BlameRule
		)
		run, blame, rule = b.judge(t, cl, now)
		if blame == policy.BlameItem {
			return b.itemsOwn(ctx, t, callErr, cl, run, rule, now)
		}
	}
	verdict := b.done(ctx, t, o, cl, callErr, now)
	if verdict != nil && o == policy.Trips {
		return store.WithSuspect(verdict, run)
	}
	return verdict
}

// judge weighs an outage failure of t's call: the item's run as it stands
// after this failure, and whose failure the profile's blame table says it
// is.
func (b *Breakers) judge(t Ticket, cl failure.Classification, now time.Time) (store.Suspect, policy.Blame, policy.BlameRule) {
	run := store.Suspect{Service: t.Service, Class: cl.Class, Count: 1, First: now, Last: now}
	if prev := t.Suspect; prev != nil && prev.Service == t.Service {
		run.Probes = prev.Probes
		if prev.Class == cl.Class {
			run.Count, run.First, run.Judged = prev.Count+1, prev.First, prev.Judged
		}
	}
	if t.Probe {
		run.Probes++
	}
	blame, rule := b.profile().Blame(policy.Evidence{Judged: run.Judged, Same: run.Count, Probes: run.Probes,
		Answered: t.answered.After(run.First)})
	if blame == policy.BlameItem {
		run.Judged = true
	}
	return run, blame, rule
}

// itemsOwn handles a failure judged the item's own: nothing counts toward
// the breaker; a probe's lease is released (the breaker open, probe-able at
// once by another caller or waiter); the failure goes back to the caller
// marked, with the item's run.
func (b *Breakers) itemsOwn(ctx context.Context, t Ticket, callErr error, cl failure.Classification, run store.Suspect,
	rule policy.BlameRule, now time.Time) error {
	log := b.logger().With("service", t.Service)
	if t.Probe {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policy.OutlivingWrite)
		r, err := verdict(wctx, func() (Record, error) { return b.Store.ReleaseProbe(wctx, t.Service, t.owner, now) })
		cancel()
		b.after(ctx, t.Service, r, err, now, log)
	}
	b.count(MetricPoisonFailures, cl.Class)
	log.WarnContext(ctx, "a failure that follows its item: judged the item's own, not counted toward the breaker",
		"class", string(cl.Class), "probe", t.Probe, "same_failures", run.Count, "probes", run.Probes,
		"rule", rule.Describe(b.profile().Probing))
	return store.WithSuspect(failure.WithDetail(callErr, "blame", string(policy.BlameItem)), run)
}

// done records the outcome o of t's call (see Done), judged the upstream's
// when it is an outage failure.
func (b *Breakers) done(ctx context.Context, t Ticket, o policy.BreakerEffect, cl failure.Classification, callErr error, now time.Time) error {
	writes := 1
	if !t.Probe {
		switch o {
		case policy.Silent, policy.Throttles:
			return nil
		case policy.Trips:
			// An isolated failure on this process is not written: it joins
			// the shared count when a second follows it here with no
			// success between (both are written then), and each later one
			// at once. A process alone counts every failure of a streak;
			// an outage fails every call, so every process's streak counts;
			// a provider's sporadic 5xx spread over a fleet never reach
			// the service's key (docs/scale.md). A threshold of 1 opens at
			// the first failure: nothing to wait for.
			if b.Threshold != 1 {
				if writes = b.countStreak(t.Service); writes == 0 {
					return nil
				}
			}
		case policy.Answered:
			b.streak.Reset(t.Service)
			// The steady state: a healthy service, nothing to write.
			if c, ok := b.cached(t.Service, now, false); ok && c.State == Closed && c.ConsecutiveFailures == 0 {
				return nil
			}
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policy.OutlivingWrite)
	defer cancel()
	log := b.logger().With("service", t.Service)
	if t.Probe {
		return b.probeDone(ctx, wctx, t, o, cl, now, log)
	}
	switch o {
	case policy.Trips, policy.Opens:
		req := FailureRequest{Service: t.Service, Class: cl.Class, At: now, Threshold: b.Threshold, OpenFor: b.OpenFor,
			Generation: t.Generation}
		if o == policy.Opens {
			req.Threshold, req.OpenFor = policy.OpenAtOnce, b.quotaOpenFor(cl, now)
		}
		var (
			res FailureResult
			err error
		)
		for range writes {
			if res, err = b.Store.RecordFailure(wctx, req); err != nil || res.Opened {
				break
			}
		}
		b.after(ctx, t.Service, res.Record, err, now, log)
		if err == nil && res.Opened {
			b.count(MetricBreakerOpens, cl.Class)
			log.WarnContext(ctx, "breaker opened", "class", string(cl.Class), "consecutive_failures", res.Record.ConsecutiveFailures,
				"open_until", res.Record.OpenUntil.Format(time.RFC3339), "generation", res.Record.Generation)
		}
		if o == policy.Opens {
			return gates.Wrap(callErr, gates.New(gates.Quota, t.Service))
		}
		if err == nil && (res.Opened || res.Record.State == Open || res.Record.State == HalfOpen) {
			// The failure that opened the breaker, or one that ended after
			// it opened, is the outage's, not the item's: the item waits
			// behind the breaker with the others. (Otherwise the item that
			// meets an outage alone would spend its last attempt on the
			// threshold's last failure and be dead-lettered for it.) The
			// breaker is open until its probe time, or past it: probing.
			st, until := policy.GateOpen, res.Record.OpenUntil
			if !until.After(now) {
				st, until = policy.GateProbing, time.Time{}
			}
			return &policy.Closed{Gate: GateOf(res.Record), State: st, Until: until, At: now,
				Why: "the call failed with " + string(cl.Class) + " as the breaker for " + t.Service + " opened"}
		}
	case policy.Answered:
		changed, err := b.Store.ResetFailures(wctx, t.Service, t.Generation, now)
		if err != nil {
			b.after(ctx, t.Service, Record{}, err, now, log)
			return nil
		}
		if changed {
			b.cache.Update(t.Service, func(r *Record, _ *time.Time) { r.ConsecutiveFailures = 0 })
		}
	}
	return nil
}

// probeDone records a probe's verdict; a failed probe reports the breaker
// open again, for its item to wait behind.
// An outage's failed probe reopens the breaker for the base window grown
// by the probes that failed in a row before it (policy.Probing.Interval).
// A failed probe of an exhausted quota reopens it until the quota may be
// probed again (policy.Profile.QuotaProbeAt): one probe per wait period,
// whoever makes it — a scheduler's released waiter or an arriving caller.
func (b *Breakers) probeDone(ctx, wctx context.Context, t Ticket, o policy.BreakerEffect, cl failure.Classification, now time.Time,
	log *slog.Logger) error {
	var (
		r   Record
		err error
	)
	switch o {
	case policy.Trips, policy.Opens:
		openFor := b.profile().Probing.Interval(orDefault(b.OpenFor, DefaultOpenFor), t.reopens+1)
		if o == policy.Opens {
			openFor = b.profile().QuotaProbeAt(now, b.quotaOpenFor(cl, now), t.reopens+1).Sub(now)
		}
		r, err = verdict(wctx, func() (Record, error) { return b.Store.ReopenProbe(wctx, t.Service, t.owner, cl.Class, now, openFor) })
		if err == nil {
			b.count(MetricBreakerOpens, cl.Class)
			log.WarnContext(ctx, "breaker probe failed; open again; the probe's item waits without spending an attempt",
				"class", string(cl.Class), "open_until", r.OpenUntil.Format(time.RFC3339), "opens", r.Opens, "reopens", r.Reopens)
		}
		b.after(ctx, t.Service, r, err, now, log)
		until := r.OpenUntil
		if err != nil || !until.After(now) {
			until = now.Add(openFor)
		}
		failed := Record{Service: t.Service, LastErrorType: cl.Class}
		return &policy.Closed{Gate: GateOf(failed), State: policy.GateOpen, Until: until, At: now,
			Why: "the breaker's probe failed with " + string(cl.Class) + "; open again for " + t.Service}
	case policy.Answered, policy.Throttles:
		r, err = verdict(wctx, func() (Record, error) { return b.Store.CloseProbe(wctx, t.Service, t.owner, now) })
		if err == nil {
			b.count(MetricBreakerCloses, "")
			log.InfoContext(ctx, "breaker probe succeeded; closed", "outcome", string(o), "generation", r.Generation)
		}
	default:
		r, err = verdict(wctx, func() (Record, error) { return b.Store.ReleaseProbe(wctx, t.Service, t.owner, now) })
		if err == nil {
			log.InfoContext(ctx, "breaker probe inconclusive; released for the next caller")
		}
	}
	b.after(ctx, t.Service, r, err, now, log)
	return nil
}

// verdict records a probe's verdict with write, trying again — a new
// operation, each with the SDK's own retries, as the policy's row says
// (policy.ProbeVerdict) — while it fails for another reason than its
// condition, within ctx: a verdict left unwritten holds the breaker
// half-open, every caller waiting, until the probe's lease lapses
// (DefaultProbeLease), so it is worth more than one request.
func verdict(ctx context.Context, write func() (Record, error)) (Record, error) {
	var (
		r   Record
		err error
	)
	for range policy.ProbeVerdict().MaxAttempts {
		if r, err = write(); err == nil || errors.Is(err, ErrConflict) || ctx.Err() != nil {
			return r, err
		}
	}
	return r, err
}

// quotaOpenFor is how long a provider's exhausted quota keeps the breaker
// open: as long as the answer asked (Retry-After, a reset time), at least
// QuotaOpenFor.
func (b *Breakers) quotaOpenFor(cl failure.Classification, now time.Time) time.Duration {
	return max(orDefault(b.QuotaOpenFor, DefaultQuotaOpenFor), cl.Requested.Resolve(now))
}

// countStreak adds a failure to this process's streak on service and
// returns how many failures to write: none for the streak's first, two for
// its second (the first with it), one after.
func (b *Breakers) countStreak(service string) int {
	switch n := b.streak.Fail(service); {
	case n == 1:
		return 0
	case n == 2:
		return 2
	}
	return 1
}

// after caches what a write returned, or forgets the service on an error.
func (b *Breakers) after(ctx context.Context, service string, r Record, err error, now time.Time, log *slog.Logger) {
	var ce *ConflictError
	switch {
	case errors.As(err, &ce):
		// The probe lease expired and someone else took over, or an
		// operator reset the breaker: their outcome stands.
		log.WarnContext(ctx, "breaker transition lost; another caller's outcome stands", "error", err.Error())
		if ce.Current != nil {
			b.remember(*ce.Current, now)
			return
		}
		b.forget(service)
	case err != nil:
		log.ErrorContext(ctx, "breaker bookkeeping failed", "error", err.Error())
		b.forget(service)
	case r.Service != "":
		b.remember(r, now)
	}
}

// Get returns the service's breaker as stored (a fresh read, bypassing the
// cache), or a closed record when it has none: for the CLI and the demo.
func (b *Breakers) Get(ctx context.Context, service string) (Record, error) {
	r, err := b.Store.Get(ctx, service)
	if errors.Is(err, ErrNotFound) {
		return Record{Service: service, State: Closed}, nil
	}
	return r, err
}

// Forget drops service from the cache (after an operator reset, in tests).
func (b *Breakers) Forget(service string) { b.forget(service) }

func (b *Breakers) cached(service string, now time.Time, freshOnly bool) (Record, bool) {
	return b.cache.Get(service, now, b.ttl(), freshOnly)
}

func (b *Breakers) remember(r Record, now time.Time) {
	b.cache.Put(r.Service, r, now, b.ttl())
}

func (b *Breakers) forget(service string) { b.cache.Forget(service) }

func (b *Breakers) ttl() time.Duration {
	if b.CacheTTL == 0 {
		return DefaultCacheTTL
	}
	return b.CacheTTL
}

func (b *Breakers) profile() *policy.Profile {
	if b.Profile == nil {
		return standard
	}
	return b.Profile
}

func (b *Breakers) newOwner() string {
	if b.NewOwner != nil {
		return b.NewOwner()
	}
	return NewOwner()
}

func (b *Breakers) now() time.Time {
	return clock.Or(b.Clock).Now()
}

func (b *Breakers) logger() *slog.Logger {
	return telemetry.Or(b.Log)
}

func (b *Breakers) count(name string, class work.Class) {
	telemetry.CounterOr(b.Metrics).Count(name, b.Stage, class, 1)
}
