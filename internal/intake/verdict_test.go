package intake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/work"

	"github.com/triagehq/triage/internal/store"
)

// TestOneVerdictForASpec feeds the same specs to the three places that
// check one — the producer (Submit), the fetch stage's decoding of the
// message (intake.Decode) and the item store (Create) — and requires the
// same verdict from each: accepted by all, or refused by all with the same
// error, one that the runner dead-letters as SCHEMA_INVALID.
func TestOneVerdictForASpec(t *testing.T) {
	t.Parallel()
	const src, hook = "https://news.example.com/a/1", "https://hooks.example.com/t"
	base := func(edit func(*intake.Spec)) intake.Spec {
		s := intake.Spec{ItemID: "story-1", SourceURL: src, WebhookURL: hook}
		edit(&s)
		return s
	}
	meta := func(n int, key func(int) string, value string) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[key(i)] = value
		}
		return m
	}
	key := func(i int) string { return fmt.Sprintf("k%02d", i) }
	cases := map[string]struct {
		spec  intake.Spec
		valid bool
	}{
		"minimal": {base(func(*intake.Spec) {}), true},
		"every field": {base(func(s *intake.Spec) {
			s.Kind, s.CorrelationID, s.Metadata = store.KindAction, "req-1", map[string]string{"team": "ops"}
		}), true},
		"an item id of 256, its correlation id by default": {base(func(s *intake.Spec) { s.ItemID = strings.Repeat("i", 256) }), true},
		"a correlation id of 256":                          {base(func(s *intake.Spec) { s.CorrelationID = strings.Repeat("c", 256) }), true},
		"a correlation id of 257":                          {base(func(s *intake.Spec) { s.CorrelationID = strings.Repeat("c", 257) }), false},
		"a correlation id with a space":                    {base(func(s *intake.Spec) { s.CorrelationID = "req 1" }), false},
		"no item id":                                       {base(func(s *intake.Spec) { s.ItemID = "" }), false},
		"an item id of 257":                                {base(func(s *intake.Spec) { s.ItemID = strings.Repeat("i", 257) }), false},
		"an item id with a space":                          {base(func(s *intake.Spec) { s.ItemID = "story 1" }), false},
		"a non-ASCII item id":                              {base(func(s *intake.Spec) { s.ItemID = "störy-1" }), false},
		"an unknown kind":                                  {base(func(s *intake.Spec) { s.Kind = "robot" }), false},
		"no source URL":                                    {base(func(s *intake.Spec) { s.SourceURL = "" }), false},
		"no webhook URL":                                   {base(func(s *intake.Spec) { s.WebhookURL = "" }), false},
		"an ftp source URL":                                {base(func(s *intake.Spec) { s.SourceURL = "ftp://files.example.com/a" }), false},
		"a URL without a host":                             {base(func(s *intake.Spec) { s.WebhookURL = "https:///hook" }), false},
		"a URL with a bad port":                            {base(func(s *intake.Spec) { s.SourceURL = "https://news.example.com:port/a" }), false},
		"a URL of 2048": {base(func(s *intake.Spec) {
			s.SourceURL = src + "/" + strings.Repeat("p", 2048-len(src)-1)
		}), true},
		"a URL of 2049": {base(func(s *intake.Spec) {
			s.SourceURL = src + "/" + strings.Repeat("p", 2049-len(src)-1)
		}), false},
		"32 metadata keys":                  {base(func(s *intake.Spec) { s.Metadata = meta(32, key, "v") }), true},
		"33 metadata keys":                  {base(func(s *intake.Spec) { s.Metadata = meta(33, key, "v") }), false},
		"a metadata key of 64":              {base(func(s *intake.Spec) { s.Metadata = map[string]string{strings.Repeat("k", 64): "v"} }), true},
		"a metadata key of 65":              {base(func(s *intake.Spec) { s.Metadata = map[string]string{strings.Repeat("k", 65): "v"} }), false},
		"a metadata key with a space":       {base(func(s *intake.Spec) { s.Metadata = map[string]string{"a b": "v"} }), false},
		"a metadata value of 256 4-byte":    {base(func(s *intake.Spec) { s.Metadata = map[string]string{"k": strings.Repeat("𝄞", 256)} }), true},
		"a metadata value of 257 ASCII":     {base(func(s *intake.Spec) { s.Metadata = map[string]string{"k": strings.Repeat("v", 257)} }), false},
		"every problem at once":             {intake.Spec{ItemID: "a b", Kind: "robot", SourceURL: "ftp://x", Metadata: map[string]string{"a b": "v"}}, false},
		"the largest spec, 4-byte metadata": {largestSpec(), true},
	}
	now := time.Unix(1_800_000_000, 0)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := &fakeSQS{}
			p, _ := newProducer(q)
			body := tc.spec.Encode()
			verdicts := map[string]error{}
			_, verdicts["producer"] = p.Submit(context.Background(), tc.spec)
			if verdicts["producer"] == nil && (len(q.bodies) != 1 || q.bodies[0] != body) {
				t.Fatalf("the producer sent %q, want %q", q.bodies, body)
			}
			_, _, verdicts["fetch stage"] = intake.Decode(body)
			_, verdicts["item store"] = store.NewMemory().Create(context.Background(), tc.spec.NewItem("m#1", now))

			var first string
			for _, at := range []string{"producer", "fetch stage", "item store"} {
				err := verdicts[at]
				if (err == nil) != tc.valid {
					t.Errorf("%s: valid=%t (%v), want %t", at, err == nil, err, tc.valid)
					continue
				}
				if err == nil {
					continue
				}
				var se *store.SpecError
				if !errors.As(err, &se) || !errors.Is(err, work.ErrEnvelope) || !errors.Is(err, intake.ErrInvalid) || !intake.Rejected(err) {
					t.Errorf("%s: %T %v is not a spec error the runner dead-letters as SCHEMA_INVALID", at, err, err)
				}
				if first == "" {
					first = err.Error()
				} else if err.Error() != first {
					t.Errorf("%s says %q, the producer %q", at, err, first)
				}
			}
		})
	}
}

