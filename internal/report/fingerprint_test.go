package report_test

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// TestShape normalises failures as clients and SDKs print them: what
// varies goes, the family's wording stays.
func TestShape(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ in, want string }{
		"openai python, a dict with quoted values": {
			`Error code: 400 - {'error': {'message': "This model's maximum context length is 8192 tokens. However, your messages resulted in 9314 tokens.", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}`,
			`Error code: <n> - {'error': {'message': "<q>", 'type': '<q>', 'param': '<q>', 'code': '<q>'}}`,
		},
		"aws sdk go v2, a request id": {
			`operation error Bedrock Runtime: InvokeModel, https response error StatusCode: 400, RequestID: 3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b, ValidationException: Malformed input request: #: extraneous key [foo] is not permitted`,
			`operation error Bedrock Runtime: InvokeModel, https response error StatusCode: <n>, RequestID: <uuid>, ValidationException: Malformed input request: #: extraneous key [foo] is not permitted`,
		},
		"go net/http, a quoted URL and an address": {
			`Post "https://api.groq.com/openai/v1/chat/completions?user=42": dial tcp 104.18.2.161:443: i/o timeout`,
			`Post "https://api.groq.com/openai/v1/chat/completions": dial tcp <ip>: i/o timeout`,
		},
		"node": {`Error: connect ECONNREFUSED 127.0.0.1:8080`, `Error: connect ECONNREFUSED <ip>`},
		"python requests, quoted hosts and a path": {
			`HTTPSConnectionPool(host='hooks.slack.com', port=443): Max retries exceeded with url: /services/T000/B000/XXXX (Caused by ReadTimeoutError("read timeout=10"))`,
			`HTTPSConnectionPool(host='<q>', port=<n>): Max retries exceeded with url: /services/<id>/<id>/XXXX (Caused by ReadTimeoutError("<q>"))`,
		},
		"openai rate limit: the model stays, the organization's id goes, numbers, a delay": {
			`Rate limit reached for gpt-4o in organization org-AbC123 on tokens per min (TPM): Limit 30000, Used 29750, Requested 1200. Please try again in 1.9s.`,
			`Rate limit reached for gpt-4o in organization org-<id> on tokens per min (TPM): Limit <n>, Used <n>, Requested <n>. Please try again in <n>.`,
		},
		"a URL's variable parts, a timestamp, a digest": {
			`fetch https://news.example.com/a/2026/11/story-8812.html?utm=x: HTTP 451: blocked at 2026-11-20T09:01:02.123Z trace 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b`,
			`fetch https://news.example.com/a/<id>/<id>/<id>: HTTP <n>: blocked at <time> trace <hex>`,
		},
		"a host's address and port": {
			`Get "https://10.0.0.7:8443/feed": EOF; GET http://hooks.example.com:8080/x: HTTP 502`,
			`Get "https://<ip>:<n>/feed": EOF; GET http://hooks.example.com:<n>/x: HTTP <n>`,
		},
		"a tenant's host": {
			`GET https://abc123xyz.execute-api.us-east-1.amazonaws.com/prod/items/77: HTTP 502`,
			`GET https://<id>.execute-api.<id>.amazonaws.com/prod/items/<id>: HTTP <n>`,
		},
		"an apostrophe is no quote; short service names stay": {
			`s3: GetObject, api error SlowDown: Please reduce your request rate; can't read 0x1F`,
			`s3: GetObject, api error SlowDown: Please reduce your request rate; can't read <hex>`,
		},
		"a redaction marker stays": {
			`slack: HTTP 403 invalid_auth: token [REDACTED:slack-token] revoked`,
			`slack: HTTP <n> invalid_auth: token [REDACTED:slack-token] revoked`,
		},
		"grpc java, a model version": {
			`io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: Quota exceeded with base model: gemini-1.5-pro.`,
			`io.grpc.StatusRuntimeException: RESOURCE_EXHAUSTED: Quota exceeded with base model: gemini-<n>-pro.`,
		},
		"white space": {"  a\t\tb\n\nc\u00a0 d  ", "a b c d"},
		"numbers with units, exponents, percentages; words that are no number": {
			`took 644ms then 59.977s, 1.5e3 tokens, 8KiB, 20% at 10:30; 5min 3x v2 0x1F e2e 12abc`,
			`took <n> then <n>, <n> tokens, <n>, <n> at <n>:<n>; <n> 3x v2 <hex> e2e <id>`,
		},
		"quotes: unclosed, escaped, a JSON key with a digit": {
			`say "a \"b\" c" and 'x then {"k1": "v"} and "open`,
			`say "<q>" and 'x then {"<q>": "<q>"} and "open`,
		},
	} {
		if got := report.Shape(tc.in); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, tc.want)
		}
	}
	if got := report.Shape(strings.Repeat("word ", 200)); len(got) > report.MaxShape {
		t.Errorf("a long text's shape is %d bytes, more than %d", len(got), report.MaxShape)
	}
}

