package triage

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/intake"
	"github.com/triagehq/triage/internal/store/dynamo"

	"github.com/triagehq/triage/internal/policy"
)

// Item is an item's spec: what Do hands to the fetch queue when it gives
// up (docs/design.md "Putting work in").
type Item = intake.Spec

// USD is an amount in millionths of a dollar; ParseUSD reads "0.003".
type USD = budget.Micros

// ParseUSD reads a decimal dollar amount ("5", "0.003").
func ParseUSD(s string) (USD, error) { return budget.ParseUSD(s) }

// DynamoDB is the part of the DynamoDB client the stores use;
// *dynamodb.Client has it.
type DynamoDB = dynamo.API

// SQS is the part of the SQS client the hand-off uses; *sqs.Client has it.
type SQS = intake.SQS

// Tables names the stack's tables (its BreakersTableName, ModelsTableName
// and BudgetTableName outputs). An empty name leaves that gate out.
type Tables struct {
	Breakers, Models, Budget string
}

// Stores is where the breakers, the model health and the daily budget
// live: the stack's DynamoDB tables (DynamoStores), shared with every
// worker, or memory (MemoryStores), for tests.
type Stores struct {
	breakers breaker.Store
	models   health.Store
	budget   func(cap, cost USD) (budget.Priced, error)
	// capped is true for a budget table the caller named: it needs a cap
	// and a call's cost.
	capped bool
}

// DynamoStores are the stack's tables in DynamoDB: the inline path and the
// workers open and close the same breakers, disable the same models and
// spend the same day's budget.
func DynamoStores(db DynamoDB, t Tables) Stores {
	var s Stores
	if t.Breakers != "" {
		s.breakers = &breaker.Dynamo{DB: db, Table: t.Breakers}
	}
	if t.Models != "" {
		s.models = &health.Dynamo{DB: db, Table: t.Models}
	}
	if t.Budget != "" {
		s.capped = true
		s.budget = func(dailyCap, cost USD) (budget.Priced, error) { return budget.New(db, t.Budget, dailyCap, cost) }
	}
	return s
}

// MemoryStores are in-memory twins of the DynamoDB stores, with the same
// rules, for one process: for tests.
func MemoryStores() Stores {
	return Stores{breakers: breaker.NewMemory(), models: health.NewMemory(),
		budget: func(dailyCap, cost USD) (budget.Priced, error) { return &budget.Memory{Cap: dailyCap, Cost: cost}, nil }}
}

// Clock is the time of the retry waits: Now, and Sleep, which ends early
// with ctx's error. Nil in Config is the wall clock.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// wallClock is the wall clock's Now and Sleep.
type wallClock struct{ clock.System }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error { return clock.Sleep(ctx, d) }

// Config is a Client's configuration. The zero value classifies and
// decides with the standard profile at the llm stage and checks no gate.
type Config struct {
	// Profile is the decision table; nil is the standard profile.
	Profile *Profile
	// Stage is the stage whose rows of the table apply; empty is llm.
	Stage Stage
	// Stores hold the gates; the zero value checks none.
	Stores Stores
	// DailyBudgetUSD is the day's budget and CostPerCallUSD a call's
	// estimate, in dollars ("5", "0.003"), as the stack's parameters of
	// those names give them: each call is charged before it is made. A
	// budget table needs both; both need a budget store.
	DailyBudgetUSD, CostPerCallUSD string
	// SQS and FetchQueueURL (the stack's FetchQueueUrl) are where Do hands
	// an item it gives up on; without them it returns the error.
	SQS           SQS
	FetchQueueURL string
	// Clock tells the time and waits; nil is the wall clock.
	Clock Clock
	// Rand draws the jitter, in [0, 1); nil is math/rand/v2.
	Rand func() float64
	// Log receives the gates' transitions; nil discards them.
	Log *slog.Logger
}

