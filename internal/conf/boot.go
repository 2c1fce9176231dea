package conf

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/triagehq/triage/internal/rules"
	"github.com/triagehq/triage/internal/telemetry"
	"github.com/triagehq/triage/internal/work"
)

// Boot is the start-up every function shares before it builds its own
// clients: it loads the AWS configuration (counting its calls into counter
// when counter is not nil), names the function in every line of log, warns
// of the test and demo overrides, and puts the operator's classification
// rules in front of the built-in tables before the first failure is
// classified (docs/design.md "Operator rules"), a bad rule failing the init.
// stage is the stage a stage function runs; empty for the others.
func (p Process) Boot(ctx context.Context, log *slog.Logger, stage work.Stage, counter *Counter) (aws.Config, *slog.Logger, error) {
	cfg, err := Load(ctx, counter)
	if err != nil {
		return aws.Config{}, nil, err
	}
	log = log.With("function", p.FunctionName)
	p.WarnOverrides(log)
	src := rules.Source{Parameter: p.RulesParameter, File: p.RulesFile, Stage: stage}
	if _, err := rules.ForFunction(ctx, src, cfg, log); err != nil {
		return aws.Config{}, nil, err
	}
	return cfg, log, nil
}

// MustBoot is Boot for a function that runs no stage, logging JSON to
// stdout at LogLevel and exiting as Exit does when it fails: main's one-line
// start.
func (p Process) MustBoot(ctx context.Context) (aws.Config, *slog.Logger) {
	cfg, log, err := p.Boot(ctx, telemetry.NewLogger(os.Stdout, p.LogLevel), "", nil)
	if err != nil {
		Exit(err)
	}
	return cfg, log
}
