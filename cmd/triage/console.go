package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/triagehq/triage/cmd/triage/console"
	"github.com/triagehq/triage/internal/policy"
	"github.com/triagehq/triage/internal/store"
)

func init() {
	commands["console"] = command{"the operator's dashboard in a browser: dead letters, timelines, replay, health", runConsole}
}

// consoleShutdown bounds the wait for requests in flight at Ctrl-C.
const consoleShutdown = 10 * time.Second

func runConsole(_ io.Reader, stdout io.Writer, args []string) error {
	fs := newFlagSet("console", "console [--addr 127.0.0.1:0] [stack flags]\n\n"+
		"Serves the operator's dashboard on loopback until Ctrl-C: the overview (items by\n"+
		"state and stage, failures per class, DLQ depth, breakers, models, today's budget),\n"+
		"dead letters by stage and class down to an item's timeline, the error log and the\n"+
		"retry policy; and the CLI's actions (replay, resolve, models enable/disable,\n"+
		"breakers reset), each with a note and a confirmation. It prints a URL holding a\n"+
		"random token: every page and action needs it. It reads and acts with your AWS\n"+
		"credentials, through the same stack and endpoint flags as the other commands.")
	aw := addStackFlags(fs, uses{items: true, errorLog: true, audit: true, budget: true, queues: true})
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0: a free port); anything but loopback exposes the console to that network")
	modelsTable := fs.String("models-table", os.Getenv("MODELS_TABLE"), "model health table (default $MODELS_TABLE, else the stack's ModelsTableName)")
	breakersTable := fs.String("breakers-table", os.Getenv("BREAKERS_TABLE"), "circuit breakers table (default $BREAKERS_TABLE, else the stack's BreakersTableName)")
	profileName := fs.String("retry-profile", "", "the retry profile to show (default: the stack's Profile parameter, else "+policy.Standard().Name+")")
	by := fs.String("by", whoAmI(), "who acts (default: $TRIAGE_OPERATOR, $USER, else the OS account): recorded as console:<by> with every replay, resolution and model override")
	refresh := fs.Duration("refresh", 10*time.Second, "keep item counts, dead-letter groups and the last 24 hours of the error log this long, read again in the background (0: read them for every page)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	ctx, cancel := commandContext()
	defer cancel()
	c, err := aw.connect(ctx, needs{items: true, queues: true})
	if err != nil {
		return err
	}
	if *refresh < 0 {
		return usageError{"--refresh must not be negative"}
	}
	if strings.TrimSpace(*by) == "" {
		return usageError{"--by must name someone"}
	}
	b, err := consoleBackend(ctx, c, aw, *modelsTable, *breakersTable, *profileName, consoleBy(*by))
	if err != nil {
		return err
	}
	b.Refresh = *refresh
	token, err := console.NewToken()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	host := ln.Addr().String()
	_, port, _ := net.SplitHostPort(host)
	hosts := []string{host, "localhost:" + port}
	if h, _, err := net.SplitHostPort(*addr); err == nil && h != "" && net.ParseIP(h) == nil {
		hosts = append(hosts, net.JoinHostPort(h, port))
	}
	srv, err := console.New(b, token, hosts...)
	if err != nil {
		ln.Close()
		return err
	}
	if h, _, err := net.SplitHostPort(host); err == nil && !net.ParseIP(h).IsLoopback() {
		fmt.Fprintf(flagOutput, "triage console: listening on %s, which is not loopback: anyone with the URL can act with your credentials\n", host)
	}
	fmt.Fprintf(stdout, "triage console: http://%s/?token=%s\n", host, token)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, scancel := context.WithTimeout(context.Background(), consoleShutdown)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// consoleBy is how the console's actions name their operator: the
// console, and who ran it ("console:alice").
func consoleBy(by string) string { return "console:" + strings.TrimSpace(by) }

// consoleBackend wires the console to the stores the CLI's commands use,
// built the same way: c's replayer, items, index, error log, audit trail
// and budget; the models and breakers stores of `triage models` and
// `triage breakers`.
func consoleBackend(ctx context.Context, c *stackConn, aw *stackFlags, modelsTable, breakersTable, profileName, by string) (console.Backend, error) {
	r := c.replayer(by)
	b := console.Backend{Replayer: r, Items: c.items(), Index: c.index(), SQS: c.sqs, Queues: c.queues, By: by,
		Logger: slog.New(slog.NewTextHandler(flagOutput, nil)), Missing: map[string]string{}}
	if c.errorLogTable != "" {
		b.Log = c.errorLog()
		r.ErrorLog = &store.ErrorLog{DB: c.ddb, Table: c.errorLogTable}
	} else {
		b.Missing["errorlog"] = "pass --stack or --errorlog-table"
	}
	if c.auditTable != "" {
		b.Trail = c.auditTrail()
	} else {
		b.Missing["audit"] = "pass --stack or --audit-table"
	}
	if c.budgetTable != "" {
		b.Days = c.budgetDays()
	} else {
		b.Missing["budget"] = "pass --stack or --budget-table"
	}
	hc := &healthConn{endpoint: aw.endpoint, region: aw.region, profile: aw.profile, stack: aw.stack, timeout: aw.timeout,
		modelsTable: modelsTable, breakersTable: breakersTable, cfg: &c.aws}
	if m, err := hc.modelsStore(ctx); err == nil {
		b.Models = m
	} else {
		b.Missing["models"] = err.Error()
	}
	if br, err := hc.breakersStore(ctx); err == nil {
		b.Breakers = br
	} else {
		b.Missing["breakers"] = err.Error()
	}
	name := profileName
	if name == "" {
		name = c.params["Profile"]
	}
	if name == "" {
		name = policy.Standard().Name
	}
	p, err := policy.Lookup(name)
	if err != nil {
		return b, usageError{"--retry-profile: " + err.Error()}
	}
	b.Profile = p
	return b, nil
}
