package breaker

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
)

// ForStage builds a stage function's Breakers over the Breakers table, with
// the process's logger and metrics. openFor, when positive, shortens how
// long a breaker stays open before its probe — for demos and tests with
// compressed time (BREAKER_OPEN_FOR); production leaves it 0
// (DefaultOpenFor).
func ForStage(d stage.Deps, st pipeline.Stage, table string, openFor time.Duration) *Breakers {
	return &Breakers{
		Store: &Dynamo{DB: dynamodb.NewFromConfig(d.AWS), Table: table},
		Clock: clock.System{}, Stage: st, Profile: d.Env.Profile, Log: d.Log, Metrics: d.Metrics, OpenFor: openFor,
	}
}
