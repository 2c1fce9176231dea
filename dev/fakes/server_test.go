package fakes

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestStartLoopbackOnly(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		addr    string
		wantErr string
	}{
		"default":        {addr: ""},
		"ipv4 loopback":  {addr: "127.0.0.1:0"},
		"localhost":      {addr: "localhost:0"},
		"all interfaces": {addr: ":0", wantErr: "loopback"},
		"any ipv4":       {addr: "0.0.0.0:0", wantErr: "loopback"},
		"public":         {addr: "192.0.2.1:0", wantErr: "loopback"},
		"no port":        {addr: "127.0.0.1", wantErr: "missing port"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := Start(tt.addr, http.NotFoundHandler())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Start(%q) error = %v, want %q", tt.addr, err, tt.wantErr)
				}
				if s != nil {
					_ = s.Close()
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !strings.HasPrefix(s.URL, "http://127.0.0.1:") && !strings.HasPrefix(s.URL, "http://[::1]:") {
				t.Errorf("URL = %q, want a loopback URL", s.URL)
			}
			if r := do(t, nil, newRequest(t, http.MethodGet, s.URL+"/x", nil, nil)); r.status != http.StatusNotFound {
				t.Errorf("GET = %d, want 404", r.status)
			}
		})
	}
}

// TestCloseReleasesHangs: closing the server ends a request held by a hang
// (default MaxHang, 30 s) without an answer, and Close returns.
func TestCloseReleasesHangs(t *testing.T) {
	t.Parallel()
	a := NewArticles(ArticleOptions{})
	if err := a.SetScript("held", FaultHang); err != nil {
		t.Fatal(err)
	}
	arrived := make(chan struct{})
	s, err := Start("", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		a.ServeHTTP(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		client := &http.Client{Timeout: 20 * time.Second}
		resp, err := client.Get(s.URL + "/articles/held")
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("request ended before reaching the fake: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := <-done; err == nil {
		t.Error("the held request got an answer; want the connection closed")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}
