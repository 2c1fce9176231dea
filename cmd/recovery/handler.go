package main

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// metrics receives counters and writes them at the end of the run;
// *telemetry.EMF implements it.
type metrics interface {
	Count(name string, stage work.Stage, class work.Class, n int)
	Flush() error
}

// handler is the recovery function: on every scheduled event (EventBridge,
// rate(30 minutes)) it re-enables the auto-disabled models whose last failure
// is at least Cooldown old, with their failure count set to ResetTo (see
// health.Recover), and reports how many it recovered.
type handler struct {
	// Models is the model-health store. Required.
	Models health.Store
	// Clock tells the time. Required (the configured clock in main, a settable
	// clock in tests).
	Clock clock.Clock
	// Cooldown and ResetTo: zero means health.DefaultCooldown (1 h) and
	// health.DefaultResetTo (2).
	Cooldown time.Duration
	ResetTo  int
	// Log receives one line per recovered model and one per run; nil
	// discards them.
	Log *slog.Logger
	// Metrics receives health.MetricModelRecoveries (stage llm); nil
	// discards them.
	Metrics metrics
}

// Handle runs one recovery pass. It returns the report (Lambda logs it as
// the invocation's result) and, when the store failed part-way, the report
// so far with the error, so that the invocation is marked failed and
// EventBridge's retry runs the pass again: every recovery is a conditional
// write, so a repeated pass recovers nothing twice.
func (h *handler) Handle(ctx context.Context, ev events.CloudWatchEvent) (health.Report, error) {
	log := telemetry.Or(h.Log)
	if ev.ID != "" {
		log = log.With("event_id", ev.ID)
	}
	now := h.Clock.Now()
	rep, err := health.Recover(ctx, h.Models, health.RecoverOptions{Now: now, Cooldown: h.Cooldown, ResetTo: h.ResetTo})
	for _, m := range rep.Recovered {
		log.InfoContext(ctx, "model recovered", "model", m)
		if h.Metrics != nil {
			h.Metrics.Count(health.MetricModelRecoveries, work.LLM, "", 1)
		}
	}
	pending := make([]string, len(rep.Pending))
	for i, p := range rep.Pending {
		pending[i] = p.Model + "@" + p.Due.UTC().Format(time.RFC3339)
	}
	attrs := []any{"checked", rep.Checked, "disabled", rep.Disabled, "recovered", len(rep.Recovered),
		"pending", strings.Join(pending, ","), "operator_disabled", strings.Join(rep.Operator, ",")}
	if h.Metrics != nil {
		if ferr := h.Metrics.Flush(); ferr != nil {
			log.ErrorContext(ctx, "writing metrics failed", "error", ferr.Error())
		}
	}
	if err != nil {
		log.ErrorContext(ctx, "recovery run failed part-way", append(attrs, "error", err.Error())...)
		return rep, err
	}
	log.InfoContext(ctx, "recovery run done", attrs...)
	return rep, nil
}
