package main

import (
	"testing"

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage/stagetest"
	"github.com/triagehq/triage/shared/state"
)

// TestSampleEvents runs every events/fetch/*.json through the fetch handler
// against the fake article server.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	srv := fakes.StartTest(t, fakes.NewArticles(fakes.ArticleOptions{}))
	seed := func(store *state.Memory, id string, st pipeline.Stage) {
		store.Put(state.Item{ID: id, Kind: state.KindStory, CorrelationID: "corr-" + id, Status: state.Received,
			State: state.Queued, Stage: st, SourceURL: srv.URL + "/articles/" + id})
	}
	stagetest.EventFiles(t, pipeline.Fetch, seed, newFetcher(fetcherConfig{}))
}
