package sqs

import (
	"container/heap"
	"container/list"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"time"
)

// message is one message of a queue. It is always on the queue's all list
// (in the order it arrived, for retention) and, by its state, either on
// the ready list or in the timers heap.
type message struct {
	id, body       string
	md5Body        string
	attrs          map[string]attrValue
	systemAttrs    map[string]attrValue
	size           int
	sent           time.Time
	firstReceive   time.Time
	receivedAt     time.Time // the current receive, for the 12-hour limit
	receiveCount   int
	serial         int // receipts issued: a handle's serial is at most this
	state          msgState
	due            time.Time // when a delayed or in-flight message is visible
	heapIndex      int
	readyElem      *list.Element
	allElem        *list.Element
	senderID       string
	traceHeaderSet bool
	// deadLetterSource is the ARN of the queue whose RedrivePolicy moved the
	// message here; empty for a message sent to this queue.
	deadLetterSource string
}

type msgState uint8

const (
	stateReady msgState = iota
	stateDelayed
	stateInflight
)

// timers is a min-heap of the delayed and in-flight messages by due time.
type timers []*message

func (h timers) Len() int           { return len(h) }
func (h timers) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h timers) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIndex, h[j].heapIndex = i, j
}
func (h *timers) Push(x any) {
	m := x.(*message)
	m.heapIndex = len(*h)
	*h = append(*h, m)
}
func (h *timers) Pop() any {
	old := *h
	m := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	m.heapIndex = -1
	return m
}

// queue is one standard queue. Every operation holds mu; each costs O(1)
// in the queue's depth, or O(log n) for a message that changes timers.
type queue struct {
	name, arn string
	created   time.Time
	modified  time.Time
	tags      map[string]string

	mu       sync.Mutex
	deleted  bool
	cfg      config
	msgs     map[string]*message
	ready    list.List // *message, oldest ready first
	all      list.List // *message, in arrival order
	timers   timers
	inflight int
	delayed  int
	purged   time.Time
	// wake is closed (and replaced) when a message becomes ready while
	// long polls wait on the queue.
	wake    chan struct{}
	waiters int
}

func newQueue(name, arn string, cfg config, now time.Time) *queue {
	return &queue{name: name, arn: arn, created: now, modified: now, cfg: cfg, msgs: map[string]*message{},
		tags: map[string]string{}, wake: make(chan struct{})}
}

// advance moves the messages whose delay or visibility timeout has ended
// to the ready list and drops the messages past the retention period.
func (q *queue) advance(now time.Time) {
	for len(q.timers) > 0 && !q.timers[0].due.After(now) {
		m := heap.Pop(&q.timers).(*message)
		if m.state == stateDelayed {
			q.delayed--
		} else {
			q.inflight--
		}
		q.makeReady(m)
	}
	for e := q.all.Front(); e != nil; e = q.all.Front() {
		m := e.Value.(*message)
		if now.Sub(m.sent) < q.cfg.retention {
			break
		}
		q.remove(m)
	}
}

func (q *queue) makeReady(m *message) {
	m.state = stateReady
	m.readyElem = q.ready.PushBack(m)
	q.signal()
}

// signal wakes the long polls waiting on q, to look again: a message is
// ready, or one will be sooner than they planned to look.
func (q *queue) signal() {
	if q.waiters > 0 {
		close(q.wake)
		q.wake = make(chan struct{})
	}
}

// add puts m on the queue, ready or delayed until m.due.
func (q *queue) add(m *message, now time.Time) {
	q.msgs[m.id] = m
	m.allElem = q.all.PushBack(m)
	if m.due.After(now) {
		m.state = stateDelayed
		q.delayed++
		heap.Push(&q.timers, m)
		q.signal()
		return
	}
	q.makeReady(m)
}

