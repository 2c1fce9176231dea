// Package report answers an on-call operator's questions from the error
// log, the Items table and the daily budget (docs/design.md "Reports"):
//
//	errors       error distribution by class: count, distinct items, average attempt, first and last seen
//	top-failing  permanent failures (deadletter, failed) with the most failures
//	recovery     recovery rate by first error class: of the items whose first failure in the window
//	             had class C, how many have since succeeded (enrichment_status success)
//	repeated     items with more than 3 errors in the window (potential bugs)
//	budget       per UTC day: estimated spend, calls, blocked calls, BUDGET_EXCEEDED errors and
//	             distinct items blocked
//	unknown      failures nothing recognised (UNKNOWN, or a class only a default by status
//	             decided) grouped by fingerprint — provider, stage, status and the text's Shape
//	             — with counts, first and last seen and one redacted sample
//
// The fingerprint and its normaliser (Shape) live here, and only here: the
// CLI and the console group by them.
//
// The *Of functions compute a report from data in memory; Reporter loads the
// data (error log through its by-class index, items, budget days) and calls
// them.
package report

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Window is the time range a report covers: [Since, Until); a zero Until is
// open-ended.
type Window struct {
	Since, Until time.Time
}

func (w Window) contains(t time.Time) bool {
	return !t.Before(w.Since) && (w.Until.IsZero() || t.Before(w.Until))
}

// ClassRow is one class in the error distribution.
type ClassRow struct {
	// Class is the error class.
	Class work.Class `json:"error_class"`
	// Errors counts log entries; Items the distinct items among them.
	Errors int `json:"errors"`
	Items  int `json:"items"`
	// AvgAttempt is the mean attempt number of the entries, rounded to one
	// decimal.
	AvgAttempt float64 `json:"avg_attempt"`
	// FirstSeen and LastSeen are the earliest and latest entries.
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
}

// ErrorsOf is the error distribution of entries by class, most errors
// first (ties by class name).
func ErrorsOf(entries []store.LogEntry) []ClassRow {
	type acc struct {
		row      ClassRow
		attempts int
		items    map[string]bool
	}
	by := map[work.Class]*acc{}
	for _, e := range entries {
		a := by[e.Class]
		if a == nil {
			a = &acc{row: ClassRow{Class: e.Class, FirstSeen: e.OccurredAt, LastSeen: e.OccurredAt}, items: map[string]bool{}}
			by[e.Class] = a
		}
		a.row.Errors++
		a.attempts += e.Attempt
		a.items[e.ItemID] = true
		if e.OccurredAt.Before(a.row.FirstSeen) {
			a.row.FirstSeen = e.OccurredAt
		}
		if e.OccurredAt.After(a.row.LastSeen) {
			a.row.LastSeen = e.OccurredAt
		}
	}
	out := make([]ClassRow, 0, len(by))
	for _, a := range by {
		a.row.Items = len(a.items)
		a.row.AvgAttempt = round1(float64(a.attempts) / float64(a.row.Errors))
		out = append(out, a.row)
	}
	slices.SortFunc(out, func(a, b ClassRow) int {
		return cmp.Or(cmp.Compare(b.Errors, a.Errors), cmp.Compare(a.Class, b.Class))
	})
	return out
}

// FailingItem is one row of the top failing items.
type FailingItem struct {
	// ItemID, State and Stage are the item and where it stopped.
	ItemID string     `json:"item_id"`
	State  work.State `json:"state"`
	Stage  work.Stage `json:"stage"`
	// FailureCount is the item's failure_count; Errors its log entries in
	// the window.
	FailureCount int `json:"failure_count"`
	Errors       int `json:"errors"`
	// Class, LastError and LastFailure describe its last failure.
	Class       work.Class `json:"error_class"`
	LastError   string     `json:"last_error,omitempty"`
	LastFailure time.Time  `json:"last_failure_at"`
	// Replays is its replay count.
	Replays int `json:"replays"`
}

// DefaultTop is how many rows TopFailingOf returns when asked for none.
const DefaultTop = 20

// TopFailingOf ranks permanent failures (items in deadletter or failed;
// others are ignored) by failure_count, then by their errors in entries,
// then most recent failure, then id; at most n rows (zero is DefaultTop).
func TopFailingOf(items []store.Item, entries []store.LogEntry, n int) []FailingItem {
	if n <= 0 {
		n = DefaultTop
	}
	errs := map[string]int{}
	for _, e := range entries {
		errs[e.ItemID]++
	}
	var out []FailingItem
	for _, it := range items {
		if !slices.Contains(store.DeadLetterStates(), it.State) {
			continue
		}
		row := FailingItem{ItemID: it.ID, State: it.State, Stage: it.Stage, FailureCount: it.FailureCount, Errors: errs[it.ID],
			Class: it.FailureClass(), LastFailure: it.LastFailureAt, Replays: it.ReplayCount}
		if it.LastError != nil {
			row.LastError = it.LastError.Error
		}
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b FailingItem) int {
		return cmp.Or(cmp.Compare(b.FailureCount, a.FailureCount), cmp.Compare(b.Errors, a.Errors),
			b.LastFailure.Compare(a.LastFailure), cmp.Compare(a.ItemID, b.ItemID))
	})
	return out[:min(n, len(out))]
}

