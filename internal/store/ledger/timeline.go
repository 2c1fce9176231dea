package ledger

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// EventKind names a line of an item's timeline.
type EventKind string

const (
	// KindCreated: the fetch stage created the item from its spec.
	KindCreated EventKind = "created"
	// KindRetry: a failure that spent an attempt; the stage runs it again.
	KindRetry EventKind = "retry"
	// KindWait: a failure that spent no attempt (a rate limit's quota, the
	// budget); the item waits.
	KindWait EventKind = "wait"
	// KindPark: a retry or a wait longer than SQS can hold (ParkBeyond):
	// the scheduler re-enqueues the item when it is due.
	KindPark EventKind = "park"
	// KindFailed: the stage failed for good (the dead-letter decision).
	KindFailed EventKind = "failed"
	// KindDeadLetter: the dead letter's hand-off to the DLQ was confirmed.
	KindDeadLetter EventKind = "dead_letter"
	// KindExecution: an action task's execution (audit).
	KindExecution EventKind = "execution"
	// KindNotice: a notice told to the owner (audit).
	KindNotice EventKind = "notice"
	// KindReplay: an operator replay.
	KindReplay EventKind = "replay"
	// KindNote: an operator note.
	KindNote EventKind = "note"
	// KindResolved: an operator closed the dead letter.
	KindResolved EventKind = "resolved"
	// KindDelivered: the webhook accepted the result.
	KindDelivered EventKind = "delivered"
)

// ParkBeyond is the longest delay SQS visibility holds (the runner's
// runner.MaxVisibility): a longer retry or wait is parked.
const ParkBeyond = 12*time.Hour - 15*time.Minute

// Event is one line of the timeline.
type Event struct {
	At    time.Time  `json:"at"`
	Kind  EventKind  `json:"kind"`
	Stage work.Stage `json:"stage,omitempty"`
	// Attempt is the stage's attempt the event is about, when there is one.
	Attempt int        `json:"attempt,omitempty"`
	Class   work.Class `json:"class,omitempty"`
	// Until is when a retry, wait or park is due.
	Until *time.Time `json:"until,omitempty"`
	// Text says what happened, for people.
	Text string `json:"text"`
}

// StageSummary is one stage's part of the timeline.
type StageSummary struct {
	Stage work.Stage `json:"stage"`
	// Status is succeeded, dead-lettered, in progress (with the item's
	// state) or not reached.
	Status string `json:"status"`
	// Attempts are the attempts the stage made: the failed ones the item
	// counts, plus the one that succeeded. Failures, Waits and Parks are
	// what the error log holds for it; Executions the action executions
	// the audit holds.
	Attempts   int `json:"attempts"`
	Failures   int `json:"failures"`
	Waits      int `json:"waits"`
	Parks      int `json:"parks"`
	Executions int `json:"executions,omitempty"`
}

// Timeline is an item's history: per stage, and event by event.
type Timeline struct {
	Stages []StageSummary `json:"stages"`
	Events []Event        `json:"events"`
}

var (
	retryIn   = regexp.MustCompile(`retry in ([0-9a-zµ.]+)`)
	waitUntil = regexp.MustCompile(`^wait until (\S+)`)
)

