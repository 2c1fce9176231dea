package failure_test

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// Seed corpora live in testdata/fuzz/<Name>: realistic provider responses
// plus the shapes that break parsers (deep nesting, escapes, values
// at the limits of float parsing, invalid UTF-8).

// fuzzNows are the clocks requested delays are resolved against: ordinary,
// the zero time and the far future, so no subtraction can overflow unseen.
var fuzzNows = []time.Time{
	time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
	{},
	time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
}

func checkRequested(t *testing.T, r failure.Requested) {
	t.Helper()
	if r.Delay < 0 || r.Delay > failure.MaxRequestedDelay {
		t.Fatalf("delay %v outside [0, %v]", r.Delay, failure.MaxRequestedDelay)
	}
	for _, now := range fuzzNows {
		if d := r.Resolve(now); d < 0 || d > failure.MaxRequestedDelay {
			t.Fatalf("Resolve(%v) = %v outside [0, %v] for %+v", now, d, failure.MaxRequestedDelay, r)
		}
	}
}

// FuzzClassifyHTTP feeds arbitrary responses from every provider to Classify.
func FuzzClassifyHTTP(f *testing.F) {
	f.Fuzz(func(t *testing.T, status int, provider uint8, retryAfter, header string, body []byte) {
		providers := failure.Providers()
		p := providers[int(provider)%len(providers)]
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("X-Ratelimit-Remaining-Tokens", "0")
		h.Set("X-Ratelimit-Reset-Tokens", header)
		h.Set("Anthropic-Ratelimit-Requests-Reset", header)
		h.Set("X-Amzn-Errortype", header)
		herr := &failure.HTTPError{Provider: p, Op: "fuzz", Status: status, Header: h, Body: body}

		c := failure.Classify(herr)
		if !c.Class.Valid() {
			t.Fatalf("invalid class %q", c.Class)
		}
		want, ok := designTraits[c.Class]
		if !ok || (work.Traits{Retryable: c.Retryable, Counts: c.Counts, ModelSpecific: c.ModelSpecific}) != want || c.Class.Traits() != want {
			t.Fatalf("%s carries traits {%t %t %t}, docs/design.md says %+v", c.Class, c.Retryable, c.Counts, c.ModelSpecific, want)
		}
		// A model-specific class only from a model endpoint: one its name
		// says, or an upstream nothing names whose answer only a model API
		// writes (docs/design.md "The role of the upstream").
		if c.ModelSpecific && failure.FactsOf(herr).Role != failure.RoleModel {
			t.Fatalf("%s from %s (role %s) is model-specific", c.Class, p, failure.FactsOf(herr).Role)
		}
		if c.Provider != p || c.Status != status {
			t.Fatalf("evidence %s %d, want %s %d", c.Provider, c.Status, p, status)
		}
		if c.Reason == "" || len(c.Reason) > 200 {
			t.Fatalf("reason %q: empty or unbounded", c.Reason)
		}
		if len(c.Code) > 120 {
			t.Fatalf("code is %d bytes: unbounded", len(c.Code))
		}
		if len(body) > 40 && strings.Contains(c.Reason, string(body)) {
			t.Fatalf("reason %q contains the body", c.Reason)
		}
		checkRequested(t, c.Requested)
		r, _ := failure.ParseRequested(status, h, body)
		if r.Delay != c.Requested.Delay || !r.At.Equal(c.Requested.At) || r.Source != c.Requested.Source {
			t.Fatalf("Classify requested %+v, ParseRequested %+v", c.Requested, r)
		}
		// Wrapping never changes the answer.
		if w := failure.Classify(fmt.Errorf("stage: %w", herr)); w.Class != c.Class || w.Reason != c.Reason {
			t.Fatalf("wrapped: %s (%s), bare: %s (%s)", w.Class, w.Reason, c.Class, c.Reason)
		}
		msg := herr.Error()
		if utf8.Valid(body) && !utf8.ValidString(msg) {
			t.Fatalf("Error() of a valid UTF-8 body is not valid UTF-8: %q", msg)
		}
		if len(msg) > 600 {
			t.Fatalf("Error() is %d bytes: unbounded", len(msg))
		}
	})
}

// FuzzParseRequested feeds arbitrary header values and bodies to ParseRequested.
func FuzzParseRequested(f *testing.F) {
	f.Fuzz(func(t *testing.T, status int, retryAfter, retryAfterMs, reset, remaining, anthropicReset string, body []byte) {
		h := http.Header{}
		set := func(k, v string) {
			if v != "" {
				h.Set(k, v)
			}
		}
		set("Retry-After", retryAfter)
		set("Retry-After-Ms", retryAfterMs)
		set("X-Ratelimit-Reset-Requests", reset)
		set("X-Ratelimit-Remaining-Requests", remaining)
		set("X-Ratelimit-Reset-Tokens", anthropicReset)
		set("Anthropic-Ratelimit-Tokens-Reset", anthropicReset)
		set("Anthropic-Ratelimit-Tokens-Remaining", remaining)

		r, ok := failure.ParseRequested(status, h, body)
		checkRequested(t, r)
		if !ok {
			if r != (failure.Requested{}) {
				t.Fatalf("not found but returned %+v", r)
			}
			return
		}
		if r.Source == "" {
			t.Fatalf("found %+v without a source", r)
		}
		if !r.At.IsZero() && r.Delay != 0 {
			t.Fatalf("both a delay and a time: %+v", r)
		}
		isReset := strings.HasPrefix(r.Source, "x-ratelimit-") || strings.HasPrefix(r.Source, "anthropic-")
		if isReset && status != http.StatusTooManyRequests {
			t.Fatalf("reset header %s read on HTTP %d", r.Source, status)
		}
		// retry-after-ms, when it is a usable number, takes precedence.
		if ms, err := strconv.ParseFloat(strings.TrimSpace(retryAfterMs), 64); err == nil && ms >= 0 && ms <= 1e300 && r.Source != "retry-after-ms" {
			t.Fatalf("retry-after-ms %q ignored for %s", retryAfterMs, r.Source)
		}
	})
}

