// Package scheduler ends parked waits: it re-enqueues plain due waits when
// due, and the waiters of a gate when the gate opens, in a ramp
// (docs/design.md "Waits and parking").
//
// # Due waits
//
// The stage runner parks a wait that has no gate but is longer than it
// holds through SQS visibility (a daily-batch cooldown of 12 or 24 h, a
// long Retry-After) with store.Items.Park: the item becomes retryable with
// its not_before, and a record in the parked table holds the envelope and
// the due time. The Scheduler (cmd/scheduler, every minute) sends each
// due envelope back to its stage queue exactly once:
//
//  1. claim the record: a conditional UpdateItem that succeeds only if the
//     record is due, unchanged since it was listed, and unclaimed or its
//     claim expired (store.Parked.Claim);
//  2. send the envelopes, SendMessageBatch per stage queue;
//  3. delete each sent record, conditional on its due time and this run's
//     claim (store.Parked.Delete).
//
// Nothing is lost if a run crashes between steps: a record claimed but not
// sent is claimed again once its claim expires (ClaimFor) and sent then; a
// record sent but not deleted is sent again after its claim expires, and
// the second message is absorbed by the stage's claim of the item — the
// first message's claim made the item working (or moved it on), so the
// second is acknowledged as a duplicate without running the stage. A record
// re-parked in the meantime (the item ran and parked again) has a new due
// time, so neither a stale claim nor a stale delete touches it.
//
// # Gate waits
//
// A wait behind a closed gate — an open breaker, an exhausted provider
// quota, a model chain without an enabled model, a spent budget day — is
// parked under the gate's name, with no due time and no expiry, and the
// stage touches the gate's record in the gates table first. Each run, the
// Scheduler lists the gate records and asks each gate's Checker whether it
// is open:
//
//   - closed, and a probe due (a breaker past its open_until, whose
//     waiters are all parked so that no caller would probe it; for a model
//     chain's gate, the first provider of an enabled entry whose breaker
//     is): it takes the breaker's probe lease and releases one waiter
//     alone (ProbeCandidate: of the oldest, one that is no suspect, else the
//     one that served the fewest probes), carrying the lease's owner
//     (gates.AttrProbe); the stage's breaker.Guard, or the llm stage's
//     fallback chain, makes that call the probe. A failed probe judged the
//     upstream's re-parks its item without spending an attempt; one judged
//     the item's own is judged by its class (docs/design.md "A failure that
//     follows one item").
//   - open: it takes the gate's lease for the run, which also moves the
//     gate's ramp (gates.RampConfig: start low — at the rate the waiters
//     arrived at, when that is higher — grow while released items meet no
//     more RATE_LIMITED or 5xx than the upstream's background, cut by 0.7
//     when they do),
//     and releases that many of the oldest waiters, their sends spread over
//     the run's interval (DelaySeconds) and tagged with the gate
//     (gates.AttrGate) so the stage can signal congestion. Overlapping runs
//     cannot both release a gate: the lease's condition admits one.
//   - open with no waiter left: the record is retired once no stage has
//     touched it for store.StaleTouch.
//
// A released waiter is sent before its record is unparked (conditional on
// the record being the one listed): a crash between the two re-sends it,
// which the stage's claim absorbs; a waiter that parked again since keeps
// its new wait. Writes per waiter and outage: one to park, one to unpark,
// however long the gate stays closed.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/redact"
	"github.com/triagehq/triage/internal/store"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Store is the parked-record store's due-wait side (store.Parked,
// store.MemoryParked).
type Store interface {
	Due(ctx context.Context, now time.Time, fn func([]store.ParkedWait) error) error
	Claim(ctx context.Context, w store.ParkedWait, owner string, now, until time.Time) error
	Delete(ctx context.Context, w store.ParkedWait, owner string) error
}

// Waiters is the parked-record store's gate side (store.Parked,
// store.MemoryParked).
type Waiters interface {
	Waiting(ctx context.Context, g gates.Name, limit int) ([]store.ParkedWait, error)
	Count(ctx context.Context, g gates.Name) (int, error)
	Unpark(ctx context.Context, w store.ParkedWait) error
}

// GateStore is the gates table (store.Gates, store.MemoryGates).
type GateStore interface {
	List(ctx context.Context) ([]store.GateRecord, error)
	Lease(ctx context.Context, rec store.GateRecord, owner string, now, until time.Time, next gates.Ramp) error
	Reset(ctx context.Context, rec store.GateRecord, now time.Time) error
	Delete(ctx context.Context, rec store.GateRecord, now time.Time) error
}

