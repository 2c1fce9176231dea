package console_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/budget"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/replay"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/store/ledger"
	"github.com/triagehq/triage/internal/work"
)

func TestMain(m *testing.M) { localtest.Main(m) }

var (
	localOnce    sync.Once
	localSrv     *httptest.Server
	localConsole *console.Server
)

// localConsole is the console against a stack in moto seeded with 10,000
// items, built once per test binary (seeding takes a while).
func seededConsole(b *testing.B) *httptest.Server {
	localOnce.Do(func() {
		env := localtest.Stack(b, nil)
		ddb, sq := dynamodb.NewFromConfig(env.AWS), sqs.NewFromConfig(env.AWS)
		s := env.Stack
		items := env.Items()
		log := &store.ErrorLog{DB: ddb, Table: s.ErrorLogTable()}
		// Eight writers at once: moto takes one PutItem at a time, but the
		// round trips overlap.
		type job struct {
			it  *store.Item
			log *store.LogEntry
		}
		jobs := make(chan job, 64)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for j := range jobs {
					if j.it != nil {
						if err := items.Put(context.Background(), *j.it); err != nil {
							b.Error(err)
						}
					}
					if j.log != nil {
						if err := log.Append(context.Background(), *j.log); err != nil {
							b.Error(err)
						}
					}
				}
			})
		}
		seed(b, 10_000, nil, func(it store.Item) error { jobs <- job{it: &it}; return nil },
			func(_ context.Context, e store.LogEntry) error { jobs <- job{log: &e}; return nil })
		close(jobs)
		wg.Wait()
		qs := map[work.Stage]replay.Queues{}
		for _, st := range work.Stages() {
			qs[st] = replay.Queues{Queue: s.QueueURL(st), DLQ: s.DLQURL(st)}
		}
		out := func(k string) string { v, _ := s.Output(k); return v }
		r := &replay.Replayer{SQS: sq, Items: items, Index: &store.ItemIndex{DB: ddb, Table: s.ItemsTable()}, ErrorLog: log, Queues: qs, PollWait: -1}
		srv, err := console.New(console.Backend{Replayer: r, Items: items, Index: r.Index, Log: &store.ErrorLogReader{DB: ddb, Table: s.ErrorLogTable()},
			Trail: &ledger.Trail{DB: ddb, Table: s.AuditTable()}, SQS: sq, Queues: qs,
			Models: &health.Dynamo{DB: ddb, Table: out("ModelsTableName")}, Breakers: &breaker.Dynamo{DB: ddb, Table: out("BreakersTableName"), ConsistentReads: true},
			Days: &budget.Daily{DB: ddb, Table: out("BudgetTableName"), Cap: 1, Cost: 1}, Profile: policy.Standard(), By: "bench",
			Clock: clock.NewStub(t0), Refresh: 10 * time.Second}, token)
		if err != nil {
			b.Fatal(err)
		}
		localSrv, localConsole = httptest.NewServer(srv), srv
	})
	if localSrv == nil {
		b.Fatal("the local stack could not be seeded")
	}
	return localSrv
}

// BenchmarkPagesLocalStack renders the pages against moto holding 10,000
// items: the DynamoDB and SQS reads a page makes are in the figure.
func BenchmarkPagesLocalStack(b *testing.B) {
	localtest.Require(b, "moto_server", "pip install \"moto[server]\"")
	srv := seededConsole(b)
	// What the background refresh costs: the reads that grow with the
	// tables, taken together.
	b.Run("figures (background read)", func(b *testing.B) {
		for b.Loop() {
			console.Collect(b.Context(), localConsole)
		}
	})
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err := client.Get(srv.URL + "/?token=" + token)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	// The first page reads the figures the later ones show (for Refresh).
	if resp, err = client.Get(srv.URL + "/"); err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	benchPages(b, client, srv.URL)
}
