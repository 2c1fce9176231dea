package main

import (
	"strings"
	"time"

	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/gates"
	"github.com/triagehq/triage/internal/work"
)

// config is the scheduler function's whole environment, read once by
// loadConfig (the README's "Configuration" table lists every variable).
type config struct {
	Process conf.Process
	// ParkedTable is PARKED_TABLE; GatesTable GATES_TABLE; BreakersTable
	// BREAKERS_TABLE and ModelsTable MODELS_TABLE, whose records are the
	// breaker, quota and model-chain gates.
	ParkedTable, GatesTable, BreakersTable, ModelsTable string
	// Queues maps each stage to <STAGE>_QUEUE_URL.
	Queues map[work.Stage]string
	// Interval is SCHEDULE_INTERVAL (a Go duration): how often the function
	// runs, over which one run spreads a gate's releases; default 1m. The
	// local stack compresses it: a test and demo override.
	Interval time.Duration
	// Ramp is the release ramp: RAMP_START, RAMP_INCREASE (waiters per
	// run) and RAMP_SLOW_START ("false": grow additively from the start);
	// unset values are gate's defaults.
	Ramp gates.RampConfig
}

// loadConfig reads and checks the scheduler function's environment,
// reporting every missing or invalid variable at once.
func loadConfig(getenv func(string) string) (config, error) {
	r := conf.New(getenv)
	c := config{Process: r.Process(), ParkedTable: r.Required("PARKED_TABLE"), GatesTable: r.Required("GATES_TABLE"),
		BreakersTable: r.Required("BREAKERS_TABLE"), ModelsTable: r.Required("MODELS_TABLE"), Queues: map[work.Stage]string{}}
	for _, st := range work.Stages() {
		c.Queues[st] = r.Required(strings.ToUpper(string(st)) + "_QUEUE_URL")
	}
	c.Interval = r.TestOverride("SCHEDULE_INTERVAL")
	c.Ramp.Start = r.PositiveInt("RAMP_START", 0)
	c.Ramp.Increase = r.PositiveInt("RAMP_INCREASE", 0)
	c.Ramp.NoSlowStart = !r.Bool("RAMP_SLOW_START", true)
	c.Process.Overrides = r.Overrides()
	return c, r.Err("scheduler")
}
