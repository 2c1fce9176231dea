package console_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/replay/replaytest"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func dlqURL(st work.Stage) string   { return "https://sqs.local/dlq-" + string(st) }
func queueURL(st work.Stage) string { return "https://sqs.local/q-" + string(st) }

// memLog is the error log of a store.Memory as the console reads it.
type memLog struct{ m *store.Memory }

func (l memLog) ForItem(_ context.Context, id string, limit int) ([]store.LogEntry, error) {
	var out []store.LogEntry
	for _, e := range l.m.Log() {
		if e.ItemID == id {
			out = append(out, e)
		}
	}
	return out[:min(len(out), limit)], nil
}

func (l memLog) Between(ctx context.Context, since, until time.Time, fn func(store.LogEntry) error) error {
	return report.LogSlice(l.m.Log()).Between(ctx, since, until, fn)
}

// ClassBetween reads one class's entries, as store.ErrorLogReader's
// by-class index does.
func (l memLog) ClassBetween(ctx context.Context, c work.Class, since, until time.Time, fn func(store.LogEntry) error) error {
	return l.Between(ctx, since, until, func(e store.LogEntry) error {
		if e.Class != c {
			return nil
		}
		return fn(e)
	})
}

func (l memLog) Unrecognised(ctx context.Context, since, until time.Time, fn func(store.LogEntry) error) error {
	return report.LogSlice(l.m.Log()).Unrecognised(ctx, since, until, fn)
}

type bundle struct {
	sqs      *replaytest.SQS
	store    *store.Memory
	models   *health.Memory
	breakers *breaker.Memory
	clock    *clock.Stub
	console  *console.Server
	srv      *httptest.Server
	client   *http.Client
	csrf     string
}

func setup(t *testing.T) *bundle {
	t.Helper()
	b := newBundle(t)
	b.login(t)
	return b
}

func newBundle(tb testing.TB) *bundle { return newBundleRefresh(tb, 0) }

// newBundleRefresh is newBundle with the console's figures kept for
// refresh.
func newBundleRefresh(tb testing.TB, refresh time.Duration) *bundle {
	tb.Helper()
	b := &bundle{sqs: replaytest.NewSQS(), store: store.NewMemory(), models: health.NewMemory(), breakers: breaker.NewMemory(),
		clock: clock.NewStub(t0)}
	qs := map[work.Stage]replay.Queues{}
	for _, st := range work.Stages() {
		qs[st] = replay.Queues{Queue: queueURL(st), DLQ: dlqURL(st)}
	}
	r := &replay.Replayer{SQS: b.sqs, Items: b.store, Index: b.store, ErrorLog: b.store, Queues: qs, Clock: b.clock, PollWait: -1}
	srv, err := console.New(console.Backend{Replayer: r, Items: b.store, Index: b.store, Log: memLog{b.store}, Trail: ledger.NewMemory(),
		SQS: b.sqs, Queues: qs, Models: b.models, Breakers: b.breakers, Profile: policy.Standard(), By: "ana", Clock: b.clock, Refresh: refresh}, token)
	if err != nil {
		tb.Fatal(err)
	}
	b.console, b.srv = srv, httptest.NewServer(srv)
	tb.Cleanup(b.srv.Close)
	jar, _ := cookiejar.New(nil)
	b.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return b
}

// login trades the token for the cookie, as the printed URL does, and reads
// the CSRF token off a page.
func (b *bundle) login(t *testing.T) {
	t.Helper()
	resp, err := b.client.Get(b.srv.URL + "/?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || strings.Contains(resp.Header.Get("Location"), token) {
		t.Fatalf("login: %d to %q, want 303 to a URL without the token", resp.StatusCode, resp.Header.Get("Location"))
	}
	page := b.get(t, "/policy", http.StatusOK)
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(b.get(t, "/dlq?stage=llm&class=NOT_FOUND", http.StatusOK) + page)
	if m == nil {
		t.Fatal("no CSRF token on the dead-letter page")
	}
	b.csrf = m[1]
}

