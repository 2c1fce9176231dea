package simulate

import (
	"slices"
	"strings"
	"time"
)

// DynamoDB's throughput limits per partition, which bound one key however
// the table scales: a key (an item, or one partition key value of a global
// secondary index) lives in one partition.
const (
	KeyWriteLimit = 1000 // write units per second
	KeyReadLimit  = 3000 // read units per second
)

// KeyLoad is one key's busiest second.
type KeyLoad struct {
	// Key is "<table>/<key>", e.g. "budget/2100-01-01", "items/item-000042"
	// or "items:by-listed-state/deadletter#03" for an index partition.
	Key string `json:"key"`
	// Table is the table (or "table:index") the key is in.
	Table string `json:"table"`
	// Second is the busiest second, from the start of the run.
	Second int64 `json:"second"`
	// WriteUnits and ReadUnits are the key's units in that second.
	WriteUnits float64 `json:"write_units"`
	ReadUnits  float64 `json:"read_units"`
}

// Share is the larger of the key's write and read load as a share of its
// partition's limits.
func (k KeyLoad) Share() float64 {
	return max(k.WriteUnits/KeyWriteLimit, k.ReadUnits/KeyReadLimit)
}

// keyMeter measures every DynamoDB key's load per second of virtual time:
// the busiest second of each table's busiest key, the busiest keys overall,
// and the requests that found their key's second already at its limit
// (throttles: DynamoDB would answer them with a throughput error, which the
// SDK retries; the model counts them and lets them through).
type keyMeter struct {
	// from is the first second measured.
	from int64
	// open holds the seconds not yet final: second → key → units.
	open map[int64]map[string]*keyUnits
	// final is the first second still open.
	final int64
	// byTable is each table's busiest key-second; top the busiest overall;
	// tables each table's busiest second, all keys together.
	byTable map[string]KeyLoad
	top     []KeyLoad
	tables  map[string]TableLoad
	// throttledWrites and throttledReads count requests over a limit.
	throttledWrites, throttledReads int64
}

type keyUnits struct{ w, r float64 }

// topKeys is how many of the busiest key-seconds a run keeps.
const topKeys = 12

// add records a request's units on key at virtual time at.
func (k *keyMeter) add(key string, w, r float64, at vt) {
	sec := max(at/int64(time.Second), k.final)
	if k.open == nil {
		k.open = map[int64]map[string]*keyUnits{}
	}
	m := k.open[sec]
	if m == nil {
		m = map[string]*keyUnits{}
		k.open[sec] = m
	}
	u := m[key]
	if u == nil {
		u = &keyUnits{}
		m[key] = u
	}
	if w > 0 && u.w+w > KeyWriteLimit && sec >= k.from {
		k.throttledWrites++
	}
	if r > 0 && u.r+r > KeyReadLimit && sec >= k.from {
		k.throttledReads++
	}
	u.w += w
	u.r += r
}

// advance finalises every second before now: nothing later can be
// timestamped before the simulation's current time.
func (k *keyMeter) advance(now vt) {
	upTo := now / int64(time.Second)
	if upTo <= k.final {
		return
	}
	for sec, m := range k.open {
		if sec < upTo {
			k.finish(sec, m)
			delete(k.open, sec)
		}
	}
	k.final = upTo
}

// close finalises every open second.
func (k *keyMeter) close() {
	for sec, m := range k.open {
		k.finish(sec, m)
	}
	k.open = nil
}

func (k *keyMeter) finish(sec int64, m map[string]*keyUnits) {
	if k.byTable == nil {
		k.byTable = map[string]KeyLoad{}
	}
	if sec < k.from {
		return
	}
	if k.tables == nil {
		k.tables = map[string]TableLoad{}
	}
	sums := map[string]*keyUnits{}
	for key, u := range m {
		table, _, _ := strings.Cut(key, "/")
		table, _, _ = strings.Cut(table, ":") // an index's units count toward its table's
		if sums[table] == nil {
			sums[table] = &keyUnits{}
		}
		sums[table].w += u.w
		sums[table].r += u.r
	}
	for table, u := range sums {
		t := k.tables[table]
		t.WriteUnits, t.ReadUnits = max(t.WriteUnits, u.w), max(t.ReadUnits, u.r)
		k.tables[table] = t
	}
	for key, u := range m {
		table, _, _ := strings.Cut(key, "/")
		l := KeyLoad{Key: key, Table: table, Second: sec, WriteUnits: u.w, ReadUnits: u.r}
		if cur, ok := k.byTable[table]; !ok || busier(l, cur) < 0 {
			k.byTable[table] = l
		}
		if len(k.top) < topKeys || busier(l, k.top[len(k.top)-1]) < 0 {
			k.top = insertTop(k.top, l)
		}
	}
}

// busier orders key-seconds busiest first: the larger share, then the
// earlier second, then the key, so that a run's figures do not depend on
// the order seconds are finalised in.
func busier(a, b KeyLoad) int {
	switch {
	case a.Share() > b.Share():
		return -1
	case a.Share() < b.Share():
		return 1
	case a.Second != b.Second:
		return int(a.Second - b.Second)
	}
	return strings.Compare(a.Key, b.Key)
}

// insertTop adds l to top (busiest first), keeping one entry per key and
// at most topKeys.
func insertTop(top []KeyLoad, l KeyLoad) []KeyLoad {
	if i := slices.IndexFunc(top, func(x KeyLoad) bool { return x.Key == l.Key }); i >= 0 {
		if busier(top[i], l) <= 0 {
			return top
		}
		top = slices.Delete(top, i, i+1)
	}
	i, _ := slices.BinarySearchFunc(top, l, busier)
	top = slices.Insert(top, i, l)
	if len(top) > topKeys {
		top = top[:topKeys]
	}
	return top
}

// TableLoad is a table's busiest second (its indexes included), all keys
// together: against an on-demand table's default quota of 40,000 units a
// second each way.
type TableLoad struct {
	WriteUnits float64 `json:"write_units"`
	ReadUnits  float64 `json:"read_units"`
}

// TableQuota is an on-demand table's default throughput quota (read and
// write units a second each), which an operator can have raised.
const TableQuota = 40_000

// KeyLoads is a run's DynamoDB key load.
type KeyLoads struct {
	// Hottest is the busiest key-second of the run; Top the busiest keys,
	// busiest first; ByTable each table's busiest key.
	Hottest KeyLoad            `json:"hottest"`
	Top     []KeyLoad          `json:"top"`
	ByTable map[string]KeyLoad `json:"by_table"`
	// ThrottledWrites and ThrottledReads count requests that found their
	// key's second over its limit.
	ThrottledWrites int64 `json:"throttled_writes"`
	ThrottledReads  int64 `json:"throttled_reads"`
	// Tables is each table's busiest second.
	Tables map[string]TableLoad `json:"tables"`
}

func (k *keyMeter) loads() KeyLoads {
	k.close()
	out := KeyLoads{Top: slices.Clone(k.top), ByTable: k.byTable, ThrottledWrites: k.throttledWrites, ThrottledReads: k.throttledReads,
		Tables: k.tables}
	if len(out.Top) > 0 {
		out.Hottest = out.Top[0]
	}
	return out
}
