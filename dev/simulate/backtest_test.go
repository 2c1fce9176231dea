package simulate

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

func loadLog(t *testing.T) []LoggedFailure {
	t.Helper()
	f, err := os.Open("testdata/errorlog.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := ReadFailures(f)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// TestBacktestHandComputed replays testdata/errorlog.jsonl — recorded under
// an older policy that retried CONTENT_POLICY, gave RESPONSE_INVALID 5
// attempts and UPSTREAM_UNAVAILABLE 3 — through standard, and checks every
// figure against the values computed by hand:
//
//	a/llm    2 × RATE_LIMITED, completed      same; standard waits 0.5 s + 1 s (midpoint
//	                                          jitter, no Retry-After) against 10 s + 20 s: −28.5 s
//	b/llm    3 × CONTENT_POLICY, dead letter  dead-lettered at the 1st: 2 retries saved, −2m
//	c/fetch  3 × UPSTREAM_UNAVAILABLE, DL     standard allows 5: retries beyond, +1 call
//	                                          at least, +2 at most; might have completed
//	d/llm    4 × RESPONSE_INVALID, completed  dead-lettered at the 3rd instead: 5 calls → 3
//	d/notify 1 × UPSTREAM_UNAVAILABLE         not reached: its 2 calls saved
//	e/llm    2 × BUDGET_EXCEEDED waits        same; standard waits 1 h twice against
//	                                          30m + 30m: +1h
func TestBacktestHandComputed(t *testing.T) {
	t.Parallel()
	p, _ := policy.Lookup("standard")
	rep := Backtest(loadLog(t), p)
	if rep.Failures != 15 || rep.Episodes != 6 || rep.Items != 5 || rep.RecordedCompleted != 4 || rep.RecordedDeadLettered != 2 {
		t.Fatalf("counts: %+v", rep)
	}
	want := map[string]Episode{
		"a/llm":    {Change: ChangeSame, Class: work.RateLimited, RecordedCalls: 3, CandidateCalls: 3, CandidateCallsMax: 3, Shift: Duration(-28500 * time.Millisecond)},
		"b/llm":    {Change: ChangeDeadLetteredEarlier, Class: work.ContentPolicy, RecordedCalls: 3, CandidateCalls: 1, CandidateCallsMax: 1, Shift: Duration(-2 * time.Minute)},
		"c/fetch":  {Change: ChangeRetriedBeyond, Class: work.UpstreamUnavailable, RecordedCalls: 3, CandidateCalls: 4, CandidateCallsMax: 5, MightComplete: true},
		"d/llm":    {Change: ChangeDeadLetteredInstead, Class: work.ResponseInvalid, RecordedCalls: 5, CandidateCalls: 3, CandidateCallsMax: 3},
		"d/notify": {Change: ChangeNotReached, Class: work.UpstreamUnavailable, RecordedCalls: 2},
		"e/llm":    {Change: ChangeSame, Class: work.BudgetExceeded, RecordedCalls: 3, CandidateCalls: 3, CandidateCallsMax: 3, Shift: Duration(time.Hour)},
	}
	for _, got := range rep.Detail {
		key := got.ItemID + "/" + string(got.Stage)
		w, ok := want[key]
		if !ok {
			t.Errorf("unexpected episode %s", key)
			continue
		}
		w.ItemID, w.Stage, w.Failures, w.Recorded = got.ItemID, got.Stage, got.Failures, got.Recorded
		if got != w {
			t.Errorf("%s:\n got  %+v\n want %+v", key, got, w)
		}
	}
	tot := rep.Total
	if tot.RetriesSaved != 6 || tot.RetriesAdded != 1 || tot.AddedMax != 2 || tot.Earlier != 1 || tot.Instead != 1 ||
		tot.MightComplete != 1 || tot.NotReached != 1 || tot.Same != 2 || tot.MedianShift.D() != -28500*time.Millisecond {
		t.Errorf("total: %+v", tot)
	}
	byClass := map[work.Class]ClassSummary{}
	for _, c := range rep.ByClass {
		byClass[c.Class] = c
	}
	if c := byClass[work.UpstreamUnavailable]; c.Episodes != 2 || c.RetriesSaved != 2 || c.RetriesAdded != 1 || c.NotReached != 1 || c.MightComplete != 1 {
		t.Errorf("UPSTREAM_UNAVAILABLE: %+v", c)
	}
	var out bytes.Buffer
	if err := WriteBacktest(&out, rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"6 retries saved, 1..2 retries added", "CONTENT_POLICY", "TOTAL", "-28.5s"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
}

// TestBacktestSameProfileChangesNothing replays a log recorded by the
// standard profile itself: the decisions agree at every failure.
func TestBacktestSameProfileChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.sc.Items = 400
	_ = b.sc.Validate()
	p, _ := LookupPolicy("standard")
	e, err := newEngine(t.Context(), b.sc, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.loop(); err != nil {
		t.Fatal(err)
	}
	var log []LoggedFailure
	for _, le := range e.mem.Log() {
		log = append(log, FromLogEntry(le))
	}
	if len(log) == 0 {
		t.Fatal("the run logged no failures")
	}
	prof, _ := policy.Lookup("standard")
	rep := Backtest(log, prof)
	tot := rep.Total
	if tot.RetriesSaved != 0 || tot.RetriesAdded != 0 || tot.Earlier+tot.Instead+tot.Beyond+tot.NotReached != 0 {
		t.Fatalf("standard against its own log changed something: %+v", tot)
	}
}

func TestReadFailures(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		n    int
		want string
	}{
		"lines":         {`{"item_id":"a","stage":"llm","error_class":"RATE_LIMITED","occurred_at":"2026-05-01T10:00:00Z"}` + "\n\n", 1, ""},
		"array":         {`[{"item_id":"a","stage":"fetch","error_class":"NOT_FOUND","occurred_at":"2026-05-01T10:00:00Z"}]`, 1, ""},
		"bad json":      {`{"item_id":`, 0, "line 1"},
		"no item":       {`{"stage":"llm","occurred_at":"2026-05-01T10:00:00Z"}`, 0, "item_id is required"},
		"bad stage":     {`{"item_id":"a","stage":"parse","occurred_at":"2026-05-01T10:00:00Z"}`, 0, "stage"},
		"no time":       {`{"item_id":"a","stage":"llm"}`, 0, "occurred_at"},
		"array no item": {`[{"stage":"llm","occurred_at":"2026-05-01T10:00:00Z"}]`, 0, "entry 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadFailures(strings.NewReader(tc.in))
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil || len(got) != tc.n {
				t.Fatalf("got %d, %v", len(got), err)
			}
		})
	}
}

func TestParseDecision(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		decision  string
		retryable bool
		kind      string
		delay     time.Duration
	}{
		"retry":     {policy.Retry{Class: work.RateLimited, Attempt: 2, MaxAttempts: 5, Delay: 1500 * time.Millisecond, Backoff: "fixed 1s"}.Reason(), true, decisionRetry, 1500 * time.Millisecond},
		"exhausted": {policy.DeadLetter{Exhausted: true, Class: work.RateLimited, Attempt: 5, MaxAttempts: 5}.Reason(), true, decisionDeadLetter, 0},
		"permanent": {policy.DeadLetter{Class: work.NotFound, Attempt: 1, MaxAttempts: 1}.Reason(), false, decisionDeadLetter, 0},
		"wait":      {policy.Wait{Until: at.Add(time.Hour), Why: "provider quota exhausted"}.Reason(), true, decisionWait, time.Hour},
		"unknown":   {"?", false, decisionDeadLetter, 0},
	}
	for name, tc := range tests {
		kind, delay := parseDecision(LoggedFailure{Decision: tc.decision, Retryable: tc.retryable, OccurredAt: at})
		if kind != tc.kind || delay != tc.delay {
			t.Errorf("%s: %q → %s %s, want %s %s", name, tc.decision, kind, delay, tc.kind, tc.delay)
		}
	}
}
