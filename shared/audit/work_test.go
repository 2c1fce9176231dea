package audit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

// stepping is a clock that moves 700 ms at every reading.
func stepping(t time.Time) clock.Func {
	return func() time.Time { t = t.Add(700 * time.Millisecond); return t }
}

func actionItem() state.Item {
	return state.Item{ID: "task-1", Kind: state.KindAction, CorrelationID: "corr-1", LeaseOwner: "m9#2",
		Attempts: map[pipeline.Stage]int{pipeline.LLM: 1}}
}

func wrap(mem *audit.Memory, c clock.Clock, out state.Output, err error) *audit.Work {
	return &audit.Work{Trail: mem, Stage: pipeline.LLM, Clock: c,
		Inner: runFunc(func(context.Context, state.Item) (state.Output, error) { return out, err })}
}

type runFunc func(context.Context, state.Item) (state.Output, error)

func (f runFunc) Run(ctx context.Context, it state.Item, _ gate.Delivery) (state.Output, error) {
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
		out  state.Output
		err  error
		want audit.Execution
	}{
		"success": {
			out:  state.Output{Enrichment: &state.Enrichment{Model: "openai:gpt-4o-mini", ActionOutcome: "success"}},
			want: audit.Execution{Outcome: audit.OutcomeSuccess, Model: "openai:gpt-4o-mini"},
		},
		"the model reports failed": {
			err: failure.WithDetail(failure.ActionError("{}\nACTION_OUTCOME: failed | ticket locked by jane@example.com"), "model", "openai:gpt-4o-mini"),
			want: audit.Execution{Outcome: audit.OutcomeFailed, Class: failure.ActionFailed, Model: "openai:gpt-4o-mini",
				Reason: "ticket locked by [REDACTED:email]"},
		},
		"a provider error": {
			err: provider,
			want: audit.Execution{Outcome: audit.OutcomeError, Class: failure.UpstreamUnavailable, Model: "openai:gpt-4o-mini",
				UpstreamStatus: 500, Reason: "openai HTTP 500 (model default)"},
		},
		"nothing askable": {
			err:  &failure.WaitError{Until: time.Unix(0, 0), Reason: "every provider's breaker is open"},
			want: audit.Execution{Outcome: audit.OutcomeWait, Reason: "nothing asked: every provider's breaker is open"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mem, c := audit.NewMemory(), stepping(t0)
			out, err := wrap(mem, c, tc.out, tc.err).Run(context.Background(), actionItem(), gate.Delivery{})
			if !errors.Is(err, tc.err) || out.Enrichment != tc.out.Enrichment {
				t.Fatalf("Run changed the result: %v, %v", out, err)
			}
			got := mem.Executions()
			if len(got) != 1 {
				t.Fatalf("%d records, want 1", len(got))
			}
			want := tc.want
			want.ItemID, want.CorrelationID, want.Stage, want.Attempt, want.Delivery = "task-1", "corr-1", pipeline.LLM, 2, "m9#2"
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
	mem, c := audit.NewMemory(), stepping(t0)
	w := wrap(mem, c, state.Output{Enrichment: &state.Enrichment{Model: "m"}}, nil)
	for _, k := range []state.Kind{state.KindStory, state.KindDocument, ""} {
		if _, err := w.Run(context.Background(), state.Item{ID: "s", Kind: k}, gate.Delivery{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(mem.Executions()); n != 0 {
		t.Fatalf("%d records for stories and documents, want 0", n)
	}
	mem.Fail = errors.New("ProvisionedThroughputExceededException")
	out, err := w.Run(context.Background(), actionItem(), gate.Delivery{})
	if err != nil || out.Enrichment == nil {
		t.Fatalf("a failed audit write changed the outcome: %v, %v", out, err)
	}
}

// A panic is recorded as INTERNAL_BUG and re-panicked for the runner.
func TestWorkRecordsAPanic(t *testing.T) {
	t.Parallel()
	mem, c := audit.NewMemory(), stepping(t0)
	w := &audit.Work{Trail: mem, Stage: pipeline.LLM, Clock: c,
		Inner: runFunc(func(context.Context, state.Item) (state.Output, error) { panic("nil map") })}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was swallowed")
			}
		}()
		_, _ = w.Run(context.Background(), actionItem(), gate.Delivery{})
	}()
	got := mem.Executions()
	if len(got) != 1 || got[0].Outcome != audit.OutcomeError || got[0].Class != failure.InternalBug {
		t.Fatalf("records %+v", got)
	}
}
