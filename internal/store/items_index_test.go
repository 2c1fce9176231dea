package store_test

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

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// partitionsDB answers the index's Queries from partitions held in memory
// (list_key → KEYS_ONLY entries, newest list_at first), a page of Limit at
// a time, and BatchGetItem from the items; it records each Query's key.
type partitionsDB struct {
	mu      sync.Mutex
	parts   map[string][]map[string]types.AttributeValue
	items   map[string]map[string]types.AttributeValue
	queries []string
	gets    int
}

// add puts it in the partition of its state (the index entry at list_at)
// and its record in the table.
func (d *partitionsDB) add(t *testing.T, it store.Item, shards int, listAt time.Time) {
	t.Helper()
	rec, err := attributevalue.MarshalMap(map[string]any{"item_id": it.ID, "state": string(it.State), "stage": string(it.Stage),
		"kind": "story", "correlation_id": "c", "status": "received", "updated_at": store.FormatTime(it.UpdatedAt)})
	if err != nil {
		t.Fatal(err)
	}
	key := store.ListKey(it.ID, it.State, shards)
	e := map[string]types.AttributeValue{"item_id": &types.AttributeValueMemberS{Value: it.ID},
		"list_key": &types.AttributeValueMemberS{Value: key}, "list_at": &types.AttributeValueMemberS{Value: store.FormatTime(listAt)}}
	if d.parts == nil {
		d.parts, d.items = map[string][]map[string]types.AttributeValue{}, map[string]map[string]types.AttributeValue{}
	}
	d.parts[key] = append(d.parts[key], e)
	slices.SortFunc(d.parts[key], func(a, b map[string]types.AttributeValue) int {
		return strings.Compare(b["list_at"].(*types.AttributeValueMemberS).Value, a["list_at"].(*types.AttributeValueMemberS).Value)
	})
	d.items[it.ID] = rec
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
	entries := d.parts[key]
	from := 0
	if in.ExclusiveStartKey != nil {
		id := in.ExclusiveStartKey["item_id"].(*types.AttributeValueMemberS).Value
		from = slices.IndexFunc(entries, func(av map[string]types.AttributeValue) bool {
			return av["item_id"].(*types.AttributeValueMemberS).Value == id
		}) + 1
	}
	n := len(entries) - from
	if in.Limit != nil {
		n = min(n, int(*in.Limit))
	}
	page := entries[from : from+n]
	out := &dynamodb.QueryOutput{Count: int32(len(page))}
	if in.Select != types.SelectCount {
		out.Items = page
	}
	if from+n < len(entries) {
		out.LastEvaluatedKey = map[string]types.AttributeValue{"item_id": page[len(page)-1]["item_id"]}
	}
	return out, nil
}

func (d *partitionsDB) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gets++
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
	for table, ka := range in.RequestItems {
		if len(ka.Keys) > 100 {
			return nil, fmt.Errorf("%d keys in one BatchGetItem", len(ka.Keys))
		}
		for _, k := range ka.Keys {
			if rec, ok := d.items[k["item_id"].(*types.AttributeValueMemberS).Value]; ok {
				out.Responses[table] = append(out.Responses[table], rec)
			}
		}
	}
	return out, nil
}

