// Command scheduler ends parked waits (internal/scheduler): every minute
// (EventBridge) it re-enqueues the due waits — claim, send, delete — and,
// for each gate with waiters, releases the oldest one as the probe of a
// breaker whose probe is due, or, once the gate is open, as many as its
// ramp allows.
package main

import (
	"context"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/gates/health"
	"github.com/triagehq/triage/internal/scheduler"
	"github.com/triagehq/triage/internal/store"
)

func main() {
	ctx := context.Background()
	cfg := conf.Must(loadConfig(os.Getenv))
	aws, log := cfg.Process.MustBoot(ctx)
	db := dynamodb.NewFromConfig(aws)
	dbx := &store.Parked{DB: db, Table: cfg.ParkedTable}
	breakerStore := &breaker.Dynamo{DB: db, Table: cfg.BreakersTable, ConsistentReads: true}
	// A probe the scheduler releases reports through its stage; a delivery
	// that cannot run it (another delivery holds the item) never does, so
	// its lease must lapse within a few runs, not DefaultProbeLease's two
	// minutes of compressed local time: two intervals, at least 15 s (a
	// probe's call), at most DefaultProbeLease.
	probeLease := breaker.DefaultProbeLease
	if cfg.Interval > 0 {
		probeLease = min(probeLease, max(2*cfg.Interval, 15*time.Second))
	}
	breakers := scheduler.Breakers{Store: breakerStore, ProbeLease: probeLease}
	h := &handler{
		Scheduler: &scheduler.Scheduler{
			Store:   dbx,
			SQS:     sqs.NewFromConfig(aws),
			Queues:  cfg.Queues,
			Clock:   clock.System{},
			Log:     log,
			Gates:   &store.Gates{DB: db, Table: cfg.GatesTable},
			Waiters: dbx,
			Checkers: map[gates.Kind]scheduler.Checker{
				gates.Breaker: breakers, gates.Quota: breakers,
				gates.Models: scheduler.Models{Store: &health.Dynamo{DB: db, Table: cfg.ModelsTable}, Breakers: breakerStore,
					ProbeLease: probeLease},
				gates.Budget: scheduler.Budget{},
			},
			Ramp:     cfg.Ramp,
			Interval: cfg.Interval,
		},
		Log: log,
	}
	lambda.Start(h.Handle)
}
