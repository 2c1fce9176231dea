package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// disable auto-disables model with failures at at.
func disable(t *testing.T, s health.Store, model string, at time.Time) {
	t.Helper()
	for range health.DefaultThreshold {
		if _, err := s.RecordFailure(context.Background(), health.FailureRequest{Model: model, Class: work.ResponseInvalid, At: at}); err != nil {
			t.Fatal(err)
		}
	}
}

// recoveryScenario: not before 1 h; count 2 after; three further failures
// disable the model again.
func recoveryScenario(t *testing.T, store health.Store) {
	ctx := context.Background()
	clock := clock.NewStub(t0)
	var logs, metrics bytes.Buffer
	h := &handler{Models: store, Clock: clock, Log: slog.New(slog.NewJSONHandler(&logs, nil)),
		Metrics: telemetry.NewEMF(&metrics, "triage/test", clock)}
	disable(t, store, "gpt-4o-mini", t0)

	for _, at := range []time.Duration{30 * time.Minute, time.Hour - time.Second} {
		clock.Advance(at - clock.Now().Sub(t0))
		rep, err := h.Handle(ctx, events.CloudWatchEvent{})
		if err != nil || len(rep.Recovered) != 0 || len(rep.Pending) != 1 || !rep.Pending[0].Due.Equal(t0.Add(time.Hour)) {
			t.Fatalf("at +%v: %+v, %v; want nothing recovered, one pending until +1h", at, rep, err)
		}
	}
	clock.Advance(time.Second)
	rep, err := h.Handle(ctx, events.CloudWatchEvent{})
	if err != nil || strings.Join(rep.Recovered, ",") != "gpt-4o-mini" {
		t.Fatalf("at +1h: %+v, %v", rep, err)
	}
	m, err := store.Get(ctx, "gpt-4o-mini")
	if err != nil || m.Disabled || m.ConsecutiveFailures != 2 || !m.RecoveredAt.Equal(clock.Now()) {
		t.Fatalf("recovered model = %+v, %v", m, err)
	}
	if !strings.Contains(logs.String(), `"msg":"model recovered"`) || !strings.Contains(metrics.String(), `"ModelRecoveries":1`) {
		t.Fatalf("logs or metrics missing:\n%s\n%s", logs.String(), metrics.String())
	}
	tr := &health.Tracker{Store: store, Clock: clock}
	for i := 1; i <= 3; i++ {
		res, err := tr.RecordFailure(ctx, "gpt-4o-mini", fmt.Sprint("item-", i), failure.Of(work.ClientError, "HTTP 400"))
		if err != nil || res.Disabled != (i == 3) {
			t.Fatalf("failure %d after recovery: %+v, %v", i, res, err)
		}
	}
	rep, err = h.Handle(ctx, events.CloudWatchEvent{})
	if err != nil || len(rep.Recovered) != 0 {
		t.Fatalf("a run right after the second disable: %+v, %v", rep, err)
	}
}

func TestRecoveryMemory(t *testing.T) {
	t.Parallel()
	recoveryScenario(t, health.NewMemory())
}

func TestRecoveryDynamo(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	table := env.Output(t, "ModelsTableName")
	recoveryScenario(t, &health.Dynamo{DB: dynamodb.NewFromConfig(env.AWS), Table: table})
}

type failingStore struct{ health.Store }

func (failingStore) List(context.Context) ([]health.Model, error) {
	return nil, errors.New("dynamodb unreachable")
}

func TestRecoveryStoreError(t *testing.T) {
	t.Parallel()
	h := &handler{Models: failingStore{health.NewMemory()}, Clock: clock.NewStub(t0)}
	if _, err := h.Handle(context.Background(), events.CloudWatchEvent{}); err == nil {
		t.Fatal("a store error was swallowed: the invocation must fail so EventBridge retries it")
	}
}

// TestSampleEvents runs every events/recovery/*.json through the handler.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	runnertest.EachEvent(t, "recovery/*.json", func(t *testing.T, path string, ev events.CloudWatchEvent) {
		if ev.DetailType != "Scheduled Event" || ev.Source != "aws.events" {
			t.Fatalf("%s: %s from %s, want a Scheduled Event", path, ev.DetailType, ev.Source)
		}
		store := health.NewMemory()
		disable(t, store, "old-model", ev.Time.Add(-2*time.Hour))
		disable(t, store, "young-model", ev.Time.Add(-10*time.Minute))
		h := &handler{Models: store, Clock: clock.NewStub(ev.Time)}
		rep, err := h.Handle(context.Background(), ev)
		if err != nil || strings.Join(rep.Recovered, ",") != "old-model" || len(rep.Pending) != 1 {
			t.Fatalf("= %+v, %v", rep, err)
		}
	})
}

func TestLoadConfigClockOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value   string
		want    time.Duration
		wantErr bool
	}{
		{"", 0, false},
		{"61m", 61 * time.Minute, false},
		{" 2h ", 2 * time.Hour, false},
		{"-1h", 0, true},
		{"soon", 0, true},
	}
	for _, tc := range tests {
		env := map[string]string{"MODELS_TABLE": "m", clockOffsetEnv: tc.value}
		c, err := loadConfig(func(k string) string { return env[k] })
		if (err != nil) != tc.wantErr || time.Duration(c.clock) != tc.want {
			t.Errorf("%q: %v, %v; want %v (error %t)", tc.value, time.Duration(c.clock), err, tc.want, tc.wantErr)
		}
	}
}