// Client is one process's inline path: the policy, the gates and the
// hand-off. Build one with New and share it; it is safe for concurrent use.
type Client struct {
	profile  *policy.Profile
	stage    Stage
	clock    Clock
	rand     func() float64
	breakers *breaker.Breakers
	health   *health.Tracker
	budget   budget.Priced
	cost     USD
	producer *intake.Producer
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	dailyCap, cost, err := prices(cfg.DailyBudgetUSD, cfg.CostPerCallUSD)
	if err != nil {
		return nil, err
	}
	c := &Client{profile: cfg.Profile, stage: cfg.Stage, clock: cfg.Clock, rand: cfg.Rand, cost: cost}
	if c.profile == nil {
		c.profile = policy.Standard()
	}
	if c.stage == "" {
		c.stage = LLM
	}
	if !c.stage.Valid() {
		return nil, errors.New("triage: unknown stage " + string(c.stage))
	}
	if c.clock == nil {
		c.clock = wallClock{}
	}
	if c.rand == nil {
		c.rand = rand.Float64
	}
	if s := cfg.Stores.breakers; s != nil {
		c.breakers = &breaker.Breakers{Store: s, Clock: c.clock, Stage: c.stage, Profile: c.profile, Log: cfg.Log}
	}
	if s := cfg.Stores.models; s != nil {
		c.health = &health.Tracker{Store: s, Clock: c.clock, Log: cfg.Log}
	}
	priced := cfg.DailyBudgetUSD != "" || cfg.CostPerCallUSD != ""
	switch {
	case priced && cfg.Stores.budget == nil:
		return nil, errors.New("triage: DailyBudgetUSD and CostPerCallUSD need a budget table (Tables.Budget)")
	case priced && (dailyCap <= 0 || cost <= 0), cfg.Stores.capped && !priced:
		return nil, errors.New("triage: a budget needs a positive DailyBudgetUSD and CostPerCallUSD (the stack's parameters)")
	}
	if priced {
		b, err := cfg.Stores.budget(dailyCap, cost)
		if err != nil {
			return nil, err
		}
		c.budget = b
	}
	if cfg.SQS != nil || cfg.FetchQueueURL != "" {
		if cfg.SQS == nil || cfg.FetchQueueURL == "" {
			return nil, errors.New("triage: the hand-off needs both SQS and FetchQueueURL")
		}
		c.producer = &intake.Producer{SQS: cfg.SQS, QueueURL: cfg.FetchQueueURL, Rand: c.rand, Sleep: c.clock.Sleep}
	}
	return c, nil
}

// prices reads the day's cap and a call's estimate; empty is zero.
func prices(dailyUSD, callUSD string) (dailyCap, cost USD, err error) {
	if dailyUSD != "" {
		if dailyCap, err = ParseUSD(dailyUSD); err != nil {
			return 0, 0, errors.New("triage: DailyBudgetUSD: " + err.Error())
		}
	}
	if callUSD != "" {
		if cost, err = ParseUSD(callUSD); err != nil {
			return 0, 0, errors.New("triage: CostPerCallUSD: " + err.Error())
		}
	}
	return dailyCap, cost, nil
}

// Decide is the policy's decision about err, the attempt-th failure, with
// the client's profile, stage, clock and jitter.
func (c *Client) Decide(err error, attempt int) Decision {
	return decide(c.profile, facts{stage: c.stage, err: err, attempt: attempt, now: c.clock.Now(), rand: c.rand})
}

// CallOption says what one call is.
type CallOption func(*call)

type call struct {
	service string
	model   string
	item    *Item
	// name is this call for the model's health when no item does: its
	// own retries are one item's repeats.
	name string
	cost USD
	// single makes one call at most: a request whose body cannot be
	// replayed.
	single bool
}

// Service names the call's upstream for its circuit breaker, as the workers
// name it: "llm:<provider>" for a model provider ("llm:openai"), the host
// for a source or a webhook. A host may be given as a URL: it is keyed as
// the workers key it (lowercase, without a root dot or its scheme's own
// port), so "https://News.Example:443/feed" is the breaker of news.example.
func Service(name string) CallOption {
	key := serviceKey(name)
	return func(c *call) { c.service = key }
}

// serviceKey is the workers' breaker key for a Service name: a model
// provider's "llm:<provider>" as given, a host — bare or as a URL — as
// breaker.Host keys it.
func serviceKey(name string) string {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "llm:") {
		return name
	}
	u := name
	if !strings.Contains(u, "://") {
		u = "https://" + u
	}
	if h := breaker.Host(u); h != "" {
		return h
	}
	return name
}

// Model names the call's model for its health, as the chain names it:
// "provider:model" ("openai:gpt-4o-mini").
func Model(entry string) CallOption { return func(c *call) { c.model = entry } }

// ForItem is the item the call works for: its id keeps one item's repeated
// failures from counting twice against the model (docs/design.md "Model
// health"), and Do hands its spec to the fetch queue when it gives up on a
// failure the queue may still get past.
func ForItem(spec Item) CallOption { return func(c *call) { c.item = &spec } }

// Cost is the call's estimate, charged to the day's budget in place of the
// Config's CostPerCallUSD.
func Cost(usd USD) CallOption { return func(c *call) { c.cost = usd } }
