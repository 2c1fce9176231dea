package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// LoggedFailure is one error-log entry as `triage backtest` reads it: the
// ErrorLog table's fields, one JSON object per line in an export.
type LoggedFailure struct {
	// ItemID and Stage say which item failed where; both are required.
	ItemID string     `json:"item_id"`
	Stage  work.Stage `json:"stage"`
	// Class is the failure's class as recorded.
	Class work.Class `json:"error_class"`
	// Message is the redacted error text (not used by the backtest).
	Message string `json:"message,omitempty"`
	// Provider, Status and Code are the upstream's name, HTTP status and
	// code as the classification read them, when the log kept them (an
	// operator's rule weighed against the log reads them; TestRules).
	Provider failure.Provider `json:"provider,omitempty"`
	Status   int              `json:"status,omitempty"`
	Code     string           `json:"code,omitempty"`
	// Attempt is the stage's attempt count after the failure.
	Attempt int `json:"attempt"`
	// OccurredAt is when the failure happened; required.
	OccurredAt time.Time `json:"occurred_at"`
	// Decision is the recorded decision's reason (policy.Decision.Reason):
	// "… is retryable: attempt n of m, retry in d (…)", "… exhausted …",
	// "… is permanent …" or "wait until T …".
	Decision string `json:"decision"`
	// Retryable is the class's retryability, the fallback when Decision
	// says nothing recognisable.
	Retryable bool `json:"retryable"`
}

// FromLogEntry converts an error-log entry read from the table.
func FromLogEntry(e store.LogEntry) LoggedFailure {
	return LoggedFailure{ItemID: e.ItemID, Stage: e.Stage, Class: e.Class, Message: e.Message, Attempt: e.Attempt,
		Provider: e.Provider, Status: e.Status, Code: e.Code,
		OccurredAt: e.OccurredAt, Decision: e.Decision, Retryable: e.Retryable}
}

// entry is f as an error-log entry, for what reads one
// (store.LogEntry.Evidence).
func (f LoggedFailure) entry() store.LogEntry {
	return store.LogEntry{ItemID: f.ItemID, Stage: f.Stage, Class: f.Class, Message: f.Message, Provider: f.Provider,
		Status: f.Status, Code: f.Code, Attempt: f.Attempt, OccurredAt: f.OccurredAt, Decision: f.Decision, Retryable: f.Retryable}
}

// ReadFailures reads an export: JSON lines, or one JSON array. Blank lines
// are skipped; a line that does not decode, or lacks item_id, stage or
// occurred_at, is an error naming its line.
func ReadFailures(r io.Reader) ([]LoggedFailure, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(1); err == nil && b[0] == '[' {
		var out []LoggedFailure
		if err := json.NewDecoder(br).Decode(&out); err != nil {
			return nil, fmt.Errorf("error log: %w", err)
		}
		for i, f := range out {
			if err := f.check(); err != nil {
				return nil, fmt.Errorf("error log entry %d: %w", i+1, err)
			}
		}
		return out, nil
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []LoggedFailure
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var f LoggedFailure
		if err := json.Unmarshal(line, &f); err != nil {
			return nil, fmt.Errorf("error log line %d: %w", n, err)
		}
		if err := f.check(); err != nil {
			return nil, fmt.Errorf("error log line %d: %w", n, err)
		}
		out = append(out, f)
	}
	return out, sc.Err()
}

func (f LoggedFailure) check() error {
	switch {
	case f.ItemID == "":
		return errors.New("item_id is required")
	case !f.Stage.Valid():
		return fmt.Errorf("stage %q is not fetch, llm or notify", f.Stage)
	case f.OccurredAt.IsZero():
		return errors.New("occurred_at is required")
	}
	return nil
}

// Recorded decisions, parsed from an entry's decision text (the Reason of
// policy.Retry, policy.DeadLetter and policy.Wait).
const (
	decisionRetry      = "retry"
	decisionWait       = "wait"
	decisionDeadLetter = "dead_letter"
)