// get GETs path, fails t unless the status is want, and returns the body.
func (b *bundle) get(t *testing.T, path string, want int) string {
	t.Helper()
	status, body := b.fetch(t, path)
	if status != want {
		t.Fatalf("GET %s: %d, want %d\n%s", path, status, want, body)
	}
	return body
}

// fetch GETs path and returns the status and body.
func (b *bundle) fetch(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := b.client.Get(b.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// post sends an action's form as the script does (a fragment) and returns
// the status and body.
func (b *bundle) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	return b.postPage(t, path, form, "X-Console-Fragment", "1")
}

// postPage sends form as a browser does without the script (a whole page
// comes back), with the header's name, value pairs set, and returns the
// status and body.
func (b *bundle) postPage(t *testing.T, path string, form url.Values, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// deadLetter stores an item dead-lettered at st with class c and puts its
// payload on st's DLQ, as the stage runner does.
func (b *bundle) deadLetter(tb testing.TB, id string, st work.Stage, c work.Class, msg string) {
	tb.Helper()
	attempts := map[work.Stage]int{st: 1}
	p := deadletter.Build(deadletter.Input{ItemID: id, CorrelationID: "corr-" + id, Stage: st, Err: failure.New(c, "%s", msg),
		Failure: failure.Of(c, "test"), Attempts: attempts, FirstFailureAt: t0, LastFailureAt: t0})
	b.store.Put(store.Item{ID: id, Kind: store.KindStory, CorrelationID: "corr-" + id, Status: work.StatusAfter(work.Fetch),
		State: work.Deadletter, Stage: st, Attempts: attempts, EnrichmentStatus: work.EnrichmentPermanentFailure,
		SourceURL: "https://news.example/a/" + id, LastError: &store.LastError{Component: st, ErrorClass: c, Error: msg, FailedAt: t0},
		LastFailureAt: t0, UpdatedAt: t0, DeadLetter: &store.DeadLetterRef{ID: p.SanitizedContext.DeadLetterID, Stage: st, Class: c, At: t0}})
	if err := b.store.Append(context.Background(), store.LogEntry{ItemID: id, Stage: st, Class: c, Message: msg, Attempt: 1,
		Decision: "dead_letter", OccurredAt: t0.Add(-time.Minute)}); err != nil {
		tb.Fatal(err)
	}
	body, err := p.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	b.sqs.Put(dlqURL(st), string(body))
}

func (b *bundle) item(t *testing.T, id string) store.Item {
	t.Helper()
	return runnertest.Item(t, b.store, id)
}

func (b *bundle) form(kv ...string) url.Values {
	v := url.Values{"csrf": {b.csrf}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

func TestEveryRequestNeedsTheToken(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	for _, path := range []string{"/", "/dlq", "/items/x", "/errors", "/unknown", "/policy", "/states?item=x", "/?token=wrong"} {
		if status, body := b.fetch(t, path); status != http.StatusUnauthorized || strings.Contains(body, "csrf") {
			t.Errorf("GET %s without the token: %d, want 401 and no form", path, status)
		}
	}
	status, _ := b.post(t, "/actions/replay", url.Values{"note": {"x"}, "item": {"a"}})
	if status != http.StatusUnauthorized {
		t.Errorf("POST without the token: %d, want 401", status)
	}
	// A request for another host (DNS rebinding) is refused even with the
	// cookie.
	b.login(t)
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+"/", nil)
	req.Host = "evil.example:80"
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("Host evil.example: %d, want 421", resp.StatusCode)
	}
	if got := resp.Header.Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'none'") {
		t.Errorf("CSP %q", got)
	}
}

func TestActionsNeedCSRFNoteAndPost(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "a1", work.Fetch, work.NotFound, "article not published yet")
	cases := map[string]struct {
		form url.Values
		want int
	}{
		"no csrf":     {url.Values{"item": {"a1"}, "note": {"fixed"}, "confirm": {"yes"}, "count": {"1"}}, http.StatusForbidden},
		"wrong csrf":  {url.Values{"csrf": {"00"}, "item": {"a1"}, "note": {"fixed"}, "confirm": {"yes"}, "count": {"1"}}, http.StatusForbidden},
		"no note":     {b.form("item", "a1", "confirm", "yes", "count", "1"), http.StatusUnprocessableEntity},
		"blank note":  {b.form("item", "a1", "note", "   ", "confirm", "yes", "count", "1"), http.StatusUnprocessableEntity},
		"no selector": {b.form("note", "fixed", "confirm", "yes", "count", "1"), http.StatusUnprocessableEntity},
		"bad class":   {b.form("stage", "fetch", "class", "NOPE", "note", "x"), http.StatusUnprocessableEntity},
	}
	for name, tc := range cases {
		for _, path := range []string{"/actions/replay", "/actions/resolve"} {
			if status, body := b.post(t, path, tc.form); status != tc.want {
				t.Errorf("%s %s: %d, want %d\n%s", name, path, status, tc.want, body)
			}
		}
	}
	if it := b.item(t, "a1"); it.State != work.Deadletter || it.ReplayCount != 0 || it.Resolution != nil {
		t.Fatalf("a refused action changed the item: %+v", it)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.Fetch))); n != 1 {
		t.Fatalf("DLQ holds %d, want the dead letter untouched", n)
	}
	// A cross-origin POST with the right CSRF field is still refused.
	if status, _ := b.postPage(t, "/actions/replay", b.form("item", "a1", "note", "x"), "Origin", "https://evil.example"); status != http.StatusForbidden {
		t.Errorf("cross-origin POST: %d, want 403", status)
	}
	// Actions are POSTs only.
	if status, _ := b.fetch(t, "/actions/replay?item=a1&note=x"); status != http.StatusMethodNotAllowed {
		t.Errorf("GET an action: %d, want 405", status)
	}
}

