package breaker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/work"
)

// Memory is the in-memory twin of Dynamo: the same transitions under one
// mutex. It is safe for concurrent use.
type Memory struct {
	mu       sync.Mutex
	breakers map[string]Record
}

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{breakers: map[string]Record{}} }

// Get returns the service's breaker, or ErrNotFound.
func (s *Memory) Get(_ context.Context, service string) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.breakers[service]
	if !ok {
		return Record{}, fmt.Errorf("get breaker %s: %w", service, ErrNotFound)
	}
	return r, nil
}

// List returns every breaker, sorted by service.
func (s *Memory) List(context.Context) ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Record, 0, len(s.breakers))
	for _, r := range s.breakers {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Service, b.Service) })
	return out, nil
}

// RecordFailure counts an outage failure of a closed breaker, opening it at
// the threshold.
func (s *Memory) RecordFailure(_ context.Context, req FailureRequest) (FailureResult, error) {
	if req.Service == "" {
		return FailureResult{}, errors.New("record breaker failure: service is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.breakers[req.Service]
	if ok && (r.State != Closed || r.Generation != req.Generation) {
		return FailureResult{Record: r}, nil
	}
	if !ok {
		r = Record{Service: req.Service, State: Closed}
	}
	limit := threshold(req.Threshold) - 1
	below := r.ConsecutiveFailures < limit
	r.ConsecutiveFailures++
	r.LastFailureAt, r.LastErrorType, r.UpdatedAt = req.At.UTC(), req.Class, req.At.UTC()
	opened := !below
	if opened {
		r.State, r.OpenedAt, r.OpenUntil = Open, req.At.UTC(), req.At.Add(orDefault(req.OpenFor, DefaultOpenFor)).UTC()
		r.Opens++
		r.Generation++
	}
	s.breakers[req.Service] = r
	return FailureResult{Record: r, Counted: true, Opened: opened}, nil
}

// ResetFailures sets a closed breaker's count to zero.
func (s *Memory) ResetFailures(_ context.Context, service string, generation int64, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.breakers[service]
	if !ok || r.State != Closed || r.ConsecutiveFailures <= 0 || r.Generation != generation {
		return false, nil
	}
	r.ConsecutiveFailures, r.UpdatedAt = 0, now.UTC()
	s.breakers[service] = r
	return true, nil
}

// AcquireProbe takes the probe lease when the breaker may be probed.
func (s *Memory) AcquireProbe(_ context.Context, req ProbeRequest) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.breakers[req.Service]
	if !ok || !probeDue(r, req.Now) {
		return Record{}, s.conflict(req.Service, "acquire probe", r, ok)
	}
	r.State, r.ProbeOwner, r.ProbeUntil = HalfOpen, req.Owner, req.Now.Add(orDefault(req.Lease, DefaultProbeLease)).UTC()
	r.UpdatedAt = req.Now.UTC()
	s.breakers[req.Service] = r
	return r, nil
}

// CloseProbe closes the breaker after owner's successful probe.
func (s *Memory) CloseProbe(_ context.Context, service, owner string, now time.Time) (Record, error) {
	return s.endProbe(service, owner, "close", func(r *Record) { closeRecord(r, owner, now) }, now)
}

// ReopenProbe opens the breaker again after owner's failed probe.
func (s *Memory) ReopenProbe(_ context.Context, service, owner string, class work.Class, now time.Time, openFor time.Duration) (Record, error) {
	return s.endProbe(service, owner, "reopen", func(r *Record) {
		r.State, r.OpenedAt, r.OpenUntil = Open, now.UTC(), now.Add(orDefault(openFor, DefaultOpenFor)).UTC()
		r.LastFailureAt, r.LastErrorType = now.UTC(), class
		r.Opens++
		r.Reopens++
		r.Generation++
	}, now)
}

// ReleaseProbe gives owner's lease back: open, probe-able at once.
func (s *Memory) ReleaseProbe(_ context.Context, service, owner string, now time.Time) (Record, error) {
	return s.endProbe(service, owner, "release", func(r *Record) {
		r.State, r.OpenUntil = Open, now.UTC()
	}, now)
}

func (s *Memory) endProbe(service, owner, op string, apply func(*Record), now time.Time) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.breakers[service]
	if !ok || r.State != HalfOpen || r.ProbeOwner != owner {
		return Record{}, s.conflict(service, op+" probe", r, ok)
	}
	apply(&r)
	r.ProbeOwner, r.ProbeUntil, r.UpdatedAt = "", time.Time{}, now.UTC()
	s.breakers[service] = r
	return r, nil
}

// Reset closes the breaker whatever its state.
func (s *Memory) Reset(_ context.Context, service string, now time.Time) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.breakers[service]
	if !ok {
		return Record{}, fmt.Errorf("reset breaker %s: %w", service, ErrNotFound)
	}
	closeRecord(&r, ByOperator, now)
	s.breakers[service] = r
	return r, nil
}

// SetDraining marks a closed breaker as draining g until `until`.
func (s *Memory) SetDraining(_ context.Context, service string, g gates.Name, until, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.breakers[service]
	if !ok || r.State != Closed {
		return s.conflict(service, "set draining", r, ok)
	}
	r.DrainingUntil, r.DrainingGate, r.UpdatedAt = until.UTC(), g, now.UTC()
	s.breakers[service] = r
	return nil
}

// closeRecord closes r clean, starting a new window, by the probe owner or
// ByOperator (Dynamo's closing).
func closeRecord(r *Record, by string, now time.Time) {
	r.State, r.ConsecutiveFailures, r.ClosedAt, r.ClosedBy, r.UpdatedAt = Closed, 0, now.UTC(), by, now.UTC()
	r.OpenUntil, r.ProbeOwner, r.ProbeUntil, r.Reopens = time.Time{}, "", time.Time{}, 0
	r.Generation++
}

func (s *Memory) conflict(service, op string, r Record, ok bool) error {
	ce := &ConflictError{Service: service, Op: op}
	if ok {
		ce.Current = &r
	}
	return ce
}
