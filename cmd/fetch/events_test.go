package main

import (
	"testing"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// TestSampleEvents runs every events/fetch/*.json through the fetch handler
// against the fake article server.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	srv := fakes.StartTest(t, fakes.NewArticles(fakes.ArticleOptions{}))
	seed := func(db *store.Memory, id string, st work.Stage) {
		db.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Received,
			State: work.Queued, Stage: st, SourceURL: srv.URL + "/articles/" + id})
	}
	runnertest.EventFiles(t, work.Fetch, seed, newFetcher(fetcherConfig{}))
}