func TestReplayClassConfirmsTheCountThenReplaysAsTheCLI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "a1", work.LLM, work.UpstreamUnavailable, "503 from the provider")
	b.deadLetter(t, "a2", work.LLM, work.UpstreamUnavailable, "503 from the provider")
	b.deadLetter(t, "a3", work.LLM, work.UpstreamUnavailable, "503 from the provider")
	b.deadLetter(t, "x1", work.LLM, work.AuthDenied, "401")

	status, body := b.post(t, "/actions/replay", b.form("stage", "llm", "class", "UPSTREAM_UNAVAILABLE", "note", "provider back"))
	if status != http.StatusOK || !strings.Contains(body, "This replays 3 items") || !strings.Contains(body, `name="confirm" value="yes"`) {
		t.Fatalf("first step: %d\n%s", status, body)
	}
	if strings.Contains(body, "<html") {
		t.Fatal("a script's request got a whole page, want the fragment")
	}
	for _, id := range []string{"a1", "a2", "a3"} {
		if it := b.item(t, id); it.State != work.Deadletter {
			t.Fatalf("the confirmation step changed %s: %+v", id, it)
		}
	}
	// Confirm two of the three: the action does no more than confirmed.
	status, body = b.post(t, "/actions/replay", b.form("stage", "llm", "class", "UPSTREAM_UNAVAILABLE", "note", "provider back",
		"confirm", "yes", "count", "2"))
	if status != http.StatusOK || !strings.Contains(body, "Replayed 2 items") || !strings.Contains(body, "data-live") {
		t.Fatalf("confirm: %d\n%s", status, body)
	}
	replayed := 0
	for _, id := range []string{"a1", "a2", "a3"} {
		it := b.item(t, id)
		if it.State == work.Queued {
			replayed++
			if it.ReplayCount != 1 || it.Replays[0].Note != "provider back" || it.Replays[0].By != "ana" || it.Replays[0].Class != work.UpstreamUnavailable {
				t.Fatalf("replay record of %s: %+v", id, it.Replays)
			}
		}
	}
	if replayed != 2 || len(b.sqs.Bodies(queueURL(work.LLM))) != 2 {
		t.Fatalf("replayed %d, sent %d; want 2 and 2", replayed, len(b.sqs.Bodies(queueURL(work.LLM))))
	}
	if it := b.item(t, "x1"); it.State != work.Deadletter {
		t.Fatalf("another class was replayed: %+v", it)
	}
	// The replayed items' states are what the page polls.
	got := b.get(t, "/states?item=a1&item=x1", http.StatusOK)
	if !strings.Contains(got, `"x1":"deadletter"`) {
		t.Fatalf("states %s", got)
	}
}

func TestReplayOneItemWithoutScriptIsAPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "u1", work.Fetch, work.NotFound, "article not published yet")
	b.deadLetter(t, "u2", work.Fetch, work.NotFound, "article not published yet")
	status, body := b.postPage(t, "/actions/replay", b.form("item", "u1", "stage", "fetch", "note", "published now", "confirm", "yes", "count", "1"))
	if status != http.StatusOK || !strings.Contains(body, "<html") || !strings.Contains(body, "Replayed 1 item") {
		t.Fatalf("%d\n%s", status, body)
	}
	if b.item(t, "u1").State != work.Queued || b.item(t, "u2").State != work.Deadletter {
		t.Fatal("the replay touched the wrong items")
	}
}

func TestResolveRecordsTheNoteLikeTheCLI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "r1", work.Notify, work.NotFound, "channel_not_found")
	status, body := b.post(t, "/actions/resolve", b.form("item", "r1", "stage", "notify", "note", "channel archived"))
	if status != http.StatusOK || !strings.Contains(body, "This resolves 1 dead letter") {
		t.Fatalf("%d\n%s", status, body)
	}
	if b.item(t, "r1").Resolution != nil {
		t.Fatal("the confirmation step resolved")
	}
	status, body = b.post(t, "/actions/resolve", b.form("item", "r1", "stage", "notify", "note", "channel archived", "confirm", "yes", "count", "1"))
	if status != http.StatusOK || !strings.Contains(body, "Resolved 1 dead letter") {
		t.Fatalf("%d\n%s", status, body)
	}
	it := b.item(t, "r1")
	if it.Resolution == nil || it.Resolution.Note != "channel archived" || it.Resolution.By != "ana" {
		t.Fatalf("resolution %+v", it.Resolution)
	}
	found := false
	for _, e := range b.store.Log() {
		found = found || (e.Kind == store.LogResolution && e.ItemID == "r1" && e.By == "ana")
	}
	if !found || len(b.sqs.Bodies(dlqURL(work.Notify))) != 0 {
		t.Fatalf("resolution in the error log %v, DLQ %d; want it logged and the message deleted", found, len(b.sqs.Bodies(dlqURL(work.Notify))))
	}
}

func TestModelAndBreakerActions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	if _, err := b.models.SetDisabled(ctx, "openai:gpt-4o", false, "", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.breakers.RecordFailure(ctx, breaker.FailureRequest{Service: "api.openai.com", Class: work.UpstreamUnavailable, At: t0, Threshold: 1}); err != nil {
		t.Fatal(err)
	}
	page := b.get(t, "/", http.StatusOK)
	if !strings.Contains(page, "openai:gpt-4o") || !strings.Contains(page, "api.openai.com") {
		t.Fatalf("overview lacks the model or the breaker:\n%s", page)
	}
	status, body := b.post(t, "/actions/model", b.form("model", "openai:gpt-4o", "op", "disable", "note", "provider incident"))
	if status != http.StatusOK || !strings.Contains(body, "This disables 1 model") {
		t.Fatalf("%d\n%s", status, body)
	}
	if m, _ := b.models.Get(ctx, "openai:gpt-4o"); m.Disabled {
		t.Fatal("the confirmation step disabled the model")
	}
	status, body = b.post(t, "/actions/model", b.form("model", "openai:gpt-4o", "op", "disable", "note", "provider incident", "confirm", "yes", "count", "1"))
	if m, _ := b.models.Get(ctx, "openai:gpt-4o"); status != http.StatusOK || !m.Disabled || m.DisableReason != "ana: provider incident" || m.DisabledBy != health.ByOperator {
		t.Fatalf("%d %+v\n%s", status, m, body)
	}
	status, body = b.post(t, "/actions/breaker", b.form("service", "api.openai.com", "note", "incident over", "confirm", "yes", "count", "1"))
	if r, _ := b.breakers.Get(ctx, "api.openai.com"); status != http.StatusOK || r.State != breaker.Closed {
		t.Fatalf("%d %+v\n%s", status, r, body)
	}
	if status, _ := b.post(t, "/actions/breaker", b.form("service", "api.openai.com", "confirm", "yes", "count", "1")); status != http.StatusUnprocessableEntity {
		t.Fatalf("a reset without a note: %d, want 422", status)
	}
}

