package console

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/report"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// Bounds of the pages' reads: every page reads at most this much, and says
// when what it shows is partial.
const (
	// GroupLimit bounds the dead-lettered items grouped by stage and class.
	GroupLimit = 1000
	// PageLimit is the rows of a listing.
	PageLimit = 100
	// ChartWindow and ChartBucket shape the failures chart.
	ChartWindow = 24 * time.Hour
	ChartBucket = time.Hour
	// LogMaxRead bounds the error-log entries one page reads.
	LogMaxRead = 5000
)

// stateRow is one group's items: the states it holds and how many.
type stateRow struct {
	Group  store.Group
	States []work.State
	Total  int
	Err    string
}

// group is the dead letters of one class at one stage.
type group struct {
	Stage     work.Stage
	Class     work.Class
	Count     int
	Retryable bool
	Newest    time.Time
	Example   string
}

type depthRow struct {
	Stage    work.Stage
	Messages int
	Err      string
}

type overviewData struct {
	Title     string
	Now       time.Time
	States    []stateRow
	Chart     template.HTML
	ChartNote string
	Depth     []depthRow
	Groups    []group
	GroupNote string
	Recent    []ops.ItemView
	Breakers  []breaker.Record
	Models    []health.Model
	Budget    *report.BudgetRow
	Notes     map[string]string
	AsOf      string
}

// parallel runs fns at once: the overview's sections are independent reads.
func parallel(fns ...func()) {
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Go(fn)
	}
	wg.Wait()
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := s.now()
	d := overviewData{Title: "Overview", Now: now, Notes: map[string]string{}}
	var mu sync.Mutex
	note := func(k, v string) {
		mu.Lock()
		d.Notes[k] = v
		mu.Unlock()
	}
	parallel(
		func() {
			a := s.current(ctx)
			d.States, d.GroupNote, d.AsOf = a.States, a.DeadNote, s.asOf(a)
			d.Groups, d.Recent = groupItems(a.Dead, "", "", 10)
			if a.DeadErr != "" {
				note("groups", a.DeadErr)
			}
			s.logSections(ctx, now, a, &d, note)
		},
		func() { d.Depth = s.depth(ctx) },
		func() { listSection(ctx, s, "breakers", s.b.Breakers, &d.Breakers, note) },
		func() { listSection(ctx, s, "models", s.b.Models, &d.Models, note) },
	)
	s.render(w, r, "overview", d)
}

// listSection fills the overview's section name with every record of a
// health store (breakers, models), or notes why it cannot: the store is not
// configured, or the read failed.
func listSection[T any](ctx context.Context, s *Server, name string, store interface {
	List(context.Context) ([]T, error)
}, dst *[]T, note func(k, v string)) {
	if store == nil {
		note(name, s.missing(name))
		return
	}
	var err error
	if *dst, err = store.List(ctx); err != nil {
		note(name, s.explain(err))
	}
}

// asOf says how old cached aggregates are; empty when they are read on
// every page.
func (s *Server) asOf(a *aggregates) string {
	if s.b.Refresh <= 0 {
		return ""
	}
	return fmt.Sprintf("as of %s (read again every %s)", a.At.UTC().Format("15:04:05Z"), s.b.Refresh)
}

// logSections fills the chart and today's budget from one read of the
// error log's window (and the budget table's day).
func (s *Server) logSections(ctx context.Context, now time.Time, a *aggregates, d *overviewData, note func(k, v string)) {
	if a.WindowErr != "" {
		note("chart", a.WindowErr)
		note("budget", a.WindowErr)
		return
	}
	entries := a.Entries
	d.Chart = failureChart(entries, a.At)
	if a.Partial {
		// The window is read class by class (store.ErrorLogReader.Between):
		// the read stopped inside the last entry's class.
		d.ChartNote = fmt.Sprintf("the chart read the first %d entries of the window, class by class: %s is cut short and the classes after it are missing",
			LogMaxRead, entries[len(entries)-1].Class)
	}
	if s.b.Days == nil {
		note("budget", s.missing("budget"))
		return
	}
	rep := &report.Reporter{Log: report.LogSlice(entries), Days: s.b.Days}
	rows, err := rep.Budget(ctx, report.Window{Since: now.UTC().Truncate(24 * time.Hour), Until: now}, now)
	switch {
	case err != nil:
		note("budget", s.explain(err))
	case len(rows) > 0:
		d.Budget = &rows[len(rows)-1]
	}
}

