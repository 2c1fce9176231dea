package main

import (
	"strings"
	"testing"

	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/work"
)

// TestResolveByIDSaysWhenTheScanWasCut: `dlq resolve ID` whose scan ended
// before the end of a DLQ has not shown that no dead letter matches: it
// says the scan was incomplete and fails, so the operator runs it again
// rather than taking the id for a typo.
func TestResolveByIDSaysWhenTheScanWasCut(t *testing.T) {
	t.Parallel()
	cut := replay.ResolveSummary{Scanned: 10_000, Incomplete: replay.Stages{work.LLM}}
	err := resolveVerdict(cut, []string{"d9"})
	if err == nil || !strings.Contains(err.Error(), "incomplete") || strings.Contains(err.Error(), "no dead letter matches d9") {
		t.Fatalf("verdict %v; want the incomplete scan named, not a missing dead letter", err)
	}
	if err := resolveVerdict(replay.ResolveSummary{Scanned: 3}, []string{"d9"}); err == nil || !strings.Contains(err.Error(), "no dead letter matches d9") {
		t.Fatalf("verdict %v on a whole scan; want no dead letter matches d9", err)
	}
	found := replay.ResolveSummary{Selected: 1, Resolved: 1, Items: []replay.Resolved{{ItemID: "d1", MessageID: "m1", Action: "resolved"}}}
	if err := resolveVerdict(found, []string{"d1"}); err != nil {
		t.Fatalf("verdict %v; want none", err)
	}
	if err := resolveVerdict(found, []string{"d1", "typo"}); err == nil || !strings.Contains(err.Error(), "typo") {
		t.Fatalf("verdict %v; want the id that matched nothing named", err)
	}
}

// TestItemsReplayOfAnUnknownIDFails: `items replay typo-id` is an error,
// as `dlq resolve typo-id` is: an id that matches nothing is no success.
func TestItemsReplayOfAnUnknownIDFails(t *testing.T) {
	t.Parallel()
	sum := replay.Summary{Selected: 2, Replayed: 1, Skipped: 1, Items: []replay.Outcome{
		{ItemID: "d1", Action: replay.Replayed},
		{ItemID: "typo-id", Action: replay.Skipped, Reason: replay.ReasonNoItem},
	}}
	err := replayVerdict(replay.Request{Source: replay.SourceItems, Filter: replay.Filter{ItemIDs: []string{"d1", "typo-id"}}}, sum)
	if err == nil || !strings.Contains(err.Error(), "typo-id") {
		t.Fatalf("verdict %v; want the unknown id an error", err)
	}
	sum.Items = sum.Items[:1]
	if err := replayVerdict(replay.Request{Source: replay.SourceItems, Filter: replay.Filter{ItemIDs: []string{"d1"}}}, sum); err != nil {
		t.Fatalf("verdict %v; want none", err)
	}
}

// TestDLQReplayOfAnUnknownItemFails: `dlq replay --item typo` selects no
// dead letter and fails naming the id, as `dlq resolve typo` does; when a
// DLQ was not read to the end, it says the dead letter may be in the part
// not read.
func TestDLQReplayOfAnUnknownItemFails(t *testing.T) {
	t.Parallel()
	req := replay.Request{Source: replay.SourceDLQ, Filter: replay.Filter{ItemIDs: []string{"d1", "typo-id"}}}
	sum := replay.Summary{Selected: 1, Replayed: 1, Items: []replay.Outcome{{ItemID: "d1", Action: replay.Replayed}}}
	err := replayVerdict(req, sum)
	if err == nil || !strings.Contains(err.Error(), "no dead letter matches typo-id") {
		t.Fatalf("verdict %v; want the unmatched id an error", err)
	}
	sum.Incomplete = replay.Stages{work.LLM}
	if err := replayVerdict(req, sum); err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Fatalf("verdict %v; want the cut scan named", err)
	}
	req.Filter.ItemIDs = []string{"d1"}
	if err := replayVerdict(req, sum); err != nil {
		t.Fatalf("verdict %v; want none", err)
	}
	if err := replayVerdict(replay.Request{Source: replay.SourceDLQ}, replay.Summary{}); err != nil {
		t.Fatalf("a replay by filter that selects nothing: verdict %v; want none", err)
	}
}
