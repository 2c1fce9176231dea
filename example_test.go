package triage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage"
)

func ExampleClassify() {
	// An error as a Go client prints it: the classifier reads its text.
	err := errors.New(`POST "https://api.openai.com/v1/chat/completions": 429 Too Many Requests ` +
		`{"error":{"code":"rate_limit_exceeded","message":"Rate limit reached. Please try again in 2.5s."}}`)
	cl := triage.Classify(err)
	fmt.Println(cl.Class, "retryable:", cl.Retryable, "counts:", cl.Counts, "asked:", cl.Requested.Delay)
	// Output:
	// RATE_LIMITED retryable: true counts: true asked: 2.5s
}

func ExampleClassifyResponse() {
	req, _ := http.NewRequest(http.MethodPost, "https://api.anthropic.com/v1/messages", nil)
	resp := &http.Response{StatusCode: 400, Header: http.Header{}, Request: req}
	body := []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}`)
	cl := triage.ClassifyResponse(resp, body)
	fmt.Println(cl.Class, "retryable:", cl.Retryable)
	// Output:
	// TOKEN_LIMIT retryable: false
}

func ExampleDecide() {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	resp := &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"20"}}}
	err := &httpFailure{resp}
	for attempt := 1; attempt <= 5; attempt += 4 {
		fmt.Println(triage.Decide(nil, triage.LLM, err, attempt, now).Reason())
	}
	// Output:
	// UPSTREAM_UNAVAILABLE is retryable: attempt 1 of 5, retry in 20s (exponential 1s×2 ≤1m0s full jitter, upstream asked for 20s)
	// UPSTREAM_UNAVAILABLE exhausted 5 of 5 attempts
}

// httpFailure is how a client might report an answer it did not accept.
type httpFailure struct{ resp *http.Response }

func (e *httpFailure) Error() string {
	return fmt.Sprintf("HTTP %d (Retry-After: %s)", e.resp.StatusCode, e.resp.Header.Get("Retry-After"))
}

func ExampleClient_RoundTripper() {
	var sends atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sends.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			http.Error(w, `{"error":{"code":"rate_limit_exceeded","message":"slow down"}}`, http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"content":"ok"}}]}`)
	}))
	defer srv.Close()

	clk := newClock()
	c, _ := triage.New(triage.Config{Clock: clk, Rand: half})
	client := &http.Client{Transport: c.RoundTripper(http.DefaultTransport, triage.Service("llm:local"))}
	ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(time.Minute))
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"model":"m"}`))
	resp, err := client.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status, "after", sends.Load(), "sends; waited", clk.waits())
	// Output:
	// 200 OK after 2 sends; waited [2s]
}

// Example is the README's inline path: it compiles with the README's lines.
func Example() {
	var (
		breakersTable, modelsTable, budgetTable = "triage-Breakers", "triage-Models", "triage-Budget"
		fetchQueueURL                           = "https://sqs.us-east-1.amazonaws.com/123456789012/triage-FetchQueue"
		spec                                    = item("story-1")
		enrich                                  = func(context.Context) error { return nil }
	)
	inline := func(ctx context.Context) error {
		cfg, _ := config.LoadDefaultConfig(ctx)
		client, err := triage.New(triage.Config{
			Stores:         triage.DynamoStores(dynamodb.NewFromConfig(cfg), triage.Tables{Breakers: breakersTable, Models: modelsTable, Budget: budgetTable}),
			DailyBudgetUSD: "5", CostPerCallUSD: "0.003", // the stack's parameters
			SQS: sqs.NewFromConfig(cfg), FetchQueueURL: fetchQueueURL, // and outputs
		})
		if err != nil {
			return err
		}
		return client.Do(ctx, enrich, triage.Service("llm:openai"), triage.Model("openai:gpt-4o-mini"), triage.ForItem(spec))
	}
	_ = inline
}
