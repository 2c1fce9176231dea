// Package telemetry is how triage's functions speak to operators: structured
// JSON logs through log/slog, and CloudWatch metrics as embedded-metric-format
// lines on the same stream.
package telemetry

import (
	"io"
	"log/slog"
	"strings"
)

// NewLogger returns a JSON logger at level ("debug", "info", "warn",
// "error"; anything else is info). Lambda ships stdout to CloudWatch Logs,
// where the JSON fields are queryable with Logs Insights.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var lvl slog.Level
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "debug":
		lvl = slog.LevelDebug
	case "warn", "warning":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		lvl = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl}))
}

// Or returns l, or a logger that writes nothing when l is nil: the logger
// of a component whose Log is optional (as clock.Or is its clock).
func Or(l *slog.Logger) *slog.Logger {
	if l == nil {
		return discard
	}
	return l
}

var discard = slog.New(slog.DiscardHandler)
