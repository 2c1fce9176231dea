package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/triagehq/triage/dev/runnertest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream"
	"github.com/triagehq/triage/internal/work"
)

// fetcher is the stage runner's Work.
var _ runner.Work = (*fetcher)(nil)

var fixedNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// testBundle is an article server whose handler each test sets, and a
// fetcher pointed at it.
type testBundle struct {
	srv   *httptest.Server
	calls atomic.Int32
	last  atomic.Pointer[http.Request]
	f     *fetcher
}

// setupFailing is setup for a failing fetch: the server closed first when
// closed, and the fetcher's client giving up after timeout when it is set.
func setupFailing(t *testing.T, handle http.HandlerFunc, closed bool, timeout time.Duration) (*testBundle, *fetcher) {
	t.Helper()
	b := setup(t, handle)
	f := b.f
	if timeout > 0 {
		f = newFetcher(fetcherConfig{Client: &http.Client{Timeout: timeout}})
	}
	if closed {
		b.srv.Close()
	}
	return b, f
}

func setup(t *testing.T, handle http.HandlerFunc) *testBundle {
	t.Helper()
	b := &testBundle{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.calls.Add(1)
		b.last.Store(r.Clone(r.Context()))
		handle(w, r)
	}))
	t.Cleanup(b.srv.Close)
	b.f = newFetcher(fetcherConfig{Clock: clock.NewStub(fixedNow)})
	return b
}

func (b *testBundle) item(path string) store.Item {
	return store.Item{ID: "item-1", Kind: store.KindStory, SourceURL: b.srv.URL + path, CorrelationID: "corr-1"}
}