// TestListMergesThePartitionsNewestFirst: a listing of several states reads
// each of their groups' partitions page by page, merges them newest first,
// reads the items the entries name and delivers each id once, in the state
// it is in — an item entered in two partitions (it moved between them
// while the list was read) is listed once — and it stops at the limit
// without reading every page.
func TestListMergesThePartitionsNewestFirst(t *testing.T) {
	t.Parallel()
	db := &partitionsDB{}
	item := func(id string, st work.State, stage work.Stage, at int) {
		when := t0.Add(time.Duration(at) * time.Second)
		db.add(t, store.Item{ID: id, State: st, Stage: stage, UpdatedAt: when}, 2, when)
	}
	item("q1", work.Queued, work.Fetch, 9)
	item("w1", work.Working, work.Notify, 8)
	item("q2", work.Queued, work.LLM, 7)
	item("d1", work.Done, work.Notify, 6)
	item("r1", work.Retryable, work.LLM, 3)
	item("w2", work.Working, work.Fetch, 2)
	// moved: failed, then queued again by a replay; its old entry is still
	// read (the index lags), the item is read as it is now.
	item("m", work.Failed, work.LLM, 5)
	item("m", work.Queued, work.LLM, 4)
	x := &store.ItemIndex{DB: db, Table: "items", Shards: 2, PageSize: 1}
	list := func(q store.ItemQuery) []string {
		t.Helper()
		var ids []string
		if err := x.List(context.Background(), q, func(it store.Item) error {
			ids = append(ids, it.ID+"/"+string(it.State))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	tests := []struct {
		name string
		q    store.ItemQuery
		want []string
	}{
		{"every state", store.ItemQuery{States: work.States(), Limit: -1},
			[]string{"q1/queued", "w1/working", "q2/queued", "d1/done", "m/queued", "r1/retryable", "w2/working"}},
		{"the newest 3", store.ItemQuery{States: work.States(), Limit: 3}, []string{"q1/queued", "w1/working", "q2/queued"}},
		{"queued alone", store.ItemQuery{State: work.Queued}, []string{"q1/queued", "q2/queued", "m/queued"}},
		{"one state at one stage", store.ItemQuery{State: work.Queued, Stage: work.Fetch}, []string{"q1/queued"}},
		{"failed: m is queued now", store.ItemQuery{State: work.Failed}, nil},
		{"State and States together", store.ItemQuery{State: work.Done, States: []work.State{work.Working}}, []string{"w1/working", "d1/done", "w2/working"}},
	}
	for _, tc := range tests {
		if got := list(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// The newest 2 of every state read a page of each of the 10 partitions
	// and then only what the merge needs, and the items in one batch.
	db.queries, db.gets = nil, 0
	list(store.ItemQuery{States: work.States(), Limit: 2})
	if n := len(db.queries); n > 10+2 || db.gets != 1 {
		t.Errorf("the newest 2 took %d queries and %d BatchGetItem: %v", n, db.gets, db.queries)
	}
}

// TestCountAsksEveryPartition: a count is a Select COUNT Query of every
// partition of its groups, each followed to its last page.
func TestCountAsksEveryPartition(t *testing.T) {
	t.Parallel()
	db := &partitionsDB{}
	for i := range 7 {
		st := work.Queued
		if i%3 == 0 {
			st = work.Working
		}
		db.add(t, store.Item{ID: fmt.Sprintf("q%d", i), State: st}, 4, t0.Add(time.Duration(i)*time.Second))
	}
	db.add(t, store.Item{ID: "d", State: work.Done}, 4, t0)
	x := &store.ItemIndex{DB: db, Table: "items", Shards: 4, PageSize: 2}
	c, err := x.Count(context.Background(), store.CountQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if c[store.GroupFlight] != 7 || c[store.GroupDone] != 1 || c.All() != 8 {
		t.Fatalf("counts %v", c)
	}
	if want := len(store.Groups()) * 4; len(db.queries) != want {
		t.Fatalf("%d queries, want one per partition (%d)", len(db.queries), want)
	}
}

// countingCounter counts the Count requests and what they asked.
type countingCounter struct {
	store.Counter
	mu   sync.Mutex
	asks []store.CountQuery
}

func (c *countingCounter) Count(ctx context.Context, q store.CountQuery) (store.Counts, error) {
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
	m := store.NewMemory()
	put := func(id string, st work.State, at time.Time) {
		stage := work.LLM
		if st == work.Done {
			stage = work.Notify
		}
		m.Put(store.Item{ID: id, Kind: store.KindStory, State: st, Stage: stage, UpdatedAt: at})
	}
	for i := range 5 {
		put(fmt.Sprintf("old%d", i), work.Done, t0.Add(-time.Hour))
	}
	put("q", work.Queued, t0)
	cc := &countingCounter{Counter: m}
	tally := &store.Tally{Index: cc, Grace: time.Minute}
	counts := func(tl *store.Tally, now time.Time) store.Counts {
		t.Helper()
		c, err := tl.Counts(context.Background(), now)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := counts(tally, t0); c[store.GroupDone] != 5 || c[store.GroupFlight] != 1 {
		t.Fatalf("first count %v", c)
	}
	put("new", work.Done, t0.Add(10*time.Second))
	// Written late: its updated_at is before the watermark the next count
	// moves to, but within the grace of the last one.
	put("late", work.Done, t0.Add(-30*time.Second))
	cc.asks = nil
	c := counts(tally, t0.Add(20*time.Second))
	if c[store.GroupDone] != 7 {
		t.Fatalf("after two more done: %v", c)
	}
	for _, q := range cc.asks {
		if slices.Contains(q.Groups, store.GroupDone) && q.Since.IsZero() {
			t.Fatalf("a later count read every done item again: %+v", q)
		}
	}
	// Two graces later the watermark moves; the count stays the index's.
	later := t0.Add(5 * time.Minute)
	put("newer", work.Done, later.Add(-time.Second))
	if c := counts(tally, later); c[store.GroupDone] != 8 {
		t.Fatalf("after the watermark moved: %v", c)
	}
	if c := counts(&store.Tally{Index: m, Grace: time.Minute}, later); c[store.GroupDone] != 8 || c[store.GroupFlight] != 1 {
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
	items := &store.Items{DB: db, Table: env.Stack.ItemsTable(), ParkedTable: env.Stack.ParkedTable(), Bodies: env.Bodies(), IndexShards: 2}
	x := &store.ItemIndex{DB: db, Table: env.Stack.ItemsTable(), Shards: 2}
	m := store.NewMemory()
	ctx := context.Background()
	for _, s := range []interface {
		Create(context.Context, store.NewItem) (store.Item, error)
		Claim(context.Context, store.ClaimRequest) (store.Item, error)
		Complete(context.Context, store.CompleteRequest) error
		Fail(context.Context, store.FailRequest) (int, error)
	}{items, m} {
		for i := range 9 {
			id := fmt.Sprintf("c%d", i)
			now := t0.Add(time.Duration(i) * time.Second)
			if _, err := s.Create(ctx, store.NewItem{ID: id, Kind: store.KindStory, CorrelationID: "c", SourceURL: "https://a.example/s", WebhookURL: "https://h.example/w", Now: now}); err != nil {
				t.Fatal(err)
			}
			for j, st := range work.Stages() {
				if j >= i%4 {
					break
				}
				owner := fmt.Sprintf("o%d#%d", i, j)
				if _, err := s.Claim(ctx, store.ClaimRequest{ItemID: id, Stage: st, Owner: owner, Carrier: owner, Now: now, LeaseFor: time.Minute}); err != nil {
					t.Fatal(err)
				}
				if i%3 == 0 && j == i%4-1 {
					if _, err := s.Fail(ctx, store.FailRequest{ItemID: id, Stage: st, Owner: owner, Now: now, Counts: true, Next: work.Retryable,
						NotBefore: now, LastError: store.LastError{ErrorClass: work.RateLimited}}); err != nil {
						t.Fatal(err)
					}
					break
				}
				if err := s.Complete(ctx, store.CompleteRequest{ItemID: id, Stage: st, Owner: owner, Now: now}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	got, err := x.Count(ctx, store.CountQuery{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.Count(ctx, store.CountQuery{})
	for _, g := range store.Groups() {
		if got[g] != want[g] {
			t.Errorf("%s: index %d, memory %d", g, got[g], want[g])
		}
	}
	if got.All() != 9 || got[store.GroupDone] == 0 || got[store.GroupRetrying] == 0 {
		t.Fatalf("counts %v: want every item, some done and some retrying", got)
	}
	tc, err := (&store.Tally{Index: x}).Counts(ctx, t0.Add(time.Hour))
	if err != nil || tc.All() != 9 || tc[store.GroupDone] != got[store.GroupDone] || tc[store.GroupFlight] != got[store.GroupFlight] {
		t.Fatalf("tally %v, %v; index %v", tc, err, got)
	}
	// Listed through the index, each item is read as it is.
	var listed []string
	if err := x.List(ctx, store.ItemQuery{States: work.States(), Limit: -1}, func(it store.Item) error {
		listed = append(listed, it.ID)
		return nil
	}); err != nil || len(listed) != 9 {
		t.Fatalf("listed %v, %v", listed, err)
	}
}
