package state_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/infra/local/localtest"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/state"
)

// partitionsDB answers the index's Queries from partitions held in memory
// (list_key → items, newest first), a page of Limit at a time, and records
// each request's key.
type partitionsDB struct {
	mu      sync.Mutex
	parts   map[string][]map[string]types.AttributeValue
	queries []string
}

func (d *partitionsDB) add(t *testing.T, key string, it state.Item) {
	t.Helper()
	av, err := attributevalue.MarshalMap(map[string]any{"item_id": it.ID, "state": string(it.State), "stage": string(it.Stage),
		"kind": "story", "correlation_id": "c", "status": "received", "updated_at": state.FormatTime(it.UpdatedAt), "list_key": key})
	if err != nil {
		t.Fatal(err)
	}
	if d.parts == nil {
		d.parts = map[string][]map[string]types.AttributeValue{}
	}
	d.parts[key] = append(d.parts[key], av)
	slices.SortFunc(d.parts[key], func(a, b map[string]types.AttributeValue) int {
		return strings.Compare(b["updated_at"].(*types.AttributeValueMemberS).Value, a["updated_at"].(*types.AttributeValueMemberS).Value)
	})
}

func (d *partitionsDB) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	var key string
	for _, v := range in.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok && strings.Count(s.Value, "#") == 1 {
			key = s.Value
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queries = append(d.queries, key)
	items := d.parts[key]
	from := 0
	if in.ExclusiveStartKey != nil {
		id := in.ExclusiveStartKey["item_id"].(*types.AttributeValueMemberS).Value
		from = slices.IndexFunc(items, func(av map[string]types.AttributeValue) bool {
			return av["item_id"].(*types.AttributeValueMemberS).Value == id
		}) + 1
	}
	n := len(items) - from
	if in.Limit != nil {
		n = min(n, int(*in.Limit))
	}
	page := items[from : from+n]
	out := &dynamodb.QueryOutput{Count: int32(len(page))}
	if in.Select != types.SelectCount {
		out.Items = page
	}
	if from+n < len(items) {
		out.LastEvaluatedKey = map[string]types.AttributeValue{"item_id": page[len(page)-1]["item_id"]}
	}
	return out, nil
}

