package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store/ledger"
)

// A claim or a settle whose first attempt was applied fails its condition on
// the retry; the record's last_write token tells the store it was its own.
func TestRetriedNoticeWritesAreRecognisedAsApplied(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	trail := &ledger.Trail{DB: localtest.ReplayingDB{Client: dynamodb.NewFromConfig(env.AWS)}, Table: env.Stack.AuditTable()}
	ctx := context.Background()
	n, err := trail.ClaimNotice(ctx, claim("retried", "retried:item.failed:0", "m1#1", t0))
	if err != nil {
		t.Fatalf("a retried claim: %v", err)
	}
	if n.Attempts != 1 || n.LeaseOwner != "m1#1" {
		t.Fatalf("claimed %+v: the retry must not count a second attempt", n)
	}
	if err := trail.SettleNotice(ctx, ledger.NoticeSettle{ItemID: "retried", Key: "retried:item.failed:0", Owner: "m1#1",
		Now: t0.Add(time.Second), State: ledger.NoticeDelivered, Status: 204}); err != nil {
		t.Fatalf("a retried settle: %v", err)
	}
}
