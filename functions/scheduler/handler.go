package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/parked"
	"github.com/triagehq/triage/shared/pipeline"
)

// Handler is the scheduler function: on every scheduled event (EventBridge,
// rate(1 minute)) it re-enqueues the parked waits that are due, probes the
// breakers whose waiters are all parked, and releases the waiters of the
// gates that opened, in a ramp (shared/parked).
type Handler struct {
	// Scheduler does the work. Required.
	Scheduler *parked.Scheduler
	// Log receives one line per run (the scheduler logs per record); nil
	// discards.
	Log *slog.Logger
}

// Handle runs one scheduler pass, its claims named by the invocation's
// request id (the event id outside Lambda). It fails only when the due
// records cannot be listed; per-record failures are retried by the next
// run once their claims expire, so the invocation does not fail for them.
func (h *Handler) Handle(ctx context.Context, ev events.CloudWatchEvent) (parked.Result, error) {
	runID := ev.ID
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		runID = lc.AwsRequestID
	}
	res, err := h.Scheduler.Run(ctx, runID)
	if err != nil {
		h.logger().ErrorContext(ctx, "scheduler run failed", "run", runID, "error", err.Error())
		return res, err
	}
	return res, nil
}

func (h *Handler) logger() *slog.Logger {
	if h.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return h.Log
}

// Config is the function's environment.
type Config struct {
	// ParkedTable is PARKED_TABLE; GatesTable GATES_TABLE; BreakersTable
	// BREAKERS_TABLE and ModelsTable MODELS_TABLE, whose records are the
	// breaker, quota and model-chain gates.
	ParkedTable, GatesTable, BreakersTable, ModelsTable string
	// Queues maps each stage to <STAGE>_QUEUE_URL.
	Queues map[pipeline.Stage]string
	// Interval is SCHEDULE_INTERVAL (a Go duration): how often the function
	// runs, over which one run spreads a gate's releases; default 1m. The
	// local stack compresses it.
	Interval time.Duration
	// Ramp is the release ramp: RAMP_START, RAMP_INCREASE (waiters per
	// run) and RAMP_SLOW_START ("false": grow additively from the start);
	// unset values are gate's defaults.
	Ramp gate.RampConfig
}

// LoadConfig reads and validates the environment, reporting every missing
// variable at once.
func LoadConfig(getenv func(string) string) (Config, error) {
	var errs []error
	req := func(name string) string {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is required", name))
		}
		return v
	}
	c := Config{ParkedTable: req("PARKED_TABLE"), GatesTable: req("GATES_TABLE"), BreakersTable: req("BREAKERS_TABLE"),
		ModelsTable: req("MODELS_TABLE"), Queues: map[pipeline.Stage]string{}}
	for _, st := range pipeline.Stages() {
		c.Queues[st] = req(strings.ToUpper(string(st)) + "_QUEUE_URL")
	}
	if v := strings.TrimSpace(getenv("SCHEDULE_INTERVAL")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("SCHEDULE_INTERVAL=%q is not a positive duration", v))
		}
		c.Interval = d
	}
	for name, dst := range map[string]*int{"RAMP_START": &c.Ramp.Start, "RAMP_INCREASE": &c.Ramp.Increase} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("%s=%q is not a positive integer", name, v))
			}
			*dst = n
		}
	}
	if v := strings.TrimSpace(getenv("RAMP_SLOW_START")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("RAMP_SLOW_START=%q is not a boolean", v))
		}
		c.Ramp.NoSlowStart = !b
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, fmt.Errorf("scheduler configuration: %w", err)
	}
	return c, nil
}
