package fakes

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/clock"
)

const testSecret = "whsec-test"

type webhookBundle struct {
	hook *Webhook
	base string
}

func setupWebhook(t *testing.T, opts WebhookOptions) *webhookBundle {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = clock.NewStub(testTime)
	}
	h := NewWebhook(opts)
	return &webhookBundle{hook: h, base: serve(t, h)}
}

// post delivers body to /hooks/name signed with secret at testTime; an empty
// secret sends no signature.
func (b *webhookBundle) post(t *testing.T, name, key, secret string, body []byte) response {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if key != "" {
		h[IdempotencyHeader] = key
	}
	if secret != "" {
		ts := testTime.Unix()
		h[TimestampHeader] = strconv.FormatInt(ts, 10)
		h[SignatureHeader] = Sign(secret, ts, body)
	}
	return do(t, nil, newRequest(t, http.MethodPost, b.base+"/hooks/"+name, body, h))
}

func TestWebhookSignature(t *testing.T) {
	t.Parallel()
	b := setupWebhook(t, WebhookOptions{Secret: testSecret})
	body := []byte(`{"item_id":"i1","summary":"x"}`)
	ts := strconv.FormatInt(testTime.Unix(), 10)
	good := Sign(testSecret, testTime.Unix(), body)
	tests := map[string]struct {
		timestamp, signature string
		want                 int
	}{
		"valid":            {ts, good, 200},
		"rotated keys":     {ts, Sign("old-secret", testTime.Unix(), body) + ", " + good, 200},
		"missing":          {"", "", 401},
		"wrong secret":     {ts, Sign("nope", testTime.Unix(), body), 401},
		"tampered body":    {ts, Sign(testSecret, testTime.Unix(), []byte(`{}`)), 401},
		"other timestamp":  {strconv.FormatInt(testTime.Unix()+1, 10), good, 401},
		"no v1 prefix":     {ts, strings.TrimPrefix(good, "v1="), 401},
		"not hex":          {ts, "v1=zz", 401},
		"timestamp junk":   {"yesterday", good, 401},
		"stale, re-signed": {strconv.FormatInt(testTime.Add(-6*time.Minute).Unix(), 10), "", 401},
		"within tolerance": {strconv.FormatInt(testTime.Add(-4*time.Minute).Unix(), 10), "", 200},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sig := tt.signature
			if sig == "" && tt.timestamp != "" {
				sec, _ := strconv.ParseInt(tt.timestamp, 10, 64)
				sig = Sign(testSecret, sec, body)
			}
			h := map[string]string{IdempotencyHeader: "sig-" + name}
			if tt.timestamp != "" {
				h[TimestampHeader] = tt.timestamp
			}
			if sig != "" {
				h[SignatureHeader] = sig
			}
			r := do(t, nil, newRequest(t, http.MethodPost, b.base+"/hooks/ops", body, h))
			if r.status != tt.want {
				t.Fatalf("status = %d %s, want %d", r.status, r.body, tt.want)
			}
			if tt.want == 401 && string(r.body) != "invalid_token" {
				t.Errorf("body = %q, want invalid_token", r.body)
			}
			if got := b.hook.DeliveryCount("sig-" + name); got != map[bool]int{true: 1}[tt.want == 200] {
				t.Errorf("DeliveryCount = %d", got)
			}
		})
	}
}