// explain is an error as a page shows it.
func (s *Server) explain(err error) string { return clean(err.Error()) }

// countStates counts the items of every group through the index
// (store.Tally: every partition's count, the done items since a
// watermark), exactly, whatever the tables hold.
func (s *Server) countStates(ctx context.Context) []stateRow {
	var (
		c   store.Counts
		err error
	)
	if s.tally == nil {
		err = errors.New("the item index cannot count")
	} else {
		c, err = s.tally.Counts(ctx, s.now())
	}
	rows := make([]stateRow, 0, len(store.Groups()))
	for _, g := range store.Groups() {
		row := stateRow{Group: g, States: g.States(), Total: c[g]}
		if err != nil {
			row.Err = s.explain(err)
		}
		rows = append(rows, row)
	}
	return rows
}

// depth reads each DLQ's approximate depth, the queues at once.
func (s *Server) depth(ctx context.Context) []depthRow {
	rows := make([]depthRow, len(work.Stages()))
	var fns []func()
	for i, st := range work.Stages() {
		fns = append(fns, func() { rows[i] = s.queueDepth(ctx, st) })
	}
	parallel(fns...)
	return rows
}

func (s *Server) queueDepth(ctx context.Context, st work.Stage) depthRow {
	row := depthRow{Stage: st}
	q := s.b.Queues[st].DLQ
	if s.b.SQS == nil || q == "" {
		row.Err = s.missing("queues")
		return row
	}
	out, err := s.b.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil {
		row.Err = s.explain(err)
		return row
	}
	row.Messages, _ = strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	return row
}

// deadStage is the stage an item was dead-lettered at.
func deadStage(it store.Item) work.Stage {
	if it.DeadLetter != nil && it.DeadLetter.Stage != "" {
		return it.DeadLetter.Stage
	}
	return it.Stage
}

type dlqData struct {
	Title  string
	Groups []group
	Note   string
	Err    string
	Stage  work.Stage
	Class  work.Class
	Items  []ops.ItemView
	Depth  []depthRow
	Form   actionForm
	AsOf   string
	// Loose are the DLQ messages no dead-lettered item stands for (see
	// looseDeadLetters); LooseNote and LooseErr say when the list is
	// partial or could not be read.
	Loose     []replay.DeadLetter
	LooseNote string
	LooseErr  string
}

func (s *Server) deadLetters(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	d := dlqData{Title: "Dead letters"}
	q := r.URL.Query()
	if v := q.Get("stage"); v != "" {
		st, err := work.ParseStage(v)
		if err != nil {
			s.badRequest(w, r, "stage: "+err.Error())
			return
		}
		d.Stage = st
	}
	if v := q.Get("class"); v != "" {
		d.Class = work.Class(strings.ToUpper(v))
		if !slices.Contains(work.Classes(), d.Class) {
			s.badRequest(w, r, fmt.Sprintf("class %q is not an error class", v))
			return
		}
	}
	var dead []store.Item
	parallel(func() {
		a := s.current(ctx)
		dead = a.Dead
		d.Groups, d.Items = groupItems(a.Dead, d.Stage, d.Class, PageLimit)
		d.Note, d.Err, d.AsOf = a.DeadNote, a.DeadErr, s.asOf(a)
	}, func() { d.Depth = s.depth(ctx) })
	queued := 0
	for _, row := range d.Depth {
		queued += row.Messages
	}
	if d.Stage == "" && d.Class == "" && queued > 0 {
		d.Loose, d.LooseNote, d.LooseErr = s.looseDeadLetters(ctx, dead)
	}
	d.Form = actionForm{Stage: d.Stage, Class: d.Class}
	s.render(w, r, "dlq", d)
}

// LooseLimit bounds the DLQ messages the dead-letter page reads.
const LooseLimit = 1000