func TestPagesShowTheCauseWithinThreeClicks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "d1", work.LLM, work.ContentPolicy, "the provider refused the prompt (content_policy_violation)")
	overview := b.get(t, "/", http.StatusOK)
	// Click 1: the item, from the overview's newest dead letters.
	if !strings.Contains(overview, `href="/items/d1"`) || !strings.Contains(overview, "CONTENT_POLICY") || !strings.Contains(overview, "<svg") {
		t.Fatalf("overview:\n%s", overview)
	}
	item := b.get(t, "/items/d1", http.StatusOK)
	for _, want := range []string{"content_policy_violation", `id="events"`, `action="/actions/replay"`, `name="item" value="d1"`, `name="note"`} {
		if !strings.Contains(item, want) {
			t.Fatalf("item page lacks %q:\n%s", want, item)
		}
	}
	// Clicks 2 and 3: Replay (the confirmation), Confirm.
	if status, body := b.post(t, "/actions/replay", b.form("item", "d1", "stage", "llm", "class", "CONTENT_POLICY", "note", "prompt fixed")); status != http.StatusOK || !strings.Contains(body, "This replays 1 item") {
		t.Fatalf("%d\n%s", status, body)
	}
	dlq := b.get(t, "/dlq?stage=llm&class=CONTENT_POLICY", http.StatusOK)
	if !strings.Contains(dlq, `value="d1"`) {
		t.Fatalf("dlq page:\n%s", dlq)
	}
	errs := b.get(t, "/errors?class=CONTENT_POLICY&since=7d", http.StatusOK)
	if !strings.Contains(errs, "content_policy_violation") {
		t.Fatalf("error log:\n%s", errs)
	}
	if errs := b.get(t, "/errors?class=RATE_LIMITED&since=7d", http.StatusOK); strings.Contains(errs, "content_policy_violation") {
		t.Fatal("the class filter let another class through")
	}
	b.get(t, "/errors?since=yesterday", http.StatusBadRequest)
	b.get(t, "/items/nope", http.StatusNotFound)
	pol := b.get(t, "/policy", http.StatusOK)
	if !strings.Contains(pol, "standard") || !strings.Contains(pol, "RATE_LIMITED") || !strings.Contains(pol, "dead-letter at once") {
		t.Fatalf("policy:\n%s", pol)
	}
}

// TestNoPageShowsASecret plants secrets where they could leak — the
// source URL's query, error texts, notes — and searches every page.
func TestNoPageShowsASecret(t *testing.T) {
	t.Parallel()
	b := setup(t)
	secrets := []string{
		"sk-proj-" + strings.Repeat("Ab3dE", 9) + "x",
		"ghp_" + strings.Repeat("a1B2c3", 6),
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzb2FrIn0.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU",
		"xoxb-123456789012-123456789012-" + strings.Repeat("Zq9", 8),
		"tok_Secr3tToken0987654321",
	}
	msg := "401 Incorrect API key provided: " + secrets[0] + "; Authorization: Bearer " + secrets[1] + " session " + secrets[2] + " slack " + secrets[3]
	b.deadLetter(t, "s1", work.LLM, work.AuthDenied, msg)
	it := b.item(t, "s1")
	it.SourceURL = "https://news.example/a?token=" + secrets[4] + "&api_key=" + secrets[0]
	it.Notes = []store.Note{{Text: "key was " + secrets[0], By: "ana", At: t0}}
	it.NoteCount = 1
	b.store.Put(it)
	pages := []string{"/", "/dlq", "/dlq?stage=llm&class=AUTH_DENIED", "/items/s1", "/errors?since=7d", "/errors?item=s1&since=7d", "/policy"}
	for _, p := range pages {
		body := b.get(t, p, http.StatusOK)
		for _, s := range secrets {
			if strings.Contains(body, s) || strings.Contains(body, s[len(s)-12:]) {
				t.Errorf("%s shows the secret %s…", p, s[:8])
			}
		}
	}
	_, body := b.post(t, "/actions/replay", b.form("item", "s1", "stage", "llm", "note", "rotated"))
	for _, s := range secrets {
		if strings.Contains(body, s[len(s)-12:]) {
			t.Errorf("the replay confirmation shows the secret %s…", s[:8])
		}
	}
}

