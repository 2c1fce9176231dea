package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// SQS is the part of the SQS client a Replayer uses.
type SQS interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// Items is the item store a Replayer writes (store.Items, store.Memory).
type Items interface {
	Get(ctx context.Context, id string) (store.Item, error)
	Replay(ctx context.Context, req store.ReplayRequest) (store.Item, error)
	MarkDeadLettered(ctx context.Context, itemID string, stage work.Stage, ref store.DeadLetterRef, now time.Time) error
}

// Notices enqueues an owner's item.failed notice (notice.Sender): sent
// nothing for an item whose owner did not ask for it.
type Notices interface {
	DeadLettered(ctx context.Context, it store.Item, le store.LastError, deadLetterID string) error
}

// Index lists items by state (store.ItemIndex, store.Memory), for replays
// from item state by filter.
type Index interface {
	List(ctx context.Context, q store.ItemQuery, fn func(store.Item) error) error
}

// Queues are one stage's queue URLs.
type Queues struct {
	// Queue is the stage queue replays are sent to.
	Queue string
	// DLQ is the stage's dead-letter queue.
	DLQ string
}

// Defaults of the Replayer's optional fields.
const (
	// DefaultVisibility is how long a run holds each message it received.
	// A run stops receiving after three quarters of it, so nothing it holds
	// reappears mid-run.
	DefaultVisibility = 5 * time.Minute
	// DefaultPollWait is the long-poll wait of each receive; one empty long
	// poll ends a queue's scan.
	DefaultPollWait = time.Second
	// DefaultMaxMessages bounds the messages one run looks at per DLQ.
	DefaultMaxMessages = 10_000
	// DefaultBy names the replayer when a request names nobody.
	DefaultBy = "triage"
	// deadlineMargin is kept before the context's deadline for the sends,
	// deletes and releases of the last batch.
	deadlineMargin = 15 * time.Second
)

// Replayer replays dead letters; see the package documentation. Build one
// per process; it is safe for concurrent use by several runs, though two
// runs over the same DLQ split its messages between them.
type Replayer struct {
	// SQS reads the DLQs and sends the envelopes. Required.
	SQS SQS
	// Items reads items and writes the replays. Required.
	Items Items
	// Index is needed for replays from item state by filter only.
	Index Index
	// ErrorLog records resolutions (Resolve); needed by Resolve only.
	ErrorLog ResolutionLog
	// Queues maps each stage to its queue URLs.
	Queues map[work.Stage]Queues
	// Notices, if set, enqueues the owner's item.failed notice of a dead
	// letter whose hand-off a backstop message completes; nil sends none.
	Notices Notices
	// Clock is injected; nil means the wall clock.
	Clock clock.Clock
	// Log receives one line per outcome; nil discards.
	Log *slog.Logger
	// Visibility, PollWait (negative: short polls, for local SQS where a
	// short poll sees every message) and MaxMessages: see the Default
	// constants.
	Visibility  time.Duration
	PollWait    time.Duration
	MaxMessages int
	// DefaultBy names the replayer when a request names nobody; empty is
	// DefaultBy.
	DefaultBy string
	// Progress, if set, is called after every batch; a run with Progress
	// also reads the DLQs' depth (GetQueueAttributes) for its Total.
	Progress func(Progress)
}

// Run executes req; see the package documentation. It returns the summary
// so far with an error only when it could not go on (a DLQ could not be
// read, the request is invalid); per-dead-letter failures are counted in
// Summary.Errors.
func (r *Replayer) Run(ctx context.Context, req Request) (Summary, error) {
	if err := req.Validate(); err != nil {
		return Summary{}, fmt.Errorf("replay: %w", err)
	}
	if req.By == "" {
		req.By = r.by()
	}
	if req.Source == SourceItems {
		return r.runItems(ctx, req)
	}
	s := r.newScan()
	defer s.releaseAll(ctx)
	run := &dlqRun{r: r, req: req, scan: s, sum: Summary{DryRun: req.DryRun}}
	s.done = run.full
	s.total = r.depth(ctx, req.DLQs.orAll())
	for _, st := range req.DLQs.orAll() {
		if run.full() {
			break
		}
		if err := s.each(ctx, st, run.batch); err != nil {
			run.sum.Scanned, run.sum.Released, run.sum.Incomplete = s.scanned, s.heldCount(), s.incomplete
			return run.sum, err
		}
	}
	run.sum.Scanned = s.scanned
	run.sum.Released = s.heldCount()
	run.sum.Incomplete = s.incomplete
	return run.sum, nil
}

