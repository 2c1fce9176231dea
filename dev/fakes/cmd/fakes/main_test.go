package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRunServesAndShutsDown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-seed", "7", "-mix", "not_found=1,always:invalid_json=1",
			"-model-faults", "bad-model=empty", "-webhook-secret", "s3cret"}, pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read URLs: %v (run: %v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	var urls map[string]string
	if err := json.Unmarshal([]byte(line), &urls); err != nil {
		t.Fatalf("URLs line %q: %v", line, err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	tests := map[string]struct {
		method, url, body string
		want              int
	}{
		"articles draw the mix": {http.MethodGet, urls["articles"] + "/articles/a1", "", 404},
		"llm draws the mix": {http.MethodPost, urls["llm"] + "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 200},
		"webhook needs a signature": {http.MethodPost, urls["webhook"] + "/hooks/ops", `{}`, 401},
		"control api":               {http.MethodGet, urls["llm"] + "/_fake/stats", "", 200},
	}
	for name, tt := range tests {
		if !strings.HasPrefix(tt.url, "http://127.0.0.1:") {
			t.Fatalf("%s: URL %q is not loopback", name, tt.url)
		}
		req, err := http.NewRequest(tt.method, tt.url, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: status %d %s, want %d", name, resp.StatusCode, body, tt.want)
		}
		if name == "llm draws the mix" && !strings.Contains(string(body), "Sure! Here is the summary") {
			t.Errorf("%s: body %s, want the invalid_json fault", name, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run returned %v after cancel", err)
	}
}

func TestParseFlagsRejects(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"unknown fault":     {"-mix", "teapot=0.1"},
		"negative bound":    {"-transient-calls", "-1"},
		"bad model fault":   {"-model-faults", "m"},
		"unknown model flt": {"-model-faults", "m=teapot"},
		"extra argument":    {"serve"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := parseFlags(args); err == nil {
				t.Errorf("parseFlags(%q) succeeded", args)
			}
		})
	}
	runErrors := map[string]struct {
		args []string
		want string
	}{
		"all interfaces": {[]string{"-llm-addr", "0.0.0.0:0"}, "loopback"},
		"rates over one": {[]string{"-mix", "hang=0.6,rate_limit=0.6"}, "sum"},
		"rate of none":   {[]string{"-mix", "none=0.1"}, "successes"},
	}
	for name, tt := range runErrors {
		if err := run(context.Background(), tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: run(%q) = %v, want ~%q", name, tt.args, err, tt.want)
		}
	}
}
