package deadletter_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestReadAndAttributes: what is written to a dead-letter queue reads back
// as a triage payload, with the attributes filters use; a backstop's
// envelope and anything else are told apart.
func TestReadAndAttributes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	p := deadletter.Build(deadletter.Input{ItemID: "it-1", CorrelationID: "c-1", Stage: work.Notify,
		Err: failure.New(work.NotFound, "webhook gone"), Failure: failure.Of(work.NotFound, "t"),
		Attempts: map[work.Stage]int{work.Notify: 1}, FirstFailureAt: now, LastFailureAt: now})
	body, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	kind, got, env := deadletter.Read(string(body))
	if kind != deadletter.KindTriage || got == nil || env != nil || got.ItemID != "it-1" {
		t.Fatalf("Read(payload) = %s, %+v, %+v", kind, got, env)
	}
	attrs := p.Attributes()
	for name, want := range map[string]string{"error_class": "NOT_FOUND", "stage": "notify", "item_id": "it-1",
		"dead_letter_id": p.SanitizedContext.DeadLetterID} {
		if v := attrs[name]; aws.ToString(v.StringValue) != want || aws.ToString(v.DataType) != "String" {
			t.Errorf("attribute %s = %q, want %q", name, aws.ToString(v.StringValue), want)
		}
	}
	envBody := work.Envelope{ItemID: "it-2", Stage: work.LLM, CorrelationID: "c-2"}.Encode()
	if kind, got, env := deadletter.Read(envBody); kind != deadletter.KindBackstop || got != nil || env == nil || env.ItemID != "it-2" {
		t.Errorf("Read(envelope) = %s, %+v, %+v", kind, got, env)
	}
	if kind, got, env := deadletter.Read("not json"); kind != deadletter.KindUnreadable || got != nil || env != nil {
		t.Errorf("Read(junk) = %s, %+v, %+v", kind, got, env)
	}
}
