package runner_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// TestWithBodies: the work gets the body it needs; a body that expired is a
// permanent NOT_FOUND (only a replay from the stage that wrote it helps), one
// that does not match its reference an INTERNAL_BUG, and the inner work is
// not called for either.
func TestWithBodies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	m := store.NewMemory()
	for _, id := range []string{"ok", "gone", "bad"} {
		if _, err := m.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: now}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.Fetch, Owner: "o", Carrier: "o", Now: now, LeaseFor: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if err := m.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Fetch, Owner: "o", Now: now,
			Output: work.Output{Document: &work.Document{Text: "the text of " + id}}}); err != nil {
			t.Fatal(err)
		}
	}
	m.DropBodies("gone")
	m.TamperBody("bad", store.PartDocument, []byte("something else"))
	var got string
	w := runner.WithBodies{Bodies: m, Parts: []store.Part{store.PartDocument}, Inner: runner.WorkFunc(
		func(_ context.Context, it store.Item) (work.Output, error) {
			got = it.Document.Text
			return work.Output{}, nil
		})}
	load := func(id string) error {
		it, err := m.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got = ""
		_, err = w.Run(ctx, it, gates.Delivery{})
		return err
	}
	if err := load("ok"); err != nil || got != "the text of ok" {
		t.Fatalf("ok: %q, %v", got, err)
	}
	for id, class := range map[string]work.Class{"gone": work.NotFound, "bad": work.InternalBug} {
		err := load(id)
		if c := failure.Classify(err); c.Class != class || got != "" {
			t.Errorf("%s: %v classified %s (work called: %t), want %s", id, err, c.Class, got != "", class)
		}
	}
	if _, err := (runner.WithBodies{Inner: w.Inner}).Run(ctx, store.Item{}, gates.Delivery{}); failure.Classify(err).Class != work.InternalBug {
		t.Errorf("no body store: %v", err)
	}
	// A transient read failure is returned as it is, for the classifier.
	flaky := runner.WithBodies{Bodies: failingBodies{}, Inner: w.Inner, Parts: w.Parts}
	if _, err := flaky.Run(ctx, store.Item{}, gates.Delivery{}); !errors.Is(err, errFlaky) {
		t.Errorf("a failed read: %v", err)
	}
}

var errFlaky = errors.New("read timed out")

type failingBodies struct{}

func (failingBodies) Hydrate(context.Context, store.Item, ...store.Part) (store.Item, error) {
	return store.Item{}, errFlaky
}