// asciiUpper upper-cases ASCII letters only, so byte offsets survive.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}

// FuzzParseActionOutcome feeds arbitrary model answers to the marker parser.
func FuzzParseActionOutcome(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		o, found, err := failure.ParseActionOutcome(text)
		if found != strings.Contains(asciiUpper(text), failure.ActionMarker) {
			t.Fatalf("found = %v for a text that %s the marker", found, map[bool]string{true: "lacks", false: "has"}[found])
		}
		switch {
		case !found:
			if err != nil || o != (failure.Outcome{}) {
				t.Fatalf("no marker but outcome %+v, err %v", o, err)
			}
		case err != nil:
			if !errors.Is(err, &failure.Error{Class: work.ResponseInvalid}) || o != (failure.Outcome{}) {
				t.Fatalf("malformed marker: outcome %+v, err %v", o, err)
			}
		case o.Success:
			if o.Reason != "" {
				t.Fatalf("success with reason %q", o.Reason)
			}
		default:
			if strings.TrimSpace(o.Reason) == "" || strings.ContainsAny(o.Reason, "\r\n\"") {
				t.Fatalf("failed with reason %q", o.Reason)
			}
			if len(o.Reason) > failure.MaxActionReason+len("…( bytes)")+20 {
				t.Fatalf("reason of %d bytes is unbounded", len(o.Reason))
			}
			if utf8.ValidString(text) && !utf8.ValidString(o.Reason) {
				t.Fatalf("reason %q is not valid UTF-8", o.Reason)
			}
		}

		aerr := failure.ActionError(text)
		var want work.Class
		switch {
		case !found || err != nil:
			want = work.ResponseInvalid
		case !o.Success:
			want = work.ActionFailed
		}
		if want == "" {
			if aerr != nil {
				t.Fatalf("success but ActionError = %v", aerr)
			}
			return
		}
		c := failure.Classify(aerr)
		if c.Class != want {
			t.Fatalf("ActionError classifies as %s, want %s", c.Class, want)
		}
		if want == work.ActionFailed && len(o.Reason) > 24 && strings.Contains(c.Reason, o.Reason) {
			t.Fatalf("classification reason %q carries the model's text", c.Reason)
		}
	})
}

// FuzzProseDelay feeds arbitrary text to the prose delay reader: no panic,
// a delay within bounds, and the same answer for the text inside a longer
// one that starts with it (the reader looks at a bounded prefix).
func FuzzProseDelay(f *testing.F) {
	for _, s := range []string{"Please try again in 59.977s.", "retry after 2 seconds", "wait 1m30s", "resets in 1 hour and 2 minutes",
		"retry in 99999999999999999999s", "try again in 1.2.3s", "wait ~ about 5 min", "Retry-After: 30", "wait wait wait 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := failure.ProseDelay(s)
		if d < 0 || d > failure.MaxRequestedDelay || !ok && d != 0 {
			t.Fatalf("ProseDelay(%q) = %v %v", s, d, ok)
		}
	})
}

// FuzzClassifyEvidence feeds arbitrary evidence — any provider name, stage,
// status, code, body and text — to Classify and FactsOf.
func FuzzClassifyEvidence(f *testing.F) {
	f.Add("groq", uint8(1), 429, "", "", []byte(`{"error":{"message":"Please try again in 2s","code":"rate_limit_exceeded"}}`))
	f.Add("gemini", uint8(1), 429, "", "", []byte(`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"retryDelay":"21s"}]}}`))
	f.Add("acme", uint8(0), 400, "E_X", "Error code: 400 - {'error': {'message': 'quota'}}", []byte(`[{"error":{"message":"{\"error\":{}}"}}]`))
	f.Add("", uint8(3), 0, "", "rpc error: code = ResourceExhausted desc = x", []byte(nil))
	f.Fuzz(func(t *testing.T, provider string, stage uint8, status int, code, text string, body []byte) {
		stages := []work.Stage{"", work.Fetch, work.LLM, work.Notify}
		ev := &failure.Evidence{Provider: failure.Provider(provider), Stage: stages[int(stage)%len(stages)], Status: status, Code: code,
			Text: text, Body: body}
		c := failure.Classify(ev)
		want, ok := designTraits[c.Class]
		if !ok || (work.Traits{Retryable: c.Retryable, Counts: c.Counts, ModelSpecific: c.ModelSpecific}) != want {
			t.Fatalf("%s carries traits {%t %t %t}, docs/design.md says %+v", c.Class, c.Retryable, c.Counts, c.ModelSpecific, want)
		}
		if c.Reason == "" || len(c.Reason) > 300 {
			t.Fatalf("reason %q: empty or unbounded", c.Reason)
		}
		if len(c.Code) > 120 {
			t.Fatalf("code is %d bytes: unbounded", len(c.Code))
		}
		checkRequested(t, c.Requested)
		facts := failure.FactsOf(ev)
		if len(facts.Text) > failure.MaxFactsText || len(facts.Body) > failure.MaxFactsText || len(facts.Message) > failure.MaxFactsMessage ||
			len(facts.Codes) > 8 {
			t.Fatalf("facts unbounded: %d %d %d %d", len(facts.Text), len(facts.Body), len(facts.Message), len(facts.Codes))
		}
		if t := failure.Classify(errors.New(ev.Error())); !t.Class.Valid() {
			panic("invalid class from text")
		}
	})
}
