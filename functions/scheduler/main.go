// Command scheduler ends parked waits (shared/parked): every minute
// (EventBridge) it re-enqueues the due waits — claim, send, delete — and,
// for each gate with waiters, releases the oldest one as the probe of a
// breaker whose probe is due, or, once the gate is open, as many as its
// ramp allows.
package main

import (
	"time"

	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/envconf"
	"github.com/triagehq/triage/shared/gate"
	"github.com/triagehq/triage/shared/health"
	"github.com/triagehq/triage/shared/parked"
	"github.com/triagehq/triage/shared/state"
	"github.com/triagehq/triage/shared/telemetry"
)

func main() {
	ctx := context.Background()
	cfg := envconf.Must(loadConfig(os.Getenv))
	aws, log := cfg.Process.MustBoot(ctx, telemetry.NewLogger(os.Stdout, cfg.Process.LogLevel))
	db := dynamodb.NewFromConfig(aws)
	store := &state.Parked{DB: db, Table: cfg.ParkedTable}
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
	breakers := parked.Breakers{Store: breakerStore, ProbeLease: probeLease, Profile: cfg.Profile}
	h := &handler{
		Scheduler: &parked.Scheduler{
			Store:   store,
			SQS:     sqs.NewFromConfig(aws),
			Queues:  cfg.Queues,
			Clock:   clock.System{},
			Log:     log,
			Gates:   &state.Gates{DB: db, Table: cfg.GatesTable},
			Waiters: store,
			Checkers: map[gate.Kind]parked.Checker{
				gate.Breaker: breakers, gate.Quota: breakers,
				gate.Models: parked.Models{Store: &health.Dynamo{DB: db, Table: cfg.ModelsTable}, Breakers: breakerStore,
					ProbeLease: probeLease, Profile: cfg.Profile},
				gate.Budget: parked.Budget{},
			},
			Ramp:     cfg.Ramp,
			Interval: cfg.Interval,
		},
		Log: log,
	}
	lambda.Start(h.Handle)
}
