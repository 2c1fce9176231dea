package report_test

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

// now is the end of the seeded week.
var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return now.Add(d) }

const day = 24 * time.Hour

// seedLog is the seeded error log: 13 entries in the 7-day window and one
// older (i6, 8 days ago).
var seedLog = []struct {
	item    string
	class   work.Class
	attempt int
	at      time.Time
}{
	{"i1", work.RateLimited, 1, at(-6 * day)},
	{"i1", work.RateLimited, 2, at(-6*day + time.Minute)},
	{"i1", work.RateLimited, 3, at(-6*day + 3*time.Minute)},
	{"i1", work.UpstreamUnavailable, 4, at(-6*day + 7*time.Minute)},
	{"i2", work.RateLimited, 1, at(-5 * day)},
	{"i2", work.AuthDenied, 1, at(-5*day + time.Hour)},
	{"i3", work.AuthDenied, 1, at(-4 * day)},
	{"i4", work.BudgetExceeded, 0, at(-2 * day)},
	{"i4", work.BudgetExceeded, 0, at(-2*day + time.Hour)},
	{"i5", work.BudgetExceeded, 0, at(-2*day + 2*time.Hour)},
	{"i5", work.BudgetExceeded, 0, at(-1 * day)},
	{"i5", work.ResponseInvalid, 1, at(-1*day + time.Hour)},
	{"i5", work.ResponseInvalid, 2, at(-1*day + 2*time.Hour)},
	{"i6", work.NetworkTimeout, 1, at(-8 * day)},
}

// seedItems are the items as they are now.
func seedItems() []store.Item {
	dead := func(id string, st work.State, stage work.Stage, fc int, c work.Class, last time.Time) store.Item {
		return store.Item{ID: id, CorrelationID: "c", State: st, Stage: stage, FailureCount: fc, EnrichmentStatus: work.EnrichmentPermanentFailure,
			LastError: &store.LastError{Component: stage, ErrorClass: c, Error: string(c) + " text"}, LastFailureAt: last, UpdatedAt: last}
	}
	return []store.Item{
		{ID: "i1", CorrelationID: "c", State: work.Done, Stage: work.Notify, EnrichmentStatus: work.EnrichmentSuccess, UpdatedAt: at(-5 * day)},
		dead("i2", work.Deadletter, work.LLM, 2, work.AuthDenied, at(-5*day+time.Hour)),
		dead("i3", work.Deadletter, work.Notify, 1, work.AuthDenied, at(-4*day)),
		{ID: "i4", CorrelationID: "c", State: work.Retryable, Stage: work.LLM, EnrichmentStatus: work.EnrichmentPending, UpdatedAt: at(-2*day + time.Hour)},
		{ID: "i5", CorrelationID: "c", State: work.Done, Stage: work.Notify, EnrichmentStatus: work.EnrichmentSuccess, UpdatedAt: at(-time.Hour)},
		dead("i6", work.Failed, work.Fetch, 5, work.NetworkTimeout, at(-8*day)),
		dead("i7", work.Deadletter, work.LLM, 3, work.ResponseInvalid, at(-3*day)),
	}
}

// seedCharges are budget charges: on 2026-11-19 three of six pass (cap
// 9 000 µ$, 3 000 µ$ a call); on 2026-11-20 three of four.
var seedCharges = []struct {
	at time.Time
	n  int
}{{at(-2 * day), 6}, {at(-1 * day), 4}}

type sinks struct {
	append func(store.LogEntry) error
	put    func(store.Item) error
	charge budget.Budget
}