// TestListMergesThePartitionsNewestFirst: a listing of several states reads
// each partition page by page and delivers one order, newest first, with
// each id once — an item read in two partitions (it moved between them while
// the list was read) is listed where it was first read — and it stops at
// the limit without reading every page.
func TestListMergesThePartitionsNewestFirst(t *testing.T) {
	t.Parallel()
	db := &partitionsDB{}
	item := func(id string, st state.State, stage pipeline.Stage, at int) {
		it := state.Item{ID: id, State: st, Stage: stage, UpdatedAt: t0.Add(time.Duration(at) * time.Second)}
		db.add(t, state.ListKey(id, st, 2), it)
	}
	item("q1", state.Queued, pipeline.Fetch, 9)
	item("q2", state.Queued, pipeline.LLM, 7)
	item("q3", state.Queued, pipeline.Fetch, 3)
	item("w1", state.Working, pipeline.Notify, 8)
	item("w2", state.Working, pipeline.Fetch, 2)
	item("d1", state.Done, pipeline.Notify, 6)
	// moved: read as working, then as queued at the next stage.
	item("m", state.Working, pipeline.Fetch, 5)
	item("m", state.Queued, pipeline.LLM, 4)
	x := &state.ItemIndex{DB: db, Table: "items", Shards: 2, PageSize: 1}
	list := func(q state.ItemQuery) []string {
		t.Helper()
		var ids []string
		if err := x.List(context.Background(), q, func(it state.Item) error {
			ids = append(ids, it.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	tests := []struct {
		name string
		q    state.ItemQuery
		want []string
	}{
		{"every state", state.ItemQuery{States: state.States(), Limit: -1}, []string{"q1", "w1", "q2", "d1", "m", "q3", "w2"}},
		{"two states, the newest 3", state.ItemQuery{States: []state.State{state.Queued, state.Working}, Limit: 3}, []string{"q1", "w1", "q2"}},
		{"one state at one stage", state.ItemQuery{State: state.Queued, Stage: pipeline.Fetch}, []string{"q1", "q3"}},
		{"State and States together", state.ItemQuery{State: state.Done, States: []state.State{state.Working}}, []string{"w1", "d1", "m", "w2"}},
	}
	for _, tc := range tests {
		if got := list(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// The newest 2 of queued and working read a page of each of their 4
	// partitions and then only what the merge needs.
	db.queries = nil
	list(state.ItemQuery{States: []state.State{state.Queued, state.Working}, Limit: 2})
	if n := len(db.queries); n > 4+2 {
		t.Errorf("the newest 2 took %d queries: %v", n, db.queries)
	}
}

// TestCountAsksEveryPartition: a count is a Query of every partition of its
// states, each followed to its last page, counted by stage.
func TestCountAsksEveryPartition(t *testing.T) {
	t.Parallel()
	db := &partitionsDB{}
	for i := range 7 {
		id := fmt.Sprintf("q%d", i)
		stage := pipeline.LLM
		if i%3 == 0 {
			stage = pipeline.Fetch
		}
		db.add(t, state.ListKey(id, state.Queued, 4), state.Item{ID: id, Stage: stage, UpdatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	db.add(t, state.ListKey("d", state.Done, 4), state.Item{ID: "d", Stage: pipeline.Notify, UpdatedAt: t0})
	x := &state.ItemIndex{DB: db, Table: "items", Shards: 4, PageSize: 2}
	c, err := x.Count(context.Background(), state.CountQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Of(state.Queued, pipeline.LLM) != 4 || c.Of(state.Queued, pipeline.Fetch) != 3 || c.Total(state.Done) != 1 || c.All() != 8 {
		t.Fatalf("counts %v", c)
	}
	if want := len(state.States()) * 4; len(db.queries) < want {
		t.Fatalf("%d queries, want at least one per partition (%d)", len(db.queries), want)
	}
	// Counting one stage counts only its items.
	if c, err := x.Count(context.Background(), state.CountQuery{States: []state.State{state.Queued}, Stages: []pipeline.Stage{pipeline.Fetch}}); err != nil || c.All() != 3 {
		t.Fatalf("queued at fetch: %v, %v", c, err)
	}
}

// countingCounter counts the Count requests and what they asked.
type countingCounter struct {
	state.Counter
	mu   sync.Mutex
	asks []state.CountQuery
}

func (c *countingCounter) Count(ctx context.Context, q state.CountQuery) (state.Counts, error) {
	c.mu.Lock()
	c.asks = append(c.asks, q)
	c.mu.Unlock()
	return c.Counter.Count(ctx, q)
}

// TestTallyCountsDoneOnce: a Tally counts the done items written before its
// watermark once and afterwards only those since; its figures are always
// the index's (a new Tally, a restarted reader, agrees), and a done item
// written late within the grace is still counted.
func TestTallyCountsDoneOnce(t *testing.T) {
	t.Parallel()
	m := state.NewMemory()
	put := func(id string, st state.State, at time.Time) {
		stage := pipeline.LLM
		if st == state.Done {
			stage = pipeline.Notify
		}
		m.Put(state.Item{ID: id, Kind: state.KindStory, State: st, Stage: stage, UpdatedAt: at})
	}
	for i := range 5 {
		put(fmt.Sprintf("old%d", i), state.Done, t0.Add(-time.Hour))
	}
	put("q", state.Queued, t0)
	cc := &countingCounter{Counter: m}
	tally := &state.Tally{Index: cc, Grace: time.Minute}
	counts := func(tl *state.Tally, now time.Time) state.Counts {
		t.Helper()
		c, err := tl.Counts(context.Background(), now)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := counts(tally, t0); c.Total(state.Done) != 5 || c.Total(state.Queued) != 1 {
		t.Fatalf("first count %v", c)
	}
	put("new", state.Done, t0.Add(10*time.Second))
	// Written late: its updated_at is before the watermark the next count
	// moves to, but within the grace of the last one.
	put("late", state.Done, t0.Add(-30*time.Second))
	cc.asks = nil
	c := counts(tally, t0.Add(20*time.Second))
	if c.Total(state.Done) != 7 {
		t.Fatalf("after two more done: %v", c)
	}
	for _, q := range cc.asks {
		if slices.Contains(q.States, state.Done) && q.Since.IsZero() {
			t.Fatalf("a later count read every done item again: %+v", q)
		}
	}
	// Two graces later the watermark moves; the count stays the index's.
	later := t0.Add(5 * time.Minute)
	put("newer", state.Done, later.Add(-time.Second))
	if c := counts(tally, later); c.Total(state.Done) != 8 {
		t.Fatalf("after the watermark moved: %v", c)
	}
	if c := counts(&state.Tally{Index: m, Grace: time.Minute}, later); c.Total(state.Done) != 8 || c.Total(state.Queued) != 1 {
		t.Fatalf("a new tally counts %v", c)
	}
}

// TestItemIndexCountsMatchMemory: on moto, the index's counts of a pipeline
// of items in every state are the in-memory twin's, and a Tally over it
// agrees.
func TestItemIndexCountsMatchMemory(t *testing.T) {
	t.Parallel()
	env := localtest.Stack(t, nil)
	db := dynamodb.NewFromConfig(env.AWS)
	items := &state.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies(), IndexShards: 2}
	x := &state.ItemIndex{DB: db, Table: env.Stack.ItemsTable(), Shards: 2}
	m := state.NewMemory()
	ctx := context.Background()
	for _, s := range []interface {
		Create(context.Context, state.NewItem) (state.Item, error)
		Claim(context.Context, state.ClaimRequest) (state.Item, error)
		Complete(context.Context, state.CompleteRequest) error
		Fail(context.Context, state.FailRequest) (int, error)
	}{items, m} {
		for i := range 9 {
			id := fmt.Sprintf("c%d", i)
			now := t0.Add(time.Duration(i) * time.Second)
			if _, err := s.Create(ctx, state.NewItem{ID: id, Kind: state.KindStory, CorrelationID: "c", Now: now}); err != nil {
				t.Fatal(err)
			}
			for j, st := range pipeline.Stages() {
				if j >= i%4 {
					break
				}
				owner := fmt.Sprintf("o%d#%d", i, j)
				if _, err := s.Claim(ctx, state.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute}); err != nil {
					t.Fatal(err)
				}
				if i%3 == 0 && j == i%4-1 {
					if _, err := s.Fail(ctx, state.FailRequest{ItemID: id, Stage: st, Owner: owner, Now: now, Counts: true, Next: state.Retryable,
						NotBefore: now, LastError: state.LastError{ErrorClass: failure.RateLimited}}); err != nil {
						t.Fatal(err)
					}
					break
				}
				if err := s.Complete(ctx, state.CompleteRequest{ItemID: id, Stage: st, Owner: owner, Now: now}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	got, err := x.Count(ctx, state.CountQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.Count(ctx, state.CountQuery{})
	for _, s := range state.States() {
		for _, st := range pipeline.Stages() {
			if got.Of(s, st) != want.Of(s, st) {
				t.Errorf("%s at %s: index %d, memory %d", s, st, got.Of(s, st), want.Of(s, st))
			}
		}
	}
	if got.All() != 9 || got.Total(state.Done) == 0 || got.Total(state.Retryable) == 0 {
		t.Fatalf("counts %v: want every item, some done and some retryable", got)
	}
	tc, err := (&state.Tally{Index: x}).Counts(ctx, t0.Add(time.Hour))
	if err != nil || tc.All() != 9 || tc.Total(state.Done) != got.Total(state.Done) {
		t.Fatalf("tally %v, %v; index %v", tc, err, got)
	}
}