func serve(status int, contentType, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		} else {
			w.Header()["Content-Type"] = nil // suppress net/http's sniffing
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestRunStoresReadableText(t *testing.T) {
	t.Parallel()
	page := `<!DOCTYPE html><html><head><title>Acme fined</title>
<style>body { color: red }</style><script>var x = "<p>not text</p>";</script></head>
<body><!-- a comment <p>hidden</p> --><h1>Acme   fined</h1>
<p>The <b>SEC</b> fined Acme &amp; Co &euro;5m.</p><p>Shares fell&nbsp;3%.</p>
<ul><li>one</li><li>two</li></ul><noscript>enable JS</noscript><img src="x.png" alt="a > b"/>
</body></html>`
	tests := []struct {
		name, contentType, body string
		wantText, wantType      string
	}{
		{name: "plain text", contentType: "text/plain; charset=utf-8", body: "Acme fined.\n\nShares   fell.\n",
			wantText: "Acme fined.\n\nShares fell.", wantType: "text/plain"},
		{name: "html", contentType: "text/html; charset=UTF-8", body: page,
			wantText: "Acme fined\n\nAcme fined\n\nThe SEC fined Acme & Co €5m.\n\nShares fell 3%.\n\none\ntwo", wantType: "text/html"},
		{name: "xhtml", contentType: "application/xhtml+xml", body: `<?xml version="1.0"?><html><body><p>Hi <i>there</i></p></body></html>`,
			wantText: "Hi there", wantType: "application/xhtml+xml"},
		{name: "json", contentType: "application/json", body: `{"title": "Acme fined"}`,
			wantText: `{"title": "Acme fined"}`, wantType: "application/json"},
		{name: "markdown", contentType: "text/markdown", body: "# Acme\nfined", wantText: "# Acme\nfined", wantType: "text/markdown"},
		{name: "sniffed html", body: "<html><body><p>Sniffed</p></body></html>", wantText: "Sniffed", wantType: "text/html"},
		{name: "sniffed text", body: "just words", wantText: "just words", wantType: "text/plain"},
		{name: "latin-1", contentType: "text/plain; charset=ISO-8859-1", body: "caf\xe9 \x80", wantText: "café €", wantType: "text/plain"},
		{name: "shift_jis", contentType: "text/html; charset=Shift_JIS", body: "<p>\x93\xfa\x96{\x8c\xea\x82\xcc\x83j\x83\x85\x81[\x83X</p>",
			wantText: "日本語のニュース", wantType: "text/html"},
		{name: "windows-1251", contentType: "text/plain; charset=windows-1251", body: "\xcd\xee\xe2\xee\xf1\xf2\xe8 \xe4\xed\xff",
			wantText: "Новости дня", wantType: "text/plain"},
		{name: "gbk", contentType: "text/html; charset=gb2312", body: "<p>\xd0\xc2\xce\xc5\xb1\xa8\xb5\xc0</p>", wantText: "新闻报道", wantType: "text/html"},
		{name: "euc-kr", contentType: "text/plain; charset=EUC-KR", body: "\xb4\xba\xbd\xba", wantText: "뉴스", wantType: "text/plain"},
		{name: "iso-8859-2", contentType: "text/plain; charset=iso-8859-2", body: "\xa3\xf3d\xbc", wantText: "Łódź", wantType: "text/plain"},
		{name: "replacement charset taken as UTF-8", contentType: "text/plain; charset=iso-2022-kr", body: "plain words", wantText: "plain words", wantType: "text/plain"},
		{name: "meta charset", contentType: "text/html", body: `<html><head><meta charset="windows-1252"><title>Caf` + "\xe9</title></head></html>",
			wantText: "Café", wantType: "text/html"},
		{name: "meta http-equiv charset", contentType: "text/html",
			body:     `<HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=Shift_JIS"></HEAD><BODY><P>` + "\x93\xfa\x96{\x8c\xea</P></BODY></HTML>",
			wantText: "日本語", wantType: "text/html"},
		{name: "header charset before meta", contentType: "text/html; charset=utf-8", body: `<meta charset="windows-1252"><p>caf` + "\xc3\xa9</p>",
			wantText: "café", wantType: "text/html"},
		{name: "unknown charset taken as UTF-8", contentType: "text/plain; charset=x-no-such", body: "caf\xc3\xa9", wantText: "café", wantType: "text/plain"},
		{name: "broken parameters", contentType: `text/plain; charset="utf-8; x`, body: "words", wantText: "words", wantType: "text/plain"},
		{name: "invalid UTF-8 repaired", contentType: "text/plain", body: "ok\xff\xfeok", wantText: "ok\uFFFDok", wantType: "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, serve(200, tt.contentType, tt.body))
			out, err := b.f.Run(t.Context(), b.item("/a"), gates.Delivery{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.Enrichment != nil || out.Delivery != nil {
				t.Errorf("output sets more than Document: %+v", out)
			}
			want := &work.Document{
				Text: tt.wantText, Bytes: len(tt.body), SHA256: sha(tt.wantText),
				ContentType: tt.wantType, FetchedAt: fixedNow,
			}
			if *out.Document != *want {
				t.Errorf("Document =\n%+v\nwant\n%+v", *out.Document, *want)
			}
			if !utf8.ValidString(out.Document.Text) {
				t.Errorf("text is not valid UTF-8")
			}
		})
	}
}

func TestRunSendsHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t, serve(200, "text/plain", "hello"))
	if _, err := b.f.Run(t.Context(), b.item("/a"), gates.Delivery{}); err != nil {
		t.Fatal(err)
	}
	r := b.last.Load()
	if got := r.Header.Get("Accept"); got != "text/plain, text/html;q=0.9, application/xhtml+xml;q=0.9, application/json;q=0.8, text/*;q=0.7" {
		t.Errorf("Accept = %q", got)
	}
	if got := r.Header.Get("User-Agent"); got != defaultUserAgent {
		t.Errorf("User-Agent = %q", got)
	}
	if r.Method != http.MethodGet {
		t.Errorf("method = %s", r.Method)
	}
}

