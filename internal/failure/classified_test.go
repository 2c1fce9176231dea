package failure_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// TestMarkCarriesTheClassification: a marked failure answers Classify with
// the classification it was marked with — through wraps and details — and
// unmarked ones are classified as Classify would.
func TestMarkCarriesTheClassification(t *testing.T) {
	t.Parallel()
	quota := &failure.HTTPError{Provider: failure.OpenAI, Status: http.StatusTooManyRequests,
		Header: http.Header{"Retry-After": {"30"}},
		Body:   []byte(`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)}
	marked := failure.Mark(quota)
	want := failure.Classify(quota)
	tests := map[string]struct {
		err  error
		want work.Class
	}{
		"marked":                     {err: marked, want: want.Class},
		"marked, then detailed":      {err: failure.WithDetail(marked, "model", "openai:gpt-4o"), want: want.Class},
		"marked, then wrapped":       {err: fmt.Errorf("llm: %w", marked), want: want.Class},
		"unmarked":                   {err: quota, want: want.Class},
		"an own class around a mark": {err: failure.Wrap(work.InternalBug, marked, "misconfigured"), want: work.InternalBug},
		"a joined chain":             {err: errors.Join(marked, failure.New(work.SchemaInvalid, "x")), want: failure.Classify(errors.Join(quota, failure.New(work.SchemaInvalid, "x"))).Class},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := failure.Classify(tc.err).Class; got != tc.want {
				t.Errorf("Classify = %s, want %s", got, tc.want)
			}
		})
	}
	if got := failure.Classify(marked); got.Reason != want.Reason || got.Requested != want.Requested || got.Status != want.Status {
		t.Errorf("carried %+v, want %+v", got, want)
	}
	if marked.Error() != quota.Error() {
		t.Errorf("Mark changed the text: %q", marked.Error())
	}
	var he *failure.HTTPError
	if !errors.As(marked, &he) || he != quota {
		t.Error("the marked failure does not unwrap to the original")
	}
}

// TestMarkLeavesAlone: nil, waits and already-marked failures are returned
// as they are; a carried classification is not recomputed.
func TestMarkLeavesAlone(t *testing.T) {
	t.Parallel()
	if failure.Mark(nil) != nil {
		t.Error("Mark(nil) != nil")
	}
	wait := &failure.WaitError{Until: time.Unix(0, 0), Reason: "breaker open"}
	if got := failure.Mark(wait); got != error(wait) {
		t.Errorf("Mark(wait) = %v", got)
	}
	// A hand-made carrier whose classification differs from what Classify
	// would say shows that nothing classifies it again.
	own := &failure.Classified{Err: errors.New("connection reset by peer"), Classification: failure.Of(work.ContentPolicy, "test")}
	if got := failure.Mark(own); got != error(own) {
		t.Error("Mark wrapped a marked failure again")
	}
	if got := failure.Classify(fmt.Errorf("x: %w", own)).Class; got != work.ContentPolicy {
		t.Errorf("Classify = %s, want the carried CONTENT_POLICY", got)
	}
}
