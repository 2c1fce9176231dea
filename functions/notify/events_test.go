package main

import (
	"context"
	"testing"

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage/stagetest"
	"github.com/triagehq/triage/shared/state"
)

// TestSampleEvents runs every events/notify/*.json through the notify
// handler against the fake webhook receiver, which verifies signatures.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	const secret = "whsec_events_test_secret"
	srv, err := fakes.Start("", fakes.NewWebhook(fakes.WebhookOptions{Secret: secret}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	seed := func(store *state.Memory, id string, st pipeline.Stage) {
		store.Put(state.Item{ID: id, Kind: state.KindStory, CorrelationID: "corr-" + id, Status: state.Enriched,
			State: state.Queued, Stage: st, WebhookURL: srv.URL + "/hooks/demo",
			Enrichment: &state.Enrichment{SummaryNeutral: "n", SummarySpicy: "s", Category: "c", Severity: "low",
				PrimaryActor: "a", TopEntities: []string{"e"}, Model: "gpt-4o-mini"}})
	}
	n := NewNotifier(NotifierConfig{Secret: func(context.Context) ([]byte, error) { return []byte(secret), nil }})
	stagetest.EventFiles(t, pipeline.Notify, seed, n)
}
