package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// stepping is a clock that moves 700 ms at every reading.
func stepping(t time.Time) clock.Func {
	return func() time.Time { t = t.Add(700 * time.Millisecond); return t }
}

func actionItem() store.Item {
	return store.Item{ID: "task-1", Kind: store.KindAction, CorrelationID: "corr-1", LeaseOwner: "m9#2",
		Attempts: map[work.Stage]int{work.LLM: 1}}
}

func wrap(mem *ledger.Memory, c clock.Clock, out work.Output, err error) *ledger.Work {
	return &ledger.Work{Trail: mem, Stage: work.LLM, Clock: c,
		Inner: runFunc(func(context.Context, store.Item) (work.Output, error) { return out, err })}
}

type runFunc func(context.Context, store.Item) (work.Output, error)

func (f runFunc) Run(ctx context.Context, it store.Item, _ gates.Delivery) (work.Output, error) {
	return f(ctx, it)
}

// Each run of an action task is one record saying how it ended, with the
// model, the attempt and the duration; never upstream message text.
func TestWorkRecordsEachActionExecution(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	provider := failure.WithDetail(&failure.HTTPError{Provider: failure.OpenAI, Op: "chat completions", Status: 500,
		Body: []byte(`{"error":{"message":"upstream echoed Authorization: Bearer ` + apiKey + `"}}`)}, "model", "openai:gpt-4o-mini")
	for name, tc := range map[string]struct {
		out  work.Output
		err  error
		want ledger.Execution
	}{
		"success": {
			out:  work.Output{Enrichment: &work.Enrichment{Model: "openai:gpt-4o-mini", ActionOutcome: "success"}},
			want: ledger.Execution{Outcome: ledger.OutcomeSuccess, Model: "openai:gpt-4o-mini"},
		},
		"the model reports failed": {
			err: failure.WithDetail(failure.ActionError("{}\nACTION_OUTCOME: failed | ticket locked by jane@example.com"), "model", "openai:gpt-4o-mini"),
			want: ledger.Execution{Outcome: ledger.OutcomeFailed, Class: work.ActionFailed, Model: "openai:gpt-4o-mini",
				Reason: "ticket locked by [REDACTED:email]"},
		},
		"a provider error": {
			err: provider,
			want: ledger.Execution{Outcome: ledger.OutcomeError, Class: work.UpstreamUnavailable, Model: "openai:gpt-4o-mini",
				UpstreamStatus: 500, Reason: "openai HTTP 500 (model default)"},
		},
		"nothing askable": {
			err:  &failure.WaitError{Until: time.Unix(0, 0), Reason: "every provider's breaker is open"},
			want: ledger.Execution{Outcome: ledger.OutcomeWait, Reason: "nothing asked: every provider's breaker is open"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mem, c := ledger.NewMemory(), stepping(t0)
			out, err := wrap(mem, c, tc.out, tc.err).Run(context.Background(), actionItem(), gates.Delivery{})
			if !errors.Is(err, tc.err) || out.Enrichment != tc.out.Enrichment {
				t.Fatalf("Run changed the result: %v, %v", out, err)
			}
			got := mem.Executions()
			if len(got) != 1 {
				t.Fatalf("%d records, want 1", len(got))
			}
			want := tc.want
			want.ItemID, want.CorrelationID, want.Stage, want.Attempt, want.Delivery = "task-1", "corr-1", work.LLM, 2, "m9#2"
			want.StartedAt, want.Duration = t0.Add(700*time.Millisecond), 700*time.Millisecond
			if got[0] != want {
				t.Fatalf("record %+v\nwant   %+v", got[0], want)
			}
			if strings.Contains(got[0].Reason, apiKey) || strings.Contains(got[0].Reason, "echoed") {
				t.Fatalf("upstream text in the record: %q", got[0].Reason)
			}
		})
	}
}

// Other kinds cost nothing; a failed write never changes the outcome.
func TestWorkCostsNothingForOtherKindsAndNeverChangesTheOutcome(t *testing.T) {
	t.Parallel()
	mem, c := ledger.NewMemory(), stepping(t0)
	w := wrap(mem, c, work.Output{Enrichment: &work.Enrichment{Model: "m"}}, nil)
	for _, k := range []store.Kind{store.KindStory, store.KindDocument, ""} {
		if _, err := w.Run(context.Background(), store.Item{ID: "s", Kind: k}, gates.Delivery{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(mem.Executions()); n != 0 {
		t.Fatalf("%d records for stories and documents, want 0", n)
	}
	mem.Fail = errors.New("ProvisionedThroughputExceededException")
	out, err := w.Run(context.Background(), actionItem(), gates.Delivery{})
	if err != nil || out.Enrichment == nil {
		t.Fatalf("a failed audit write changed the outcome: %v, %v", out, err)
	}
}

// A panic is recorded as INTERNAL_BUG and re-panicked for the runner.
func TestWorkRecordsAPanic(t *testing.T) {
	t.Parallel()
	mem, c := ledger.NewMemory(), stepping(t0)
	w := &ledger.Work{Trail: mem, Stage: work.LLM, Clock: c,
		Inner: runFunc(func(context.Context, store.Item) (work.Output, error) { panic("nil map") })}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was swallowed")
			}
		}()
		_, _ = w.Run(context.Background(), actionItem(), gates.Delivery{})
	}()
	got := mem.Executions()
	if len(got) != 1 || got[0].Outcome != ledger.OutcomeError || got[0].Class != work.InternalBug {
		t.Fatalf("records %+v", got)
	}
}
