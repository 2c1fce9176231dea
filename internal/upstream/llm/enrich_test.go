package llm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
	"github.com/triagehq/triage/internal/work"
)

func TestBuildMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		kind       store.Kind
		text       string
		max        int
		wantUser   string
		wantAction bool
	}{
		{name: "story", kind: store.KindStory, text: "Acme fined.", max: 100, wantUser: "Acme fined."},
		{name: "document", kind: store.KindDocument, text: "Report.", max: 0, wantUser: "Report."},
		{name: "action", kind: store.KindAction, text: "Close ticket 7.", max: 100, wantUser: "Close ticket 7.", wantAction: true},
		{name: "cut on a byte boundary", kind: store.KindStory, text: "abcdef", max: 4, wantUser: "abcd"},
		{name: "cut backs off a split rune", kind: store.KindStory, text: "héllo", max: 2, wantUser: "h"},
		{name: "cut keeps a whole rune", kind: store.KindStory, text: "héllo", max: 3, wantUser: "hé"},
		{name: "cut inside a 4-byte rune", kind: store.KindStory, text: "a😀b", max: 4, wantUser: "a"},
		{name: "no limit", kind: store.KindStory, text: strings.Repeat("x", 1000), max: 0, wantUser: strings.Repeat("x", 1000)},
		{name: "invalid UTF-8 repaired", kind: store.KindStory, text: "ok\xffok", max: 100, wantUser: "ok\uFFFDok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs := llm.BuildMessages(tt.kind, tt.text, tt.max)
			if len(msgs) != 2 || msgs[0].Role != llm.RoleSystem || msgs[1].Role != llm.RoleUser {
				t.Fatalf("messages = %+v, want system then user", msgs)
			}
			if msgs[1].Content != tt.wantUser {
				t.Errorf("user = %q, want %q", msgs[1].Content, tt.wantUser)
			}
			if !utf8.ValidString(msgs[1].Content) {
				t.Errorf("user message is not valid UTF-8")
			}
			sys := msgs[0].Content
			for _, f := range []string{"summary_neutral", "summary_spicy", "category", "severity", "primary_actor", "top_entities",
				"low", "medium", "high", "critical", "1 to 10"} {
				if !strings.Contains(sys, f) {
					t.Errorf("system prompt does not mention %q", f)
				}
			}
			if got := strings.Contains(sys, failure.ActionInstruction); got != tt.wantAction {
				t.Errorf("system prompt has ActionInstruction = %v, want %v", got, tt.wantAction)
			}
			if strings.Contains(sys, tt.text) && tt.text != "" {
				t.Errorf("system prompt contains the document")
			}
		})
	}
}

