package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// Resolution is an operator closing a dead letter that will not be
// replayed: a malformed message, an item that does not exist, an item given
// up on. It is recorded on the item (Item.Resolution) when there is one,
// and always in the error log (ErrorLog.AppendResolution), which `triage
// report resolved` reads.
type Resolution struct {
	// ItemID is the item the dead letter named; for a message that named
	// none, "message:<DLQ message id>".
	ItemID string `dynamodbav:"item_id" json:"item_id"`
	// At is when it was resolved and By who resolved it.
	At time.Time `dynamodbav:"at" json:"at"`
	By string    `dynamodbav:"by" json:"by"`
	// Note says why it is closed; required, at most MaxNoteBytes.
	Note string `dynamodbav:"note" json:"note"`
	// Stage is the DLQ the dead letter was on; Class its class (empty for
	// a message that is not a triage dead letter).
	Stage work.Stage `dynamodbav:"stage" json:"stage"`
	Class work.Class `dynamodbav:"class,omitempty" json:"error_class,omitempty"`
	// DeadLetterID and MessageID name the dead letter and its DLQ message.
	DeadLetterID string `dynamodbav:"dead_letter_id,omitempty" json:"dead_letter_id,omitempty"`
	MessageID    string `dynamodbav:"message_id" json:"message_id"`
	// Read is the item as the resolver read it when it judged the dead
	// letter the item's current one. Resolve records the resolution only
	// while the item is still so — the same state, stage, attempts at that
	// stage and replay count — and a write since (a replay, a new failure)
	// makes it ErrConflict. Nil records it on any item that exists. Never
	// stored.
	Read *Item `dynamodbav:"-" json:"-"`
}

// ResolvedClass is the error-log pseudo-class resolutions are kept under:
// the by-class index then finds them with one query, and the failure
// reports, which read work.Classes(), never count them.
const ResolvedClass work.Class = "RESOLVED"

// normalize validates r and bounds its note.
func (r Resolution) normalize() (Resolution, error) {
	r.Note = strings.TrimSpace(r.Note)
	switch {
	case r.ItemID == "":
		return r, errors.New("resolve: an item id is required")
	case r.Note == "":
		return r, fmt.Errorf("resolve %s: a note is required: say why the dead letter is closed", r.ItemID)
	case strings.TrimSpace(r.By) == "":
		return r, fmt.Errorf("resolve %s: who resolves (by) is required", r.ItemID)
	case len(r.By) > MaxByBytes:
		return r, fmt.Errorf("resolve %s: who resolves (by) is longer than %d bytes", r.ItemID, MaxByBytes)
	case len(r.DeadLetterID) > MaxRefBytes || len(r.MessageID) > MaxRefBytes:
		return r, fmt.Errorf("resolve %s: dead letter or message id longer than %d bytes", r.ItemID, MaxRefBytes)
	}
	// The item keeps its resolution, bounded like a note.
	n, _ := normalizeNote(r.ItemID, Note{Text: r.Note, At: r.At})
	r.Note, r.At = n.Text, n.At
	return r, nil
}

// Resolve records a resolution on the item:
//
//	condition  attribute_exists(item_id)
//	           [AND state = :state AND stage = :stage
//	            AND attempts_<stage> = :attempts AND replay_count = :replay]  (r.Read's)
//	update     SET resolution = :resolution
//
// Like a note it is not a state change: the item stays where it is
// (deadletter, permanent_failure), updated_at and last_write are left alone,
// and `triage items replay` can still revive it. A later resolution
// replaces an earlier one; the error log keeps them all. ErrNotFound when
// the item does not exist; ErrConflict when it is no longer as r.Read.
func (s *Items) Resolve(ctx context.Context, r Resolution) error {
	r, err := r.normalize()
	if err != nil {
		return err
	}
	read := r.Read
	av, err := attributevalue.Marshal(r)
	if err != nil {
		return fmt.Errorf("resolve %s: encode: %w", r.ItemID, err)
	}
	b := dynamo.New()
	update := "SET resolution = " + b.Value(av)
	cond := "attribute_exists(item_id)"
	if read != nil {
		cond += " AND " + b.Name("state") + " = " + b.Str(string(read.State)) + " AND " + b.Name("stage") + " = " + b.Str(string(read.Stage)) +
			" AND " + numEquals(b, attemptsAttr(read.Stage), read.Attempts[read.Stage]) + " AND " + numEquals(b, "replay_count", read.ReplayCount)
	}
	_, err = s.DB.UpdateItem(ctx, b.Update(s.Table, itemKey(r.ItemID), update, cond))
	if err != nil {
		if !isConditionFailed(err) {
			return fmt.Errorf("resolve %s: %w", r.ItemID, err)
		}
		_, found, rerr := s.conflictItem(ctx, r.ItemID, err)
		switch {
		case rerr != nil:
			return fmt.Errorf("resolve %s: the condition failed and the item could not be read back (%v): %w", r.ItemID, err, rerr)
		case !found:
			return fmt.Errorf("resolve %s: %w", r.ItemID, ErrNotFound)
		}
		return fmt.Errorf("resolve %s: the item changed since it was read: %w", r.ItemID, ErrConflict)
	}
	return nil
}

