package fakes

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// serve starts h on a loopback port for the test's lifetime.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	s, err := Start("", h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close fake: %v", err)
		}
	})
	return s.URL
}

// response is a fully read HTTP response.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends req with client (a 10 s default) and reads the whole response.
func do(t *testing.T, client *http.Client, req *http.Request) response {
	t.Helper()
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return response{resp.StatusCode, resp.Header, body}
}

// newRequest builds a request or fails the test.
func newRequest(t *testing.T, method, url string, body []byte, header map[string]string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

// control posts a control request and fails the test unless it answers
// wantStatus.
func control(t *testing.T, base, path string, body any, wantStatus int) response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	r := do(t, nil, newRequest(t, http.MethodPost, base+path, b, map[string]string{"Content-Type": "application/json"}))
	if r.status != wantStatus {
		t.Fatalf("POST %s = %d %s, want %d", path, r.status, r.body, wantStatus)
	}
	return r
}

// fetchStats reads GET /_fake/stats.
func fetchStats(t *testing.T, base string) Stats {
	t.Helper()
	r := do(t, nil, newRequest(t, http.MethodGet, base+"/_fake/stats", nil, nil))
	if r.status != http.StatusOK {
		t.Fatalf("GET /_fake/stats = %d %s", r.status, r.body)
	}
	var s Stats
	if err := json.Unmarshal(r.body, &s); err != nil {
		t.Fatalf("decode stats: %v\n%s", err, r.body)
	}
	return s
}

var testTime = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
