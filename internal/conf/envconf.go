// Package conf is a triage binary's configuration: what a function reads from
// its environment, and the AWS SDK configuration every binary builds once, in
// main.
//
// Each function has one loader (cmd/<name>/config.go) that reads every
// variable it uses through a Reader, which collects every missing or invalid
// variable, so a bad deployment fails its first cold start with the whole
// list instead of one variable per redeploy. Shared packages take values,
// never the environment. The README's "Configuration" table lists every
// variable.
//
// AWS (awsconf.go): an HTTP client that honours AWS_CA_BUNDLE, the region and
// endpoint from the environment (AWS_ENDPOINT_URL points the SDK at a local
// AWS with no code), and a Counter that counts every AWS request by service
// and operation through SDK middleware.
package conf

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/telemetry"
)

// Reader reads variables and collects their errors; Err returns them.
type Reader struct {
	getenv    func(string) string
	errs      []error
	overrides map[string]string
}

// New returns a Reader over getenv (os.Getenv in main, a map in tests).
func New(getenv func(string) string) *Reader { return &Reader{getenv: getenv} }

// String returns the variable, trimmed; "" when it is unset.
func (r *Reader) String(name string) string { return strings.TrimSpace(r.getenv(name)) }

// Required returns the variable, trimmed; an unset or blank one is an error.
func (r *Reader) Required(name string) string {
	v := r.String(name)
	if v == "" {
		r.errs = append(r.errs, fmt.Errorf("%s is required", name))
	}
	return v
}

// Int returns the variable as a non-negative integer, or def when it is
// unset.
func (r *Reader) Int(name string, def int) int {
	return r.integer(name, def, 0, "a non-negative integer")
}

// PositiveInt returns the variable as a positive integer, or def when it is
// unset.
func (r *Reader) PositiveInt(name string, def int) int {
	return r.integer(name, def, 1, "a positive integer")
}

func (r *Reader) integer(name string, def, least int, what string) int {
	v := r.String(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		r.errs = append(r.errs, fmt.Errorf("%s=%q is not %s", name, v, what))
		return def
	}
	return n
}

// Bool returns the variable as a boolean ("true", "false", "1", "0", …), or
// def when it is unset.
func (r *Reader) Bool(name string, def bool) bool {
	v := r.String(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%q is not a boolean", name, v))
		return def
	}
	return b
}

// Check records err, if any, as the variable's error.
func (r *Reader) Check(name string, err error) {
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %w", name, err))
	}
}

// Err returns every error read so far, as the configuration of what; nil
// when there is none.
func (r *Reader) Err(what string) error {
	if err := errors.Join(r.errs...); err != nil {
		return fmt.Errorf("%s configuration: %w", what, err)
	}
	return nil
}

// TestOverride returns a test and demo override: a non-negative Go duration
// that compresses time (BREAKER_OPEN_FOR, RECOVERY_CLOCK_OFFSET, …), or 0
// when it is unset. template.yaml never sets one; one that is set is
// remembered, and Process.Overrides lists it so that main can log it.
func (r *Reader) TestOverride(name string) time.Duration {
	v := r.String(name)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		r.errs = append(r.errs, fmt.Errorf("%s=%q is not a non-negative duration", name, v))
		return 0
	}
	if d != 0 {
		if r.overrides == nil {
			r.overrides = map[string]string{}
		}
		r.overrides[name] = d.String()
	}
	return d
}

// Overrides returns the test and demo overrides read so far and set.
func (r *Reader) Overrides() map[string]string { return r.overrides }

// Process is what every function reads about itself.
type Process struct {
	// LogLevel is LOG_LEVEL (debug, info, warn, error; default info).
	LogLevel string
	// FunctionName is AWS_LAMBDA_FUNCTION_NAME, set by Lambda; it names
	// the function in every log line.
	FunctionName string
	// MetricsNamespace is METRICS_NAMESPACE, the CloudWatch namespace of
	// the embedded-metric-format lines; default telemetry.DefaultNamespace.
	MetricsNamespace string
	// Overrides are the test and demo overrides that are set (see
	// TestOverride); a deployed function has none.
	Overrides map[string]string
	// RulesParameter is CLASSIFICATION_RULES_PARAMETER: the SSM parameter
	// holding the operator's classification rules (docs/design.md
	// "Operator rules"), a name starting with '/'; empty for none, and
	// then the bundled file is read.
	RulesParameter string
	// RulesFile is the bundled rules file: rules.yaml in the function's
	// directory (LAMBDA_TASK_ROOT, set by Lambda and the local runtime);
	// empty outside a function.
	RulesFile string
}

// WarnOverrides logs the overrides p carries, if any: a function that runs
// with compressed time says so in its first log line.
func (p Process) WarnOverrides(log *slog.Logger) {
	if len(p.Overrides) > 0 {
		log.Warn("test and demo overrides set: this function runs with compressed time", "overrides", p.Overrides)
	}
}

// Process reads LOG_LEVEL, AWS_LAMBDA_FUNCTION_NAME, METRICS_NAMESPACE,
// CLASSIFICATION_RULES_PARAMETER and LAMBDA_TASK_ROOT.
func (r *Reader) Process() Process {
	ns := r.String("METRICS_NAMESPACE")
	if ns == "" {
		ns = telemetry.DefaultNamespace
	}
	p := Process{LogLevel: r.String("LOG_LEVEL"), FunctionName: r.String("AWS_LAMBDA_FUNCTION_NAME"), MetricsNamespace: ns,
		RulesParameter: r.String("CLASSIFICATION_RULES_PARAMETER")}
	if p.RulesParameter != "" && !strings.HasPrefix(p.RulesParameter, "/") {
		r.errs = append(r.errs, fmt.Errorf("CLASSIFICATION_RULES_PARAMETER=%q is not an SSM parameter name starting with '/'", p.RulesParameter))
	}
	if root := r.String("LAMBDA_TASK_ROOT"); root != "" {
		p.RulesFile = filepath.Join(root, "rules.yaml")
	}
	return p
}

// Exit logs err as the function's init error and exits 1 before serving,
// which Lambda reports as an init failure: main calls it when its loader
// fails.
func Exit(err error) {
	telemetry.NewLogger(os.Stdout, "").Error("init failed", "error", err.Error())
	os.Exit(1)
}

// Must returns v, or, when err is not nil, exits as Exit does: main's
// one-line form of "load, or fail the init".
func Must[T any](v T, err error) T {
	if err != nil {
		Exit(err)
	}
	return v
}

// Add records err, which names its variable itself, if any.
func (r *Reader) Add(err error) {
	if err != nil {
		r.errs = append(r.errs, err)
	}
}
