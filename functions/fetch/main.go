// Command fetch is the fetch stage: it downloads each item's source document
// and forwards the item to the llm stage.
package main

import (
	"context"

	"github.com/triagehq/triage/shared/stage"
)

func main() {
	stage.Start(func(_ context.Context, d stage.Deps) (stage.Work, error) {
		return NewFetcher(FetcherConfig{BlockPrivate: d.Getenv("FETCH_BLOCK_PRIVATE") != "false"}), nil
	})
}