// RecoveryRow is the recovery rate of one first error class.
type RecoveryRow struct {
	// Class is the first error class.
	Class work.Class `json:"error_class"`
	// Items counts items whose first failure in the window had Class;
	// Recovered those whose enrichment_status is now success.
	Items     int `json:"items"`
	Recovered int `json:"recovered"`
	// Percent is 100 × Recovered / Items, rounded to one decimal.
	Percent float64 `json:"recovered_pct"`
}

// RecoveryOf groups items by the class of their first entry (earliest
// OccurredAt, then lowest attempt) and counts those that recovered: their
// enrichment_status in items is success. An item missing from items counts
// as not recovered. Most items first (ties by class name).
func RecoveryOf(entries []store.LogEntry, items map[string]store.Item) []RecoveryRow {
	first := map[string]store.LogEntry{}
	for _, e := range entries {
		f, ok := first[e.ItemID]
		if !ok || e.OccurredAt.Before(f.OccurredAt) || (e.OccurredAt.Equal(f.OccurredAt) && e.Attempt < f.Attempt) {
			first[e.ItemID] = e
		}
	}
	by := map[work.Class]*RecoveryRow{}
	for id, e := range first {
		r := by[e.Class]
		if r == nil {
			r = &RecoveryRow{Class: e.Class}
			by[e.Class] = r
		}
		r.Items++
		if it, ok := items[id]; ok && it.EnrichmentStatus == work.EnrichmentSuccess {
			r.Recovered++
		}
	}
	out := make([]RecoveryRow, 0, len(by))
	for _, r := range by {
		r.Percent = round1(100 * float64(r.Recovered) / float64(r.Items))
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b RecoveryRow) int {
		return cmp.Or(cmp.Compare(b.Items, a.Items), cmp.Compare(a.Class, b.Class))
	})
	return out
}

// RepeatedItem is an item with many errors in the window.
type RepeatedItem struct {
	// ItemID is the item; Errors its entries in the window.
	ItemID string `json:"item_id"`
	Errors int    `json:"errors"`
	// Classes are the distinct classes of its errors, most frequent first.
	Classes []work.Class `json:"error_classes"`
	// LastClass and LastErrorAt describe its latest entry.
	LastClass   work.Class `json:"last_error_class"`
	LastErrorAt time.Time  `json:"last_error_at"`
	// State is the item's state now, when known.
	State work.State `json:"state,omitempty"`
}

// DefaultRepeatThreshold is RepeatedOf's threshold when asked for none:
// more than 3 errors (docs/design.md "Reports").
const DefaultRepeatThreshold = 3

// RepeatedOf lists items with more than threshold entries (zero is
// DefaultRepeatThreshold), most errors first, then the latest error first,
// then id. items, which may be nil, supplies their current state.
func RepeatedOf(entries []store.LogEntry, items map[string]store.Item, threshold int) []RepeatedItem {
	if threshold <= 0 {
		threshold = DefaultRepeatThreshold
	}
	type acc struct {
		row     RepeatedItem
		classes map[work.Class]int
	}
	by := map[string]*acc{}
	for _, e := range entries {
		a := by[e.ItemID]
		if a == nil {
			a = &acc{row: RepeatedItem{ItemID: e.ItemID}, classes: map[work.Class]int{}}
			by[e.ItemID] = a
		}
		a.row.Errors++
		a.classes[e.Class]++
		if !e.OccurredAt.Before(a.row.LastErrorAt) {
			a.row.LastErrorAt, a.row.LastClass = e.OccurredAt, e.Class
		}
	}
	var out []RepeatedItem
	for id, a := range by {
		if a.row.Errors <= threshold {
			continue
		}
		a.row.Classes = mostFirst(a.classes)
		if it, ok := items[id]; ok {
			a.row.State = it.State
		}
		out = append(out, a.row)
	}
	slices.SortFunc(out, func(a, b RepeatedItem) int {
		return cmp.Or(cmp.Compare(b.Errors, a.Errors), b.LastErrorAt.Compare(a.LastErrorAt), cmp.Compare(a.ItemID, b.ItemID))
	})
	return out
}

