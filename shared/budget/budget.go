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

	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/gate"
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

// Exceeded returns the failure a refused charge reports: BUDGET_EXCEEDED,
// self-imposed, so the decision core waits until the next 00:00 UTC without
// counting an attempt.
func Exceeded() *failure.Error {
	return &failure.Error{Class: failure.BudgetExceeded, Reason: "daily budget cap reached", SelfImposed: true}
}

// Gate is the gate an item refused by day's spent budget waits behind: it
// opens when the UTC day is over.
func Gate(day string) gate.Name { return gate.New(gate.Budget, day) }

// exceeded is the error Charge returns for day: Exceeded, behind day's Gate.
func exceeded(day string) error { return gate.Wrap(Exceeded(), Gate(day)) }

// IsExceeded reports whether err is (or wraps) a refused charge.
func IsExceeded(err error) bool {
	var fe *failure.Error
	return errors.As(err, &fe) && fe.Class == failure.BudgetExceeded && fe.SelfImposed
}

// DayKey is the budget day of t: its UTC date, "YYYY-MM-DD".
func DayKey(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Day is one day's budget record.
type Day struct {
	// Day is the UTC date, "YYYY-MM-DD".
	Day string `json:"day"`
	// Spend is the estimated spend charged (calls × cost per call).
	Spend Micros `json:"spend_micros"`
	// Calls counts the charges that went through.
	Calls int64 `json:"calls"`
	// Blocked counts the charges refused because the cap was reached.
	Blocked int64 `json:"blocked"`
	// Cap is the cap in force at the day's last charge.
	Cap Micros `json:"cap_micros"`
}

// API is the part of the DynamoDB client Daily uses.
type API interface {
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Daily is the DynamoDB budget: one item per UTC day in BudgetTable (key
// "day"), with spend (micro-dollars), calls and blocked counters.
type Daily struct {
	DB API
	// Table is the budget table name.
	Table string
	// Cap is the daily cap. A Cap below Cost refuses every call.
	Cap Micros
	// Cost is the estimated cost of one call; it must be positive.
	Cost Micros
}

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

// Defaults of FromEnv, matching template.yaml's parameters.
const (
	DefaultDailyUSD   = "5"
	DefaultCallUSD    = "0.003"
	EnvTable          = "BUDGET_TABLE"
	EnvDailyBudgetUSD = "DAILY_BUDGET_USD"
	EnvCostPerCallUSD = "COST_PER_CALL_USD"
)

// FromEnv builds the llm stage's budget from BUDGET_TABLE (required),
// DAILY_BUDGET_USD (default 5) and COST_PER_CALL_USD (default 0.003).
func FromEnv(getenv func(string) string, db API) (*Daily, error) {
	table := strings.TrimSpace(getenv(EnvTable))
	if table == "" {
		return nil, fmt.Errorf("budget: %s is required", EnvTable)
	}
	read := func(name, def string) (Micros, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			v = def
		}
		m, err := ParseUSD(v)
		if err != nil {
			return 0, fmt.Errorf("budget: %s: %w", name, err)
		}
		return m, nil
	}
	dailyCap, err := read(EnvDailyBudgetUSD, DefaultDailyUSD)
	if err != nil {
		return nil, err
	}
	cost, err := read(EnvCostPerCallUSD, DefaultCallUSD)
	if err != nil {
		return nil, err
	}
	return New(db, table, dailyCap, cost)
}

// Charge adds one call's cost (Cost) to now's UTC day; see ChargeCost.
func (d *Daily) Charge(ctx context.Context, now time.Time) error {
	return d.ChargeCost(ctx, now, d.Cost)
}

// ChargeCost adds cost to now's UTC day, unless that would take the day's
// spend past the cap:
//
//	update     ADD spend :cost, calls :1  SET cap = :cap
//	condition  attribute_not_exists(spend) OR spend <= :cap_minus_cost
//
// Concurrent charges are serialised by DynamoDB, so the day's spend never
// passes the cap. A refused charge adds 1 to the day's blocked counter
// (ADD blocked :1, unconditional, best effort) and returns Exceeded(), behind the day's Gate. An
// SDK-level retry of a charge that had been applied charges twice: spend
// errs high, never past the cap. A cost below 1 is charged as 1.
func (d *Daily) ChargeCost(ctx context.Context, now time.Time, cost Micros) error {
	cost = max(cost, 1)
	day := DayKey(now)
	if cost > d.Cap {
		return d.block(ctx, day)
	}
	_, err := d.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &d.Table,
		Key:                      dayKey(day),
		UpdateExpression:         aws.String("ADD #spend :cost, #calls :one SET #cap = :cap"),
		ConditionExpression:      aws.String("attribute_not_exists(#spend) OR #spend <= :limit"),
		ExpressionAttributeNames: map[string]string{"#spend": "spend", "#calls": "calls", "#cap": "cap"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":cost":  num(int64(cost)),
			":one":   num(1),
			":cap":   num(int64(d.Cap)),
			":limit": num(int64(d.Cap - cost)),
		},
	})
	if err == nil {
		return nil
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return d.block(ctx, day)
	}
	return fmt.Errorf("charge the %s budget: %w", day, err)
}

