package simulate

import (
	"testing"
	"time"
)

func msgs(q *queue, visibleAt ...vt) []*message {
	out := make([]*message, len(visibleAt))
	for i, at := range visibleAt {
		out[i] = &message{id: string(rune('a' + i)), seq: uint64(i), visibleAt: at}
		q.alive++
		q.put(out[i])
	}
	return out
}

func TestQueueTake(t *testing.T) {
	t.Parallel()
	s := int64(time.Second)
	tests := map[string]struct {
		visible    []vt
		at         vt
		n          int
		window     time.Duration
		wantIDs    string
		wantDefer  vt
		maxReceive int
		received   int
		wantMoved  int
	}{
		"oldest visible first":        {visible: []vt{3 * s, 1 * s, 2 * s}, at: 5 * s, n: 10, wantIDs: "bca"},
		"only visible":                {visible: []vt{1 * s, 9 * s}, at: 5 * s, n: 10, wantIDs: "a"},
		"at most n":                   {visible: []vt{1 * s, 2 * s, 3 * s}, at: 5 * s, n: 2, wantIDs: "ab"},
		"window waits for a batch":    {visible: []vt{4 * s}, at: 4 * s, n: 10, window: time.Second, wantDefer: 5 * s},
		"window over":                 {visible: []vt{4 * s}, at: 5 * s, n: 10, window: time.Second, wantIDs: "a"},
		"full batch ignores window":   {visible: []vt{4 * s, 4 * s}, at: 4 * s, n: 2, window: time.Second, wantIDs: "ab"},
		"nothing visible":             {visible: []vt{9 * s}, at: 5 * s, n: 10},
		"redrive at max receives":     {visible: []vt{1 * s, 2 * s}, at: 5 * s, n: 10, maxReceive: 5, received: 5, wantMoved: 2},
		"below max receives delivers": {visible: []vt{1 * s}, at: 5 * s, n: 10, maxReceive: 5, received: 4, wantIDs: "a"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := newQueue("q", 0, 30*time.Second, tc.maxReceive, nil)
			for _, m := range msgs(q, tc.visible...) {
				m.receives = tc.received
			}
			moved := 0
			batch, deferTo := q.take(tc.at, tc.n, tc.window, func(*message) { moved++ })
			ids := ""
			for _, m := range batch {
				ids += m.id
				if m.receives != tc.received+1 || m.visibleAt != tc.at+int64(30*time.Second) || q.inflight[m.receipt] != m {
					t.Errorf("%s not received properly: %+v", m.id, m)
				}
			}
			if ids != tc.wantIDs || deferTo != tc.wantDefer || moved != tc.wantMoved {
				t.Fatalf("take = %q defer %d moved %d; want %q defer %d moved %d", ids, deferTo, moved, tc.wantIDs, tc.wantDefer, tc.wantMoved)
			}
			if want := len(tc.visible) - moved; q.alive != want {
				t.Fatalf("alive = %d, want %d", q.alive, want)
			}
		})
	}
}

func TestLaneClock(t *testing.T) {
	t.Parallel()
	var c laneClock
	c.base = 100
	if c.now() != 100 || c.startRecord() != 100 {
		t.Fatal("outside an invocation the clock reads the base")
	}
	c.begin(1000, 2)
	c.startRecord()
	c.spend(50) // record 1 on lane 0: 1000..1050
	if c.now() != 1000 {
		t.Fatalf("now = %d, want 1000: lane 1 is still free", c.now())
	}
	if got := c.startRecord(); got != 1000 || c.cur != 1 {
		t.Fatalf("record 2 starts at %d on lane %d, want 1000 on lane 1", got, c.cur)
	}
	c.spend(20) // lane 1: 1000..1020
	if got := c.startRecord(); got != 1020 || c.cur != 1 {
		t.Fatalf("record 3 starts at %d on lane %d, want 1020 on lane 1", got, c.cur)
	}
	c.setLane(1100)
	c.spendTail(5)
	if got := c.end(); got != 1105 {
		t.Fatalf("end = %d, want the slowest lane (1100) plus the tail (5)", got)
	}
	if c.active {
		t.Fatal("still active after end")
	}
}
