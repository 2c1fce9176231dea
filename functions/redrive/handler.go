package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/replay"
)

// DefaultBy names the replayer when a request names nobody: a direct
// invocation carries no caller identity the function could read.
const DefaultBy = "redrive-lambda"

// Handler is the redrive function: its event is a replay.Request, its
// result the replay.Summary.
type Handler struct {
	// Replayer does the work. Required.
	Replayer *replay.Replayer
	// Log receives one line per invocation; nil discards.
	Log *slog.Logger
}

// Handle runs one replay. An invalid request is an error (the invoker sees
// it, nothing changed); so is a DLQ that could not be read, returned with
// the summary so far. Per-dead-letter failures are in Summary.Errors and do
// not fail the invocation: Lambda would retry an asynchronous invocation,
// and the next run resumes anyway.
func (h *Handler) Handle(ctx context.Context, req replay.Request) (replay.Summary, error) {
	log := h.logger()
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		log = log.With("request_id", lc.AwsRequestID)
	}
	if req.By == "" {
		req.By = DefaultBy
	}
	sum, err := h.Replayer.Run(ctx, req)
	attrs := []any{"source", string(req.Source), "mode", string(req.Mode), "dry_run", req.DryRun, "by", req.By,
		"selected", sum.Selected, "replayed", sum.Replayed, "skipped", sum.Skipped, "errors", sum.Errors,
		"scanned", sum.Scanned, "released", sum.Released}
	if err != nil {
		log.ErrorContext(ctx, "replay failed", append(attrs, "error", err.Error())...)
		return sum, err
	}
	log.InfoContext(ctx, "replay done", attrs...)
	return sum, nil
}

func (h *Handler) logger() *slog.Logger {
	if h.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return h.Log
}

// Config is the function's environment.
type Config struct {
	// Queues maps each stage to its queue and DLQ URLs
	// (<STAGE>_QUEUE_URL, <STAGE>_DLQ_URL).
	Queues map[pipeline.Stage]replay.Queues
	// ItemsTable is ITEMS_TABLE.
	ItemsTable string
	// ErrorLogTable is ERRORLOG_TABLE: every replay's entry goes there, in
	// the replay's transaction (the item keeps only its last replays).
	ErrorLogTable string
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
	c := Config{Queues: map[pipeline.Stage]replay.Queues{}}
	for _, st := range pipeline.Stages() {
		p := strings.ToUpper(string(st))
		c.Queues[st] = replay.Queues{Queue: req(p + "_QUEUE_URL"), DLQ: req(p + "_DLQ_URL")}
	}
	c.ItemsTable = req("ITEMS_TABLE")
	c.ErrorLogTable = req("ERRORLOG_TABLE")
	if err := errors.Join(errs...); err != nil {
		return Config{}, fmt.Errorf("redrive configuration: %w", err)
	}
	return c, nil
}
