package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/work"
)

// TestErrorPagesRender: every refusal and error is a whole page with its
// title and its reason, not an empty body.
func TestErrorPagesRender(t *testing.T) {
	t.Parallel()
	b := newBundle(t)
	type errorPage struct {
		path, title, reason string
		status              int
	}
	check := func(pages []errorPage) {
		t.Helper()
		for _, tc := range pages {
			body := b.get(t, tc.path, tc.status)
			if !strings.Contains(body, "<title>"+tc.title) || !strings.Contains(body, tc.reason) || !strings.Contains(body, "</html>") {
				t.Errorf("%s: %d page:\n%s", tc.path, tc.status, body)
			}
		}
	}
	check([]errorPage{
		{"/", "Not signed in", "needs the token", http.StatusUnauthorized},
		{"/?token=wrong", "Not signed in", "needs the token", http.StatusUnauthorized},
	})
	b.login(t)
	check([]errorPage{
		{"/items/nope", "Not found", `item &#34;nope&#34; does not exist`, http.StatusNotFound},
		{"/dlq?stage=moon", "Bad request", "stage:", http.StatusBadRequest},
	})
	// A refused POST (no CSRF field), as a browser sends it: a whole page.
	status, body := b.postPage(t, "/actions/replay", url.Values{"item": {"a"}, "note": {"x"}})
	if status != http.StatusForbidden || !strings.Contains(body, "<title>Refused") || !strings.Contains(body, "CSRF token") {
		t.Errorf("refused POST: %d\n%s", status, body)
	}
}

// TestItemIDsOfAnyCharacterRoundTrip: the link to an item's page brings
// back the very item, whatever its id holds.
func TestItemIDsOfAnyCharacterRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := []string{"feed/2026/a", "50%off", "two words", "ünïcödé-✓", "..", ".", "what?x=1#frag", "a%2Fb", "sched:run-2026-11-21T12:00:00Z"}
	for _, id := range ids {
		b.deadLetter(t, id, work.Fetch, work.NotFound, "gone")
	}
	dlq := b.get(t, "/dlq", http.StatusOK)
	hrefs := regexp.MustCompile(`href="(/items?[^"]*)"`).FindAllStringSubmatch(dlq, -1)
	seen := map[string]bool{}
	for _, h := range hrefs {
		link := strings.ReplaceAll(h[1], "&amp;", "&")
		page := b.get(t, link, http.StatusOK)
		m := regexp.MustCompile(`<title>Item (.*) · triage console</title>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: no item title", link)
		}
		got := strings.NewReplacer("&#34;", `"`, "&#39;", "'", "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(m[1])
		seen[got] = true
		if console.ItemURL(got) != link {
			t.Errorf("the link %q opened item %q, whose link is %q", link, got, console.ItemURL(got))
		}
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("no link of the dead-letter page opens item %q (links %v)", id, hrefs)
		}
	}
}

// TestEveryDeadLetterCountedIsListed: the dead-letter page lists every
// message its DLQ depth counts — a malformed message and a spec that
// conflicts with its item have no dead-lettered item, and are listed
// beside the items.
func TestEveryDeadLetterCountedIsListed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "d1", work.Fetch, work.NotFound, "gone")
	msg := deadletter.Build(deadletter.Input{ItemID: "message:m-42", Stage: work.Fetch,
		Err: failure.New(work.SchemaInvalid, "malformed message"), Failure: failure.Of(work.SchemaInvalid, "test"),
		Attempts: map[work.Stage]int{work.Fetch: 1}, FirstFailureAt: t0, LastFailureAt: t0, MessageID: "m-42", Body: "{not json"})
	body, err := msg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b.sqs.Put(dlqURL(work.Fetch), string(body))
	b.sqs.Put(dlqURL(work.LLM), "something else entirely")
	page := b.get(t, "/dlq", http.StatusOK)
	depth := regexp.MustCompile(`<span class="pill">fetch (\d+)</span> <span class="pill">llm (\d+)</span>`).FindStringSubmatch(page)
	if depth == nil || depth[1] != "2" || depth[2] != "1" {
		t.Fatalf("DLQ depth %v:\n%s", depth, page)
	}
	loose := page[strings.Index(page, `id="dlq-loose"`):]
	for _, want := range []string{"message:m-42", "SCHEMA_INVALID", "llm", "unreadable"} {
		if !strings.Contains(loose, want) {
			t.Errorf("the DLQ messages without an item lack %q:\n%s", want, loose)
		}
	}
	if strings.Contains(loose, ">d1<") {
		t.Errorf("d1's dead letter is listed twice:\n%s", loose)
	}
	if n := strings.Count(loose, "<tr><td>"); n != 2 {
		t.Errorf("%d DLQ messages without an item listed, want 2", n)
	}
	if n := len(b.sqs.Bodies(dlqURL(work.Fetch))); n != 2 || b.sqs.Hidden(dlqURL(work.Fetch)) != 0 {
		t.Fatalf("reading the DLQs changed them: %d messages, %d hidden", n, b.sqs.Hidden(dlqURL(work.Fetch)))
	}
}

