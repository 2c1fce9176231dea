package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
)

// ListRequest selects dead letters to look at.
type ListRequest struct {
	// DLQs are the queues to read; empty is all.
	DLQs Stages
	// Filter selects dead letters, as for a replay.
	Filter Filter
	// ID, when set, keeps only the messages of this item id, dead_letter_id
	// or DLQ message id.
	ID string
	// Limit bounds how many are returned; zero is unbounded (the scan is
	// bounded by the Replayer's MaxMessages per queue).
	Limit int
}

func (q ListRequest) matchesID(dl DeadLetter) bool {
	return q.ID == "" || dl.ItemID == q.ID || dl.DeadLetterID == q.ID || dl.MessageID == q.ID
}

// Listing is a List's dead letters and the DLQs it did not read to the end.
type Listing struct {
	DeadLetters []DeadLetter `json:"dead_letters"`
	// Incomplete lists the DLQs the listing did not read to the end (out of
	// time, or at MaxMessages): their dead letters are not all counted. A
	// listing that stopped at its Limit lists none.
	Incomplete Stages `json:"incomplete,omitempty"`
}

// List peeks at the DLQs: it receives every message (bounded), keeps those
// the request selects, and releases all of them (visibility 0) before it
// returns; nothing is changed. With Items set, each kept dead letter's item
// is read to fill in a backstop message's class and the Status a replay
// would act on. Unreadable messages are listed only by a request without a
// filter or id. ListScan says as well which DLQs it did not read to the
// end.
func (r *Replayer) List(ctx context.Context, q ListRequest) ([]DeadLetter, error) {
	l, err := r.ListScan(ctx, q)
	return l.DeadLetters, err
}

// ListScan is List, with the DLQs whose scan was cut.
func (r *Replayer) ListScan(ctx context.Context, q ListRequest) (Listing, error) {
	s := r.newScan()
	defer s.releaseAll(ctx)
	stages := q.DLQs.orAll()
	s.total = r.depth(ctx, stages)
	var out []DeadLetter
	var firstErr error
	unfiltered := q.ID == "" && isZeroFilter(q.Filter)
	full := func() bool { return q.Limit > 0 && len(out) >= q.Limit }
	s.done = full
	for _, st := range stages {
		if full() {
			break
		}
		err := s.each(ctx, st, func(ctx context.Context, dls []DeadLetter) {
			for _, dl := range dls {
				s.hold(dl)
				if full() || !q.matchesID(dl) {
					continue
				}
				if dl.Kind == deadletter.KindUnreadable {
					if unfiltered {
						dl.Status = "skipped: not a triage dead letter or stage envelope"
						out = append(out, dl)
					}
					continue
				}
				if dl.Kind == deadletter.KindTriage && !q.Filter.Matches(dl) {
					continue
				}
				if r.Items != nil {
					it, err := r.get(ctx, dl.ItemID)
					if err != nil {
						if firstErr == nil {
							firstErr = fmt.Errorf("read item %s: %w", dl.ItemID, err)
						}
						continue
					}
					dl = dl.withItem(it)
					dl.Status = decide(dl, it, r.now()).status()
				}
				if (dl.Kind == deadletter.KindBackstop || dl.Kind == deadletter.KindSpec) && !q.Filter.Matches(dl) {
					continue
				}
				out = append(out, dl)
			}
			if r.Progress != nil {
				r.Progress(Progress{Done: s.scanned, Total: s.total, Selected: len(out)})
			}
		})
		if err != nil {
			return Listing{DeadLetters: out, Incomplete: s.incomplete}, err
		}
	}
	return Listing{DeadLetters: out, Incomplete: s.incomplete}, firstErr
}

func isZeroFilter(f Filter) bool {
	return len(f.ErrorClass) == 0 && f.Stage == "" && len(f.ItemIDs) == 0 && f.FailedSince.IsZero() &&
		f.FailedBefore.IsZero() && f.Retryable == nil && !f.Backstop
}

// Annotator records operator notes on items (store.Items, store.Memory).
type Annotator interface {
	Annotate(ctx context.Context, itemID string, n store.Note) error
}

// AnnotateRequest records an operator note.
type AnnotateRequest struct {
	// ID is an item id, a dead_letter_id or a DLQ message id.
	ID string
	// DLQs are the queues to look in; empty is all.
	DLQs Stages
	// Note is the text; required.
	Note string
	// By names who writes it; empty is the Replayer's DefaultBy.
	By string
}

// AnnotateResult says what Annotate changed.
type AnnotateResult struct {
	// ItemID is the item annotated.
	ItemID string `json:"item_id"`
	// Item is true when the note was recorded on the item.
	Item bool `json:"item"`
	// Republished counts dead letters re-published with the note appended
	// to replay.notes.
	Republished int `json:"republished"`
	// Backstop counts raw backstop messages found, which have no notes and
	// are left as they are.
	Backstop int `json:"backstop"`
	// Errors lists what failed.
	Errors []string `json:"errors,omitempty"`
	// Incomplete lists the DLQs not read to the end (out of time, or at
	// MaxMessages): dead letters there may not carry the note.
	Incomplete Stages `json:"incomplete,omitempty"`
}

