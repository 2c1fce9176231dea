package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/work"
)

// ItemResolver records resolutions on items (store.Items, store.Memory).
type ItemResolver interface {
	Resolve(ctx context.Context, r store.Resolution) error
}

// ResolutionLog records resolutions in the error log (store.ErrorLog,
// store.Memory).
type ResolutionLog interface {
	AppendResolution(ctx context.Context, r store.Resolution) error
}

// ResolveRequest closes dead letters that will not be replayed.
type ResolveRequest struct {
	// IDs, when set, select dead letters by item id, dead_letter_id or DLQ
	// message id (a message that names no item is selected by its message
	// id).
	IDs []string
	// DLQs are the queues to read; empty is all.
	DLQs Stages
	// Filter selects dead letters as for a replay; with IDs, both must
	// match.
	Filter Filter
	// All selects every dead letter when neither IDs nor a filter is set;
	// without it such a request is refused.
	All bool
	// Note says why they are closed; required.
	Note string
	// By names who resolves; empty is the Replayer's DefaultBy.
	By string
	// Max bounds how many dead letters are resolved; zero is unbounded.
	// Selected ones past it are released untouched.
	Max int
	// DryRun reports what would be resolved and changes nothing.
	DryRun bool
}

// Resolved is one selected dead letter and what happened to it.
type Resolved struct {
	// ItemID, DLQ, MessageID, DeadLetterID, Class and Kind describe the
	// dead letter.
	ItemID       string          `json:"item_id"`
	DLQ          work.Stage      `json:"dlq"`
	MessageID    string          `json:"message_id"`
	DeadLetterID string          `json:"dead_letter_id,omitempty"`
	Class        string          `json:"error_class,omitempty"`
	Kind         deadletter.Kind `json:"kind"`
	// Action is resolved, would_resolve (dry run), skipped (left on its
	// DLQ) or error.
	Action string `json:"action"`
	// OnItem is true when the resolution was recorded on the item as well
	// as in the error log.
	OnItem bool   `json:"on_item"`
	Reason string `json:"reason,omitempty"`
}

// ResolveSummary is a Resolve's result.
type ResolveSummary struct {
	Selected int `json:"selected"`
	Resolved int `json:"resolved"`
	// Skipped counts messages left on their DLQ untouched: a backstop
	// message whose item is still in flight at its stage.
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
	Scanned int `json:"scanned"`
	// Incomplete lists the DLQs not scanned to the end (see Summary).
	Incomplete Stages `json:"incomplete,omitempty"`
	DryRun     bool   `json:"dry_run"`
	// Items lists every selected dead letter.
	Items []Resolved `json:"items"`
}

// ErrNoSelection is a resolve request that names no dead letter.
var ErrNoSelection = errors.New("name dead letters to resolve (ids or a filter), or select every one explicitly")

// Resolve closes the selected dead letters: for each, the resolution (note,
// who, when) is recorded on its item when the dead letter is an item's —
// not a message's — and the item's current one (a copy whose item has moved
// on is stale and leaves the item alone; an item's pending replay, which
// the message may be all that carries, is sent again first), and in the
// error log in every case, where `triage report resolved` finds it; only then is the message
// deleted from its DLQ. A dead letter whose record failed stays on its DLQ
// (released) and counts as an error; running the same request again picks
// it up. Messages not selected are released untouched.
func (r *Replayer) Resolve(ctx context.Context, req ResolveRequest) (ResolveSummary, error) {
	req.Note = strings.TrimSpace(req.Note)
	switch {
	case req.Note == "":
		return ResolveSummary{}, errors.New("resolve: a note is required: say why the dead letters are closed")
	case len(req.Note) > store.MaxNoteBytes:
		return ResolveSummary{}, fmt.Errorf("resolve: the note is longer than %d bytes", store.MaxNoteBytes)
	case len(req.IDs) == 0 && isZeroFilter(req.Filter) && !req.All:
		return ResolveSummary{}, fmt.Errorf("resolve: %w", ErrNoSelection)
	}
	if err := req.Filter.validate(); err != nil {
		return ResolveSummary{}, fmt.Errorf("resolve: %w", err)
	}
	if r.ErrorLog == nil {
		return ResolveSummary{}, errors.New("resolve: the Replayer has no ErrorLog to record resolutions in")
	}
	if req.By == "" {
		req.By = r.by()
	}
	s := r.newScan()
	defer s.releaseAll(ctx)
	sum := ResolveSummary{DryRun: req.DryRun}
	for _, st := range req.DLQs.orAll() {
		err := s.each(ctx, st, func(ctx context.Context, dls []DeadLetter) {
			var deletes []DeadLetter
			for _, dl := range dls {
				if !req.selects(dl) || req.Max > 0 && sum.Selected >= req.Max {
					s.hold(dl)
					continue
				}
				out := r.resolveOne(ctx, req, dl)
				sum.Selected++
				sum.Items = append(sum.Items, out)
				switch out.Action {
				case "resolved":
					sum.Resolved++
					deletes = append(deletes, dl)
				case "would_resolve":
					sum.Resolved++
					s.hold(dl)
				case "skipped":
					sum.Skipped++
					s.hold(dl)
				default:
					sum.Errors++
					s.hold(dl)
				}
				r.log().Info("resolve outcome", "item_id", out.ItemID, "dlq", string(out.DLQ), "message_id", out.MessageID,
					"action", out.Action, "on_item", out.OnItem, "reason", out.Reason, "dry_run", req.DryRun)
			}
			s.delete(ctx, deletes)
		})
		if err != nil {
			sum.Scanned, sum.Incomplete = s.scanned, s.incomplete
			return sum, err
		}
	}
	sum.Scanned, sum.Incomplete = s.scanned, s.incomplete
	return sum, nil
}

