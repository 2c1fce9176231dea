package budget_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/gates/budget"
)

func TestParsePrices(t *testing.T) {
	t.Parallel()
	ps, err := budget.ParsePrices("openai:gpt-4o-mini=0.15/0.60,\n# Bedrock, on demand\n"+
		" bedrock:anthropic.claude-3-5-haiku-20241022-v1:0 = 0.80/4/0.002 , anthropic:flat=0/0/0.01", 3_000)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]budget.Price{
		"openai:gpt-4o-mini": {Input: 150_000, Output: 600_000},
		"bedrock:anthropic.claude-3-5-haiku-20241022-v1:0": {Input: 800_000, Output: 4_000_000, PerCall: 2_000},
		"anthropic:flat": {PerCall: 10_000},
	}
	if len(ps.Models) != len(want) || ps.Default != 3_000 {
		t.Fatalf("prices = %+v", ps)
	}
	for k, w := range want {
		if ps.Models[k] != w {
			t.Errorf("%s = %+v, want %+v", k, ps.Models[k], w)
		}
	}
	for _, bad := range []string{"m=1", "m=1/2/3/4", "m", "=1/2", "m=-1/2", "m=1/2,m=3/4", "m=1.0000001/2", "m=20000/1"} {
		if _, err := budget.ParsePrices(bad, 3_000); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := budget.ParsePrices("", 0); err == nil {
		t.Error("a zero default cost parsed")
	}
	if ps, err := budget.ParsePrices("  \n# nothing\n", 1); err != nil || len(ps.Models) != 0 {
		t.Errorf("an empty table: %+v, %v", ps, err)
	}
}

func TestPricesCost(t *testing.T) {
	t.Parallel()
	ps := budget.Prices{Default: 3_000, Models: map[string]budget.Price{
		"tokens": {Input: 150_000, Output: 600_000},
		"both":   {Input: 3_000_000, Output: 15_000_000, PerCall: 20_000},
		"flat":   {PerCall: 500},
	}}
	tests := []struct {
		model          string
		in, out        int
		reported       bool
		estimate, cost budget.Micros
	}{
		{"tokens", 1000, 500, true, 3_000, 450},
		{"tokens", 0, 0, true, 3_000, 0},
		{"tokens", 1, 0, true, 3_000, 1},           // rounds up
		{"tokens", 1000, 500, false, 3_000, 3_000}, // no usage: the estimate
		{"both", 4000, 1000, true, 20_000, 27_000},
		{"both", 4000, 1000, false, 20_000, 20_000},
		{"flat", 4000, 1000, true, 500, 500},
		{"unknown", 4000, 1000, true, 3_000, 3_000},
		{"tokens", -1, 0, true, 3_000, 3_000}, // nonsense usage: the estimate
		// The largest answers stay exact: 2M input tokens at 10,000 USD per million.
	}
	for _, tt := range tests {
		if got := ps.Estimate(tt.model); got != tt.estimate {
			t.Errorf("Estimate(%s) = %s, want %s", tt.model, got, tt.estimate)
		}
		if got := ps.Cost(tt.model, tt.in, tt.out, tt.reported); got != tt.cost {
			t.Errorf("Cost(%s, %d, %d, %v) = %s, want %s", tt.model, tt.in, tt.out, tt.reported, got, tt.cost)
		}
	}
	huge := budget.Prices{Default: 1, Models: map[string]budget.Price{"m": {Input: budget.MaxPriceUSD * 1_000_000}}}
	if got := huge.Cost("m", 2_000_000, 0, true); got != budget.Micros(2*budget.MaxPriceUSD)*1_000_000 {
		t.Errorf("huge cost = %s", got)
	}
}

func TestPricesRekey(t *testing.T) {
	t.Parallel()
	ps := budget.Prices{Default: 1, Models: map[string]budget.Price{"a": {PerCall: 1}, "x:b": {PerCall: 2}}}
	got, err := ps.Rekey(func(k string) (string, error) {
		if strings.Contains(k, ":") {
			return k, nil
		}
		return "x:" + k, nil
	})
	if err != nil || got.Models["x:a"].PerCall != 1 || got.Models["x:b"].PerCall != 2 || got.Default != 1 {
		t.Fatalf("Rekey = %+v, %v", got, err)
	}
	if _, err := (budget.Prices{Models: map[string]budget.Price{"a": {}, "x:a": {}}}).Rekey(func(k string) (string, error) {
		return "x:" + strings.TrimPrefix(k, "x:"), nil
	}); err == nil {
		t.Error("two keys with one canonical form were accepted")
	}
	if _, err := ps.Rekey(func(string) (string, error) { return "", errors.New("bad") }); err == nil {
		t.Error("a canonicalisation error was dropped")
	}
}

