package budget

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// Micros is an amount of US dollars in millionths (1 USD = 1_000_000).
type Micros int64

// MaxDecimals is the most decimal places ParseUSD accepts (micro-dollars).
const MaxDecimals = 6

// ParseUSD parses a non-negative decimal dollar amount such as "5", "0.003"
// or "12.50" exactly, without floating point. More than MaxDecimals decimal
// places, a sign, an exponent or an amount above 1e9 USD is an error.
func ParseUSD(s string) (Micros, error) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "$"))
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" && (!hasDot || frac == "") {
		return 0, fmt.Errorf("invalid dollar amount %q", s)
	}
	if len(frac) > MaxDecimals {
		return 0, fmt.Errorf("dollar amount %q has more than %d decimal places", s, MaxDecimals)
	}
	for _, part := range []string{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("invalid dollar amount %q", s)
			}
		}
	}
	if len(strings.TrimLeft(whole, "0")) > 9 {
		return 0, fmt.Errorf("dollar amount %q is too large", s)
	}
	var w, f int64
	if whole != "" {
		w, _ = strconv.ParseInt(whole, 10, 64)
	}
	if frac != "" {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", MaxDecimals-len(frac)), 10, 64)
	}
	return Micros(w*1_000_000 + f), nil
}

// String renders m as dollars with at least two and at most six decimals:
// "5.00", "0.003", "0.0035".
func (m Micros) String() string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	s := fmt.Sprintf("%d.%06d", m/1_000_000, m%1_000_000)
	for strings.HasSuffix(s, "0") && len(s)-strings.IndexByte(s, '.') > 3 {
		s = s[:len(s)-1]
	}
	return sign + s
}

// USD returns m in dollars as a float, for display and JSON only.
func (m Micros) USD() float64 { return float64(m) / 1_000_000 }

// Budget charges one model call against the day's cap. Charge returns nil
// when the call may go ahead, and an error for which IsExceeded is true when
// the day's cap is reached (behind the day's Gate) (any other error: the budget could not be
// checked, and the call should not go ahead either).
type Budget interface {
	Charge(ctx context.Context, now time.Time) error
}

// Priced is a budget that charges each call at its model's price: the
// call's estimate before it (ChargeCost, refused like Charge), corrected
// to the call's real cost after it (Settle). *Daily and *Memory implement
// it; the llm stage uses it.
type Priced interface {
	ChargeCost(ctx context.Context, now time.Time, cost Micros) error
	Settle(ctx context.Context, charged time.Time, delta Micros) error
}

// Exceeded returns the failure a refused charge reports: BUDGET_EXCEEDED,
// self-imposed, so the decision core waits until the next 00:00 UTC without
// counting an attempt.
func Exceeded() *failure.Error {
	return &failure.Error{Class: work.BudgetExceeded, Reason: "daily budget cap reached", SelfImposed: true}
}

// Gate is the gate an item refused by day's spent budget waits behind: it
// opens when the UTC day is over.
func Gate(day string) gates.Name { return gates.New(gates.Budget, day) }

// exceeded is the error Charge returns for day: Exceeded, behind day's Gate.
func exceeded(day string) error { return gates.Wrap(Exceeded(), Gate(day)) }

// IsExceeded reports whether err is (or wraps) a refused charge.
func IsExceeded(err error) bool {
	var fe *failure.Error
	return errors.As(err, &fe) && fe.Class == work.BudgetExceeded && fe.SelfImposed
}