// resolvable reports whether cur is still as read, the state a resolution
// was judged on (Resolution.Read).
func resolvable(cur Item, read *Item) bool {
	return read == nil || (cur.State == read.State && cur.Stage == read.Stage &&
		cur.Attempts[read.Stage] == read.Attempts[read.Stage] && cur.ReplayCount == read.ReplayCount)
}

// Resolve records a resolution on the item; see Items.Resolve.
func (m *Memory) Resolve(_ context.Context, r Resolution) error {
	r, err := r.normalize()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.items[r.ItemID]
	if !ok {
		return fmt.Errorf("resolve %s: %w", r.ItemID, ErrNotFound)
	}
	if !resolvable(cur, r.Read) {
		return fmt.Errorf("resolve %s: the item changed since it was read: %w", r.ItemID, ErrConflict)
	}
	r.Read = nil
	cur.Resolution = &r
	m.items[r.ItemID] = cur
	return nil
}

// AppendResolution writes r to the error log under ResolvedClass, keyed by
// its item and time like a failure, with the same retention.
func (l *ErrorLog) AppendResolution(ctx context.Context, r Resolution) error {
	r, err := r.normalize()
	if err != nil {
		return err
	}
	rec := toLogRecord(resolutionEntry(r))
	rec.ResolvedClass, rec.DeadLetterID = string(r.Class), r.DeadLetterID
	if err := dynamo.Put(ctx, l.DB, l.Table, rec); err != nil {
		return fmt.Errorf("error log resolution for %s: %w", r.ItemID, err)
	}
	return nil
}

// AppendResolution records r in the in-memory error log.
func (m *Memory) AppendResolution(ctx context.Context, r Resolution) error {
	r, err := r.normalize()
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.resolutions = append(m.resolutions, r)
	m.mu.Unlock()
	return m.Append(ctx, resolutionEntry(r))
}

// Resolutions returns the resolutions in the in-memory error log.
func (m *Memory) Resolutions() []Resolution {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Resolution(nil), m.resolutions...)
}

// resolutionEntry is r as an error-log entry.
func resolutionEntry(r Resolution) LogEntry {
	what := "resolved"
	if r.Class != "" {
		what += " a " + string(r.Class) + " dead letter"
	}
	return LogEntry{
		Kind: LogResolution, By: r.By, ItemID: r.ItemID, Stage: r.Stage, Class: ResolvedClass, Message: r.Note, MessageID: r.MessageID,
		Decision: what + " on the " + string(r.Stage) + " DLQ by " + r.By, OccurredAt: r.At,
	}
}

// Resolutions calls fn for every resolution in [since, until) (a zero until
// is unbounded), oldest first: a Query of each of the pseudo-class's
// ClassShards partitions of the by-class index.
func (r *ErrorLogReader) Resolutions(ctx context.Context, since, until time.Time, fn func(Resolution) error) error {
	return r.query(ctx, ResolvedClass, since, until, func(rec logRecord) error {
		return fn(Resolution{
			ItemID: rec.ItemID, At: parseTime(rec.At), By: rec.By, Note: rec.Message, Stage: work.Stage(rec.Stage),
			Class: work.Class(rec.ResolvedClass), DeadLetterID: rec.DeadLetterID, MessageID: rec.MessageID,
		})
	})
}
