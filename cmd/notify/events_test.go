package main

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

// TestSampleEvents runs every events/notify/*.json through the notify
// handler against the fake webhook receiver, which verifies signatures.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	const secret = "whsec_events_test_secret"
	srv := fakes.StartTest(t, fakes.NewWebhook(fakes.WebhookOptions{Secret: secret}))
	seed := func(db *store.Memory, id string, st work.Stage) {
		db.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Enriched,
			State: work.Queued, Stage: st, WebhookURL: srv.URL + "/hooks/demo",
			Enrichment: &work.Enrichment{SummaryNeutral: "n", SummarySpicy: "s", Category: "c", Severity: "low",
				PrimaryActor: "a", TopEntities: []string{"e"}, Model: "gpt-4o-mini"}})
	}
	n := newNotifier(notifierConfig{Secret: func(context.Context) ([]byte, error) { return []byte(secret), nil }})
	runnertest.EventFiles(t, work.Notify, seed, n)
}

// TestSampleNoticeEvents runs every events/notify/notices*.json — records of
// the notice queue — through the notify function's router against the fake
// webhook receiver: each notice is delivered, signed, once.
func TestSampleNoticeEvents(t *testing.T) {
	t.Parallel()
	const secret = "whsec_events_test_secret"
	hook := fakes.NewWebhook(fakes.WebhookOptions{Secret: secret})
	srv := fakes.StartTest(t, hook)
	// The group ends when every file's parallel subtest has, before the
	// deliveries are read.
	t.Run("files", func(t *testing.T) {
		runnertest.EachEvent(t, "notify/notices*.json", func(t *testing.T, path string, ev events.SQSEvent) {
			items := store.NewMemory()
			for _, rec := range ev.Records {
				n, err := notice.Decode(rec.Body)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				items.Put(store.Item{ID: n.ItemID, Kind: store.KindAction, WebhookURL: srv.URL + "/hooks/" + n.ItemID})
			}
			rt := &router{
				stage: func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
					t.Fatalf("%s: a notice reached the stage's runner", path)
					return events.SQSEventResponse{}, nil
				},
				notices: &notice.Handler{Items: items, Ledger: ledger.NewMemory(), SQS: runnertest.NewQueues(), QueueURL: "https://q/n",
					Poster: newNotifier(notifierConfig{Secret: func(context.Context) ([]byte, error) { return []byte(secret), nil }})},
				noticeQueue: "n", stageQueue: "triage-local-NotifyQueue", log: testLog(),
			}
			resp, err := rt.Handle(context.Background(), ev)
			if err != nil || len(resp.BatchItemFailures) != 0 {
				t.Fatalf("%s: %v, kept %v", path, err, resp.BatchItemFailures)
			}
			for _, rec := range ev.Records {
				n, _ := notice.Decode(rec.Body)
				if got := hook.DeliveryCount(n.ID); got != 1 {
					t.Errorf("%s: %s delivered %d times", path, n.ID, got)
				}
			}
		})
	})
	for _, d := range hook.Deliveries() {
		if !d.SignatureValid || (d.Event != string(notice.Failed) && d.Event != string(notice.RetryScheduled)) {
			t.Errorf("delivery %+v", d)
		}
	}
}