func (r *Replayer) by() string {
	if r.DefaultBy != "" {
		return r.DefaultBy
	}
	return DefaultBy
}

func (r *Replayer) now() time.Time {
	return clock.Or(r.Clock).Now()
}

func (r *Replayer) log() *slog.Logger {
	return telemetry.Or(r.Log)
}

func (r *Replayer) visibility() time.Duration {
	if r.Visibility > 0 {
		return r.Visibility
	}
	return DefaultVisibility
}

// dlqRun is one Run over DLQs.
type dlqRun struct {
	r       *Replayer
	req     Request
	scan    *scan
	sum     Summary
	planned int
	// seen holds items given a replay in this run (a dry run writes nothing
	// that would tell a second message of the same item apart).
	seen map[string]bool
	// outs are the current batch's outcomes, in message order.
	outs []Outcome
}

func (run *dlqRun) full() bool { return run.req.Max > 0 && run.planned >= run.req.Max }

// sendable is a replay whose envelope is to be sent.
type sendable struct {
	dl  DeadLetter
	env work.Envelope
	// body, when set, is sent instead of env's encoding: an item spec
	// submitted again as it was written.
	body string
	out  Outcome
	// slot is the outcome's place in its batch.
	slot int
}

// batch handles one received batch of a DLQ.
func (run *dlqRun) batch(ctx context.Context, dls []DeadLetter) {
	r, log := run.r, run.r.log()
	run.outs = run.outs[:0]
	var sends []sendable
	var deletes []DeadLetter
	for _, dl := range dls {
		if dl.Kind == deadletter.KindUnreadable {
			run.scan.hold(dl)
			continue
		}
		// Triage payloads are filtered before the item is read; a backstop
		// message's class and failure time come from its item.
		if dl.Kind == deadletter.KindTriage && !run.req.Filter.Matches(dl) {
			run.scan.hold(dl)
			continue
		}
		if run.full() {
			run.scan.hold(dl)
			continue
		}
		it, err := r.get(ctx, dl.ItemID)
		if err != nil {
			run.record(Outcome{ItemID: dl.ItemID, DLQ: dl.DLQ, MessageID: dl.MessageID, DeadLetterID: dl.DeadLetterID, Class: dl.Class,
				FailedStage: dl.Stage, Action: Failed, Reason: "read item: " + redact.String(err.Error())})
			run.scan.hold(dl)
			continue
		}
		dl = dl.withItem(it)
		if (dl.Kind == deadletter.KindBackstop || dl.Kind == deadletter.KindSpec) && !run.req.Filter.Matches(dl) {
			run.scan.hold(dl)
			continue
		}
		out := Outcome{ItemID: dl.ItemID, DLQ: dl.DLQ, MessageID: dl.MessageID, DeadLetterID: dl.DeadLetterID, Class: dl.Class,
			FailedStage: dl.Stage, Target: run.req.Mode.Target(dl.Stage)}
		p := decide(dl, it, r.now())
		if run.seen[dl.ItemID] && (p.action == Replayed || p.action == Resent) {
			p = plan{action: Duplicate, reason: "item already replayed in this run"}
		}
		out.Reason = p.reason
		switch p.action {
		case Skipped:
			out.Action = Skipped
			run.record(out)
			run.scan.hold(dl)
			continue
		case Duplicate:
			out.Action = Duplicate
			run.record(out)
			if run.req.DryRun {
				run.scan.hold(dl)
			} else {
				deletes = append(deletes, dl)
			}
			continue
		}
		if p.handOff {
			if run.req.DryRun {
				out.Action = Skipped
				out.Reason = "dry run: would send the dead letter the item records to the " + string(dl.DLQ) +
					" DLQ: it was decided but never handed to the DLQ"
				run.record(out)
				run.scan.hold(dl)
				continue
			}
			out.Action, out.Reason = r.handOff(ctx, dl, *it)
			run.record(out)
			if out.Action == Failed {
				run.scan.hold(dl)
			} else {
				deletes = append(deletes, dl)
			}
			continue
		}
		run.planned++
		run.markSeen(dl.ItemID)
		if p.resubmit {
			out.Action, out.Target = Resent, work.Fetch
			if run.req.DryRun {
				out.Action = WouldReplay
				run.record(out)
				run.scan.hold(dl)
				continue
			}
			sends = append(sends, sendable{dl: dl, env: *dl.Envelope, body: dl.body, out: out, slot: run.record(out)})
			continue
		}
		if run.req.DryRun {
			out.Action, out.ReplayCount = WouldReplay, it.ReplayCount+1
			if p.action == Resent {
				out.ReplayCount, out.Target = it.ReplayCount, it.Stage
			}
			run.record(out)
			run.scan.hold(dl)
			continue
		}
		cur := *it
		if p.action == Replayed {
			cur, err = r.Items.Replay(ctx, store.ReplayRequest{
				ItemID: dl.ItemID, Stage: dl.Stage, From: p.from, PrevReplayCount: it.ReplayCount, Mode: run.req.Mode,
				Note: run.req.Note, By: run.req.By, Class: dl.Class, DeadLetterID: dl.DeadLetterID, MessageID: dl.MessageID, Now: r.now(),
			})
			if err != nil {
				out.Action, out.Reason = Failed, "replay write: "+redact.String(err.Error())
				if errors.Is(err, store.ErrConflict) {
					out.Action, out.Reason = Skipped, "the item changed during the replay; run again"
				}
				run.record(out)
				run.scan.hold(dl)
				continue
			}
		}
		env, _ := cur.ReplayEnvelope()
		out.Action, out.Target, out.ReplayCount = p.action, env.Stage, cur.ReplayCount
		sends = append(sends, sendable{dl: dl, env: env, out: out, slot: run.record(out)})
	}
	for _, sd := range r.send(ctx, sends) {
		run.outs[sd.slot] = sd.out
		if sd.out.Action == Failed {
			// Written, not sent: the next run resends (PendingReplay).
			run.scan.hold(sd.dl)
			continue
		}
		deletes = append(deletes, sd.dl)
	}
	run.scan.delete(ctx, deletes)
	for _, o := range run.outs {
		run.sum.add(o)
		log.Info("replay outcome", "item_id", o.ItemID, "dlq", string(o.DLQ), "action", string(o.Action),
			"target", string(o.Target), "class", string(o.Class), "reason", o.Reason, "dry_run", run.req.DryRun)
	}
	run.progress()
}

