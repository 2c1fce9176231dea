package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/triagehq/triage/internal/telemetry"
)

func TestOr(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := telemetry.NewLogger(&buf, "info")
	if telemetry.Or(l) != l {
		t.Fatal("Or replaced a logger it was given")
	}
	quiet := telemetry.Or(nil)
	if quiet == nil || quiet.Enabled(context.Background(), slog.LevelError) {
		t.Fatal("Or(nil) is not a logger that writes nothing")
	}
	quiet.Error("dropped")
}
