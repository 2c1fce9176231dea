package deadletter_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func TestBuildKeepsTheContractAndNoSecrets(t *testing.T) {
	t.Parallel()
	const (
		key   = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98765"
		email = "jane.doe@example.com"
		text  = "A confidential article about jane.doe@example.com and her card 4111 1111 1111 1111."
	)
	upstream := &failure.HTTPError{Provider: failure.OpenAI, Op: "chat.completions", Status: 401,
		Header: http.Header{"X-Request-Id": {"req_abc123"}},
		Body:   []byte(`{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error","code":"invalid_api_key"}}`)}
	err := failure.WithDetail(fmt.Errorf("enrich for %s: %w", email, upstream), "model", "gpt-4o-mini")
	p := deadletter.Build(deadletter.Input{
		ItemID: "story-1", CorrelationID: "corr-1", Stage: work.LLM, Err: err, Failure: failure.Classify(err),
		Decision: "AUTH_DENIED is permanent", Attempts: map[work.Stage]int{work.Fetch: 2, work.LLM: 1},
		FirstFailureAt: t0, LastFailureAt: t0.Add(time.Minute), MessageID: "m-1", ReceiveCount: 1, InputText: text,
		Details: map[string]string{"api_key": key, "host": "api.openai.com"},
		Replay:  deadletter.Replay{Count: 1, Notes: []deadletter.Note{{At: t0, By: "oncall", Text: "rotated key " + key}}},
	})
	b, merr := p.Marshal()
	if merr != nil {
		t.Fatal(merr)
	}
	raw := string(b)
	for _, secret := range []string{"Zx9Yw8Vu7Ts6Rq5Po4Nm3", "jane.doe", "4111 1111", "confidential article"} {
		if strings.Contains(raw, secret) {
			t.Errorf("payload leaks %q: %s", secret, raw)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"error_class", "stage", "item_id", "correlation_id", "attempts", "first_failure_at",
		"last_failure_at", "last_stack", "sanitized_context", "replay"} {
		if _, ok := m[field]; !ok {
			t.Errorf("payload lacks %q", field)
		}
	}
	sc := p.SanitizedContext
	if p.ErrorClass != work.AuthDenied || sc.UpstreamStatus != 401 || sc.RequestID != "req_abc123" ||
		sc.Details["model"] != "gpt-4o-mini" || sc.Details["host"] != "api.openai.com" || sc.Input == nil ||
		sc.Input.Bytes != len(text) || len(sc.Input.SHA256) != 16 || sc.ErrorType != "*failure.HTTPError" {
		t.Fatalf("sanitized context = %+v", sc)
	}
	if p.Attempts[work.Fetch] != 2 || p.Attempts[work.LLM] != 1 || p.Attempts[work.Notify] != 0 {
		t.Fatalf("attempts = %v, want every stage listed", p.Attempts)
	}
	if !strings.Contains(p.LastStack, "caused by") || !strings.Contains(p.LastStack, "*failure.HTTPError") {
		t.Fatalf("last_stack does not show the error chain: %q", p.LastStack)
	}
}

func TestBuildBoundsStackAndPayload(t *testing.T) {
	t.Parallel()
	huge := errors.New(strings.Repeat("very long upstream complaint ", 1<<15))
	notes := make([]deadletter.Note, 200)
	for i := range notes {
		notes[i] = deadletter.Note{At: t0, By: "op", Text: strings.Repeat("n", 2000)}
	}
	details := map[string]string{}
	for i := range 400 {
		details[fmt.Sprint("k", i)] = strings.Repeat("v", 4000)
	}
	p := deadletter.Build(deadletter.Input{ItemID: "x", Stage: work.Fetch, Err: failure.Recovered(huge),
		Failure: failure.Of(work.InternalBug, "panic"), Details: details, Replay: deadletter.Replay{Count: 3, Notes: notes}})
	if len(p.LastStack) > deadletter.MaxStackBytes {
		t.Fatalf("last_stack is %d bytes, limit %d", len(p.LastStack), deadletter.MaxStackBytes)
	}
	if len(p.Replay.Notes) != deadletter.MaxNotes || p.Replay.Count != 3 {
		t.Fatalf("notes kept = %d (count %d), want the newest %d", len(p.Replay.Notes), p.Replay.Count, deadletter.MaxNotes)
	}
	b, err := p.Marshal()
	if err != nil || len(b) > deadletter.MaxPayloadBytes || !json.Valid(b) {
		t.Fatalf("payload %d bytes (limit %d), err %v", len(b), deadletter.MaxPayloadBytes, err)
	}
}

func TestIDIsDeterministicPerEvent(t *testing.T) {
	t.Parallel()
	a := deadletter.ID("story-1", work.LLM, 3, 0)
	if a != deadletter.ID("story-1", work.LLM, 3, 0) {
		t.Fatal("the same event got two ids")
	}
	for _, other := range []string{
		deadletter.ID("story-2", work.LLM, 3, 0), deadletter.ID("story-1", work.Notify, 3, 0),
		deadletter.ID("story-1", work.LLM, 4, 0), deadletter.ID("story-1", work.LLM, 3, 1),
	} {
		if other == a {
			t.Fatal("different events share an id")
		}
	}
}

// TestMessageDeadLetterHasItsOwnID: a message rejected naming item X (a
// spec that conflicts with X, a malformed body naming X) is dead-lettered
// on attempt 1 of replay 0, as X's own first failure at that stage is; the
// two are different events, and a consumer dropping duplicates by id must
// keep both. The same message rejected again is the same event.
func TestMessageDeadLetterHasItsOwnID(t *testing.T) {
	t.Parallel()
	cause := failure.Of(work.SchemaInvalid, "spec conflicts")
	rejected := func(messageID string) string {
		return deadletter.Build(deadletter.Input{ItemID: "x", Stage: work.Fetch, Err: errors.New("spec conflicts"), Failure: cause,
			Attempts: map[work.Stage]int{work.Fetch: 1}, MessageID: messageID, Body: `{"item_id":"x"}`}).SanitizedContext.DeadLetterID
	}
	own := deadletter.Build(deadletter.Input{ItemID: "x", Stage: work.Fetch, Err: errors.New("gone"), Failure: failure.Of(work.NotFound, "gone"),
		Attempts: map[work.Stage]int{work.Fetch: 1}, MessageID: "m-own"}).SanitizedContext.DeadLetterID
	if own != deadletter.ID("x", work.Fetch, 1, 0) {
		t.Fatalf("an item's dead letter id = %s, want ID(x, fetch, 1, 0)", own)
	}
	if a := rejected("m-1"); a == own || a != rejected("m-1") || a == rejected("m-2") {
		t.Fatalf("message dead letter ids: m-1 %s (again %s), m-2 %s, the item's own %s", a, rejected("m-1"), rejected("m-2"), own)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	p := deadletter.Build(deadletter.Input{ItemID: "i", Stage: work.Notify, Err: errors.New("x"), Failure: failure.Of(work.NotFound, "r")})
	b, _ := p.Marshal()
	got, err := deadletter.Parse(b)
	if err != nil || got.ItemID != "i" || got.ErrorClass != work.NotFound || got.Stage != work.Notify {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for name, body := range map[string]string{
		"raw envelope moved by the backstop": `{"item_id":"i","stage":"fetch","correlation_id":"c"}`,
		"not json":                           `hello`,
		"bad stage":                          `{"item_id":"i","error_class":"X","stage":"nope"}`,
	} {
		if _, err := deadletter.Parse([]byte(body)); err == nil {
			t.Errorf("%s: parsed as a triage dead letter", name)
		}
	}
}

func ExampleBuild() {
	err := &failure.HTTPError{Provider: failure.Webhook, Op: "POST webhook", Status: 404, Body: []byte("channel_not_found")}
	p := deadletter.Build(deadletter.Input{ItemID: "story-7", CorrelationID: "c-7", Stage: work.Notify, Err: err,
		Failure: failure.Classify(err), Attempts: map[work.Stage]int{work.Notify: 1}})
	fmt.Println(p.ErrorClass, p.Stage, p.SanitizedContext.UpstreamStatus, p.SanitizedContext.UpstreamCode)
	// Output: NOT_FOUND notify 404 channel_not_found
}