// Settle corrects a charge of the day of charged once the call's real cost
// is known (tokens at the model's price): ADD spend :delta, unconditional —
// the call has happened — so a call that cost more than its estimate may
// take the day past the cap by the difference, and the next charge is
// refused. A negative delta refunds an estimate that was too high.
func (d *Daily) Settle(ctx context.Context, charged time.Time, delta Micros) error {
	if delta == 0 {
		return nil
	}
	day := DayKey(charged)
	_, err := d.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &d.Table,
		Key:                       dayKey(day),
		UpdateExpression:          aws.String("ADD #spend :delta"),
		ExpressionAttributeNames:  map[string]string{"#spend": "spend"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":delta": num(int64(delta))},
	})
	if err != nil {
		return fmt.Errorf("settle the %s budget: %w", day, err)
	}
	return nil
}

func (d *Daily) block(ctx context.Context, day string) error {
	// The counter is for reports; failing to bump it must not let the call
	// through, so its error is dropped.
	_, _ = d.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &d.Table,
		Key:                       dayKey(day),
		UpdateExpression:          aws.String("ADD #blocked :one SET #cap = :cap"),
		ExpressionAttributeNames:  map[string]string{"#blocked": "blocked", "#cap": "cap"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": num(1), ":cap": num(int64(d.Cap))},
	})
	return exceeded(day)
}

// record is a day as stored.
type record struct {
	Day     string `dynamodbav:"day"`
	Spend   int64  `dynamodbav:"spend"`
	Calls   int64  `dynamodbav:"calls"`
	Blocked int64  `dynamodbav:"blocked"`
	Cap     int64  `dynamodbav:"cap"`
}

// Day reads one day's record (strongly consistent); a day without charges
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
	return Day{Day: key, Spend: Micros(r.Spend), Calls: r.Calls, Blocked: r.Blocked, Cap: Micros(r.Cap)}, nil
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

// Memory is an in-memory Budget with Daily's rules, for tests and the
// policy simulator. It is safe for concurrent use.
type Memory struct {
	// Cap and Cost: see Daily.
	Cap, Cost Micros

	mu   sync.Mutex
	days map[string]Day
}

// Charge applies Daily.Charge's rule.
func (m *Memory) Charge(ctx context.Context, now time.Time) error {
	return m.ChargeCost(ctx, now, m.Cost)
}

// ChargeCost applies Daily.ChargeCost's rule.
func (m *Memory) ChargeCost(_ context.Context, now time.Time, cost Micros) error {
	cost = max(cost, 1)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.days == nil {
		m.days = map[string]Day{}
	}
	key := DayKey(now)
	d := m.days[key]
	d.Day, d.Cap = key, m.Cap
	if cost > m.Cap || d.Spend+cost > m.Cap {
		d.Blocked++
		m.days[key] = d
		return exceeded(key)
	}
	d.Spend += cost
	d.Calls++
	m.days[key] = d
	return nil
}

// Settle applies Daily.Settle's rule.
func (m *Memory) Settle(_ context.Context, charged time.Time, delta Micros) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.days == nil {
		m.days = map[string]Day{}
	}
	key := DayKey(charged)
	d := m.days[key]
	d.Day = key
	d.Spend += delta
	m.days[key] = d
	return nil
}

// Day returns one day's record.
func (m *Memory) Day(_ context.Context, day time.Time) (Day, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := DayKey(day)
	d := m.days[key]
	d.Day = key
	return d, nil
}

// Days returns every day from from's to to's, oldest first.
func (m *Memory) Days(ctx context.Context, from, to time.Time) ([]Day, error) {
	return days(ctx, from, to, m.Day)
}