// DayKey is the budget day of t: its UTC date, "YYYY-MM-DD".
func DayKey(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Day is one day's budget record.
type Day struct {
	// Day is the UTC date, "YYYY-MM-DD".
	Day string `json:"day"`
	// Spend is the spend charged — each call's estimate, settled to its
	// tokens at the model's price when the answer reported them — as the
	// instances reported it: each lease carries the spend counted since the
	// instance's last one, so the record lags an instance's own charges by
	// at most one chunk.
	Spend Micros `json:"spend_micros"`
	// Calls counts the charges that went through.
	Calls int64 `json:"calls"`
	// Blocked counts the charges refused because the cap was reached.
	Blocked int64 `json:"blocked"`
	// Cap is the cap in force at the day's last write.
	Cap Micros `json:"cap_micros"`
	// Leased is the budget handed out to instances (never more than Cap),
	// Leases how many chunks that took: the writes the budget cost.
	Leased Micros `json:"leased_micros"`
	Leases int64  `json:"leases"`
}

// API is the part of the DynamoDB client Daily uses.
type API interface {
	dynamo.Updater
	dynamo.Getter
}

// Daily is the DynamoDB budget: one item per UTC day in BudgetTable (key
// "day") with the leased total and the spend, calls, blocked and leases
// counters. It charges through its own Pocket: one instance, one Daily.
type Daily struct {
	DB API
	// Table is the budget table name.
	Table string
	// Cap is the daily cap. A Cap below Cost refuses every call.
	Cap Micros
	// Cost is the estimated cost of one call (Charge's amount, and the
	// default estimate of the price table); it must be positive.
	Cost Micros
	// Chunk is how much budget one lease takes; zero means DefaultChunkCalls
	// calls' worth.
	Chunk Micros

	once   sync.Once
	pocket *Pocket
}

// DefaultChunkCalls is the default lease: this many calls' worth of budget.
// At the default $5 cap and $0.003 a call that is $0.06 (1.2% of the day),
// one write per 20 calls; docs/scale.md says how to size it at scale.
const DefaultChunkCalls = 20

// New returns a Daily budget, checking that cost is positive and cap is not
// negative.
func New(db API, table string, dailyCap, cost Micros) (*Daily, error) {
	switch {
	case table == "":
		return nil, errors.New("budget: table is required")
	case cost <= 0:
		return nil, fmt.Errorf("budget: cost per call %s must be positive", cost)
	case dailyCap < 0:
		return nil, fmt.Errorf("budget: daily cap %s must not be negative", dailyCap)
	}
	return &Daily{DB: db, Table: table, Cap: dailyCap, Cost: cost}, nil
}

// Defaults of the llm function's budget variables, matching template.yaml's
// parameters.
const (
	DefaultDailyUSD = "5"
	DefaultCallUSD  = "0.003"
)

func chunkOf(chunk, cost Micros) Micros {
	if chunk > 0 {
		return chunk
	}
	return DefaultChunkCalls * cost
}

// Pocket returns the Daily's pocket (see Pocket).
func (d *Daily) Pocket() *Pocket {
	d.once.Do(func() { d.pocket = &Pocket{Store: d, Cap: d.Cap, Chunk: chunkOf(d.Chunk, d.Cost)} })
	return d.pocket
}

// Charge charges one call's cost (Cost) to now's UTC day; see ChargeCost.
func (d *Daily) Charge(ctx context.Context, now time.Time) error {
	return d.ChargeCost(ctx, now, d.Cost)
}

// ChargeCost charges cost (a call's estimate at its model's price) to now's
// UTC day through the pocket: no write while the pocket holds enough, one
// conditional lease when it does not (see Pocket.Spend). A refused charge
// returns Exceeded(). A cost below 1 is charged as 1.
func (d *Daily) ChargeCost(ctx context.Context, now time.Time, cost Micros) error {
	return d.Pocket().Spend(ctx, now, max(cost, 1))
}

// Settle corrects a charge made at charged by delta once the call's real
// cost is known, through the pocket (see Pocket.Settle): a refund stays in
// the pocket, an excess is paid from it, and only an excess the pocket
// cannot pay leases; no write per call.
func (d *Daily) Settle(ctx context.Context, charged time.Time, delta Micros) error {
	return d.Pocket().Settle(ctx, charged, delta)
}

// Lease applies one lease (Store):
//
//	update     ADD leased :want, leases 1, spend :s, calls :c, blocked :b  SET cap = :cap
//	condition  (attribute_not_exists(leased) AND attribute_not_exists(spend)) OR leased <= :cap - :want
//
// A day a version without leases started (spend, no leased) is first given
// leased = spend, once, so it keeps its cap. An SDK-level retry of a lease
// that had applied leases twice: the day errs toward less spend, never more.
func (d *Daily) Lease(ctx context.Context, req LeaseRequest) (LeaseResult, error) {
	for range 2 {
		out, err := d.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &d.Table,
			Key:       dayKey(req.Day),
			UpdateExpression: aws.String("ADD #leased :want, #leases :one, #spend :spend, #calls :calls, #blocked :blocked " +
				"SET #cap = :cap"),
			ConditionExpression: aws.String("(attribute_not_exists(#leased) AND attribute_not_exists(#spend)) OR #leased <= :limit"),
			ExpressionAttributeNames: map[string]string{"#leased": "leased", "#leases": "leases", "#spend": "spend",
				"#calls": "calls", "#blocked": "blocked", "#cap": "cap"},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":want": num(int64(req.Want)), ":one": num(1), ":spend": num(int64(req.Report.Spend)),
				":calls": num(req.Report.Calls), ":blocked": num(req.Report.Blocked),
				":cap": num(int64(req.Cap)), ":limit": num(int64(req.Cap - req.Want)),
			},
			ReturnValues:                        types.ReturnValueUpdatedNew,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if err == nil {
			var r record
			if err := attributevalue.UnmarshalMap(out.Attributes, &r); err != nil {
				return LeaseResult{}, fmt.Errorf("decode the %s budget: %w", req.Day, err)
			}
			return LeaseResult{Granted: true, Leased: Micros(r.Leased)}, nil
		}
		old, failed, gerr := dynamo.Seen(ctx, d.DB, d.Table, dayKey(req.Day), err)
		switch {
		case !failed:
			return LeaseResult{}, err
		case gerr != nil:
			return LeaseResult{}, gerr
		}
		var r record
		if err := attributevalue.UnmarshalMap(old, &r); err != nil {
			return LeaseResult{}, fmt.Errorf("decode the %s budget: %w", req.Day, err)
		}
		if _, has := old["leased"]; has {
			return LeaseResult{Leased: Micros(r.Leased)}, nil
		}
		// A day started without leases: count what it spent as leased.
		_, err = d.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &d.Table, Key: dayKey(req.Day),
			UpdateExpression:         aws.String("SET #leased = #spend"),
			ConditionExpression:      aws.String("attribute_not_exists(#leased)"),
			ExpressionAttributeNames: map[string]string{"#leased": "leased", "#spend": "spend"},
		})
		if err != nil && !dynamo.ConditionFailed(err) {
			return LeaseResult{}, err
		}
	}
	return LeaseResult{}, fmt.Errorf("lease from the %s budget: the day's record keeps changing shape", req.Day)
}

