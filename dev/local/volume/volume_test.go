package volume

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/work"
)

// TestTrackerReadsTheFunctionsLogs: the stage successes and dead letters
// the functions log are what the run counts; a duplicate line (a
// redelivery's) counts once, and other lines are warnings by message.
func TestTrackerReadsTheFunctionsLogs(t *testing.T) {
	t.Parallel()
	tr := newTracker(3)
	t0 := time.Now()
	tr.begin(t0)
	tr.submitted([]string{"a", "b", "c"}, t0)
	lines := []string{
		`{"level":"INFO","msg":"stage succeeded","item_id":"a","stage":"fetch"}`,
		`{"level":"INFO","msg":"stage succeeded","item_id":"a","stage":"llm"}`,
		`{"level":"INFO","msg":"stage succeeded","item_id":"a","stage":"notify"}`,
		`{"level":"INFO","msg":"stage succeeded","item_id":"a","stage":"notify"}`, // a duplicate delivery's
		`{"level":"ERROR","msg":"dead-lettered","item_id":"b","stage":"fetch"}`,
		`{"level":"WARN","msg":"failure: will retry","item_id":"c","stage":"fetch"}`,
		`not json at all`,
		`{"level":"INFO","msg":"stage succeeded","stage":"fetch"}`, // no item
	}
	for _, l := range lines {
		tr.observe("FetchFunc", l)
	}
	if d, dl := tr.counts(); d != 1 || dl != 1 {
		t.Fatalf("counts = %d done, %d dead-lettered; want 1, 1", d, dl)
	}
	if tr.finished() {
		t.Fatal("finished with c still retrying")
	}
	tr.observe("NotifyFunc", `{"level":"INFO","msg":"stage succeeded","item_id":"c","stage":"notify"}`)
	select {
	case <-tr.done:
	default:
		t.Fatal("not finished after the third item's notify")
	}
	var r Report
	tr.summarize(&r)
	if r.Stages[work.Notify].N != 2 || r.Stages[work.Fetch].N != 1 || r.Terminal.N != 3 {
		t.Errorf("latencies %+v, terminal %+v", r.Stages, r.Terminal)
	}
	if r.Failures["failure: will retry"] != 1 || r.Failures["dead-lettered"] != 0 {
		t.Errorf("warnings %v", r.Failures)
	}
}

func TestLatencyQuantiles(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	from, at := map[string]time.Time{}, map[string]time.Time{}
	for i := range 100 {
		id := string(rune('A'+i%26)) + string(rune('a'+i/26))
		from[id] = t0
		at[id] = t0.Add(time.Duration(i+1) * time.Second)
	}
	at["not submitted"] = t0
	l := latency(at, from)
	if l.N != 100 || l.P50 != 51*time.Second || l.P99 != 100*time.Second || l.Max != 100*time.Second {
		t.Errorf("latency = %+v", l)
	}
	if (latency(nil, from) != Latency{}) {
		t.Error("no events: want the zero Latency")
	}
}

func TestCheckNamesEveryMissedTarget(t *testing.T) {
	t.Parallel()
	ok := &Report{Items: 10, Done: 9, DeadLettered: 1, Elapsed: time.Minute, MotoPeakRSS: 300 << 20, MotoEndRSS: 290 << 20,
		MotoIdleFrom: 295 << 20, MotoIdleRSS: 300 << 20, IdleFor: time.Minute}
	if err := ok.Check(5 * time.Minute); err != nil {
		t.Errorf("a run within every target: %v", err)
	}
	bad := *ok
	bad.Done, bad.Elapsed, bad.TimedOut, bad.Orphans, bad.MotoPeakRSS, bad.MotoIdleRSS = 5, 6*time.Minute, true,
		[]string{"x (queued)"}, 2<<30, 2<<30
	err := bad.Check(5 * time.Minute)
	for _, want := range []string{"6 of 10", "over the 5m0s deadline", "1 orphans", "peaked at 2048 MiB", "in 1m0s idle"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check = %v; want it to say %q", err, want)
		}
	}
}

func TestWriteDocReplacesTheSection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "performance.md")
	if err := os.WriteFile(path, []byte("# Perf\n\nbefore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Report{Items: 2, SQS: moto.SQSLocal, DynamoDB: moto.DynamoDBLocal, Started: time.Unix(0, 0), Submitted: 2, SubmitTime: time.Second, Done: 2,
		Elapsed: 2 * time.Second, ItemsPerSec: 1, Requests: map[string]int64{"DynamoDB_20120810.UpdateItem": 8}}
	for range 2 { // twice: the second replaces the first
		if err := WriteDoc(path, Markdown([]*Report{r}, "triage-local volume --items 2")); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	if strings.Count(doc, beginMarker) != 1 || strings.Count(doc, endMarker) != 1 || !strings.HasPrefix(doc, "# Perf\n\nbefore\n") ||
		!strings.Contains(doc, "| `DynamoDB_20120810.UpdateItem` | 8 |") || !strings.Contains(doc, "local SQS, local DynamoDB, 2 items") {
		t.Errorf("doc:\n%s", doc)
	}
	if err := WriteDoc(filepath.Join(t.TempDir(), "missing.md"), "x"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteDoc of a missing file: %v", err)
	}
}
