// Package parked re-enqueues waits longer than SQS can hold a message.
//
// The stage runner parks such a wait (a daily-batch cooldown of 12 or 24 h,
// a budget wait until 00:00 UTC, a Retry-After beyond the 12-hour
// visibility limit) with state.Items.Park: the item becomes retryable with
// its not_before, and a record in the parked table holds the envelope and
// the due time. The Scheduler (functions/scheduler, every minute) sends each
// due envelope back to its stage queue exactly once:
//
//  1. claim the record: a conditional UpdateItem that succeeds only if the
//     record is due, unchanged since it was listed, and unclaimed or its
//     claim expired (state.Parked.Claim);
//  2. send the envelopes, SendMessageBatch per stage queue;
//  3. delete each sent record, conditional on its due time and this run's
//     claim (state.Parked.Delete).
//
// Nothing is lost if a run crashes between steps: a record claimed but not
// sent is claimed again once its claim expires (ClaimFor) and sent then; a
// record sent but not deleted is sent again after its claim expires, and
// the second message is absorbed by the stage's claim of the item — the
// first message's claim made the item working (or moved it on), so the
// second is acknowledged as a duplicate without running the stage. A record
// re-parked in the meantime (the item ran and parked again) has a new due
// time, so neither a stale claim nor a stale delete touches it.
package parked

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/redact"
	"github.com/triagehq/triage/shared/state"
)

// Store is the parked-record store (state.Parked, state.MemoryParked).
type Store interface {
	Due(ctx context.Context, now time.Time, fn func([]state.ParkedWait) error) error
	Claim(ctx context.Context, w state.ParkedWait, owner string, now, until time.Time) error
	Delete(ctx context.Context, w state.ParkedWait, owner string) error
}

// SQS is the part of the SQS client the Scheduler uses.
type SQS interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// Clock tells the time.
type Clock interface{ Now() time.Time }

// Defaults of the Scheduler's optional fields.
const (
	// DefaultClaimFor is how long a claim holds a record: longer than a
	// scheduler invocation (60 s), so a live run never loses its claim.
	DefaultClaimFor = 2 * time.Minute
	// DefaultMaxPerRun bounds the records one run re-enqueues; the rest wait
	// a minute for the next run.
	DefaultMaxPerRun = 5000
	// DefaultConcurrency is how many claims (and deletes) run at once.
	DefaultConcurrency = 8
	// deadlineMargin is kept before the context's deadline to finish the
	// page in hand.
	deadlineMargin = 10 * time.Second
)

// Scheduler re-enqueues due parked waits; see the package documentation.
type Scheduler struct {
	// Store holds the parked records. Required.
	Store Store
	// SQS sends the envelopes. Required.
	SQS SQS
	// Queues maps each stage to its queue URL.
	Queues map[pipeline.Stage]string
	// Clock is injected; nil means the wall clock.
	Clock Clock
	// Log receives a line per problem and one per run; nil discards.
	Log *slog.Logger
	// ClaimFor, MaxPerRun and Concurrency: see the Default constants.
	ClaimFor    time.Duration
	MaxPerRun   int
	Concurrency int
}

// Result counts what one run did.
type Result struct {
	// Due counts due records listed; Pages the pages read.
	Due   int `json:"due"`
	Pages int `json:"pages"`
	// Claimed counts records this run claimed; Contended those another run
	// holds (or that changed since they were listed).
	Claimed   int `json:"claimed"`
	Contended int `json:"contended"`
	// Sent counts envelopes sent to their stage queues.
	Sent int `json:"sent"`
	// Deleted counts records retired; Superseded those re-parked or taken
	// over before the delete (left alone).
	Deleted    int `json:"deleted"`
	Superseded int `json:"superseded"`
	// Errors counts records whose claim, send or delete failed; each is
	// retried by a later run once its claim expires.
	Errors int `json:"errors"`
}

// Run re-enqueues every record due now, page by page, until none is left,
// MaxPerRun, or the context's deadline is near. runID names the run in the
// claims (a Lambda request id); empty is "scheduler@<now in ms>". It returns
// an error only when the due records cannot be listed; per-record failures
// are counted in Result.Errors.
func (s *Scheduler) Run(ctx context.Context, runID string) (Result, error) {
	now := s.now()
	if runID == "" {
		runID = "scheduler@" + strconv.FormatInt(now.UnixMilli(), 10)
	}
	var res Result
	limit := s.MaxPerRun
	if limit <= 0 {
		limit = DefaultMaxPerRun
	}
	err := s.Store.Due(ctx, now, func(page []state.ParkedWait) error {
		res.Pages++
		if len(page) > limit-res.Due {
			page = page[:limit-res.Due]
		}
		res.Due += len(page)
		s.page(ctx, runID, page, &res)
		if res.Due >= limit || s.outOfTime(ctx) {
			return state.ErrStop
		}
		return nil
	})
	s.log().Info("scheduler run", "run", runID, "due", res.Due, "pages", res.Pages, "claimed", res.Claimed,
		"contended", res.Contended, "sent", res.Sent, "deleted", res.Deleted, "superseded", res.Superseded, "errors", res.Errors)
	if err != nil {
		return res, fmt.Errorf("scheduler: %w", err)
	}
	return res, nil
}

