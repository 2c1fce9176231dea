package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/telemetry"
)

// defaultBy names the replayer when a request names nobody: a direct
// invocation carries no caller identity the function could read.
const defaultBy = "redrive-lambda"

// handler is the redrive function: its event is a replay.Request, its
// result the replay.Summary.
type handler struct {
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
func (h *handler) Handle(ctx context.Context, req replay.Request) (replay.Summary, error) {
	log := telemetry.Or(h.Log)
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		log = log.With("request_id", lc.AwsRequestID)
	}
	if req.By == "" {
		req.By = defaultBy
	}
	sum, err := h.Replayer.Run(ctx, req)
	attrs := []any{"source", string(req.Source), "mode", string(req.Mode), "dry_run", req.DryRun, "by", req.By,
		"selected", sum.Selected, "replayed", sum.Replayed, "skipped", sum.Skipped, "errors", sum.Errors,
		"scanned", sum.Scanned, "released", sum.Released}
	if err != nil {
		log.ErrorContext(ctx, "replay failed", append(attrs, "error", err.Error())...)
		return sum, err
	}
	if len(sum.Incomplete) > 0 {
		// What is left on these DLQs was not looked at: the next run does.
		log.WarnContext(ctx, "replay done, DLQs not scanned to the end", append(attrs, "incomplete", fmt.Sprint(sum.Incomplete))...)
		return sum, nil
	}
	log.InfoContext(ctx, "replay done", attrs...)
	return sum, nil
}
