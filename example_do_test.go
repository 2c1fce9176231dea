package triage_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/triagehq/triage"
)

// stepClock is a Clock that waits by moving itself forward: the example's
// waits are recorded and take no time. A program leaves Config.Clock nil
// for the wall clock.
type stepClock struct {
	now    time.Time
	waited []time.Duration
}

func (c *stepClock) Now() time.Time { return c.now }

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.waited = append(c.waited, d)
	c.now = c.now.Add(d)
	return nil
}

func ExampleClient_Do() {
	// A time far ahead of the wall clock, so the context's deadline, set on
	// it, never ends in real time while the example runs.
	clk := &stepClock{now: time.Date(2031, 3, 4, 10, 0, 0, 0, time.UTC)}
	c, _ := triage.New(triage.Config{
		Stores: triage.MemoryStores(), // the stack's tables in a deployment: DynamoStores
		Clock:  clk,
		Rand:   func() float64 { return 0.5 }, // the middle of each backoff's range
	})
	ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(30*time.Second))
	defer cancel()

	calls := 0
	err := c.Do(ctx, func(ctx context.Context) error {
		calls++
		if calls == 1 {
			return errors.New(`POST "https://api.openai.com/v1/chat/completions": 503 Service Unavailable`)
		}
		return nil
	}, triage.Service("llm:openai"), triage.Model("openai:gpt-4o-mini"),
		triage.ForItem(triage.Item{ItemID: "story-1", SourceURL: "https://news.example.com/story-1", WebhookURL: "https://hooks.example.com/t"}))
	fmt.Println("err:", err, "calls:", calls, "waited:", clk.waited)
	// Output:
	// err: <nil> calls: 2 waited: [500ms]
}
