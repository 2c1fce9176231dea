package replay

import (
	"testing"
	"time"

	"github.com/triagehq/triage/shared/deadletter"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	dead := state.Item{ID: "i", State: state.Deadletter, Stage: pipeline.LLM,
		Attempts: map[pipeline.Stage]int{pipeline.Fetch: 1, pipeline.LLM: 3}, ReplayCount: 1, UpdatedAt: now.Add(-time.Hour)}
	current := deadletter.ID("i", pipeline.LLM, 3, 1)
	payload := DeadLetter{Kind: deadletter.KindTriage, ItemID: "i", Stage: pipeline.LLM, DeadLetterID: current, MessageID: "m1", Class: failure.AuthDenied}
	raw := DeadLetter{Kind: deadletter.KindBackstop, ItemID: "i", Stage: pipeline.LLM, MessageID: "m1"}
	with := func(it state.Item, f func(*state.Item)) *state.Item { f(&it); return &it }
	pending := func(msg string) func(*state.Item) {
		return func(it *state.Item) {
			it.State, it.UpdatedAt = state.Queued, now
			it.Replays = []state.ReplayRecord{{At: now, FromStage: pipeline.LLM, MessageID: msg}}
		}
	}
	tests := []struct {
		name string
		dl   DeadLetter
		it   *state.Item
		want Action
	}{
		{"current dead letter", payload, &dead, Replayed},
		{"failed, hand-off pending", payload, with(dead, func(it *state.Item) { it.State = state.Failed }), Replayed},
		{"no item", payload, nil, Skipped},
		{"an older dead letter of the item", func() DeadLetter { d := payload; d.DeadLetterID = deadletter.ID("i", pipeline.LLM, 3, 0); return d }(), &dead, Duplicate},
		{"item moved on", payload, with(dead, func(it *state.Item) { it.State, it.Stage = state.Queued, pipeline.Notify }), Duplicate},
		{"item done", payload, with(dead, func(it *state.Item) { it.State = state.Done }), Duplicate},
		{"this message's replay not yet sent", payload, with(dead, pending("m1")), Resent},
		{"another message's replay", payload, with(dead, pending("m2")), Duplicate},
		{"claimed since the replay", payload, with(dead, func(it *state.Item) {
			pending("m1")(it)
			it.State, it.UpdatedAt = state.Working, now.Add(time.Second)
		}), Duplicate},
		{"backstop: retryable item", raw, with(dead, func(it *state.Item) { it.State = state.Retryable }), Replayed},
		{"backstop: queued item", raw, with(dead, func(it *state.Item) { it.State = state.Queued }), Replayed},
		{"backstop: live lease", raw, with(dead, func(it *state.Item) { it.State, it.LeaseUntil = state.Working, now.Add(time.Minute) }), Skipped},
		{"backstop: expired lease", raw, with(dead, func(it *state.Item) { it.State, it.LeaseUntil = state.Working, now.Add(-time.Minute) }), Replayed},
		{"backstop: item at another stage", raw, with(dead, func(it *state.Item) { it.State, it.Stage = state.Retryable, pipeline.Notify }), Duplicate},
		{"backstop: item done", raw, with(dead, func(it *state.Item) { it.State = state.Done }), Duplicate},
		{"backstop: replay of this message not sent", raw, with(dead, pending("m1")), Resent},
		{"unreadable", DeadLetter{Kind: deadletter.KindUnreadable, ItemID: "i"}, &dead, Skipped},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := decide(tc.dl, tc.it, now); got.action != tc.want {
				t.Fatalf("decide = %+v, want %s", got, tc.want)
			}
		})
	}
}
