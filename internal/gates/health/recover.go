package health

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// RecoverOptions configure Recover.
type RecoverOptions struct {
	// Now is the time of the run (an injected clock's reading).
	Now time.Time
	// Cooldown is how old an auto-disabled model's last failure must be;
	// zero means DefaultCooldown (1 h).
	Cooldown time.Duration
	// ResetTo is the count a recovered model restarts from; zero means
	// DefaultResetTo (2), negative a full reset to zero.
	ResetTo int
}

// Pending is an auto-disabled model that is not due yet.
type Pending struct {
	// Model is the model's name.
	Model string `json:"model"`
	// Due is when its cooldown ends.
	Due time.Time `json:"due"`
}

// Report is what one Recover run did.
type Report struct {
	// Checked is how many records were read.
	Checked int `json:"checked"`
	// Disabled is how many of them were disabled (by anyone).
	Disabled int `json:"disabled"`
	// Recovered lists the models re-enabled by this run, in name order.
	Recovered []string `json:"recovered"`
	// Pending lists auto-disabled models still cooling down.
	Pending []Pending `json:"pending,omitempty"`
	// Operator lists models an operator disabled, which Recover leaves alone.
	Operator []string `json:"operator_disabled,omitempty"`
}

// Recover re-enables every auto-disabled model whose last failure is at
// least opts.Cooldown before opts.Now, each with its own conditional update
// (Store.Recover), with the count set to opts.ResetTo. A model that changed
// between the scan and the update (a new failure, another run, an operator)
// is skipped, not an error. It returns what it did; on a store error the
// report covers the models handled before it.
func Recover(ctx context.Context, s Store, opts RecoverOptions) (Report, error) {
	models, err := s.List(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("recover models: %w", err)
	}
	cd := cooldown(opts.Cooldown)
	rep := Report{Checked: len(models), Recovered: []string{}}
	for _, m := range models {
		if !m.Disabled {
			continue
		}
		rep.Disabled++
		due, auto := m.ExpectedRecovery(cd)
		switch {
		case !auto:
			rep.Operator = append(rep.Operator, m.Name)
			continue
		case due.After(opts.Now):
			rep.Pending = append(rep.Pending, Pending{Model: m.Name, Due: due})
			continue
		}
		_, err := s.Recover(ctx, RecoverRequest{Model: m.Name, Now: opts.Now, Cooldown: cd, ResetTo: opts.ResetTo})
		switch {
		case errors.Is(err, ErrConflict), errors.Is(err, ErrNotFound):
			continue
		case err != nil:
			return rep, fmt.Errorf("recover models: %w", err)
		}
		rep.Recovered = append(rep.Recovered, m.Name)
	}
	return rep, nil
}
