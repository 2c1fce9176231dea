package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
)

// Status is what a gate's owner says about it now.
type Status struct {
	// Open is true when the gate's waiters may go.
	Open bool
	// ProbeDue is true for a closed gate that one waiter may now test (a
	// breaker past its open_until): the Checker is also a Prober.
	ProbeDue bool
}

// Checker tells whether gates of one kind are open.
type Checker interface {
	Check(ctx context.Context, g gates.Name, now time.Time) (Status, error)
}

// Drainer is a Checker whose gate's service can queue new callers behind
// the gate while the scheduler drains its waiters (breaker.Record's
// DrainingUntil), so that they do not compete with the ramp.
type Drainer interface {
	Drain(ctx context.Context, g gates.Name, until, now time.Time) error
}

// Prober takes and gives back the probe lease of a gate whose probe is due;
// the token travels with the waiter released as the probe
// (gates.AttrProbe).
type Prober interface {
	Probe(ctx context.Context, g gates.Name, now time.Time) (token string, err error)
	Unprobe(ctx context.Context, g gates.Name, token string, now time.Time) error
}

// Breakers checks breaker and quota gates against the upstream's shared
// breaker (both are its record: a quota opens it too) and takes its probe
// lease for the waiter released as the probe. The breaker paces an
// exhausted quota's probes itself (its open_until is the end of the quota's
// wait period, policy.Profile.QuotaProbeAt), so a quota's gate is checked
// like any breaker's.
type Breakers struct {
	// Store holds the breakers. Required.
	Store breaker.Store
	// ProbeLease bounds the probe the scheduler releases; zero means
	// breaker.DefaultProbeLease.
	ProbeLease time.Duration
	// NewOwner names probe leases; nil means breaker.NewOwner.
	NewOwner func() string
}

// Check reports the service's breaker: open when closed (or unknown), a
// probe due when open past open_until or half-open under an expired lease.
func (b Breakers) Check(ctx context.Context, g gates.Name, now time.Time) (Status, error) {
	r, err := b.Store.Get(ctx, g.Key())
	switch {
	case errors.Is(err, breaker.ErrNotFound):
		return Status{Open: true}, nil
	case err != nil:
		return Status{}, err
	}
	if r.State == breaker.Closed || r.State == "" {
		return Status{Open: true}, nil
	}
	return Status{ProbeDue: breaker.ProbeDue(r, now)}, nil
}

// Probe takes the service's probe lease for a scheduler-released waiter.
func (b Breakers) Probe(ctx context.Context, g gates.Name, now time.Time) (string, error) {
	owner := "scheduler-" + breaker.NewOwner()
	if b.NewOwner != nil {
		owner = b.NewOwner()
	}
	if _, err := b.Store.AcquireProbe(ctx, breaker.ProbeRequest{Service: g.Key(), Owner: owner, Now: now, Lease: b.ProbeLease}); err != nil {
		return "", err
	}
	return owner, nil
}

// Unprobe gives the lease back (the release failed): open, probe-able at
// once.
func (b Breakers) Unprobe(ctx context.Context, g gates.Name, token string, now time.Time) error {
	_, err := b.Store.ReleaseProbe(ctx, g.Key(), token, now)
	return err
}

// Drain marks the service as draining g's waiters until `until`.
func (b Breakers) Drain(ctx context.Context, g gates.Name, until, now time.Time) error {
	return b.Store.SetDraining(ctx, g.Key(), g, until, now)
}

// Models checks a model chain's gate (fallback.ModelsGate): open as soon
// as any entry of the chain is usable — its model enabled (the recovery
// function re-enabled it, or an operator) and its provider's breaker
// closed. While the enabled entries' providers all have open breakers, a
// probe is due when the first of them may be probed, and Probe takes that
// provider's probe lease for the waiter released as its probe.
type Models struct {
	// Store holds model health. Required.
	Store health.Store
	// Breakers holds the providers' breakers; nil counts every provider's
	// breaker closed.
	Breakers breaker.Store
	// ProbeLease and NewOwner: as Breakers'.
	ProbeLease time.Duration
	NewOwner   func() string
}

// Check reads the chain's models and providers until an entry is usable.
func (m Models) Check(ctx context.Context, g gates.Name, now time.Time) (Status, error) {
	probe, open, err := m.scan(ctx, g, now)
	return Status{Open: open, ProbeDue: !open && probe != ""}, err
}

// scan returns the first provider whose breaker may be probed (of an
// enabled entry) and whether an entry is usable.
func (m Models) scan(ctx context.Context, g gates.Name, now time.Time) (probe string, open bool, err error) {
	entries, err := fallback.GateEntries(g)
	if err != nil {
		return "", false, err
	}
	breakers := map[string]*breaker.Record{}
	for _, e := range entries {
		svc := fallback.Service(e.Provider)
		h, err := m.Store.Get(ctx, e.String())
		switch {
		case errors.Is(err, health.ErrNotFound):
		case err != nil:
			return "", false, err
		case h.Disabled:
			continue
		}
		if m.Breakers == nil {
			return "", true, nil
		}
		r, seen := breakers[svc]
		if !seen {
			rec, err := m.Breakers.Get(ctx, svc)
			switch {
			case errors.Is(err, breaker.ErrNotFound):
				rec = breaker.Record{Service: svc, State: breaker.Closed}
			case err != nil:
				return "", false, err
			}
			r = &rec
			breakers[svc] = r
		}
		if r.State == breaker.Closed || r.State == "" {
			return "", true, nil
		}
		if probe == "" && breaker.ProbeDue(*r, now) {
			probe = svc
		}
	}
	return probe, false, nil
}

