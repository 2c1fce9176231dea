package main

import (
	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/conf"
)

// clockOffsetEnv names an optional duration ("61m") by which the function's
// clock runs ahead of the wall clock, so that `make demo` can run the real
// function "an hour later": a test and demo override. Deployments never set
// it (template.yaml does not); a negative or malformed value fails the cold
// start.
const clockOffsetEnv = "RECOVERY_CLOCK_OFFSET"

// config is the recovery function's whole environment, read once by
// loadConfig (the README's "Configuration" table lists every variable).
type config struct {
	process conf.Process
	// modelsTable is MODELS_TABLE.
	modelsTable string
	// clock is the wall clock, ahead by clockOffsetEnv when it is set.
	clock clock.Offset
}

// loadConfig reads and checks the recovery function's environment,
// reporting every missing or invalid variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	r := conf.New(getenv)
	c := config{process: r.Process(), modelsTable: r.Required("MODELS_TABLE"), clock: clock.Offset(r.TestOverride(clockOffsetEnv))}
	c.process.Overrides = r.Overrides()
	return c, r.Err("recovery")
}