// parseDecision returns the kind of a recorded decision and the delay it
// chose (zero when the text does not say).
func parseDecision(f LoggedFailure) (kind string, delay time.Duration) {
	d := f.Decision
	switch {
	case strings.Contains(d, " exhausted ") || strings.Contains(d, " is permanent") || strings.Contains(d, "hand-off"):
		return decisionDeadLetter, 0
	case strings.HasPrefix(d, "wait until "):
		rest := strings.TrimPrefix(d, "wait until ")
		if ts, _, ok := strings.Cut(rest, " "); ok {
			if until, err := time.Parse(time.RFC3339, ts); err == nil {
				return decisionWait, until.Sub(f.OccurredAt)
			}
		}
		return decisionWait, 0
	case strings.Contains(d, " is retryable"):
		if _, rest, ok := strings.Cut(d, "retry in "); ok {
			s, _, _ := strings.Cut(rest, " ")
			if v, err := time.ParseDuration(s); err == nil {
				return decisionRetry, v
			}
		}
		return decisionRetry, 0
	}
	if !f.Retryable {
		return decisionDeadLetter, 0
	}
	return decisionRetry, 0
}

// Changes a candidate profile makes to one episode.
const (
	// ChangeSame: the same outcome after the same failures.
	ChangeSame = "same"
	// ChangeDeadLetteredEarlier: both dead-letter, the candidate at an
	// earlier failure: retries saved.
	ChangeDeadLetteredEarlier = "dead-lettered earlier"
	// ChangeDeadLetteredInstead: the recorded policy retried and the item
	// completed; the candidate would have dead-lettered it.
	ChangeDeadLetteredInstead = "dead-lettered instead of completing"
	// ChangeRetriedBeyond: the recorded policy dead-lettered; the candidate
	// would have retried at least once more, and the item might have
	// completed when its last failure was retryable.
	ChangeRetriedBeyond = "retried beyond the dead letter"
	// ChangeNotReached: the candidate dead-lettered the item at an earlier
	// stage, so this stage's recorded failures would not have happened.
	ChangeNotReached = "not reached"
)

// Episode is the backtest of one item's failures at one stage, up to and
// including a dead letter (a replay starts a new episode).
type Episode struct {
	// ItemID and Stage name the item-stage.
	ItemID string     `json:"item_id"`
	Stage  work.Stage `json:"stage"`
	// Failures is how many failures were recorded; Class the class where
	// the candidate's decision diverged, else the last failure's.
	Failures int        `json:"failures"`
	Class    work.Class `json:"class"`
	// Recorded is "completed" or "dead-lettered" (completed is inferred: the
	// recorded policy retried after the last failure and nothing failed
	// again).
	Recorded string `json:"recorded"`
	// Change is one of the Change constants.
	Change string `json:"change"`
	// MightComplete marks a ChangeRetriedBeyond whose last failure was
	// retryable.
	MightComplete bool `json:"might_complete,omitempty"`
	// RecordedCalls counts the calls the recorded policy made (failures,
	// plus the successful call of a completed episode); CandidateCalls the
	// least the candidate would make, CandidateCallsMax the most (-1:
	// unbounded, a class that waits without spending attempts).
	RecordedCalls     int `json:"recorded_calls"`
	CandidateCalls    int `json:"candidate_calls"`
	CandidateCallsMax int `json:"candidate_calls_max"`
	// Shift is the candidate's time to the same outcome minus the recorded
	// one (negative: sooner), for ChangeSame and ChangeDeadLetteredEarlier
	// when the recorded delays are known.
	Shift Duration `json:"shift"`
}

