package budget_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

var t0 = time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)

func TestParseUSD(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    budget.Micros
		wantErr bool
	}{
		"whole dollars":     {in: "5", want: 5_000_000},
		"a fraction":        {in: "0.003", want: 3_000},
		"cents":             {in: "12.50", want: 12_500_000},
		"a dollar sign":     {in: " $1 ", want: 1_000_000},
		"no leading zero":   {in: ".5", want: 500_000},
		"trailing dot":      {in: "5.", want: 5_000_000},
		"micro-dollars":     {in: "0.000001", want: 1},
		"zero":              {in: "0", want: 0},
		"empty":             {in: "", wantErr: true},
		"a lone dot":        {in: ".", wantErr: true},
		"negative":          {in: "-1", wantErr: true},
		"exponent":          {in: "3e-3", wantErr: true},
		"too many decimals": {in: "0.0000001", wantErr: true},
		"two dots":          {in: "1.2.3", wantErr: true},
		"too large":         {in: "1000000000", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := budget.ParseUSD(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseUSD(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestMicrosString(t *testing.T) {
	t.Parallel()
	for in, want := range map[budget.Micros]string{
		0: "0.00", 5_000_000: "5.00", 3_000: "0.003", 3_500: "0.0035", 12_500_000: "12.50", 1: "0.000001", -3_000: "-0.003",
	} {
		if got := in.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int64(in), got, want)
		}
	}
}

// charger is what both budgets implement.
type charger interface {
	budget.Budget
	Day(ctx context.Context, day time.Time) (budget.Day, error)
}

// budgetRules runs the charging rules against a fresh budget per case.
func budgetRules(t *testing.T, newBudget func(t *testing.T, dailyCap, cost budget.Micros) charger) {
	ctx := context.Background()
	tests := []struct {
		name          string
		dailyCap      budget.Micros
		cost          budget.Micros
		charges       int
		wantCalls     int64
		wantBlocked   int64
		wantSpend     budget.Micros
		wantLeased    budget.Micros
		nextDayPasses bool
	}{
		// The default lease (20 calls' worth) is more than the cap: the one
		// lease takes the whole day.
		{name: "cap not a multiple of the cost", dailyCap: 1000, cost: 300, charges: 5, wantCalls: 3, wantBlocked: 2, wantSpend: 900,
			wantLeased: 1000, nextDayPasses: true},
		{name: "cap a multiple of the cost", dailyCap: 900, cost: 300, charges: 4, wantCalls: 3, wantBlocked: 1, wantSpend: 900,
			wantLeased: 900, nextDayPasses: true},
		{name: "cost above the cap", dailyCap: 100, cost: 300, charges: 2, wantCalls: 0, wantBlocked: 2, wantSpend: 0},
		{name: "zero cap", dailyCap: 0, cost: 1, charges: 1, wantCalls: 0, wantBlocked: 1, wantSpend: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBudget(t, tc.dailyCap, tc.cost)
			for i := range tc.charges {
				err := b.Charge(ctx, t0.Add(time.Duration(i)*time.Minute))
				if want := int64(i) >= tc.wantCalls; budget.IsExceeded(err) != want || (err != nil && !want) {
					t.Fatalf("charge %d: %v (exceeded wanted: %v)", i+1, err, want)
				}
			}
			d, err := b.Day(ctx, t0)
			if err != nil {
				t.Fatal(err)
			}
			want := budget.Day{Day: "2026-11-21", Spend: tc.wantSpend, Calls: tc.wantCalls, Blocked: tc.wantBlocked, Cap: tc.dailyCap,
				Leased: tc.wantLeased, Leases: int64(min(tc.wantLeased, 1))}
			if d != want {
				t.Fatalf("day %+v, want %+v", d, want)
			}
			// 90 minutes later it is the next UTC day: a fresh budget.
			err = b.Charge(ctx, t0.Add(90*time.Minute))
			if (err == nil) != tc.nextDayPasses {
				t.Fatalf("charge on the next day: %v", err)
			}
		})
	}
}

func TestMemoryBudgetRules(t *testing.T) {
	t.Parallel()
	budgetRules(t, func(_ *testing.T, dailyCap, cost budget.Micros) charger {
		return &budget.Memory{Cap: dailyCap, Cost: cost}
	})
}

func TestDailyBudgetRules(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	table := env.Output(t, "BudgetTableName")
	// One table; each case charges its own day (the test's own t0 shifted
	// by whole days keeps the cases apart).
	var mu sync.Mutex
	shift := 0
	budgetRules(t, func(t *testing.T, dailyCap, cost budget.Micros) charger {
		b, err := budget.New(db, table, dailyCap, cost)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		shift += 10
		n := shift
		mu.Unlock()
		return shifted{b, time.Duration(n) * 24 * time.Hour}
	})
}

// shifted moves every charge and read by a fixed number of days, so that
// parallel cases on one table use different days.
type shifted struct {
	*budget.Daily
	by time.Duration
}

func (s shifted) Charge(ctx context.Context, now time.Time) error {
	return s.Daily.Charge(ctx, now.Add(s.by))
}
func (s shifted) Day(ctx context.Context, day time.Time) (budget.Day, error) {
	d, err := s.Daily.Day(ctx, day.Add(s.by))
	d.Day = budget.DayKey(day)
	return d, err
}

// TestConcurrentChargesNeverOverspend: 8 goroutines charge at once around
// the cap; the condition serialises them, so the day's spend ends exactly at
// the most whole calls the cap allows — not one call more.
func TestConcurrentChargesNeverOverspend(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	table := env.Output(t, "BudgetTableName")
	b, err := budget.New(dynamodb.NewFromConfig(env.AWS), table, 10_000, 700) // 14 calls fit (9 800), the 15th would not
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 4
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		passed  int64
		refused int64
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := b.Charge(context.Background(), t0)
				mu.Lock()
				switch {
				case err == nil:
					passed++
				case budget.IsExceeded(err):
					refused++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	d, err := b.Day(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Spend != 9_800 || d.Calls != 14 || passed != 14 || d.Blocked != refused || passed+refused != workers*each {
		t.Fatalf("day %+v after %d passed and %d refused charges; want spend 9800 (14 calls), never more", d, passed, refused)
	}
}

func TestExceededClassifiesAsASelfImposedWait(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("llm: %w", budget.Exceeded())
	cl := failure.Classify(err)
	if cl.Class != work.BudgetExceeded || !cl.SelfImposed || cl.Counts {
		t.Fatalf("classification %+v", cl)
	}
	if !budget.IsExceeded(err) || budget.IsExceeded(errors.New("daily budget cap reached")) ||
		budget.IsExceeded(&failure.Error{Class: work.BudgetExceeded}) {
		t.Fatal("IsExceeded must match only the self-imposed cap")
	}
	if !errors.Is(err, &failure.Error{Class: work.BudgetExceeded}) {
		t.Fatal("errors.Is by class")
	}
}

func ExampleMemory() {
	b := &budget.Memory{Cap: 7_000, Cost: 3_000} // $0.007 a day, $0.003 a call
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for range 3 {
		fmt.Println(b.Charge(context.Background(), now))
	}
	d, _ := b.Day(context.Background(), now)
	fmt.Println(d.Day, d.Spend, d.Calls, d.Blocked)
	// Output:
	// <nil>
	// <nil>
	// BUDGET_EXCEEDED: daily budget cap reached
	// 2026-11-21 0.006 2 1
}

func ExampleParseUSD() {
	m, _ := budget.ParseUSD("0.003")
	fmt.Println(int64(m), m)
	// Output: 3000 0.003
}

// countingAPI counts the UpdateItems that reach DynamoDB.
type countingAPI struct {
	budget.API
	updates atomic.Int64
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.updates.Add(1)
	return c.API.UpdateItem(ctx, in, opts...)
}

// TestEightInstancesSpendingAtOnce is the budget without a hot key under
// load, against moto: 8 instances, each with its own pocket, spend until the
// day is refused. The day's leases never pass the cap, so the spend never
// does (the bound is one chunk; the leases make it zero); what the pockets
// keep unspent at the end is less than a call each; and it took about one
// write per chunk of calls, not one per call.
func TestEightInstancesSpendingAtOnce(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	table := env.Output(t, "BudgetTableName")
	const (
		instances = 8
		dailyCap  = budget.Micros(1_000_000) // $1
		cost      = budget.Micros(3_000)     // $0.003: 333 calls fit
		chunk     = 10 * cost
	)
	api := &countingAPI{API: dynamodb.NewFromConfig(env.AWS)}
	ctx := context.Background()
	passed, refused, writes, d := spendAtOnce(t, api, table, instances, dailyCap, cost, chunk, t0,
		func(b *budget.Daily, _, _ int) error { return b.Charge(ctx, t0) })
	spent := budget.Micros(passed) * cost
	t.Logf("%d calls passed ($%s of $%s), %d refused; %d leases, %d DynamoDB writes: %.3f writes per call",
		passed, spent, dailyCap, refused, d.Leases, writes, float64(writes)/float64(passed))
	if spent > dailyCap || d.Leased > dailyCap {
		t.Fatalf("spent %s, leased %s: over the %s cap", spent, d.Leased, dailyCap)
	}
	if unused := dailyCap - spent; unused >= (instances+1)*cost {
		t.Fatalf("%s of the cap went unspent; the pockets should keep less than a call each", unused)
	}
	if d.Spend != spent || d.Calls != passed || d.Blocked != refused {
		t.Fatalf("day %+v; want the %d calls, %s spend and %d refusals the instances counted", d, passed, spent, refused)
	}
	// One lease per chunk of 10 calls, plus the partial leases and one
	// counters write per instance at the end: far below a write per call.
	if perCall := float64(writes) / float64(passed); perCall > 0.2 {
		t.Fatalf("%.2f writes per call, want at most 0.2", perCall)
	}
}

// TestLeasesStartFromADayWithoutThem: a day a version without leases began
// (spend, no leased) keeps its cap: the spend so far counts as leased.
func TestLeasesStartFromADayWithoutThem(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	table := env.Output(t, "BudgetTableName")
	db := dynamodb.NewFromConfig(env.AWS)
	ctx := context.Background()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
		"day": &types.AttributeValueMemberS{Value: budget.DayKey(t0)}, "spend": &types.AttributeValueMemberN{Value: "9000"},
		"calls": &types.AttributeValueMemberN{Value: "3"}, "cap": &types.AttributeValueMemberN{Value: "10000"},
	}}); err != nil {
		t.Fatal(err)
	}
	b, err := budget.New(db, table, 10_000, 3_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Charge(ctx, t0); !budget.IsExceeded(err) {
		t.Fatalf("a charge past the old spend: %v, want refused (9000 of 10000 spent, a call is 3000)", err)
	}
	d, err := b.Day(ctx, t0)
	if err != nil || d.Leased != 9_000 || d.Spend != 9_000 || d.Blocked != 1 {
		t.Fatalf("day %+v, %v", d, err)
	}
}

// countingStore counts a pocket's leases.
type countingStore struct {
	budget.MemoryStore
	leases int
}

func (c *countingStore) Lease(ctx context.Context, req budget.LeaseRequest) (budget.LeaseResult, error) {
	c.leases++
	return c.MemoryStore.Lease(ctx, req)
}

// TestBusyPocketsLeaseByTheirRate: a pocket leases what it spends in
// LeaseFor at its own rate, so an instance making 100 calls a second
// leases about once per 10 s, not once per Chunk; its first lease, with no
// rate known yet, is Chunk.
func TestBusyPocketsLeaseByTheirRate(t *testing.T) {
	t.Parallel()
	store := &countingStore{}
	const cost = budget.Micros(3_000)
	p := &budget.Pocket{Store: store, Cap: 1 << 40, Chunk: 20 * cost}
	ctx := context.Background()
	for i := range 6000 { // 60 s at 100 calls a second
		if err := p.Spend(ctx, t0.Add(time.Duration(i)*10*time.Millisecond), cost); err != nil {
			t.Fatal(err)
		}
	}
	// 20 calls, then 0.2 s of them, then ~10 s at a time: 1 + 1 + ~6.
	if store.leases > 10 || store.leases < 4 {
		t.Fatalf("%d leases for 6000 calls over 60 s, want about one per 10 s", store.leases)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	d, _ := store.Day(ctx, t0)
	if d.Calls != 6000 || d.Spend != 6000*cost || d.Leased > d.Spend+p.Left()+1 {
		t.Fatalf("day %+v, left %s", d, p.Left())
	}
	t.Logf("%d leases for 6000 calls", store.leases)
}

// TestSettlingPocketsUnderConcurrentInstances is the leased budget with
// per-model prices under load, against moto: 8 instances charge each call's
// estimate, then settle it to a real cost that is sometimes more, sometimes
// less. Refunds and excesses stay in the pockets (no write per call); the
// day's leases never pass the cap; the real spend passes it by at most the
// excess of the calls in flight when the day ran out (one per instance
// here), which is less than one chunk; and the day's record holds the real
// spend the instances counted.
func TestSettlingPocketsUnderConcurrentInstances(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	table := env.Output(t, "BudgetTableName")
	const (
		instances = 8
		dailyCap  = budget.Micros(1_000_000) // $1
		estimate  = budget.Micros(3_000)
		chunk     = 10 * estimate
		maxExcess = budget.Micros(1_500)
	)
	// The real cost of an instance's n-th call, less its estimate.
	deltas := []budget.Micros{maxExcess, -1_000, 500, -200, maxExcess, 0}
	day := time.Date(2031, 5, 6, 12, 0, 0, 0, time.UTC) // a day no other test charges
	api := &countingAPI{API: dynamodb.NewFromConfig(env.AWS)}
	ctx := context.Background()
	var real atomic.Int64
	passed, refused, writes, d := spendAtOnce(t, api, table, instances, dailyCap, estimate, chunk, day,
		func(b *budget.Daily, i, n int) error {
			if err := b.ChargeCost(ctx, day, estimate); err != nil {
				return err
			}
			delta := deltas[(n+i)%len(deltas)]
			real.Add(int64(estimate + delta))
			return b.Settle(ctx, day, delta)
		})
	spent := budget.Micros(real.Load())
	t.Logf("%d calls passed (real cost $%s of $%s), %d refused; leased $%s in %d leases; %d DynamoDB writes: %.3f writes per call",
		passed, spent, dailyCap, refused, d.Leased, d.Leases, writes, float64(writes)/float64(passed))
	if d.Leased > dailyCap {
		t.Fatalf("leased %s: over the %s cap", d.Leased, dailyCap)
	}
	if over := spent - dailyCap; over > instances*maxExcess || over > chunk {
		t.Fatalf("the real spend %s passes the cap by %s: more than the %s the calls in flight could add, or a chunk", spent, over, instances*maxExcess)
	}
	if unused := dailyCap - spent; unused >= (instances+1)*estimate {
		t.Fatalf("%s of the cap went unspent; the pockets should keep less than a call each", unused)
	}
	if d.Spend != spent || d.Calls != passed || d.Blocked != refused {
		t.Fatalf("day %+v; want the %d calls, %s real spend and %d refusals the instances counted", d, passed, spent, refused)
	}
	if perCall := float64(writes) / float64(passed); perCall > 0.25 {
		t.Fatalf("%.2f writes per call, want at most 0.25: settlements must not write per call", perCall)
	}
}

// TestPocketSettles pins the pocket's corrections: a refund pays the
// instance's next call with no lease, an excess the pocket holds needs no
// write, an excess it cannot hold leases, and one the spent day cannot pay
// is a debt that refuses the next call; a call settled after midnight goes
// to its own day.
func TestPocketSettles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &budget.MemoryStore{}
	p := &budget.Pocket{Store: store, Cap: 10_000, Chunk: 4_000}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	leases := func() int64 {
		t.Helper()
		d, err := store.Day(ctx, t0)
		must(err)
		return d.Leases
	}
	must(p.Spend(ctx, t0, 3_000)) // lease 4,000: 1,000 left
	must(p.Settle(ctx, t0, -2_000))
	if p.Left() != 3_000 {
		t.Fatalf("after a refund the pocket holds %s, want 3.000 m$", p.Left())
	}
	must(p.Spend(ctx, t0, 3_000)) // paid by the refund
	if n := leases(); n != 1 {
		t.Fatalf("%d leases; the refund should have paid the second call", n)
	}
	must(p.Settle(ctx, t0, 1_000)) // an excess: a lease of a chunk
	if n, left := leases(), p.Left(); n != 2 || left != 3_000 {
		t.Fatalf("%d leases, %s left; want the excess leased with a chunk", n, left)
	}
	must(p.Spend(ctx, t0, 3_000)) // 0 left, 8,000 of 10,000 leased
	must(p.Settle(ctx, t0, 5_000))
	// The day had 2,000 left: leased, and 3,000 is a debt.
	if left := p.Left(); left != -3_000 {
		t.Fatalf("the pocket holds %s, want a 3,000 m$ debt", left)
	}
	if err := p.Spend(ctx, t0, 1); !budget.IsExceeded(err) {
		t.Fatalf("a pocket in debt on a spent day charged: %v", err)
	}
	must(p.Flush(ctx))
	d, err := store.Day(ctx, t0)
	must(err)
	if d.Leased != 10_000 || d.Spend != 13_000 || d.Calls != 3 || d.Blocked != 1 {
		t.Fatalf("day %+v; want 10,000 leased, the real 13,000 spent by 3 calls and 1 refusal", d)
	}
	// A call charged before midnight and settled after it.
	next := t0.Add(2 * time.Hour) // past 00:00 UTC
	must(p.Spend(ctx, next, 3_000))
	must(p.Settle(ctx, t0, -500))
	if d, _ := store.Day(ctx, t0); d.Spend != 12_500 {
		t.Fatalf("the late settlement did not reach its day: %+v", d)
	}
}

// spendAtOnce runs instances budgets over the table, each its own pocket,
// spending at once: call makes instance i's n-th call, until it has been
// refused three times (at most 1,000 calls). It then flushes every pocket
// and returns the calls that passed and were refused, the DynamoDB writes
// they made (the flushes left out), and the day as written.
func spendAtOnce(t *testing.T, api *countingAPI, table string, instances int, dailyCap, cost, chunk budget.Micros, day time.Time,
	call func(b *budget.Daily, i, n int) error) (passed, refused, writes int64, d budget.Day) {
	t.Helper()
	ctx := context.Background()
	var (
		wg        sync.WaitGroup
		ok, no    atomic.Int64
		budgets   = make([]*budget.Daily, instances)
		firstFail sync.Once
	)
	for i := range instances {
		b, err := budget.New(api, table, dailyCap, cost)
		if err != nil {
			t.Fatal(err)
		}
		b.Chunk = chunk
		budgets[i] = b
		wg.Add(1)
		go func() {
			defer wg.Done()
			refusals := 0
			for n := 0; n < 1000 && refusals < 3; n++ { // bounded
				switch err := call(b, i, n); {
				case err == nil:
					ok.Add(1)
				case budget.IsExceeded(err):
					no.Add(1)
					refusals++
				default:
					firstFail.Do(func() { t.Error(err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	writes = api.updates.Load()
	for _, b := range budgets {
		if err := b.Pocket().Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	d, err := (&budget.Daily{DB: api, Table: table}).Day(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	return ok.Load(), no.Load(), writes, d
}

// TestPocketNeverGoesBackADay: an instance's records read the clock before
// they take the pocket, so at midnight a charge stamped a moment before it
// can follow one that moved the pocket to the new day. It is charged to the
// new day, the day the call is made in: going back would drop the new
// day's lease (and lease it again at the next call), a chunk lost per
// instance every midnight.
func TestPocketNeverGoesBackADay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &budget.MemoryStore{}
	p := &budget.Pocket{Store: store, Cap: 10_000, Chunk: 4_000}
	midnight := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for i, at := range []time.Time{midnight.Add(time.Millisecond), midnight.Add(-time.Millisecond), midnight.Add(2 * time.Millisecond)} {
		if err := p.Spend(ctx, at, 1_000); err != nil {
			t.Fatalf("charge %d at %s: %v", i+1, at.Format(time.RFC3339Nano), err)
		}
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := store.Day(ctx, midnight)
	if err != nil {
		t.Fatal(err)
	}
	if d.Leased != 4_000 || d.Leases != 1 || d.Calls != 3 || d.Spend != 3_000 {
		t.Fatalf("the new day %+v; want one lease of 4,000 paying all three calls", d)
	}
	if prev, _ := store.Day(ctx, midnight.Add(-time.Hour)); prev.Leased != 0 || prev.Calls != 0 {
		t.Fatalf("the day before leased again: %+v", prev)
	}
}

// TestLateStampedChargeSettlesOnTheDayItWasLeasedFrom: a call stamped a
// moment before midnight that takes the pocket after another charge moved
// it to the new day is paid from the new day (TestPocketNeverGoesBackADay);
// its settlement is reported under that day too. Settled by its stamp, it
// went to the day before, whose counters gained a correction for a call
// they never counted while the new day's lacked it.
func TestLateStampedChargeSettlesOnTheDayItWasLeasedFrom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &budget.MemoryStore{}
	p := &budget.Pocket{Store: store, Cap: 10_000, Chunk: 4_000}
	midnight := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	early := midnight.Add(-time.Hour)
	late := midnight.Add(-time.Millisecond)
	for _, at := range []time.Time{early, midnight.Add(time.Millisecond), late} {
		if err := p.Spend(ctx, at, 1_000); err != nil {
			t.Fatal(err)
		}
	}
	// The early call was paid on its own day before the pocket moved on;
	// the late one from the new day.
	for _, s := range []struct {
		at    time.Time
		delta budget.Micros
	}{{early, 300}, {late, 500}} {
		if err := p.Settle(ctx, s.at, s.delta); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if d, _ := store.Day(ctx, midnight); d.Spend != 2_500 || d.Calls != 2 || d.Leased != 4_000 {
		t.Fatalf("the new day %+v; want its two calls' 2,500 spent from one lease of 4,000", d)
	}
	if left := p.Left(); left != 1_500 {
		t.Fatalf("the pocket holds %s, want 1.500 m$: the excess is paid from the day it was leased from", left)
	}
	if prev, _ := store.Day(ctx, early); prev.Spend != 1_300 || prev.Calls != 1 {
		t.Fatalf("the day before %+v; want its one call's 1,300 and nothing of the late call", prev)
	}
}
