package stage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
	"github.com/triagehq/triage/shared/state"
)

// TestWithBodies: the work gets the body it needs; a body that expired is a
// permanent NOT_FOUND (only a replay from the stage that wrote it helps), one
// that does not match its reference an INTERNAL_BUG, and the inner work is
// not called for either.
func TestWithBodies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	m := state.NewMemory()
	for _, id := range []string{"ok", "gone", "bad"} {
		if _, err := m.Create(ctx, state.NewItem{ID: id, Kind: state.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: now}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Claim(ctx, state.ClaimRequest{ItemID: id, Stage: pipeline.Fetch, Owner: "o", Carrier: "o", Now: now, LeaseFor: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if err := m.Complete(ctx, state.CompleteRequest{ItemID: id, Stage: pipeline.Fetch, Owner: "o", Now: now,
			Output: state.Output{Document: &state.Document{Text: "the text of " + id}}}); err != nil {
			t.Fatal(err)
		}
	}
	m.DropBodies("gone")
	m.TamperBody("bad", state.PartDocument, []byte("something else"))
	var got string
	w := stage.WithBodies{Bodies: m, Parts: []state.Part{state.PartDocument}, Inner: stage.WorkFunc(
		func(_ context.Context, it state.Item) (state.Output, error) {
			got = it.Document.Text
			return state.Output{}, nil
		})}
	load := func(id string) error {
		it, err := m.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got = ""
		_, err = w.Run(ctx, it, gate.Delivery{})
		return err
	}
	if err := load("ok"); err != nil || got != "the text of ok" {
		t.Fatalf("ok: %q, %v", got, err)
	}
	for id, class := range map[string]failure.Class{"gone": failure.NotFound, "bad": failure.InternalBug} {
		err := load(id)
		if c := failure.Classify(err); c.Class != class || got != "" {
			t.Errorf("%s: %v classified %s (work called: %t), want %s", id, err, c.Class, got != "", class)
		}
	}
	if _, err := (stage.WithBodies{Inner: w.Inner}).Run(ctx, state.Item{}, gate.Delivery{}); failure.Classify(err).Class != failure.InternalBug {
		t.Errorf("no body store: %v", err)
	}
	// A transient read failure is returned as it is, for the classifier.
	flaky := stage.WithBodies{Bodies: failingBodies{}, Inner: w.Inner, Parts: w.Parts}
	if _, err := flaky.Run(ctx, state.Item{}, gate.Delivery{}); !errors.Is(err, errFlaky) {
		t.Errorf("a failed read: %v", err)
	}
}

var errFlaky = errors.New("read timed out")

type failingBodies struct{}

func (failingBodies) Hydrate(context.Context, state.Item, ...state.Part) (state.Item, error) {
	return state.Item{}, errFlaky
}
