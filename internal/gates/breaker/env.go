package breaker

import (
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/work"
)

// ForStage builds a stage function's Breakers over the Breakers table, with
// what the stage's runner was built with: its AWS configuration, decision
// table, logger and metrics. openFor, when positive, shortens how long a
// breaker stays open before its probe — for demos and tests with compressed
// time (BREAKER_OPEN_FOR); production leaves it 0 (DefaultOpenFor).
func ForStage(cfg aws.Config, profile *policy.Profile, log *slog.Logger, metrics Metrics, st work.Stage, table string,
	openFor time.Duration) *Breakers {
	return &Breakers{
		Store: &Dynamo{DB: dynamodb.NewFromConfig(cfg), Table: table},
		Clock: clock.System{}, Stage: st, Profile: profile, Log: log, Metrics: metrics, OpenFor: openFor,
	}
}