// Annotate records an operator note on the item that ID names and
// re-publishes each of its triage dead letters with the note appended to
// replay.notes: the new message is sent first, then the old one deleted, so
// a failure in between leaves two copies of one dead letter (same
// dead_letter_id), which a replay deduplicates. The item's note list keeps
// every note; the payload keeps the newest deadletter.MaxNotes.
func (r *Replayer) Annotate(ctx context.Context, req AnnotateRequest) (AnnotateResult, error) {
	req.Note = strings.TrimSpace(req.Note)
	if req.ID == "" || req.Note == "" {
		return AnnotateResult{}, errors.New("annotate: an id and a note are required")
	}
	an, ok := r.Items.(Annotator)
	if !ok {
		return AnnotateResult{}, errors.New("annotate: the item store cannot record notes")
	}
	if req.By == "" {
		req.By = r.by()
	}
	s := r.newScan()
	defer s.releaseAll(ctx)
	var found []DeadLetter
	for _, st := range req.DLQs.orAll() {
		err := s.each(ctx, st, func(_ context.Context, dls []DeadLetter) {
			for _, dl := range dls {
				if dl.Kind != deadletter.KindUnreadable && (ListRequest{ID: req.ID}).matchesID(dl) {
					found = append(found, dl)
					continue
				}
				s.hold(dl)
			}
		})
		if err != nil {
			for _, dl := range found {
				s.hold(dl)
			}
			return AnnotateResult{}, fmt.Errorf("annotate: %w", err)
		}
	}
	res := AnnotateResult{ItemID: req.ID, Incomplete: s.incomplete}
	if len(found) > 0 {
		res.ItemID = found[0].ItemID
	}
	now := r.now()
	note := store.Note{At: now, By: req.By, Text: req.Note}
	if len(found) > 0 && found[0].DeadLetterID != "" {
		note.DeadLetterID = found[0].DeadLetterID
	}
	err := an.Annotate(ctx, res.ItemID, note)
	switch {
	case errors.Is(err, store.ErrNotFound) && len(found) == 0:
		if len(res.Incomplete) > 0 {
			return res, fmt.Errorf("annotate: no item %q, and no dead letter of it in the part read of the DLQs %s", req.ID, res.Incomplete)
		}
		return res, fmt.Errorf("annotate: no item or dead letter %q", req.ID)
	case errors.Is(err, store.ErrNotFound):
		res.Errors = append(res.Errors, "the item does not exist; only its dead letters carry the note")
	case err != nil:
		for _, dl := range found {
			s.hold(dl)
		}
		return res, fmt.Errorf("annotate %s: %w", res.ItemID, err)
	default:
		res.Item = true
	}
	var deletes []DeadLetter
	for _, dl := range found {
		if dl.Kind != deadletter.KindTriage {
			res.Backstop++
			s.hold(dl)
			continue
		}
		if err := r.republish(ctx, dl, deadletter.Note{At: now.UTC(), By: redact.String(req.By), Text: redact.String(req.Note)}); err != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("re-publish %s: %s", dl.MessageID, redact.String(err.Error())))
			s.hold(dl)
			continue
		}
		res.Republished++
		deletes = append(deletes, dl)
	}
	s.delete(ctx, deletes)
	return res, nil
}

// republish sends dl's payload with n appended to its notes to dl's DLQ,
// with the same message attributes.
func (r *Replayer) republish(ctx context.Context, dl DeadLetter, n deadletter.Note) error {
	p := *dl.Payload
	p.Replay.Notes = append(append([]deadletter.Note(nil), p.Replay.Notes...), n)
	if len(p.Replay.Notes) > deadletter.MaxNotes {
		p.Replay.Notes = p.Replay.Notes[len(p.Replay.Notes)-deadletter.MaxNotes:]
	}
	body, err := p.Marshal()
	if err != nil {
		return err
	}
	attrs := map[string]sqstypes.MessageAttributeValue{}
	for k, v := range dl.attributes {
		attrs[k] = sqstypes.MessageAttributeValue{DataType: v.DataType, StringValue: v.StringValue, BinaryValue: v.BinaryValue}
	}
	out, err := r.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{
		QueueUrl: aws.String(r.Queues[dl.DLQ].DLQ),
		Entries:  []sqstypes.SendMessageBatchRequestEntry{{Id: aws.String("0"), MessageBody: aws.String(string(body)), MessageAttributes: attrs}},
	})
	if err != nil {
		return err
	}
	if len(out.Failed) > 0 {
		return fmt.Errorf("%s %s", aws.ToString(out.Failed[0].Code), aws.ToString(out.Failed[0].Message))
	}
	return nil
}
