package store

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// ItemQuery selects items by state. Zero fields do not filter.
type ItemQuery struct {
	// State is the state to list; States lists several (State, when set,
	// is one more). At least one state is required.
	State  work.State
	States []work.State
	// Stage keeps items at this stage.
	Stage work.Stage
	// Classes keeps items whose last failure (last_error, else the dead
	// letter) has one of these classes.
	Classes []work.Class
	// Since and Before keep items whose last failure is in [Since, Before);
	// an item that never failed has no failure time and is dropped by either.
	Since, Before time.Time
	// Limit bounds how many items are delivered; zero is DefaultListLimit,
	// negative is no bound.
	Limit int
	// MaxScan bounds how many items are read to find them (filters apply
	// after the read); zero is DefaultMaxScan, negative is no bound.
	// Reaching it is ErrScanLimit.
	MaxScan int
}

// DefaultListLimit is ItemQuery.Limit's default.
const DefaultListLimit = 1000

// DefaultMaxScan is ItemQuery.MaxScan's default.
const DefaultMaxScan = 50_000

// ErrScanLimit is returned by List when it read MaxScan items without
// reaching the end of the state or the limit: the listing is partial.
var ErrScanLimit = errors.New("scan limit reached: the listing is partial; narrow the query")

// ErrStop, returned by a List callback, ends the listing early without an
// error.
var ErrStop = errors.New("stop listing")

// FailureClass is the class of the item's last failure: last_error's, else
// the dead letter's, else empty.
func (it Item) FailureClass() work.Class {
	if it.LastError != nil && it.LastError.ErrorClass != "" {
		return it.LastError.ErrorClass
	}
	if it.DeadLetter != nil {
		return it.DeadLetter.Class
	}
	return ""
}

// states are the states q lists: State and States, each once, in the order
// of States().
func (q ItemQuery) states() []work.State {
	var out []work.State
	for _, s := range work.States() {
		if s == q.State || slices.Contains(q.States, s) {
			out = append(out, s)
		}
	}
	return out
}

// Filtered reports whether q filters beyond state and stage (classes, failure
// times): a count of q then needs the items read, not only counted.
func (q ItemQuery) Filtered() bool {
	return len(q.Classes) > 0 || !q.Since.IsZero() || !q.Before.IsZero()
}

// Matches reports whether it satisfies q.
func (q ItemQuery) Matches(it Item) bool {
	if !slices.Contains(q.states(), it.State) || (q.Stage != "" && it.Stage != q.Stage) {
		return false
	}
	if len(q.Classes) > 0 && !slices.Contains(q.Classes, it.FailureClass()) {
		return false
	}
	if !q.Since.IsZero() && (it.LastFailureAt.IsZero() || it.LastFailureAt.Before(q.Since)) {
		return false
	}
	if !q.Before.IsZero() && (it.LastFailureAt.IsZero() || !it.LastFailureAt.Before(q.Before)) {
		return false
	}
	return true
}

func (q ItemQuery) limit() int {
	switch {
	case q.Limit < 0:
		return -1
	case q.Limit == 0:
		return DefaultListLimit
	}
	return q.Limit
}

func (q ItemQuery) validate() error {
	for _, s := range append([]work.State{q.State}, q.States...) {
		if s != "" && !slices.Contains(work.States(), s) {
			return fmt.Errorf("list items: unknown state %q", s)
		}
	}
	if len(q.states()) == 0 {
		return errors.New("list items: a state is required")
	}
	return nil
}

// ItemsQueryAPI is the part of the DynamoDB client ItemIndex uses: Query
// through the index, BatchGetItem for the items its entries name.
type ItemsQueryAPI interface {
	dynamo.Querier
	dynamo.BatchGetter
}

// Group is where the by-listed-state index keeps an item: the states an
// item moves between on its happy path share one, so that only a change of
// group — a failure, a dead letter, the end — writes the index.
type Group string

