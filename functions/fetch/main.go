// Command fetch is the fetch stage: it downloads each item's source document
// and forwards the item to the llm stage. Each article host has a shared
// circuit breaker.
package main

import (
	"context"
	"os"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/envconf"
	"github.com/triagehq/triage/shared/objects"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
)

func main() {
	cfg := envconf.Must(loadConfig(os.Getenv))
	stage.Start(cfg.stage, func(_ context.Context, d stage.Deps) (stage.Work, error) {
		breakers := breaker.ForStage(d.AWS, d.Env.Profile, d.Log, d.Metrics, pipeline.Fetch, cfg.breakersTable, cfg.breakerOpenFor)
		// Documents above the threshold go to the bodies bucket.
		d.Items.Bodies.Objects = objects.Open(d.Env.BodiesBucket, d.AWS)
		f := newFetcher(fetcherConfig{BlockPrivate: cfg.blockPrivate})
		return breaker.Guard{Inner: f, Service: breaker.SourceHost, Breakers: breakers}, nil
	})
}