func seed(t *testing.T, s sinks) {
	t.Helper()
	for i, e := range seedLog {
		if err := s.append(store.LogEntry{ItemID: e.item, Stage: work.LLM, Class: e.class, Attempt: e.attempt, OccurredAt: e.at,
			MessageID: "m" + strconv.Itoa(i), Message: "x", Decision: "d"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, it := range seedItems() {
		if err := s.put(it); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range seedCharges {
		for range c.n {
			_ = s.charge.Charge(context.Background(), c.at)
		}
	}
}

// The hand-computed answers for the window [now-7d, now).
var (
	window = report.Window{Since: now.Add(-7 * day), Until: now}

	wantErrors = []report.ClassRow{
		{Class: work.BudgetExceeded, Errors: 4, Items: 2, AvgAttempt: 0, FirstSeen: at(-2 * day), LastSeen: at(-1 * day)},
		{Class: work.RateLimited, Errors: 4, Items: 2, AvgAttempt: 1.8, FirstSeen: at(-6 * day), LastSeen: at(-5 * day)}, // (1+2+3+1)/4 = 1.75
		{Class: work.AuthDenied, Errors: 2, Items: 2, AvgAttempt: 1, FirstSeen: at(-5*day + time.Hour), LastSeen: at(-4 * day)},
		{Class: work.ResponseInvalid, Errors: 2, Items: 1, AvgAttempt: 1.5, FirstSeen: at(-1*day + time.Hour), LastSeen: at(-1*day + 2*time.Hour)},
		{Class: work.UpstreamUnavailable, Errors: 1, Items: 1, AvgAttempt: 4, FirstSeen: at(-6*day + 7*time.Minute), LastSeen: at(-6*day + 7*time.Minute)},
	}
	// i6 failed before the window; i7 has no entries left in the log.
	wantTop = []report.FailingItem{
		{ItemID: "i7", State: work.Deadletter, Stage: work.LLM, FailureCount: 3, Errors: 0, Class: work.ResponseInvalid, LastError: "RESPONSE_INVALID text", LastFailure: at(-3 * day)},
		{ItemID: "i2", State: work.Deadletter, Stage: work.LLM, FailureCount: 2, Errors: 2, Class: work.AuthDenied, LastError: "AUTH_DENIED text", LastFailure: at(-5*day + time.Hour)},
		{ItemID: "i3", State: work.Deadletter, Stage: work.Notify, FailureCount: 1, Errors: 1, Class: work.AuthDenied, LastError: "AUTH_DENIED text", LastFailure: at(-4 * day)},
	}
	// First failures: i1 RATE_LIMITED (recovered), i2 RATE_LIMITED, i3
	// AUTH_DENIED, i4 BUDGET_EXCEEDED, i5 BUDGET_EXCEEDED (recovered).
	wantRecovery = []report.RecoveryRow{
		{Class: work.BudgetExceeded, Items: 2, Recovered: 1, Percent: 50},
		{Class: work.RateLimited, Items: 2, Recovered: 1, Percent: 50},
		{Class: work.AuthDenied, Items: 1, Recovered: 0, Percent: 0},
	}
	wantRepeated = []report.RepeatedItem{
		{ItemID: "i5", Errors: 4, Classes: []work.Class{work.BudgetExceeded, work.ResponseInvalid}, LastClass: work.ResponseInvalid,
			LastErrorAt: at(-1*day + 2*time.Hour), State: work.Done},
		{ItemID: "i1", Errors: 4, Classes: []work.Class{work.RateLimited, work.UpstreamUnavailable}, LastClass: work.UpstreamUnavailable,
			LastErrorAt: at(-6*day + 7*time.Minute), State: work.Done},
	}
	wantBudget = []report.BudgetRow{
		{Day: "2026-11-20", Spend: 9000, Calls: 3, Blocked: 1, Cap: 9000, BudgetErrors: 1, ItemsBlocked: 1},
		{Day: "2026-11-19", Spend: 9000, Calls: 3, Blocked: 3, Cap: 9000, BudgetErrors: 3, ItemsBlocked: 2},
	}
)

// reports runs every report on r and compares with the hand-computed rows.
func reports(t *testing.T, r *report.Reporter) {
	ctx := context.Background()
	check := func(name string, got, want any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	errs, err := r.Errors(ctx, window)
	for i := range errs { // times come back from storage in UTC
		errs[i].FirstSeen, errs[i].LastSeen = errs[i].FirstSeen.UTC(), errs[i].LastSeen.UTC()
	}
	check("errors", errs, wantErrors, err)
	top, err := r.TopFailing(ctx, window, 0)
	check("top-failing", top, wantTop, err)
	rec, err := r.Recovery(ctx, window)
	check("recovery", rec, wantRecovery, err)
	rep, err := r.Repeated(ctx, window, 0)
	check("repeated", rep, wantRepeated, err)
	bud, err := r.Budget(ctx, report.Window{Since: window.Since}, now)
	check("budget", bud, wantBudget, err)
}

func TestReportsInMemory(t *testing.T) {
	t.Parallel()
	dbx := store.NewMemory()
	b := &budget.Memory{Cap: 9000, Cost: 3000}
	seed(t, sinks{
		append: func(e store.LogEntry) error { return dbx.Append(context.Background(), e) },
		put:    func(it store.Item) error { dbx.Put(it); return nil },
		charge: b,
	})
	reports(t, &report.Reporter{Log: report.LogSlice(dbx.Log()), Items: dbx, Index: dbx, Days: b})
	checkUnknown(t, func(e store.LogEntry) error { return dbx.Append(context.Background(), e) },
		func() *report.Reporter { return &report.Reporter{Log: report.LogSlice(dbx.Log())} })
}

func TestReportsOnDynamoDB(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	items := &store.Items{DB: db, Table: env.Stack.ItemsTable(), Bodies: env.Bodies()}
	log := &store.ErrorLog{DB: db, Table: env.Stack.ErrorLogTable()}
	table := env.Output(t, "BudgetTableName")
	b, err := budget.New(db, table, 9000, 3000)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, sinks{
		append: func(e store.LogEntry) error { return log.Append(context.Background(), e) },
		put:    func(it store.Item) error { return items.Put(context.Background(), it) },
		charge: b,
	})
	reports(t, &report.Reporter{
		Log:   &store.ErrorLogReader{DB: db, Table: env.Stack.ErrorLogTable()},
		Items: items, Index: &store.ItemIndex{DB: db, Table: env.Stack.ItemsTable()}, Days: b,
	})
	checkUnknown(t, func(e store.LogEntry) error { return log.Append(context.Background(), e) },
		func() *report.Reporter {
			return &report.Reporter{Log: &store.ErrorLogReader{DB: db, Table: env.Stack.ErrorLogTable()}}
		})
	// One item's history, oldest first.
	hist, err := (&store.ErrorLogReader{DB: db, Table: env.Stack.ErrorLogTable()}).ForItem(context.Background(), "i5", 3)
	if err != nil || len(hist) != 3 || hist[0].Class != work.BudgetExceeded || hist[2].Class != work.ResponseInvalid || hist[2].Attempt != 2 {
		t.Fatalf("history of i5 (newest 3): %+v, %v", hist, err)
	}
}

func TestRound(t *testing.T) {
	t.Parallel()
	rows := report.RecoveryOf([]store.LogEntry{
		{ItemID: "a", Class: work.RateLimited}, {ItemID: "b", Class: work.RateLimited}, {ItemID: "c", Class: work.RateLimited},
	}, map[string]store.Item{"a": {EnrichmentStatus: work.EnrichmentSuccess}})
	if len(rows) != 1 || rows[0].Percent != 33.3 {
		t.Fatalf("1 of 3: %+v", rows)
	}
}

func ExampleErrorsOf() {
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	rows := report.ErrorsOf([]store.LogEntry{
		{ItemID: "a", Class: work.RateLimited, Attempt: 1, OccurredAt: t0},
		{ItemID: "a", Class: work.RateLimited, Attempt: 2, OccurredAt: t0.Add(time.Minute)},
		{ItemID: "b", Class: work.AuthDenied, Attempt: 1, OccurredAt: t0.Add(time.Hour)},
	})
	for _, r := range rows {
		fmt.Println(r.Class, r.Errors, r.Items, r.AvgAttempt)
	}
	// Output:
	// RATE_LIMITED 2 1 1.5
	// AUTH_DENIED 1 1 1
}
