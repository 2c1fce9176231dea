package ledger

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/triagehq/triage/internal/work"
)

// Memory is an in-memory Trail with the same rules, for handler tests and
// the local tools. It is safe for concurrent use.
type Memory struct {
	mu         sync.Mutex
	executions []Execution
	notices    map[string]Notice // by item id + "\x00" + key
	// Fail, when set, is returned by every write instead of writing.
	Fail error
}

// NewMemory returns an empty trail.
func NewMemory() *Memory { return &Memory{notices: map[string]Notice{}} }

// Record stores e; the same execution twice overwrites itself.
func (m *Memory) Record(_ context.Context, e Execution) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return m.Fail
	}
	e.Reason = work.Ellipsis(e.Reason, MaxReasonBytes)
	for i, x := range m.executions {
		if x.ItemID == e.ItemID && executionKey(x) == executionKey(e) {
			m.executions[i] = e
			return nil
		}
	}
	m.executions = append(m.executions, e)
	return nil
}

// ClaimNotice applies Trail.ClaimNotice's condition.
func (m *Memory) ClaimNotice(_ context.Context, c NoticeClaim) (Notice, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return Notice{}, m.Fail
	}
	k := c.ItemID + "\x00" + c.Key
	cur, ok := m.notices[k]
	claimable := !ok ||
		(cur.State == NoticePending && !cur.NotBefore.After(c.Now)) ||
		(cur.State == NoticeSending && cur.LeaseUntil.Before(c.Now))
	if !claimable {
		return Notice{}, &ClaimError{Current: cur}
	}
	n := cur
	if !ok {
		n = Notice{ItemID: c.ItemID, Key: c.Key, FirstAt: c.Now}
	}
	n.Event, n.Stage, n.Class, n.Attempt = c.Event, c.Stage, c.Class, c.Attempt
	n.State, n.Carrier, n.LeaseOwner, n.LeaseUntil = NoticeSending, c.Carrier, c.Owner, c.Now.Add(c.LeaseFor)
	n.Attempts++
	n.LastAt, n.NotBefore = c.Now, time.Time{}
	n.LastWrite = c.Owner + "/claim/" + strconv.FormatInt(c.Now.UnixMilli(), 10)
	m.notices[k] = n
	return n, nil
}

// SettleNotice applies Trail.SettleNotice's condition.
func (m *Memory) SettleNotice(_ context.Context, s NoticeSettle) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return m.Fail
	}
	if !s.State.Final() && s.State != NoticePending {
		return fmt.Errorf("settle notice %s: state %q is not delivered, pending or abandoned", s.Key, s.State)
	}
	k := s.ItemID + "\x00" + s.Key
	cur, ok := m.notices[k]
	if !ok || cur.State != NoticeSending || cur.LeaseOwner != s.Owner {
		return fmt.Errorf("settle notice %s: %w", s.Key, ErrLeaseLost)
	}
	cur.State, cur.LastAt = s.State, s.Now
	cur.LeaseOwner, cur.LeaseUntil = "", time.Time{}
	if s.Status != 0 {
		cur.Status = s.Status
	}
	if s.Class != "" {
		cur.LastClass, cur.LastError = s.Class, work.Ellipsis(s.Error, MaxReasonBytes)
	}
	cur.NotBefore = time.Time{}
	if s.State == NoticePending {
		cur.NotBefore = s.NotBefore
	}
	cur.LastWrite = s.Owner + "/" + string(s.State) + "/" + strconv.FormatInt(s.Now.UnixMilli(), 10)
	m.notices[k] = cur
	return nil
}

// ForItem returns the item's records oldest first, at most limit (zero is
// 500).
func (m *Memory) ForItem(_ context.Context, itemID string, limit int) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if limit <= 0 {
		limit = 500
	}
	var out []Entry
	for _, e := range m.executions {
		if e.ItemID == itemID {
			e := e
			out = append(out, Entry{Execution: &e})
		}
	}
	for _, n := range m.notices {
		if n.ItemID == itemID {
			n := n
			out = append(out, Entry{Notice: &n})
		}
	}
	sortEntries(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Executions returns every execution recorded, in write order.
func (m *Memory) Executions() []Execution {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Execution(nil), m.executions...)
}

// Notice returns the record of the notice key of itemID.
func (m *Memory) Notice(itemID, key string) (Notice, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.notices[itemID+"\x00"+key]
	if !ok {
		return Notice{}, errors.New("no such notice")
	}
	return n, nil
}