// TestFingerprintFamilies: two failures of one family share a
// fingerprint; a different provider, status, stage or wording does not.
func TestFingerprintFamilies(t *testing.T) {
	t.Parallel()
	fp := fingerprint
	same := [][2]report.Fingerprint{
		{fp(work.LLM, `openai chat: HTTP 418 teapot: I am a teapot for request req_abc123`),
			fp(work.LLM, `openai chat: HTTP 418 teapot: I am a teapot for request req_9f8e7d`)},
		{fp(work.Notify, `webhook POST https://hooks.example.com/t/8812?sig=ab: HTTP 400: channel "C024BE91L" is archived`),
			fp(work.Notify, `webhook POST https://hooks.example.com/t/91?sig=zz: HTTP 400: channel "C99" is archived`)},
		{fp(work.Fetch, `Get "https://10.0.0.7:8443/feed": remote error: tls: bad record MAC (after 3.2s)`),
			fp(work.Fetch, `Get "https://10.0.0.9:8443/feed": remote error: tls: bad record MAC (after 644ms)`)},
	}
	for i, p := range same {
		if p[0] != p[1] || p[0].ID() != p[1].ID() {
			t.Errorf("same family %d: %+v and %+v differ", i, p[0], p[1])
		}
	}
	base := fp(work.LLM, `openai chat: HTTP 418 teapot: I am a teapot`)
	if base.Provider != failure.OpenAI || base.Status != 418 || base.Stage != work.LLM {
		t.Errorf("the provider, status and stage the text names: %+v", base)
	}
	for name, other := range map[string]report.Fingerprint{
		"another provider": fp(work.LLM, `anthropic messages: HTTP 418 teapot: I am a teapot`),
		"another status":   fp(work.LLM, `openai chat: HTTP 419 teapot: I am a teapot`),
		"another stage":    fp(work.Notify, `openai chat: HTTP 418 teapot: I am a teapot`),
		"another wording":  fp(work.LLM, `openai chat: HTTP 418 teapot: I am a kettle`),
	} {
		if other == base || other.ID() == base.ID() {
			t.Errorf("%s: the same fingerprint %s as %+v", name, other.ID(), base)
		}
	}
	// The provider the error log recorded, which the text alone does not
	// give (a name the classifier does not know).
	acme := report.FingerprintOf(&failure.Evidence{Provider: "acme", Stage: work.LLM, Status: 400, Text: "acme chat: HTTP 400 E_SLOWDOWN: slow"})
	if acme.Provider != "acme" || acme.Status != 400 || fp(work.LLM, "acme chat: HTTP 400 E_SLOWDOWN: slow") == acme {
		t.Errorf("the recorded provider: %+v", acme)
	}
	if id := base.ID(); len(id) != 12 {
		t.Errorf("ID %q: want 12 hex digits", id)
	}
}

func fingerprint(stage work.Stage, text string) report.Fingerprint {
	return report.FingerprintOf(&failure.Evidence{Stage: stage, Text: text})
}

// seedUnknown are failures nothing recognised (and two that are left out:
// one recognised, one before the window), appended after seedLog.
var seedUnknown = []store.LogEntry{
	{ItemID: "u1", Stage: work.LLM, Class: work.ClientError, Default: true, OccurredAt: at(-3 * day),
		Message: "openai chat: HTTP 418 teapot: I am a teapot for request req_abc123"},
	{ItemID: "u2", Stage: work.LLM, Class: work.ClientError, Default: true, OccurredAt: at(-2 * day),
		Message: "openai chat: HTTP 418 teapot: I am a teapot for request req_def456"},
	{ItemID: "u2", Stage: work.LLM, Class: work.Unknown, Default: true, OccurredAt: at(-1 * day),
		Message: "openai chat: HTTP 418 teapot: I am a teapot for request req_0a9"},
	{ItemID: "u3", Stage: work.Fetch, Class: work.NotFound, Default: true, OccurredAt: at(-2*day + time.Hour),
		Message: "fetch https://news.example.com/a/991: HTTP 451: blocked"},
	{ItemID: "u4", Stage: work.Notify, Class: work.Unknown, OccurredAt: at(-4 * day),
		Message: "frobnicator wedged at 0x1f with " + leakedKey},
	{ItemID: "r1", Stage: work.LLM, Class: work.RateLimited, OccurredAt: at(-1 * day), Message: "openai chat: HTTP 429 rate_limit_exceeded"},
	{ItemID: "u5", Stage: work.LLM, Class: work.Unknown, Default: true, OccurredAt: at(-8 * day), Message: "frobnicator wedged at 0x2e"},
}