func (run *dlqRun) markSeen(id string) {
	if run.seen == nil {
		run.seen = map[string]bool{}
	}
	run.seen[id] = true
}

// record adds o to the batch's outcomes and returns its slot.
func (run *dlqRun) record(o Outcome) int {
	run.outs = append(run.outs, o)
	return len(run.outs) - 1
}

func (run *dlqRun) progress() {
	if run.r.Progress == nil {
		return
	}
	run.r.Progress(Progress{Done: run.scan.scanned, Total: run.scan.total, Selected: run.sum.Selected,
		Replayed: run.sum.Replayed, Skipped: run.sum.Skipped, Errors: run.sum.Errors})
}

// send sends the envelopes, SendMessageBatch per stage queue, and returns
// every sendable with its outcome (Failed for the ones not sent).
func (r *Replayer) send(ctx context.Context, sends []sendable) []sendable {
	byQueue := map[work.Stage][]int{}
	var order []work.Stage
	for i, sd := range sends {
		if _, ok := byQueue[sd.env.Stage]; !ok {
			order = append(order, sd.env.Stage)
		}
		byQueue[sd.env.Stage] = append(byQueue[sd.env.Stage], i)
	}
	for _, st := range order {
		idx := byQueue[st]
		for start := 0; start < len(idx); start += maxBatch {
			chunk := idx[start:min(start+maxBatch, len(idx))]
			failed := r.sendBatch(ctx, st, chunk, func(i int) string { return cmp.Or(sends[i].body, sends[i].env.Encode()) })
			for _, i := range chunk {
				if reason, bad := failed[i]; bad {
					sends[i].out.Action, sends[i].out.Reason = Failed, "send to the "+string(st)+" queue: "+reason
				}
			}
		}
	}
	return sends
}