// enrichmentJSON is a valid answer; mutate edits its fields before encoding.
func enrichmentJSON(mutate func(map[string]any)) string {
	m := map[string]any{
		"summary_neutral": "Acme was fined.",
		"summary_spicy":   "Acme gets burned!",
		"category":        "markets",
		"severity":        "high",
		"primary_actor":   "Acme Corp",
		"top_entities":    []any{"Acme Corp", "SEC"},
	}
	if mutate != nil {
		mutate(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

var wantEnrichment = work.Enrichment{
	SummaryNeutral: "Acme was fined.",
	SummarySpicy:   "Acme gets burned!",
	Category:       "markets",
	Severity:       "high",
	PrimaryActor:   "Acme Corp",
	TopEntities:    []string{"Acme Corp", "SEC"},
}

func TestParseEnrichmentAccepts(t *testing.T) {
	t.Parallel()
	valid := enrichmentJSON(nil)
	action := wantEnrichment
	action.ActionOutcome = "success"
	tests := []struct {
		name    string
		kind    store.Kind
		content string
		want    work.Enrichment
	}{
		{name: "plain", kind: store.KindStory, content: valid, want: wantEnrichment},
		{name: "surrounding whitespace", kind: store.KindStory, content: "\n  " + valid + "\n", want: wantEnrichment},
		{name: "json fence", kind: store.KindStory, content: "```json\n" + valid + "\n```", want: wantEnrichment},
		{name: "bare fence", kind: store.KindDocument, content: "```\n" + valid + "\n```\n", want: wantEnrichment},
		{name: "one-line fence", kind: store.KindStory, content: "```json " + valid + "```", want: wantEnrichment},
		{name: "pretty printed", kind: store.KindStory, content: pretty(valid), want: wantEnrichment},
		{name: "extra field ignored", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["confidence"] = 0.9 }), want: wantEnrichment},
		{name: "severity normalised", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["severity"] = " High " }), want: wantEnrichment},
		{name: "strings trimmed", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["category"] = " markets\n"; m["top_entities"] = []any{" Acme Corp", "SEC "} }),
			want:    wantEnrichment},
		{name: "ten entities", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["top_entities"] = entities(10) }),
			want:    withEntities(wantEnrichment, entities(10))},
		{name: "action marker after JSON", kind: store.KindAction, content: valid + "\nACTION_OUTCOME: success", want: action},
		{name: "action marker after fence", kind: store.KindAction, content: "```json\n" + valid + "\n```\nACTION_OUTCOME: success\n", want: action},
		{name: "action marker before JSON", kind: store.KindAction, content: "ACTION_OUTCOME: success\n" + valid, want: action},
		{name: "action marker inside a JSON field", kind: store.KindAction,
			content: enrichmentJSON(func(m map[string]any) { m["action_outcome"] = "ACTION_OUTCOME: success" }), want: action},
		{name: "marker ignored for stories", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["note"] = "ACTION_OUTCOME: failed | x" }), want: wantEnrichment},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := llm.ParseEnrichment(tt.kind, tt.content)
			if err != nil {
				t.Fatalf("ParseEnrichment: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseEnrichmentRejects(t *testing.T) {
	t.Parallel()
	// modelSays is planted in the model's output; no error may quote it.
	const modelSays = "apocalyptic-PLANTED"
	valid := enrichmentJSON(nil)
	tests := []struct {
		name      string
		kind      store.Kind
		content   string
		wantClass work.Class
		wantIn    string // a fragment the reason must contain, typically the field
	}{
		{name: "empty", kind: store.KindStory, content: "", wantClass: work.ResponseInvalid, wantIn: "empty"},
		{name: "whitespace", kind: store.KindStory, content: " \n\t", wantClass: work.ResponseInvalid, wantIn: "empty"},
		{name: "prose", kind: store.KindStory, content: "Sure! " + modelSays, wantClass: work.ResponseInvalid, wantIn: "not valid JSON"},
		{name: "truncated JSON", kind: store.KindStory, content: valid[:len(valid)/2], wantClass: work.ResponseInvalid, wantIn: "not valid JSON"},
		{name: "array", kind: store.KindStory, content: `["` + modelSays + `"]`, wantClass: work.ResponseInvalid, wantIn: "not a JSON object"},
		{name: "null", kind: store.KindStory, content: `null`, wantClass: work.ResponseInvalid, wantIn: "not a JSON object"},
		{name: "two objects", kind: store.KindStory, content: valid + valid, wantClass: work.ResponseInvalid, wantIn: "after the JSON object"},
		{name: "empty fence", kind: store.KindStory, content: "```json\n```", wantClass: work.ResponseInvalid, wantIn: "no JSON object"},
		{name: "missing summary_neutral", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { delete(m, "summary_neutral") }), wantClass: work.ResponseInvalid, wantIn: "summary_neutral is missing"},
		{name: "null summary_spicy", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["summary_spicy"] = nil }), wantClass: work.ResponseInvalid, wantIn: "summary_spicy is missing"},
		{name: "empty category", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["category"] = "  " }), wantClass: work.ResponseInvalid, wantIn: "category is empty"},
		{name: "primary_actor not a string", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["primary_actor"] = []any{modelSays} }), wantClass: work.ResponseInvalid, wantIn: "primary_actor is not a string"},
		{name: "unknown severity", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["severity"] = modelSays }), wantClass: work.ResponseInvalid, wantIn: "severity is not one of"},
		{name: "numeric severity", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["severity"] = 3 }), wantClass: work.ResponseInvalid, wantIn: "severity is not a string"},
		{name: "missing top_entities", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { delete(m, "top_entities") }), wantClass: work.ResponseInvalid, wantIn: "top_entities is missing"},
		{name: "no entities", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["top_entities"] = []any{} }), wantClass: work.ResponseInvalid, wantIn: "top_entities is empty"},
		{name: "too many entities", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["top_entities"] = entities(11) }), wantClass: work.ResponseInvalid, wantIn: "top_entities has 11 entries"},
		{name: "entities not an array", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["top_entities"] = modelSays }), wantClass: work.ResponseInvalid, wantIn: "top_entities is not an array"},
		{name: "entity not a string", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["top_entities"] = []any{"a", 2} }), wantClass: work.ResponseInvalid, wantIn: "top_entities is not an array"},
		{name: "blank entity", kind: store.KindStory,
			content: enrichmentJSON(func(m map[string]any) { m["top_entities"] = []any{"a", " "} }), wantClass: work.ResponseInvalid, wantIn: "empty entry at index 1"},
		{name: "action failed", kind: store.KindAction,
			content: valid + "\nACTION_OUTCOME: failed | target system rejected the change", wantClass: work.ActionFailed, wantIn: "target system rejected"},
		{name: "action failed beats bad JSON", kind: store.KindAction,
			content: "not json\nACTION_OUTCOME: failed | nope", wantClass: work.ActionFailed, wantIn: "nope"},
		{name: "action marker missing", kind: store.KindAction, content: valid, wantClass: work.ResponseInvalid, wantIn: "no ACTION_OUTCOME marker"},
		{name: "action marker malformed", kind: store.KindAction,
			content: valid + "\nACTION_OUTCOME: " + modelSays, wantClass: work.ResponseInvalid, wantIn: "neither success nor failed"},
		{name: "action success with bad JSON", kind: store.KindAction,
			content: "{\"summary_neutral\": \nACTION_OUTCOME: success", wantClass: work.ResponseInvalid, wantIn: "not valid JSON"},
		{name: "action only marker", kind: store.KindAction, content: "ACTION_OUTCOME: success", wantClass: work.ResponseInvalid, wantIn: "no JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := llm.ParseEnrichment(tt.kind, tt.content)
			if err == nil {
				t.Fatal("ParseEnrichment succeeded, want error")
			}
			c := failure.Classify(err)
			if c.Class != tt.wantClass {
				t.Errorf("class = %s (%s), want %s", c.Class, c.Reason, tt.wantClass)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
			if strings.Contains(err.Error(), modelSays) {
				t.Errorf("error %q quotes the model output", err)
			}
		})
	}
}

