package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/triagehq/triage/internal/deadletter"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
)

// runItems replays from item state: the items named by the filter's item
// ids, or every item in deadletter or failed that the filter selects
// (through Index), DLQ message or not.
func (r *Replayer) runItems(ctx context.Context, req Request) (Summary, error) {
	sum := Summary{DryRun: req.DryRun}
	var sends []sendable
	planned, total := 0, 0
	// replayed holds the items this run replayed: one that has failed again
	// by the time a later pass lists it is not replayed twice.
	replayed := map[string]bool{}
	// each plans one item's replay (or writes it) as it is read: a listing
	// is not held in memory whole, and it ends once Max are planned.
	each := func(it store.Item) error {
		if err := r.writeTime(ctx); err != nil {
			return err
		}
		sum.Scanned++
		if r.Progress != nil {
			r.Progress(Progress{Done: sum.Scanned, Total: total, Selected: sum.Selected, Replayed: sum.Replayed, Skipped: sum.Skipped, Errors: sum.Errors})
		}
		view := DeadLetter{ItemID: it.ID, Class: it.FailureClass(), Stage: it.Stage, FailedAt: it.LastFailureAt, Kind: deadletter.KindBackstop}
		if !req.Filter.Matches(view) {
			return nil
		}
		if req.Max > 0 && planned >= req.Max {
			return store.ErrStop
		}
		out := Outcome{ItemID: it.ID, Class: view.Class, FailedStage: it.Stage, Target: req.Mode.Target(it.Stage)}
		if it.DeadLetter != nil {
			out.DeadLetterID = it.DeadLetter.ID
		}
		if replayed[it.ID] {
			out.Action, out.Reason = Skipped, fmt.Sprintf("replayed earlier in this run, and %s at %s again since", it.State, it.Stage)
			sum.add(out)
			return nil
		}
		pending := false
		if _, ok := it.PendingReplay(); ok {
			pending = true
		} else if !slices.Contains(store.DeadLetterStates(), it.State) {
			out.Action, out.Reason = Skipped, fmt.Sprintf("item is %s at %s: only permanent failures (deadletter, failed) replay from item state", it.State, it.Stage)
			sum.add(out)
			return nil
		}
		planned++
		if req.DryRun {
			out.Action, out.ReplayCount = WouldReplay, it.ReplayCount+1
			if pending {
				out.ReplayCount, out.Target, out.Reason = it.ReplayCount, it.Stage, "replayed earlier, not yet sent"
			}
			sum.add(out)
			return nil
		}
		cur := it
		out.Action = Resent
		if !pending {
			var err error
			cur, err = r.Items.Replay(ctx, store.ReplayRequest{
				ItemID: it.ID, Stage: it.Stage, PrevReplayCount: it.ReplayCount, Mode: req.Mode, Note: req.Note, By: req.By,
				Class: view.Class, Now: r.now(),
			})
			if err != nil {
				out.Action, out.Reason = Failed, "replay write: "+redact.String(err.Error())
				if errors.Is(err, store.ErrConflict) {
					out.Action, out.Reason = Skipped, "the item changed during the replay; run again"
				}
				sum.add(out)
				return nil
			}
			out.Action = Replayed
		}
		replayed[it.ID] = true
		env, _ := cur.ReplayEnvelope()
		out.Target, out.ReplayCount = env.Stage, cur.ReplayCount
		sends = append(sends, sendable{env: env, out: out})
		if len(sends) >= maxBatch {
			// Sent as the run goes: a replay from item state has no DLQ
			// message to resend it, and a run by filter lists no queued
			// item, so a run cut short must have sent what it wrote.
			sum, sends = r.sendItems(ctx, sum, sends), nil
		}
		return nil
	}
	if len(req.Filter.ItemIDs) > 0 {
		var (
			items   []store.Item
			missing []string
		)
		named := map[string]bool{}
		for _, id := range req.Filter.ItemIDs {
			if named[id] {
				continue // an id named twice is one item, replayed once
			}
			named[id] = true
			it, err := r.get(ctx, id)
			switch {
			case err != nil:
				return sum, fmt.Errorf("replay %s: read item: %w", id, err)
			case it == nil:
				missing = append(missing, id)
			default:
				items = append(items, *it)
			}
		}
		for _, id := range missing {
			sum.add(Outcome{ItemID: id, Action: Skipped, Reason: ReasonNoItem})
		}
		total = len(items)
		for _, it := range items {
			if err := each(it); err != nil {
				if !errors.Is(err, store.ErrStop) {
					return r.sendItems(ctx, sum, sends), fmt.Errorf("replay: %w", err)
				}
				break
			}
		}
	} else {
		if r.Index == nil {
			return sum, errors.New("replay from item state by filter needs an item index")
		}
		for _, st := range store.DeadLetterStates() {
			// Every item the filter selects, not a listing's default page.
			q := store.ItemQuery{State: st, Stage: req.Filter.Stage, Classes: req.Filter.ErrorClass,
				Since: req.Filter.FailedSince, Before: req.Filter.FailedBefore, Limit: -1}
			if err := r.Index.List(ctx, q, each); err != nil {
				sum = r.sendItems(ctx, sum, sends)
				return sum, fmt.Errorf("replay: %w", err)
			}
			if req.Max > 0 && planned >= req.Max {
				break
			}
		}
	}
	return r.sendItems(ctx, sum, sends), nil
}

// errOutOfTime ends a replay from item state whose context's deadline is
// near: what it wrote is sent, and a later run does the rest.
var errOutOfTime = errors.New("out of time: the replays written are sent; run the same request again for the rest")

// writeTime reports whether a replay from item state may write another
// replay: not once its context is done, nor within deadlineMargin of its
// deadline, which is kept for sending the envelopes of those written.
func (r *Replayer) writeTime(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && r.now().Add(deadlineMargin).After(d) {
		return errOutOfTime
	}
	return nil
}

// sendItems sends the envelopes of a replay from item state and adds their
// outcomes to sum. The replays are written: they are sent even when the
// run's context is cancelled.
func (r *Replayer) sendItems(ctx context.Context, sum Summary, sends []sendable) Summary {
	for _, sd := range r.send(context.WithoutCancel(ctx), sends) {
		sum.add(sd.out)
		r.log().Info("replay outcome", "item_id", sd.out.ItemID, "action", string(sd.out.Action), "target", string(sd.out.Target),
			"class", string(sd.out.Class), "reason", sd.out.Reason, "source", string(SourceItems))
	}
	return sum
}
