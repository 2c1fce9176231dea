package simulate

import (
	"bytes"
	"compress/gzip"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// happyScenario is a fault-free run of n items at rate with documents of
// documentBytes.
func happyScenario(t *testing.T, n int, rate float64, documentBytes int) *Scenario {
	t.Helper()
	sc := &Scenario{Name: "happy", Seed: 3, Items: n, Arrival: Arrival{Pattern: ArrivalUniform, RatePerSecond: rate},
		DocumentBytes: documentBytes}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

func runStandard(t *testing.T, sc *Scenario) *Result {
	t.Helper()
	p, _ := LookupPolicy("standard")
	r, err := Run(context.Background(), sc, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Anomalies) > 0 || r.Completed != sc.Items {
		t.Fatalf("%d of %d completed; anomalies %v", r.Completed, sc.Items, r.Anomalies)
	}
	return r
}

// TestStateItemStaysUnderOneKB: the state item the simulator bills is the
// real encoder's, and under 1 KB at every step (one WRU a write), the lease
// included.
func TestStateItemStaysUnderOneKB(t *testing.T) {
	t.Parallel()
	s := triageSizes()
	done := s.created + s.document + s.enrich + s.delivery
	working := s.created + s.document + s.enrich + s.lease
	if s.created < 300 || done > 1024 || working > 1024 || s.failure < 200 {
		t.Fatalf("sizes %+v: done %d, notify working %d bytes; want under 1 KB", s, done, working)
	}
}

// TestBodiesAreCountedWhereTheyGo: a fault-free run writes each body once
// — a document above the threshold one S3 PUT and one GET, below it a
// sibling item in the success transaction and one read — and every stage's
// happy path is two DynamoDB writes.
func TestBodiesAreCountedWhereTheyGo(t *testing.T) {
	t.Parallel()
	const n = 200
	for _, c := range []struct {
		doc       int
		puts      int64
		bodyW     int64
		transacts int64
	}{
		{doc: 100_000, puts: n, bodyW: n, transacts: n},          // the document in S3, the enrichment a sibling
		{doc: 500, puts: 0, bodyW: 2 * n, transacts: 2 * n},      // both siblings
		{doc: store.DefaultBodyThreshold, puts: 0, bodyW: 2 * n}, // at the threshold: a sibling
	} {
		r := runStandard(t, happyScenario(t, n, 20, c.doc))
		u := r.Usage
		if u.S3Requests["PutObject"] != c.puts || u.S3Requests["GetObject"] != c.puts || u.BodyItemWrites != c.bodyW ||
			u.BodyItemReads != c.bodyW {
			t.Errorf("%d-byte documents: S3 %v, body items %d written %d read; want %d puts and gets, %d body items",
				c.doc, u.S3Requests, u.BodyItemWrites, u.BodyItemReads, c.puts, c.bodyW)
		}
		if c.transacts > 0 && u.DynamoDBRequests["TransactWriteItems"] != c.transacts {
			t.Errorf("%d-byte documents: %d transactions, want %d", c.doc, u.DynamoDBRequests["TransactWriteItems"], c.transacts)
		}
		// Per item: the producer's PutItem, then a claim and one success
		// write per stage; the budget's leases and the health and breaker
		// records are per instance, not per item.
		perStage := float64(u.DynamoDBRequests["UpdateItem"]+u.DynamoDBRequests["TransactWriteItems"]) / n / 3
		if perStage > 2.1 {
			t.Errorf("%d-byte documents: %.2f DynamoDB writes per stage, want at most 2 (and a little budget)", c.doc, perStage)
		}
	}
}

// TestKeyMeter: units add up per key and second, the busiest key-second
// wins whatever order seconds close in, and requests past a key's limit are
// throttles.
func TestKeyMeter(t *testing.T) {
	t.Parallel()
	var k keyMeter
	sec := int64(time.Second)
	for i := range 1200 {
		k.add("budget/d", 1, 0, 5*sec+int64(i))
	}
	k.add("items/a", 3, 1, 2*sec)
	k.add("models/m", 0, 2999, 3*sec)
	k.add("models/m", 0, 2, 3*sec+1)
	k.advance(4 * sec)
	k.add("budget/d", 1, 0, 6*sec)
	l := k.loads()
	if l.Hottest.Key != "budget/d" || l.Hottest.WriteUnits != 1200 || l.Hottest.Second != 5 {
		t.Fatalf("hottest %+v", l.Hottest)
	}
	if l.ThrottledWrites != 200 || l.ThrottledReads != 1 {
		t.Fatalf("throttled %d writes, %d reads; want 200 and 1", l.ThrottledWrites, l.ThrottledReads)
	}
	if m := l.ByTable["models"]; m.ReadUnits != 3001 || l.ByTable["items"].WriteUnits != 3 {
		t.Fatalf("by table %+v", l.ByTable)
	}
}

// TestMappingsScaleLikeLambda: from cold, a stage's event source mapping
// starts at 5 invocations and adds 300 a minute while messages wait; a
// burst of work therefore queues for a while, and the account's limit caps
// every function together.
func TestMappingsScaleLikeLambda(t *testing.T) {
	t.Parallel()
	sc := happyScenario(t, 3000, 200, 1000)
	sc.Arrival.Pattern = ArrivalBurst
	for _, st := range work.Stages() {
		sc.Stages[st].Concurrency = 500
	}
	sc.Lambda.AccountConcurrency = 60
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	r := runStandard(t, sc)
	if r.Lambda.Peak > 60 || r.Lambda.AccountThrottled == 0 {
		t.Errorf("account limit 60: peak %d, %d throttled starts", r.Lambda.Peak, r.Lambda.AccountThrottled)
	}
	cold := r.CompletionP50
	sc.Lambda.Warm, sc.Lambda.AccountConcurrency = true, 2000
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	warm := runStandard(t, sc)
	if warm.Lambda.Peak <= r.Lambda.Peak || warm.CompletionP50 >= cold {
		t.Errorf("warm mappings: peak %d, p50 %s; cold: peak %d, p50 %s — want warm faster", warm.Lambda.Peak,
			warm.CompletionP50.D(), r.Lambda.Peak, cold.D())
	}
}

// TestNoHotKeyAtScale runs a short stretch at 1,000 items a second with
// the standard mix's faults: no DynamoDB key comes near its partition's
// limit. (docs/scale.md has the full runs, at up to 10,000.)
func TestNoHotKeyAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("a scale run")
	}
	t.Parallel()
	base, err := Load("../../scenarios/standard-mix.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ScaleScenario(base, ScaleFor(base, 1000, 20))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := LookupPolicy("standard")
	r, err := Run(context.Background(), sc, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Keys.Hottest; h.Share() > 0.5 || r.Keys.ThrottledWrites+r.Keys.ThrottledReads > 0 {
		t.Fatalf("hottest key %+v at %.0f%% of its limit, %d throttled", h, 100*h.Share(), r.Keys.ThrottledWrites+r.Keys.ThrottledReads)
	}
	t.Logf("at 1,000 items/s the hottest key is %s at %.1f%% of its limit", r.Keys.Hottest.Key, 100*r.Keys.Hottest.Share())
}

// TestGzipRatiosOfProse re-measures the compression the simulator assumes
// for documents on this repository's English prose.
func TestGzipRatiosOfProse(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("docs: %v", err)
	}
	var text strings.Builder
	for _, f := range append(files, "../../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text.Write(b)
	}
	all := strings.NewReplacer("|", "", "#", "", "*", "", "`", "").Replace(text.String())
	for _, g := range gzipRatios {
		var sum float64
		n := 0
		for off := 0; off+g.bytes <= len(all) && n < 8; off += max(g.bytes, 8000) {
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			_, _ = w.Write([]byte(all[off : off+g.bytes]))
			_ = w.Close()
			sum += float64(buf.Len()) / float64(g.bytes)
			n++
		}
		if got := sum / float64(n); math.Abs(got-g.ratio) > 0.08 {
			t.Errorf("%d bytes of prose compress to %.2f, the simulator assumes %.2f", g.bytes, got, g.ratio)
		}
	}
}