// selects reports whether the request picks dl.
func (req ResolveRequest) selects(dl DeadLetter) bool {
	if len(req.IDs) > 0 {
		found := false
		for _, id := range req.IDs {
			found = found || (ListRequest{ID: id}).matchesID(dl)
		}
		if !found {
			return false
		}
	}
	if isZeroFilter(req.Filter) {
		return true
	}
	return dl.Kind != deadletter.KindUnreadable && req.Filter.Matches(dl)
}

// resolveOne records one resolution (unless dry) and says what happened.
func (r *Replayer) resolveOne(ctx context.Context, req ResolveRequest, dl DeadLetter) Resolved {
	out := Resolved{ItemID: dl.ItemID, DLQ: dl.DLQ, MessageID: dl.MessageID, DeadLetterID: dl.DeadLetterID,
		Class: string(dl.Class), Kind: dl.Kind, Action: "resolved"}
	// A Scheduler run's spec is not its item's dead letter, as a message's is not.
	itemDL := dl.Kind != deadletter.KindUnreadable && dl.Kind != deadletter.KindSpec && (dl.Payload == nil || dl.Payload.Message == nil)
	if out.ItemID == "" {
		out.ItemID = "message:" + dl.MessageID
	}
	stage := dl.Stage
	if stage == "" {
		stage = dl.DLQ
	}
	res := store.Resolution{ItemID: out.ItemID, At: r.now(), By: req.By, Note: req.Note, Stage: stage,
		Class: dl.Class, DeadLetterID: dl.DeadLetterID, MessageID: dl.MessageID}
	// The resolution goes on the item only when the dead letter is the
	// item's own, as it is now: a copy whose item has moved on (replayed,
	// done, dead-lettered again later) is stale, and is closed without
	// touching the item.
	onItem := false
	var pending *sendable
	if itemDL {
		it, err := r.get(ctx, dl.ItemID)
		switch {
		case err != nil:
			out.Action, out.Reason = "error", "read item: "+redact.String(err.Error())
			return out
		case it == nil:
			out.Reason = "the item does not exist: recorded in the error log only"
		default:
			p := decide(dl.withItem(it), it, r.now())
			if p.handOff {
				// The item's dead letter was decided but never reached the
				// DLQ: this message is all that leads to it. The backstop
				// schedule hands it off; the dead letter is then resolved.
				out.Action, out.Reason = "skipped", "the item is failed at "+string(it.Stage)+
					" and its dead letter never reached the DLQ: the backstop schedule hands it off"
				return out
			}
			if dl.Kind == deadletter.KindBackstop && (p.action == Replayed || p.action == Skipped) {
				// A stage envelope the queue's backstop moved while its item
				// is still at that stage: the item is in flight, no dead
				// letter, and this message may be all that carries it — a
				// replay from item state would not revive it. The backstop
				// schedule resumes it (docs/design.md "Waits and parking").
				out.Action, out.Reason = "skipped", "the item is still "+string(it.State)+" at "+string(it.Stage)+
					" and this message carries it: the backstop schedule resumes it"
				return out
			}
			onItem = p.action == Replayed
			// Recorded only while the item is as judged here: a replay or a
			// new failure since makes the write conflict.
			res.Read = it
			if !onItem {
				out.Reason = "not the item's current dead letter (" + p.reason + "): recorded in the error log only, the item left as it is"
			}
			if p.action == Resent && !p.resubmit {
				// A replay written and perhaps never sent: this message may
				// be all that carries the item, so the replay is sent
				// before the message goes, as a replay run would.
				env, _ := it.ReplayEnvelope()
				pending = &sendable{env: env}
				out.Reason = "the item's replay (" + p.reason + ") is sent before the dead letter is deleted; the item left as it is"
			}
		}
	}
	if req.DryRun {
		out.Action = "would_resolve"
		return out
	}
	if pending != nil {
		if sent := r.send(ctx, []sendable{*pending}); sent[0].out.Action == Failed {
			out.Action, out.Reason = "error", "the item's pending replay could not be sent, so its dead letter stays: "+sent[0].out.Reason
			return out
		}
	}
	if onItem {
		if ir, ok := r.Items.(ItemResolver); ok {
			err := ir.Resolve(ctx, res)
			switch {
			case err == nil:
				out.OnItem = true
			case errors.Is(err, store.ErrNotFound):
				out.Reason = "the item does not exist: recorded in the error log only"
			case errors.Is(err, store.ErrConflict):
				// The item moved on between the read and the write (replayed,
				// failed again): the dead letter is no longer its current
				// one, and the message stays for a run that judges it anew.
				out.Action, out.Reason = "error", "the item changed while it was resolved; run again"
				return out
			default:
				out.Action, out.Reason = "error", "record on the item: "+redact.String(err.Error())
				return out
			}
		}
	}
	if err := r.ErrorLog.AppendResolution(ctx, res); err != nil {
		out.Action, out.Reason = "error", "record in the error log: "+redact.String(err.Error())
	}
	return out
}
