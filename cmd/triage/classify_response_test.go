package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/upstream/llm"
)

// responseCase is one line of testdata/model-responses.jsonl: a model's
// HTTP response collected from provider documentation and SDK sources, the
// class the llm stage gives it ("accepted" for a usable answer), and where
// it comes from.
type responseCase struct {
	Source string        `json:"source"`
	Want   string        `json:"want"`
	Input  classifyInput `json:"input"`
}

func loadResponseCases(t *testing.T) []responseCase {
	t.Helper()
	var out []responseCase
	eachLine(t, "testdata/model-responses.jsonl", func(n int, line []byte) {
		var c responseCase
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if c.Source == "" || c.Want == "" || c.Input.Response == "" {
			t.Fatalf("line %d has no source, expectation or response", n)
		}
		out = append(out, c)
	})
	return out
}

// TestClassifyModelResponses classifies every collected response with the
// CLI and requires the class the llm stage reaches: for each, the same bytes
// are also served over HTTP to the stage's real client of that dialect (the
// AWS SDK for Bedrock) and judged as the stage judges them, and both must
// agree.
func TestClassifyModelResponses(t *testing.T) {
	t.Parallel()
	cases := loadResponseCases(t)
	if len(cases) < 30 {
		t.Fatalf("%d cases; the file is the evidence, keep it whole", len(cases))
	}
	c := classifier{clock: clock.NewStub(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)), rand: func() float64 { return 0.5 }}
	byDialect := map[failure.Provider]int{}
	for _, tc := range cases {
		t.Run(tc.Input.Name, func(t *testing.T) {
			t.Parallel()
			line, _ := json.Marshal(tc.Input)
			got := c.line(line)
			stage := stageClass(t, tc.Input)
			if tc.Want == "accepted" {
				if got.Error == "" || !strings.Contains(got.Error, "accepts") || stage != "accepted" {
					t.Fatalf("CLI %+v, stage %s; want a usable answer (%s)", got, stage, tc.Source)
				}
				return
			}
			if got.Error != "" || got.Class != tc.Want {
				t.Fatalf("CLI class %q (error %q, reason %q), want %s (%s)", got.Class, got.Error, got.Reason, tc.Want, tc.Source)
			}
			if stage != got.Class {
				t.Fatalf("the llm stage's client says %s, the CLI %s (%s)", stage, got.Class, tc.Source)
			}
			if got.Decision == "" {
				t.Fatalf("no decision: %+v", got)
			}
		})
		_, d, _ := responseDialect(tc.Input)
		byDialect[d]++
	}
	for _, d := range failure.Dialects() {
		if byDialect[d] < 2 {
			t.Errorf("only %d cases of %s", byDialect[d], d)
		}
	}
}

// stageClass serves in's response over HTTP to the llm stage's client of its
// dialect, judges the answer as the stage does, and returns the class, or
// "accepted".
func stageClass(t *testing.T, in classifyInput) string {
	t.Helper()
	_, dialect, err := responseDialect(in)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		for k, v := range in.Headers {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		status := in.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, string(in.Response))
	}))
	t.Cleanup(srv.Close)
	cfg := llm.Config{Provider: dialect, BaseURL: srv.URL, Timeout: 5 * time.Second}
	switch dialect {
	case failure.OpenAI:
		cfg.BaseURL = srv.URL + "/v1"
	case failure.Azure:
		cfg.BaseURL = srv.URL + "/openai"
	case failure.Gemini:
		cfg.BaseURL = srv.URL + "/v1beta"
	case failure.Bedrock:
		cfg.AWS = &aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test-access-key", "test-secret-key", "")}
	}
	client, err := llm.NewCompleter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kind := store.KindStory
	if in.Kind != "" {
		kind = store.Kind(in.Kind)
	} else if strings.Contains(string(in.Response), failure.ActionMarker) {
		kind = store.KindAction
	}
	resp, err := client.Complete(t.Context(), llm.Request{Model: "m", Messages: llm.BuildMessages(kind, "a document", 0)})
	if err == nil {
		_, err = llm.Judge(kind, resp)
	}
	if err == nil {
		return "accepted"
	}
	return string(failure.Classify(err).Class)
}

func TestClassifyResponseInputErrors(t *testing.T) {
	t.Parallel()
	c := classifier{clock: clock.System{}, rand: func() float64 { return 0.5 }}
	for in, want := range map[string]string{
		`{"response":"{}","dialect":"webhook"}`:                                        "not a model API's",
		`{"response":"{}","kind":"poem"}`:                                              "kind",
		`{"response":"{}","status":42}`:                                                "not an HTTP status",
		`{"response":"{\"choices\":[{\"message\":{\"content\":\"{}\"}}]}","stauts":1}`: "invalid input",
	} {
		if got := c.line([]byte(in)); !strings.Contains(got.Error, want) {
			t.Errorf("%s: error %q, want it to mention %q", in, got.Error, want)
		}
	}
	// A response line goes through the whole command like any other.
	var out bytes.Buffer
	in := `{"name":"cut","dialect":"anthropic","response":"{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"{\"}],\"stop_reason\":\"max_tokens\"}"}` + "\n"
	if err := runClassify(strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"class":"RESPONSE_INVALID"`) || !strings.Contains(out.String(), "cut off at the token limit") {
		t.Fatalf("output %s", out.String())
	}
}