// Add adds r to the day's counters (Store), unconditionally: the counters
// are for reports.
func (d *Daily) Add(ctx context.Context, day string, r Report, dailyCap Micros) error {
	_, err := d.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &d.Table,
		Key:                      dayKey(day),
		UpdateExpression:         aws.String("ADD #spend :spend, #calls :calls, #blocked :blocked SET #cap = :cap"),
		ExpressionAttributeNames: map[string]string{"#spend": "spend", "#calls": "calls", "#blocked": "blocked", "#cap": "cap"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":spend": num(int64(r.Spend)), ":calls": num(r.Calls), ":blocked": num(r.Blocked), ":cap": num(int64(dailyCap)),
		},
	})
	if err != nil {
		return fmt.Errorf("report to the %s budget: %w", day, err)
	}
	return nil
}

// record is a day as stored.
type record struct {
	Day     string `dynamodbav:"day"`
	Spend   int64  `dynamodbav:"spend"`
	Calls   int64  `dynamodbav:"calls"`
	Blocked int64  `dynamodbav:"blocked"`
	Cap     int64  `dynamodbav:"cap"`
	Leased  int64  `dynamodbav:"leased"`
	Leases  int64  `dynamodbav:"leases"`
}

// Day reads one day's record (strongly consistent), plus what this
// instance's pocket counted and has not written yet; a day without charges
// is a zero Day with its date set, not an error.
func (d *Daily) Day(ctx context.Context, day time.Time) (Day, error) {
	key := DayKey(day)
	out, err := d.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: &d.Table, Key: dayKey(key), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return Day{}, fmt.Errorf("read the %s budget: %w", key, err)
	}
	var r record
	if err := attributevalue.UnmarshalMap(out.Item, &r); err != nil {
		return Day{}, fmt.Errorf("decode the %s budget: %w", key, err)
	}
	got := Day{Day: key, Spend: Micros(r.Spend), Calls: r.Calls, Blocked: r.Blocked, Cap: Micros(r.Cap),
		Leased: Micros(r.Leased), Leases: r.Leases}
	return withPending(got, d.Pocket()), nil
}

