package main

import (
	"testing"

	"github.com/triagehq/triage/infra/fakes"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/fallback"
	"github.com/triagehq/triage/shared/llm"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage/stagetest"
	"github.com/triagehq/triage/shared/state"
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
	seed := func(store *state.Memory, id string, st pipeline.Stage) {
		store.Put(state.Item{ID: id, Kind: state.KindStory, CorrelationID: "corr-" + id, Status: state.Fetched,
			State: state.Queued, Stage: st, Document: &state.Document{Text: fakes.ArticleText(id, 1500)}})
	}
	stagetest.EventFiles(t, pipeline.LLM, seed, &enricher{Clients: map[failure.Provider]completer{failure.OpenAI: client},
		Entry: fallback.Entry{Provider: failure.OpenAI, Model: "gpt-4o-mini"}})
}
