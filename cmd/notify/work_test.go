package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

// notifier is the stage runner's Work.
var _ runner.Work = (*notifier)(nil)

var fixedNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// webhookToken is the secret part of the webhook path, as in Slack's
// https://hooks.slack.com/services/T…/B…/<token>; it must never reach an error.
const webhookToken = "PLANTEDwebhookTOKEN0123456789"

var signingSecret = []byte("whsec_test")

// received is one request the fake receiver saw.
type received struct {
	header http.Header
	body   []byte
}

type testBundle struct {
	srv   *httptest.Server
	calls atomic.Int32
	mu    sync.Mutex
	got   []received
	n     *notifier
}

// setupFailing is setup for a failing delivery: the server closed first
// when closed, and the notifier's client giving up after timeout when it
// is set.
func setupFailing(t *testing.T, handle http.HandlerFunc, closed bool, timeout time.Duration) *testBundle {
	t.Helper()
	b := setup(t, handle)
	if timeout > 0 {
		b.n.Client = &http.Client{Timeout: timeout}
	}
	if closed {
		b.srv.Close()
	}
	return b
}

func setup(t *testing.T, handle http.HandlerFunc) *testBundle {
	t.Helper()
	b := &testBundle{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.got = append(b.got, received{header: r.Header.Clone(), body: body})
		b.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(b.srv.Close)
	b.n = newNotifier(notifierConfig{
		Secret: func(context.Context) ([]byte, error) { return signingSecret, nil },
		Clock:  clock.NewStub(fixedNow),
	})
	return b
}

func (b *testBundle) item() store.Item {
	return store.Item{
		ID: "item-1", Kind: store.KindStory, CorrelationID: "corr-1",
		SourceURL:  "https://example.com/story",
		WebhookURL: b.srv.URL + "/services/T000/B000/" + webhookToken,
		Enrichment: &work.Enrichment{
			SummaryNeutral: "Acme was fined.", SummarySpicy: "Acme burned!", Category: "markets",
			Severity: "high", PrimaryActor: "Acme Corp", TopEntities: []string{"Acme Corp", "SEC"},
			Model: "gpt-4o-mini", EnrichedAt: fixedNow.Add(-time.Minute),
		},
	}
}

func (b *testBundle) requests() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.got...)
}

func answer(status int, contentType, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// TestSign checks sign against vectors computed outside Go:
//
//	printf '%s' '1777636800.{"item_id":"item-1"}' | openssl dgst -sha256 -hmac whsec_test
//	printf '%s' '0.' | openssl dgst -sha256 -hmac k
func TestSign(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		secret string
		ts     int64
		body   string
		want   string
	}{
		{"payload", "whsec_test", 1777636800, `{"item_id":"item-1"}`, "v1=59d89202d789f59d53b949e4e97ec12c6d6dd549a87de859a77f45ec145ed1d8"},
		{"empty body", "k", 0, "", "v1=6b4a4b8b3c40f1e8f53a3d36682e5f99f7ad2ac1df1c93dfe336f329167641e7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := sign([]byte(tt.secret), tt.ts, []byte(tt.body)); got != tt.want {
				t.Errorf("Sign = %s, want %s", got, tt.want)
			}
		})
	}
	if sign([]byte("a"), 1, []byte("x")) == sign([]byte("a"), 2, []byte("x")) {
		t.Errorf("the timestamp is not covered by the signature")
	}
}

// verify is what a receiver does, written without sign.
func verify(secret []byte, h http.Header, body []byte) bool {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(h.Get("X-Triage-Timestamp") + "." + string(body)))
	want := "v1=" + hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(want), []byte(h.Get("X-Triage-Signature")))
}

