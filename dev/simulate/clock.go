package simulate

import "time"

// Epoch is the virtual time every run starts at. It lies in the future on
// purpose: the runner derives real contexts (context.WithDeadline) from an
// invocation's virtual deadline, and a deadline in the wall clock's past
// would cancel them at once.
var Epoch = time.Date(2100, time.January, 1, 0, 0, 0, 0, time.UTC)

// vt is virtual time: nanoseconds since Epoch.
type vt = int64

func toTime(t vt) time.Time { return Epoch.Add(time.Duration(t)) }

func fromTime(t time.Time) vt { return int64(t.Sub(Epoch)) }

// laneClock is the virtual clock the runner, the breakers and the
// simulated upstreams read. Outside an invocation it reads the simulation's
// time. Inside one it models the invocation's in-batch concurrency: the
// batch runs on Lanes lanes, each record on the lane that frees first, and
// every upstream call and AWS request adds its duration to its record's
// lane. The clock then reads the earliest time a lane is free — exactly the
// start of the next record, which is what the runner's deadline check and
// claim need; during a record's bookkeeping it may read up to that record's
// duration early, never late. The runner itself runs with Concurrency 1, so
// records are processed one after another in a fixed order and a run is
// deterministic.
type laneClock struct {
	base   vt
	lanes  []vt
	cur    int
	tail   vt
	active bool
}

// Now returns the virtual time as the runner sees it.
func (c *laneClock) Now() time.Time { return toTime(c.now()) }

func (c *laneClock) now() vt {
	if !c.active {
		return c.base
	}
	m := c.lanes[0]
	for _, l := range c.lanes[1:] {
		m = min(m, l)
	}
	return m
}

// begin starts an invocation at t0 with n lanes.
func (c *laneClock) begin(t0 vt, n int) {
	c.active, c.cur, c.tail, c.base = true, 0, 0, t0
	c.lanes = c.lanes[:0]
	for range max(n, 1) {
		c.lanes = append(c.lanes, t0)
	}
}

// startRecord puts the next record on the lane that frees first (the lowest
// index on a tie) and returns its start.
func (c *laneClock) startRecord() vt {
	if !c.active {
		return c.base
	}
	c.cur = 0
	for i, l := range c.lanes {
		if l < c.lanes[c.cur] {
			c.cur = i
		}
	}
	return c.lanes[c.cur]
}

// lane returns the current record's own time.
func (c *laneClock) lane() vt {
	if !c.active {
		return c.base
	}
	return c.lanes[c.cur]
}

// spend adds d to the current record's lane.
func (c *laneClock) spend(d time.Duration) {
	if c.active {
		c.lanes[c.cur] += int64(d)
	}
}

// setLane moves the current record's lane to t (a call cut at a deadline).
func (c *laneClock) setLane(t vt) {
	if c.active {
		c.lanes[c.cur] = t
	}
}

// spendTail adds d after every lane: the batch's closing requests.
func (c *laneClock) spendTail(d time.Duration) {
	if c.active {
		c.tail += int64(d)
	}
}

// end closes the invocation and returns when it ended.
func (c *laneClock) end() vt {
	m := c.lanes[0]
	for _, l := range c.lanes[1:] {
		m = max(m, l)
	}
	c.active = false
	return m + c.tail
}
