package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/triagehq/triage/internal/cfnstack"
	"github.com/triagehq/triage/internal/conf"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/gates/fallback"
	"github.com/triagehq/triage/internal/gates/health"
)

func init() {
	commands["models"] = command{"list model health; enable or disable a model (models list|enable|disable)", runModels}
}

const modelsSynopsis = `models list|enable|disable [MODEL] [flags]

  models list                   the deployed chain (with --stack: its
                                LLMModels and LLMEscalationModel) and every
                                model's health (provider:model): state,
                                consecutive model-specific failures, last
                                failure; then each provider's breaker (from
                                the breakers table, when known). A model
                                that never failed has no record yet and is
                                shown enabled.
  models disable MODEL          take MODEL (provider:model, as the chain names
                                it) out of the chain until an operator
                                enables it (the recovery function leaves it);
                                with --stack, a name neither in the chain nor
                                in the table is refused
  models enable MODEL           put MODEL back, its failure count reset to 0

The table comes from --models-table, $MODELS_TABLE, or the ModelsTableName
output of --stack. Exit status: 0 ok, 2 bad usage, 1 AWS unreachable or
failing.`

func runModels(_ io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("models", modelsSynopsis)
	conn := addHealthFlags(fs, os.Getenv)
	reason := fs.String("reason", "", "why the model is disabled (models disable)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	sub, rest, err := subcommand(fs, pos, "list, enable or disable")
	if err != nil {
		return err
	}
	var model string
	switch sub {
	case "list":
	case "enable", "disable":
		if len(rest) != 1 || strings.TrimSpace(rest[0]) == "" {
			return usageError{"models " + sub + " takes exactly one MODEL"}
		}
		model = strings.TrimSpace(rest[0])
	default:
		return usageError{fmt.Sprintf("unknown models subcommand %q (want list, enable or disable)", sub)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), conn.timeout)
	defer cancel()
	return conn.explain(modelsDo(ctx, stdout, conn, sub, model, *reason))
}

func modelsDo(ctx context.Context, stdout io.Writer, conn *healthConn, sub, model, reason string) error {
	store, err := conn.modelsStore(ctx)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		recs, err := store.List(ctx)
		if err != nil {
			return err
		}
		ch, err := conn.chain(ctx)
		if err != nil {
			return err
		}
		rows := chainRows(ch, recs)
		providers, err := providerBreakers(ctx, conn, rows)
		if err != nil {
			return err
		}
		if conn.json {
			return printJSON(stdout, modelsReport{Chain: ch.names(), Escalation: ch.escalation(), Models: recs, Providers: providers})
		}
		if ch.known {
			fmt.Fprintf(stdout, "chain (stack %s): %s", conn.stack, strings.Join(ch.names(), " → "))
			if e := ch.escalation(); e != "" {
				fmt.Fprintf(stdout, "; escalation %s", e)
			}
			fmt.Fprintln(stdout)
		}
		if err := modelRowsTable(stdout, rows, time.Now()); err != nil || providers == nil {
			return err
		}
		fmt.Fprintln(stdout)
		return providersTable(stdout, providers, time.Now())
	default:
		// Records are keyed by the chain's provider:model names: a name no
		// deployed entry carries and no record holds is a typo (or a bare
		// model name), and an override of it would change nothing.
		ch, err := conn.chain(ctx)
		if err != nil {
			return err
		}
		if ch.known && !slices.Contains(ch.names(), model) && model != ch.escalation() {
			if _, err := store.Get(ctx, model); errors.Is(err, health.ErrNotFound) {
				names := ch.names()
				if e := ch.escalation(); e != "" {
					names = append(names, e)
				}
				return usageError{fmt.Sprintf("no model %q in the deployed chain (%s) nor in the health table: name it as models list does",
					cell(model), strings.Join(names, ", "))}
			} else if err != nil {
				return err
			}
		}
		m, err := store.SetDisabled(ctx, model, sub == "disable", reason, time.Now())
		if err != nil {
			return err
		}
		if conn.json {
			return printJSON(stdout, m)
		}
		return modelsTable(stdout, []health.Model{m}, time.Now())
	}
}

func modelsTable(w io.Writer, models []health.Model, now time.Time) error {
	rows := make([]modelRow, len(models))
	for i, m := range models {
		rows[i] = modelRow{Model: m, recorded: true}
	}
	return modelRowsTable(w, rows, now)
}

