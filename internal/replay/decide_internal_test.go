package replay

import (
	"testing"
	"time"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	dead := store.Item{ID: "i", State: work.Deadletter, Stage: work.LLM,
		Attempts: map[work.Stage]int{work.Fetch: 1, work.LLM: 3}, ReplayCount: 1, UpdatedAt: now.Add(-time.Hour)}
	current := deadletter.ID("i", work.LLM, 3, 1)
	payload := DeadLetter{Kind: deadletter.KindTriage, ItemID: "i", Stage: work.LLM, DeadLetterID: current, MessageID: "m1", Class: work.AuthDenied}
	raw := DeadLetter{Kind: deadletter.KindBackstop, ItemID: "i", Stage: work.LLM, MessageID: "m1"}
	with := func(it store.Item, f func(*store.Item)) *store.Item { f(&it); return &it }
	pending := func(msg string) func(*store.Item) {
		return func(it *store.Item) {
			it.State, it.UpdatedAt = work.Queued, now
			it.Replays = []store.ReplayRecord{{At: now, FromStage: work.LLM, MessageID: msg}}
		}
	}
	tests := []struct {
		name string
		dl   DeadLetter
		it   *store.Item
		want Action
	}{
		{"current dead letter", payload, &dead, Replayed},
		{"failed, hand-off pending", payload, with(dead, func(it *store.Item) { it.State = work.Failed }), Replayed},
		{"no item", payload, nil, Skipped},
		{"an older dead letter of the item", func() DeadLetter { d := payload; d.DeadLetterID = deadletter.ID("i", work.LLM, 3, 0); return d }(), &dead, Duplicate},
		{"item moved on", payload, with(dead, func(it *store.Item) { it.State, it.Stage = work.Queued, work.Notify }), Duplicate},
		{"item done", payload, with(dead, func(it *store.Item) { it.State = work.Done }), Duplicate},
		{"this message's replay not yet sent", payload, with(dead, pending("m1")), Resent},
		{"another message's replay", payload, with(dead, pending("m2")), Duplicate},
		{"a replay from item state not yet claimed", payload, with(dead, pending("")), Resent},
		{"claimed since the replay", payload, with(dead, func(it *store.Item) {
			pending("m1")(it)
			it.State, it.UpdatedAt = work.Working, now.Add(time.Second)
		}), Duplicate},
		{"backstop: retryable item", raw, with(dead, func(it *store.Item) { it.State = work.Retryable }), Replayed},
		{"backstop: queued item", raw, with(dead, func(it *store.Item) { it.State = work.Queued }), Replayed},
		{"backstop: live lease", raw, with(dead, func(it *store.Item) { it.State, it.LeaseUntil = work.Working, now.Add(time.Minute) }), Skipped},
		{"backstop: expired lease", raw, with(dead, func(it *store.Item) { it.State, it.LeaseUntil = work.Working, now.Add(-time.Minute) }), Replayed},
		{"backstop: item at another stage", raw, with(dead, func(it *store.Item) { it.State, it.Stage = work.Retryable, work.Notify }), Duplicate},
		{"backstop: item done", raw, with(dead, func(it *store.Item) { it.State = work.Done }), Duplicate},
		{"backstop: item dead-lettered at that stage", raw, &dead, Duplicate},
		{"backstop: item failed at that stage, hand-off pending", raw, with(dead, func(it *store.Item) { it.State = work.Failed }), HandedOff},
		{"backstop: replay of this message not sent", raw, with(dead, pending("m1")), Resent},
		{"backstop: another message's replay, never claimed", raw, with(dead, pending("m2")), Resent},
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
