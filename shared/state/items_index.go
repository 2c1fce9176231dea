package state

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

	"github.com/triagehq/triage/shared/dynamoexpr"
	"github.com/triagehq/triage/shared/failure"
	"github.com/triagehq/triage/shared/pipeline"
)

// ItemQuery selects items by state. Zero fields do not filter.
type ItemQuery struct {
	// State is the state to list; States lists several (State, when set,
	// is one more). At least one state is required.
	State  State
	States []State
	// Stage keeps items at this stage.
	Stage pipeline.Stage
	// Classes keeps items whose last failure (last_error, else the dead
	// letter) has one of these classes.
	Classes []failure.Class
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
func (it Item) FailureClass() failure.Class {
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
func (q ItemQuery) states() []State {
	var out []State
	for _, s := range States() {
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
	for _, s := range append([]State{q.State}, q.States...) {
		if s != "" && !slices.Contains(States(), s) {
			return fmt.Errorf("list items: unknown state %q", s)
		}
	}
	if len(q.states()) == 0 {
		return errors.New("list items: a state is required")
	}
	return nil
}

// ItemsQueryAPI is the part of the DynamoDB client ItemIndex uses: Query
// through the index.
type ItemsQueryAPI interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// ItemIndex lists and counts items by state through the Items table's
// by-listed-state GSI (docs/design.md "Indexes"). Every item is in it, under
// list_key "<state>#<shard>" (range updated_at), which every write that
// moves the item sets in the same request: a state's items are spread over
// Shards partitions by the id's hash so that no partition is hot at the
// rate the deployment is sized for (docs/scale.md). Listing reads the
// partitions of the states asked for newest first and merges them;
// counting reads each partition's entries' stage (the index's read units
// are the entries' size either way; a Select COUNT would say nothing of the
// stage). GSI reads are eventually consistent: an item that changed a
// moment ago may be listed in its old state, so callers that act on an item
// re-check it with a conditional write.
type ItemIndex struct {
	DB ItemsQueryAPI
	// Table is the Items table name.
	Table string
	// Shards is the partitions per state, the stack's ItemIndexShards: it
	// must be the writers' (Items.IndexShards); zero is DefaultIndexShards.
	Shards int
	// PageSize is the Query page size; zero is 200.
	PageSize int32
	// Concurrency bounds the partitions read at once; zero is 16.
	Concurrency int
}

// ListedStateIndex is the Items table's GSI by state and shard.
const ListedStateIndex = "by-listed-state"

// DefaultIndexShards is the template's ItemIndexShards: the partitions of
// the by-listed-state index per state.
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
// shards partitions per state (zero is the default).
func ListKey(id string, s State, shards int) string {
	return partitionKey(s, int(idHash(id)%uint32(IndexShards(shards))))
}

func partitionKey(s State, shard int) string {
	return string(s) + "#" + strconv.Itoa(shard)
}

// CheckIndexShards says whether n is a shard count a deployment may set:
// 1 to MaxIndexShards.
func CheckIndexShards(n int) error {
	if n < 1 || n > MaxIndexShards {
		return fmt.Errorf("%d index shards: want 1 to %d", n, MaxIndexShards)
	}
	return nil
}

func (x *ItemIndex) shards() int { return IndexShards(x.Shards) }

func (x *ItemIndex) page() int32 {
	if x.PageSize > 0 {
		return x.PageSize
	}
	return 200
}

// partitions are the index partitions holding states.
func (x *ItemIndex) partitions(states []State) []string {
	var out []string
	for _, s := range states {
		for shard := range x.shards() {
			out = append(out, partitionKey(s, shard))
		}
	}
	return out
}

// keyCondition is list_key = key, and updated_at in [since, before) where
// set.
func keyCondition(b *dynamoexpr.Builder, key string, since, before time.Time) string {
	cond := "list_key = " + b.Str(key)
	switch {
	case !since.IsZero() && !before.IsZero():
		// updated_at is fixed-width milliseconds: BETWEEN is inclusive.
		cond += " AND updated_at BETWEEN " + b.Str(formatTime(since)) + " AND " + b.Str(formatTime(before.Add(-time.Millisecond)))
	case !since.IsZero():
		cond += " AND updated_at >= " + b.Str(formatTime(since))
	case !before.IsZero():
		cond += " AND updated_at < " + b.Str(formatTime(before))
	}
	return cond
}

// cursor reads one partition newest first, a page at a time.
type cursor struct {
	key   string
	buf   []Item
	start map[string]types.AttributeValue
	done  bool
}

// fill reads the cursor's next page; it returns the items it read.
func (x *ItemIndex) fill(ctx context.Context, c *cursor, since time.Time, page int32) (int, error) {
	b := dynamoexpr.New()
	key := keyCondition(b, c.key, since, time.Time{})
	out, err := x.DB.Query(ctx, &dynamodb.QueryInput{
		TableName: &x.Table, IndexName: aws.String(ListedStateIndex),
		KeyConditionExpression: &key, ExpressionAttributeValues: b.Values,
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(page), ExclusiveStartKey: c.start,
	})
	if err != nil {
		return 0, err
	}
	for _, av := range out.Items {
		it, err := decodeItem(av)
		if err != nil {
			return 0, err
		}
		c.buf = append(c.buf, it)
	}
	c.start = out.LastEvaluatedKey
	c.done = len(out.LastEvaluatedKey) == 0
	return len(out.Items), nil
}

// newer orders items newest (updated_at) first, then by id.
func newer(a, b Item) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return newer(h[i].buf[0], h[j].buf[0]) < 0 }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(v any)        { *h = append(*h, v.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// List calls fn for each item matching q, newest (updated_at) first, until
// q's limit, ErrStop from fn or another error from fn (which List returns).
// It reads the partitions of q's states page by page, newest first, and
// merges them, so that a page of the newest items costs about a page per
// partition whatever the state's size; at most q.MaxScan items in all
// (ErrScanLimit beyond). Each id is delivered once: an item that moves
// between the partitions read (a state change mid-listing) is listed in the
// first place it was read. Since narrows the
// key condition (updated_at ≥ Since, a superset: an item's updated_at is
// never before its last failure); the other filters apply to each item
// read.
func (x *ItemIndex) List(ctx context.Context, q ItemQuery, fn func(Item) error) error {
	if err := q.validate(); err != nil {
		return err
	}
	maxScan := q.MaxScan
	if maxScan == 0 {
		maxScan = DefaultMaxScan
	}
	keys := x.partitions(q.states())
	page := x.page()
	if l := q.limit(); l > 0 && int32(l) < page {
		// The newest l items are among each partition's first l.
		page = int32(l)
	}
	cursors := make([]*cursor, len(keys))
	for i, k := range keys {
		cursors[i] = &cursor{key: k}
	}
	var (
		mu      sync.Mutex
		scanned int
	)
	err := x.each(ctx, len(cursors), func(i int) error {
		n, err := x.fill(ctx, cursors[i], q.Since, page)
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
	for h.Len() > 0 {
		c := h[0]
		it := c.buf[0]
		c.buf = c.buf[1:]
		if !seen[it.ID] && q.Matches(it) {
			seen[it.ID] = true
			if err := fn(it); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
			delivered++
			if limit > 0 && delivered >= limit {
				return nil
			}
		}
		if len(c.buf) == 0 && !c.done {
			if maxScan > 0 && scanned >= maxScan {
				return fmt.Errorf("list %s items: %w (read %d)", stateNames(q.states()), ErrScanLimit, scanned)
			}
			n, err := x.fill(ctx, c, q.Since, x.page())
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
	return nil
}

func stateNames(states []State) string {
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

// CountQuery selects the partitions to count and a span of updated_at.
type CountQuery struct {
	// States to count; empty is every state.
	States []State
	// Stages to count; empty is every stage.
	Stages []pipeline.Stage
	// Since and Before keep items whose updated_at is in [Since, Before);
	// zero is unbounded.
	Since, Before time.Time
}

// Counts are item counts by state and stage.
type Counts map[State]map[pipeline.Stage]int

// Add adds n items in state s at stage st.
func (c Counts) Add(s State, st pipeline.Stage, n int) {
	if c[s] == nil {
		c[s] = map[pipeline.Stage]int{}
	}
	c[s][st] += n
}

// Of is the count of state s at stage st.
func (c Counts) Of(s State, st pipeline.Stage) int { return c[s][st] }

// Total is the count of state s at every stage.
func (c Counts) Total(s State) int {
	n := 0
	for _, v := range c[s] {
		n += v
	}
	return n
}

// All is the count of every state.
func (c Counts) All() int {
	n := 0
	for s := range c {
		n += c.Total(s)
	}
	return n
}

func (q CountQuery) states() []State {
	if len(q.States) == 0 {
		return States()
	}
	return q.States
}

func (q CountQuery) stages() []pipeline.Stage {
	if len(q.Stages) == 0 {
		return pipeline.Stages()
	}
	return q.Stages
}

// Count counts the items of q's states at q's stages: one Query per
// partition of each state (and per 1 MB of it), the partitions at once,
// that returns only each entry's stage. What it costs is the index entries
// it reads (read units by their size, as a Select COUNT would) and a
// request per partition and page.
func (x *ItemIndex) Count(ctx context.Context, q CountQuery) (Counts, error) {
	type part struct {
		s  State
		k  string
		by map[pipeline.Stage]int
	}
	var parts []*part
	for _, s := range q.states() {
		for shard := range x.shards() {
			parts = append(parts, &part{s: s, k: partitionKey(s, shard), by: map[pipeline.Stage]int{}})
		}
	}
	stages := q.stages()
	err := x.each(ctx, len(parts), func(i int) error {
		p := parts[i]
		b := dynamoexpr.New()
		key := keyCondition(b, p.k, q.Since, q.Before)
		proj := b.Name("stage")
		in := &dynamodb.QueryInput{TableName: &x.Table, IndexName: aws.String(ListedStateIndex),
			KeyConditionExpression: &key, ProjectionExpression: &proj,
			ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}
		for {
			out, err := x.DB.Query(ctx, in)
			if err != nil {
				return fmt.Errorf("count %s: %w", p.k, err)
			}
			for _, av := range out.Items {
				st, _ := av["stage"].(*types.AttributeValueMemberS)
				if st != nil && slices.Contains(stages, pipeline.Stage(st.Value)) {
					p.by[pipeline.Stage(st.Value)]++
				}
			}
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
		for st, n := range p.by {
			c.Add(p.s, st, n)
		}
	}
	return c, nil
}

// List calls fn for each matching item, newest (updated_at) first; see
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
	slices.SortFunc(out, newer)
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

// Count counts the items of q's states at q's stages; see ItemIndex.Count.
func (m *Memory) Count(_ context.Context, q CountQuery) (Counts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := Counts{}
	for _, it := range m.items {
		if !slices.Contains(q.states(), it.State) || !slices.Contains(q.stages(), it.Stage) {
			continue
		}
		if (!q.Since.IsZero() && it.UpdatedAt.Before(q.Since)) || (!q.Before.IsZero() && !it.UpdatedAt.Before(q.Before)) {
			continue
		}
		c.Add(it.State, it.Stage, 1)
	}
	return c, nil
}
