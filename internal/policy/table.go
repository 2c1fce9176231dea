package policy

import (
	"github.com/triagehq/triage/internal/work"
)

// Row is one line of a profile's decision table as `triage policy show`
// prints it: what the profile does with one class, in every stage (Stage
// empty) or in one stage that overrides it.
type Row struct {
	Class work.Class `json:"class"`
	Stage work.Stage `json:"stage,omitempty"`
	// Retryable, Counts, MaxAttempts, Backoff: see Policy.
	Retryable   bool   `json:"retryable"`
	Counts      bool   `json:"counts"`
	MaxAttempts int    `json:"max_attempts"`
	Backoff     string `json:"backoff,omitempty"`
	// ModelSpecific is the class's trait (work.Traits): it counts
	// toward disabling a model (internal/gates/health).
	ModelSpecific bool `json:"model_specific"`
	// Breaker, Congests, BackBehindGate, SkipsProvider, Escalates: see
	// Policy.
	Breaker        BreakerEffect `json:"breaker"`
	Congests       bool          `json:"congests"`
	BackBehindGate bool          `json:"back_behind_gate"`
	SkipsProvider  bool          `json:"skips_provider"`
	Escalates      bool          `json:"escalates"`
}

// Rows returns p's decision table: one row per class, in the order of
// work.Classes, each followed by a row for every stage whose override
// differs from it.
func (p *Profile) Rows() []Row {
	var out []Row
	for _, c := range work.Classes() {
		base := rowOf(c, "", p.Policy("", c))
		out = append(out, base)
		for _, st := range work.Stages() {
			if over, ok := p.Stages[st][c]; ok {
				if r := rowOf(c, st, over); !sameRow(r, base) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

func rowOf(c work.Class, st work.Stage, pol Policy) Row {
	r := Row{Class: c, Stage: st, Retryable: pol.Retryable, Counts: pol.Counts, MaxAttempts: pol.MaxAttempts,
		ModelSpecific: c.ModelSpecific(), Breaker: pol.Breaker, Congests: pol.Congests, BackBehindGate: pol.BackBehindGate,
		SkipsProvider: pol.SkipsProvider, Escalates: pol.Escalates}
	if r.Breaker == "" {
		r.Breaker = Silent
	}
	if pol.Backoff != nil {
		r.Backoff = pol.description()
	}
	return r
}

// sameRow reports whether two rows decide alike, whatever their stage.
func sameRow(a, b Row) bool {
	a.Stage = b.Stage
	return a == b
}