// TestCachedFiguresAreReadAgain: with Refresh set, the overview shows the
// figures it read last, reads them again in the background once they are
// older than Refresh, and at once after an action.
func TestCachedFiguresAreReadAgain(t *testing.T) {
	t.Parallel()
	b := newBundleRefresh(t, 10*time.Second)
	b.deadLetter(t, "c1", work.Fetch, work.NotFound, "gone")
	b.login(t)
	if page := b.get(t, "/", http.StatusOK); !strings.Contains(page, `href="/items/c1"`) || !strings.Contains(page, "read again every 10s") {
		t.Fatalf("first overview:\n%s", page)
	}
	b.deadLetter(t, "c2", work.Fetch, work.NotFound, "gone")
	if page := b.get(t, "/", http.StatusOK); strings.Contains(page, `href="/items/c2"`) {
		t.Fatal("the cached figures were read again before Refresh")
	}
	// The page that finds the figures stale shows them and starts their
	// read; the page after that read shows the new ones.
	b.clock.Advance(11 * time.Second)
	if page := b.get(t, "/", http.StatusOK); strings.Contains(page, `href="/items/c2"`) {
		t.Fatal("the stale figures were not shown while they were read again")
	}
	console.Settle(b.console)
	if page := b.get(t, "/", http.StatusOK); !strings.Contains(page, `href="/items/c2"`) {
		t.Fatalf("the figures were not read again once older than Refresh:\n%s", page)
	}
	if status, body := b.post(t, "/actions/replay", b.form("item", "c1", "stage", "fetch", "note", "back", "confirm", "yes", "count", "1")); status != http.StatusOK {
		t.Fatalf("%d\n%s", status, body)
	}
	console.Settle(b.console)
	if page := b.get(t, "/", http.StatusOK); strings.Contains(page, `href="/items/c1"`) {
		t.Fatalf("the figures were not read again after an action:\n%s", page)
	}
}

func ExampleNewToken() {
	t, _ := console.NewToken()
	fmt.Println(len(t))
	// Output: 64
}