// MaxDays bounds Days.
const MaxDays = 400

// Days reads every UTC day from from's to to's, oldest first (at most
// MaxDays; an error beyond).
func (d *Daily) Days(ctx context.Context, from, to time.Time) ([]Day, error) {
	return days(ctx, from, to, d.Day)
}

func days(ctx context.Context, from, to time.Time, get func(context.Context, time.Time) (Day, error)) ([]Day, error) {
	start, end := midnight(from), midnight(to)
	if end.Before(start) {
		return nil, nil
	}
	if n := int(end.Sub(start)/(24*time.Hour)) + 1; n > MaxDays {
		return nil, fmt.Errorf("budget: %d days asked for, at most %d", n, MaxDays)
	}
	var out []Day
	for t := start; !t.After(end); t = t.AddDate(0, 0, 1) {
		day, err := get(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, day)
	}
	return out, nil
}

func midnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func dayKey(day string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"day": &types.AttributeValueMemberS{Value: day}}
}

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// MemoryStore is an in-memory Store with Daily's rules, shared by the
// pockets of several simulated instances. It is safe for concurrent use.
type MemoryStore struct {
	mu   sync.Mutex
	days map[string]Day
}

// Lease applies Daily.Lease's rule.
func (m *MemoryStore) Lease(_ context.Context, req LeaseRequest) (LeaseResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dayLocked(req.Day)
	if d.Leased+req.Want > req.Cap {
		return LeaseResult{Leased: d.Leased}, nil
	}
	d.Leased += req.Want
	d.Leases++
	d.Spend, d.Calls, d.Blocked, d.Cap = d.Spend+req.Report.Spend, d.Calls+req.Report.Calls, d.Blocked+req.Report.Blocked, req.Cap
	m.days[req.Day] = d
	return LeaseResult{Granted: true, Leased: d.Leased}, nil
}

// Add applies Daily.Add's rule.
func (m *MemoryStore) Add(_ context.Context, day string, r Report, dailyCap Micros) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dayLocked(day)
	d.Spend, d.Calls, d.Blocked, d.Cap = d.Spend+r.Spend, d.Calls+r.Calls, d.Blocked+r.Blocked, dailyCap
	m.days[day] = d
	return nil
}

func (m *MemoryStore) dayLocked(day string) Day {
	if m.days == nil {
		m.days = map[string]Day{}
	}
	d := m.days[day]
	d.Day = day
	return d
}

// Day returns one day's record as written.
func (m *MemoryStore) Day(_ context.Context, day time.Time) (Day, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dayLocked(DayKey(day)), nil
}

// Memory is an in-memory Budget with Daily's rules — one instance's pocket
// over its own MemoryStore — for tests. It is safe for concurrent use.
type Memory struct {
	// Cap, Cost and Chunk: see Daily.
	Cap, Cost, Chunk Micros

	once   sync.Once
	store  MemoryStore
	pocket *Pocket
}

func (m *Memory) init() {
	m.once.Do(func() { m.pocket = &Pocket{Store: &m.store, Cap: m.Cap, Chunk: chunkOf(m.Chunk, m.Cost)} })
}

// Charge applies Daily.Charge's rule.
func (m *Memory) Charge(ctx context.Context, now time.Time) error {
	return m.ChargeCost(ctx, now, m.Cost)
}

// ChargeCost applies Daily.ChargeCost's rule.
func (m *Memory) ChargeCost(ctx context.Context, now time.Time, cost Micros) error {
	m.init()
	return m.pocket.Spend(ctx, now, max(cost, 1))
}

// Settle applies Daily.Settle's rule.
func (m *Memory) Settle(ctx context.Context, charged time.Time, delta Micros) error {
	m.init()
	return m.pocket.Settle(ctx, charged, delta)
}

// Day returns one day's record with the pocket's unwritten counters.
func (m *Memory) Day(ctx context.Context, day time.Time) (Day, error) {
	m.init()
	d, err := m.store.Day(ctx, day)
	return withPending(d, m.pocket), err
}

// Days returns every day from from's to to's, oldest first.
func (m *Memory) Days(ctx context.Context, from, to time.Time) ([]Day, error) {
	return days(ctx, from, to, m.Day)
}
