package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

func specMsg(body, messageID string, receives int) events.SQSMessage {
	m := msg("", work.Fetch, messageID, receives)
	m.Body = body
	return m
}

func testSpec(id string) intake.Spec {
	return intake.Spec{ItemID: id, Kind: store.KindDocument, SourceURL: "https://news.example.com/" + id,
		WebhookURL: "https://hooks.example.com/triage", Metadata: map[string]string{"team": "newsroom"}, CorrelationID: "req-" + id}
}

func TestSpecCreatesTheItemAndRunsIt(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	metrics := &telemetry.Tally{}
	tb.runner.Metrics = metrics
	var seen store.Item
	tb.work = func(_ context.Context, it store.Item) (work.Output, error) {
		seen = it
		return okOutput(work.Fetch), nil
	}
	resp := tb.handle(t, context.Background(), specMsg(testSpec("s1").Encode(), "m1", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %v", failedIDs(resp))
	}
	if seen.ID != "s1" || seen.Kind != store.KindDocument || seen.SourceURL != "https://news.example.com/s1" ||
		seen.Metadata["team"] != "newsroom" || seen.CorrelationID != "req-s1" {
		t.Fatalf("the work saw %+v", seen)
	}
	it := tb.item(t, "s1")
	if it.State != work.Queued || it.Stage != work.LLM || it.Status != work.Fetched {
		t.Fatalf("item after fetch: %s at %s (%s)", it.State, it.Stage, it.Status)
	}
	fw := tb.forwards()
	if len(fw) != 1 {
		t.Fatalf("forwards %v", fw)
	}
	env, err := work.DecodeEnvelope(fw[0], work.LLM)
	if err != nil || env.ItemID != "s1" || env.CorrelationID != "req-s1" {
		t.Fatalf("forward %q: %+v, %v", fw[0], env, err)
	}
	if metrics.Get(runner.MetricCreated) != 1 {
		t.Fatalf("Created = %d", metrics.Get(runner.MetricCreated))
	}
}

func TestSpecDuplicates(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		// before prepares the store; then message m2 (receive count 1) is
		// handled.
		before    func(t *testing.T, tb *testBundle)
		wantCalls int64
		wantState work.State
	}{
		"a second message after the item was done with fetch": {
			before: func(t *testing.T, tb *testBundle) {
				tb.handle(t, context.Background(), specMsg(testSpec("d").Encode(), "m1", 1))
			},
			wantCalls: 0, wantState: work.Queued,
		},
		"a second message while the first holds the lease": {
			before: func(t *testing.T, tb *testBundle) {
				// m1 created and claimed the item, then its invocation died.
				if _, err := tb.store.Create(context.Background(), testSpec("d").NewItem("m1#1", tb.clock.Now())); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.store.Claim(context.Background(), store.ClaimRequest{ItemID: "d", Stage: work.Fetch,
					Owner: "m1#1", Carrier: "m1", Now: tb.clock.Now(), LeaseFor: runner.DefaultLease}); err != nil {
					t.Fatal(err)
				}
			},
			wantCalls: 0, wantState: work.Working,
		},
		"the item was created by a delivery that died before its claim": {
			before: func(t *testing.T, tb *testBundle) {
				if _, err := tb.store.Create(context.Background(), testSpec("d").NewItem("m1#1", tb.clock.Now())); err != nil {
					t.Fatal(err)
				}
			},
			// m2 is the producer's retry of the same spec: the item was never
			// claimed, so m2 carries it.
			wantCalls: 1, wantState: work.Queued,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, work.Fetch)
			tc.before(t, tb)
			before := tb.calls.Load()
			spec := testSpec("d")
			spec.CorrelationID = "another-request" // tracing, not content
			resp := tb.handle(t, context.Background(), specMsg(spec.Encode(), "m2", 1))
			if len(resp.BatchItemFailures) != 0 {
				t.Fatalf("failures %v", failedIDs(resp))
			}
			if got := tb.calls.Load() - before; got != tc.wantCalls {
				t.Fatalf("work calls %d, want %d", got, tc.wantCalls)
			}
			if it := tb.item(t, "d"); it.State != tc.wantState || it.CorrelationID != "req-d" {
				t.Fatalf("item %s, correlation %q", it.State, it.CorrelationID)
			}
			if len(tb.deadLetters(t)) != 0 {
				t.Fatal("a duplicate was dead-lettered")
			}
		})
	}
}

