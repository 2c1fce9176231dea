package main

import (
	"time"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/runner"
)

// config is the fetch function's whole environment, read once by
// loadConfig (the README's "Configuration" table lists every variable).
type config struct {
	stage runner.Env
	// breakersTable is BREAKERS_TABLE: a breaker per article host.
	breakersTable string
	// blockPrivate is BLOCK_PRIVATE_NETWORKS (default true): refuse
	// private, loopback and link-local article hosts. The local stack turns
	// it off for its fakes on 127.0.0.1.
	blockPrivate bool
	// breakerOpenFor is BREAKER_OPEN_FOR, a test and demo override (0: the
	// breakers' DefaultOpenFor).
	breakerOpenFor time.Duration
}

// loadConfig reads and checks the fetch function's environment, reporting
// every missing or invalid variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	r := conf.New(getenv)
	c := config{stage: runner.ReadEnv(r), breakersTable: r.Required("BREAKERS_TABLE"),
		blockPrivate: r.Bool("BLOCK_PRIVATE_NETWORKS", true), breakerOpenFor: r.TestOverride("BREAKER_OPEN_FOR")}
	c.stage.Process.Overrides = r.Overrides()
	return c, r.Err("fetch")
}