func TestWebhookDeliveriesAndDuplicates(t *testing.T) {
	t.Parallel()
	b := setupWebhook(t, WebhookOptions{Secret: testSecret})
	body := []byte(`{"item_id":"i1"}`)
	if err := b.hook.SetScript("i1:notify", FaultServerError); err != nil {
		t.Fatal(err)
	}
	// A failed attempt, the successful retry, then a redelivery.
	wantStatus := []int{500, 200, 200}
	for i, want := range wantStatus {
		if r := b.post(t, "ops", "i1:notify", testSecret, body); r.status != want {
			t.Fatalf("post %d = %d, want %d", i+1, r.status, want)
		}
	}
	b.post(t, "ops", "i2:notify", testSecret, []byte(`{"item_id":"i2"}`))
	b.post(t, "ops", "", testSecret, []byte(`{}`))

	if got := b.hook.DeliveryCount("i1:notify"); got != 2 {
		t.Errorf("DeliveryCount(i1) = %d, want 2", got)
	}
	if got := b.hook.DeliveryCount("i2:notify"); got != 1 {
		t.Errorf("DeliveryCount(i2) = %d, want 1", got)
	}
	if got := b.hook.DeliveryCount(""); got != 1 {
		t.Errorf("DeliveryCount(\"\") = %d, want 1", got)
	}
	if got := b.hook.Duplicates(); got != 1 {
		t.Errorf("Duplicates = %d, want 1", got)
	}
	ds := b.hook.Deliveries()
	if len(ds) != 4 {
		t.Fatalf("Deliveries = %d, want 4", len(ds))
	}
	first := ds[0]
	if first.Key != "i1:notify" || first.Name != "ops" || string(first.Body) != string(body) || !first.SignatureValid ||
		first.Duplicate || !first.At.Equal(testTime) || !ds[1].Duplicate {
		t.Errorf("deliveries = %+v", ds)
	}

	s := fetchStats(t, b.base)
	want := DeliveryStats{Total: 4, Distinct: 2, Duplicates: 1, Unkeyed: 1,
		PerKey: map[string]int{"i1:notify": 2, "i2:notify": 1}}
	if s.Deliveries == nil || s.Deliveries.Total != want.Total || s.Deliveries.Distinct != want.Distinct ||
		s.Deliveries.Duplicates != want.Duplicates || s.Deliveries.Unkeyed != want.Unkeyed ||
		s.Deliveries.PerKey["i1:notify"] != 2 || len(s.Deliveries.PerKey) != 2 {
		t.Errorf("stats deliveries = %+v, want %+v", s.Deliveries, want)
	}
	if s.Calls["i1:notify"] != 3 || s.Calls["ops"] != 1 || s.Statuses[500] != 1 || s.Statuses[200] != 4 {
		t.Errorf("stats calls %v statuses %v", s.Calls, s.Statuses)
	}

	r := do(t, nil, newRequest(t, http.MethodGet, b.base+"/_fake/deliveries", nil, nil))
	var listed []map[string]any
	if err := json.Unmarshal(r.body, &listed); err != nil || len(listed) != 4 || listed[0]["body"] != string(body) {
		t.Errorf("GET /_fake/deliveries = %s (%v)", r.body, err)
	}

	b.hook.Reset()
	if b.hook.DeliveryCount("i1:notify") != 0 || b.hook.Duplicates() != 0 || len(b.hook.Deliveries()) != 0 {
		t.Error("Reset kept deliveries")
	}
}

func TestWebhookUnsignedWithoutSecret(t *testing.T) {
	t.Parallel()
	b := setupWebhook(t, WebhookOptions{})
	if r := b.post(t, "ops", "k", "", []byte(`{}`)); r.status != 200 || string(r.body) != "ok" {
		t.Fatalf("unsigned post = %d %q, want 200 ok", r.status, r.body)
	}
	if d := b.hook.Deliveries(); len(d) != 1 || d[0].SignatureValid {
		t.Errorf("deliveries = %+v, want one with SignatureValid false", d)
	}
}

func TestWebhookFaults(t *testing.T) {
	t.Parallel()
	b := setupWebhook(t, WebhookOptions{Secret: testSecret})
	tests := map[Fault]struct {
		status      int
		body        string
		contentType string
		header      map[string]string
	}{
		FaultServerError:    {500, "internal_error", "text/plain; charset=utf-8", nil},
		FaultUnavailable:    {503, "service_unavailable", "text/plain; charset=utf-8", nil},
		FaultRateLimitSlack: {429, "rate_limited", "text/plain; charset=utf-8", map[string]string{"Retry-After": "1"}},
		FaultRateLimitDiscord: {429, `{"message": "You are being rate limited.", "retry_after": 1.5, "global": false}`,
			"application/json", map[string]string{"Retry-After": "2", "X-RateLimit-Scope": "user"}},
		FaultChannelNotFound: {404, "channel_not_found", "text/plain; charset=utf-8", nil},
		FaultArchived:        {410, "channel_is_archived", "text/plain; charset=utf-8", nil},
		FaultInvalidPayload:  {400, "invalid_payload", "text/plain; charset=utf-8", nil},
		FaultUnauthorized:    {401, `{"message": "401: Unauthorized", "code": 0}`, "application/json", nil},
	}
	for fault, want := range tests {
		t.Run(string(fault), func(t *testing.T) {
			t.Parallel()
			key := string(fault) + ":notify"
			if err := b.hook.SetScript(key, fault); err != nil {
				t.Fatal(err)
			}
			r := b.post(t, "ops", key, testSecret, []byte(`{}`))
			if r.status != want.status || string(r.body) != want.body || r.header.Get("Content-Type") != want.contentType {
				t.Errorf("got %d %q %q, want %d %q %q", r.status, r.body, r.header.Get("Content-Type"),
					want.status, want.body, want.contentType)
			}
			for h, v := range want.header {
				if got := r.header.Get(h); got != v {
					t.Errorf("header %s = %q, want %q", h, got, v)
				}
			}
			if b.hook.DeliveryCount(key) != 0 {
				t.Error("a failed POST was recorded as a delivery")
			}
		})
	}
}

