package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// upgradeHost is the webhook's host on both schemes: httptest's TLS
// certificate names example.com.
const upgradeHost = "example.com"

// upgradeBundle is a receiver at http://example.com (port 80) and
// https://example.com (port 443), reached through the notify stage's own
// client with only its dialing and its trusted roots replaced.
type upgradeBundle struct {
	mu    sync.Mutex
	plain []received
	tls   []received
	n     *notifier
}

func setupUpgrade(t *testing.T, plain, secure http.HandlerFunc) *upgradeBundle {
	t.Helper()
	b := &upgradeBundle{}
	keep := func(into *[]received, h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			b.mu.Lock()
			*into = append(*into, received{header: r.Header.Clone(), body: body})
			b.mu.Unlock()
			h(w, r)
		}
	}
	ps := httptest.NewServer(keep(&b.plain, plain))
	ts := httptest.NewTLSServer(keep(&b.tls, secure))
	t.Cleanup(ps.Close)
	t.Cleanup(ts.Close)
	c := newHTTPClient(false)
	tr := c.Transport.(*http.Transport).Clone()
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		switch addr {
		case upgradeHost + ":80":
			return d.DialContext(ctx, network, ps.Listener.Addr().String())
		case upgradeHost + ":443":
			return d.DialContext(ctx, network, ts.Listener.Addr().String())
		}
		return nil, errors.New("no route to " + addr)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c.Transport = tr
	b.n = newNotifier(notifierConfig{Client: c, Secret: func(context.Context) ([]byte, error) { return signingSecret, nil },
		Clock: clock.NewStub(fixedNow)})
	return b
}

func upgradeItem() store.Item {
	return store.Item{ID: "item-1", Kind: store.KindStory, CorrelationID: "corr-1", SourceURL: "https://example.com/story",
		WebhookURL: "http://" + upgradeHost + "/hooks/" + webhookToken + "?v=1",
		Enrichment: &work.Enrichment{SummaryNeutral: "n", Category: "c", Severity: "low"}}
}

func moved(status int, location string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", location)
		w.WriteHeader(status)
	}
}

// TestWebhookFollowsAnUpgradeToHTTPS: a webhook on http:// whose receiver
// answers 307 or 308 to the same host, path and query on https:// is
// delivered there once — a POST with the same body and signature — where
// it was dead-lettered by the 3xx row.
func TestWebhookFollowsAnUpgradeToHTTPS(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		b := setupUpgrade(t, moved(status, "https://"+upgradeHost+"/hooks/"+webhookToken+"?v=1"), answer(200, "text/plain", "ok"))
		out, err := b.n.Run(t.Context(), upgradeItem(), gates.Delivery{})
		if err != nil || out.Delivery.Status != 200 {
			t.Fatalf("%d to https: %+v, %v; want delivered over https", status, out, err)
		}
		if len(b.plain) != 1 || len(b.tls) != 1 || string(b.tls[0].body) != string(b.plain[0].body) ||
			b.tls[0].header.Get(headerSignature) != b.plain[0].header.Get(headerSignature) || b.tls[0].header.Get(headerSignature) == "" {
			t.Fatalf("%d: %d plain and %d TLS requests; want the one POST sent again unchanged", status, len(b.plain), len(b.tls))
		}
	}
}

// TestWebhookFollowsNoOtherRedirect: every redirect but a 307 or 308 that
// only upgrades the scheme keeps the 3xx row's outcome, and the upgrade is
// followed once.
func TestWebhookFollowsNoOtherRedirect(t *testing.T) {
	t.Parallel()
	same := "https://" + upgradeHost + "/hooks/" + webhookToken + "?v=1"
	tests := []struct {
		name          string
		plain, secure http.HandlerFunc
		status        int
	}{
		{"301 to https", moved(301, same), answer(200, "text/plain", "ok"), 301},
		{"302 to https", moved(302, same), answer(200, "text/plain", "ok"), 302},
		{"308 to another path", moved(308, "https://"+upgradeHost+"/elsewhere"), answer(200, "text/plain", "ok"), 308},
		{"308 to another query", moved(308, "https://"+upgradeHost+"/hooks/"+webhookToken+"?v=2"), answer(200, "text/plain", "ok"), 308},
		{"308 to another host", moved(308, "https://hooks.example.net/hooks/"+webhookToken+"?v=1"), answer(200, "text/plain", "ok"), 308},
		{"308 to another port", moved(308, "https://"+upgradeHost+":8443/hooks/"+webhookToken+"?v=1"), answer(200, "text/plain", "ok"), 308},
		{"308 on http", moved(308, "http://"+upgradeHost+"/hooks/"+webhookToken+"?v=1"), answer(200, "text/plain", "ok"), 308},
		{"a second redirect after the upgrade", moved(308, same), moved(308, same), 308},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupUpgrade(t, tt.plain, tt.secure)
			_, err := b.n.Run(t.Context(), upgradeItem(), gates.Delivery{})
			var h *failure.HTTPError
			if !errors.As(err, &h) || h.Status != tt.status || failure.Classify(err).Class != work.NotFound {
				t.Fatalf("Run = %v; want the %d read by the 3xx row (NOT_FOUND)", err, tt.status)
			}
		})
	}
}
