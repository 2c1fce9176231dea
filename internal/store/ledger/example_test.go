package ledger_test

import (
	"os"
	"time"

	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

// An action task that failed once, was retried and carried out: its
// timeline from the item, the error log and the audit trail.
func ExampleTimeline_Write() {
	at := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	it := store.Item{ID: "task-1", Kind: store.KindAction, State: work.Done, Stage: work.Notify,
		Attempts: map[work.Stage]int{work.LLM: 1}, CreatedAt: at,
		Delivery: &work.WebhookDelivery{Status: 200, DeliveredAt: at.Add(2*time.Minute + 5*time.Second)}}
	log := []store.LogEntry{{ItemID: "task-1", Stage: work.LLM, Class: work.ActionFailed, Attempt: 1, OccurredAt: at.Add(2 * time.Second),
		Decision: policy.Retry{Delay: 2 * time.Minute, Attempt: 1, MaxAttempts: 3, Class: work.ActionFailed, Backoff: "fixed 2m0s"}.Reason()}}
	trail := []ledger.Entry{
		{Execution: &ledger.Execution{ItemID: "task-1", Stage: work.LLM, Attempt: 1, StartedAt: at.Add(time.Second), Duration: 900 * time.Millisecond,
			Outcome: ledger.OutcomeFailed, Class: work.ActionFailed, Reason: "the ticket is locked", Model: "openai:gpt-4o-mini"}},
		{Notice: &ledger.Notice{ItemID: "task-1", Event: "item.retry_scheduled", Stage: work.LLM, Attempt: 1, State: ledger.NoticeDelivered,
			Attempts: 1, Status: 200, FirstAt: at.Add(3 * time.Second)}},
		{Execution: &ledger.Execution{ItemID: "task-1", Stage: work.LLM, Attempt: 2, StartedAt: at.Add(2*time.Minute + 2*time.Second),
			Duration: 1100 * time.Millisecond, Outcome: ledger.OutcomeSuccess, Model: "openai:gpt-4o-mini"}},
	}
	_ = ledger.BuildTimeline(it, log, trail).Write(os.Stdout, nil)
	// Output:
	// STAGE   STATUS     ATTEMPTS  FAILURES  WAITS  PARKS  EXECUTIONS
	// fetch   succeeded  1         0         0      0      0
	// llm     succeeded  2         1         0      0      2
	// notify  succeeded  1         0         0      0      0
	//
	// TIME                      STAGE   EVENT      ATTEMPT  DETAIL
	// 2026-11-21 06:00:00.000Z  fetch   created    -        created from its spec (action)
	// 2026-11-21 06:00:01.000Z  llm     execution  1        action failed: the ticket is locked (openai:gpt-4o-mini, 900ms)
	// 2026-11-21 06:00:02.000Z  llm     retry      1        ACTION_FAILED is retryable: attempt 1 of 3, retry in 2m0s (fixed 2m0s) → 2026-11-21 06:02:02.000Z
	// 2026-11-21 06:00:03.000Z  llm     notice     1        item.retry_scheduled delivered after 1 attempt (HTTP 200)
	// 2026-11-21 06:02:02.000Z  llm     execution  2        action success (openai:gpt-4o-mini, 1.1s)
	// 2026-11-21 06:02:05.000Z  notify  delivered  -        result delivered to the webhook (HTTP 200)
}
