package triage_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage"
)

// BenchmarkDo is what the inline path adds to a successful call with every
// gate on, against the memory stores: the model's health and the breaker
// from their caches, the budget from the pocket.
func BenchmarkDo(b *testing.B) {
	clk := newClock()
	c, err := triage.New(triage.Config{Stores: triage.MemoryStores(), DailyBudgetUSD: "1000000", CostPerCallUSD: "0.000001", Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(time.Minute))
	defer cancel()
	ok := func(context.Context) error { return nil }
	opts := []triage.CallOption{triage.Service("llm:openai"), triage.Model("openai:gpt-4o-mini"), triage.ForItem(item("bench"))}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Do(ctx, ok, opts...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripper is a request through the RoundTripper to a
// transport that answers 200 at once, with the breaker on.
func BenchmarkRoundTripper(b *testing.B) {
	c, err := triage.New(triage.Config{Stores: triage.MemoryStores()})
	if err != nil {
		b.Fatal(err)
	}
	rt := c.RoundTripper(answering{}, triage.Service("llm:openai"))
	req, _ := http.NewRequest(http.MethodPost, "https://api.openai.com/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

type answering struct{}

func (answering) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: r}, nil
}