func TestRunDelivers(t *testing.T) {
	t.Parallel()
	for _, status := range []int{200, 202, 204} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			b := setup(t, answer(status, "text/plain", "ok"))
			if status == 204 {
				b = setup(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
			}
			out, err := b.n.Run(t.Context(), b.item(), gates.Delivery{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			want := work.WebhookDelivery{Status: status, IdempotencyKey: "item-1:notify", DeliveredAt: fixedNow}
			if out.Delivery == nil || *out.Delivery != want || out.Document != nil || out.Enrichment != nil {
				t.Fatalf("Output = %+v, want Delivery %+v", out, want)
			}

			r := b.requests()[0]
			headers := map[string]string{
				"Content-Type":       "application/json",
				"Idempotency-Key":    "item-1:notify",
				"X-Triage-Timestamp": "1777636800",
				"User-Agent":         defaultUserAgent,
				"X-Triage-Item-Id":   "item-1",
				"X-Correlation-Id":   "corr-1",
			}
			for k, v := range headers {
				if got := r.header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if !verify(signingSecret, r.header, r.body) {
				t.Errorf("signature %q does not verify", r.header.Get("X-Triage-Signature"))
			}
			if verify([]byte("wrong secret"), r.header, r.body) {
				t.Errorf("signature verifies with the wrong secret")
			}

			var got map[string]any
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			keys := make([]string, 0, len(got))
			for k := range got {
				keys = append(keys, k)
			}
			for _, k := range []string{"item_id", "correlation_id", "kind", "source_url", "enrichment", "sent_at"} {
				if _, ok := got[k]; !ok {
					t.Errorf("body has no %q (keys %v)", k, keys)
				}
			}
			if len(got) != 6 {
				t.Errorf("body keys = %v, want exactly 6", keys)
			}
			var p payload
			_ = json.Unmarshal(r.body, &p)
			it := b.item()
			wantP := payload{ItemID: "item-1", CorrelationID: "corr-1", Kind: store.KindStory,
				SourceURL: it.SourceURL, Enrichment: *it.Enrichment, SentAt: fixedNow}
			if !reflect.DeepEqual(p, wantP) {
				t.Errorf("payload =\n%+v\nwant\n%+v", p, wantP)
			}
			enr := got["enrichment"].(map[string]any)
			if enr["summary_neutral"] != "Acme was fined." || enr["severity"] != "high" {
				t.Errorf("enrichment = %v", enr)
			}
		})
	}
}

func TestRunIdempotencyKeyIsStable(t *testing.T) {
	t.Parallel()
	b := setup(t, answer(200, "text/plain", "ok"))
	c := clock.NewStub(fixedNow)
	b.n.Clock = c
	for range 2 {
		if _, err := b.n.Run(t.Context(), b.item(), gates.Delivery{}); err != nil {
			t.Fatal(err)
		}
		c.Advance(90 * time.Second) // a retry, later
	}
	reqs := b.requests()
	k1, k2 := reqs[0].header.Get("Idempotency-Key"), reqs[1].header.Get("Idempotency-Key")
	if k1 != "item-1:notify" || k1 != k2 {
		t.Errorf("Idempotency-Key = %q then %q, want item-1:notify both times", k1, k2)
	}
	if reqs[0].header.Get("X-Triage-Timestamp") == reqs[1].header.Get("X-Triage-Timestamp") {
		t.Errorf("timestamps did not move with the clock")
	}
	for i, r := range reqs {
		if !verify(signingSecret, r.header, r.body) {
			t.Errorf("request %d: signature does not verify", i)
		}
	}
	if idempotencyKey("item-1") != k1 {
		t.Errorf("IdempotencyKey disagrees with the header")
	}
}

func TestRunFailureClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		handle     http.HandlerFunc
		wantClass  work.Class
		wantStatus int
		wantDelay  time.Duration
	}{
		{name: "slack 404 channel_not_found", handle: answer(404, "text/plain", "channel_not_found"),
			wantClass: work.NotFound, wantStatus: 404},
		{name: "slack 410 channel_is_archived", handle: answer(410, "text/plain", "channel_is_archived"),
			wantClass: work.NotFound, wantStatus: 410},
		{name: "slack 400 invalid_payload", handle: answer(400, "text/plain", "invalid_payload"),
			wantClass: work.SchemaInvalid, wantStatus: 400},
		{name: "slack 403 invalid_token", handle: answer(403, "text/plain", "invalid_token"),
			wantClass: work.AuthDenied, wantStatus: 403},
		{name: "slack 429", handle: answer(429, "text/plain", "rate_limited", "Retry-After", "30"),
			wantClass: work.RateLimited, wantStatus: 429, wantDelay: 30 * time.Second},
		{name: "discord 429", handle: answer(429, "application/json", `{"message":"You are being rate limited.","retry_after":1.5,"global":false}`),
			wantClass: work.RateLimited, wantStatus: 429, wantDelay: 1500 * time.Millisecond},
		{name: "discord 401", handle: answer(401, "application/json", `{"message":"401: Unauthorized","code":0}`),
			wantClass: work.AuthDenied, wantStatus: 401},
		{name: "discord 404 unknown webhook", handle: answer(404, "application/json", `{"message":"Unknown Webhook","code":10015}`),
			wantClass: work.NotFound, wantStatus: 404},
		{name: "500", handle: answer(500, "text/plain", "boom"), wantClass: work.UpstreamUnavailable, wantStatus: 500},
		{name: "503", handle: answer(503, "text/html", "<html>down</html>"), wantClass: work.UpstreamUnavailable, wantStatus: 503},
		{name: "redirect is not followed", handle: answer(301, "text/plain", "", "Location", "http://elsewhere.invalid/"),
			wantClass: work.NotFound, wantStatus: 301},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.handle)
			_, err := b.n.Run(t.Context(), b.item(), gates.Delivery{})
			c := runnertest.WantClass(t, err, tt.wantClass)
			if c.Requested.Delay != tt.wantDelay {
				t.Errorf("requested delay = %v, want %v", c.Requested.Delay, tt.wantDelay)
			}
			var h *failure.HTTPError
			if !errors.As(err, &h) || h.Provider != failure.Webhook || h.Op != "POST webhook" || h.Status != tt.wantStatus {
				t.Errorf("err = %#v, want an HTTPError{webhook, POST webhook, %d}", err, tt.wantStatus)
			}
			if n := b.calls.Load(); n != 1 {
				t.Errorf("requests = %d, want exactly 1 (no retries, no redirects)", n)
			}
			d := failure.Details(err)
			if d["host"] != strings.TrimPrefix(b.srv.URL, "http://") || d["upstream_status"] != fmt.Sprint(tt.wantStatus) {
				t.Errorf("details = %v", d)
			}
		})
	}
}

func TestRunTransportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handle  http.HandlerFunc
		timeout time.Duration
		closed  bool
	}{
		{name: "timeout", timeout: 50 * time.Millisecond, handle: func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{name: "refused", closed: true, handle: answer(200, "text/plain", "ok")},
		{name: "closed before answering", handle: func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupFailing(t, tt.handle, tt.closed, tt.timeout)
			_, err := b.n.Run(t.Context(), b.item(), gates.Delivery{})
			runnertest.WantClass(t, err, work.NetworkTimeout)
		})
	}
}

// TestRunWebhookURLNeverInErrors plants a token in the webhook path and
// checks every failure shape for it.
func TestRunWebhookURLNeverInErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		handle  http.HandlerFunc
		timeout time.Duration
		closed  bool
		mutate  func(*store.Item)
	}{
		"404":           {handle: answer(404, "text/plain", "channel_not_found")},
		"timeout":       {handle: func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, timeout: 50 * time.Millisecond},
		"refused":       {handle: answer(200, "text/plain", "ok"), closed: true},
		"no enrichment": {handle: answer(200, "text/plain", "ok"), mutate: func(it *store.Item) { it.Enrichment = nil }},
		"bad scheme": {handle: answer(200, "text/plain", "ok"),
			mutate: func(it *store.Item) { it.WebhookURL = "ftp://hooks.example.com/" + webhookToken }},
		"unparseable": {handle: answer(200, "text/plain", "ok"),
			mutate: func(it *store.Item) { it.WebhookURL = "http://[bad/" + webhookToken }},
		"userinfo": {handle: answer(404, "text/plain", "channel_not_found"),
			mutate: func(it *store.Item) {
				it.WebhookURL = strings.Replace(it.WebhookURL, "http://", "http://user:"+webhookToken+"@", 1)
			}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupFailing(t, tt.handle, tt.closed, tt.timeout)
			it := b.item()
			if tt.mutate != nil {
				tt.mutate(&it)
			}
			_, err := b.n.Run(t.Context(), it, gates.Delivery{})
			if err == nil {
				t.Fatal("Run succeeded, want error")
			}
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprint(failure.Details(err))} {
				if strings.Contains(s, webhookToken) {
					t.Errorf("webhook token leaked: %q", s)
				}
			}
		})
	}
}