// page claims, sends and deletes one page of due records.
func (s *Scheduler) page(ctx context.Context, runID string, page []state.ParkedWait, res *Result) {
	now := s.now()
	until := now.Add(s.claimFor())
	claimed := make([]bool, len(page))
	var mu sync.Mutex
	s.parallel(len(page), func(i int) {
		w := page[i]
		if w.ClaimedBy != "" && !w.ClaimedUntil.Before(now) {
			mu.Lock()
			res.Contended++
			mu.Unlock()
			return
		}
		err := s.Store.Claim(ctx, w, runID, now, until)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case errors.Is(err, state.ErrConflict):
			res.Contended++
		case err != nil:
			res.Errors++
			s.log().Error("claiming a parked wait failed", "item_id", w.ItemID, "error", redact.String(err.Error()))
		default:
			res.Claimed++
			claimed[i] = true
		}
	})
	var mine []state.ParkedWait
	for i, ok := range claimed {
		if ok {
			mine = append(mine, page[i])
		}
	}
	sent := s.send(ctx, mine, res)
	s.parallel(len(sent), func(i int) {
		err := s.Store.Delete(ctx, sent[i], runID)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case errors.Is(err, state.ErrConflict):
			res.Superseded++
			s.log().Warn("parked wait re-parked or taken over before its delete; left alone", "item_id", sent[i].ItemID)
		case err != nil:
			res.Errors++
			s.log().Error("deleting a sent parked wait failed; a later run re-sends it (absorbed by the stage's claim)",
				"item_id", sent[i].ItemID, "error", redact.String(err.Error()))
		default:
			res.Deleted++
		}
	})
}

// send sends the claimed waits' envelopes, SendMessageBatch per stage queue,
// and returns the ones sent.
func (s *Scheduler) send(ctx context.Context, ws []state.ParkedWait, res *Result) []state.ParkedWait {
	byStage := map[pipeline.Stage][]state.ParkedWait{}
	var order []pipeline.Stage
	for _, w := range ws {
		st := w.Stage
		if _, ok := byStage[st]; !ok {
			order = append(order, st)
		}
		byStage[st] = append(byStage[st], w)
	}
	var sent []state.ParkedWait
	for _, st := range order {
		group := byStage[st]
		url := s.Queues[st]
		if url == "" {
			res.Errors += len(group)
			s.log().Error("no queue for a parked wait's stage; left for a later run", "stage", string(st), "waits", len(group))
			continue
		}
		for start := 0; start < len(group); start += 10 {
			chunk := group[start:min(start+10, len(group))]
			entries := make([]sqstypes.SendMessageBatchRequestEntry, len(chunk))
			for i, w := range chunk {
				entries[i] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(w.Envelope)}
			}
			out, err := s.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
			if err != nil {
				res.Errors += len(chunk)
				s.log().Error("re-enqueueing parked waits failed; their claims expire and a later run sends them",
					"stage", string(st), "waits", len(chunk), "error", redact.String(err.Error()))
				continue
			}
			failed := map[string]bool{}
			for _, f := range out.Failed {
				failed[aws.ToString(f.Id)] = true
				res.Errors++
				s.log().Error("re-enqueueing a parked wait failed", "code", aws.ToString(f.Code))
			}
			for i, w := range chunk {
				if !failed[strconv.Itoa(i)] {
					sent = append(sent, w)
					res.Sent++
				}
			}
		}
	}
	return sent
}

// parallel runs fn(0..n-1) on up to Concurrency goroutines.
func (s *Scheduler) parallel(n int, fn func(i int)) {
	workers := s.Concurrency
	if workers <= 0 {
		workers = DefaultConcurrency
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func (s *Scheduler) outOfTime(ctx context.Context) bool {
	if d, ok := ctx.Deadline(); ok && s.now().Add(deadlineMargin).After(d) {
		return true
	}
	return ctx.Err() != nil
}

func (s *Scheduler) claimFor() time.Duration {
	if s.ClaimFor > 0 {
		return s.ClaimFor
	}
	return DefaultClaimFor
}

func (s *Scheduler) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock.Now()
}

func (s *Scheduler) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return s.Log
}
