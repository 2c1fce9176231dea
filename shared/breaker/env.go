package breaker

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/shared/clock"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
)

// FromDeps builds a stage function's Breakers over the BREAKERS_TABLE table,
// with the process's logger and metrics. BREAKER_OPEN_FOR, when set (a Go
// duration), shortens how long a breaker stays open before its probe — for
// demos with compressed time; production leaves it unset (DefaultOpenFor).
func FromDeps(d stage.Deps, st pipeline.Stage) (*Breakers, error) {
	table := d.Getenv("BREAKERS_TABLE")
	if table == "" {
		return nil, fmt.Errorf("BREAKERS_TABLE is required")
	}
	b := &Breakers{
		Store: &Dynamo{DB: dynamodb.NewFromConfig(d.AWS), Table: table},
		Clock: clock.System{}, Stage: st, Profile: d.Env.Profile, Log: d.Log, Metrics: d.Metrics,
	}
	if v := d.Getenv("BREAKER_OPEN_FOR"); v != "" {
		dur, err := time.ParseDuration(v)
		if err != nil || dur <= 0 {
			return nil, fmt.Errorf("BREAKER_OPEN_FOR=%q is not a positive duration", v)
		}
		b.OpenFor = dur
	}
	return b, nil
}