func TestRunRejectsItem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		mutate    func(*store.Item)
		secret    func(context.Context) ([]byte, error)
		wantClass work.Class
		wantIn    string
	}{
		{name: "no webhook URL", mutate: func(it *store.Item) { it.WebhookURL = "" }, wantClass: work.SchemaInvalid, wantIn: "webhook URL: missing"},
		{name: "relative webhook URL", mutate: func(it *store.Item) { it.WebhookURL = "/hooks/x" }, wantClass: work.SchemaInvalid, wantIn: "webhook URL"},
		{name: "no host", mutate: func(it *store.Item) { it.WebhookURL = "https:///x" }, wantClass: work.SchemaInvalid, wantIn: "no host"},
		{name: "no enrichment", mutate: func(it *store.Item) { it.Enrichment = nil }, wantClass: work.SchemaInvalid, wantIn: "no enrichment"},
		{name: "no secret loader", secret: nil, wantClass: work.InternalBug, wantIn: "no signing secret"},
		{name: "empty secret", secret: func(context.Context) ([]byte, error) { return nil, nil }, wantClass: work.InternalBug, wantIn: "secret is empty"},
		{name: "secret loader fails", secret: func(context.Context) ([]byte, error) {
			return nil, failure.New(work.AuthDenied, "resolve secret ssm:/triage/webhook: AccessDeniedException")
		}, wantClass: work.AuthDenied, wantIn: "load webhook signing secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, answer(200, "text/plain", "ok"))
			if tt.mutate == nil {
				b.n.Secret = tt.secret
			}
			it := b.item()
			if tt.mutate != nil {
				tt.mutate(&it)
			}
			_, err := b.n.Run(t.Context(), it, gates.Delivery{})
			runnertest.WantClass(t, err, tt.wantClass)
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
			if n := b.calls.Load(); n != 0 {
				t.Errorf("requests = %d, want 0", n)
			}
		})
	}
}

func TestNotifierDefaults(t *testing.T) {
	t.Parallel()
	n := newNotifier(notifierConfig{})
	if n.Client == nil || n.Client.Timeout != notifyTimeout || n.UserAgent != defaultUserAgent || n.Clock == nil {
		t.Errorf("NewNotifier defaults = %+v", n)
	}
	if n.Client.CheckRedirect == nil {
		t.Errorf("the default client follows redirects")
	}

	b := setup(t, answer(200, "text/plain", "ok"))
	zero := &notifier{Secret: b.n.Secret}
	if out, err := zero.Run(t.Context(), b.item(), gates.Delivery{}); err != nil || out.Delivery.Status != 200 {
		t.Errorf("zero-value Notifier: %+v, %v", out, err)
	}
}

func TestRunEmptyKindIsStory(t *testing.T) {
	t.Parallel()
	b := setup(t, answer(200, "text/plain", "ok"))
	it := b.item()
	it.Kind = ""
	if _, err := b.n.Run(t.Context(), it, gates.Delivery{}); err != nil {
		t.Fatal(err)
	}
	var p payload
	if err := json.Unmarshal(b.requests()[0].body, &p); err != nil || p.Kind != store.KindStory {
		t.Errorf("payload kind = %q, %v; want story", p.Kind, err)
	}
}

