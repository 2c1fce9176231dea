package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/triagehq/triage/internal/gates/breaker"
)

func init() {
	commands["breakers"] = command{"list the shared circuit breakers; reset one (breakers list|reset)", runBreakers}
}

const breakersSynopsis = `breakers list|reset [SERVICE] [flags]

  breakers list                 every upstream service's breaker: state,
                                consecutive failures, when it may be probed
  breakers reset SERVICE        close SERVICE's breaker now (count 0), e.g.
                                after an incident is over

The table comes from --breakers-table, $BREAKERS_TABLE, or the
BreakersTableName output of --stack. Exit status: 0 ok, 2 bad usage, 1 AWS
unreachable or failing.`

func runBreakers(_ io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("breakers", breakersSynopsis)
	conn := addHealthFlags(fs, os.Getenv)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	sub, rest, err := subcommand(fs, pos, "list or reset")
	if err != nil {
		return err
	}
	switch sub {
	case "list":
	case "reset":
		if len(rest) != 1 || strings.TrimSpace(rest[0]) == "" {
			return usageError{"breakers reset takes exactly one SERVICE (a host, as breakers list shows it)"}
		}
	default:
		return usageError{fmt.Sprintf("unknown breakers subcommand %q (want list or reset)", sub)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), conn.timeout)
	defer cancel()
	return conn.explain(breakersDo(ctx, stdout, conn, sub, rest))
}

func breakersDo(ctx context.Context, stdout io.Writer, conn *healthConn, sub string, rest []string) error {
	store, err := conn.breakersStore(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	var recs []breaker.Record
	if sub == "list" {
		if recs, err = store.List(ctx); err != nil {
			return err
		}
	} else {
		r, err := store.Reset(ctx, strings.TrimSpace(rest[0]), now)
		if err != nil {
			return err
		}
		recs = []breaker.Record{r}
	}
	if conn.json {
		if sub == "reset" {
			return printJSON(stdout, recs[0])
		}
		return printJSON(stdout, recs)
	}
	return breakersTable(stdout, recs, now)
}

func breakersTable(w io.Writer, recs []breaker.Record, now time.Time) error {
	tw := newTable(w, "SERVICE", "STATE", "FAILURES", "OPEN UNTIL", "PROBE UNTIL", "OPENS", "LAST FAILURE", "LAST ERROR")
	for _, r := range recs {
		st := string(r.State)
		if r.State == breaker.Open && !r.OpenUntil.After(now) {
			st += " (probe due)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", cell(r.Service), cell(st), r.ConsecutiveFailures, ago(r.OpenUntil, now),
			ago(r.ProbeUntil, now), r.Opens, ago(r.LastFailureAt, now), cell(orDash(string(r.LastErrorType))))
	}
	return tw.Flush()
}

func (c *healthConn) breakersStore(ctx context.Context) (*breaker.Dynamo, error) {
	db, t, err := c.dynamo(ctx, c.breakersTable, "breakers-table", "BreakersTableName")
	if err != nil {
		return nil, err
	}
	return &breaker.Dynamo{DB: db, Table: t, ConsistentReads: true}, nil
}
