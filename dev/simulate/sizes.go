package simulate

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// stateSizes are the sizes of triage's state item at each step of its life,
// measured once from the real encoder (store.StoredSize) on an item with
// production-sized fields: a 36-character id, 80-character source and
// webhook URLs, a 40-character correlation id, a 36-character SQS message
// id, created by the fetch stage from the producer's message (its create
// token names the message). The document and the enrichment are references (work.BodyRef), so
// these sizes do not depend on the document's size.
type stateSizes struct {
	created  int // queued for fetch, nothing done
	lease    int // added while a stage holds the item (lease owner, until, carrier)
	document int // the document's reference, from fetch on
	enrich   int // the enrichment's reference, from llm on
	delivery int // notify's delivery
	failure  int // a last_error and the failure times
}

var triageSizes = sync.OnceValue(measureStateSizes)

func measureStateSizes() stateSizes {
	ctx := context.Background()
	m := store.NewMemory()
	id := "5f0c2a8e-3b1d-4e6f-9a7c-0e6d5c4b3a29"
	msg := "0d9a1c3e-5b7f-4a2d-9e8c-1f2a3b4c5d6e"
	now := Epoch
	size := func() int {
		it, _ := m.Get(ctx, id)
		n, _ := store.StoredSize(it)
		return n
	}
	_, _ = m.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "req-" + msg,
		SourceURL:  "https://www.example-news.com/2026/11/21/world/" + strings.Repeat("a", 80-len("https://www.example-news.com/2026/11/21/world/")),
		WebhookURL: "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/" + strings.Repeat("w", 80-len("https://hooks.slack.com/services/T0123ABCD/B0456EFGH/")),
		Owner:      msg + "#1", Now: now}) // the fetch stage creates it from the producer's message
	var s stateSizes
	s.created = size()
	claim := func(st work.Stage) {
		_, _ = m.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: msg + "#1", Carrier: msg, Now: now, LeaseFor: time.Minute})
	}
	claim(work.Fetch)
	s.lease = size() - s.created
	_ = m.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Fetch, Owner: msg + "#1", Now: now,
		Output: work.Output{Document: &work.Document{Text: "text", Bytes: 5000, ContentType: "text/html", FetchedAt: now}}})
	fetched := size()
	s.document = fetched - s.created
	claim(work.LLM)
	_ = m.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.LLM, Owner: msg + "#1", Now: now,
		Output: work.Output{Enrichment: &simEnrichment}})
	enriched := size()
	s.enrich = enriched - fetched
	claim(work.Notify)
	_, _ = m.Fail(ctx, store.FailRequest{ItemID: id, Stage: work.Notify, Owner: msg + "#1", Now: now, Counts: true,
		Next: work.Retryable, NotBefore: now, LastError: store.LastError{Component: work.Notify,
			ErrorClass: work.UpstreamUnavailable, FailedAt: now, CorrelationID: "req-" + msg, RetryCount: 1, Retryable: true,
			MaxRetries: 5, RetryAt: &now, ErrorType: "*failure.HTTPError", Error: "POST webhook: HTTP 503 Service Unavailable: " +
				"upstream connect error or disconnect/reset before headers. reset reason: connection termination",
			Details: map[string]string{"host": "hooks.slack.com", "upstream_status": "503", "request_id": "req_" + msg}}})
	s.failure = size() - enriched
	claim(work.Notify)
	_ = m.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: work.Notify, Owner: msg + "#1", Now: now,
		Output: work.Output{Delivery: &work.WebhookDelivery{Status: 200, IdempotencyKey: id + ":notify", DeliveredAt: now}}})
	// The success removes last_error; last_failure_at stays, and is
	// counted with the delivery.
	s.delivery = size() - enriched
	return s
}