// handOff completes the DLQ hand-off of it, failed at its stage, for the
// backstop message dl (docs/design.md "Waits and parking"): the dead letter
// the item records is sent to the stage's DLQ, the owner's item.failed is
// enqueued, then the dead letter is confirmed on the item. Failed keeps the
// message and the item failed: the next run sends the same dead letter
// again — a duplicate of one dead_letter_id, which consumers drop — and the
// notice, whose idempotency key is one per dead letter (notice.FailedKey),
// and confirms it.
func (r *Replayer) handOff(ctx context.Context, dl DeadLetter, it store.Item) (Action, string) {
	p := it.RecordedDeadLetter(dl.MessageID, dl.ReceiveCount)
	body, err := p.Marshal()
	if err != nil {
		return Failed, "encode the dead letter: " + redact.String(err.Error())
	}
	q := r.Queues[dl.DLQ].DLQ
	out, err := r.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{
		QueueUrl: aws.String(q),
		Entries:  []sqstypes.SendMessageBatchRequestEntry{{Id: aws.String("0"), MessageBody: aws.String(string(body)), MessageAttributes: p.Attributes()}},
	})
	switch {
	case err != nil:
		return Failed, "send the dead letter to the " + string(dl.DLQ) + " DLQ: " + redact.String(err.Error())
	case len(out.Failed) > 0:
		return Failed, "send the dead letter to the " + string(dl.DLQ) + " DLQ: " + aws.ToString(out.Failed[0].Code) + " " + aws.ToString(out.Failed[0].Message)
	}
	id := p.SanitizedContext.DeadLetterID
	if r.Notices != nil {
		le := store.LastError{Component: it.Stage, ErrorClass: p.ErrorClass}
		if it.LastError != nil {
			le = *it.LastError
		}
		if err := r.Notices.DeadLettered(ctx, it, le, id); err != nil {
			return Failed, "dead letter " + id + " sent; the owner's item.failed notice could not be enqueued: " + redact.String(err.Error())
		}
	}
	now := r.now()
	err = r.Items.MarkDeadLettered(ctx, it.ID, it.Stage, store.DeadLetterRefOf(p, now), now)
	switch {
	case errors.Is(err, store.ErrConflict):
		// The item moved on since it was read (a delivery confirmed the same
		// dead letter, or an operator replayed it): the dead letter is sent,
		// nothing is left to confirm.
		return HandedOff, "dead letter " + id + " sent; the item had moved on"
	case err != nil:
		return Failed, "dead letter sent, its confirmation on the item failed: " + redact.String(err.Error())
	}
	return HandedOff, "dead letter " + id + " sent to the " + string(dl.DLQ) + " DLQ and confirmed"
}

// maxBatch is SQS's limit on entries per batch call.
const maxBatch = 10

