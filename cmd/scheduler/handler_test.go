package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// TestSampleEvents runs every events/scheduler/*.json through the handler
// over the in-memory parked store: due waits are sent once, the rest wait.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	runnertest.EachEvent(t, "scheduler/*.json", func(t *testing.T, path string, ev events.CloudWatchEvent) {
		db := store.NewMemory()
		ctx := context.Background()
		for id, due := range map[string]time.Duration{"due": 24 * time.Hour, "later": 36 * time.Hour} {
			db.Put(store.Item{ID: id, State: work.Working, Stage: work.LLM, LeaseOwner: "o", CorrelationID: "c"})
			if _, err := db.Park(ctx, store.FailRequest{ItemID: id, Stage: work.LLM, Owner: "o", Now: t0},
				store.Parking{DueAt: t0.Add(due), Envelope: work.Envelope{ItemID: id, Stage: work.LLM, CorrelationID: "c"}}); err != nil {
				t.Fatal(err)
			}
		}
		q := runnertest.NewQueues()
		h := &handler{Scheduler: &scheduler.Scheduler{Store: db.ParkedStore(), SQS: q,
			Queues: map[work.Stage]string{work.LLM: "llm"}, Clock: clock.NewStub(ev.Time)}}
		res, err := h.Handle(ctx, ev)
		if err != nil || res.Sent != 1 || res.Deleted != 1 {
			t.Fatalf("result %+v, %v", res, err)
		}
		if sent := q.Sent("llm"); len(sent) != 1 || !strings.Contains(sent[0], `"item_id":"due"`) {
			t.Fatalf("sent %v", sent)
		}
		if res, _ := h.Handle(ctx, ev); res.Sent != 0 {
			t.Fatalf("second run sent %d", res.Sent)
		}
	})
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PARKED_TABLE": "p", "GATES_TABLE": "g", "BREAKERS_TABLE": "b", "MODELS_TABLE": "m",
		"FETCH_QUEUE_URL": "f", "LLM_QUEUE_URL": "l", "NOTIFY_QUEUE_URL": "n"}
	c, err := loadConfig(func(k string) string { return env[k] })
	if err != nil || c.ParkedTable != "p" || c.GatesTable != "g" || c.BreakersTable != "b" || c.ModelsTable != "m" ||
		c.Queues[work.Notify] != "n" || c.Interval != 0 || c.Ramp != (gates.RampConfig{}) {
		t.Fatalf("config %+v, %v", c, err)
	}
	env["SCHEDULE_INTERVAL"], env["RAMP_START"], env["RAMP_INCREASE"], env["RAMP_SLOW_START"] = "2s", "5", "3", "false"
	c, err = loadConfig(func(k string) string { return env[k] })
	if err != nil || c.Interval != 2*time.Second || c.Ramp != (gates.RampConfig{Start: 5, Increase: 3, NoSlowStart: true}) {
		t.Fatalf("config %+v, %v", c, err)
	}
	env["SCHEDULE_INTERVAL"], env["RAMP_START"], env["RAMP_SLOW_START"] = "-1s", "x", "maybe"
	if _, err := loadConfig(func(k string) string { return env[k] }); err == nil ||
		!strings.Contains(err.Error(), "SCHEDULE_INTERVAL") || !strings.Contains(err.Error(), "RAMP_START") || !strings.Contains(err.Error(), "RAMP_SLOW_START") {
		t.Fatalf("bad values: %v", err)
	}
	if _, err := loadConfig(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "LLM_QUEUE_URL") ||
		!strings.Contains(err.Error(), "GATES_TABLE") {
		t.Fatalf("missing everything: %v", err)
	}
}