// countingTransport counts the response body bytes the caller reads.
type countingTransport struct {
	read atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.read}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func TestRunSizeLimit(t *testing.T) {
	t.Parallel()
	const max = 1024
	tests := []struct {
		name          string
		body          string
		wantLen       int
		wantTruncated bool
	}{
		{name: "under the limit", body: strings.Repeat("a", max-1), wantLen: max - 1},
		{name: "exactly the limit", body: strings.Repeat("a", max), wantLen: max},
		{name: "one over", body: strings.Repeat("a", max+1), wantLen: max, wantTruncated: true},
		{name: "far over", body: strings.Repeat("a", 4<<20), wantLen: max, wantTruncated: true},
		// "é" is 2 bytes: the cut at 1024 falls inside the 513th.
		{name: "cut inside a rune", body: "a" + strings.Repeat("é", max), wantLen: max - 1, wantTruncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, serve(200, "text/plain; charset=utf-8", tt.body))
			ct := &countingTransport{}
			f := newFetcher(fetcherConfig{Client: &http.Client{Transport: ct}, MaxBytes: max, Clock: clock.NewStub(fixedNow)})
			out, err := f.Run(t.Context(), b.item("/big"), gates.Delivery{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			d := out.Document
			if len(d.Text) != tt.wantLen || d.Truncated != tt.wantTruncated {
				t.Errorf("len(Text) = %d, Truncated = %v; want %d, %v", len(d.Text), d.Truncated, tt.wantLen, tt.wantTruncated)
			}
			if d.Bytes > max {
				t.Errorf("Bytes = %d, want <= %d", d.Bytes, max)
			}
			if strings.ContainsRune(d.Text, utf8.RuneError) || !utf8.ValidString(d.Text) {
				t.Errorf("text ends in a broken rune")
			}
			if d.SHA256 != sha(d.Text) {
				t.Errorf("SHA256 does not match the stored text")
			}
			if n := ct.read.Load(); n > max+1 {
				t.Errorf("read %d bytes from the wire, want at most %d", n, max+1)
			}
		})
	}
}

func TestRunDefaults(t *testing.T) {
	t.Parallel()
	f := newFetcher(fetcherConfig{})
	if f.MaxBytes != defaultMaxBytes || f.UserAgent != defaultUserAgent || f.Client == nil || f.Clock == nil {
		t.Errorf("NewFetcher defaults = %+v", f)
	}
	if f.Client.Timeout != fetchTimeout {
		t.Errorf("Client.Timeout = %v, want %v", f.Client.Timeout, fetchTimeout)
	}
	tr, ok := f.Client.Transport.(*http.Transport)
	if !ok || tr.TLSHandshakeTimeout != upstream.TLSHandshakeTimeout || tr.ResponseHeaderTimeout != responseHeaderTimeout {
		t.Errorf("transport = %+v", f.Client.Transport)
	}
	if defaultMaxBytes != 200*1024 {
		t.Errorf("DefaultMaxBytes = %d", defaultMaxBytes)
	}
}

func TestRunFailureClasses(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	tests := []struct {
		name      string
		handle    http.HandlerFunc
		wantClass work.Class
		wantHTTP  int
		wantIn    string
	}{
		{name: "404", handle: serve(404, "text/html", "<h1>Not Found</h1>"), wantClass: work.NotFound, wantHTTP: 404},
		{name: "410", handle: serve(410, "text/plain", "gone"), wantClass: work.NotFound, wantHTTP: 410},
		{name: "403", handle: serve(403, "text/plain", "forbidden"), wantClass: work.AuthDenied, wantHTTP: 403},
		{name: "429", handle: serve(429, "text/plain", "slow down", "Retry-After", "30"), wantClass: work.RateLimited, wantHTTP: 429},
		{name: "500", handle: serve(500, "text/plain", "boom"), wantClass: work.UpstreamUnavailable, wantHTTP: 500},
		{name: "503", handle: serve(503, "text/html", "<html>down</html>"), wantClass: work.UpstreamUnavailable, wantHTTP: 503},
		{name: "image", handle: serve(200, "image/png", png), wantClass: work.SchemaInvalid, wantIn: `unsupported content type "image/png"`},
		{name: "pdf", handle: serve(200, "application/pdf", "%PDF-1.7"), wantClass: work.SchemaInvalid, wantIn: "unsupported content type"},
		{name: "octet-stream", handle: serve(200, "application/octet-stream", "\x00\x01"), wantClass: work.SchemaInvalid, wantIn: "unsupported content type"},
		{name: "sniffed image", handle: serve(200, "", png), wantClass: work.SchemaInvalid, wantIn: "unsupported content type"},
		{name: "malformed content type", handle: serve(200, "text/", "x"), wantClass: work.SchemaInvalid, wantIn: "unsupported content type"},
		{name: "empty body", handle: serve(200, "text/plain", ""), wantClass: work.SchemaInvalid, wantIn: "empty document"},
		{name: "whitespace body", handle: serve(200, "text/plain", " \n\t "), wantClass: work.SchemaInvalid, wantIn: "empty document"},
		{name: "html without text", handle: serve(200, "text/html", "<html><script>x()</script><style>p{}</style></html>"),
			wantClass: work.SchemaInvalid, wantIn: "empty document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.handle)
			_, err := b.f.Run(t.Context(), b.item("/a"), gates.Delivery{})
			runnertest.WantClass(t, err, tt.wantClass)
			if n := b.calls.Load(); n != 1 {
				t.Errorf("requests = %d, want exactly 1 (no retries)", n)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
			var h *failure.HTTPError
			if tt.wantHTTP > 0 {
				if !errors.As(err, &h) {
					t.Fatalf("err %v is not an *HTTPError", err)
				}
				if h.Provider != failure.HTTP || h.Op != "GET article" || h.Status != tt.wantHTTP {
					t.Errorf("HTTPError = {%s %q %d}", h.Provider, h.Op, h.Status)
				}
			}
			d := failure.Details(err)
			if d["host"] != strings.TrimPrefix(b.srv.URL, "http://") || d["upstream_status"] == "" {
				t.Errorf("details = %v", d)
			}
		})
	}
}