func TestConflictingSpecIsDeadLetteredNamingTheFields(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.handle(t, context.Background(), specMsg(testSpec("c").Encode(), "m1", 1))
	before := tb.item(t, "c")
	changed := testSpec("c")
	changed.SourceURL = "https://news.example.com/other?token=sk-live-0123456789abcdefghij"
	changed.Metadata = map[string]string{"team": "sports"}
	resp := tb.handle(t, context.Background(), specMsg(changed.Encode(), "m2", 1), msg("x", work.Fetch, "m3", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %v", failedIDs(resp))
	}
	dls := tb.deadLetters(t)
	if len(dls) != 2 {
		t.Fatalf("dead letters %d, want 2 (the conflict and x, which does not exist)", len(dls))
	}
	p := dls[0]
	if p.ItemID != "c" {
		p = dls[1]
	}
	errText := p.SanitizedContext.Error
	if p.ErrorClass != work.SchemaInvalid || !strings.Contains(errText, "source_url") || !strings.Contains(errText, "metadata") {
		t.Fatalf("dead letter %s: %q", p.ErrorClass, errText)
	}
	if strings.Contains(errText, "sk-live") {
		t.Fatalf("the conflict leaks the URL's token: %q", errText)
	}
	if p.Message == nil || !strings.Contains(p.Message.Body, `"item_id":"c"`) || strings.Contains(p.Message.Body, "sk-live") {
		t.Fatalf("message %+v: want the body, redacted", p.Message)
	}
	after := tb.item(t, "c")
	if after.SourceURL != before.SourceURL || after.State != before.State || after.Metadata["team"] != "newsroom" {
		t.Fatalf("the conflict changed the item: %+v", after)
	}
}

func TestMalformedSpecsAreDeadLetteredAndTheBatchGoesOn(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		stage work.Stage
		body  string
		want  string
	}{
		"no webhook":          {work.Fetch, `{"item_id":"m","source_url":"https://a.example/x"}`, "webhook_url is required"},
		"ftp source":          {work.Fetch, `{"item_id":"m","source_url":"ftp://a.example/x","webhook_url":"https://h.example/"}`, "http:// or https://"},
		"null kind":           {work.Fetch, `{"item_id":"m","kind":null,"source_url":"https://a.example/x","webhook_url":"https://h.example/"}`, "kind must be a string"},
		"a spec on llm queue": {work.LLM, testSpec("m").Encode(), "producers send items to the fetch queue"},
		"not JSON":            {work.Fetch, `item_id=m`, "invalid envelope"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := setup(t, tc.stage)
			tb.seed(t, "ok", tc.stage)
			resp := tb.handle(t, context.Background(), specMsg(tc.body, "bad", 1), msg("ok", tc.stage, "good", 1))
			if len(resp.BatchItemFailures) != 0 {
				t.Fatalf("failures %v", failedIDs(resp))
			}
			dls := tb.deadLetters(t)
			if len(dls) != 1 || dls[0].ErrorClass != work.SchemaInvalid || !strings.Contains(dls[0].SanitizedContext.Error, tc.want) {
				t.Fatalf("dead letters %+v, want one SCHEMA_INVALID saying %q", dls, tc.want)
			}
			if dls[0].Message == nil || dls[0].Message.Bytes != len(tc.body) {
				t.Fatalf("message %+v: want the body kept", dls[0].Message)
			}
			if tb.calls.Load() != 1 {
				t.Fatalf("work calls %d, want 1 (the good record)", tb.calls.Load())
			}
		})
	}
}

func TestUnknownFieldsAreAcceptedCountedAndLoggedOnce(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	metrics := &telemetry.Tally{}
	tb.runner.Metrics = metrics
	var logs bytes.Buffer
	tb.runner.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	tb.seed(t, "e", work.Fetch)
	specA := strings.Replace(testSpec("a").Encode(), `{`, `{"priority":"high",`, 1)
	specB := strings.Replace(testSpec("b").Encode(), `{`, `{"priority":"low","tenant":"t1",`, 1)
	envE := `{"item_id":"e","stage":"fetch","correlation_id":"corr-e","trace":{"id":1}}`
	resp := tb.handle(t, context.Background(), specMsg(specA, "m1", 1), specMsg(specB, "m2", 1), specMsg(envE, "m3", 1))
	if len(resp.BatchItemFailures) != 0 || len(tb.deadLetters(t)) != 0 {
		t.Fatalf("failures %v, dead letters %d", failedIDs(resp), len(tb.deadLetters(t)))
	}
	if tb.calls.Load() != 3 {
		t.Fatalf("work calls %d, want 3", tb.calls.Load())
	}
	if got := metrics.Get(runner.MetricUnknownFields); got != 3 {
		t.Fatalf("UnknownFields = %d, want 3", got)
	}
	for _, field := range []string{"priority", "tenant", "trace"} {
		if n := strings.Count(logs.String(), field); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", field, n, logs.String())
		}
	}
}

// refusingCreate is an item store whose bounds refuse every new item.
type refusingCreate struct{ runner.Items }

func (refusingCreate) Create(_ context.Context, n store.NewItem) (store.Item, error) {
	return store.Item{}, fmt.Errorf("create %s: metadata too large: %w", n.ID, store.ErrInvalidItem)
}

// TestSpecTheStoreRefusesIsDeadLettered: a spec the contract accepts but
// the item store's bounds refuse is no store outage to back off from: no
// retry could create it, so it is dead-lettered SCHEMA_INVALID at once and
// the batch goes on.
func TestSpecTheStoreRefusesIsDeadLettered(t *testing.T) {
	t.Parallel()
	tb := setup(t, work.Fetch)
	tb.runner.Items = refusingCreate{tb.runner.Items}
	resp := tb.handle(t, context.Background(), specMsg(testSpec("big").Encode(), "m1", 1))
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %v: the record was kept for a retry", failedIDs(resp))
	}
	dls := tb.deadLetters(t)
	if len(dls) != 1 || dls[0].ErrorClass != work.SchemaInvalid || dls[0].Message == nil {
		t.Fatalf("dead letters %+v, want one SCHEMA_INVALID message dead letter", dls)
	}
	if tb.calls.Load() != 0 {
		t.Fatal("the work ran for an item that was never created")
	}
}