// remove takes m off the queue whatever its state.
func (q *queue) remove(m *message) {
	switch m.state {
	case stateReady:
		q.ready.Remove(m.readyElem)
		m.readyElem = nil
	case stateDelayed:
		heap.Remove(&q.timers, m.heapIndex)
		q.delayed--
	case stateInflight:
		heap.Remove(&q.timers, m.heapIndex)
		q.inflight--
	}
	q.all.Remove(m.allElem)
	m.allElem = nil
	delete(q.msgs, m.id)
}

// receive takes up to n ready messages and puts them in flight for
// visibility. A message already received maxReceiveCount times is not
// delivered but returned in moved, for the caller to put on the dead-letter
// queue (redrive: the queue's RedrivePolicy, when its target exists).
func (q *queue) receive(now time.Time, n int, visibility time.Duration, redrive bool) (got, moved []*message) {
	for len(got) < n {
		e := q.ready.Front()
		if e == nil {
			break
		}
		m := e.Value.(*message)
		if redrive && m.receiveCount >= q.cfg.redrive.MaxReceiveCount {
			q.remove(m)
			moved = append(moved, m)
			continue
		}
		q.ready.Remove(e)
		m.readyElem = nil
		m.receiveCount++
		m.serial++
		if m.firstReceive.IsZero() {
			m.firstReceive = now
		}
		m.receivedAt = now
		m.state = stateInflight
		m.due = now.Add(visibility)
		q.inflight++
		heap.Push(&q.timers, m)
		got = append(got, m)
	}
	return got, moved
}

// changeVisibility sets the visibility timeout of the in-flight message
// that h names to visibility from now.
func (q *queue) changeVisibility(h handle, visibility time.Duration, now time.Time, raw string) *apiError {
	m := q.msgs[h.id]
	if m == nil || h.serial > m.serial {
		return newError(errInvalidParameterValue, "Value %s for parameter ReceiptHandle is invalid. Reason: "+
			"Message does not exist or is not available for visibility timeout change.", raw)
	}
	if m.state != stateInflight {
		return newError(errMessageNotInflight, "Message is not in flight.")
	}
	if now.Add(visibility).Sub(m.receivedAt) > maxVisibility {
		return newError(errInvalidParameterValue, "Value %d for parameter VisibilityTimeout is invalid. Reason: "+
			"Total VisibilityTimeout for the message is beyond the limit [43200 seconds]", int(visibility/time.Second))
	}
	m.due = now.Add(visibility)
	heap.Fix(&q.timers, m.heapIndex)
	q.advance(now)
	q.signal()
	return nil
}

// deleteMessage deletes the message that h names. A handle of a message
// that is gone is no error: the message was deleted (or expired) already.
func (q *queue) deleteMessage(h handle) *apiError {
	m := q.msgs[h.id]
	if m == nil {
		return nil
	}
	if h.serial > m.serial {
		return newError(errReceiptHandleIsInvalid, "The input receipt handle is invalid.")
	}
	q.remove(m)
	return nil
}

func (q *queue) purge() {
	for e := q.all.Front(); e != nil; e = q.all.Front() {
		q.remove(e.Value.(*message))
	}
}

// handle is a receipt handle's content: the queue, the message and which
// of its receives issued it.
type handle struct {
	queue, id string
	serial    int
}

// handlePrefix starts every receipt handle, as AWS's do.
const handlePrefix = "AQEB"

func (h handle) encode() string {
	return handlePrefix + base64.RawURLEncoding.EncodeToString([]byte(h.queue+"\n"+h.id+"\n"+strconv.Itoa(h.serial)))
}

func parseHandle(s string) (handle, bool) {
	rest, ok := strings.CutPrefix(s, handlePrefix)
	if !ok {
		return handle{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return handle{}, false
	}
	parts := strings.Split(string(raw), "\n")
	if len(parts) != 3 {
		return handle{}, false
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 1 {
		return handle{}, false
	}
	return handle{queue: parts[0], id: parts[1], serial: n}, true
}