// ClassSummary sums a backtest's episodes by class.
type ClassSummary struct {
	// Class is the class episodes are attributed to (Episode.Class).
	Class work.Class `json:"class"`
	// Episodes counts the class's episodes.
	Episodes int `json:"episodes"`
	// RetriesSaved counts recorded calls the candidate would not make;
	// RetriesAdded the least number of calls it would add, AddedMax the
	// most, AddedUnbound whether a class that waits without limit makes that
	// unbounded.
	RetriesSaved int  `json:"retries_saved"`
	RetriesAdded int  `json:"retries_added"`
	AddedUnbound bool `json:"retries_added_unbounded,omitempty"`
	AddedMax     int  `json:"retries_added_max"`
	// Earlier, Instead, Beyond, NotReached and Same count the episodes of
	// each Change; MightComplete the Beyond episodes that might have
	// completed.
	Earlier       int `json:"dead_lettered_earlier"`
	Instead       int `json:"dead_lettered_instead_of_completing"`
	MightComplete int `json:"might_have_completed"`
	Beyond        int `json:"retried_beyond_dead_letter"`
	NotReached    int `json:"not_reached"`
	Same          int `json:"same"`
	// MedianShift is the median Shift of the class's episodes that have one.
	MedianShift Duration `json:"median_shift"`
}

// BacktestReport is what a candidate profile would have changed about a
// recorded error log.
type BacktestReport struct {
	// Profile is the candidate.
	Profile string `json:"profile"`
	// Failures, Episodes and Items count what was read.
	Failures int `json:"failures"`
	Episodes int `json:"episodes"`
	Items    int `json:"items"`
	// RecordedCompleted and RecordedDeadLettered split the episodes by
	// their recorded outcome.
	RecordedCompleted    int `json:"recorded_completed"`
	RecordedDeadLettered int `json:"recorded_dead_lettered"`
	// Total sums every class; ByClass has one row per class, by name.
	Total   ClassSummary   `json:"total"`
	ByClass []ClassSummary `json:"by_class"`
	// Detail lists every episode, by item and time.
	Detail []Episode `json:"episodes_detail,omitempty"`
}

