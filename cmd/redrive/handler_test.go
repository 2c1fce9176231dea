package main

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/replay/replaytest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

type bundle struct {
	sqs   *replaytest.SQS
	store *store.Memory
	h     *handler
	logs  *bytes.Buffer
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{sqs: replaytest.NewSQS(), store: store.NewMemory(), logs: &bytes.Buffer{}}
	qs := map[work.Stage]replay.Queues{}
	for _, st := range work.Stages() {
		qs[st] = replay.Queues{Queue: "q-" + string(st), DLQ: "dlq-" + string(st)}
	}
	log := slog.New(slog.NewJSONHandler(b.logs, nil))
	b.h = &handler{Replayer: &replay.Replayer{SQS: b.sqs, Items: b.store, Index: b.store, Queues: qs,
		Clock: clock.NewStub(t0), PollWait: -1, Log: log, DefaultBy: defaultBy}, Log: log}
	return b
}

// deadLetter stores item id dead-lettered at st with class c, its payload on
// st's DLQ.
func (b *bundle) deadLetter(t *testing.T, id string, st work.Stage, c work.Class) {
	t.Helper()
	attempts := map[work.Stage]int{st: 5}
	b.store.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Enriched, State: work.Deadletter,
		Stage: st, Attempts: attempts, LastError: &store.LastError{Component: st, ErrorClass: c}, LastFailureAt: t0, UpdatedAt: t0})
	body, err := deadletter.Build(deadletter.Input{ItemID: id, CorrelationID: "corr-" + id, Stage: st, Err: failure.New(c, "x"),
		Failure: failure.Of(c, "test"), Attempts: attempts, FirstFailureAt: t0, LastFailureAt: t0}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b.sqs.Put("dlq-"+string(st), string(body))
}

// TestSampleEvents runs every events/redrive/*.json through the handler.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	runnertest.EachEvent(t, "redrive/*.json", func(t *testing.T, path string, req replay.Request) {
		b := setup(t)
		b.deadLetter(t, "story-000123", work.LLM, work.UpstreamUnavailable)
		b.deadLetter(t, "story-000124", work.LLM, work.AuthDenied)
		b.deadLetter(t, "story-000125", work.Notify, work.NotFound)
		sum, err := b.h.Handle(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"replay-llm-by-class": 1, "dry-run-all": 3, "full-restart": 1, "items-by-id": 1}[strings.TrimSuffix(filepath.Base(path), ".json")]
		if sum.Replayed != want || sum.Errors != 0 {
			t.Fatalf("summary %+v, want %d replayed", sum, want)
		}
		if req.DryRun {
			for _, id := range []string{"story-000123", "story-000124", "story-000125"} {
				if it, _ := b.store.Get(context.Background(), id); it.State != work.Deadletter {
					t.Fatalf("a dry run moved %s to %s", id, it.State)
				}
			}
		}
		for _, o := range sum.Items {
			if o.Action != replay.Replayed {
				continue
			}
			it, _ := b.store.Get(context.Background(), o.ItemID)
			if wantBy := req.By; it.Replays[0].By != wantBy && !(wantBy == "" && it.Replays[0].By == defaultBy) {
				t.Fatalf("by %q", it.Replays[0].By)
			}
		}
		if !strings.Contains(b.logs.String(), `"msg":"replay done"`) {
			t.Fatalf("logs: %s", b.logs.String())
		}
	})
}

func TestInvalidRequestChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "s1", work.LLM, work.UpstreamUnavailable)
	if _, err := b.h.Handle(context.Background(), replay.Request{}); err == nil || !strings.Contains(err.Error(), "note is required") {
		t.Fatalf("a request without a note: %v", err)
	}
	if it, _ := b.store.Get(context.Background(), "s1"); it.State != work.Deadletter || b.sqs.Hidden("dlq-llm") != 0 {
		t.Fatal("an invalid request changed something")
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	full := map[string]string{"ITEMS_TABLE": "items", "ERRORLOG_TABLE": "log"}
	for _, st := range []string{"FETCH", "LLM", "NOTIFY"} {
		full[st+"_QUEUE_URL"], full[st+"_DLQ_URL"] = "q-"+st, "dlq-"+st
	}
	c, err := loadConfig(func(k string) string { return full[k] })
	if err != nil || c.Queues[work.LLM].DLQ != "dlq-LLM" || c.ItemsTable != "items" || c.ErrorLogTable != "log" {
		t.Fatalf("config %+v, %v", c, err)
	}
	_, err = loadConfig(func(k string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "ITEMS_TABLE") || !strings.Contains(err.Error(), "NOTIFY_DLQ_URL") ||
		!strings.Contains(err.Error(), "ERRORLOG_TABLE") {
		t.Fatalf("missing everything: %v", err)
	}
}