func TestRunRetryAfterReachesClassifier(t *testing.T) {
	t.Parallel()
	b := setup(t, serve(429, "text/plain", "slow down", "Retry-After", "30"))
	_, err := b.f.Run(t.Context(), b.item("/a"), gates.Delivery{})
	if c := failure.Classify(err); c.Requested.Delay != 30*time.Second {
		t.Errorf("requested = %+v, want 30s", c.Requested)
	}
}

func TestRunErrorBodyIsBounded(t *testing.T) {
	t.Parallel()
	b := setup(t, serve(500, "text/plain", strings.Repeat("x", 3*failure.MaxBodyBytes)))
	_, err := b.f.Run(t.Context(), b.item("/a"), gates.Delivery{})
	var h *failure.HTTPError
	if !errors.As(err, &h) || len(h.Body) != failure.MaxBodyBytes {
		t.Fatalf("err = %v", err)
	}
}

func TestRunInvalidSourceURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "   ", "/relative/path", "example.com/a", "ftp://example.com/a", "javascript:alert(1)",
		"http://", "https:///path", "http://[::1", "file:///etc/passwd"} {
		t.Run(u, func(t *testing.T) {
			t.Parallel()
			f := newFetcher(fetcherConfig{})
			_, err := f.Run(t.Context(), store.Item{ID: "item-1", SourceURL: u}, gates.Delivery{})
			if c := failure.Classify(err); err == nil || c.Class != work.SchemaInvalid {
				t.Errorf("Run(%q) err = %v (class %s), want SCHEMA_INVALID", u, err, c.Class)
			}
		})
	}
}

func TestRunTransportFailures(t *testing.T) {
	t.Parallel()
	hijack := func(head, partial string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = buf.WriteString(head + partial)
			_ = buf.Flush()
		}
	}
	tests := []struct {
		name       string
		handle     http.HandlerFunc
		timeout    time.Duration
		closed     bool
		wantUnexEO bool
	}{
		{name: "timeout before headers", timeout: 50 * time.Millisecond,
			handle: func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{name: "timeout mid-body", timeout: 50 * time.Millisecond,
			handle: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.Header().Set("Content-Length", "1000")
				_, _ = io.WriteString(w, "partial")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}},
		{name: "closed mid-body", wantUnexEO: true,
			handle: hijack("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n", strings.Repeat("a", 100))},
		{name: "closed mid-chunk", wantUnexEO: true,
			handle: hijack("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n", "64\r\n"+strings.Repeat("a", 50))},
		{name: "connection refused", closed: true, handle: serve(200, "text/plain", "x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, f := setupFailing(t, tt.handle, tt.closed, tt.timeout)
			_, err := f.Run(t.Context(), b.item("/a"), gates.Delivery{})
			c := runnertest.WantClass(t, err, work.NetworkTimeout)
			t.Logf("err = %v; reason = %s", err, c.Reason)
			if tt.wantUnexEO && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("err = %v, want io.ErrUnexpectedEOF in the chain", err)
			}
		})
	}
}