// sendBatch sends up to maxBatch bodies to st's queue and returns the
// indexes that failed with why.
func (r *Replayer) sendBatch(ctx context.Context, st work.Stage, idx []int, body func(int) string) map[int]string {
	failed := map[int]string{}
	q, ok := r.Queues[st]
	if !ok || q.Queue == "" {
		for _, i := range idx {
			failed[i] = "no queue URL configured"
		}
		return failed
	}
	entries := make([]sqstypes.SendMessageBatchRequestEntry, len(idx))
	for j, i := range idx {
		entries[j] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(body(i))}
	}
	out, err := r.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.Queue), Entries: entries})
	if err != nil {
		for _, i := range idx {
			failed[i] = redact.String(err.Error())
		}
		return failed
	}
	for _, f := range out.Failed {
		if i, err := strconv.Atoi(aws.ToString(f.Id)); err == nil {
			failed[i] = aws.ToString(f.Code) + " " + aws.ToString(f.Message)
		}
	}
	return failed
}

// get reads an item; nil, nil when it does not exist.
func (r *Replayer) get(ctx context.Context, id string) (*store.Item, error) {
	it, err := r.Items.Get(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &it, nil
}

// depth sums the approximate number of messages in the DLQs, for progress;
// zero when unknown.
func (r *Replayer) depth(ctx context.Context, stages Stages) int {
	if r.Progress == nil {
		return 0
	}
	total := 0
	for _, st := range stages {
		out, err := r.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl:       aws.String(r.Queues[st].DLQ),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages},
		})
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
		total += n
	}
	return total
}

// scan receives DLQ messages and holds the ones not deleted until the end
// of their DLQ's scan (a run reads each DLQ once), or of the run for those
// it held after it, when release makes them visible again.
type scan struct {
	r       *Replayer
	started time.Time
	scanned int
	total   int
	held    map[string][]string // DLQ URL → receipt handles not yet released
	urls    []string
	// heldTotal counts the messages held over the scan, released or not.
	heldTotal int
	// done, if set, ends the scan before its next receive: the run has
	// what it needs (a replay's Max).
	done func() bool
	// incomplete are the DLQs whose scan ended before their end for want
	// of time or at MaxMessages, not because the run was done.
	incomplete Stages
}

func (r *Replayer) newScan() *scan {
	return &scan{r: r, started: r.now(), held: map[string][]string{}}
}

// outOfTime reports whether the scan must stop receiving: three quarters
// of the visibility timeout are gone, or the context's deadline is near.
func (s *scan) outOfTime(ctx context.Context) bool {
	now := s.r.now()
	if now.Sub(s.started) > s.r.visibility()*3/4 {
		return true
	}
	if d, ok := ctx.Deadline(); ok && now.Add(deadlineMargin).After(d) {
		return true
	}
	return ctx.Err() != nil
}

// each receives st's DLQ in batches of up to 10 and hands each batch to fn,
// until the queue is drained, MaxMessages, the time budget, the scan is
// done, a message seen twice (its visibility ran out), or a receive error
// (returned). A scan cut by MaxMessages or the time budget adds st to
// incomplete.
func (s *scan) each(ctx context.Context, st work.Stage, fn func(context.Context, []DeadLetter)) (err error) {
	drained := false
	defer func() {
		if err == nil && !drained && (s.done == nil || !s.done()) {
			s.incomplete = append(s.incomplete, st)
		}
	}()
	q, ok := s.r.Queues[st]
	if !ok || q.DLQ == "" {
		return fmt.Errorf("replay: no dead-letter queue configured for %s", st)
	}
	// The run does not read this DLQ again: what it holds there goes back
	// now, not after the other DLQs' scans.
	defer s.release(ctx, q.DLQ)
	limit := s.r.MaxMessages
	if limit <= 0 {
		limit = DefaultMaxMessages
	}
	wait, emptiesToStop := int32(DefaultPollWait/time.Second), 1
	switch {
	case s.r.PollWait < 0:
		wait, emptiesToStop = 0, 2
	case s.r.PollWait > 0:
		wait = int32(max(s.r.PollWait/time.Second, 1))
	}
	seen := map[string]bool{}
	empties := 0
	for n := 0; n < limit && !s.outOfTime(ctx) && (s.done == nil || !s.done()); {
		out, err := s.r.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(q.DLQ), MaxNumberOfMessages: int32(min(maxBatch, limit-n)),
			VisibilityTimeout: int32(s.r.visibility() / time.Second), WaitTimeSeconds: wait,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{
				sqstypes.MessageSystemAttributeNameSentTimestamp, sqstypes.MessageSystemAttributeNameApproximateReceiveCount,
				sqstypes.MessageSystemAttributeNameDeadLetterQueueSourceArn,
			},
			MessageAttributeNames: []string{"All"},
		})
		if err != nil {
			return fmt.Errorf("receive from the %s DLQ: %w", st, err)
		}
		if len(out.Messages) == 0 {
			if empties++; empties >= emptiesToStop {
				drained = true
				return nil
			}
			continue
		}
		empties = 0
		var dls []DeadLetter
		again := false
		for _, m := range out.Messages {
			dl := parseMessage(m, st)
			if seen[dl.MessageID] {
				again = true
				s.hold(dl)
				continue
			}
			seen[dl.MessageID] = true
			dls = append(dls, dl)
		}
		n += len(dls)
		s.scanned += len(dls)
		if len(dls) > 0 {
			fn(ctx, dls)
		}
		if again {
			return nil
		}
	}
	return nil
}