// leakedKey is a secret a message should never have held: the sample
// redacts it all the same.
const leakedKey = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"

// checkUnknown appends seedUnknown and checks the unknown report of r
// against the hand-computed rows.
func checkUnknown(t *testing.T, add func(store.LogEntry) error, r func() *report.Reporter) {
	t.Helper()
	for i, e := range seedUnknown {
		e.MessageID, e.Attempt, e.Decision = "mu"+strconv.Itoa(i), 1, "d"
		if err := add(e); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := r().Unknown(context.Background(), window)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].FirstSeen, rows[i].LastSeen = rows[i].FirstSeen.UTC(), rows[i].LastSeen.UTC()
	}
	teapot := report.Fingerprint{Provider: failure.OpenAI, Stage: work.LLM, Status: 418,
		Shape: "openai chat: HTTP <n> teapot: I am a teapot for request <id>"}
	fetch := report.FingerprintOf(seedUnknown[3].Evidence())
	frob := report.FingerprintOf(seedUnknown[4].Evidence())
	want := []report.UnknownRow{
		{ID: teapot.ID(), Fingerprint: teapot, Classes: []work.Class{work.ClientError, work.Unknown},
			Count: 3, Items: 2, FirstSeen: at(-3 * day), LastSeen: at(-1 * day), Sample: seedUnknown[2].Message},
		{ID: fetch.ID(), Fingerprint: fetch, Classes: []work.Class{work.NotFound},
			Count: 1, Items: 1, FirstSeen: at(-2*day + time.Hour), LastSeen: at(-2*day + time.Hour), Sample: seedUnknown[3].Message},
		{ID: frob.ID(), Fingerprint: frob, Classes: []work.Class{work.Unknown},
			Count: 1, Items: 1, FirstSeen: at(-4 * day), LastSeen: at(-4 * day), Sample: "frobnicator wedged at 0x1f with [REDACTED:openai-key]"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("unknown:\n got %+v\nwant %+v", rows, want)
	}
	if fetch.Status != 451 || fetch.Shape != "fetch https://news.example.com/a/<id>: HTTP <n>: blocked" {
		t.Errorf("fetch's fingerprint %+v", fetch)
	}
}

func TestUnknownNeedsTheIndex(t *testing.T) {
	t.Parallel()
	_, err := (&report.Reporter{Log: betweenOnly{}}).Unknown(context.Background(), window)
	if err == nil || !strings.Contains(err.Error(), "index") {
		t.Fatalf("a reader without the unrecognised index: %v, want an error (never a read of the whole log)", err)
	}
}

// TestMaxEntries: a window holding more entries than MaxEntries is an
// error that names what was read, for the whole log and for the failures
// nothing recognised alike; one holding MaxEntries is read whole.
func TestMaxEntries(t *testing.T) {
	t.Parallel()
	var log report.LogSlice
	for i := range 3 {
		log = append(log, store.LogEntry{Kind: store.LogFailure, Class: work.Unknown, Message: "m", OccurredAt: window.Since.Add(time.Duration(i) * time.Minute)})
	}
	ctx := context.Background()
	r := &report.Reporter{Log: log, MaxEntries: 2}
	if _, err := r.Entries(ctx, window); err == nil || !strings.Contains(err.Error(), "more than 2 error-log entries") {
		t.Errorf("entries past the bound: %v", err)
	}
	if _, err := r.Unknown(ctx, window); err == nil || !strings.Contains(err.Error(), "more than 2 unrecognised failures") {
		t.Errorf("unrecognised failures past the bound: %v", err)
	}
	r.MaxEntries = 3
	if got, err := r.Entries(ctx, window); err != nil || len(got) != 3 {
		t.Errorf("entries at the bound: %d, %v", len(got), err)
	}
	if rows, err := r.Unknown(ctx, window); err != nil || len(rows) != 1 || rows[0].Count != 3 {
		t.Errorf("unrecognised failures at the bound: %+v, %v", rows, err)
	}
}

// betweenOnly reads the log by class alone.
type betweenOnly struct{}

func (betweenOnly) Between(context.Context, time.Time, time.Time, func(store.LogEntry) error) error {
	return nil
}