// SQS is the part of the SQS client the Scheduler uses.
type SQS interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

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
	// DefaultInterval is the scheduler's schedule (EventBridge rate(1
	// minute)): one run's releases of a gate are spread over it.
	DefaultInterval = time.Minute
	// DefaultGateLease is how long a run holds a gate it releases, as a
	// share of the interval: longer than its sends take, shorter than the
	// interval, so the next run may release again (45 s of a minute).
	DefaultGateLease = 0.75
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
	Queues map[work.Stage]string
	// Clock is injected; nil means the wall clock.
	Clock clock.Clock
	// Log receives a line per problem and one per run; nil discards.
	Log *slog.Logger
	// ClaimFor, MaxPerRun and Concurrency: see the Default constants.
	ClaimFor    time.Duration
	MaxPerRun   int
	Concurrency int

	// Gates lists the gates with waiters and holds their ramps; Waiters
	// reads and retires their waiters; Checkers decide whether a gate of a
	// kind is open (and, for a Prober, take a probe lease). Nil Gates
	// releases due waits only.
	Gates    GateStore
	Waiters  Waiters
	Checkers map[gates.Kind]Checker
	// Ramp shapes each gate's releases; the zero value is the defaults.
	Ramp gates.RampConfig
	// Interval and GateLease: see DefaultInterval and DefaultGateLease (a
	// zero GateLease is that share of Interval).
	Interval  time.Duration
	GateLease time.Duration
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
	// Gates counts the gates listed, Open those found open; Probes the
	// waiters released as a breaker's probe; Released the waiters released
	// from open gates; Retired the gate records retired (no waiter left).
	Gates    int `json:"gates"`
	Open     int `json:"open"`
	Probes   int `json:"probes"`
	Released int `json:"released"`
	Retired  int `json:"retired"`
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
	err := s.Store.Due(ctx, now, func(page []store.ParkedWait) error {
		res.Pages++
		if len(page) > limit-res.Due {
			page = page[:limit-res.Due]
		}
		res.Due += len(page)
		s.page(ctx, runID, page, &res)
		if res.Due >= limit || s.outOfTime(ctx) {
			return store.ErrStop
		}
		return nil
	})
	if err == nil && s.Gates != nil && !s.outOfTime(ctx) {
		err = s.gates(ctx, runID, &res)
	}
	s.log().Info("scheduler run", "run", runID, "due", res.Due, "pages", res.Pages, "claimed", res.Claimed,
		"contended", res.Contended, "sent", res.Sent, "deleted", res.Deleted, "superseded", res.Superseded, "errors", res.Errors,
		"gates", res.Gates, "open", res.Open, "probes", res.Probes, "released", res.Released, "retired", res.Retired)
	if err != nil {
		return res, fmt.Errorf("scheduler: %w", err)
	}
	return res, nil
}

// page claims, sends and deletes one page of due records.
func (s *Scheduler) page(ctx context.Context, runID string, page []store.ParkedWait, res *Result) {
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
		case errors.Is(err, store.ErrConflict):
			res.Contended++
		case err != nil:
			res.Errors++
			s.log().Error("claiming a parked wait failed", "item_id", w.ItemID, "error", redact.String(err.Error()))
		default:
			res.Claimed++
			claimed[i] = true
		}
	})
	var mine []store.ParkedWait
	for i, ok := range claimed {
		if ok {
			mine = append(mine, page[i])
		}
	}
	sent := s.send(ctx, mine, nil, res)
	s.parallel(len(sent), func(i int) {
		err := s.Store.Delete(ctx, sent[i], runID)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case errors.Is(err, store.ErrConflict):
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

// sendOpts shapes a gate's release: the attributes every message carries
// and each one's delay.
type sendOpts struct {
	attrs map[string]sqstypes.MessageAttributeValue
	delay func(i int) int32
}

// send sends the waits' envelopes, SendMessageBatch per stage queue, and
// returns the ones sent. opts, when set, tags and spreads them (the i of
// delay is the wait's index in ws).
func (s *Scheduler) send(ctx context.Context, ws []store.ParkedWait, opts *sendOpts, res *Result) []store.ParkedWait {
	index := make(map[*store.ParkedWait]int, len(ws))
	for i := range ws {
		index[&ws[i]] = i
	}
	byStage := map[work.Stage][]*store.ParkedWait{}
	var order []work.Stage
	for i := range ws {
		st := ws[i].Stage
		if _, ok := byStage[st]; !ok {
			order = append(order, st)
		}
		byStage[st] = append(byStage[st], &ws[i])
	}
	var sent []store.ParkedWait
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
				if opts != nil {
					entries[i].MessageAttributes = opts.attrs
					if opts.delay != nil {
						entries[i].DelaySeconds = opts.delay(index[w])
					}
				}
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
					sent = append(sent, *w)
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
	return clock.Or(s.Clock).Now()
}

func (s *Scheduler) log() *slog.Logger {
	return telemetry.Or(s.Log)
}