// looseDeadLetters reads the DLQs as `triage dlq list` does — every message
// received and released at once, nothing changed — and returns those that
// no dead-lettered item of dead stands for: a malformed message or a spec
// that conflicts with its item (SCHEMA_INVALID, no item of its own), a
// backstop message, an older copy of an item's dead letter. With the
// dead-lettered items they are every message the DLQ depth counts.
func (s *Server) looseDeadLetters(ctx context.Context, dead []store.Item) ([]replay.DeadLetter, string, string) {
	current := map[string]string{}
	for _, it := range dead {
		if it.DeadLetter != nil {
			current[it.ID] = it.DeadLetter.ID
		}
	}
	l, err := s.b.Replayer.ListScan(ctx, replay.ListRequest{Limit: LooseLimit})
	dls := l.DeadLetters
	var out []replay.DeadLetter
	for _, dl := range dls {
		if id, ok := current[dl.ItemID]; ok && dl.Kind == deadletter.KindTriage && id == dl.DeadLetterID {
			continue
		}
		out = append(out, dl)
	}
	note := ""
	if len(dls) >= LooseLimit {
		note = fmt.Sprintf("read the first %d DLQ messages only", LooseLimit)
	} else if len(l.Incomplete) > 0 {
		names := make([]string, len(l.Incomplete))
		for i, st := range l.Incomplete {
			names[i] = string(st)
		}
		note = "read part of these DLQs only (out of time or at the message limit): " + strings.Join(names, ", ")
	}
	if err != nil {
		return out, note, s.explain(err)
	}
	return out, note, ""
}

type itemData struct {
	Title    string
	Item     ops.ItemView
	Gaps     []string
	Errors   []store.LogEntry
	Timeline *ledger.Timeline
	Dead     bool
	Form     actionForm
}

func (s *Server) item(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	if r.URL.Path == "/item" {
		id = r.URL.Query().Get("id")
	}
	it, err := s.b.Items.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		w.WriteHeader(http.StatusNotFound)
		s.render(w, r, "denied", denied("Not found", fmt.Sprintf("item %q does not exist", clean(id))))
		return
	}
	if err != nil {
		s.failed(w, r, err)
		return
	}
	d := itemData{Title: "Item " + it.ID, Item: ops.ViewItem(it), Dead: it.State == work.Deadletter}
	src := ops.TimelineSources{LogMissing: s.b.Missing["errorlog"], TrailMissing: s.b.Missing["audit"]}
	if s.b.Log != nil {
		src.Log = s.b.Log
	}
	if s.b.Trail != nil {
		src.Trail = s.b.Trail
	}
	d.Timeline, d.Gaps = ops.Timeline(ctx, it, src)
	// The item and its DLQ select its dead letter; a class would only risk
	// missing one whose payload names another.
	d.Form = actionForm{Items: []string{it.ID}, Stage: deadStage(it)}
	s.render(w, r, "item", d)
}

type errorsData struct {
	Title                     string
	Class, Stage, Item, Since string
	Limit                     int
	Entries                   []store.LogEntry
	Read                      int
	Partial                   bool
	Err                       string
	AsOf                      string
	Classes                   []work.Class
}

// errorLog is the error log, newest first, filtered by class, stage and
// item over a window: one item's history from the table, else the window
// through the by-class index, at most LogMaxRead entries read.
func (s *Server) errorLog(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	d := errorsData{Title: "Error log", Class: strings.ToUpper(q.Get("class")), Stage: q.Get("stage"), Item: strings.TrimSpace(q.Get("item")),
		Since: cmp.Or(q.Get("since"), "24h"), Limit: PageLimit, Classes: work.Classes()}
	if v, err := strconv.Atoi(q.Get("limit")); err == nil && v > 0 {
		d.Limit = min(v, 1000)
	}
	since, err := parseAge(d.Since, s.now())
	if err != nil {
		s.badRequest(w, r, "since: "+err.Error())
		return
	}
	if d.Class != "" && !slices.Contains(work.Classes(), work.Class(d.Class)) && d.Class != string(store.ResolvedClass) {
		s.badRequest(w, r, fmt.Sprintf("class %q is not an error class", d.Class))
		return
	}
	if s.b.Log == nil {
		d.Err = s.missing("errorlog")
		s.render(w, r, "errors", d)
		return
	}
	keep := func(e store.LogEntry) bool {
		return (d.Class == "" || string(e.Class) == d.Class) && (d.Stage == "" || string(e.Stage) == d.Stage) &&
			(d.Item == "" || e.ItemID == d.Item) && !e.OccurredAt.Before(since)
	}
	var all []store.LogEntry
	a := (*aggregates)(nil)
	byClass, _ := s.b.Log.(ClassLog)
	oneClass := d.Item == "" && d.Class != "" && byClass != nil
	if d.Item == "" && !oneClass && s.b.Refresh > 0 {
		// The last 24 hours are read for the overview already.
		if a = s.current(ctx); a.WindowErr != "" || since.Before(a.WindowStart) {
			a = nil
		}
	}
	switch {
	case a != nil:
		all, d.Read, d.Partial, d.AsOf = a.Entries, len(a.Entries), a.Partial, s.asOf(a)
	case d.Item != "":
		all, err = s.b.Log.ForItem(ctx, d.Item, LogMaxRead)
		d.Read = len(all)
	default:
		read := func(e store.LogEntry) error {
			d.Read++
			if d.Read > LogMaxRead {
				d.Partial = true
				return store.ErrStop
			}
			all = append(all, e)
			return nil
		}
		if oneClass {
			err = byClass.ClassBetween(ctx, work.Class(d.Class), since, time.Time{}, read)
		} else {
			err = s.b.Log.Between(ctx, since, time.Time{}, read)
		}
	}
	for _, e := range all {
		if keep(e) {
			d.Entries = append(d.Entries, e)
		}
	}
	slices.SortStableFunc(d.Entries, func(a, b store.LogEntry) int { return b.OccurredAt.Compare(a.OccurredAt) })
	d.Entries = d.Entries[:min(len(d.Entries), d.Limit)]
	s.render(w, r, "errors", d)
}