const (
	// GroupFlight holds queued and working items: on their way through a
	// stage.
	GroupFlight Group = "flight"
	// GroupRetrying holds retryable items: a failure or a wait recorded,
	// the next attempt due.
	GroupRetrying Group = "retrying"
	// GroupFailed, GroupDeadletter and GroupDone hold their state's items.
	GroupFailed     Group = "failed"
	GroupDeadletter Group = "deadletter"
	GroupDone       Group = "done"
)

// Groups lists every group, in the order of the states they hold.
func Groups() []Group {
	return []Group{GroupFlight, GroupRetrying, GroupFailed, GroupDeadletter, GroupDone}
}

// GroupOf is the group that holds items in state s.
func GroupOf(s work.State) Group {
	switch s {
	case work.Queued, work.Working:
		return GroupFlight
	case work.Retryable:
		return GroupRetrying
	}
	return Group(s)
}

// States are the states g holds.
func (g Group) States() []work.State {
	var out []work.State
	for _, s := range work.States() {
		if GroupOf(s) == g {
			out = append(out, s)
		}
	}
	return out
}

// enteredAt reports whether an item's list_at in g is when it entered g
// (failed, deadletter, done: the time of its failure, dead letter or end,
// which is never before its last failure), rather than its creation
// (flight, retrying: so that moving between queued, working and retryable
// and failing again rewrites no key).
func (g Group) enteredAt() bool { return g == GroupFailed || g == GroupDeadletter || g == GroupDone }

// ItemIndex lists and counts items through the Items table's
// by-listed-state GSI (docs/design.md "Indexes"). Every item is in it, under
// list_key "<group>#<shard>" and list_at (the range), projected KEYS_ONLY:
// the writes that change an item's group set both in the same request, and
// a write that leaves them as they were (a claim of a queued item, a stage's
// success on its way, a second failure) writes nothing to the index. A
// group's items are spread over Shards partitions by the id's hash so that
// no partition is hot at the rate the deployment is sized for
// (docs/scale.md). Listing reads the partitions of the groups that hold the
// states asked for, newest list_at first, merges them, and reads the items
// they name (BatchGetItem, strongly consistent) to filter and show them;
// counting asks each partition for its count (Select COUNT). GSI reads are
// eventually consistent: an item that changed a moment ago may be counted
// in its old group, so callers that act on an item re-check it with a
// conditional write.
type ItemIndex struct {
	DB ItemsQueryAPI
	// Table is the Items table name.
	Table string
	// Shards is the partitions per group, the stack's ItemIndexShards: it
	// must be the writers' (Items.IndexShards); zero is DefaultIndexShards.
	Shards int
	// PageSize is the Query page size; zero is 200.
	PageSize int32
	// Concurrency bounds the partitions read at once; zero is 16.
	Concurrency int
}

// ListedStateIndex is the Items table's GSI by group and shard.
const ListedStateIndex = "by-listed-state"

// DefaultIndexShards is the template's ItemIndexShards: the partitions of
// the by-listed-state index per group.
const DefaultIndexShards = 16

// MaxIndexShards bounds ItemIndexShards.
const MaxIndexShards = 256

// IndexShards is n as a shard count: zero is DefaultIndexShards, and it is
// at most MaxIndexShards.
func IndexShards(n int) int {
	if n <= 0 {
		return DefaultIndexShards
	}
	return min(n, MaxIndexShards)
}

// CheckIndexShards says whether n is a shard count a deployment may set:
// 1 to MaxIndexShards.
func CheckIndexShards(n int) error {
	if n < 1 || n > MaxIndexShards {
		return fmt.Errorf("%d index shards: want 1 to %d", n, MaxIndexShards)
	}
	return nil
}

// ClassShards is how many partitions of the error log's by-class-shard
// index hold one class.
const ClassShards = 16

// ClassShard is the item's shard of the error log's by-class-shard index:
// two decimal digits of a hash of its id.
func ClassShard(id string) string { return fmt.Sprintf("%02d", idHash(id)%ClassShards) }

func idHash(id string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()
}