// TestRunURLNeverInErrors plants a token in the path and query of the source
// URL and checks every failure shape.
func TestRunURLNeverInErrors(t *testing.T) {
	t.Parallel()
	const token = "tok-PLANTED-9f8e7d"
	tests := map[string]struct {
		handle  http.HandlerFunc
		closed  bool
		timeout time.Duration
	}{
		"404":     {handle: serve(404, "text/plain", "nope")},
		"refused": {handle: serve(200, "text/plain", "x"), closed: true},
		"timeout": {handle: func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, timeout: 50 * time.Millisecond},
		"image":   {handle: serve(200, "image/png", "x")},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, f := setupFailing(t, tt.handle, tt.closed, tt.timeout)
			_, err := f.Run(t.Context(), b.item("/private/"+token+"?access_token="+token), gates.Delivery{})
			if err == nil {
				t.Fatal("Run succeeded, want error")
			}
			for _, s := range []string{err.Error(), fmt.Sprint(failure.Details(err))} {
				if strings.Contains(s, token) {
					t.Errorf("URL token leaked: %q", s)
				}
			}
		})
	}
}

func TestRunBlockPrivate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    func() *fetcher
		host string // replaces 127.0.0.1 in the URL
	}{
		{name: "constructor", f: func() *fetcher { return newFetcher(fetcherConfig{BlockPrivate: true}) }},
		{name: "zero value", f: func() *fetcher { return &fetcher{BlockPrivate: true} }},
		{name: "by name", f: func() *fetcher { return newFetcher(fetcherConfig{BlockPrivate: true}) }, host: "localhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, serve(200, "text/plain", "internal secrets"))
			item := b.item("/latest/meta-data")
			if tt.host != "" {
				item.SourceURL = strings.Replace(item.SourceURL, "127.0.0.1", tt.host, 1)
			}
			_, err := tt.f().Run(t.Context(), item, gates.Delivery{})
			runnertest.WantClass(t, err, work.SchemaInvalid)
			if !strings.Contains(err.Error(), "loopback") {
				t.Errorf("error %q does not say why", err)
			}
			if n := b.calls.Load(); n != 0 {
				t.Errorf("server saw %d requests, want 0", n)
			}
		})
	}
}

func TestRunBlockPrivateOffReachesLoopback(t *testing.T) {
	t.Parallel()
	b := setup(t, serve(200, "text/plain", "local fake"))
	out, err := (&fetcher{}).Run(t.Context(), b.item("/a"), gates.Delivery{})
	if err != nil || out.Document.Text != "local fake" {
		t.Fatalf("Run = %+v, %v", out.Document, err)
	}
}

