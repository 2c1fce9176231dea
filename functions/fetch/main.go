// Command fetch is the fetch stage: it downloads each item's source document
// and forwards the item to the llm stage. Each article host has a shared
// circuit breaker.
package main

import (
	"context"

	"github.com/triagehq/triage/shared/breaker"
	"github.com/triagehq/triage/shared/objects"
	"github.com/triagehq/triage/shared/pipeline"
	"github.com/triagehq/triage/shared/stage"
)

func main() {
	stage.Start(func(_ context.Context, d stage.Deps) (stage.Work, error) {
		breakers, err := breaker.FromDeps(d, pipeline.Fetch)
		if err != nil {
			return nil, err
		}
		// Documents above the threshold go to the bodies bucket.
		d.Items.Bodies.Objects = objects.FromEnv(d.Getenv, d.AWS)
		f := NewFetcher(FetcherConfig{BlockPrivate: d.Getenv("BLOCK_PRIVATE_NETWORKS") != "false"})
		return breaker.Guard{Inner: f, Service: breaker.SourceHost, Breakers: breakers}, nil
	})
}