func TestParseEnrichmentWrapsSyntaxError(t *testing.T) {
	t.Parallel()
	_, err := llm.ParseEnrichment(store.KindStory, `{"summary_neutral": nope}`)
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("err %v does not wrap a *json.SyntaxError", err)
	}
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Class != work.ResponseInvalid || fe.Reason != "model output is not valid JSON" {
		t.Errorf("err = %#v", err)
	}
}

// TestBuildAndParseAgree checks that every severity the prompt offers parses.
func TestBuildAndParseAgree(t *testing.T) {
	t.Parallel()
	sys := llm.BuildMessages(store.KindStory, "x", 0)[0].Content
	for _, s := range llm.Severities() {
		if !strings.Contains(sys, `"`+s+`"`) {
			t.Errorf("prompt does not offer severity %q", s)
		}
		content := enrichmentJSON(func(m map[string]any) { m["severity"] = s })
		if _, err := llm.ParseEnrichment(store.KindStory, content); err != nil {
			t.Errorf("severity %q: %v", s, err)
		}
	}
}

func ExampleParseEnrichment() {
	content := "```json\n" + `{"summary_neutral":"Acme was fined.","summary_spicy":"Acme burned!",` +
		`"category":"markets","severity":"high","primary_actor":"Acme Corp","top_entities":["Acme Corp","SEC"]}` +
		"\n```\nACTION_OUTCOME: success"
	e, err := llm.ParseEnrichment(store.KindAction, content)
	fmt.Println(e.Severity, e.TopEntities, e.ActionOutcome, err)

	_, err = llm.ParseEnrichment(store.KindAction, content[:len(content)-len("success")]+"failed | ticket is locked")
	fmt.Println(failure.Classify(err).Class)
	// Output:
	// high [Acme Corp SEC] success <nil>
	// ACTION_FAILED
}

func entities(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("Entity %d", i)
	}
	return out
}

func withEntities(e work.Enrichment, list []any) work.Enrichment {
	e.TopEntities = make([]string, len(list))
	for i, v := range list {
		e.TopEntities[i] = v.(string)
	}
	return e
}

func pretty(s string) string {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
