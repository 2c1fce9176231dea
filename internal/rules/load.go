package rules

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// BundledFile is the rules file deployed beside every function's
// bootstrap (the repository's rules.yaml; an example that changes
// nothing unless an operator edits it).
const BundledFile = "rules.yaml"

// Source is where a process's rules come from: its configuration
// (conf.Process). The parameter, when named, is the rules; otherwise
// the file, when it exists; otherwise there are none.
type Source struct {
	// Parameter names the SSM parameter holding a rules file
	// (CLASSIFICATION_RULES_PARAMETER); empty for none.
	Parameter string
	// File is the path of the bundled rules file; a file that does not
	// exist is no rules (a binary deployed without one).
	File string
	// Stage is the stage of the process (Set.Stage).
	Stage work.Stage
}

// ParameterAPI is the part of the SSM client Load uses.
type ParameterAPI interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, opts ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// Load reads src's rules: the SSM parameter (with params) when it is
// named, else the file. A parameter that cannot be read, or a file or
// parameter with a bad rule, is an error naming the line and the reason:
// the process must not start without the rules its operator deployed.
func Load(ctx context.Context, src Source, params ParameterAPI) (*Set, error) {
	var (
		name string
		data []byte
	)
	switch {
	case src.Parameter != "":
		name = "ssm:" + src.Parameter
		if params == nil {
			return nil, fmt.Errorf("rules %s: no SSM client", name)
		}
		out, err := params.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(src.Parameter), WithDecryption: aws.Bool(true)})
		if err != nil {
			return nil, fmt.Errorf("rules %s: %w", name, err)
		}
		if out.Parameter != nil {
			data = []byte(aws.ToString(out.Parameter.Value))
		}
	case src.File != "":
		name = src.File
		b, err := readFile(src.File)
		if errors.Is(err, fs.ErrNotExist) {
			return &Set{Stage: src.Stage}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("rules %s: %w", name, err)
		}
		data = b
	default:
		return &Set{Stage: src.Stage}, nil
	}
	set, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	set.Stage = src.Stage
	return set, nil
}

// readFile reads at most MaxFileBytes+1 bytes of path, so that Parse
// names an oversized file rather than reading all of it.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// Install loads src's rules and puts them in front of the built-in tables
// for every classification in the process (failure.SetOperatorRule). No
// rules install nothing — a process without rules pays nothing for them
// — and leave the process's rule as it is. It returns the rules read. Call
// it once, at start, before the first failure is classified.
func Install(ctx context.Context, src Source, params ParameterAPI) (*Set, error) {
	set, err := Load(ctx, src, params)
	if err != nil {
		return nil, err
	}
	if set.Len() > 0 {
		failure.SetOperatorRule(set)
	}
	return set, nil
}

// ForFunction installs a function's rules at its start (Install), reading
// the parameter, when src names one, with an SSM client of cfg, and logs
// how many it installed and from where. The error names the file or
// parameter, the line and the reason: main fails the function's init with
// it.
func ForFunction(ctx context.Context, src Source, cfg aws.Config, log *slog.Logger) (*Set, error) {
	var params ParameterAPI
	if src.Parameter != "" {
		params = ssm.NewFromConfig(cfg)
	}
	set, err := Install(ctx, src, params)
	if err != nil {
		return nil, fmt.Errorf("classification rules: %w", err)
	}
	if set.Len() > 0 && log != nil {
		log.Info("classification rules installed", "rules", set.Len(), "source", set.Source)
	}
	return set, nil
}