func (s *scan) hold(dl DeadLetter) {
	url := s.r.Queues[dl.DLQ].DLQ
	if _, ok := s.held[url]; !ok {
		s.urls = append(s.urls, url)
	}
	s.held[url] = append(s.held[url], dl.receipt)
	s.heldTotal++
}

// heldCount is how many messages the scan held to release, those released
// already included.
func (s *scan) heldCount() int { return s.heldTotal }

// delete removes messages from their DLQ. A failed delete is logged: the
// message reappears after its visibility timeout and the next run finds it a
// duplicate.
func (s *scan) delete(ctx context.Context, dls []DeadLetter) {
	byURL := map[string][]DeadLetter{}
	for _, dl := range dls {
		url := s.r.Queues[dl.DLQ].DLQ
		byURL[url] = append(byURL[url], dl)
	}
	for url, group := range byURL {
		for start := 0; start < len(group); start += maxBatch {
			chunk := group[start:min(start+maxBatch, len(group))]
			entries := make([]sqstypes.DeleteMessageBatchRequestEntry, len(chunk))
			for i, dl := range chunk {
				entries[i] = sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(dl.receipt)}
			}
			out, err := s.r.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
			if err != nil {
				s.r.log().Error("DLQ delete failed; the messages come back as duplicates", "messages", len(chunk), "error", redact.String(err.Error()))
				continue
			}
			for _, f := range out.Failed {
				s.r.log().Error("DLQ delete failed for a message", "entry", aws.ToString(f.Id), "code", aws.ToString(f.Code))
			}
		}
	}
}

// releaseAll makes every held message visible again.
func (s *scan) releaseAll(ctx context.Context) {
	for _, url := range slices.Clone(s.urls) {
		s.release(ctx, url)
	}
}

// release makes the messages held on the DLQ at url visible again, ten to a
// call, each call with a context of its own bounded by
// policy.DLQReleaseCall: a cancelled run still releases what it holds, and
// a slow call costs no other call its time.
func (s *scan) release(ctx context.Context, url string) {
	hs := s.held[url]
	delete(s.held, url)
	s.urls = slices.DeleteFunc(s.urls, func(u string) bool { return u == url })
	for start := 0; start < len(hs); start += maxBatch {
		chunk := hs[start:min(start+maxBatch, len(hs))]
		entries := make([]sqstypes.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i, h := range chunk {
			entries[i] = sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(h), VisibilityTimeout: 0}
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policy.DLQReleaseCall)
		_, err := s.r.SQS.ChangeMessageVisibilityBatch(cctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url), Entries: entries})
		cancel()
		if err != nil {
			// Not lost: the messages reappear when their visibility ends.
			s.r.log().Warn("releasing DLQ messages failed; they reappear after the visibility timeout",
				"messages", len(chunk), "error", redact.String(err.Error()))
		}
	}
}