func TestHTMLText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello", "hello"},
		{"inline tags vanish", "a<b>b</b>c <i>d</i>", "abc d"},
		{"source newlines are spaces", "one\ntwo\r\n  three", "one two three"},
		{"paragraphs", "<p>one</p><p>two</p>", "one\n\ntwo"},
		{"br is a line", "one<br>two<br/>three", "one\ntwo\nthree"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>", "a b\nc"},
		{"script and style dropped", "a<script type='x'>if (a < b) { x('</p>') }</script>b<STYLE>p{}</STYLE>c", "a b c"},
		{"uppercase closing", "a<SCRIPT>x</ScRiPt>b", "a b"},
		{"self-closing svg keeps the rest", `a<svg viewBox="0 0 1 1"/>b`, "ab"},
		{"unclosed script drops the rest", "a<script>x", "a"},
		{"comments", "a<!-- <p>x</p> -->b<!-- unterminated", "ab"},
		{"doctype and pi", "<!DOCTYPE html><?xml version='1.0'?>x", "x"},
		{"quoted >", `<a title="a > b" href='x>y'>link</a>`, "link"},
		{"literal lt", "a < b and c<5", "a < b and c<5"},
		{"entities", "Tom &amp; Jerry &lt;3 &#8364;5 &euro; &nbsp;x&quot;", "Tom & Jerry <3 €5 € x\""},
		{"escaped tags stay text", "&lt;p&gt;hi&lt;/p&gt;", "<p>hi</p>"},
		{"unterminated tag", "text <div class=", "text"},
		{"whitespace collapse", "  a \t b  \n\n\n  <p>  c  </p>   ", "a b\n\nc"},
		{"empty", "", ""},
		{"list items are lines", "<ul><li>a</li><li>b</li></ul><p>c</p>", "a\nb\n\nc"},
		{"nested divs do not stack", "<div><div><div>a</div></div></div><div>b</div>", "a\nb"},
		{"control characters dropped", "a\x01b&#1;c\x02<p>d</p>", "abc\n\nd"},
		{"newline entity is a space", "a&#10;b", "a b"},
		{"only markup", "<div><span></span></div>", ""},
		{"utf-8 kept", "<p>naïve café 日本</p>", "naïve café 日本"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := htmlText(tt.in); got != tt.want {
				t.Errorf("htmlText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func BenchmarkHTMLText(b *testing.B) {
	page := strings.Repeat(`<div class="para"><p>The <b>SEC</b> fined Acme &amp; Co.</p><script>var x=1;</script></div>`+"\n", 2000)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		_ = htmlText(page)
	}
}

// TestRunRedirectToAnotherScheme: a source that redirects to file:, gopher:
// or ftp: leads to no document the stage reads; it is a redirect not followed,
// which a source's 3xx row says is NOT_FOUND (docs/design.md "Defaults by
// role"), not an UNKNOWN that spends every attempt.
func TestRunRedirectToAnotherScheme(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{"file:///etc/passwd", "gopher://127.0.0.1:70/_x", "ftp://example.com/a.txt"} {
		t.Run(loc, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, loc, http.StatusFound) })
			_, err := b.f.Run(t.Context(), b.item("/a"), gates.Delivery{})
			runnertest.WantClass(t, err, work.NotFound)
			var h *failure.HTTPError
			if !errors.As(err, &h) || h.Status != http.StatusFound {
				t.Errorf("err = %v, want the 302 as an HTTPError", err)
			}
			if n := b.calls.Load(); n != 1 {
				t.Errorf("requests = %d, want 1", n)
			}
		})
	}
}

// A body in a multi-byte charset cut at MaxBytes loses its partial last
// character, as a UTF-8 one does.
func TestDecodeCutMultiByteCharset(t *testing.T) {
	t.Parallel()
	if got := decode([]byte("\x93\xfa\x96"), "shift_jis", true); got != "日" {
		t.Errorf("decode = %q, want %q", got, "日")
	}
	if got := decode([]byte("\x93\xfa\x96"), "shift_jis", false); got != "日\uFFFD" {
		t.Errorf("decode of a whole body = %q, want its broken end kept as U+FFFD", got)
	}
}

// TestRunAcceptsWhatItStores: a server that negotiates strictly (Spring's
// produces=, Rails' respond_to) answers 406 to an Accept that does not name
// its type; the stage stores JSON, XHTML and any text/*, so its Accept
// names them, and such a source is not a permanent SCHEMA_INVALID.
func TestRunAcceptsWhatItStores(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"application/json", "application/xhtml+xml", "text/markdown"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(w http.ResponseWriter, r *http.Request) {
				major, _, _ := strings.Cut(typ, "/")
				accept := r.Header.Get("Accept")
				if !strings.Contains(accept, typ) && !strings.Contains(accept, major+"/*") && !strings.Contains(accept, "*/*") {
					w.WriteHeader(http.StatusNotAcceptable)
					return
				}
				w.Header().Set("Content-Type", typ)
				_, _ = io.WriteString(w, "<p>words</p>")
			})
			if _, err := b.f.Run(t.Context(), b.item("/a"), gates.Delivery{}); err != nil {
				t.Fatalf("Run: %v", err)
			}
		})
	}
}
