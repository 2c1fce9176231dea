package ops_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/triagehq/triage/cmd/triage/ops"
	"github.com/triagehq/triage/shared/audit"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestViewItemRedactsTheURLs(t *testing.T) {
	t.Parallel()
	v := ops.ViewItem(state.Item{ID: "a", SourceURL: "https://news.example/a?token=tok_Secr3tToken0987654321",
		WebhookURL: "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx"})
	for _, s := range []string{"tok_Secr3tToken0987654321", "abcdefghijklmnopqrstuvwx"} {
		if strings.Contains(v.SourceURL+v.WebhookURL, s) {
			t.Errorf("the view shows %q: %s %s", s, v.SourceURL, v.WebhookURL)
		}
	}
	if v.Attempts == nil || len(v.Attempts) != len(pipeline.Stages()) || v.Replays == nil || v.Notes == nil {
		t.Errorf("attempts %v, replays %v, notes %v: want every stage and empty lists", v.Attempts, v.Replays, v.Notes)
	}
}

type failingLog struct{}

func (failingLog) ForItem(context.Context, string, int) ([]state.LogEntry, error) {
	return nil, errors.New("dial tcp 127.0.0.1:1: connection refused")
}

type log []state.LogEntry

func (l log) ForItem(context.Context, string, int) ([]state.LogEntry, error) { return l, nil }

func TestTimelineNamesItsGaps(t *testing.T) {
	t.Parallel()
	it := state.Item{ID: "a", State: state.Deadletter, Stage: pipeline.Fetch, CreatedAt: t0, UpdatedAt: t0,
		DeadLetter: &state.DeadLetterRef{ID: "dl", Stage: pipeline.Fetch, Class: failure.NotFound, At: t0}}
	tests := map[string]struct {
		src  ops.TimelineSources
		gaps []string
	}{
		"no tables": {ops.TimelineSources{LogMissing: "pass --errorlog-table", TrailMissing: "pass --audit-table"},
			[]string{"the error log: pass --errorlog-table", "the audit trail: pass --audit-table"}},
		"unreadable log": {ops.TimelineSources{Log: failingLog{}, Trail: audit.NewMemory(),
			Explain: func(err error) error { return errors.New("cannot reach the stack: " + err.Error()) }},
			[]string{"the error log: cannot reach the stack: dial tcp 127.0.0.1:1: connection refused"}},
		"both": {ops.TimelineSources{Log: log{{ItemID: "a", Stage: pipeline.Fetch, Class: failure.NotFound, Attempt: 1, OccurredAt: t0}},
			Trail: audit.NewMemory()}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl, gaps := ops.Timeline(context.Background(), it, tc.src)
			if strings.Join(gaps, "|") != strings.Join(tc.gaps, "|") {
				t.Errorf("gaps %q, want %q", gaps, tc.gaps)
			}
			if tl == nil || len(tl.Stages) != len(pipeline.Stages()) {
				t.Fatalf("timeline %+v", tl)
			}
		})
	}
}