// Backtest replays a recorded error log through profile p and reports what
// it would have changed. The counterfactual model:
//
//   - An item's failures at one stage, in time order, form an episode; a
//     recorded dead letter ends one (a replay starts the next). The
//     recorded decision of each failure is read from its decision text.
//     An episode whose last decision was a retry or a wait is taken to have
//     completed with the next call.
//   - Failures are keyed to the call: the candidate's n-th call is assumed
//     to meet the recorded n-th failure whatever its timing — the model of
//     the simulator's cross-check. (A candidate that waits longer might in
//     truth outwait a failure; one that retries sooner might meet more.)
//   - The candidate decides each recorded failure as the runner would: its
//     attempt count advances for counting and permanent classes,
//     Profile.Decide gets the failure's class at its recorded time, with
//     the midpoint of the jitter range (the upstream's Retry-After is not in
//     the log, so requested delays are not honoured: a lower bound for
//     rate limits).
//   - Where the candidate dead-letters at an earlier failure than the
//     recorded policy stopped at, the later recorded calls are retries
//     saved: the item was dead-lettered earlier, or — if the recorded policy
//     went on to complete it — dead-lettered instead of completing, and its
//     later stages are not reached (their recorded calls saved as well).
//     Where the candidate would retry past a recorded dead letter, it adds
//     at least one call and at most what its limit for the last class
//     allows; the item might have completed if that class is retryable.
//   - Shift compares the time to the same outcome: the candidate's delays
//     against the recorded ones.
func Backtest(log []LoggedFailure, p *policy.Profile) BacktestReport {
	rep := BacktestReport{Profile: p.Name, Failures: len(log)}
	byItem := map[string][]LoggedFailure{}
	for _, f := range log {
		byItem[f.ItemID] = append(byItem[f.ItemID], f)
	}
	rep.Items = len(byItem)
	classes := map[work.Class]*ClassSummary{}
	shifts := map[work.Class][]time.Duration{}
	for _, id := range slices.Sorted(maps.Keys(byItem)) {
		fs := byItem[id]
		slices.SortStableFunc(fs, func(a, b LoggedFailure) int {
			if c := a.OccurredAt.Compare(b.OccurredAt); c != 0 {
				return c
			}
			if a.Stage != b.Stage {
				return a.Stage.Index() - b.Stage.Index()
			}
			return a.Attempt - b.Attempt
		})
		lost := false
		for _, ep := range episodes(fs) {
			e := backtestEpisode(ep, p)
			if lost {
				e.Change, e.Class, e.CandidateCalls, e.CandidateCallsMax, e.Shift = ChangeNotReached, ep[len(ep)-1].Class, 0, 0, 0
				e.MightComplete = false
			}
			if e.Change == ChangeDeadLetteredInstead {
				lost = true
			}
			rep.Episodes++
			if e.Recorded == "completed" {
				rep.RecordedCompleted++
			} else {
				rep.RecordedDeadLettered++
			}
			cs := classes[e.Class]
			if cs == nil {
				cs = &ClassSummary{Class: e.Class}
				classes[e.Class] = cs
			}
			for _, s := range []*ClassSummary{cs, &rep.Total} {
				s.add(e)
			}
			if e.Shift != 0 {
				shifts[e.Class] = append(shifts[e.Class], e.Shift.D())
				shifts[""] = append(shifts[""], e.Shift.D())
			}
			rep.Detail = append(rep.Detail, e)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(classes)) {
		cs := classes[c]
		cs.MedianShift = median(shifts[c])
		rep.ByClass = append(rep.ByClass, *cs)
	}
	rep.Total.MedianShift = median(shifts[""])
	return rep
}

func (s *ClassSummary) add(e Episode) {
	s.Episodes++
	switch e.Change {
	case ChangeSame:
		s.Same++
	case ChangeDeadLetteredEarlier:
		s.Earlier++
	case ChangeDeadLetteredInstead:
		s.Instead++
	case ChangeRetriedBeyond:
		s.Beyond++
		if e.MightComplete {
			s.MightComplete++
		}
	case ChangeNotReached:
		s.NotReached++
	}
	if d := e.RecordedCalls - e.CandidateCalls; d > 0 {
		s.RetriesSaved += d
	} else if d < 0 {
		s.RetriesAdded -= d
	}
	switch {
	case e.CandidateCallsMax < 0:
		s.AddedUnbound = true
	case e.CandidateCallsMax > e.RecordedCalls:
		s.AddedMax += e.CandidateCallsMax - e.RecordedCalls
	}
}

// episodes splits one item's failures (in time order) into per-stage
// episodes, each ending at a recorded dead letter or at the stage's last
// failure, ordered by their first failure.
func episodes(fs []LoggedFailure) [][]LoggedFailure {
	var out [][]LoggedFailure
	open := map[work.Stage]int{} // stage → index into out of its open episode
	for _, f := range fs {
		k, ok := open[f.Stage]
		if !ok {
			out = append(out, nil)
			k = len(out) - 1
			open[f.Stage] = k
		}
		out[k] = append(out[k], f)
		if kind, _ := parseDecision(f); kind == decisionDeadLetter {
			delete(open, f.Stage)
		}
	}
	return out
}

// backtestEpisode decides one episode's recorded failures with p.
func backtestEpisode(ep []LoggedFailure, p *policy.Profile) Episode {
	last := ep[len(ep)-1]
	e := Episode{ItemID: last.ItemID, Stage: last.Stage, Failures: len(ep), Class: last.Class}
	lastKind, _ := parseDecision(last)
	recordedDL := lastKind == decisionDeadLetter
	e.Recorded, e.RecordedCalls = "completed", len(ep)+1
	if recordedDL {
		e.Recorded, e.RecordedCalls = "dead-lettered", len(ep)
	}
	half := func() float64 { return 0.5 }
	attempts := 0
	var candTime, recTime time.Duration
	for k, f := range ep {
		cl := failure.Of(f.Class, "recorded")
		dec := p.Decide(policy.Input{Stage: f.Stage, Failure: cl, Attempt: attempts + 1, Now: f.OccurredAt, Rand: half})
		attempt := attempts
		if dec.Counts() {
			attempt++
		}
		if k > 0 {
			recTime += f.OccurredAt.Sub(ep[k-1].OccurredAt)
		}
		if _, stop := dec.(policy.DeadLetter); stop {
			e.CandidateCalls, e.CandidateCallsMax, e.Class = k+1, k+1, f.Class
			switch {
			case k+1 < len(ep) && recordedDL:
				e.Change = ChangeDeadLetteredEarlier
				e.Shift = Duration(candTime - (recTime + last.OccurredAt.Sub(f.OccurredAt)))
			case !recordedDL:
				e.Change = ChangeDeadLetteredInstead
			default:
				e.Change = ChangeSame
				e.Shift = Duration(candTime - recTime)
			}
			return e
		}
		switch d := dec.(type) {
		case policy.Retry:
			attempts = attempt
			candTime += d.Delay
		case policy.Wait:
			candTime += d.Until.Sub(f.OccurredAt)
		}
	}
	// The candidate retries after every recorded failure.
	if !recordedDL {
		e.Change, e.CandidateCalls, e.CandidateCallsMax = ChangeSame, e.RecordedCalls, e.RecordedCalls
		if _, recDelay := parseDecision(last); recDelay > 0 {
			e.Shift = Duration(candTime - (recTime + recDelay))
		}
		return e
	}
	e.Change, e.CandidateCalls = ChangeRetriedBeyond, len(ep)+1
	pol := p.Policy(last.Stage, last.Class)
	e.MightComplete = pol.Retryable
	switch {
	case !pol.Counts:
		e.CandidateCallsMax = -1
	case pol.MaxAttempts > 0:
		e.CandidateCallsMax = len(ep) + max(pol.MaxAttempts-attempts, 1)
	default:
		e.CandidateCallsMax = -1
	}
	return e
}

func median(ds []time.Duration) Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return Duration(s[(len(s)-1)/2])
}