// modelRow is one line of `models list`: a model's health record, its
// place in the deployed chain ("1", "2", …, "escalation"; "" when not in
// it), and whether it has a record (a model that never failed has none).
type modelRow struct {
	health.Model
	Place    string
	recorded bool
}

// chainRows are the chain's entries in order, then its escalation, each
// with its record or none, then the records of models outside the chain.
func chainRows(ch deployedChain, recs []health.Model) []modelRow {
	by := map[string]health.Model{}
	for _, m := range recs {
		by[m.Name] = m
	}
	var rows []modelRow
	seen := map[string]bool{}
	add := func(name, place string) {
		m, ok := by[name]
		if !ok {
			m = health.Model{Name: name}
		}
		rows = append(rows, modelRow{Model: m, Place: place, recorded: ok})
		seen[name] = true
	}
	for i, e := range ch.entries {
		add(e.String(), strconv.Itoa(i+1))
	}
	if ch.escalate != nil && !seen[ch.escalate.String()] {
		add(ch.escalate.String(), "escalation")
	}
	for _, m := range recs {
		if !seen[m.Name] {
			rows = append(rows, modelRow{Model: m, recorded: true})
		}
	}
	return rows
}

func modelRowsTable(w io.Writer, rows []modelRow, now time.Time) error {
	tw := newTable(w, "MODEL", "CHAIN", "STATE", "FAILURES", "LAST FAILURE", "LAST ERROR", "DISABLED", "RECOVERED", "REASON")
	for _, r := range rows {
		m := r.Model
		st := "enabled"
		switch {
		case m.Disabled:
			st = "disabled (" + m.DisabledBy + ")"
		case !r.recorded:
			st = "enabled (no failure recorded)"
		}
		disabled := "-"
		if m.Disabled {
			disabled = ago(m.DisabledAt, now)
		}
		reason := ""
		if m.Disabled {
			reason = m.DisableReason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", cell(m.Name), orDash(r.Place), cell(st), m.ConsecutiveFailures, ago(m.LastFailureAt, now),
			cell(orDash(string(m.LastErrorType))), disabled, ago(m.RecoveredAt, now), cell(orDash(reason)))
	}
	return tw.Flush()
}

// healthConn is the connection flags of the models and breakers commands.
// (cmd/triage/aws.go may grow shared stack and endpoint flags; these stay
// local to this file until then.)
type healthConn struct {
	endpoint, region, stack    string
	profile                    string
	modelsTable, breakersTable string
	timeout                    time.Duration
	json                       bool
	cfg                        *aws.Config
	outputs, params            map[string]string
	stackLoaded                bool
}

// addHealthFlags registers the connection flags, defaulting from getenv.
func addHealthFlags(fs *flag.FlagSet, getenv func(string) string) *healthConn {
	c := &healthConn{}
	fs.StringVar(&c.endpoint, "endpoint", getenv("AWS_ENDPOINT_URL"), "AWS endpoint URL, e.g. a local moto (default $AWS_ENDPOINT_URL; empty: AWS)")
	fs.StringVar(&c.region, "region", "", "AWS region (default $AWS_REGION, else "+conf.DefaultRegion+")")
	fs.StringVar(&c.profile, "profile", "", "shared-config profile (default $AWS_PROFILE)")
	fs.StringVar(&c.stack, "stack", getenv("TRIAGE_STACK"), "read table names from this CloudFormation stack's outputs (default $TRIAGE_STACK)")
	fs.StringVar(&c.modelsTable, "models-table", getenv("MODELS_TABLE"), "model health table (default $MODELS_TABLE)")
	fs.StringVar(&c.breakersTable, "breakers-table", getenv("BREAKERS_TABLE"), "circuit breakers table (default $BREAKERS_TABLE)")
	fs.DurationVar(&c.timeout, "timeout", 15*time.Second, "give up on AWS after this long")
	fs.BoolVar(&c.json, "json", false, "print JSON instead of a table")
	return c
}

// subcommand splits pos into a subcommand (want lists them, for the
// usage error) and its arguments; "list" takes none.
func subcommand(fs *flag.FlagSet, pos []string, want string) (string, []string, error) {
	if len(pos) == 0 {
		fs.Usage()
		return "", nil, usageError{"missing subcommand: " + want}
	}
	sub, rest := pos[0], pos[1:]
	if sub == "list" && len(rest) != 0 {
		return "", nil, usageError{fs.Name() + " list takes no arguments, got " + strings.Join(rest, " ")}
	}
	return sub, rest, nil
}