// TestBlockPrivateRefusesLoopbackWebhooks: a webhook URL is chosen by the
// item's producer; with BlockPrivate the client refuses to connect to a
// private destination, and the upstream never sees the request.
func TestBlockPrivateRefusesLoopbackWebhooks(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	n := newNotifier(notifierConfig{BlockPrivate: true, Secret: func(context.Context) ([]byte, error) { return []byte("s"), nil }})
	_, err := n.Run(context.Background(), store.Item{ID: "i", WebhookURL: srv.URL + "/hook",
		Enrichment: &work.Enrichment{SummaryNeutral: "n", Category: "c", Severity: "low"}}, gates.Delivery{})
	if c := failure.Classify(err); c.Class != work.SchemaInvalid {
		t.Fatalf("class %s (%v), want SCHEMA_INVALID", c.Class, err)
	}
	if hits.Load() != 0 {
		t.Fatal("the private webhook received the request")
	}
}

// TestRunTwoHundredThatReportsAFailure: DingTalk's, WeCom's and Feishu's
// robots answer every failure with a 200 whose body carries the error, and a
// Teams connector answers 200 with the status its endpoint returned
// (docs/design.md "Precedence"): none is a delivery. A 2xx whose body says
// nothing of a failure still is one, and so is one that echoes the payload
// back, whatever its summary says.
func TestRunTwoHundredThatReportsAFailure(t *testing.T) {
	t.Parallel()
	failed := []struct {
		name      string
		body      string
		wantClass work.Class
	}{
		{"dingtalk sign not match", `{"errcode":310000,"errmsg":"sign not match, more: [https://ding-doc.dingtalk.com/doc#/serverapi2/qf2nxq]"}`, work.AuthDenied},
		{"wecom rate", `{"errcode":45009,"errmsg":"api freq out of limit"}`, work.RateLimited},
		{"feishu token", `{"code":19001,"data":{},"msg":"param invalid: incoming webhook access token invalid"}`, work.AuthDenied},
		{"error code that is a status", `{"error":{"code":502,"message":"Bad Gateway"}}`, work.UpstreamUnavailable},
		{"teams 429", "Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0,server=msgapi,cv=abc.0..", work.RateLimited},
	}
	for _, tt := range failed {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, answer(200, "application/json", tt.body))
			out, err := b.n.Run(t.Context(), b.item(), gates.Delivery{})
			if err == nil {
				t.Fatalf("Run = %+v, want an error: the receiver's body reports a failure", out.Delivery)
			}
			runnertest.WantClass(t, err, tt.wantClass)
			var h *failure.HTTPError
			if !errors.As(err, &h) || h.Provider != failure.Webhook || h.Status != 200 {
				t.Errorf("err = %#v, want an HTTPError{webhook, 200}", err)
			}
			if strings.Contains(err.Error(), webhookToken) {
				t.Errorf("webhook token leaked: %q", err)
			}
			if _, err := b.n.PostNotice(t.Context(), b.item().WebhookURL, notice.Notice{Event: notice.Failed, ID: "k", ItemID: "item-1"}); err == nil {
				t.Errorf("PostNotice succeeded, want the same failure")
			}
		})
	}
	for _, body := range []string{"ok", `{"errcode":0,"errmsg":"ok"}`, `{"StatusCode":0,"StatusMessage":"success","code":0,"data":{},"msg":"success"}`,
		`{"id":"1234","type":0,"content":"hi"}`, "1", "",
		`{"json":{"enrichment":{"summary_neutral":"The API returned HTTP error 503 Service Unavailable for hours."}}}`} {
		t.Run("delivered "+work.Ellipsis(body, 40), func(t *testing.T) {
			t.Parallel()
			b := setup(t, answer(200, "application/json", body))
			if out, err := b.n.Run(t.Context(), b.item(), gates.Delivery{}); err != nil || out.Delivery == nil || out.Delivery.Status != 200 {
				t.Fatalf("Run = %+v, %v; want delivered", out.Delivery, err)
			}
		})
	}
}