// WriteBacktest writes rep as a table.
func WriteBacktest(w io.Writer, rep BacktestReport) error {
	fmt.Fprintf(w, "backtest: %d failures of %d items in %d item-stages, recorded decisions vs profile %q\n",
		rep.Failures, rep.Items, rep.Episodes, rep.Profile)
	t := rep.Total
	fmt.Fprintf(w, "recorded:  %d completed, %d dead-lettered\n", rep.RecordedCompleted, rep.RecordedDeadLettered)
	fmt.Fprintf(w, "candidate: %d same, %d dead-lettered earlier, %d dead-lettered instead of completing, %d retried beyond the dead letter (%d might have completed), %d not reached\n",
		t.Same, t.Earlier, t.Instead, t.Beyond, t.MightComplete, t.NotReached)
	fmt.Fprintf(w, "calls:     %d retries saved, %s retries added\n\n", t.RetriesSaved, addedText(t))
	tw := newTabwriter(w)
	fmt.Fprintln(tw, "class\titem-stages\tretries saved\tretries added\tDL earlier\tDL instead of done\tmight complete\tnot reached\tsame\tmedian time shift\t")
	rows := append(slices.Clone(rep.ByClass), ClassSummary{Class: "TOTAL"})
	rows[len(rows)-1] = t
	rows[len(rows)-1].Class = "TOTAL"
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", r.Class, r.Episodes, r.RetriesSaved, addedText(r),
			r.Earlier, r.Instead, r.MightComplete, r.NotReached, r.Same, shiftText(r.MedianShift.D()))
	}
	return tw.Flush()
}

func addedText(s ClassSummary) string {
	switch {
	case s.RetriesAdded == 0:
		return "0"
	case s.AddedUnbound:
		return fmt.Sprintf("%d..∞", s.RetriesAdded)
	case s.AddedMax > s.RetriesAdded:
		return fmt.Sprintf("%d..%d", s.RetriesAdded, s.AddedMax)
	}
	return fmt.Sprint(s.RetriesAdded)
}

func shiftText(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < 0:
		return "-" + fmtDur(-d)
	}
	return "+" + fmtDur(d)
}