// TestUnknownFailuresPage renders `triage report unknown`'s table: the
// failures nothing recognised by fingerprint, most first, every text
// escaped and redacted, recognised failures left out.
func TestUnknownFailuresPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"
	for i, e := range []store.LogEntry{
		{ItemID: "u1", Stage: work.LLM, Class: work.ClientError, Default: true, Provider: failure.OpenAI, Status: 418,
			Message: "openai chat: HTTP 418 teapot: I am a teapot for request req_abc123"},
		{ItemID: "u2", Stage: work.LLM, Class: work.ClientError, Default: true, Provider: failure.OpenAI, Status: 418,
			Message: "openai chat: HTTP 418 teapot: I am a teapot for request req_def456"},
		{ItemID: "u3", Stage: work.Notify, Class: work.Unknown, Default: true,
			Message: `hook said <script>alert("x")</script> with ` + key},
		{ItemID: "r1", Stage: work.LLM, Class: work.RateLimited, Message: "openai chat: HTTP 429 rate_limit_exceeded: recognised"},
	} {
		e.MessageID, e.Attempt, e.OccurredAt = "m"+strconv.Itoa(i), 1, t0.Add(-time.Duration(4-i)*time.Hour)
		if err := b.store.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	page := b.get(t, "/unknown?since=7d", http.StatusOK)
	rows := regexp.MustCompile(`(?s)<tr><td><code>([0-9a-f]{12})</code></td><td>(\d+)</td>`).FindAllStringSubmatch(page, -1)
	if len(rows) != 2 || rows[0][2] != "2" || rows[1][2] != "1" {
		t.Fatalf("want two fingerprints, 2 failures then 1:\n%s", page)
	}
	for _, want := range []string{"2 fingerprints, 3 failures", "I am a teapot for request &lt;id&gt;", "req_def456", "<code>CLIENT_ERROR</code>",
		"&lt;script&gt;", "[REDACTED:openai-key]", `href="/unknown"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	for _, lack := range []string{"<script>", key, "HTTP 429", "rate_limit_exceeded"} {
		if strings.Contains(page, lack) {
			t.Errorf("the page shows %q", lack)
		}
	}
	if page := b.get(t, "/unknown?since=1h", http.StatusOK); !strings.Contains(page, "No unrecognised failures.") {
		t.Errorf("an hour back holds none of them:\n%s", page)
	}
	b.get(t, "/unknown?since=yesterday", http.StatusBadRequest)
}

// TestResolveCountsWhatItResolves: the confirmation step counts the dead
// letters it would resolve, not a backstop message whose item is still in
// flight, which a resolve leaves on its DLQ.
func TestResolveCountsWhatItResolves(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "r2", work.LLM, work.NotFound, "gone")
	b.store.Put(store.Item{ID: "stuck", Kind: store.KindStory, CorrelationID: "c", Status: work.StatusAfter(work.Fetch),
		State: work.Queued, Stage: work.LLM, UpdatedAt: t0})
	b.sqs.Put(dlqURL(work.LLM), work.Envelope{ItemID: "stuck", Stage: work.LLM, CorrelationID: "c"}.Encode())
	status, body := b.post(t, "/actions/resolve", b.form("item", "r2", "item", "stuck", "note", "given up"))
	if status != http.StatusOK || !strings.Contains(body, "This resolves 1 dead letter") || !strings.Contains(body, "1 left on its DLQ") {
		t.Fatalf("%d\n%s", status, body)
	}
}

// TestResolveDoesNoMoreThanConfirmed: a class's resolve confirmed for the
// count its first step said closes that many dead letters, not the ones
// that arrived between the two steps ("The console": the confirmed action
// acts on at most that many).
func TestResolveDoesNoMoreThanConfirmed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "c1", work.Notify, work.NotFound, "channel_not_found")
	b.deadLetter(t, "c2", work.Notify, work.NotFound, "channel_not_found")
	status, body := b.post(t, "/actions/resolve", b.form("stage", "notify", "class", "NOT_FOUND", "note", "channels archived"))
	if status != http.StatusOK || !strings.Contains(body, "This resolves 2 dead letters") {
		t.Fatalf("first step: %d\n%s", status, body)
	}
	// Three more arrive before the operator confirms.
	for _, id := range []string{"c3", "c4", "c5"} {
		b.deadLetter(t, id, work.Notify, work.NotFound, "channel_not_found")
	}
	status, body = b.post(t, "/actions/resolve", b.form("stage", "notify", "class", "NOT_FOUND", "note", "channels archived",
		"confirm", "yes", "count", "2"))
	if status != http.StatusOK || !strings.Contains(body, "Resolved 2 dead letters") {
		t.Fatalf("confirm: %d\n%s", status, body)
	}
	resolved := 0
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
		if b.item(t, id).Resolution != nil {
			resolved++
		}
	}
	if left := len(b.sqs.Bodies(dlqURL(work.Notify))); resolved != 2 || left != 3 {
		t.Fatalf("resolved %d, %d left on the DLQ; want 2 and 3", resolved, left)
	}
	// A confirmation that names no count resolves nothing.
	status, _ = b.post(t, "/actions/resolve", b.form("stage", "notify", "class", "NOT_FOUND", "note", "channels archived", "confirm", "yes"))
	if left := len(b.sqs.Bodies(dlqURL(work.Notify))); status != http.StatusUnprocessableEntity || left != 3 {
		t.Fatalf("a confirmation without a count: %d, %d left on the DLQ; want 422 and 3", status, left)
	}
}

// deadQueue is SQS whose receives from one queue fail, as a DLQ deleted
// or denied mid-run does.
type deadQueue struct {
	*replaytest.SQS
	url string
}

func (d deadQueue) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	if aws.ToString(in.QueueUrl) == d.url {
		return nil, errors.New("AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.")
	}
	return d.SQS.ReceiveMessage(ctx, in, opts...)
}

// TestActionThatStopsSaysWhatItDid: a replay or a resolve that stops on a
// DLQ it cannot read has already acted on the DLQs read before it; the
// answer says what it did beside the error, as the CLI prints it.
func TestActionThatStopsSaysWhatItDid(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"replay", "resolve"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			b := newBundle(t)
			qs := map[work.Stage]replay.Queues{}
			for _, st := range work.Stages() {
				qs[st] = replay.Queues{Queue: queueURL(st), DLQ: dlqURL(st)}
			}
			fake := deadQueue{SQS: b.sqs, url: dlqURL(work.Notify)}
			r := &replay.Replayer{SQS: fake, Items: b.store, Index: b.store, ErrorLog: b.store, Queues: qs, Clock: b.clock, PollWait: -1}
			srv, err := console.New(console.Backend{Replayer: r, Items: b.store, Index: b.store, Log: memLog{b.store}, SQS: fake, Queues: qs,
				Profile: policy.Standard(), By: "ana", Clock: b.clock}, token)
			if err != nil {
				t.Fatal(err)
			}
			b.srv.Config.Handler = srv
			b.login(t)
			b.deadLetter(t, "s1", work.LLM, work.AuthDenied, "401")
			status, body := b.post(t, "/actions/"+action, b.form("item", "s1", "note", "key rotated", "confirm", "yes", "count", "5"))
			if status != http.StatusUnprocessableEntity || !strings.Contains(body, "NonExistentQueue") {
				t.Fatalf("%d\n%s", status, body)
			}
			if it := b.item(t, "s1"); it.State == work.Deadletter && it.Resolution == nil {
				t.Fatalf("s1 was not acted on: %+v", it)
			}
			if !strings.Contains(body, "<td>s1</td>") || !strings.Contains(body, "d 1 before it stopped") {
				t.Fatalf("the answer does not say s1 was acted on:\n%s", body)
			}
		})
	}
}

// TestPagesReadPastAStormOfOneClass: the error log is read class by class,
// retryable classes first, and a page reads at most LogMaxRead entries.
// During a storm of one class the page filtered to another class reads that
// class, not the storm's first LogMaxRead entries; and when the storm fills
// the chart's window, its note names the class it cut short and says the
// classes after it are missing, not that the newest failures are.
func TestPagesReadPastAStormOfOneClass(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range console.LogMaxRead + 1 {
		if err := b.store.Append(ctx, store.LogEntry{ItemID: fmt.Sprintf("storm-%d", i), Stage: work.LLM, Class: work.RateLimited,
			Message: "429", Attempt: 1, OccurredAt: t0.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.store.Append(ctx, store.LogEntry{ItemID: "key-revoked", Stage: work.LLM, Class: work.AuthDenied,
		Message: "401 invalid api key", Attempt: 1, OccurredAt: t0.Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       []string
		problem    string
	}{
		{"errors page of another class", "/errors?class=AUTH_DENIED", []string{"key-revoked"},
			"the AUTH_DENIED entry is not on its class's page"},
		{"chart", "/", []string{"RATE_LIMITED", "classes after it are missing"},
			"the chart's note does not say which classes it missed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := b.get(t, tc.path, http.StatusOK)
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Fatalf("%s:\n%s", tc.problem, page)
				}
			}
		})
	}
}

// The CLI's error-log reader reads one class alone.
var _ console.ClassLog = (*store.ErrorLogReader)(nil)
