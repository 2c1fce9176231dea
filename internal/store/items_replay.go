package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/triagehq/triage/internal/store/dynamo"
	"github.com/triagehq/triage/internal/work"
)

// ReplayMode says where a replay resumes an item.
type ReplayMode string

const (
	// FromFailedStage resumes the item at the stage it failed at; earlier
	// stages are not run again. The default.
	FromFailedStage ReplayMode = "from_failed_stage"
	// FullRestart sends the item back to fetch with status received and
	// every stage's attempts reset, as if it were new.
	FullRestart ReplayMode = "full_restart"
)

// ReplayModes lists every mode.
func ReplayModes() []ReplayMode { return []ReplayMode{FromFailedStage, FullRestart} }

// ParseReplayMode returns the mode named s; empty is FromFailedStage.
func ParseReplayMode(s string) (ReplayMode, error) {
	if s == "" {
		return FromFailedStage, nil
	}
	if m := ReplayMode(s); slices.Contains(ReplayModes(), m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown replay mode %q (want from_failed_stage or full_restart)", s)
}

// Target returns the stage a replay in mode m of an item that failed at
// failed resumes at.
func (m ReplayMode) Target(failed work.Stage) work.Stage {
	if m == FullRestart {
		return work.Fetch
	}
	return failed
}

// DeadLetterStates are the states a dead letter's item is in while its
// replay is possible: dead-lettered, or failed with the DLQ hand-off not yet
// confirmed. They are the default ReplayRequest.From.
func DeadLetterStates() []work.State { return []work.State{work.Deadletter, work.Failed} }

// BackstopStates are the states an item may be in when the queue's own
// redrive backstop moved its message to the DLQ: the item never reached a
// terminal state. A Working item qualifies only once its lease has expired.
func BackstopStates() []work.State {
	return []work.State{work.Queued, work.Retryable, work.Working, work.Failed, work.Deadletter}
}

// ReplayRequest moves an item back to queued for an operator replay, in one
// conditional write: the state move, the reset of the target stage's
// attempts (every stage's for FullRestart), replay_count + 1 and a
// ReplayRecord appended to the item's replays.
type ReplayRequest struct {
	// ItemID is the item to replay.
	ItemID string
	// Stage is the stage the item must be at: where it failed.
	Stage work.Stage
	// From lists the states the item may be in; nil means DeadLetterStates.
	// Every state must be one Transitions lets move to Queued; Working
	// matches only an expired lease.
	From []work.State
	// PrevReplayCount is the replay count the caller read; the write fails
	// with ErrConflict if another replay happened since.
	PrevReplayCount int
	// Mode is FromFailedStage (the zero value means it) or FullRestart.
	Mode ReplayMode
	// Note is the operator's remediation note; required.
	Note string
	// By names who replayed; required.
	By string
	// Class is the failure class the item is replayed from, for the record.
	Class work.Class
	// DeadLetterID and MessageID name the dead letter and DLQ message the
	// replay came from, if any. They make a replay that was written but not
	// yet sent recognisable (see Item.PendingReplay).
	DeadLetterID string
	MessageID    string
	// Now is the time of the replay; it is kept to the millisecond.
	Now time.Time
}

// ReplayError is a replay whose condition failed. Current is the item as it
// was (nil if it does not exist), so the caller can tell a duplicate from a
// race without another read.
type ReplayError struct {
	// ItemID is the item the replay was for.
	ItemID string
	// Current is the item as the failed write found it; nil if it does not
	// exist.
	Current *Item
}

// Error describes the item's actual position.
func (e *ReplayError) Error() string {
	if e.Current == nil {
		return fmt.Sprintf("replay %s: item does not exist", e.ItemID)
	}
	return fmt.Sprintf("replay %s: item is %s at %s with %d replays", e.ItemID, e.Current.State, e.Current.Stage, e.Current.ReplayCount)
}

// Is matches ErrConflict, and ErrNotFound when the item does not exist.
func (e *ReplayError) Is(target error) bool {
	return target == ErrConflict || (target == ErrNotFound && e.Current == nil)
}

// normalize validates req and fills its defaults.
func (req ReplayRequest) normalize() (ReplayRequest, error) {
	var err error
	if req.Mode, err = ParseReplayMode(string(req.Mode)); err != nil {
		return req, fmt.Errorf("replay %s: %w", req.ItemID, err)
	}
	switch {
	case req.ItemID == "":
		return req, errors.New("replay: item id is required")
	case !req.Stage.Valid():
		return req, fmt.Errorf("replay %s: stage %q is not fetch, llm or notify", req.ItemID, req.Stage)
	case strings.TrimSpace(req.Note) == "":
		return req, fmt.Errorf("replay %s: a remediation note is required", req.ItemID)
	case strings.TrimSpace(req.By) == "":
		return req, fmt.Errorf("replay %s: who replays (by) is required", req.ItemID)
	case req.PrevReplayCount < 0:
		return req, fmt.Errorf("replay %s: negative replay count", req.ItemID)
	case len(req.By) > MaxByBytes:
		return req, fmt.Errorf("replay %s: who replays (by) is longer than %d bytes", req.ItemID, MaxByBytes)
	case len(req.DeadLetterID) > MaxRefBytes || len(req.MessageID) > MaxRefBytes:
		return req, fmt.Errorf("replay %s: dead letter or message id longer than %d bytes", req.ItemID, MaxRefBytes)
	case !req.Class.Valid() && req.Class != "":
		return req, fmt.Errorf("replay %s: unknown class %q", req.ItemID, req.Class)
	}
	req.Note = work.Prefix(strings.TrimSpace(req.Note), MaxNoteBytes)
	if req.From == nil {
		req.From = DeadLetterStates()
	}
	for _, s := range req.From {
		if !work.CanTransition(s, work.Queued) {
			return req, fmt.Errorf("replay %s: state %s cannot move to queued", req.ItemID, s)
		}
	}
	req.Now = req.Now.UTC().Truncate(time.Millisecond)
	return req, nil
}

// record is the ReplayRecord req appends.
func (req ReplayRequest) record() ReplayRecord {
	return ReplayRecord{
		At: req.Now, By: req.By, Note: req.Note, Mode: string(req.Mode), FromStage: req.Mode.Target(req.Stage),
		Class: req.Class, FailedStage: req.Stage, DeadLetterID: req.DeadLetterID, MessageID: req.MessageID,
	}
}

// token is the replay's idempotency token (last_write).
func (req ReplayRequest) token() string {
	src := "item"
	switch {
	case req.DeadLetterID != "":
		src = "dl:" + req.DeadLetterID
	case req.MessageID != "":
		src = "msg:" + req.MessageID
	}
	return writeToken(req.By, "replay/"+strconv.Itoa(req.PrevReplayCount+1)+"/"+src, req.Now)
}

// canReplay reports whether req may move cur back to queued.
func canReplay(cur Item, req ReplayRequest) bool {
	if cur.Stage != req.Stage || cur.ReplayCount != req.PrevReplayCount {
		return false
	}
	for _, s := range req.From {
		if cur.State != s {
			continue
		}
		if s == work.Working {
			return cur.LeaseUntil.Before(req.Now)
		}
		return true
	}
	return false
}

// applyReplay is the write both stores make.
func applyReplay(cur Item, req ReplayRequest) Item {
	target := req.Mode.Target(req.Stage)
	cur.Attempts = cloneStageCounts(cur.Attempts)
	if req.Mode == FullRestart {
		cur.Status = work.Received
		for _, s := range work.Stages() {
			cur.Attempts[s] = 0
		}
	}
	cur.Attempts[target] = 0
	cur.State, cur.Stage = work.Queued, target
	cur.ReplayCount = req.PrevReplayCount + 1
	cur.Replays = appendBounded(cur.Replays, req.record(), MaxReplays)
	cur.EnrichmentStatus = work.EnrichmentPending
	cur.LeaseOwner, cur.LeaseUntil, cur.NotBefore, cur.Carrier = "", time.Time{}, time.Time{}, ""
	// A replay starts the item's evidence afresh: whatever was judged of
	// its failures before the operator acted is not held against it.
	cur.Suspect = nil
	cur.UpdatedAt = req.Now
	cur.LastWrite = req.token()
	return cur
}

func cloneStageCounts(m map[work.Stage]int) map[work.Stage]int {
	out := make(map[work.Stage]int, len(work.Stages()))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// PendingReplay reports whether the item's most recent write was a replay
// that nothing has acted on yet: the item is queued, and its updated_at is
// still the replay's time (every claim moves updated_at). A replayer that
// crashed between the write and the send finds the replay here and sends the
// envelope again; a duplicate send is absorbed by the stage's claim.
func (it Item) PendingReplay() (ReplayRecord, bool) {
	if it.State != work.Queued || len(it.Replays) == 0 {
		return ReplayRecord{}, false
	}
	last := it.Replays[len(it.Replays)-1]
	if last.FromStage != it.Stage || !last.At.Equal(it.UpdatedAt) {
		return ReplayRecord{}, false
	}
	return last, true
}

// ReplayEnvelope is the stage-queue message that carries a replayed item:
// its stage, correlation id and the replay lineage of its last replay. ok is
// false for an item that was never replayed.
func (it Item) ReplayEnvelope() (env work.Envelope, ok bool) {
	if len(it.Replays) == 0 {
		return work.Envelope{}, false
	}
	last := it.Replays[len(it.Replays)-1]
	return work.Envelope{
		ItemID: it.ID, Stage: last.FromStage, CorrelationID: it.CorrelationID,
		Replay: &work.Replay{
			Count: it.ReplayCount, Note: last.Note, By: last.By, At: last.At,
			FromDeadLetter: last.MessageID, Mode: last.Mode,
		},
	}, true
}

// MaxReplays is how many replay records an item keeps, the newest; the error
// log keeps every replay (LogReplay). With MaxNotes, MaxNoteBytes and the
// other bounds of this file it keeps every item far below DynamoDB's 400 KB
// (TestLargestItem writes the largest one the code can produce).
const MaxReplays = 10

// MaxByBytes bounds who replayed or annotated; MaxRefBytes a dead-letter or
// message id a replay names.
const (
	MaxByBytes  = 256
	MaxRefBytes = 256
)

// logEntry is the error-log entry of the replay that leaves the item with
// count replays.
func (req ReplayRequest) logEntry(count int) LogEntry {
	r := req.record()
	decision := fmt.Sprintf("%s from %s (failed at %s", r.Mode, r.FromStage, r.FailedStage)
	if r.Class != "" {
		decision += ", " + string(r.Class)
	}
	if r.MessageID != "" {
		decision += ", DLQ message " + r.MessageID
	}
	return LogEntry{
		Kind: LogReplay, By: req.By, ItemID: req.ItemID, Stage: r.FromStage, Message: req.Note, Attempt: count,
		MessageID: "replay/" + strconv.Itoa(count), Decision: decision + ")", OccurredAt: req.Now,
	}
}

// Replay moves the item back to queued at req's target stage in one
// conditional write:
//
//	condition  attribute_exists(item_id) AND #stage = :failed_stage
//	           AND (replay_count = :prev | attribute_not_exists(replay_count) when :prev is 0)
//	           AND (#state IN (:from…) [OR (#state = :working AND lease_until < :now)])
//	update     SET #state = :queued, #stage = :target, attempts_<target> = :0
//	               [full_restart: #status = :received, attempts_<every stage> = :0],
//	               replay_count = :prev + 1, replays = :last_MaxReplays_records,
//	               enrichment_status = :pending, updated_at = :now, last_write = :token,
//	               list_key = "flight#<shard>", list_at = if_not_exists(created_at, :now)
//	           REMOVE lease_owner, lease_until, not_before, carrier, suspect
//
// The item is read first (a strongly consistent GetItem): the replays it
// keeps are the last MaxReplays of what it had and this one, and the
// condition on replay_count guarantees that list is the one read. With
// ErrorLogTable set, the update and the replay's error-log entry go in one
// TransactWriteItems. It returns the item as written. A lost condition is a
// *ReplayError (which matches ErrConflict) carrying the item as it was; a
// retried write that had in fact been applied is recognised by its
// last_write token and succeeds.
func (s *Items) Replay(ctx context.Context, req ReplayRequest) (Item, error) {
	req, err := req.normalize()
	if err != nil {
		return Item{}, err
	}
	before, err := s.Get(ctx, req.ItemID)
	switch {
	case errors.Is(err, ErrNotFound):
		return Item{}, &ReplayError{ItemID: req.ItemID}
	case err != nil:
		return Item{}, fmt.Errorf("replay %s: %w", req.ItemID, err)
	}
	if !canReplay(before, req) {
		if before.LastWrite == req.token() {
			return before, nil // a retry of this very replay, already applied
		}
		return Item{}, &ReplayError{ItemID: req.ItemID, Current: &before}
	}
	after := applyReplay(before, req)
	rec, err := attributevalue.Marshal(after.Replays)
	if err != nil {
		return Item{}, fmt.Errorf("replay %s: encode records: %w", req.ItemID, err)
	}
	b := dynamo.New()
	target := req.Mode.Target(req.Stage)
	set := []string{
		b.Name("state") + " = " + b.Str(string(work.Queued)),
		b.Name("stage") + " = " + b.Str(string(target)),
		"replay_count = " + b.Num(int64(req.PrevReplayCount+1)),
		"replays = " + b.Value(rec),
		"enrichment_status = " + b.Str(string(work.EnrichmentPending)),
		"updated_at = " + b.Str(formatTime(req.Now)),
		"last_write = " + b.Str(req.token()),
		s.index(b, req.ItemID, work.Queued, req.Now),
	}
	zero := b.Num(0)
	if req.Mode == FullRestart {
		set = append(set, b.Name("status")+" = "+b.Str(string(work.Received)))
		for _, st := range work.Stages() {
			set = append(set, attemptsAttr(st)+" = "+zero)
		}
	} else {
		set = append(set, attemptsAttr(target)+" = "+zero)
	}
	update := "SET " + strings.Join(set, ", ") + " REMOVE lease_owner, lease_until, not_before, carrier, suspect"

	cond := "attribute_exists(item_id) AND " + b.Name("stage") + " = " + b.Str(string(req.Stage))
	if req.PrevReplayCount == 0 {
		cond += " AND (attribute_not_exists(replay_count) OR replay_count = " + zero + ")"
	} else {
		cond += " AND replay_count = " + b.Num(int64(req.PrevReplayCount))
	}
	var states []string
	working := false
	for _, st := range req.From {
		if st == work.Working {
			working = true
			continue
		}
		states = append(states, b.Str(string(st)))
	}
	var alts []string
	if len(states) > 0 {
		alts = append(alts, b.Name("state")+" IN ("+strings.Join(states, ", ")+")")
	}
	if working {
		alts = append(alts, "("+b.Name("state")+" = "+b.Str(string(work.Working))+" AND lease_until < "+b.Num(toMillis(req.Now))+")")
	}
	cond += " AND (" + strings.Join(alts, " OR ") + ")"

	in := b.Update(s.Table, itemKey(req.ItemID), update, cond)
	in.ReturnValues = types.ReturnValueAllNew
	var out *dynamodb.UpdateItemOutput
	if s.ErrorLogTable == "" {
		out, err = s.DB.UpdateItem(ctx, in)
	} else {
		err = s.withLogEntry(ctx, in, req.logEntry(req.PrevReplayCount+1))
	}
	if err != nil {
		if !isConditionFailed(err) {
			return Item{}, fmt.Errorf("replay %s: %w", req.ItemID, err)
		}
		// As for every write: the item that failed the condition shows
		// whether this very replay was applied by an attempt whose response
		// was lost; if it cannot be seen, the outcome is unknown, not a
		// conflict.
		cur, found, rerr := s.conflictItem(ctx, req.ItemID, err)
		switch {
		case rerr != nil:
			return Item{}, fmt.Errorf("replay %s: outcome unknown: the item could not be read back: %w", req.ItemID, rerr)
		case found && cur.LastWrite == req.token():
			return cur, nil
		}
		re := &ReplayError{ItemID: req.ItemID}
		if found {
			re.Current = &cur
		}
		return Item{}, re
	}
	if out != nil {
		return decodeItem(out.Attributes)
	}
	return after, nil
}

// withLogEntry applies in and puts e into the error log in one
// TransactWriteItems (whose idempotency token the SDK fills and reuses on
// retries).
func (s *Items) withLogEntry(ctx context.Context, in *dynamodb.UpdateItemInput, e LogEntry) error {
	av, err := attributevalue.MarshalMap(toLogRecord(e))
	if err != nil {
		return fmt.Errorf("encode the error-log entry: %w", err)
	}
	_, err = s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: dynamo.InTransaction(in)},
		{Put: &types.Put{TableName: aws.String(s.ErrorLogTable), Item: av}},
	}})
	return err
}