// TestSettle corrects a day's spend by a call's real cost: down for an
// estimate that was too high, up for one too low, on the day of the charge.
func TestSettle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	day := time.Date(2026, 11, 21, 23, 59, 0, 0, time.UTC)
	m := &budget.Memory{Cap: 10_000, Cost: 3_000}
	if err := m.ChargeCost(ctx, day, 3_000); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx, day, -2_550); err != nil {
		t.Fatal(err)
	}
	if err := m.ChargeCost(ctx, day, 3_000); err != nil {
		t.Fatal(err)
	}
	if err := m.Settle(ctx, day, 7_000); err != nil { // the call cost more than estimated: past the cap
		t.Fatal(err)
	}
	d, _ := m.Day(ctx, day)
	if d.Spend != 10_450 || d.Calls != 2 {
		t.Fatalf("day = %+v", d)
	}
	if err := m.ChargeCost(ctx, day, 1); !budget.IsExceeded(err) {
		t.Fatalf("a charge past the cap: %v", err)
	}
	if next, _ := m.Day(ctx, day.Add(time.Minute)); next.Spend != 0 {
		t.Fatalf("the settlement leaked into the next day: %+v", next)
	}
}

// TestDailyChargeCostAndSettle runs the same corrections against DynamoDB
// (moto): a charge of the call's estimate, its settlement to the real cost,
// and the cap's check on the corrected spend.
func TestDailyChargeCostAndSettle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := localtest.Stack(t, nil)
	table := env.Output(t, "BudgetTableName")
	d, err := budget.New(dynamodb.NewFromConfig(env.AWS), table, 10_000, 3_000)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2031, 3, 4, 12, 0, 0, 0, time.UTC) // a day no other test charges
	if err := d.ChargeCost(ctx, day, 6_000); err != nil {
		t.Fatal(err)
	}
	if err := d.Settle(ctx, day, -5_550); err != nil {
		t.Fatal(err)
	}
	if err := d.ChargeCost(ctx, day, 9_000); err != nil { // 450 + 9,000 fits the 10,000 cap
		t.Fatal(err)
	}
	if err := d.ChargeCost(ctx, day, 1_000); !budget.IsExceeded(err) {
		t.Fatalf("a charge past the cap: %v", err)
	}
	if err := d.Settle(ctx, day, 0); err != nil {
		t.Fatal(err)
	}
	got, err := d.Day(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spend != 9_450 || got.Calls != 2 || got.Blocked != 1 {
		t.Fatalf("day = %+v", got)
	}
}

// An answer's usage is read from the provider's JSON: a proxy or a buggy
// gateway can report token counts no call has, up to the largest int. A
// count whose price does not fit int64 is nonsense usage, like a negative
// one, and keeps the estimate: wrapped, it priced the call negative, and
// the settlement's "refund" filled the pocket past the day's cap.
func TestPricesCostOfImpossibleUsage(t *testing.T) {
	t.Parallel()
	ps := budget.Prices{Default: 3_000, Models: map[string]budget.Price{"tokens": {Input: 150_000, Output: 600_000}}}
	for _, u := range []struct{ in, out int }{
		{math.MaxInt64 / 100_000, 0},       // the product wraps
		{math.MaxInt64/150_000 - 1, 1_000}, // the sum wraps
		{math.MaxInt, math.MaxInt},
	} {
		if got := ps.Cost("tokens", u.in, u.out, true); got != 3_000 {
			t.Errorf("Cost(%d, %d) = %s, want the estimate 0.003", u.in, u.out, got)
		}
	}
}

// The largest usage whose price fits int64 is priced, rounded up without
// wrapping.
func TestPricesCostAtTheEdgeOfInt64(t *testing.T) {
	t.Parallel()
	ps := budget.Prices{Default: 3_000, Models: map[string]budget.Price{"m": {Input: 1}}}
	if got, want := ps.Cost("m", math.MaxInt64, 0, true), budget.Micros(math.MaxInt64/1_000_000+1); got != want {
		t.Fatalf("Cost = %d µ$, want %d", got, want)
	}
}
