// Command fetch is the fetch stage: it downloads each item's source document
// and forwards the item to the llm stage. Each article host has a shared
// circuit breaker.
package main

import (
	"context"
	"os"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/gates/breaker"
	"github.com/triagehq/triage/internal/runner"
	"github.com/triagehq/triage/internal/store/objects"
	"github.com/triagehq/triage/internal/work"
)

func main() {
	cfg := conf.Must(loadConfig(os.Getenv))
	runner.Start(cfg.stage, func(_ context.Context, d runner.Deps) (runner.Work, error) {
		breakers := breaker.ForStage(d.AWS, d.Env.Profile, d.Log, d.Metrics, work.Fetch, cfg.breakersTable, cfg.breakerOpenFor)
		// Documents above the threshold go to the bodies bucket.
		d.Items.Bodies.Objects = objects.Open(d.Env.BodiesBucket, d.AWS)
		f := newFetcher(fetcherConfig{BlockPrivate: cfg.blockPrivate})
		return breaker.Guard{Inner: f, Service: breaker.SourceHost, Breakers: breakers}, nil
	})
}