// BuildTimeline assembles an item's timeline from the item, its error-log
// entries (store.ErrorLogReader.ForItem) and its audit trail (ForItem);
// either list may be empty. Events are in time order.
func BuildTimeline(it store.Item, log []store.LogEntry, trail []Entry) Timeline {
	var tl Timeline
	add := func(e Event) { tl.Events = append(tl.Events, e) }
	if !it.CreatedAt.IsZero() {
		add(Event{At: it.CreatedAt, Kind: KindCreated, Stage: work.Stages()[0], Text: "created from its spec (" + string(kindOf(it)) + ")"})
	}
	per := map[work.Stage]*StageSummary{}
	made := AttemptsMade(it)
	for _, st := range work.Stages() {
		per[st] = &StageSummary{Stage: st, Attempts: made[st]}
	}
	for _, e := range log {
		if e.Kind != store.LogFailure || e.Class == store.ResolvedClass {
			// Replays, notes and resolutions are the item's own records,
			// told from the item; in the log they are not failures.
			continue
		}
		ev := fromLog(e)
		if s := per[e.Stage]; s != nil {
			s.Failures++
			switch ev.Kind {
			case KindWait:
				s.Waits++
			case KindPark:
				s.Parks++
			}
		}
		add(ev)
	}
	for _, e := range trail {
		switch {
		case e.Execution != nil:
			if s := per[e.Execution.Stage]; s != nil {
				s.Executions++
			}
			add(fromExecution(*e.Execution))
		case e.Notice != nil:
			add(fromNotice(*e.Notice))
		}
	}
	if d := it.DeadLetter; d != nil {
		add(Event{At: d.At, Kind: KindDeadLetter, Stage: d.Stage, Class: d.Class,
			Text: "dead letter " + d.ID + " on the " + string(d.Stage) + " DLQ" + map[bool]string{true: " (escalated)"}[d.Escalated]})
	}
	for _, r := range it.Replays {
		add(Event{At: r.At, Kind: KindReplay, Stage: r.FromStage, Class: r.Class,
			Text: fmt.Sprintf("replayed (%s) from %s by %s: %s", r.Mode, r.FromStage, cmp.Or(r.By, "-"), r.Note)})
	}
	for _, n := range it.Notes {
		add(Event{At: n.At, Kind: KindNote, Text: fmt.Sprintf("note by %s: %s", cmp.Or(n.By, "-"), n.Text)})
	}
	if r := it.Resolution; r != nil {
		add(Event{At: r.At, Kind: KindResolved, Stage: r.Stage, Class: r.Class, Text: fmt.Sprintf("resolved by %s: %s", cmp.Or(r.By, "-"), r.Note)})
	}
	if d := it.Delivery; d != nil {
		add(Event{At: d.DeliveredAt, Kind: KindDelivered, Stage: work.Notify,
			Text: fmt.Sprintf("result delivered to the webhook (HTTP %d)", d.Status)})
	}
	slices.SortStableFunc(tl.Events, func(a, b Event) int { return a.At.Compare(b.At) })
	for _, st := range work.Stages() {
		s := per[st]
		s.Status = stageStatus(it, st)
		tl.Stages = append(tl.Stages, *s)
	}
	return tl
}

// AttemptsMade are the attempts each stage made in the item's current run:
// the failed ones its attempts count (a wait spends none), plus the one
// that succeeded when the stage is behind it. The item's own counters hold
// the failed ones alone — the retry budget — so a done item that never
// failed made one attempt per stage and spent none.
func AttemptsMade(it store.Item) map[work.Stage]int {
	out := make(map[work.Stage]int, len(work.Stages()))
	for _, st := range work.Stages() {
		out[st] = it.Attempts[st]
		if stageStatus(it, st) == statusSucceeded {
			out[st]++
		}
	}
	return out
}

// fromLog reads an error-log entry: its decision says what happened next.
func fromLog(e store.LogEntry) Event {
	ev := Event{At: e.OccurredAt, Stage: e.Stage, Attempt: e.Attempt, Class: e.Class}
	d := e.Decision
	switch {
	case strings.HasPrefix(d, "wait until"):
		ev.Kind = KindWait
		if m := waitUntil.FindStringSubmatch(d); m != nil {
			if t, err := time.Parse(time.RFC3339, m[1]); err == nil {
				ev.Until = &t
			}
		}
	case strings.Contains(d, " is retryable: "):
		ev.Kind = KindRetry
		if m := retryIn.FindStringSubmatch(d); m != nil {
			if dur, err := time.ParseDuration(m[1]); err == nil {
				t := e.OccurredAt.Add(dur)
				ev.Until = &t
			}
		}
	default:
		ev.Kind = KindFailed
	}
	if ev.Until != nil && ev.Until.Sub(e.OccurredAt) > ParkBeyond {
		ev.Kind = KindPark
	}
	ev.Text = d
	if !strings.HasPrefix(d, string(e.Class)) {
		ev.Text = string(e.Class) + ": " + d
	}
	return ev
}

