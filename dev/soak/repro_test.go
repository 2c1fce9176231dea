package soak

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// TestWriteAfterLostResponseAndFailedRead pins a case the soak finds (seed 1:
// item-0068 and item-0035; the short soak: item-0021). A write after the
// claim — Complete, Fail, Release — is applied by DynamoDB but its response
// is lost; the SDK's retry fails the condition its own first attempt
// changed; and every read of the item fails. Were the store to call that
// ErrConflict, a lost race that never happened, the runner would acknowledge
// the record ("lease lost before … was recorded; the other delivery owns the
// item"): after Complete the item would be queued for the next stage with no
// message sent, after Fail or Release retryable with none left. A conflict
// the store cannot verify is not reported as one, so the runner keeps the
// record and a redelivery sorts it out.
func TestWriteAfterLostResponseAndFailedRead(t *testing.T) {
	env := localtest.Stack(t, nil)
	tests := map[string]func(ctx context.Context, items *store.Items, owner string, now time.Time) error{
		"Complete": func(ctx context.Context, items *store.Items, owner string, now time.Time) error {
			return items.Complete(ctx, store.CompleteRequest{ItemID: "it", Stage: work.Fetch, Owner: owner, Now: now,
				Output: work.Output{Document: &work.Document{Text: "text", Bytes: 4, FetchedAt: now}}})
		},
		"Fail": func(ctx context.Context, items *store.Items, owner string, now time.Time) error {
			_, err := items.Fail(ctx, store.FailRequest{ItemID: "it", Stage: work.Fetch, Owner: owner, Now: now,
				Counts: true, Next: work.Retryable, NotBefore: now.Add(time.Second),
				LastError: store.LastError{Component: work.Fetch, ErrorClass: "RATE_LIMITED", Error: "HTTP 429"}})
			return err
		},
		"Release": func(ctx context.Context, items *store.Items, owner string, now time.Time) error {
			return items.Release(ctx, store.ReleaseRequest{ItemID: "it", Stage: work.Fetch, Owner: owner, Now: now,
				NotBefore: now.Add(time.Second), Reason: "breaker open"})
		},
	}
	for name, write := range tests {
		t.Run(name, func(t *testing.T) {
			front, err := moto.StartFront(env.Endpoint)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = front.Close() })
			cfg, err := moto.Config(t.Context(), front.URL, config.WithRetryer(func() aws.Retryer {
				return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = 10 * time.Millisecond })
			}))
			if err != nil {
				t.Fatal(err)
			}
			items := &store.Items{DB: dynamodb.NewFromConfig(cfg), Table: env.Stack.Outputs["ItemsTableName"], Bodies: env.Bodies()}
			ctx := t.Context()
			now := time.Now().UTC()
			id := "it"
			// Each subtest starts from a fresh item of the same id.
			if err := items.Put(ctx, store.Item{ID: id, Kind: store.KindStory, SourceURL: "https://example.org/a",
				WebhookURL: "https://example.org/h", CorrelationID: "c", Status: work.Received, State: work.Queued,
				Stage: work.Fetch, CreatedAt: now, UpdatedAt: now}); err != nil {
				t.Fatal(err)
			}
			owner := "msg-" + name + "#1"
			if _, err := items.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: work.Fetch, Owner: owner, Carrier: "msg-" + name,
				Now: now, LeaseFor: time.Minute}); err != nil {
				t.Fatal(err)
			}
			before, err := items.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}

			// The first write (an UpdateItem, or Complete's
			// TransactWriteItems with the document's sibling) is applied
			// and its response dropped; every GetItem after that answers
			// InternalServerError.
			inj := NewInjector(AWSFaults{}, env.Endpoint, 1)
			var mu sync.Mutex
			dropped := false
			front.SetInterceptor(func(w http.ResponseWriter, r *http.Request, target string) bool {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case (target == "DynamoDB_20120810.UpdateItem" || target == "DynamoDB_20120810.TransactWriteItems") && !dropped:
					dropped = true
					inj.forwardAndDrop(r, target, "dynamodb")
				case target == "DynamoDB_20120810.GetItem" && dropped:
					_, _ = io.Copy(io.Discard, r.Body)
					writeAWSError(w, dynamoErrors[2])
					return true
				}
				return false
			})
			werr := write(ctx, items, owner, now)
			front.SetInterceptor(nil)

			after, err := items.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if after.State == before.State || after.LastWrite == before.LastWrite {
				t.Fatalf("the dropped write was not applied: %s → %s", before.State, after.State)
			}
			t.Logf("%s returned %v; the item went %s → %s %s", name, werr, before.State, after.State, after.Stage)
			if errors.Is(werr, store.ErrConflict) {
				t.Errorf("%s reported ErrConflict for its own applied write because the read-back failed; "+
					"the runner acknowledges the record and the item is lost", name)
			}
		})
	}
}
