package runnertest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// Seed puts the item a sample event names into store, at st, with whatever
// the stage needs (a source URL, fetched text, an enrichment and webhook).
type Seed func(db *store.Memory, itemID string, st work.Stage)

// EachEvent runs fn, in a parallel subtest named by the file, on every
// sample event file events/<pattern> (a filepath.Match pattern, such as
// "recovery/*.json") unmarshalled into a T; it fails when there are none
// or one does not unmarshal.
func EachEvent[T any](t *testing.T, pattern string, fn func(t *testing.T, path string, ev T)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(ModuleRoot(t), "events", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample events %s: %v", pattern, err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".json"), func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ev T
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatalf("%s is not a %T: %v", path, ev, err)
			}
			fn(t, path, ev)
		})
	}
}

// EventFiles runs every events/<st>/*.json file through a Runner over
// store.Memory and the real Work, and checks what each file's name promises:
//
//	normal     every record succeeds and moves its item on
//	malformed  well-formed records succeed; the others are dead-lettered as
//	           SCHEMA_INVALID; the whole batch is acknowledged
//	duplicate  two deliveries of one item call the upstream once
//	replayed   the replay lineage travels with the item to the next stage
//
// Files are unmarshalled into events.SQSEvent, the type Lambda delivers.
// notices*.json are records of the notice queue, the notify function's
// second event source (package notice); its own test runs them.
func EventFiles(t *testing.T, st work.Stage, seed Seed, job runner.Work) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(ModuleRoot(t), "events", string(st), "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample events for %s: %v", st, err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		if strings.HasPrefix(name, "notices") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ev events.SQSEvent
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatalf("%s is not an SQS event: %v", path, err)
			}
			db := NewStoreFor(ev, st, seed)
			q := NewQueues()
			var calls atomic.Int64
			counted := counting{work: job, calls: &calls}
			r := NewRunner(st, counted, db, q, clock.NewStub(time.Now()))
			resp, err := r.Handle(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.BatchItemFailures) != 0 {
				t.Fatalf("batch item failures %v: every sample record should reach a durable outcome", resp.BatchItemFailures)
			}
			dead, err := q.DeadLetters(DLQURL)
			if err != nil {
				t.Fatal(err)
			}
			valid := 0
			for _, rec := range ev.Records {
				env, err := work.DecodeEnvelope(rec.Body, st)
				if err != nil {
					continue
				}
				valid++
				it, _ := db.Get(context.Background(), env.ItemID)
				if it.Stage == st && it.State != work.Done {
					t.Errorf("%s is still %s at %s (last error %+v)", env.ItemID, it.State, it.Stage, it.LastError)
				}
			}
			switch name {
			case "malformed":
				if len(dead) != len(ev.Records)-valid || len(dead) == 0 {
					t.Fatalf("dead letters = %d, want %d", len(dead), len(ev.Records)-valid)
				}
				for _, p := range dead {
					if p.ErrorClass != work.SchemaInvalid {
						t.Errorf("dead letter class %s, want SCHEMA_INVALID", p.ErrorClass)
					}
				}
			case "duplicate":
				if calls.Load() != 1 {
					t.Fatalf("upstream calls = %d for two deliveries of one item, want 1", calls.Load())
				}
			case "replayed":
				if _, hasNext := st.Next(); hasNext {
					sent := q.Sent(NextQueueURL)
					if len(sent) != 1 || !strings.Contains(sent[0], `"replay":{"count":1`) {
						t.Fatalf("forwarded %v, want the replay lineage kept", sent)
					}
				}
			}
			if name != "malformed" && len(dead) != 0 {
				t.Fatalf("unexpected dead letters: %+v", dead)
			}
		})
	}
}

// NewStoreFor returns a store holding every item ev names, seeded at st.
func NewStoreFor(ev events.SQSEvent, st work.Stage, seed Seed) *store.Memory {
	db := store.NewMemory()
	for _, rec := range ev.Records {
		if env, err := work.DecodeEnvelope(rec.Body, ""); err == nil {
			if _, err := db.Get(context.Background(), env.ItemID); err != nil {
				seed(db, env.ItemID, st)
			}
		}
	}
	return db
}

// ModuleRoot walks up from the working directory to go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// counting is a runner.Work that counts the calls of work.
type counting struct {
	work  runner.Work
	calls *atomic.Int64
}

func (c counting) Run(ctx context.Context, it store.Item, d gates.Delivery) (work.Output, error) {
	c.calls.Add(1)
	return c.work.Run(ctx, it, d)
}