// TestCrossSiteRequestsAreRefused: an action from a sandboxed or opaque
// origin ("null") or that the browser marks cross-site or same-site is
// refused even with the right CSRF field; the console's own page's
// request goes through.
func TestCrossSiteRequestsAreRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "a1", work.Fetch, work.NotFound, "gone")
	for _, tc := range []struct {
		header, value string
		want          int
	}{
		{"Origin", "null", http.StatusForbidden},
		{"Origin", "http://127.0.0.1:1", http.StatusForbidden},
		{"Sec-Fetch-Site", "cross-site", http.StatusForbidden},
		{"Sec-Fetch-Site", "same-site", http.StatusForbidden},
		{"Sec-Fetch-Site", "same-origin", http.StatusOK},
		{"Origin", b.srv.URL, http.StatusOK},
	} {
		if got, _ := b.postPage(t, "/actions/replay", b.form("item", "a1", "note", "x"), tc.header, tc.value); got != tc.want {
			t.Errorf("%s: %s → %d, want %d", tc.header, tc.value, got, tc.want)
		}
	}
	if it := b.item(t, "a1"); it.State != work.Deadletter {
		t.Fatalf("a first step (a dry run) changed the item: %+v", it)
	}
}

// TestActionsCarryTheOperator: a replay and a resolution taken in the
// console record the Backend's By, and a model override its reason with it.
func TestActionsCarryTheOperator(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.deadLetter(t, "r1", work.Fetch, work.NotFound, "gone")
	b.deadLetter(t, "s1", work.Fetch, work.NotFound, "gone")
	if status, body := b.post(t, "/actions/replay", b.form("item", "r1", "note", "fixed", "confirm", "yes", "count", "1")); status != http.StatusOK {
		t.Fatalf("replay: %d\n%s", status, body)
	}
	if status, body := b.post(t, "/actions/resolve", b.form("item", "s1", "note", "won't fix", "confirm", "yes", "count", "1")); status != http.StatusOK {
		t.Fatalf("resolve: %d\n%s", status, body)
	}
	if it := b.item(t, "r1"); it.ReplayCount != 1 || it.Replays[0].By != "ana" {
		t.Fatalf("the replay records %+v, want by ana", it.Replays)
	}
	if it := b.item(t, "s1"); it.Resolution == nil || it.Resolution.By != "ana" {
		t.Fatalf("the resolution records %+v, want by ana", it.Resolution)
	}
	if status, body := b.post(t, "/actions/model", b.form("model", "openai:gpt-4o", "op", "disable", "note", "bad outputs", "confirm", "yes", "count", "1")); status != http.StatusOK {
		t.Fatalf("model: %d\n%s", status, body)
	}
	m, err := b.models.Get(context.Background(), "openai:gpt-4o")
	if err != nil || m.DisableReason != "ana: bad outputs" {
		t.Fatalf("model override %+v, %v", m, err)
	}
	_ = time.Second
}

// TestTwoConsolesStaySignedIn: browsers keep cookies by host, not by port,
// so two consoles on loopback — one per stack — see each other's cookie;
// signing in to the second keeps the first signed in.
func TestTwoConsolesStaySignedIn(t *testing.T) {
	t.Parallel()
	prod := newBundle(t)
	staging := newBundle(t)
	const token2 = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	srv2, err := console.New(console.Backend{Replayer: &replay.Replayer{SQS: staging.sqs, Items: staging.store, Index: staging.store},
		Items: staging.store, Index: staging.store, Clock: staging.clock}, token2)
	if err != nil {
		t.Fatal(err)
	}
	staging.srv.Config.Handler = srv2
	staging.client = prod.client // one browser
	prod.login(t)
	resp, err := staging.client.Get(staging.srv.URL + "/?token=" + token2)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	staging.get(t, "/policy", http.StatusOK)
	prod.get(t, "/policy", http.StatusOK)
}
