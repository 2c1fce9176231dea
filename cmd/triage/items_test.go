package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// TestItemsGetTimelineMoto writes an action task's history the way the
// functions do — the item, its error log, its executions and its notice's
// ledger — and reads it back with `triage items get`.
func TestItemsGetTimelineMoto(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	env := localtest.Stack(t, nil)
	st := env.Stack
	db := dynamodb.NewFromConfig(env.AWS)
	e := &opsEnv{url: env.Endpoint, stack: st.Name, st: st}
	t0 := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Millisecond)
	retryAt := t0.Add(2 * time.Minute)
	items := &store.Items{DB: db, Table: st.ItemsTable()}
	if err := items.Put(ctx, store.Item{ID: "task", Kind: store.KindAction, CorrelationID: "c", Status: work.Fetched,
		State: work.Deadletter, Stage: work.LLM, Attempts: map[work.Stage]int{work.LLM: 2},
		Notices:   &store.Notices{Failed: true, RetryScheduled: true},
		CreatedAt: t0.Add(-time.Minute), UpdatedAt: retryAt,
		DeadLetter: &store.DeadLetterRef{ID: "dl-1", Stage: work.LLM, Class: work.ActionFailed, At: retryAt.Add(2 * time.Second)}}); err != nil {
		t.Fatal(err)
	}
	log := &store.ErrorLog{DB: db, Table: st.ErrorLogTable()}
	for _, le := range []store.LogEntry{
		{ItemID: "task", Stage: work.LLM, Class: work.ActionFailed, Attempt: 1, MessageID: "m1", OccurredAt: t0,
			Decision: policy.Retry{Delay: 2 * time.Minute, Attempt: 1, MaxAttempts: 2, Class: work.ActionFailed, Backoff: "fixed"}.Reason()},
		{ItemID: "task", Stage: work.LLM, Class: work.ActionFailed, Attempt: 2, MessageID: "m1", OccurredAt: retryAt.Add(time.Second),
			Decision: policy.DeadLetter{Exhausted: true, Attempt: 2, MaxAttempts: 2, Class: work.ActionFailed}.Reason()},
	} {
		if err := log.Append(ctx, le); err != nil {
			t.Fatal(err)
		}
	}
	trail := &ledger.Trail{DB: db, Table: st.AuditTable()}
	for i, at := range []time.Time{t0.Add(-time.Second), retryAt} {
		if err := trail.Record(ctx, ledger.Execution{ItemID: "task", Stage: work.LLM, Attempt: i + 1, Delivery: "m1#" + string(rune('1'+i)),
			StartedAt: at, Duration: 800 * time.Millisecond, Outcome: ledger.OutcomeFailed, Class: work.ActionFailed,
			Reason: "the ticket is locked", Model: "openai:gpt-4o-mini"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := trail.ClaimNotice(ctx, ledger.NoticeClaim{ItemID: "task", Key: "task:item.failed:0", Event: "item.failed", Stage: work.LLM,
		Class: work.ActionFailed, Attempt: 2, Owner: "n1#1", Carrier: "n1", Now: retryAt.Add(3 * time.Second), LeaseFor: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := trail.SettleNotice(ctx, ledger.NoticeSettle{ItemID: "task", Key: "task:item.failed:0", Owner: "n1#1",
		Now: retryAt.Add(4 * time.Second), State: ledger.NoticeDelivered, Status: 200}); err != nil {
		t.Fatal(err)
	}

	v := decode[ops.ItemView](t, e.cli(t, "items", "get", "task", "--json"))
	if v.Timeline == nil || len(v.TimelineGaps) != 0 || !v.Notices.Failed || !v.Notices.RetryScheduled {
		t.Fatalf("items get --json: %+v", v)
	}
	var kinds []ledger.EventKind
	for _, ev := range v.Timeline.Events {
		kinds = append(kinds, ev.Kind)
	}
	want := []ledger.EventKind{ledger.KindCreated, ledger.KindExecution, ledger.KindRetry, ledger.KindExecution, ledger.KindFailed,
		ledger.KindDeadLetter, ledger.KindNotice}
	if len(kinds) != len(want) {
		t.Fatalf("timeline %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("timeline %v, want %v", kinds, want)
		}
	}
	out := e.cli(t, "items", "get", "task")
	for _, w := range []string{"notices", "item.failed, item.retry_scheduled", "timeline", "dead-lettered", "action failed: the ticket is locked",
		"item.failed delivered after 1 attempt (HTTP 200)", "ACTION_FAILED is retryable"} {
		if !strings.Contains(out, w) {
			t.Errorf("items get lacks %q:\n%s", w, out)
		}
	}
	// Without the stack, the item alone, and the timeline says what it lacks.
	code, out, errOut := runCLI("items", "get", "task", "--endpoint", e.url, "--region", "us-east-1", "--items-table", st.ItemsTable())
	if code != 0 || !strings.Contains(out, "(timeline without the error log") || !strings.Contains(out, "(timeline without the audit trail") {
		t.Fatalf("items get without the stack: %d\n%s\n%s", code, out, errOut)
	}
}

// TestFailureFiguresSayWhatTheyCount: an item whose last success came
// after its failures says it has none since, and when the last one was —
// never "first -, last <time>" beside a count of 0.
func TestFailureFiguresSayWhatTheyCount(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		v              ops.ItemView
		count, failure string
	}{
		"never failed": {ops.ItemView{}, "0", "none"},
		"failing":      {ops.ItemView{FailureCount: 2, FirstFailureAt: at, LastFailureAt: at.Add(time.Minute)}, "2", "first 2026-11-21"},
		"succeeded since": {ops.ItemView{LastFailureAt: at}, "0 since the last success",
			"none since the last success (the last at 2026-11-21"},
	}
	for name, tc := range tests {
		if got := failureCountText(tc.v); got != tc.count {
			t.Errorf("%s: failure_count %q, want %q", name, got, tc.count)
		}
		if got := failuresText(tc.v); !strings.HasPrefix(got, tc.failure) {
			t.Errorf("%s: failures %q, want %q…", name, got, tc.failure)
		}
	}
}

// TestItemsListPagesAndCounts: `items list` lists the newest items of
// every state through the index, says how many there are when --limit cuts
// the list, lists them all with --all, and counts a filtered list by
// reading it.
func TestItemsListPagesAndCounts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	env := localtest.Stack(t, nil)
	items := &store.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.ItemsTable()}
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	states := []work.State{work.Done, work.Done, work.Done, work.Done, work.Queued, work.Working, work.Deadletter}
	for i, st := range states {
		it := store.Item{ID: fmt.Sprintf("l%d", i), Kind: store.KindStory, CorrelationID: "c", State: st, Stage: work.Notify,
			UpdatedAt: at.Add(time.Duration(i) * time.Second)}
		if st == work.Deadletter {
			it.LastError, it.LastFailureAt = &store.LastError{ErrorClass: work.NotFound}, at
		}
		if err := items.Put(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	list := func(args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runCLI(append([]string{"items", "list", "--endpoint", env.Endpoint, "--region", "us-east-1",
			"--stack", env.Stack.Name}, args...)...)
		if code != 0 {
			t.Fatalf("items list %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out, errOut
	}
	rows := func(out string) []string {
		var ids []string
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "l") {
				ids = append(ids, f[0])
			}
		}
		return ids
	}
	out, _ := list("--limit", "3")
	if got := rows(out); strings.Join(got, " ") != "l6 l5 l4" || !strings.Contains(out, "showing 3 of 7 items, newest first") {
		t.Fatalf("the newest 3: %v\n%s", got, out)
	}
	out, _ = list("--all")
	if got := rows(out); len(got) != 7 || !strings.HasSuffix(strings.TrimSpace(out), "7 items") {
		t.Fatalf("--all: %v\n%s", got, out)
	}
	out, _ = list("--state", "done", "--limit", "2")
	if !strings.Contains(out, "showing 2 of 4 items") {
		t.Fatalf("done, 2 of them:\n%s", out)
	}
	out, _ = list("--state", "done")
	if strings.Contains(out, "showing") || !strings.HasSuffix(strings.TrimSpace(out), "4 items") {
		t.Fatalf("every done item within the default limit:\n%s", out)
	}
	out, errOut := list("--class", "NOT_FOUND", "--limit", "1", "--json")
	if v := decode[[]ops.ItemView](t, out); len(v) != 1 || v[0].ID != "l6" || strings.Contains(errOut, "showing") {
		t.Fatalf("the one NOT_FOUND item: %+v %s", v, errOut)
	}
	if code, _, errOut := runCLI("items", "list", "--all", "--limit", "5", "--items-table", "x"); code != 2 || !strings.Contains(errOut, "not both") {
		t.Fatalf("--all and --limit: %d %s", code, errOut)
	}
}

// TestItemsListJSONSaysWhenCut: a --json list cut at its --limit prints the
// items alone on stdout and says how many there are on stderr. (Not
// parallel: it reads the process's note output.)
func TestItemsListJSONSaysWhenCut(t *testing.T) {
	env := localtest.Stack(t, nil)
	items := &store.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: env.Stack.ItemsTable()}
	for i := range 3 {
		if err := items.Put(t.Context(), store.Item{ID: fmt.Sprintf("j%d", i), Kind: store.KindStory, CorrelationID: "c", State: work.Done,
			Stage: work.Notify, UpdatedAt: time.Now().Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	var notes bytes.Buffer
	old := noteOutput
	noteOutput = &notes
	defer func() { noteOutput = old }()
	code, out, errOut := runCLI("items", "list", "--state", "done", "--limit", "2", "--json", "--endpoint", env.Endpoint,
		"--region", "us-east-1", "--stack", env.Stack.Name)
	if v := decode[[]ops.ItemView](t, out); code != 0 || len(v) != 2 || !strings.Contains(notes.String(), "showing 2 of 3 items") {
		t.Fatalf("exit %d, %d items, notes %q %s", code, len(v), notes.String(), errOut)
	}
}

// TestItemsGetTextEscapesControlCharacters: the fetched document is an
// upstream's page, and --text prints it to the operator's terminal; an
// escape sequence in it (OSC 52 writes the clipboard) or a carriage
// return that rewrites a line is printed escaped, its lines kept.
func TestItemsGetTextEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	st := env.Stack
	e := &opsEnv{url: env.Endpoint, stack: st.Name, st: st}
	items := &store.Items{DB: dynamodb.NewFromConfig(env.AWS), Table: st.ItemsTable()}
	text := "Headline\nbody \x1b]52;c;Y3VybCBldmlsfHNo\x07 and\rfake line"
	if err := items.Put(t.Context(), store.Item{ID: "doc", Kind: store.KindStory, CorrelationID: "c", Status: work.Fetched,
		State: work.Queued, Stage: work.LLM, UpdatedAt: time.Now().UTC(),
		Document: &work.Document{Text: text, Bytes: len(text), ContentType: "text/html", FetchedAt: time.Now().UTC()}}); err != nil {
		t.Fatal(err)
	}
	out := e.cli(t, "items", "get", "doc", "--text")
	if strings.ContainsAny(out, "\x1b\x07\r") {
		t.Fatalf("items get --text prints raw control characters:\n%q", out)
	}
	if !strings.Contains(out, "Headline\nbody \\x1b]52;c;") || !strings.Contains(out, "and\\rfake line") {
		t.Fatalf("items get --text lacks the document, escaped, its lines kept:\n%q", out)
	}
}