// TestNotUTF8MetadataOneVerdict: a metadata value whose bytes are not UTF-8
// is refused by all three checks with the same error. The fetch stage reads
// the bytes in the message's JSON (an encoder would send U+FFFD instead: a
// value other than the producer's).
func TestNotUTF8MetadataOneVerdict(t *testing.T) {
	t.Parallel()
	spec := intake.Spec{ItemID: "story-1", SourceURL: "https://news.example.com/a/1", WebhookURL: "https://hooks.example.com/t",
		Metadata: map[string]string{"team": "ops\xff"}}
	body := strings.Replace(spec.Encode(), `ops\ufffd`, "ops\xff", 1)
	if !strings.Contains(body, "ops\xff") {
		t.Fatalf("the body %q does not carry the raw byte", body)
	}
	q := &fakeSQS{}
	p, _ := newProducer(q)
	_, fromProducer := p.Submit(context.Background(), spec)
	_, _, fromFetch := intake.Decode(body)
	_, fromStore := store.NewMemory().Create(context.Background(), spec.NewItem("m#1", time.Unix(1_800_000_000, 0)))
	const want = `invalid item spec: metadata "team" must be valid UTF-8`
	for at, err := range map[string]error{"producer": fromProducer, "fetch stage": fromFetch, "item store": fromStore} {
		if err == nil || err.Error() != want || !intake.Rejected(err) {
			t.Errorf("%s: %v, want %q, dead-lettered as SCHEMA_INVALID", at, err, want)
		}
	}
	if len(q.bodies) != 0 {
		t.Errorf("the producer sent %q", q.bodies)
	}
}

// largestSpec has every field at its bound, four-byte characters where
// characters are counted.
func largestSpec() intake.Spec {
	url := func(host string) string {
		p := "https://" + host + "/"
		return p + strings.Repeat("p", intake.MaxURLLen-len(p))
	}
	meta := map[string]string{}
	for i := range intake.MaxMetadataKeys {
		k := fmt.Sprintf("%02d", i)
		meta[k+strings.Repeat("k", intake.MaxMetadataKeyLen-len(k))] = strings.Repeat("𝄞", intake.MaxMetadataValueLen)
	}
	return intake.Spec{ItemID: strings.Repeat("i", intake.MaxItemIDLen), Kind: store.KindDocument,
		SourceURL: url("a.example"), WebhookURL: url("h.example"), Metadata: meta,
		CorrelationID: strings.Repeat("c", intake.MaxCorrelationIDLen)}
}

// TestLoneSurrogateMetadataRefused: a metadata value written with a JSON
// escape of half a surrogate pair ("\ud800") names no character; JSON
// decoding would store U+FFFD in its place, a value other than the one
// sent. The fetch stage refuses the spec (SCHEMA_INVALID) and names the
// field; a whole pair, an escaped U+FFFD and an escaped backslash before
// "ud800" are characters and pass.
func TestLoneSurrogateMetadataRefused(t *testing.T) {
	t.Parallel()
	body := func(v string) string {
		return `{"item_id":"story-1","source_url":"https://news.example.com/a/1","webhook_url":"https://hooks.example.com/t","metadata":{"team":"` + v + `"}}`
	}
	for v, escape := range map[string]string{`ops\ud800`: `\ud800`, `\udc00ops`: `\udc00`, `\ud800\u0041`: `\ud800`, `\uD83D`: `\uD83D`, `a\ud83d\ud83d\ude00`: `\ud83d`, `\\\ud800`: `\ud800`} {
		_, _, err := intake.Decode(body(v))
		want := `invalid item spec: metadata "team" has the escape ` + escape + `, half a surrogate pair: no character`
		if err == nil || err.Error() != want || !intake.Rejected(err) {
			t.Errorf("%s: %v, want %q, dead-lettered as SCHEMA_INVALID", v, err, want)
		}
	}
	for v, want := range map[string]string{`\ud83d\ude00`: "😀", `\uD83D\uDE00!`: "😀!", `\ufffd`: "\ufffd", `\\ud800`: `\ud800`} {
		s, _, err := intake.Decode(body(v))
		if err != nil || s.Metadata["team"] != want {
			t.Errorf("%s: %q %v, want %q", v, s.Metadata["team"], err, want)
		}
	}
}