// Replay moves the item back to queued under canReplay; see Items.Replay.
func (m *Memory) Replay(_ context.Context, req ReplayRequest) (Item, error) {
	req, err := req.normalize()
	if err != nil {
		return Item{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.items[req.ItemID]
	if !ok {
		return Item{}, &ReplayError{ItemID: req.ItemID}
	}
	if !canReplay(cur, req) {
		if cur.LastWrite == req.token() {
			return clone(cur), nil // a retry of this very replay, already applied
		}
		c := clone(cur)
		return Item{}, &ReplayError{ItemID: req.ItemID, Current: &c}
	}
	cur = applyReplay(cur, req)
	m.items[req.ItemID] = cur
	m.audit = append(m.audit, req.logEntry(cur.ReplayCount))
	return clone(cur), nil
}

// appendBounded returns list with v appended, keeping the last n.
func appendBounded[T any](list []T, v T, n int) []T {
	out := append(slices.Clone(list), v)
	if len(out) > n {
		out = slices.Clone(out[len(out)-n:])
	}
	return out
}

// MaxNoteBytes bounds one operator note (and a replay's note).
const MaxNoteBytes = 2048

// MaxNotes is how many notes an item keeps, the newest; the error log keeps
// every one (LogNote).
const MaxNotes = 10

// maxAnnotateRaces bounds Annotate's read-and-write rounds when other notes
// land in between.
const maxAnnotateRaces = 8

// noteEntry is the error-log entry of an item's count-th note.
func noteEntry(itemID string, n Note, count int) LogEntry {
	e := LogEntry{Kind: LogNote, By: n.By, ItemID: itemID, Message: n.Text, Attempt: count,
		MessageID: "note/" + strconv.Itoa(count), Decision: "note", OccurredAt: n.At}
	if n.DeadLetterID != "" {
		e.Decision = "note on dead letter " + n.DeadLetterID
	}
	return e
}

// Annotate appends an operator note to the item, keeping the last MaxNotes:
// it reads the item (strongly consistent), then writes
//
//	condition  attribute_exists(item_id) AND (note_count = :count
//	           OR (attribute_not_exists(note_count) AND (attribute_not_exists(notes) OR size(notes) = :len)))
//	update     SET notes = :last_MaxNotes_notes, note_count = :count + 1
//
// and reads again when another note got in between (at most 8 rounds). With
// ErrorLogTable set the note's error-log entry goes in the same
// TransactWriteItems. It leaves updated_at and last_write alone: a note is
// not a state change, and must not disturb PendingReplay or another
// writer's idempotency check. The note's text is cut to MaxNoteBytes; an
// empty text is an error.
func (s *Items) Annotate(ctx context.Context, itemID string, n Note) error {
	n, err := normalizeNote(itemID, n)
	if err != nil {
		return err
	}
	for range maxAnnotateRaces {
		cur, err := s.Get(ctx, itemID)
		if err != nil {
			return fmt.Errorf("annotate %s: %w", itemID, err)
		}
		notes, err := attributevalue.Marshal(appendBounded(cur.Notes, n, MaxNotes))
		if err != nil {
			return fmt.Errorf("annotate %s: encode: %w", itemID, err)
		}
		b := dynamo.New()
		update := "SET notes = " + b.Value(notes) + ", note_count = " + b.Num(int64(cur.NoteCount+1))
		cond := "attribute_exists(item_id) AND (note_count = " + b.Num(int64(cur.NoteCount)) +
			" OR (attribute_not_exists(note_count) AND (attribute_not_exists(notes) OR size(notes) = " + b.Num(int64(len(cur.Notes))) + ")))"
		in := &dynamodb.UpdateItemInput{
			TableName: &s.Table, Key: itemKey(itemID),
			UpdateExpression: &update, ConditionExpression: &cond,
			ExpressionAttributeValues: b.Values,
		}
		if s.ErrorLogTable == "" {
			_, err = s.DB.UpdateItem(ctx, in)
		} else {
			err = s.withLogEntry(ctx, in, noteEntry(itemID, n, cur.NoteCount+1))
		}
		if err == nil {
			return nil
		}
		if !isConditionFailed(err) {
			return fmt.Errorf("annotate %s: %w", itemID, err)
		}
	}
	return fmt.Errorf("annotate %s: %d races with other notes lost: %w", itemID, maxAnnotateRaces, ErrConflict)
}

// Annotate appends an operator note; see Items.Annotate.
func (m *Memory) Annotate(_ context.Context, itemID string, n Note) error {
	n, err := normalizeNote(itemID, n)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.items[itemID]
	if !ok {
		return fmt.Errorf("annotate %s: %w", itemID, ErrNotFound)
	}
	cur.Notes = appendBounded(cur.Notes, n, MaxNotes)
	cur.NoteCount++
	m.items[itemID] = cur
	m.audit = append(m.audit, noteEntry(itemID, n, cur.NoteCount))
	return nil
}

// Audit returns the replay and note entries the store wrote, in order.
func (m *Memory) Audit() []LogEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.audit)
}

func normalizeNote(itemID string, n Note) (Note, error) {
	n.Text = strings.TrimSpace(n.Text)
	if n.Text == "" {
		return n, fmt.Errorf("annotate %s: the note is empty", itemID)
	}
	if len(n.By) > MaxByBytes {
		return n, fmt.Errorf("annotate %s: who annotates (by) is longer than %d bytes", itemID, MaxByBytes)
	}
	if len(n.DeadLetterID) > MaxRefBytes {
		return n, fmt.Errorf("annotate %s: dead letter id longer than %d bytes", itemID, MaxRefBytes)
	}
	n.Text = work.Prefix(n.Text, MaxNoteBytes)
	n.At = n.At.UTC().Truncate(time.Millisecond)
	return n, nil
}
