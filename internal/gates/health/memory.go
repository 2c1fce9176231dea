package health

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is the in-memory twin of Dynamo: the same rules, one mutex instead
// of condition expressions. The conformance suite runs against both. It is
// safe for concurrent use.
type Memory struct {
	mu     sync.Mutex
	models map[string]*memModel
}

type memModel struct {
	m            Model
	tokens       map[string]bool
	items        map[string]bool // the current streak's items
	disableToken string
}

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{models: map[string]*memModel{}} }

// Get returns the model's record, or ErrNotFound.
func (s *Memory) Get(_ context.Context, model string) (Model, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.models[model]
	if !ok {
		return Model{}, fmt.Errorf("get %s: %w", model, ErrNotFound)
	}
	return r.m, nil
}

// List returns every record, sorted by name.
func (s *Memory) List(context.Context) ([]Model, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Model, 0, len(s.models))
	for _, r := range s.models {
		out = append(out, r.m)
	}
	slices.SortFunc(out, func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// RecordFailure counts one failure; the failure that reaches the threshold
// disables the model (see the package documentation).
func (s *Memory) RecordFailure(_ context.Context, req FailureRequest) (FailureResult, error) {
	if req.Model == "" {
		return FailureResult{}, fmt.Errorf("record failure: model is required")
	}
	tok := req.Token
	if tok == "" {
		tok = newToken()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.models[req.Model]
	if !ok {
		r = &memModel{m: Model{Name: req.Model}, tokens: map[string]bool{}}
		s.models[req.Model] = r
	}
	if r.tokens[tok] {
		return FailureResult{Model: r.m, Disabled: r.disableToken == tok}, nil
	}
	if req.Item != "" && r.items[req.Item] {
		return FailureResult{Model: r.m, Repeat: true}, nil
	}
	if req.Item != "" {
		if r.items == nil {
			r.items = map[string]bool{}
		}
		r.items[req.Item] = true
	}
	limit := threshold(req.Threshold) - 1
	below := r.m.ConsecutiveFailures < limit
	r.m.ConsecutiveFailures++
	r.m.LastFailureAt, r.m.LastErrorType, r.m.LastError, r.m.UpdatedAt = req.At.UTC(), req.Class, req.Reason, req.At.UTC()
	if below || r.m.Disabled {
		r.tokens[tok] = true
		return FailureResult{Model: r.m}, nil
	}
	r.m.Disabled, r.m.DisabledBy, r.m.DisabledAt = true, ByAuto, req.At.UTC()
	r.m.DisableReason = disableReason(threshold(req.Threshold), req.Class)
	r.m.Disables++
	r.tokens = map[string]bool{tok: true}
	r.disableToken = tok
	return FailureResult{Model: r.m, Disabled: true}, nil
}

// ResetFailures sets an enabled model's count to zero.
func (s *Memory) ResetFailures(_ context.Context, model string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.models[model]
	if !ok || r.m.ConsecutiveFailures <= 0 || r.m.Disabled {
		return false, nil
	}
	r.m.ConsecutiveFailures, r.m.UpdatedAt = 0, now.UTC()
	r.tokens, r.items = map[string]bool{}, nil
	return true, nil
}

// Recover re-enables an auto-disabled model whose cooldown has passed.
func (s *Memory) Recover(_ context.Context, req RecoverRequest) (Model, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.models[req.Model]
	if !ok {
		return Model{}, fmt.Errorf("recover %s: %w", req.Model, ErrNotFound)
	}
	cutoff := req.Now.Add(-cooldown(req.Cooldown))
	if !r.m.Disabled || r.m.DisabledBy != ByAuto || r.m.LastFailureAt.IsZero() || r.m.LastFailureAt.After(cutoff) {
		return Model{}, fmt.Errorf("recover %s: %w", req.Model, ErrConflict)
	}
	r.m.Disabled, r.m.ConsecutiveFailures = false, resetTo(req.ResetTo)
	r.m.RecoveredAt, r.m.RecoveredBy, r.m.UpdatedAt = req.Now.UTC(), ByRecovery, req.Now.UTC()
	r.m.Recoveries++
	r.tokens, r.items, r.disableToken = map[string]bool{}, nil, ""
	return r.m, nil
}

// SetDisabled is the operator override.
func (s *Memory) SetDisabled(_ context.Context, model string, disabled bool, reason string, now time.Time) (Model, error) {
	if model == "" {
		return Model{}, fmt.Errorf("set disabled: model is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.models[model]
	if !ok {
		r = &memModel{m: Model{Name: model}, tokens: map[string]bool{}}
		s.models[model] = r
	}
	r.m.UpdatedAt = now.UTC()
	if disabled {
		r.m.Disabled, r.m.DisabledBy, r.m.DisabledAt, r.m.DisableReason = true, ByOperator, now.UTC(), reason
		return r.m, nil
	}
	r.m.Disabled, r.m.ConsecutiveFailures = false, 0
	r.m.RecoveredAt, r.m.RecoveredBy = now.UTC(), ByOperator
	r.tokens, r.items, r.disableToken = map[string]bool{}, nil, ""
	return r.m, nil
}