type unknownData struct {
	Title, Since, Err string
	Rows              []report.UnknownRow
	Failures          int
}

// unknown is `triage report unknown` over a window: the failures nothing
// recognised, by fingerprint (report.Reporter.Unknown, through the error
// log's unrecognised index), at most LogMaxRead of them read.
func (s *Server) unknown(w http.ResponseWriter, r *http.Request) {
	d := unknownData{Title: "Unknown failures", Since: cmp.Or(r.URL.Query().Get("since"), "7d")}
	now := s.now()
	since, err := parseAge(d.Since, now)
	if err != nil {
		s.badRequest(w, r, "since: "+err.Error())
		return
	}
	if s.b.Log == nil {
		d.Err = s.missing("errorlog")
		s.render(w, r, "unknown", d)
		return
	}
	rep := &report.Reporter{Log: s.b.Log, MaxEntries: LogMaxRead}
	d.Rows, err = rep.Unknown(r.Context(), report.Window{Since: since, Until: now})
	if err != nil {
		d.Err = s.explain(err)
	}
	for _, row := range d.Rows {
		d.Failures += row.Count
	}
	s.render(w, r, "unknown", d)
}

type policyData struct {
	Title   string
	Profile *policy.Profile
	Rows    []policy.Row
	Note    string
}

// policy is the deployed profile's decision table, the rows `triage policy
// show` prints (policy.Profile.Rows): per class, and per stage where a stage
// overrides it.
func (s *Server) policy(w http.ResponseWriter, r *http.Request) {
	d := policyData{Title: "Retry policy", Profile: s.b.Profile}
	if s.b.Profile == nil {
		d.Note = s.missing("profile")
	} else {
		d.Rows = s.b.Profile.Rows()
	}
	s.render(w, r, "policy", d)
}

// maxLiveItems bounds the items one /states request reads.
const maxLiveItems = 50

// states answers the script's poll after an action: each named item's
// state, as JSON {"id": "state"}.
func (s *Server) states(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query()["item"]
	if len(ids) > maxLiveItems {
		ids = ids[:maxLiveItems]
	}
	out := map[string]string{}
	for _, id := range ids {
		it, err := s.b.Items.Get(r.Context(), id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			out[id] = "missing"
		case err != nil:
			out[id] = "unknown"
		default:
			out[id] = string(it.State)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	writeJSON(w, out)
}

func (s *Server) badRequest(w http.ResponseWriter, r *http.Request, msg string) {
	w.WriteHeader(http.StatusBadRequest)
	s.render(w, r, "denied", denied("Bad request", clean(msg)))
}

func (s *Server) failed(w http.ResponseWriter, r *http.Request, err error) {
	w.WriteHeader(http.StatusBadGateway)
	s.render(w, r, "denied", denied("AWS failed", s.explain(err)))
}
