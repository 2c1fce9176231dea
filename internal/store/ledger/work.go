package ledger

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// DefaultWriteTimeout bounds an execution record's write: it runs after
// the work, inside the time the runner keeps for bookkeeping, and must leave
// most of it to the outcome's write.
const DefaultWriteTimeout = time.Second

// Runner is the work Work wraps (the runner's Work): d is how the record
// came, passed on untouched.
type Runner interface {
	Run(ctx context.Context, item store.Item, d gates.Delivery) (work.Output, error)
}

// Recorder stores executions (*Trail, *Memory).
type Recorder interface {
	Record(ctx context.Context, e Execution) error
}

// Work records every run of an action task by Inner — the stage that
// executes actions (llm) — as one Execution: one PutItem per action
// execution, none for other kinds. It returns Inner's result unchanged,
// whatever the write does; a panic in Inner is recorded and re-panicked for
// the runner to turn into INTERNAL_BUG.
type Work struct {
	// Inner is the stage's work. Required.
	Inner Runner
	// Trail stores the records. Required.
	Trail Recorder
	// Stage is the stage Inner runs (llm).
	Stage work.Stage
	// Clock times the run; nil means the wall clock.
	Clock clock.Clock
	// WriteTimeout bounds the write; zero is DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Log receives failed writes; nil discards them.
	Log *slog.Logger
}

// Run runs Inner and records the run when item is an action task.
func (w *Work) Run(ctx context.Context, item store.Item, d gates.Delivery) (out work.Output, err error) {
	if item.Kind != store.KindAction {
		return w.Inner.Run(ctx, item, d)
	}
	now := clock.Or(w.Clock).Now
	start := now()
	defer func() {
		v := recover()
		e := Execution{
			ItemID: item.ID, CorrelationID: item.CorrelationID, Stage: w.Stage, Attempt: item.Attempts[w.Stage] + 1,
			Delivery: item.LeaseOwner, StartedAt: start.UTC(), Duration: now().Sub(start),
		}
		if v != nil {
			e.Outcome, e.Class, e.Reason = OutcomeError, work.InternalBug, "panic in the stage's work"
		} else {
			describe(&e, out, err)
		}
		w.record(ctx, e)
		if v != nil {
			panic(v)
		}
	}()
	return w.Inner.Run(ctx, item, d)
}

// describe fills the outcome of a run from what Inner returned.
func describe(e *Execution, out work.Output, err error) {
	if err == nil {
		e.Outcome = OutcomeSuccess
		if out.Enrichment != nil {
			e.Model = out.Enrichment.Model
		}
		return
	}
	e.Model = redact.String(failure.Details(err)["model"])
	var (
		wait   *failure.WaitError
		closed interface{ WaitReason() string } // a gate provider's report of a closed gate (the policy's Closed)
	)
	switch {
	case errors.As(err, &wait):
		e.Outcome, e.Reason = OutcomeWait, "nothing asked: "+redact.String(wait.Reason)
		return
	case errors.Is(err, failure.ErrWaiting) && errors.As(err, &closed):
		e.Outcome, e.Reason = OutcomeWait, "nothing asked: "+redact.String(closed.WaitReason())
		return
	}
	cl := failure.Classify(err)
	e.Class, e.UpstreamStatus = cl.Class, cl.Status
	if reason, ok := failure.ActionReason(err); ok {
		e.Outcome, e.Reason = OutcomeFailed, redact.String(reason)
		return
	}
	// The classification's rule, never upstream message text: an error
	// body can echo the request.
	e.Outcome, e.Reason = OutcomeError, cl.Reason
	if cl.Status != 0 && !strings.Contains(cl.Reason, "HTTP ") {
		e.Reason += " (HTTP " + strconv.Itoa(cl.Status) + ")"
	}
	e.Reason = redact.String(e.Reason)
}

func (w *Work) record(ctx context.Context, e Execution) {
	timeout := w.WriteTimeout
	if timeout <= 0 {
		timeout = DefaultWriteTimeout
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if err := w.Trail.Record(wctx, e); err != nil && w.Log != nil {
		// The audit is a record, not the outcome: the run's result stands.
		w.Log.ErrorContext(ctx, "audit of an action execution failed", "outcome", string(e.Outcome),
			"error", redact.String(fmt.Sprint(err)))
	}
}
