package main

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/telemetry"
)

// handler is the scheduler function: on every scheduled event (EventBridge,
// rate(1 minute)) it re-enqueues the parked waits that are due, probes the
// breakers whose waiters are all parked, and releases the waiters of the
// gates that opened, in a ramp (internal/scheduler).
type handler struct {
	// Scheduler does the work. Required.
	Scheduler *scheduler.Scheduler
	// Log receives one line per run (the scheduler logs per record); nil
	// discards.
	Log *slog.Logger
}

// Handle runs one scheduler pass, its claims named by the invocation's
// request id (the event id outside Lambda). It fails only when the due
// records cannot be listed; per-record failures are retried by the next
// run once their claims expire, so the invocation does not fail for them.
func (h *handler) Handle(ctx context.Context, ev events.CloudWatchEvent) (scheduler.Result, error) {
	runID := ev.ID
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		runID = lc.AwsRequestID
	}
	res, err := h.Scheduler.Run(ctx, runID)
	if err != nil {
		telemetry.Or(h.Log).ErrorContext(ctx, "scheduler run failed", "run", runID, "error", err.Error())
		return res, err
	}
	return res, nil
}