// Probe takes the probe lease of the first provider whose breaker may be
// probed.
func (m Models) Probe(ctx context.Context, g gates.Name, now time.Time) (string, error) {
	if m.Breakers == nil {
		return "", fmt.Errorf("gate %s: no breakers to probe", g)
	}
	svc, open, err := m.scan(ctx, g, now)
	switch {
	case err != nil:
		return "", err
	case open || svc == "":
		return "", fmt.Errorf("gate %s: no provider's probe is due: %w", g, breaker.ErrConflict)
	}
	return Breakers{Store: m.Breakers, ProbeLease: m.ProbeLease, NewOwner: m.NewOwner}.Probe(ctx, gates.New(gates.Breaker, svc), now)
}

// Unprobe gives the lease back, to whichever provider of the chain holds
// it (the release is conditional on the lease's owner).
func (m Models) Unprobe(ctx context.Context, g gates.Name, token string, now time.Time) error {
	entries, err := fallback.GateEntries(g)
	if err != nil || m.Breakers == nil {
		return err
	}
	var errs []error
	for _, p := range fallback.Providers(entries) {
		if _, err := m.Breakers.ReleaseProbe(ctx, fallback.Service(p), token, now); err != nil && !errors.Is(err, breaker.ErrConflict) &&
			!errors.Is(err, breaker.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Budget checks a budget day's gate: open once that UTC day is over.
type Budget struct{}

// Check compares the gate's day with now's.
func (Budget) Check(_ context.Context, g gates.Name, now time.Time) (Status, error) {
	return Status{Open: budget.DayKey(now) > g.Key()}, nil
}

// gates releases the waiters of every listed gate (see the package
// documentation).
func (s *Scheduler) gates(ctx context.Context, runID string, res *Result) error {
	recs, err := s.Gates.List(ctx)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if s.outOfTime(ctx) {
			break
		}
		res.Gates++
		s.gate(ctx, runID, rec, res)
	}
	return nil
}

func (s *Scheduler) gate(ctx context.Context, runID string, rec store.GateRecord, res *Result) {
	now := s.now()
	log := s.log().With("gate", string(rec.Gate))
	checker := s.Checkers[rec.Gate.Kind()]
	if checker == nil {
		// Its waiters stay parked (a gate wait has no expiry) until a
		// scheduler that knows the kind runs.
		res.Errors++
		log.Error("no checker for the gate's kind; its waiters stay parked")
		return
	}
	st, err := checker.Check(ctx, rec.Gate, now)
	if err != nil {
		res.Errors++
		log.Error("checking a gate failed; its waiters stay parked", "error", redact.String(err.Error()))
		return
	}
	if !st.Open {
		if rec.Ramp.Started() {
			// It closed again mid-ramp: the next opening starts low.
			if err := s.Gates.Reset(ctx, rec, now); err == nil {
				log.Info("gate closed again; ramp reset", "released", rec.Ramp.Total)
			}
		}
		if p, ok := checker.(Prober); ok && st.ProbeDue {
			s.probe(ctx, rec, p, now, res, log)
		}
		return
	}
	res.Open++
	next := s.Ramp.Next(rec.Ramp, now, rec.Congested)
	if !rec.Ramp.Started() && !rec.WaitingSince.IsZero() {
		// The first run after the gate opened: start at the rate the
		// waiters arrived at, if that is more than the ramp's start — the
		// load the upstream carried before it closed, not the backlog.
		if n, err := s.Waiters.Count(ctx, rec.Gate); err == nil {
			next.Rate = s.Ramp.Opening(n, now.Sub(rec.WaitingSince), s.interval())
		} else {
			log.Warn("counting a gate's waiters failed; the ramp starts at its start", "error", redact.String(err.Error()))
		}
	}
	ws, err := s.Waiters.Waiting(ctx, rec.Gate, min(next.Rate, s.maxPerRun()))
	if err != nil {
		res.Errors++
		log.Error("listing a gate's waiters failed", "error", redact.String(err.Error()))
		return
	}
	if len(ws) == 0 {
		if err := s.Gates.Delete(ctx, rec, now); err == nil {
			res.Retired++
			log.Info("gate open with no waiter left; retired", "released", rec.Ramp.Total)
		}
		return
	}
	next.Released = len(ws)
	next.Total += int64(len(ws))
	if err := s.Gates.Lease(ctx, rec, runID, now, now.Add(s.gateLease()), next); err != nil {
		if errors.Is(err, store.ErrConflict) {
			res.Contended++
			return
		}
		res.Errors++
		log.Error("leasing a gate failed", "error", redact.String(err.Error()))
		return
	}
	spread := s.interval()
	limit := min(next.Rate, s.maxPerRun())
	if d, ok := checker.(Drainer); ok && len(ws) >= limit {
		// New callers queue behind the gate while it drains a backlog, for
		// the policy's policy.DrainIntervals: the next run renews it while
		// this one could not release every waiter. A run that empties the
		// gate lets it lapse: the backlog is gone, and newcomers that parked
		// only because of the mark would otherwise keep the gate populated —
		// every arrival parked and released a run later, for as long as
		// arrivals come.
		if err := d.Drain(ctx, rec.Gate, policy.DrainUntil(now, spread), now); err != nil && !errors.Is(err, breaker.ErrConflict) {
			log.Warn("marking the gate's service as draining failed", "error", redact.String(err.Error()))
		}
	}
	sent := s.send(ctx, ws, &sendOpts{attrs: gateAttrs(rec.Gate, ""), delay: func(i int) int32 {
		return int32(policy.ReleaseDelay(i, len(ws), spread) / time.Second)
	}}, res)
	res.Released += len(sent)
	s.unpark(ctx, sent, res)
	log.Info("gate open: released waiters", "released", len(sent), "rate", next.Rate, "peak", next.Peak, "slow_start", next.SlowStart,
		"total", next.Total, "congested", rec.Congested-rec.Ramp.Seen, "noise", next.Noise)
}

// ProbeCandidates is how many of a closed gate's oldest waiters the
// scheduler considers for its probe.
const ProbeCandidates = 10

// probe releases one waiter of a closed gate alone, with the probe lease the
// Prober took for it: of its ProbeCandidates oldest waiters, the first that
// is no suspect (has not failed provider-wide), else the one that served
// the fewest probes — so the probe rotates among distinct waiters, and a
// waiter whose failures follow it does not test the upstream for everyone
// (docs/design.md "A failure that follows one item").
func (s *Scheduler) probe(ctx context.Context, rec store.GateRecord, p Prober, now time.Time, res *Result, log *slog.Logger) {
	ws, err := s.Waiters.Waiting(ctx, rec.Gate, ProbeCandidates)
	if err != nil || len(ws) == 0 {
		return
	}
	ws = []store.ParkedWait{ProbeCandidate(ws)}
	token, err := p.Probe(ctx, rec.Gate, now)
	if err != nil {
		// Another caller (an arrival) took it: its call is the probe.
		return
	}
	sent := s.send(ctx, ws, &sendOpts{attrs: gateAttrs(rec.Gate, token)}, res)
	if len(sent) == 0 {
		if err := p.Unprobe(ctx, rec.Gate, token, now); err != nil {
			log.Error("giving the probe lease back failed; it expires", "error", redact.String(err.Error()))
		}
		return
	}
	res.Probes++
	s.unpark(ctx, sent, res)
	log.Info("gate's probe due: released a waiter as the probe", "item_id", ws[0].ItemID, "suspect", ws[0].Suspect,
		"probes_served", ws[0].Probes)
}

// ProbeCandidate returns the waiter of ws (oldest first) to release as a
// gate's probe: the oldest that is no suspect, else the oldest of those
// that served the fewest probes. ws must not be empty.
func ProbeCandidate(ws []store.ParkedWait) store.ParkedWait {
	best := 0
	for i, w := range ws[1:] {
		b := ws[best]
		if b.Suspect && (!w.Suspect || w.Probes < b.Probes) {
			best = i + 1
		}
	}
	return ws[best]
}

// unpark retires sent gate waits; one that parked again since keeps its
// new wait.
func (s *Scheduler) unpark(ctx context.Context, sent []store.ParkedWait, res *Result) {
	for _, w := range sent {
		err := s.Waiters.Unpark(ctx, w)
		switch {
		case errors.Is(err, store.ErrConflict):
			res.Superseded++
		case err != nil:
			res.Errors++
			s.log().Error("unparking a released waiter failed; a later run releases it again (absorbed by the stage's claim)",
				"item_id", w.ItemID, "gate", string(w.Gate), "error", redact.String(err.Error()))
		default:
			res.Deleted++
		}
	}
}

func gateAttrs(g gates.Name, probe string) map[string]sqstypes.MessageAttributeValue {
	attrs := map[string]sqstypes.MessageAttributeValue{
		gates.AttrGate: {DataType: aws.String("String"), StringValue: aws.String(string(g))},
	}
	if probe != "" {
		attrs[gates.AttrProbe] = sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(probe)}
	}
	return attrs
}

func (s *Scheduler) interval() time.Duration {
	if s.Interval > 0 {
		return s.Interval
	}
	return DefaultInterval
}

func (s *Scheduler) gateLease() time.Duration {
	if s.GateLease > 0 {
		return s.GateLease
	}
	return time.Duration(DefaultGateLease * float64(s.interval()))
}

func (s *Scheduler) maxPerRun() int {
	if s.MaxPerRun > 0 {
		return s.MaxPerRun
	}
	return DefaultMaxPerRun
}