// mostFirst lists the classes counted, most frequent first (then by name).
func mostFirst(counts map[work.Class]int) []work.Class {
	out := slices.Collect(maps.Keys(counts))
	slices.SortFunc(out, func(x, y work.Class) int {
		return cmp.Or(cmp.Compare(counts[y], counts[x]), cmp.Compare(x, y))
	})
	return out
}

// BudgetRow is one UTC day of the budget exhaustion timeline.
type BudgetRow struct {
	// Day is the UTC date, "YYYY-MM-DD".
	Day string `json:"day"`
	// Spend, Calls, Blocked and Cap come from the budget table.
	Spend   budget.Micros `json:"spend_micros"`
	Calls   int64         `json:"calls"`
	Blocked int64         `json:"blocked"`
	Cap     budget.Micros `json:"cap_micros"`
	// BudgetErrors counts BUDGET_EXCEEDED log entries that day (the cap and
	// providers' quotas); ItemsBlocked the distinct items among them.
	BudgetErrors int `json:"budget_errors"`
	ItemsBlocked int `json:"items_blocked"`
}

// BudgetOf joins budget days and the day's BUDGET_EXCEEDED entries, newest
// day first. A day present in either source has a row.
func BudgetOf(days []budget.Day, entries []store.LogEntry) []BudgetRow {
	rows := map[string]*BudgetRow{}
	row := func(day string) *BudgetRow {
		r := rows[day]
		if r == nil {
			r = &BudgetRow{Day: day}
			rows[day] = r
		}
		return r
	}
	for _, d := range days {
		r := row(d.Day)
		r.Spend, r.Calls, r.Blocked, r.Cap = d.Spend, d.Calls, d.Blocked, d.Cap
	}
	items := map[string]map[string]bool{}
	for _, e := range entries {
		if e.Class != work.BudgetExceeded {
			continue
		}
		day := budget.DayKey(e.OccurredAt)
		r := row(day)
		r.BudgetErrors++
		if items[day] == nil {
			items[day] = map[string]bool{}
		}
		items[day][e.ItemID] = true
	}
	out := make([]BudgetRow, 0, len(rows))
	for day, r := range rows {
		r.ItemsBlocked = len(items[day])
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b BudgetRow) int { return cmp.Compare(b.Day, a.Day) })
	return out
}

func round1(f float64) float64 {
	return float64(int64(f*10+0.5)) / 10
}

// LogReader reads the error log (store.ErrorLogReader, LogSlice).
type LogReader interface {
	Between(ctx context.Context, since, until time.Time, fn func(store.LogEntry) error) error
}

// LogSlice is an error log in memory (store.Memory.Log()).
type LogSlice []store.LogEntry

