package notice_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/upstream/notice"
	"github.com/triagehq/triage/internal/work"
)

// A notice whose deliveries crashed mid-attempt (each claim's lease ran
// out with no outcome) is given up at the ledger's bound before any work:
// the owner was not told, so it is logged and counted as every abandoned
// notice is (docs/design.md "Telling the owner").
func TestCrashLoopAbandonmentIsLoggedAndCounted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var logs bytes.Buffer
	b.h.Log = slog.New(slog.NewJSONHandler(&logs, nil))
	for i := range notice.DefaultMaxAttempts {
		// A delivery that claims, posts and dies before settling.
		if _, err := b.ledger.ClaimNotice(context.Background(), ledger.NoticeClaim{ItemID: "task-1", Key: b.n.ID,
			Event: string(b.n.Event), Owner: "m1#" + strconv.Itoa(i+1), Carrier: "m1", Now: b.clock.Now(), LeaseFor: time.Second}); err != nil {
			t.Fatal(err)
		}
		b.clock.Advance(2 * time.Second)
	}
	if kept, _ := b.deliver(t, "m1", notice.DefaultMaxAttempts+1); kept || b.poster.count() != 0 {
		t.Fatalf("kept %v after %d posts, want given up without posting", kept, b.poster.count())
	}
	if n := b.state(t); n.State != ledger.NoticeAbandoned {
		t.Fatalf("ledger %+v", n)
	}
	if n := b.metrics.Of(notice.MetricAbandoned, work.InternalBug); n != 1 {
		t.Fatalf("%s counted %d times, want 1", notice.MetricAbandoned, n)
	}
	if !strings.Contains(logs.String(), "notice abandoned") {
		t.Fatalf("logs:\n%s\nwant the abandonment logged", logs.String())
	}
}