// explain words an unreachable endpoint as the other commands do.
func (c *healthConn) explain(err error) error { return explainUnreachable(c.endpoint, err) }

func (c *healthConn) config(ctx context.Context) (aws.Config, error) {
	if c.cfg != nil {
		return *c.cfg, nil
	}
	cfg, err := loadAWSConfig(ctx, c.endpoint, c.region, c.profile, c.timeout)
	if err != nil {
		return aws.Config{}, err
	}
	c.cfg = &cfg
	return cfg, nil
}

// table resolves a table name: the flag (or its environment default), else
// the stack output; neither is a usage error.
func (c *healthConn) table(ctx context.Context, given, flagName, outputKey string) (string, error) {
	if given != "" {
		return given, nil
	}
	if c.stack == "" {
		return "", usageError{fmt.Sprintf("no table: pass --%s, set $%s, or pass --stack NAME",
			flagName, strings.ToUpper(strings.ReplaceAll(flagName, "-", "_")))}
	}
	if err := c.loadStack(ctx); err != nil {
		return "", err
	}
	v := c.outputs[outputKey]
	if v == "" {
		return "", fmt.Errorf("stack %s has no output %s", c.stack, outputKey)
	}
	return v, nil
}

// loadStack reads the stack's outputs and parameters once.
func (c *healthConn) loadStack(ctx context.Context) error {
	if c.stackLoaded {
		return nil
	}
	cfg, err := c.config(ctx)
	if err != nil {
		return err
	}
	info, err := cfnstack.Describe(ctx, cloudformation.NewFromConfig(cfg), c.stack)
	if err != nil {
		return err
	}
	c.outputs, c.params, c.stackLoaded = info.Outputs, info.Parameters, true
	return nil
}

// deployedChain is the model chain a stack deploys (its LLMModels,
// LLMProvider and LLMEscalationModel parameters); known is false without a
// stack.
type deployedChain struct {
	known    bool
	entries  []fallback.Entry
	escalate *fallback.Entry
}

func (d deployedChain) names() []string {
	out := make([]string, len(d.entries))
	for i, e := range d.entries {
		out[i] = e.String()
	}
	return out
}

func (d deployedChain) escalation() string {
	if d.escalate == nil {
		return ""
	}
	return d.escalate.String()
}

// chain reads the deployed chain from the stack's parameters; without a
// stack it is not known.
func (c *healthConn) chain(ctx context.Context) (deployedChain, error) {
	if c.stack == "" {
		return deployedChain{}, nil
	}
	if err := c.loadStack(ctx); err != nil {
		return deployedChain{}, err
	}
	def := failure.Provider(cmpOr(c.params["LLMProvider"], string(failure.OpenAI)))
	d := deployedChain{known: true}
	var err error
	if d.entries, err = fallback.ParseChain(c.params["LLMModels"], def); err != nil {
		return deployedChain{}, fmt.Errorf("stack %s: LLMModels: %w", c.stack, err)
	}
	if esc := strings.TrimSpace(c.params["LLMEscalationModel"]); esc != "" {
		e, err := fallback.ParseEntry(esc, def)
		if err != nil {
			return deployedChain{}, fmt.Errorf("stack %s: LLMEscalationModel: %w", c.stack, err)
		}
		d.escalate = &e
	}
	return d, nil
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

func (c *healthConn) modelsStore(ctx context.Context) (*health.Dynamo, error) {
	db, t, err := c.dynamo(ctx, c.modelsTable, "models-table", "ModelsTableName")
	if err != nil {
		return nil, err
	}
	return &health.Dynamo{DB: db, Table: t}, nil
}

// dynamo is a DynamoDB client and the table given (or, when given is "",
// read from the stack's output outputKey).
func (c *healthConn) dynamo(ctx context.Context, given, flagName, outputKey string) (*dynamodb.Client, string, error) {
	cfg, err := c.config(ctx)
	if err != nil {
		return nil, "", err
	}
	t, err := c.table(ctx, given, flagName, outputKey)
	return dynamodb.NewFromConfig(cfg), t, err
}

// ago renders t as "2026-11-21T10:00:00Z (5m ago)", or "-" for zero.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t).Round(time.Second)
	rel := d.String() + " ago"
	if d < 0 {
		rel = "in " + (-d).String()
	}
	return t.UTC().Format(time.RFC3339) + " (" + rel + ")"
}