func fromExecution(x Execution) Event {
	ev := Event{At: x.StartedAt, Kind: KindExecution, Stage: x.Stage, Attempt: x.Attempt, Class: x.Class}
	var b strings.Builder
	b.WriteString("action " + string(x.Outcome))
	if x.Reason != "" {
		b.WriteString(": " + x.Reason)
	}
	var by []string
	if x.Model != "" {
		by = append(by, x.Model)
	}
	by = append(by, x.Duration.Round(time.Millisecond).String())
	b.WriteString(" (" + strings.Join(by, ", ") + ")")
	ev.Text = b.String()
	return ev
}

func fromNotice(n Notice) Event {
	ev := Event{At: n.FirstAt, Kind: KindNotice, Stage: n.Stage, Attempt: n.Attempt, Class: n.Class}
	s := fmt.Sprintf("%s %s after %d attempt%s", n.Event, n.State, n.Attempts, map[bool]string{true: "s"}[n.Attempts != 1])
	switch {
	case n.State == NoticeDelivered && n.Status != 0:
		s += fmt.Sprintf(" (HTTP %d)", n.Status)
	case n.State == NoticePending:
		t := n.NotBefore
		ev.Until = &t
		s += ", next at " + n.NotBefore.UTC().Format(time.RFC3339)
		fallthrough
	case n.State == NoticeAbandoned:
		if n.LastClass != "" {
			s += ": " + string(n.LastClass)
		}
	}
	ev.Text = s
	return ev
}

// statusSucceeded is a stage that is done.
const statusSucceeded = "succeeded"

// stageStatus says how far st got.
func stageStatus(it store.Item, st work.Stage) string {
	switch {
	case it.Stage.Index() > st.Index(), it.Stage == st && it.State == work.Done:
		return statusSucceeded
	case it.Stage != st:
		return "not reached"
	case it.State == work.Deadletter, it.State == work.Failed:
		return "dead-lettered"
	}
	return "in progress (" + string(it.State) + ")"
}

func kindOf(it store.Item) store.Kind {
	if it.Kind == "" {
		return store.KindStory
	}
	return it.Kind
}

// maxDetail bounds an event's text in Write, in runes.
const maxDetail = 160

// Write prints the timeline for people: the stages, then the events in
// time order (times in UTC), then a line per source in gaps that could not
// be read. Text that came from messages and upstreams (notes, reasons,
// model names) is made safe for a terminal (termsafe).
func (tl Timeline) Write(w io.Writer, gaps []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tSTATUS\tATTEMPTS\tFAILURES\tWAITS\tPARKS\tEXECUTIONS")
	for _, s := range tl.Stages {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", s.Stage, s.Status, s.Attempts, s.Failures, s.Waits, s.Parks, s.Executions)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tSTAGE\tEVENT\tATTEMPT\tDETAIL")
	for _, e := range tl.Events {
		attempt := "-"
		if e.Attempt > 0 {
			attempt = strconv.Itoa(e.Attempt)
		}
		detail := e.Text
		if e.Until != nil && e.Kind != KindNotice {
			detail += " → " + e.Until.UTC().Format(timeLayout)
		}
		detail = redact.Terminal(detail)
		if r := []rune(detail); len(r) > maxDetail {
			detail = string(r[:maxDetail-1]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format(timeLayout), redact.Terminal(cmp.Or(string(e.Stage), "-")),
			redact.Terminal(string(e.Kind)), attempt, detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, g := range gaps {
		if _, err := fmt.Fprintf(w, "(timeline without %s)\n", redact.Terminal(g)); err != nil {
			return err
		}
	}
	return nil
}

// timeLayout is how Write prints times.
const timeLayout = "2006-01-02 15:04:05.000Z"