// Between calls fn for each entry in [since, until), in order.
func (l LogSlice) Between(_ context.Context, since, until time.Time, fn func(store.LogEntry) error) error {
	w := Window{Since: since, Until: until}
	for _, e := range l {
		if !w.contains(e.OccurredAt) {
			continue
		}
		if err := fn(e); err != nil {
			if errors.Is(err, store.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// ItemReader reads items (store.Items, store.Memory).
type ItemReader interface {
	Get(ctx context.Context, id string) (store.Item, error)
}

// ItemLister lists items by state (store.ItemIndex, store.Memory).
type ItemLister interface {
	List(ctx context.Context, q store.ItemQuery, fn func(store.Item) error) error
}

// BudgetReader reads budget days (budget.Daily, budget.Memory).
type BudgetReader interface {
	Days(ctx context.Context, from, to time.Time) ([]budget.Day, error)
}

// Reporter loads what each report needs and computes it.
type Reporter struct {
	// Log reads the error log; every report needs it.
	Log LogReader
	// Items reads items (recovery, repeated); Index lists them by state
	// (top-failing).
	Items ItemReader
	Index ItemLister
	// Days reads the budget table.
	Days BudgetReader
	// Concurrency bounds parallel item reads; zero is 8.
	Concurrency int
	// MaxItems bounds the items read for one report; zero is 5000. A
	// report over more is an error, not a silent truncation.
	MaxItems int
	// MaxEntries bounds the error-log entries read; zero is 200 000. More
	// is an error: narrow the window.
	MaxEntries int
	// Progress, if set, is told how many entries or items have been read.
	Progress func(done, total int)
}

// Entries reads every error-log entry in w.
func (r *Reporter) Entries(ctx context.Context, w Window) ([]store.LogEntry, error) {
	if r.Log == nil {
		return nil, errors.New("report: no error log configured")
	}
	out, err := r.read(ctx, w, "error-log entries", r.Log.Between)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b store.LogEntry) int { return a.OccurredAt.Compare(b.OccurredAt) })
	return out, nil
}

// read collects the entries each calls back with in w, at most MaxEntries:
// past them it is an error that names them as what. Progress is told of
// every hundredth.
func (r *Reporter) read(ctx context.Context, w Window, what string,
	each func(ctx context.Context, since, until time.Time, fn func(store.LogEntry) error) error,
) ([]store.LogEntry, error) {
	limit := r.MaxEntries
	if limit <= 0 {
		limit = 200_000
	}
	var out []store.LogEntry
	err := each(ctx, w.Since, w.Until, func(e store.LogEntry) error {
		if len(out) >= limit {
			return fmt.Errorf("more than %d %s in the window; narrow it", limit, what)
		}
		out = append(out, e)
		if r.Progress != nil && len(out)%100 == 0 {
			r.Progress(len(out), 0)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return out, nil
}

// itemsOf reads the items entries name (missing ones are left out).
func (r *Reporter) itemsOf(ctx context.Context, entries []store.LogEntry) (map[string]store.Item, error) {
	if r.Items == nil {
		return nil, errors.New("report: no item store configured")
	}
	var ids []string
	seen := map[string]bool{}
	for _, e := range entries {
		if !seen[e.ItemID] {
			seen[e.ItemID] = true
			ids = append(ids, e.ItemID)
		}
	}
	limit := r.MaxItems
	if limit <= 0 {
		limit = 5000
	}
	if len(ids) > limit {
		return nil, fmt.Errorf("report: %d items in the window, more than %d; narrow --since", len(ids), limit)
	}
	workers := r.Concurrency
	if workers <= 0 {
		workers = 8
	}
	out := make(map[string]store.Item, len(ids))
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	next := make(chan string)
	for range min(workers, len(ids)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range next {
				it, err := r.Items.Get(ctx, id)
				mu.Lock()
				switch {
				case errors.Is(err, store.ErrNotFound):
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				default:
					out[id] = it
				}
				done++
				if r.Progress != nil {
					r.Progress(done, len(ids))
				}
				mu.Unlock()
			}
		}()
	}
	for _, id := range ids {
		next <- id
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("report: read items: %w", firstErr)
	}
	return out, nil
}

// Errors is the error distribution by class in w.
func (r *Reporter) Errors(ctx context.Context, w Window) ([]ClassRow, error) {
	entries, err := r.Entries(ctx, w)
	if err != nil {
		return nil, err
	}
	return ErrorsOf(entries), nil
}

// TopFailing ranks the permanent failures whose last failure is in w.
func (r *Reporter) TopFailing(ctx context.Context, w Window, n int) ([]FailingItem, error) {
	if r.Index == nil {
		return nil, errors.New("report: no item index configured")
	}
	entries, err := r.Entries(ctx, w)
	if err != nil {
		return nil, err
	}
	var items []store.Item
	for _, st := range store.DeadLetterStates() {
		q := store.ItemQuery{State: st, Since: w.Since, Before: w.Until, Limit: r.MaxItems}
		if err := r.Index.List(ctx, q, func(it store.Item) error {
			items = append(items, it)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	return TopFailingOf(items, entries, n), nil
}

// Recovery is the recovery rate by first error class in w.
func (r *Reporter) Recovery(ctx context.Context, w Window) ([]RecoveryRow, error) {
	entries, err := r.Entries(ctx, w)
	if err != nil {
		return nil, err
	}
	items, err := r.itemsOf(ctx, entries)
	if err != nil {
		return nil, err
	}
	return RecoveryOf(entries, items), nil
}

// Repeated lists items with more than threshold errors in w.
func (r *Reporter) Repeated(ctx context.Context, w Window, threshold int) ([]RepeatedItem, error) {
	entries, err := r.Entries(ctx, w)
	if err != nil {
		return nil, err
	}
	rows := RepeatedOf(entries, nil, threshold)
	if r.Items != nil && len(rows) > 0 {
		var named []store.LogEntry
		for _, row := range rows {
			named = append(named, store.LogEntry{ItemID: row.ItemID})
		}
		items, err := r.itemsOf(ctx, named)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			rows[i].State = items[rows[i].ItemID].State
		}
	}
	return rows, nil
}

// Budget is the budget exhaustion timeline of the days w touches (until
// now when w is open-ended).
func (r *Reporter) Budget(ctx context.Context, w Window, now time.Time) ([]BudgetRow, error) {
	if r.Days == nil {
		return nil, errors.New("report: no budget table configured")
	}
	entries, err := r.Entries(ctx, w)
	if err != nil {
		return nil, err
	}
	until := w.Until
	if until.IsZero() {
		until = now
	} else {
		until = until.Add(-time.Nanosecond)
	}
	days, err := r.Days.Days(ctx, w.Since, until)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var kept []budget.Day
	for _, d := range days {
		if d.Calls > 0 || d.Blocked > 0 || d.Spend > 0 {
			kept = append(kept, d)
		}
	}
	return BudgetOf(kept, entries), nil
}
