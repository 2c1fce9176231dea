package main

import (
	"testing"

	"github.com/triagehq/triage/dev/fakes"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

// TestSampleEvents runs every events/llm/*.json through the llm handler
// against the fake LLM's OpenAI dialect.
func TestSampleEvents(t *testing.T) {
	t.Parallel()
	const key = "sk-test-events-0123456789"
	fake, err := fakes.NewLLM(fakes.LLMOptions{APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	srv := fakes.StartTest(t, fake)
	client, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	seed := func(db *store.Memory, id string, st work.Stage) {
		db.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.Fetched,
			State: work.Queued, Stage: st, Document: &work.Document{Text: fakes.ArticleText(id, 1500)}})
	}
	runnertest.EventFiles(t, work.LLM, seed, &enricher{Clients: map[failure.Provider]completer{failure.OpenAI: client},
		Entry: fallback.Entry{Provider: failure.OpenAI, Model: "gpt-4o-mini"}})
}