// TestOutageAndFix walks the operator's story on the webhook: an outage
// answers 503 to everyone; a permanent fault keeps failing until fixed; the
// replay after the fix is delivered exactly once.
func TestOutageAndFix(t *testing.T) {
	t.Parallel()
	b := setupWebhook(t, WebhookOptions{})
	if err := b.hook.SetScript("doomed:notify", Always(FaultChannelNotFound)); err != nil {
		t.Fatal(err)
	}
	post := func(key string) int { return b.post(t, "ops", key, "", []byte(`{}`)).status }

	b.hook.SetOutage(true)
	if got := []int{post("a:notify"), post("doomed:notify")}; got[0] != 503 || got[1] != 503 {
		t.Errorf("during outage = %v, want 503s", got)
	}
	b.hook.SetOutage(false)
	if got := []int{post("a:notify"), post("doomed:notify"), post("doomed:notify")}; got[0] != 200 || got[1] != 404 || got[2] != 404 {
		t.Errorf("after outage = %v, want [200 404 404]", got)
	}
	b.hook.SetFixed(true)
	if got := post("doomed:notify"); got != 200 {
		t.Errorf("fixed replay = %d, want 200", got)
	}
	if got := b.hook.DeliveryCount("doomed:notify"); got != 1 || b.hook.Duplicates() != 0 {
		t.Errorf("doomed deliveries = %d, duplicates %d; want exactly one", got, b.hook.Duplicates())
	}
	s := b.hook.Stats()
	if s.Faults[FaultUnavailable] != 2 || s.Faults[FaultChannelNotFound] != 2 || !s.Fixed || s.Outage {
		t.Errorf("stats faults %v fixed %v outage %v", s.Faults, s.Fixed, s.Outage)
	}
	outage := 0
	for _, c := range s.Recent {
		if c.Outage {
			outage++
		}
	}
	if outage != 2 {
		t.Errorf("recent calls marked outage = %d, want 2", outage)
	}
}

// TestWebhookConcurrentDuplicates: concurrent redeliveries of one key count
// one delivery and the rest duplicates.
func TestWebhookConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	b := setupWebhook(t, WebhookOptions{})
	const n = 20
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { // t.Fatal is not allowed off the test goroutine: no b.post here
			req, err := http.NewRequest(http.MethodPost, b.base+"/hooks/ops", strings.NewReader(`{}`))
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set(IdempotencyHeader, "same:notify")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	if got := b.hook.DeliveryCount("same:notify"); got != n {
		t.Errorf("DeliveryCount = %d, want %d", got, n)
	}
	if got := b.hook.Duplicates(); got != n-1 {
		t.Errorf("Duplicates = %d, want %d", got, n-1)
	}
}

// A delivery records the event type its sender named.
func TestWebhookRecordsTheEvent(t *testing.T) {
	t.Parallel()
	b := setupWebhook(t, WebhookOptions{})
	h := map[string]string{IdempotencyHeader: "t:item.failed:0", EventHeader: "item.failed"}
	if r := do(t, nil, newRequest(t, http.MethodPost, b.base+"/hooks/owner", []byte(`{}`), h)); r.status != http.StatusOK {
		t.Fatalf("status %d", r.status)
	}
	b.post(t, "owner", "t:notify", "", []byte(`{}`))
	ds := b.hook.Deliveries()
	if len(ds) != 2 || ds[0].Event != "item.failed" || ds[1].Event != "" {
		t.Fatalf("deliveries %+v", ds)
	}
}