// ListKey is the item's key in ListedStateIndex in state s, for an index of
// shards partitions per group (zero is the default).
func ListKey(id string, s work.State, shards int) string {
	return partitionKey(GroupOf(s), int(idHash(id)%uint32(IndexShards(shards))))
}

func partitionKey(g Group, shard int) string {
	return string(g) + "#" + strconv.Itoa(shard)
}

// listEpoch is the list_at of an item with no time at all (test seeds): it
// is indexed, oldest.
const listEpoch = "1970-01-01T00:00:00.000Z"

// listAt is it's list_at as a put writes it: the time it entered its group
// for failed, dead-lettered and done items (their updated_at), its creation
// otherwise.
func listAt(it Item) string {
	t := it.CreatedAt
	if GroupOf(it.State).enteredAt() || t.IsZero() {
		t = it.UpdatedAt
	}
	if t.IsZero() {
		return listEpoch
	}
	return formatTime(t)
}

func (x *ItemIndex) shards() int { return IndexShards(x.Shards) }

func (x *ItemIndex) page() int32 {
	if x.PageSize > 0 {
		return x.PageSize
	}
	return 200
}

// groupsOf are the groups holding states, each once.
func groupsOf(states []work.State) []Group {
	var out []Group
	for _, s := range states {
		if g := GroupOf(s); !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// keyCondition is list_key = key, and list_at in [since, before) where set.
func keyCondition(b *dynamo.Builder, key string, since, before time.Time) string {
	cond := "list_key = " + b.Str(key)
	switch {
	case !since.IsZero() && !before.IsZero():
		// list_at is fixed-width milliseconds: BETWEEN is inclusive.
		cond += " AND list_at BETWEEN " + b.Str(formatTime(since)) + " AND " + b.Str(formatTime(before.Add(-time.Millisecond)))
	case !since.IsZero():
		cond += " AND list_at >= " + b.Str(formatTime(since))
	case !before.IsZero():
		cond += " AND list_at < " + b.Str(formatTime(before))
	}
	return cond
}

// entry is one index entry: the item and its list_at.
type entry struct {
	id, at string
}

// cursor reads one partition newest first, a page at a time.
type cursor struct {
	key   string
	since time.Time
	buf   []entry
	start map[string]types.AttributeValue
	done  bool
}

// fill reads the cursor's next page of entries; it returns how many.
func (x *ItemIndex) fill(ctx context.Context, c *cursor, page int32) (int, error) {
	b := dynamo.New()
	key := keyCondition(b, c.key, c.since, time.Time{})
	out, err := x.DB.Query(ctx, &dynamodb.QueryInput{
		TableName: &x.Table, IndexName: aws.String(ListedStateIndex),
		KeyConditionExpression: &key, ExpressionAttributeValues: b.Values,
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(page), ExclusiveStartKey: c.start,
	})
	if err != nil {
		return 0, err
	}
	for _, av := range out.Items {
		id, _ := av["item_id"].(*types.AttributeValueMemberS)
		at, _ := av["list_at"].(*types.AttributeValueMemberS)
		if id != nil && at != nil {
			c.buf = append(c.buf, entry{id: id.Value, at: at.Value})
		}
	}
	c.start = out.LastEvaluatedKey
	c.done = len(out.LastEvaluatedKey) == 0
	return len(out.Items), nil
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h[i].buf[0], h[j].buf[0]
	if a.at != b.at {
		return a.at > b.at
	}
	return a.id < b.id
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(v any)   { *h = append(*h, v.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// getBatch is BatchGetItem's limit of keys per request.
const getBatch = 100

// List calls fn for each item matching q, newest first (by list_at: when
// it failed, was dead-lettered or ended, else when it was created), until
// q's limit, ErrStop from fn or another error from fn (which List returns).
// It reads the partitions of the groups holding q's states page by page
// and merges their entries, reads the items they name a hundred at a time
// (BatchGetItem), and delivers those q matches — each id once, in the state
// it is in now: an item that moved while the list was read is listed where
// it is, or not at all if it left q's states. At most q.MaxScan entries are
// read (ErrScanLimit beyond). Since narrows the key condition of the groups
// whose list_at is a failure or later (failed, deadletter, done).
func (x *ItemIndex) List(ctx context.Context, q ItemQuery, fn func(Item) error) error {
	if err := q.validate(); err != nil {
		return err
	}
	maxScan := q.MaxScan
	if maxScan == 0 {
		maxScan = DefaultMaxScan
	}
	var cursors []*cursor
	for _, g := range groupsOf(q.states()) {
		var since time.Time
		if g.enteredAt() {
			since = q.Since
		}
		for shard := range x.shards() {
			cursors = append(cursors, &cursor{key: partitionKey(g, shard), since: since})
		}
	}
	page := x.page()
	if l := q.limit(); l > 0 && !q.Filtered() && int32(l) < page {
		// The newest l items are among each partition's first l entries.
		page = int32(l)
	}
	var (
		mu      sync.Mutex
		scanned int
	)
	err := x.each(ctx, len(cursors), func(i int) error {
		n, err := x.fill(ctx, cursors[i], page)
		mu.Lock()
		scanned += n
		mu.Unlock()
		return err
	})
	if err != nil {
		return fmt.Errorf("list %s items: %w", stateNames(q.states()), err)
	}
	h := cursorHeap{}
	for _, c := range cursors {
		if len(c.buf) > 0 {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	seen := map[string]bool{}
	delivered, limit := 0, q.limit()
	// deliver reads a batch of merged entries' items and hands on those q
	// matches, in the entries' order; it reports whether the list is over.
	deliver := func(batch []string) (bool, error) {
		items, err := x.getItems(ctx, batch)
		if err != nil {
			return true, fmt.Errorf("list %s items: %w", stateNames(q.states()), err)
		}
		for _, id := range batch {
			it, ok := items[id]
			if !ok || !q.Matches(it) {
				continue
			}
			if err := fn(it); err != nil {
				if errors.Is(err, ErrStop) {
					return true, nil
				}
				return true, err
			}
			delivered++
			if limit > 0 && delivered >= limit {
				return true, nil
			}
		}
		return false, nil
	}
	var batch []string
	for h.Len() > 0 {
		c := h[0]
		e := c.buf[0]
		c.buf = c.buf[1:]
		if !seen[e.id] {
			seen[e.id] = true
			batch = append(batch, e.id)
		}
		// A batch as large as what is still wanted, at most getBatch.
		if want := limit - delivered; len(batch) >= getBatch || (limit > 0 && len(batch) >= want) {
			if over, err := deliver(batch); over || err != nil {
				return err
			}
			batch = batch[:0]
		}
		if len(c.buf) == 0 && !c.done {
			if maxScan > 0 && scanned >= maxScan {
				if over, err := deliver(batch); over || err != nil {
					return err
				}
				return fmt.Errorf("list %s items: %w (read %d)", stateNames(q.states()), ErrScanLimit, scanned)
			}
			n, err := x.fill(ctx, c, x.page())
			scanned += n
			if err != nil {
				return fmt.Errorf("list %s items: %w", stateNames(q.states()), err)
			}
		}
		if len(c.buf) == 0 {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	_, err = deliver(batch)
	return err
}

// getItems reads the items ids name, strongly consistent, getBatch at a
// time; an id with no item is left out.
func (x *ItemIndex) getItems(ctx context.Context, ids []string) (map[string]Item, error) {
	out := make(map[string]Item, len(ids))
	for from := 0; from < len(ids); from += getBatch {
		keys := make([]map[string]types.AttributeValue, 0, getBatch)
		for _, id := range ids[from:min(from+getBatch, len(ids))] {
			keys = append(keys, itemKey(id))
		}
		req := map[string]types.KeysAndAttributes{x.Table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
		for attempt := 0; len(req) > 0; attempt++ {
			if attempt > 0 {
				// Unprocessed keys: DynamoDB throttled part of the batch;
				// the policy paces the rounds (policy.BatchRemainder).
				if err := clock.Sleep(ctx, policy.BatchRemainder.Base(attempt)); err != nil {
					return nil, err
				}
			}
			res, err := x.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, err
			}
			for _, av := range res.Responses[x.Table] {
				it, err := decodeItem(av)
				if err != nil {
					return nil, err
				}
				out[it.ID] = it
			}
			req = res.UnprocessedKeys
		}
	}
	return out, nil
}

func stateNames(states []work.State) string {
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// each runs fn(0..n-1), at most Concurrency at once, and returns the first
// error.
func (x *ItemIndex) each(ctx context.Context, n int, fn func(i int) error) error {
	workers := x.Concurrency
	if workers <= 0 {
		workers = 16
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue
				}
				if err := fn(i); err != nil {
					errs <- err
					cancel()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// CountQuery selects the groups to count and a span of list_at.
type CountQuery struct {
	// Groups to count; empty is every group.
	Groups []Group
	// Since and Before keep entries whose list_at is in [Since, Before);
	// zero is unbounded. For done items list_at is when they were done.
	Since, Before time.Time
}

func (q CountQuery) groups() []Group {
	if len(q.Groups) == 0 {
		return Groups()
	}
	return q.Groups
}

// Counts are item counts by group.
type Counts map[Group]int

// All is the count of every group.
func (c Counts) All() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Count counts the items of q's groups: one Select COUNT Query per
// partition (and per 1 MB of it), the partitions at once. It reads no item:
// what it costs is the index entries it reads (a read unit per 4 KB of
// them, KEYS_ONLY entries of about a hundred bytes) and a request per
// partition and page.
func (x *ItemIndex) Count(ctx context.Context, q CountQuery) (Counts, error) {
	type part struct {
		g Group
		k string
		n int
	}
	var parts []*part
	for _, g := range q.groups() {
		for shard := range x.shards() {
			parts = append(parts, &part{g: g, k: partitionKey(g, shard)})
		}
	}
	err := x.each(ctx, len(parts), func(i int) error {
		p := parts[i]
		b := dynamo.New()
		key := keyCondition(b, p.k, q.Since, q.Before)
		in := &dynamodb.QueryInput{TableName: &x.Table, IndexName: aws.String(ListedStateIndex),
			KeyConditionExpression: &key, ExpressionAttributeValues: b.Values, Select: types.SelectCount}
		for {
			out, err := x.DB.Query(ctx, in)
			if err != nil {
				return fmt.Errorf("count %s: %w", p.k, err)
			}
			p.n += int(out.Count)
			if len(out.LastEvaluatedKey) == 0 {
				return nil
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	})
	if err != nil {
		return nil, err
	}
	c := Counts{}
	for _, p := range parts {
		c[p.g] += p.n
	}
	return c, nil
}

// List calls fn for each matching item, newest (list_at) first; see
// ItemIndex.List.
func (m *Memory) List(_ context.Context, q ItemQuery, fn func(Item) error) error {
	if err := q.validate(); err != nil {
		return err
	}
	m.mu.Lock()
	var out []Item
	for _, it := range m.items {
		if q.Matches(it) {
			out = append(out, clone(it))
		}
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b Item) int {
		if c := strings.Compare(listAt(b), listAt(a)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for i, it := range out {
		if l := q.limit(); l > 0 && i >= l {
			return nil
		}
		if err := fn(it); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// Count counts the items of q's groups; see ItemIndex.Count.
func (m *Memory) Count(_ context.Context, q CountQuery) (Counts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := Counts{}
	for _, it := range m.items {
		g, at := GroupOf(it.State), listAt(it)
		if !slices.Contains(q.groups(), g) {
			continue
		}
		if (!q.Since.IsZero() && at < formatTime(q.Since)) || (!q.Before.IsZero() && at >= formatTime(q.Before)) {
			continue
		}
		c[g]++
	}
	return c, nil
}
